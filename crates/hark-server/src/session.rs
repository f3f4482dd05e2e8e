//! One RTVI session: the connection loop (reader → session → writer) and the handler seam.
//!
//! A connection runs three stages joined in one task, linked by bounded queues:
//!
//! ```text
//! socket Stream ─► reader ─(inbound queue)─► session ─(outbound queue)─► writer ─► socket Sink
//!                  decode frame + RTVI        handshake, registry,         encode frame
//!                  refuse bad input           SessionHandler
//! ```
//!
//! When a queue is full the stage feeding it waits; the reader then stops reading and TCP
//! pushes back on the client, so memory per session stays bounded (case P3). The loop is
//! written against a generic `Stream`/`Sink` of [`WsMessage`] so tests drive it with channels.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::body::Bytes;
use futures::future::BoxFuture;
use futures::{Sink, SinkExt, Stream, StreamExt};
use hark_rtvi::message::{ClientMessage, Inbound, ServerMessage};
use hark_rtvi::snapshot::{A11ySnapshot, SnapshotLimits};
use hark_rtvi::ui::{UiCancelJobGroup, UiEvent};
use hark_rtvi::version::{VersionCheck, check_client_version};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::config::{DEFAULT_PING_INTERVAL, FLOOD_FACTOR, ServerConfig};
use crate::messages;
use crate::registry::{CloseCause, Counters, SessionEventKind, SessionId, Sessions};
use crate::socket::{
    CLOSE_GOING_AWAY, CLOSE_NORMAL, CLOSE_POLICY, CLOSE_TOO_BIG, CLOSE_UNEXPECTED, CloseInfo,
    RawConn, RecvError, WsMessage,
};
use crate::wire;

/// The `about.library` the server reports in `bot-ready`.
pub const LIBRARY: &str = "hark";

/// What a [`SessionHandler`] is handed, one input at a time, in the order the client sent them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SessionInput {
    /// The handshake finished: `bot-ready` was sent.
    Ready {
        /// Outcome of the client's version check (legacy clients get v1 `bot-output`).
        version: VersionCheck,
    },
    /// A `send-text`, or a `dtmf` written as [`crate::messages::dtmf_user_text`]
    /// (`DTMF: 12#`): a user turn.
    UserText {
        /// `data.content` (for a `dtmf`: `DTMF: ` and its keys).
        text: String,
    },
    /// A `client-message` to answer with `server-response` or `error-response` (with
    /// [`Outbox::respond`] and `request_id`).
    ClientMessage {
        /// The request's `id`, to put on the answer.
        request_id: Option<String>,
        /// `data.t`, the message type.
        t: String,
        /// `data.d`, the payload (`None` when absent), its numbers as sent (a `ping` echo
        /// writes them back unchanged).
        d: Option<hark_rtvi::Payload>,
    },
    /// A `ui-snapshot`, already stored as the session's latest.
    Snapshot(Arc<A11ySnapshot>),
    /// A `ui-event`.
    UiEvent(UiEvent),
    /// A `ui-cancel-job-group`. A cancel the handler cannot honour (unknown or not
    /// cancellable group) is answered with an `error-response` carrying `request_id`.
    CancelJobGroup {
        /// The request's `id`, to put on an `error-response`.
        request_id: Option<String>,
        /// `data`: the group and the reason.
        cancel: UiCancelJobGroup,
    },
    /// A `disconnect-bot`: the client ends the session (as Pipecat does). After this input the
    /// session sends what is queued, closes with 1000 "Client asked to disconnect" and ends
    /// with [`CloseCause::ClientDisconnected`].
    Disconnect,
}

/// The per-session logic plugged into the connection loop (issue 2, point 6): an agent, a UI
/// worker, or the built-in [`NoAgentHandler`].
///
/// The session awaits each `handle` before taking the next input, so a slow handler slows the
/// reader (bounded memory) but never reorders inputs. The future is dropped at shutdown or when
/// the client leaves; work that must outlive one input belongs in a task the handler owns.
pub trait SessionHandler: Send + 'static {
    /// Handles one input; answers go through `outbox`.
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()>;
}

/// Makes the handler of each new session.
pub trait HandlerFactory: Send + Sync + 'static {
    /// A handler for the session `session`.
    fn create(&self, session: SessionId) -> Box<dyn SessionHandler>;
}

impl<F> HandlerFactory for F
where
    F: Fn(SessionId) -> Box<dyn SessionHandler> + Send + Sync + 'static,
{
    fn create(&self, session: SessionId) -> Box<dyn SessionHandler> {
        self(session)
    }
}

impl fmt::Debug for dyn HandlerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HandlerFactory")
    }
}

/// The handler used until an agent exists: a text turn gets [`messages::no_agent_reply`] as one
/// bot reply; a `client-message` of type `ping` gets `server-response {t: "ping", d}` (its `d`
/// echoed), any other type an `error-response`; a `ui-cancel-job-group` gets an
/// `error-response` ([`messages::cancel_unknown_group`]: no job group runs without a UI worker).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAgentHandler;

impl SessionHandler for NoAgentHandler {
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A send fails only when the client is gone; nothing is left to do then.
            match input {
                SessionInput::UserText { .. } => {
                    for m in wire::bot_reply(&messages::no_agent_reply(), outbox.legacy()) {
                        if outbox.send(m).await.is_err() {
                            return;
                        }
                    }
                }
                SessionInput::ClientMessage { request_id, t, d } => {
                    let answer = if t == "ping" {
                        wire::server_response(&t, d)
                    } else {
                        wire::error_response(&messages::unhandled_client_message(&t))
                    };
                    let _ = outbox.respond(request_id, answer).await;
                }
                SessionInput::CancelJobGroup { request_id, cancel } => {
                    let text = messages::cancel_unknown_group(&cancel.job_id);
                    let _ = outbox
                        .respond(request_id, wire::error_response(&text))
                        .await;
                }
                _ => {}
            }
        })
    }
}

/// A server message with the `id` it answers (`None` for unsolicited messages).
///
/// The message is boxed (issue 9, per-session memory): a tokio mpsc allocates its first block
/// of 32 slots when the channel is made, so each session's outbound queue holds 32 ×
/// `size_of::<Outgoing>()` bytes from the start: 32 B a slot boxed, against 288 B with the
/// message inline (≈ 9 KiB less per session, for one allocation per message sent).
#[derive(Debug)]
pub struct Outgoing {
    /// The client request id this answers (`bot-ready`, `server-response`, `error-response`).
    pub id: Option<String>,
    /// The message.
    pub message: Box<ServerMessage>,
}

/// The session is closed (or never existed); the message was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("session {session} is closed; the message was not sent")]
pub struct SendError {
    /// The session addressed.
    pub session: SessionId,
}

/// The sending side of one session's outbound queue. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Outbox {
    session: SessionId,
    tx: mpsc::Sender<Outgoing>,
    counters: Arc<Counters>,
    legacy: Arc<std::sync::atomic::AtomicBool>,
    /// Cancelled by [`Outbox::end_session`]: the bot ends the session.
    ended: CancellationToken,
    /// The session's limits a handler applies (pending UI jobs, UI events in flight).
    policy: HandlerLimits,
}

/// The per-session limits a [`SessionHandler`] applies itself (issue 9, point 4), read with
/// [`Outbox::handler_limits`]; from [`ServerConfig::max_pending_jobs`] and
/// [`ServerConfig::max_ui_events_in_flight`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandlerLimits {
    /// Most UI jobs (`screen`, `respond`) waiting or running at once.
    pub max_pending_jobs: usize,
    /// Most app UI-event handlers running at once.
    pub max_ui_events_in_flight: usize,
    /// Most job groups running at once ([`crate::ServerConfig::max_job_groups`]).
    pub max_job_groups: usize,
}

impl Default for HandlerLimits {
    fn default() -> Self {
        Self {
            max_pending_jobs: crate::config::DEFAULT_MAX_PENDING_JOBS,
            max_ui_events_in_flight: crate::config::DEFAULT_MAX_UI_EVENTS_IN_FLIGHT,
            max_job_groups: crate::config::DEFAULT_MAX_JOB_GROUPS,
        }
    }
}

