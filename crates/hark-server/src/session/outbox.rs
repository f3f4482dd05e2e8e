//! A session's outbound queue: [`Outbox`], the sending side a handler and the registry answer
//! through, its [`Outgoing`] items, and the [`HandlerLimits`] a handler applies itself.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hark_rtvi::message::ServerMessage;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sessions::events::Counters;
use crate::sessions::id::SessionId;

/// A server message with the `id` it answers (`None` for unsolicited messages).
///
/// The message is boxed (per-session memory): a tokio mpsc allocates its first block
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

/// One item of a session's outbound queue: an RTVI message, or one frame of the bot's audio
/// (a `pipecat.Frame` already encoded, `hark_rtvi::audio::encode_audio`). One queue keeps
/// the speaking events and the audio frames in the order they were sent.
#[derive(Debug)]
pub enum Outbound {
    /// An RTVI message.
    Rtvi(Outgoing),
    /// The bytes of one binary WebSocket message of bot audio.
    Audio(Box<[u8]>),
}

impl Outbound {
    /// The RTVI message, `None` for audio.
    pub fn rtvi(self) -> Option<Outgoing> {
        match self {
            Outbound::Rtvi(out) => Some(out),
            Outbound::Audio(_) => None,
        }
    }
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
    pub(super) session: SessionId,
    pub(super) tx: mpsc::Sender<Outbound>,
    pub(super) counters: Arc<Counters>,
    pub(super) legacy: Arc<std::sync::atomic::AtomicBool>,
    /// Cancelled by [`Outbox::end_session`]: the bot ends the session.
    pub(super) ended: CancellationToken,
    /// The session's limits a handler applies (pending UI jobs, UI events in flight).
    pub(super) policy: HandlerLimits,
}

/// The per-session limits a [`SessionHandler`](crate::SessionHandler) applies itself, read with
/// [`Outbox::handler_limits`]; from [`ServerConfig::max_pending_jobs`](crate::ServerConfig::max_pending_jobs) and
/// [`ServerConfig::max_ui_events_in_flight`](crate::ServerConfig::max_ui_events_in_flight).
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
    /// [`SessionHandler`](crate::SessionHandler) without a socket (default [`HandlerLimits`]).
    pub fn channel(session: SessionId, capacity: usize) -> (Outbox, mpsc::Receiver<Outbound>) {
        Self::channel_with(session, capacity, HandlerLimits::default())
    }

    /// [`Outbox::channel`] with the given handler limits.
    pub fn channel_with(
        session: SessionId,
        capacity: usize,
        policy: HandlerLimits,
    ) -> (Outbox, mpsc::Receiver<Outbound>) {
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
    /// [`ServerConfig::max_messages_per_sec`](crate::ServerConfig::max_messages_per_sec) (each one counted; logged once per episode).
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
            .try_send(Outbound::Rtvi(Outgoing { id: None, message }))
            .map_err(|e| {
                let back = |out: Outbound| match out {
                    Outbound::Rtvi(out) => out.message,
                    // Only RTVI messages are sent here.
                    Outbound::Audio(_) => Box::new(ServerMessage::BotTtsStopped),
                };
                match e {
                    mpsc::error::TrySendError::Full(out) => {
                        mpsc::error::TrySendError::Full(back(out))
                    }
                    mpsc::error::TrySendError::Closed(out) => {
                        mpsc::error::TrySendError::Closed(back(out))
                    }
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

    /// Queues one frame of bot audio (the encoded binary message), in order with the
    /// messages, waiting while the queue is full.
    ///
    /// # Errors
    /// [`SendError`] when the session has closed.
    pub async fn send_audio(&self, frame: Vec<u8>) -> Result<(), SendError> {
        self.push_item(Outbound::Audio(frame.into_boxed_slice()))
            .await
    }

    async fn push(&self, out: Outgoing) -> Result<(), SendError> {
        self.push_item(Outbound::Rtvi(out)).await
    }

    async fn push_item(&self, out: Outbound) -> Result<(), SendError> {
        self.tx.send(out).await.map_err(|_| SendError {
            session: self.session,
        })?;
        Counters::note_depth(&self.counters.outbound_high_water, self.len());
        Ok(())
    }

    /// Ends the session from the bot's side (a tool call ended the conversation): the
    /// session takes no more input, sends what is already queued, closes the socket with 1000
    /// ([`messages::call_ended`](crate::messages::call_ended)) and ends with [`CloseCause::CallEnded`](crate::CloseCause::CallEnded). Sends after this
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