impl Outbox {
    /// A detached outbox of `capacity` messages and its receiving end, to test a
    /// [`SessionHandler`] without a socket (default [`HandlerLimits`]).
    pub fn channel(session: SessionId, capacity: usize) -> (Outbox, mpsc::Receiver<Outgoing>) {
        Self::channel_with(session, capacity, HandlerLimits::default())
    }

    /// [`Outbox::channel`] with the given handler limits.
    pub fn channel_with(
        session: SessionId,
        capacity: usize,
        policy: HandlerLimits,
    ) -> (Outbox, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let outbox = Outbox {
            session,
            tx,
            counters: Arc::default(),
            legacy: Arc::default(),
            ended: CancellationToken::new(),
            policy,
        };
        (outbox, rx)
    }

    /// The limits the session's handler applies (pending UI jobs, UI events in flight).
    pub fn handler_limits(&self) -> HandlerLimits {
        self.policy
    }

    /// How many client messages this session dropped so far for going over
    /// [`ServerConfig::max_messages_per_sec`] (each one counted; logged once per episode).
    /// The same count as [`SessionStats::messages_rate_limited`](crate::SessionStats::messages_rate_limited).
    pub fn messages_rate_limited(&self) -> u64 {
        self.counters.messages_rate_limited.load(Ordering::Relaxed)
    }

    /// The session this outbox sends to.
    pub fn session(&self) -> SessionId {
        self.session
    }

    /// Whether the client speaks protocol 1.x (set by the handshake; v1 `bot-output` shape).
    pub fn legacy(&self) -> bool {
        self.legacy.load(Ordering::Relaxed)
    }

    /// Queues an unsolicited message (no `id`), waiting while the queue is full.
    ///
    /// # Errors
    /// [`SendError`] when the session has closed.
    pub async fn send(&self, message: ServerMessage) -> Result<(), SendError> {
        self.send_boxed(Box::new(message)).await
    }

    /// [`Outbox::send`] of a message already boxed (the UI worker's queue carries them boxed).
    pub(crate) async fn send_boxed(&self, message: Box<ServerMessage>) -> Result<(), SendError> {
        self.push(Outgoing { id: None, message }).await
    }

    /// Queues an unsolicited boxed message only if there is room now (never waits): the UI
    /// worker's sink, which must not block. Gives the message back when the queue is full or
    /// the session has closed.
    pub(crate) fn try_send_boxed(
        &self,
        message: Box<ServerMessage>,
    ) -> Result<(), mpsc::error::TrySendError<Box<ServerMessage>>> {
        self.tx
            .try_send(Outgoing { id: None, message })
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(out) => {
                    mpsc::error::TrySendError::Full(out.message)
                }
                mpsc::error::TrySendError::Closed(out) => {
                    mpsc::error::TrySendError::Closed(out.message)
                }
            })?;
        Counters::note_depth(&self.counters.outbound_high_water, self.len());
        Ok(())
    }

    /// Queues an answer to the client request `id`, waiting while the queue is full.
    ///
    /// # Errors
    /// [`SendError`] when the session has closed.
    pub async fn reply(
        &self,
        id: impl Into<String>,
        message: ServerMessage,
    ) -> Result<(), SendError> {
        self.push(Outgoing {
            id: Some(id.into()),
            message: Box::new(message),
        })
        .await
    }

    /// Queues an answer to the client request `id` when the request had one (a request without
    /// an `id` gets its answer without one), waiting while the queue is full.
    ///
    /// # Errors
    /// [`SendError`] when the session has closed.
    pub async fn respond(
        &self,
        id: Option<String>,
        message: ServerMessage,
    ) -> Result<(), SendError> {
        self.push(Outgoing {
            id,
            message: Box::new(message),
        })
        .await
    }

    async fn push(&self, out: Outgoing) -> Result<(), SendError> {
        self.tx.send(out).await.map_err(|_| SendError {
            session: self.session,
        })?;
        Counters::note_depth(&self.counters.outbound_high_water, self.len());
        Ok(())
    }

    /// Ends the session from the bot's side (a tool call ended the conversation): the
    /// session takes no more input, sends what is already queued, closes the socket with 1000
    /// ([`messages::call_ended`]) and ends with [`CloseCause::CallEnded`]. Sends after this
    /// may still be queued but are not guaranteed to go out.
    pub fn end_session(&self) {
        self.ended.cancel();
    }

    /// True once [`end_session`](Self::end_session) was called.
    pub fn is_ending(&self) -> bool {
        self.ended.is_cancelled()
    }

    /// Messages waiting in the queue now.
    pub fn len(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }

    /// Whether no message is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The queue's bound, in messages.
    pub fn capacity(&self) -> usize {
        self.tx.max_capacity()
    }
}

/// Per-session limits, taken from [`ServerConfig`].
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// Largest incoming frame, bytes (enforced by the WebSocket layer; named in the close reason).
    pub max_frame_bytes: usize,
    /// Inbound queue bound, messages.
    pub inbound_queue: usize,
    /// Outbound queue bound, messages.
    pub outbound_queue: usize,
    /// Wait for the client's close answer at shutdown.
    pub close_grace: Duration,
    /// Deadline for `client-ready`, from the upgrade.
    pub client_ready_timeout: Duration,
    /// Keep-alive ping interval (zero: none).
    pub ping_interval: Duration,
    /// Deadline for a pong, from the keep-alive tick that asked for a ping.
    pub pong_timeout: Duration,
    /// Window in which an identical error text is sent once.
    pub error_repeat_window: Duration,
    /// Most nodes in one `ui-snapshot`; a larger one is refused.
    pub max_snapshot_nodes: usize,
    /// Deepest node level in one `ui-snapshot`; a deeper one is refused.
    pub max_snapshot_depth: usize,
    /// Largest `ui-snapshot` message, bytes of JSON; a larger one is refused undecoded.
    pub max_snapshot_bytes: usize,
    /// Sustained data messages a second (0: no limit); messages over it are dropped.
    pub max_messages_per_sec: u32,
    /// Token-bucket size of the message rate, in messages.
    pub message_burst: u32,
    /// Flooding (over [`FLOOD_FACTOR`] × the rate every second) this long closes with 1008
    /// (zero: never).
    pub flood_close_after: Duration,
    /// What the handler applies itself (see [`Outbox::handler_limits`]).
    pub handler: HandlerLimits,
}

impl SessionLimits {
    /// The limits of `config` (queue bounds of 0 become 1).
    pub fn from_config(config: &ServerConfig) -> Self {
        Self {
            max_frame_bytes: config.max_frame_bytes,
            inbound_queue: config.inbound_queue.max(1),
            outbound_queue: config.outbound_queue.max(1),
            close_grace: config.close_grace,
            client_ready_timeout: config.client_ready_timeout,
            ping_interval: config.ping_interval,
            pong_timeout: config.pong_timeout,
            error_repeat_window: config.error_repeat_window,
            max_snapshot_nodes: config.max_snapshot_nodes,
            max_snapshot_depth: config.max_snapshot_depth,
            max_snapshot_bytes: config.max_snapshot_bytes,
            max_messages_per_sec: config.max_messages_per_sec,
            message_burst: config.message_burst.max(1),
            flood_close_after: config.flood_close_after,
            handler: HandlerLimits {
                max_pending_jobs: config.max_pending_jobs.max(1),
                max_ui_events_in_flight: config.max_ui_events_in_flight.max(1),
                max_job_groups: config.max_job_groups.max(1),
            },
        }
    }
}

impl SessionLimits {
    /// How long one write to the client may move not a single byte before the session ends
    /// with 1011 ([`CloseCause::PongTimeout`] with this as `after`): the client stopped
    /// reading (issue 9, point 4). `ping_interval + pong_timeout`, the time the keep-alive
    /// gives a peer; with pings off (a zero `ping_interval`), [`DEFAULT_PING_INTERVAL`] (30 s)
    /// stands in for the interval, so turning pings off keeps a client that never reads
    /// bounded without shortening the window below the default's. `None` when `pong_timeout`
    /// is zero (no stalled-write close). Saturates instead of overflowing.
    pub fn stalled_write_window(&self) -> Option<Duration> {
        if self.pong_timeout.is_zero() {
            return None;
        }
        let interval = if self.ping_interval.is_zero() {
            DEFAULT_PING_INTERVAL
        } else {
            self.ping_interval
        };
        Some(interval.saturating_add(self.pong_timeout))
    }
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self::from_config(&ServerConfig::default())
    }
}

/// Everything [`run_connection`] needs besides the socket.
#[derive(Debug)]
pub struct ConnectionSetup {
    /// The session's id (from the registry).
    pub id: SessionId,
    /// The registry the session registers in and publishes events to.
    pub sessions: Sessions,
    /// The session's logic.
    pub handler: Box<dyn SessionHandler>,
    /// Queue bounds and frame limit.
    pub limits: SessionLimits,
    /// Cancelled at server shutdown: the session sends close 1001 and ends.
    pub shutdown: CancellationToken,
    /// The TCP connection under the socket, when there is one: after the server refuses the
    /// client's input (an oversize frame, a message flood) and sends its close frame, what the
    /// client still sends is read and discarded, so the client reads the close frame instead of
    /// a connection reset. Its byte count also tells a client that reads slowly from one that
    /// stopped reading (a write then moves no byte for
    /// [`SessionLimits::stalled_write_window`]: 1011).
    /// `None` (channel-driven tests): not drained, and one write may wait that long in all.
    pub raw: Option<RawConn>,
}

impl fmt::Debug for dyn SessionHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionHandler")
    }
}

/// What the reader hands the session: a decoded message, or a refusal to send back.
///
/// Both boxed (issue 9, per-session memory): the inbound queue's first 32-slot block is
/// allocated when the session starts, 16 B a slot boxed against 128 B for an inline
/// [`Inbound`].
#[derive(Debug)]
pub(crate) enum ReaderItem {
    Message(Box<Inbound>),
    Refused(Box<wire::Refusal>),
}

/// Runs one session over a socket until the client leaves or sends `disconnect-bot`, the
/// client breaks a limit or a deadline (frame size, `client-ready`, keep-alive pong), or
/// `setup.shutdown` fires. Registers the session in `setup.sessions` for its lifetime and
/// publishes its events. Never panics on client input.
pub async fn run_connection<W, R>(sink: W, stream: R, setup: ConnectionSetup) -> CloseCause
where
    W: Sink<WsMessage> + Unpin,
    W::Error: fmt::Display,
    R: Stream<Item = Result<WsMessage, RecvError>> + Unpin,
{
    let ConnectionSetup {
        id,
        sessions,
        handler,
        limits,
        shutdown,
        raw,
    } = setup;
    let counters = Arc::new(Counters::default());
    let (in_tx, in_rx) = mpsc::channel::<ReaderItem>(limits.inbound_queue);
    let (out_tx, out_rx) = mpsc::channel::<Outgoing>(limits.outbound_queue);
    let (close_tx, close_rx) = mpsc::channel::<Box<CloseInfo>>(1);
    let (ping_tx, ping_rx) = mpsc::channel::<()>(1);
    let ended = CancellationToken::new();
    let outbox = Outbox {
        session: id,
        tx: out_tx,
        counters: counters.clone(),
        legacy: Arc::default(),
        ended: ended.clone(),
        policy: limits.handler,
    };
    // Cancelled by the writer when one write to the client moved no byte for the stalled-write
    // window: the client does not read, the session ends.
    let stalled = CancellationToken::new();
    sessions.register(
        id,
        outbox.clone(),
        in_tx.downgrade(),
        limits.inbound_queue,
        counters.clone(),
    );
    let session_done = CancellationToken::new();
    // Cancelled by the session after `disconnect-bot`: the reader stops, the writer closes
    // with 1000 once the queued answers are out.
    let disconnect = CancellationToken::new();

    let reader = read_loop(
        stream,
        ReaderLinks {
            in_tx,
            close_tx,
            ping_tx,
            raw: raw.clone(),
            stalled: stalled.clone(),
        },
        &counters,
        &shutdown,
        &disconnect,
        &ended,
        limits,
    );
    let session = async {
        session_loop(
            id,
            &sessions,
            handler,
            in_rx,
            outbox,
            &shutdown,
            &disconnect,
        )
        .await;
        session_done.cancel();
    };
    let writer = write_loop(
        sink,
        WriterLinks {
            out_rx,
            close_rx,
            ping_rx,
            ended: ended.clone(),
            stalled,
            progress: raw,
        },
        &counters,
        &shutdown,
        &session_done,
        &disconnect,
        limits,
    );
    let (cause, (), ()) = tokio::join!(reader, session, writer);
    sessions.unregister(id, cause.clone());
    cause
}

/// The reader's channels: decoded input to the session, a close frame and ping requests to the
/// writer.
struct ReaderLinks {
    in_tx: mpsc::Sender<ReaderItem>,
    close_tx: mpsc::Sender<Box<CloseInfo>>,
    ping_tx: mpsc::Sender<()>,
    /// The TCP connection, to drain after a refusal that closes the socket.
    raw: Option<RawConn>,
    /// Cancelled by the writer when the client stopped reading.
    stalled: CancellationToken,
}

/// How long the input must have been quiet, once a refused frame's announced payload is in,
/// before the drain stops.
const DRAIN_QUIET: Duration = Duration::from_millis(250);

/// What the rate limiter says about one client message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Under the rate: handle it.
    Admit,
    /// Over the rate: drop it; `tell`: this is the first drop of an episode, send the error.
    Drop { tell: bool },
    /// Over [`FLOOD_FACTOR`] × the rate for `flood_close_after`: close the session.
    Flood,
}

/// Issue 9, point 4: a token bucket of client data messages (`per_sec` sustained, `burst` at
/// once) and flood detection in whole-second windows.
#[derive(Debug)]
struct RateLimiter {
    per_sec: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
    /// Messages in one second above which that second counts as flooding.
    flood_threshold: u64,
    /// Consecutive flooding seconds that close the session (0: never).
    flood_seconds: u64,
    window_start: Instant,
    window_count: u64,
    flooding_for: u64,
    /// Inside an episode of drops: since `episode_start`, `dropped` messages, last at `last_drop`.
    episode: Option<(Instant, u64, Instant)>,
    /// When the rate error was last sent, and the least time between two.
    last_told: Option<Instant>,
    tell_every: Duration,
}

impl RateLimiter {
    /// `None` when `limits` set no rate.
    fn new(limits: &SessionLimits, now: Instant) -> Option<Self> {
        if limits.max_messages_per_sec == 0 {
            return None;
        }
        let burst = f64::from(limits.message_burst.max(1));
        let after = limits.flood_close_after;
        Some(Self {
            per_sec: f64::from(limits.max_messages_per_sec),
            burst,
            tokens: burst,
            last: now,
            flood_threshold: u64::from(limits.max_messages_per_sec) * u64::from(FLOOD_FACTOR),
            flood_seconds: after.as_secs() + u64::from(after.subsec_nanos() > 0),
            window_start: now,
            window_count: 0,
            flooding_for: 0,
            episode: None,
            last_told: None,
            tell_every: limits.error_repeat_window.max(Duration::from_secs(1)),
        })
    }

    fn check(&mut self, now: Instant) -> Verdict {
        let since = now.saturating_duration_since(self.window_start);
        if since >= Duration::from_secs(1) {
            let whole = since.as_secs();
            // A second with no message in between ends the flood.
            self.flooding_for = if whole == 1 && self.window_count > self.flood_threshold {
                self.flooding_for + 1
            } else {
                0
            };
            self.window_start += Duration::from_secs(whole);
            self.window_count = 0;
        }
        self.window_count += 1;
        if self.flood_seconds > 0
            && self.window_count > self.flood_threshold
            && self.flooding_for + 1 >= self.flood_seconds
        {
            return Verdict::Flood;
        }
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_sec).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            // The episode ends after a second without drops (not at every refill, which under
            // a flood comes every few ms).
            if let Some((_, dropped, last_drop)) = self.episode
                && now.saturating_duration_since(last_drop) >= Duration::from_secs(1)
            {
                info!(dropped, "client back under the message rate");
                self.episode = None;
            }
            return Verdict::Admit;
        }
        let tell = match &mut self.episode {
            Some((_, dropped, last_drop)) => {
                *dropped += 1;
                *last_drop = now;
                false
            }
            None => {
                warn!(
                    per_sec = self.per_sec,
                    burst = self.burst,
                    "client over the message rate; dropping its messages (logged once per episode)"
                );
                self.episode = Some((now, 1, now));
                self.last_told
                    .is_none_or(|told| now.saturating_duration_since(told) >= self.tell_every)
            }
        };
        if tell {
            self.last_told = Some(now);
        }
        Verdict::Drop { tell }
    }

    /// Logs an episode still open when the session ends.
    fn finish(&self) {
        if let Some((start, dropped, _)) = self.episode {
            info!(dropped, over = ?start.elapsed(), "session ended while over the message rate");
        }
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The next keep-alive tick, or never when keep-alive is off.
async fn tick(ticker: &mut Option<tokio::time::Interval>) {
    match ticker {
        Some(ticker) => {
            ticker.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// How the reader stopped reading on the server's initiative.
enum Stop {
    Shutdown,
    Disconnect,
}

async fn read_loop<R>(
    mut stream: R,
    links: ReaderLinks,
    counters: &Counters,
    shutdown: &CancellationToken,
    disconnect: &CancellationToken,
    ended: &CancellationToken,
    limits: SessionLimits,
) -> CloseCause
where
    R: Stream<Item = Result<WsMessage, RecvError>> + Unpin,
{
    let ReaderLinks {
        in_tx,
        close_tx,
        ping_tx,
        raw,
        stalled,
    } = links;
    let decode_limits = wire::DecodeLimits {
        snapshot: SnapshotLimits {
            max_nodes: limits.max_snapshot_nodes,
            max_depth: limits.max_snapshot_depth,
        },
        max_snapshot_bytes: limits.max_snapshot_bytes,
    };
    let start = Instant::now();
    let mut rate = RateLimiter::new(&limits, start);
    // F5: a client that never sends client-ready, or stops answering pings (gone, or stuck
    // in the middle of a frame), is closed instead of held open forever.
    let mut ready_deadline = Some(start + limits.client_ready_timeout);
    let mut pong_deadline: Option<Instant> = None;
    let mut ticker = (!limits.ping_interval.is_zero()).then(|| {
        let mut ticker =
            tokio::time::interval_at(start + limits.ping_interval, limits.ping_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker
    });
    let close = |code: u16, reason: String| {
        let _ = close_tx.try_send(Box::new(CloseInfo { code, reason }));
    };
    // After a refusal that closes the socket: the close frame is on its way (the writer sends
    // it); read and discard what the client still sends so it gets to read that frame.
    let drain = |expect: usize| {
        let raw = raw.clone();
        async move {
            if let Some(raw) = raw {
                let discarded = raw
                    .discard_input(expect, DRAIN_QUIET, limits.close_grace)
                    .await;
                debug!(discarded, "input after the close frame discarded");
            }
        }
    };
    // One write moved no byte for the stalled-write window (see `write_loop`).
    let stalled_cause = || CloseCause::PongTimeout {
        after: limits.stalled_write_window().unwrap_or_default(),
    };
    let stop = 'read: loop {
        let next = tokio::select! {
            biased;
            () = shutdown.cancelled() => break Stop::Shutdown,
            () = disconnect.cancelled() => break Stop::Disconnect,
            () = stalled.cancelled() => {
                if let Some(rate) = &rate { rate.finish(); }
                return stalled_cause();
            }
            () = until(ready_deadline) => {
                let after = limits.client_ready_timeout;
                warn!(?after, "no client-ready in time; closing with 1008");
                close(CLOSE_POLICY, messages::client_ready_timeout(after));
                return CloseCause::ClientReadyTimeout { after };
            }
            () = tick(&mut ticker) => {
                // The deadline runs from when the ping was due, so a writer stuck on a client
                // that does not read is caught too.
                pong_deadline.get_or_insert_with(|| Instant::now() + limits.pong_timeout);
                let _ = ping_tx.try_send(());
                continue;
            }
            next = stream.next() => next,
            // After the stream: a pong already buffered wins over an expired deadline.
            () = until(pong_deadline) => {
                let after = limits.pong_timeout;
                warn!(?after, "no pong to a keep-alive ping in time; closing with 1011");
                close(CLOSE_UNEXPECTED, messages::pong_timeout(after));
                return CloseCause::PongTimeout { after };
            }
        };
        let Some(next) = next else {
            if let Some(rate) = &rate {
                rate.finish();
            }
            return CloseCause::ClientGone;
        };
        counters.frames_received.fetch_add(1, Ordering::Relaxed);
        // Issue 9, point 4: the message rate is checked before anything is decoded.
        let mut over_rate = None;
        if matches!(next, Ok(WsMessage::Binary(_) | WsMessage::Text(_)))
            && let Some(limiter) = &mut rate
        {
            match limiter.check(Instant::now()) {
                Verdict::Admit => {}
                Verdict::Drop { tell } => {
                    counters
                        .messages_rate_limited
                        .fetch_add(1, Ordering::Relaxed);
                    if !tell {
                        continue;
                    }
                    over_rate = Some(ReaderItem::Refused(Box::new(wire::Refusal::error(
                        messages::message_rate_exceeded(
                            limits.max_messages_per_sec,
                            limits.message_burst,
                        ),
                    ))));
                }
                Verdict::Flood => {
                    counters
                        .messages_rate_limited
                        .fetch_add(1, Ordering::Relaxed);
                    let after = limits.flood_close_after;
                    warn!(
                        ?after,
                        per_sec = limits.max_messages_per_sec,
                        factor = FLOOD_FACTOR,
                        "message flood; closing with 1008"
                    );
                    limiter.finish();
                    close(
                        CLOSE_POLICY,
                        messages::message_flood(limits.max_messages_per_sec, FLOOD_FACTOR, after),
                    );
                    drain(0).await;
                    return CloseCause::MessageFlood {
                        per_sec: limits.max_messages_per_sec,
                        after,
                    };
                }
            }
        }
        let item = match over_rate {
            Some(item) => item,
            None => match next {
                Ok(WsMessage::Binary(bytes)) => match wire::decode(&bytes, &decode_limits) {
                    Ok(Some(inbound)) => {
                        if matches!(inbound.message, ClientMessage::ClientReady(_)) {
                            ready_deadline = None;
                        }
                        ReaderItem::Message(Box::new(inbound))
                    }
                    Ok(None) => continue,
                    Err(refusal) => ReaderItem::Refused(Box::new(refusal)),
                },
                Ok(WsMessage::Text(_)) => ReaderItem::Refused(Box::new(wire::Refusal::error(
                    messages::text_frame_refused(),
                ))),
                Ok(WsMessage::Pong(_)) => {
                    pong_deadline = None;
                    continue;
                }
                Ok(WsMessage::Ping(_)) => continue,
                Ok(WsMessage::Close(_)) => return CloseCause::ClientGone,
                Err(RecvError::TooLarge { size, limit }) => {
                    warn!(size, limit, "frame over the limit; closing with 1009");
                    close(CLOSE_TOO_BIG, messages::frame_too_large(limit));
                    drain(size).await;
                    return CloseCause::FrameTooLarge { size, limit };
                }
                Err(RecvError::Other(err)) => {
                    debug!(%err, "socket ended");
                    return CloseCause::ClientGone;
                }
            },
        };
        // Waits while the session is behind: this is what bounds memory under a flood. The
        // keep-alive still runs meanwhile; a writer stuck on a client that does not read ends
        // the session (`stalled`).
        let permit = loop {
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break 'read Stop::Shutdown,
                () = disconnect.cancelled() => break 'read Stop::Disconnect,
                () = stalled.cancelled() => return stalled_cause(),
                permit = in_tx.reserve() => break permit,
                () = tick(&mut ticker) => {
                    pong_deadline.get_or_insert_with(|| Instant::now() + limits.pong_timeout);
                    let _ = ping_tx.try_send(());
                }
            }
        };
        let Ok(permit) = permit else {
            return CloseCause::ClientGone;
        };
        permit.send(item);
        Counters::note_depth(
            &counters.inbound_high_water,
            in_tx.max_capacity() - in_tx.capacity(),
        );
    };
    if let Some(rate) = &rate {
        rate.finish();
    }
    // Shutdown or disconnect: the writer sends the close frame; read on (discarding) until the
    // client's answer, so the closing handshake completes, but no longer than the grace period.
    drop(in_tx);
    let _ = tokio::time::timeout(limits.close_grace, async {
        while let Some(Ok(m)) = stream.next().await {
            if matches!(m, WsMessage::Close(_)) {
                break;
            }
        }
    })
    .await;
    match stop {
        Stop::Shutdown => CloseCause::Shutdown,
        Stop::Disconnect if ended.is_cancelled() => CloseCause::CallEnded,
        Stop::Disconnect => CloseCause::ClientDisconnected,
    }
}

async fn session_loop(
    id: SessionId,
    sessions: &Sessions,
    mut handler: Box<dyn SessionHandler>,
    mut in_rx: mpsc::Receiver<ReaderItem>,
    outbox: Outbox,
    shutdown: &CancellationToken,
    disconnect: &CancellationToken,
) {
    let ended = outbox.ended.clone();
    loop {
        let item = tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            () = ended.cancelled() => {
                // The bot ended the call: the writer sends what is queued, then closes.
                disconnect.cancel();
                return;
            }
            item = in_rx.recv() => item,
        };
        let Some(item) = item else { return };
        let input = match item {
            ReaderItem::Refused(refusal) => {
                info!(error = %refusal.text, "input refused");
                sessions.publish(
                    id,
                    SessionEventKind::Refused {
                        error: refusal.text.clone(),
                    },
                );
                if send_refusal(&outbox, *refusal).await.is_err() {
                    return;
                }
                continue;
            }
            ReaderItem::Message(inbound) => match accept(id, sessions, &outbox, *inbound).await {
                Ok(Some(input)) => input,
                Ok(None) => continue,
                Err(SendError { .. }) => return,
            },
        };
        let last = matches!(input, SessionInput::Disconnect);
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            () = ended.cancelled() => {
                disconnect.cancel();
                return;
            }
            () = handler.handle(input, &outbox) => {}
        }
        if last {
            // The handler was told; inputs after disconnect-bot are not served.
            disconnect.cancel();
            return;
        }
    }
}

async fn send_refusal(outbox: &Outbox, refusal: wire::Refusal) -> Result<(), SendError> {
    match refusal.id {
        Some(id) => {
            outbox
                .respond(Some(id), wire::error_response(&refusal.text))
                .await
        }
        None => outbox.send(wire::error(&refusal.text)).await,
    }
}

/// Applies the session's own duties for one message (handshake, registry, events) and turns
/// it into the handler's input.
async fn accept(
    id: SessionId,
    sessions: &Sessions,
    outbox: &Outbox,
    inbound: Inbound,
) -> Result<Option<SessionInput>, SendError> {
    let request_id = inbound.id.clone();
    let type_name = inbound.message.type_name();
    Ok(Some(match inbound.message {
        ClientMessage::ClientReady(ready) => {
            let check = check_client_version(ready.version.as_deref());
            outbox.legacy.store(check.is_legacy(), Ordering::Relaxed);

            if let Some(warning) = check.warning() {
                warn!(client_version = ?ready.version, "{warning}");
                outbox
                    .respond(request_id.clone(), wire::error_response(warning))
                    .await?;
            }
            outbox.respond(request_id, wire::bot_ready(&check)).await?;
            let library = ready
                .about
                .as_ref()
                .and_then(|about| about.get("library"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            info!(client_version = ?ready.version, library = ?library, "bot-ready sent");
            sessions.publish(
                id,
                SessionEventKind::Ready {
                    client_version: ready.version.clone(),
                    client_library: library,
                },
            );
            SessionInput::Ready { version: check }
        }
        ClientMessage::SendText(send) => {
            sessions.publish(id, SessionEventKind::UserText(send.content.clone()));
            SessionInput::UserText { text: send.content }
        }
        ClientMessage::ClientMessage(m) => {
            sessions.publish(id, SessionEventKind::ClientMessage { t: m.t.clone() });
            SessionInput::ClientMessage {
                request_id,
                t: m.t,
                d: m.d,
            }
        }
        ClientMessage::UiSnapshot(snapshot) => {
            let snapshot: Arc<A11ySnapshot> = Arc::from(snapshot);
            info!(
                nodes = snapshot.root.count(),
                captured_at = snapshot.captured_at,
                "ui-snapshot"
            );
            sessions.store_snapshot(id, snapshot.clone());
            sessions.publish(id, SessionEventKind::Snapshot(snapshot.clone()));
            SessionInput::Snapshot(snapshot)
        }
        ClientMessage::UiEvent(event) => {
            debug!(event = %event.event, "ui-event");
            sessions.publish(id, SessionEventKind::UiEvent(event.clone()));
            SessionInput::UiEvent(event)
        }
        ClientMessage::UiCancelJobGroup(cancel) => {
            debug!(job_id = %cancel.job_id, "ui-cancel-job-group");
            sessions.publish(id, SessionEventKind::CancelJobGroup(cancel.clone()));
            SessionInput::CancelJobGroup { request_id, cancel }
        }
        ClientMessage::DisconnectBot => {
            info!("disconnect-bot: the client ends the session");
            SessionInput::Disconnect
        }
        ClientMessage::Dtmf(dtmf) => {
            let keys = dtmf.keys();
            // Keys can be a PIN or card digits: their count is logged, never the keys.
            debug!(keys = keys.len(), "dtmf");
            let text = messages::dtmf_user_text(&keys);
            sessions.publish(id, SessionEventKind::UserText(text.clone()));
            SessionInput::UserText { text }
        }
        ClientMessage::LlmFunctionCallResult(_) => {
            debug!("llm-function-call-result refused: no client-side functions");
            let text = messages::function_call_result_unsupported();
            outbox
                .respond(request_id, wire::error_response(&text))
                .await?;
            return Ok(None);
        }
        ClientMessage::RawAudio(_) | ClientMessage::RawAudioBatch(_) => {
            debug!(type_name, "audio refused: this server takes no audio");
            let text = messages::audio_unsupported(type_name);
            outbox
                .respond(request_id, wire::error_response(&text))
                .await?;
            return Ok(None);
        }
    }))
}

/// The writer's channels: answers from the session, a close frame and ping requests from the
/// reader.
struct WriterLinks {
    out_rx: mpsc::Receiver<Outgoing>,
    close_rx: mpsc::Receiver<Box<CloseInfo>>,
    ping_rx: mpsc::Receiver<()>,
    /// Cancelled when the bot ended the call ([`Outbox::end_session`]).
    ended: CancellationToken,
    /// Cancelled here when one write made no progress for
    /// [`SessionLimits::stalled_write_window`] (the client does not read); the reader then ends
    /// the session.
    stalled: CancellationToken,
    /// The connection's byte count ([`RawConn::bytes_written`]): a write that is slow but
    /// moves bytes is waited for. Without it (sessions over channels), a write is allowed the
    /// stalled-write window in all.
    progress: Option<RawConn>,
}

/// Most distinct error texts remembered per session by [`ErrorDamper`].
const DAMPER_TEXTS: usize = 64;

/// F2: sends an `error` / `error-response` text to one session at most once per window (the
/// first always goes out), so a client that answers each error with new input that is refused
/// again cannot make a loop of refusals. Counts and logs what it holds back.
#[derive(Debug)]
struct ErrorDamper {
    window: Duration,
    /// Per text: when it was last sent, and how many identical ones were held back since.
    seen: HashMap<String, (Instant, u64)>,
}

impl ErrorDamper {
    fn new(window: Duration) -> Self {
        Self {
            window,
            seen: HashMap::new(),
        }
    }

    /// Whether `message` may be sent at `now`.
    fn admit(&mut self, message: &ServerMessage, now: Instant) -> bool {
        let text = match message {
            ServerMessage::Error { error, .. } | ServerMessage::ErrorResponse { error } => error,
            _ => return true,
        };
        if self.window.is_zero() {
            return true;
        }
        if let Some((sent, held)) = self.seen.get_mut(text) {
            if now.duration_since(*sent) < self.window {
                *held += 1;
                debug!(error = %text, "identical error within the repeat window; not sent");
                return false;
            }
            if *held > 0 {
                info!(error = %text, suppressed = *held, window = ?self.window,
                      "identical errors were not sent within the repeat window");
            }
            *sent = now;
            *held = 0;
            return true;
        }
        if self.seen.len() >= DAMPER_TEXTS {
            let window = self.window;
            self.seen.retain(|text, (sent, held)| {
                let keep = now.duration_since(*sent) < window;
                if !keep && *held > 0 {
                    info!(error = %text, suppressed = *held, "identical errors were not sent within the repeat window");
                }
                keep
            });
            if self.seen.len() >= DAMPER_TEXTS
                && let Some(oldest) = self
                    .seen
                    .iter()
                    .min_by_key(|(_, (sent, _))| *sent)
                    .map(|(text, _)| text.clone())
            {
                self.seen.remove(&oldest);
            }
        }
        self.seen.insert(text.clone(), (now, 0));
        true
    }

    /// Logs the counts still held at the end of the session.
    fn finish(&self) {
        for (text, (_, held)) in &self.seen {
            if *held > 0 {
                info!(error = %text, suppressed = *held, "identical errors were not sent within the repeat window");
            }
        }
    }
}

async fn write_loop<W>(
    mut sink: W,
    links: WriterLinks,
    counters: &Counters,
    shutdown: &CancellationToken,
    session_done: &CancellationToken,
    disconnect: &CancellationToken,
    limits: SessionLimits,
) where
    W: Sink<WsMessage> + Unpin,
    W::Error: fmt::Display,
{
    let WriterLinks {
        mut out_rx,
        mut close_rx,
        mut ping_rx,
        ended,
        stalled,
        progress,
    } = links;
    // A client that does not read: one write during which not a single byte went out for as
    // long as the keep-alive gives a peer (a ping interval, then the pong timeout; with pings
    // off, the default interval stands in) ends the session (issue 9, point 4). A client that
    // reads slowly moves bytes and is waited for.
    let write_timeout = limits.stalled_write_window();
    let written = || progress.as_ref().map(RawConn::bytes_written);
    let mut damper = ErrorDamper::new(limits.error_repeat_window);
    let close = loop {
        let frame = tokio::select! {
            biased;
            Some(close) = close_rx.recv() => break Some(*close),
            () = shutdown.cancelled() => break Some(going_away()),
            Some(()) = ping_rx.recv() => WsMessage::Ping(Bytes::new()),
            // Answers already queued still go out after the session ends.
            out = out_rx.recv() => match out {
                Some(out) => {
                    if !damper.admit(&out.message, Instant::now()) {
                        counters.errors_suppressed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    WsMessage::Binary(wire::encode(out).into())
                }
                None => break None,
            },
            () = session_done.cancelled() => break None,
        };
        let is_data = matches!(frame, WsMessage::Binary(_));
        let send = sink.send(frame);
        tokio::pin!(send);
        let mut watch = StallWatch::new(write_timeout, written(), Instant::now());
        let sent = loop {
            tokio::select! {
                biased;
                Some(close) = close_rx.recv() => break Err(Some(*close)),
                () = shutdown.cancelled() => break Err(Some(going_away())),
                sent = &mut send => break Ok(sent),
                () = until(watch.next_look()) => {
                    // Bytes that went out since the last look: the client reads, slowly.
                    let Some(after) = watch.look(written(), Instant::now()) else {
                        continue;
                    };
                    warn!(?after, "the client does not read: no byte went out for too long; closing with 1011");
                    stalled.cancel();
                    break Err(Some(CloseInfo { code: CLOSE_UNEXPECTED, reason: messages::client_not_reading(after) }));
                }
            }
        };
        let sent = match sent {
            Ok(sent) => sent,
            Err(close) => break close,
        };
        match sent {
            Ok(()) => {
                if is_data {
                    counters.messages_sent.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(err) => {
                debug!(%err, "socket write failed");
                damper.finish();
                return;
            }
        }
    };
    damper.finish();
    // After disconnect-bot (or the bot ending the call), the queue is drained: close with 1000.
    let close = close.or_else(|| {
        disconnect.is_cancelled().then(|| CloseInfo {
            code: CLOSE_NORMAL,
            reason: if ended.is_cancelled() {
                messages::call_ended()
            } else {
                messages::client_disconnected()
            },
        })
    });
    // Our close frame (limit, deadline, shutdown, disconnect), then a flush that also sends the
    // WebSocket library's answer to a close frame from the client.
    let _ = tokio::time::timeout(limits.close_grace, async {
        if let Some(close) = close {
            let _ = sink.send(WsMessage::Close(Some(close))).await;
        }
        let _ = sink.close().await;
    })
    .await;
}

/// How often, per stalled-write window, a waiting write looks at the connection's byte count.
const STALL_LOOKS_PER_WINDOW: u32 = 8;

/// Tells a write that moves no byte for the stalled-write window
/// ([`SessionLimits::stalled_write_window`]) from one that moves bytes slowly: it looks at the
/// connection's byte count every eighth of the window (at least every millisecond), so a stalled
/// write is caught between one window and one window and an eighth after its last byte went
/// out, not up to two windows later. No window: it never looks.
#[derive(Debug)]
struct StallWatch {
    window: Option<Duration>,
    /// The byte count at the last look (`None`: no byte count, a session over channels).
    mark: Option<u64>,
    /// When bytes were last seen moving (or the write began).
    last_progress: Instant,
    /// When to look next; `None`: never.
    next: Option<Instant>,
}

impl StallWatch {
    fn new(window: Option<Duration>, written: Option<u64>, now: Instant) -> Self {
        let mut watch = Self {
            window,
            mark: written,
            last_progress: now,
            next: None,
        };
        watch.next = watch.schedule(now);
        watch
    }

    fn schedule(&self, now: Instant) -> Option<Instant> {
        let window = self.window?;
        let end = self.last_progress.checked_add(window)?;
        let step = (window / STALL_LOOKS_PER_WINDOW).max(Duration::from_millis(1));
        Some(now.checked_add(step).map_or(end, |look| look.min(end)))
    }

    /// When the next look is due.
    fn next_look(&self) -> Option<Instant> {
        self.next
    }

    /// A look at `written` bytes at `now`: `Some(window)` when no byte moved for the whole
    /// window (the write is stalled), else `None` and the next look is scheduled.
    fn look(&mut self, written: Option<u64>, now: Instant) -> Option<Duration> {
        let window = self.window?;
        if written != self.mark {
            self.mark = written;
            self.last_progress = now;
        }
        if now.saturating_duration_since(self.last_progress) >= window {
            return Some(window);
        }
        self.next = self.schedule(now);
        None
    }
}

fn going_away() -> CloseInfo {
    CloseInfo {
        code: CLOSE_GOING_AWAY,
        reason: messages::shutting_down(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::mpsc as fmpsc;
    use std::sync::atomic::AtomicUsize;

    fn ping_frame(n: usize) -> WsMessage {
        let json = format!(
            r#"{{"label":"rtvi-ai","type":"client-message","id":"m{n}","data":{{"t":"ping","d":{n}}}}}"#
        );
        WsMessage::Binary(hark_rtvi::frame::encode_message_json(&json).into())
    }

    fn setup(
        sessions: &Sessions,
        limits: SessionLimits,
        shutdown: CancellationToken,
    ) -> (SessionId, ConnectionSetup) {
        let id = sessions.next_id();
        let setup = ConnectionSetup {
            id,
            sessions: sessions.clone(),
            handler: Box::new(NoAgentHandler),
            limits,
            shutdown,
            raw: None,
        };
        (id, setup)
    }

    /// Case P3 flood, driven with channels: while the socket does not accept writes, the loop
    /// pulls at most what its bounded queues hold (plus one item in each stage's hands), then
    /// stops reading; once the socket drains, every answer goes out, in order.
    #[tokio::test]
    async fn a_stalled_socket_stops_the_reader_at_the_queue_bounds() {
        const N: usize = 10_000;
        let limits = SessionLimits {
            inbound_queue: 4,
            outbound_queue: 8,
            // No client-ready here: the deadline must not end the test.
            client_ready_timeout: Duration::from_secs(3600),
            // 10,000 messages at once: the rate limit is another test's subject.
            max_messages_per_sec: 0,
            ..SessionLimits::default()
        };
        let pulled = Arc::new(AtomicUsize::new(0));
        let counter = pulled.clone();
        let stream = futures::stream::iter((0..N).map(|n| Ok(ping_frame(n)))).inspect(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        // A socket that takes one message and then stalls until its receiver reads.
        let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(0);
        let sessions = Sessions::new();
        let (id, setup) = setup(&sessions, limits, CancellationToken::new());
        let conn = tokio::spawn(run_connection(sink, stream, setup));

        let mut full = false;
        for _ in 0..100_000 {
            tokio::task::yield_now().await;
            if let Some(s) = sessions.stats(id)
                && s.inbound_len == 4
                && s.outbound_len == 8
            {
                full = true;
                break;
            }
        }
        assert!(full, "queues never filled: {:?}", sessions.stats(id));
        // Let every stage run until blocked, then count what was read.
        for _ in 0..1_000 {
            tokio::task::yield_now().await;
        }
        let read = pulled.load(Ordering::SeqCst);
        assert!(read >= 4 + 8, "read {read}");
        assert!(
            read <= 4 + 8 + 4,
            "read {read} with queues of 4 and 8: the reader did not wait"
        );

        for n in 0..N {
            let Some(WsMessage::Binary(bytes)) = socket_rx.next().await else {
                panic!("expected answer {n}");
            };
            let json = hark_rtvi::frame::decode_frame(&bytes).unwrap();
            let v: Value = serde_json::from_str(json.message_json().unwrap()).unwrap();
            assert_eq!(v["id"], format!("m{n}"));
            assert_eq!(v["data"], serde_json::json!({"t": "ping", "d": n}));
        }
        assert_eq!(conn.await.unwrap(), CloseCause::ClientGone);
        assert!(sessions.stats(id).is_none(), "unregistered at the end");
    }

    /// Issue 9, point 4: the token bucket admits the burst, then the rate; the first drop of an
    /// episode is told (once), later ones are not; a new episode after a quiet second is told
    /// again only after the repeat window.
    #[test]
    fn the_rate_limiter_admits_the_burst_then_the_rate_and_tells_once() {
        let limits = SessionLimits {
            max_messages_per_sec: 10,
            message_burst: 20,
            flood_close_after: Duration::ZERO,
            error_repeat_window: Duration::from_secs(5),
            ..SessionLimits::default()
        };
        let t0 = Instant::now();
        let mut r = RateLimiter::new(&limits, t0).expect("a rate is set");
        assert!((0..20).all(|_| r.check(t0) == Verdict::Admit), "the burst");
        assert_eq!(r.check(t0), Verdict::Drop { tell: true });
        assert_eq!(r.check(t0), Verdict::Drop { tell: false });
        // Half a second refills 5 tokens.
        let t1 = t0 + Duration::from_millis(500);
        assert!((0..5).all(|_| r.check(t1) == Verdict::Admit));
        assert_eq!(r.check(t1), Verdict::Drop { tell: false }, "same episode");
        // Quiet for 2 s: the episode ends at the next admitted message; a new one within the
        // repeat window is not told again, after it it is.
        let t2 = t1 + Duration::from_secs(2);
        assert!((0..20).all(|_| r.check(t2) == Verdict::Admit));
        assert_eq!(r.check(t2), Verdict::Drop { tell: false });
        let t3 = t2 + Duration::from_secs(10);
        assert!((0..20).all(|_| r.check(t3) == Verdict::Admit));
        assert_eq!(r.check(t3), Verdict::Drop { tell: true });
        assert!(
            RateLimiter::new(
                &SessionLimits {
                    max_messages_per_sec: 0,
                    ..limits
                },
                t0
            )
            .is_none(),
            "0: no limit"
        );
    }

    /// Over FLOOD_FACTOR × the rate in every second for `flood_close_after`: `Flood`; a quiet
    /// second in between starts the count again.
    #[test]
    fn a_flood_for_the_whole_window_closes() {
        let limits = SessionLimits {
            max_messages_per_sec: 10,
            message_burst: 10,
            flood_close_after: Duration::from_secs(2),
            ..SessionLimits::default()
        };
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut r = RateLimiter::new(&limits, t0).unwrap();
        // Second 1: 101 messages (over 10 × 10): flooding, not yet closed.
        for n in 0..101u64 {
            assert_ne!(r.check(t0 + ms(n * 9)), Verdict::Flood);
        }
        // A quiet second, then a flood second: only one flooding second in a row.
        let t2 = t0 + Duration::from_secs(2);
        for n in 0..101u64 {
            assert_ne!(r.check(t2 + ms(n * 9)), Verdict::Flood);
        }
        // The next second flooding too: closed on its 101st message.
        let t3 = t0 + Duration::from_secs(3);
        for n in 0..100u64 {
            assert_ne!(r.check(t3 + ms(n * 9)), Verdict::Flood);
        }
        assert_eq!(r.check(t3 + ms(950)), Verdict::Flood);
    }

    /// Shutdown: the writer sends close 1001 with the shutdown reason and the loop ends.
    #[tokio::test]
    async fn shutdown_sends_close_1001() {
        let limits = SessionLimits {
            close_grace: Duration::from_millis(50),
            ..SessionLimits::default()
        };
        let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(8);
        let stream = futures::stream::pending::<Result<WsMessage, RecvError>>();
        let sessions = Sessions::new();
        let token = CancellationToken::new();
        let (_, setup) = setup(&sessions, limits, token.clone());
        let conn = tokio::spawn(run_connection(sink, stream, setup));
        token.cancel();
        assert_eq!(
            socket_rx.next().await,
            Some(WsMessage::Close(Some(CloseInfo {
                code: 1001,
                reason: "Server shutting down".into()
            })))
        );
        assert_eq!(conn.await.unwrap(), CloseCause::Shutdown);
    }

    /// Issue 9 follow-up: the stalled-write window is `ping_interval + pong_timeout`; with
    /// pings off the default interval (30 s) stands in, so turning pings off neither removes
    /// the bound on a client that never reads nor makes it shorter than the default's; a zero
    /// pong timeout turns it off; huge values saturate.
    #[test]
    fn the_stalled_write_window_keeps_the_default_interval_with_pings_off() {
        let s = Duration::from_secs;
        let window = |ping, pong| {
            SessionLimits {
                ping_interval: ping,
                pong_timeout: pong,
                ..SessionLimits::default()
            }
            .stalled_write_window()
        };
        assert_eq!(DEFAULT_PING_INTERVAL, s(30), "the help texts say 30s");
        assert_eq!(window(s(30), s(20)), Some(s(50)));
        assert_eq!(window(s(2), s(3)), Some(s(5)));
        assert_eq!(window(Duration::ZERO, s(20)), Some(s(50)));
        assert_eq!(window(Duration::ZERO, s(3)), Some(s(33)));
        assert!(
            window(Duration::ZERO, s(3)) > Some(s(3)),
            "not the pong timeout alone"
        );
        assert_eq!(window(s(30), Duration::ZERO), None);
        assert_eq!(window(Duration::ZERO, Duration::ZERO), None);
        assert_eq!(window(Duration::MAX, s(1)), Some(Duration::MAX));
    }

    /// The stalled-write watch looks every eighth of the window; bytes seen moving restart the
    /// window from that look; with no byte moving it reports the stall at one window from the
    /// last progress, not later; no window: it never looks.
    #[test]
    fn the_stall_watch_closes_one_window_after_the_last_byte() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let window = Some(ms(800));
        let mut w = StallWatch::new(window, Some(0), t0);
        assert_eq!(w.next_look(), Some(t0 + ms(100)));
        assert_eq!(w.look(Some(0), t0 + ms(100)), None);
        assert_eq!(w.next_look(), Some(t0 + ms(200)));
        // Bytes moved by the look at 300 ms: the window now runs from 300 ms.
        assert_eq!(w.look(Some(10), t0 + ms(300)), None);
        for at in [400, 500, 600, 700, 800, 900, 1000] {
            assert_eq!(w.next_look(), Some(t0 + ms(at)));
            assert_eq!(w.look(Some(10), t0 + ms(at)), None, "{at} ms");
        }
        assert_eq!(w.next_look(), Some(t0 + ms(1100)));
        assert_eq!(w.look(Some(10), t0 + ms(1100)), Some(ms(800)));
        // A late look (a busy runtime) is judged by the time, not the count of looks.
        let mut w = StallWatch::new(window, Some(0), t0);
        assert_eq!(w.look(Some(0), t0 + ms(5000)), Some(ms(800)));
        // Without a byte count (channels) the write gets one window in all.
        let mut w = StallWatch::new(window, None, t0);
        assert_eq!(w.look(None, t0 + ms(799)), None);
        assert_eq!(w.next_look(), Some(t0 + ms(800)));
        assert_eq!(w.look(None, t0 + ms(800)), Some(ms(800)));
        // No window (a zero pong timeout): never looks, never closes.
        let mut w = StallWatch::new(None, Some(0), t0);
        assert_eq!(w.next_look(), None);
        assert_eq!(w.look(Some(0), t0 + ms(100_000)), None);
        // A window too large to add: no deadline.
        assert_eq!(
            StallWatch::new(Some(Duration::MAX), Some(0), t0).next_look(),
            None
        );
    }

    /// Issue 9, point 4: a write that waits while bytes still go out (a client that reads
    /// slowly) is waited for, however long; once not a byte goes out for `ping_interval +
    /// pong_timeout`, the writer gives up (`stalled`) and closes with 1011.
    #[tokio::test]
    async fn a_slow_write_that_moves_bytes_is_waited_for_and_a_stuck_one_is_not() {
        // The window: 2 s + 3 s = 5 s of no progress (the writer sends no pings itself: the
        // reader asks for them, and there is none here). Bytes move every 50 ms while the write
        // waits for 11 s (past two windows), so the close cannot come from a late timer.
        let window = Duration::from_secs(5);
        let limits = SessionLimits {
            ping_interval: Duration::from_secs(2),
            pong_timeout: Duration::from_secs(3),
            // Only a failure guard: the close frame waits until this socket takes it.
            close_grace: Duration::from_secs(120),
            ..SessionLimits::default()
        };
        // The byte count comes from a real loopback connection, written here.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (peer, accepted) =
            tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        let _peer = peer.unwrap();
        let (mut tcp, raw) = crate::socket::share(accepted.unwrap().0);
        // A socket whose every write waits until its receiver reads.
        let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(0);
        let (out_tx, out_rx) = mpsc::channel::<Outgoing>(8);
        let (_close_tx, close_rx) = mpsc::channel::<Box<CloseInfo>>(1);
        let (_ping_tx, ping_rx) = mpsc::channel::<()>(1);
        let stalled = CancellationToken::new();
        let links = WriterLinks {
            out_rx,
            close_rx,
            ping_rx,
            ended: CancellationToken::new(),
            stalled: stalled.clone(),
            progress: Some(raw),
        };
        let counters = Counters::default();
        let (shutdown, done, disconnect) = (
            CancellationToken::new(),
            CancellationToken::new(),
            CancellationToken::new(),
        );
        let writer = write_loop(
            sink,
            links,
            &counters,
            &shutdown,
            &done,
            &disconnect,
            limits,
        );
        let answer = || Outgoing {
            id: None,
            message: Box::new(ServerMessage::BotLlmStarted),
        };
        let test = async {
            // The first write waits for 11 s while bytes move.
            out_tx.send(answer()).await.unwrap();
            out_tx.send(answer()).await.unwrap();
            let slow = Instant::now() + Duration::from_secs(11);
            while Instant::now() < slow {
                tokio::io::AsyncWriteExt::write_all(&mut tcp, b"x")
                    .await
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(50)).await;
                assert!(!stalled.is_cancelled(), "closed while bytes still went out");
            }
            // The client reads: both answers arrive and the session goes on.
            for _ in 0..2 {
                assert!(matches!(socket_rx.next().await, Some(WsMessage::Binary(_))));
            }
            assert!(!stalled.is_cancelled());
            // Now nothing moves: the third write waits, and the writer gives up.
            out_tx.send(answer()).await.unwrap();
            tokio::time::timeout(Duration::from_secs(120), stalled.cancelled())
                .await
                .expect("a write with no progress ends the session");
            // The third answer, then the close frame (1011) once the socket takes it.
            assert!(matches!(socket_rx.next().await, Some(WsMessage::Binary(_))));
            assert_eq!(
                socket_rx.next().await,
                Some(WsMessage::Close(Some(CloseInfo {
                    code: CLOSE_UNEXPECTED,
                    reason: messages::client_not_reading(window),
                })))
            );
        };
        tokio::join!(writer, test);
        assert_eq!(counters.messages_sent.load(Ordering::Relaxed), 2);
    }

    /// The built-in handler: `ping` is answered, other client messages get an error-response.
    #[tokio::test]
    async fn no_agent_handler_answers_ping_and_refuses_the_rest() {
        let (outbox, mut rx) = Outbox::channel(SessionId(1), 8);
        let mut h = NoAgentHandler;
        h.handle(
            SessionInput::ClientMessage {
                request_id: Some("r1".into()),
                t: "ping".into(),
                d: Some(serde_json::json!(7).into()),
            },
            &outbox,
        )
        .await;
        let out = rx.recv().await.unwrap();
        assert_eq!(out.id.as_deref(), Some("r1"));
        assert_eq!(
            out.message.to_json(None),
            r#"{"label":"rtvi-ai","type":"server-response","data":{"t":"ping","d":7}}"#
        );
        h.handle(
            SessionInput::ClientMessage {
                request_id: Some("r2".into()),
                t: "other".into(),
                d: None,
            },
            &outbox,
        )
        .await;
        let out = rx.recv().await.unwrap();
        assert_eq!(out.id.as_deref(), Some("r2"));
        assert_eq!(
            *out.message,
            ServerMessage::ErrorResponse {
                error: messages::unhandled_client_message("other")
            }
        );
    }

    /// F2: one session gets an identical error text at most once per window; the first always
    /// goes out, other texts and other messages are not held back, and the text goes out again
    /// once the window has passed. Zero disables damping.
    #[test]
    fn identical_errors_are_sent_once_per_window() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let refused = wire::error_response("Unsupported type foo");
        let other = wire::error("Invalid frame: x");
        let mut d = ErrorDamper::new(Duration::from_secs(5));
        assert!(d.admit(&refused, t0), "the first always goes out");
        assert!(!d.admit(&refused, t0 + s));
        assert!(!d.admit(&refused, t0 + 4 * s));
        assert!(d.admit(&other, t0 + 4 * s), "another text is not held back");
        assert!(d.admit(&ServerMessage::BotLlmStarted, t0 + 4 * s));
        assert_eq!(d.seen["Unsupported type foo"].1, 2, "held back, counted");
        assert!(d.admit(&refused, t0 + 5 * s), "again after the window");
        assert!(!d.admit(&refused, t0 + 6 * s));
        // `error` and `error-response` with the same text are the same refusal to the page.
        assert!(!d.admit(&wire::error("Unsupported type foo"), t0 + 6 * s));

        let mut off = ErrorDamper::new(Duration::ZERO);
        assert!((0..3).all(|_| off.admit(&refused, t0)));

        // Many distinct texts: memory stays bounded.
        let mut d = ErrorDamper::new(Duration::from_secs(5));
        for n in 0..1000 {
            assert!(d.admit(&wire::error(&format!("Unsupported type t{n}")), t0));
        }
        assert!(d.seen.len() <= DAMPER_TEXTS);
    }
}
