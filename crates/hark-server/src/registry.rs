//! The registry of open sessions: events, latest snapshots, sending to a session.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hark_rtvi::message::ServerMessage;
use hark_rtvi::snapshot::A11ySnapshot;
use hark_rtvi::ui::{UiCancelJobGroup, UiEvent};
use tokio::sync::{broadcast, mpsc};

use crate::session::{Outbox, SendError};

/// How many events a [`Sessions::subscribe`] receiver may fall behind before it skips
/// (it then gets `RecvError::Lagged(n)` from tokio's broadcast channel).
pub const EVENT_BUFFER: usize = 1024;

/// Identifies one WebSocket session: 64 random bits per session ([`Sessions`] draws them), so an
/// id does not come back after a restart or on another machine (a webhook keyed on
/// `call.session_id` sees each call once). Written `s` + the number in lowercase Crockford
/// base32: at most 14 characters (`s3k9x0w2m4q7za`); `SessionId(7)` is `s7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u64);

/// Crockford's base32 alphabet, lowercase (no `i`, `l`, `o`, `u`: nothing to misread).
const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut digits = [0u8; 13];
        let mut n = self.0;
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = CROCKFORD[(n & 31) as usize];
            n >>= 5;
            if n == 0 {
                break;
            }
        }
        // The digits are ASCII from the alphabet above.
        let text = std::str::from_utf8(&digits[start..]).unwrap_or("?");
        write!(f, "s{text}")
    }
}

/// 64 random bits, without a dependency: std's `RandomState` keys SipHash with random bits the
/// operating system gives each process, and each `RandomState::new` moves the key on; hashing
/// a process-wide counter, the time and the process id under it gives a fresh value per call.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(DRAWS.fetch_add(1, Ordering::Relaxed));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.finish()
}

/// Something that happened in a session, as seen by [`Sessions::subscribe`].
#[derive(Debug, Clone)]
pub struct SessionEvent {
    /// The session it happened in.
    pub session: SessionId,
    /// What happened.
    pub kind: SessionEventKind,
}

/// What happened in a session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SessionEventKind {
    /// The WebSocket was accepted.
    Opened,
    /// The client sent `client-ready` and the server answered `bot-ready` (rtvi-ui.md §1.3).
    Ready {
        /// The client's `data.version` as sent (`None` when absent).
        client_version: Option<String>,
        /// The client's `data.about.library` (e.g. `@pipecat-ai/client-js`).
        client_library: Option<String>,
    },
    /// A `send-text` reached the session as a user turn.
    UserText(String),
    /// A `ui-snapshot` was received; it is now [`Sessions::latest_snapshot`].
    Snapshot(Arc<A11ySnapshot>),
    /// A `ui-event` was received.
    UiEvent(UiEvent),
    /// A `ui-cancel-job-group` was received.
    CancelJobGroup(UiCancelJobGroup),
    /// A `client-message` was received (`t` is its message type).
    ClientMessage {
        /// The client message's `t`.
        t: String,
    },
    /// An input was refused with an `error` or `error-response`; `error` is its text. (The
    /// client does not receive a text identical to one sent less than
    /// [`ServerConfig::error_repeat_window`](crate::ServerConfig::error_repeat_window) ago.)
    Refused {
        /// The refusal's text.
        error: String,
    },
    /// The session ended.
    Closed(CloseCause),
}

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseCause {
    /// The client closed the socket or the connection dropped.
    ClientGone,
    /// The client sent a frame over the limit; the server closed with 1009.
    FrameTooLarge {
        /// Announced size, in bytes.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The server shut down; the session was sent a close frame with 1001.
    Shutdown,
    /// The client sent `disconnect-bot`; the session told its handler, sent what was queued
    /// and closed with 1000 "Client asked to disconnect".
    ClientDisconnected,
    /// The bot ended the call ([`crate::Outbox::end_session`], after a tool call that ends the
    /// conversation): the session sent what was queued and closed with 1000 "The call ended".
    CallEnded,
    /// No `client-ready` arrived within `after` of the upgrade; closed with 1008.
    ClientReadyTimeout {
        /// The configured deadline.
        after: std::time::Duration,
    },
    /// No pong answered a keep-alive ping within `after` (a peer gone, or stuck mid-frame, or
    /// not reading); closed with 1011.
    PongTimeout {
        /// The configured deadline.
        after: std::time::Duration,
    },
    /// The client sent over 10 × the message rate every second for `after`
    /// ([`ServerConfig::flood_close_after`](crate::ServerConfig::flood_close_after));
    /// closed with 1008 and [`messages::message_flood`](crate::messages::message_flood)
    /// (issue 9, point 4).
    MessageFlood {
        /// The configured message rate, in messages a second
        /// ([`ServerConfig::max_messages_per_sec`](crate::ServerConfig::max_messages_per_sec)).
        per_sec: u32,
        /// The configured flood duration that closes the session.
        after: std::time::Duration,
    },
}

/// Queue depths and counters of one session, read with [`Sessions::stats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionStats {
    /// WebSocket messages read from the client so far.
    pub frames_received: u64,
    /// Messages written to the client so far.
    pub messages_sent: u64,
    /// Decoded client messages waiting for the session now.
    pub inbound_len: usize,
    /// Bound of the inbound queue.
    pub inbound_capacity: usize,
    /// Largest inbound depth seen.
    pub inbound_high_water: usize,
    /// Server messages waiting for the socket now.
    pub outbound_len: usize,
    /// Bound of the outbound queue.
    pub outbound_capacity: usize,
    /// Largest outbound depth seen.
    pub outbound_high_water: usize,
    /// `error` / `error-response` messages not sent because an identical text went to this
    /// session less than [`ServerConfig::error_repeat_window`](crate::ServerConfig::error_repeat_window) ago.
    pub errors_suppressed: u64,
    /// Client messages dropped so far, before decoding, for going over
    /// [`ServerConfig::max_messages_per_sec`](crate::ServerConfig::max_messages_per_sec) /
    /// [`ServerConfig::message_burst`](crate::ServerConfig::message_burst) (each one counted,
    /// including the one that triggers a flood close; issue 9, point 4).
    pub messages_rate_limited: u64,
}

/// Live counters shared by a session's stages and the registry.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) frames_received: AtomicU64,
    pub(crate) messages_sent: AtomicU64,
    pub(crate) inbound_high_water: AtomicUsize,
    pub(crate) outbound_high_water: AtomicUsize,
    pub(crate) errors_suppressed: AtomicU64,
    pub(crate) messages_rate_limited: AtomicU64,
}

impl Counters {
    pub(crate) fn note_depth(slot: &AtomicUsize, depth: usize) {
        slot.fetch_max(depth, Ordering::Relaxed);
    }
}

#[derive(Debug)]
struct Entry {
    outbox: Outbox,
    inbound: mpsc::WeakSender<crate::session::ReaderItem>,
    inbound_capacity: usize,
    counters: Arc<Counters>,
    latest_snapshot: Option<Arc<A11ySnapshot>>,
    /// Registration order, for [`Sessions::ids`] (the ids themselves are random).
    seq: u64,
}

#[derive(Debug)]
struct Inner {
    sessions: Mutex<HashMap<SessionId, Entry>>,
    events: broadcast::Sender<SessionEvent>,
    registered: AtomicU64,
}

/// The open sessions of a server. Cheap to clone (an `Arc`); every clone sees the same sessions.
#[derive(Debug, Clone)]
pub struct Sessions {
    inner: Arc<Inner>,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new()
    }
}

impl Sessions {
    /// An empty registry.
    pub fn new() -> Self {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        Self {
            inner: Arc::new(Inner {
                sessions: Mutex::new(HashMap::new()),
                events,
                registered: AtomicU64::new(0),
            }),
        }
    }

    /// Receives every [`SessionEvent`] from now on, in order per session. A receiver more than
    /// [`EVENT_BUFFER`] events behind skips the oldest (`Lagged`).
    pub fn subscribe(&self) -> broadcast::Receiver<SessionEvent> {
        self.inner.events.subscribe()
    }

    /// The last `ui-snapshot` the session sent (`None`: no snapshot yet or no such session).
    pub fn latest_snapshot(&self, id: SessionId) -> Option<Arc<A11ySnapshot>> {
        self.lock().get(&id).and_then(|e| e.latest_snapshot.clone())
    }

    /// Sends a server message (e.g. a `ui-command`) to the session, without an `id`.
    ///
    /// Waits while the session's outbound queue is full.
    ///
    /// # Errors
    /// [`SendError`] when no such session is open (it closed, or never existed).
    pub async fn send(&self, id: SessionId, message: ServerMessage) -> Result<(), SendError> {
        let outbox = self.outbox(id).ok_or(SendError { session: id })?;
        outbox.send(message).await
    }

    /// The outbox of an open session, to send to it from elsewhere (e.g. a UI worker).
    pub fn outbox(&self, id: SessionId) -> Option<Outbox> {
        self.lock().get(&id).map(|e| e.outbox.clone())
    }

    /// The ids of the open sessions, oldest first.
    pub fn ids(&self) -> Vec<SessionId> {
        let mut ids: Vec<(u64, SessionId)> =
            self.lock().iter().map(|(id, e)| (e.seq, *id)).collect();
        ids.sort();
        ids.into_iter().map(|(_, id)| id).collect()
    }

    /// Queue depths and counters of an open session.
    pub fn stats(&self, id: SessionId) -> Option<SessionStats> {
        let sessions = self.lock();
        let e = sessions.get(&id)?;
        let inbound_len = e
            .inbound
            .upgrade()
            .map(|tx| tx.max_capacity() - tx.capacity())
            .unwrap_or(0);
        Some(SessionStats {
            frames_received: e.counters.frames_received.load(Ordering::Relaxed),
            messages_sent: e.counters.messages_sent.load(Ordering::Relaxed),
            inbound_len,
            inbound_capacity: e.inbound_capacity,
            inbound_high_water: e.counters.inbound_high_water.load(Ordering::Relaxed),
            outbound_len: e.outbox.len(),
            outbound_capacity: e.outbox.capacity(),
            outbound_high_water: e.counters.outbound_high_water.load(Ordering::Relaxed),
            errors_suppressed: e.counters.errors_suppressed.load(Ordering::Relaxed),
            messages_rate_limited: e.counters.messages_rate_limited.load(Ordering::Relaxed),
        })
    }

    /// A fresh random id, not one of an open session (64 random bits: a repeat is all but
    /// impossible, and checked anyway), never 0.
    pub(crate) fn next_id(&self) -> SessionId {
        let sessions = self.lock();
        loop {
            let id = SessionId(random_u64());
            if id.0 != 0 && !sessions.contains_key(&id) {
                return id;
            }
        }
    }

    pub(crate) fn register(
        &self,
        id: SessionId,
        outbox: Outbox,
        inbound: mpsc::WeakSender<crate::session::ReaderItem>,
        inbound_capacity: usize,
        counters: Arc<Counters>,
    ) {
        self.lock().insert(
            id,
            Entry {
                outbox,
                inbound,
                inbound_capacity,
                counters,
                latest_snapshot: None,
                seq: self.inner.registered.fetch_add(1, Ordering::Relaxed),
            },
        );
        self.publish(id, SessionEventKind::Opened);
    }

    pub(crate) fn unregister(&self, id: SessionId, cause: CloseCause) {
        self.lock().remove(&id);
        self.publish(id, SessionEventKind::Closed(cause));
    }

    pub(crate) fn store_snapshot(&self, id: SessionId, snapshot: Arc<A11ySnapshot>) {
        if let Some(e) = self.lock().get_mut(&id) {
            e.latest_snapshot = Some(snapshot);
        }
    }

    pub(crate) fn publish(&self, session: SessionId, kind: SessionEventKind) {
        // No subscriber is fine: events are for whoever listens.
        let _ = self.inner.events.send(SessionEvent { session, kind });
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SessionId, Entry>> {
        // A panic while holding this lock cannot leave the map half-updated (single inserts and
        // removes), so a poisoned lock is still usable.
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_written_short_in_crockford_base32() {
        assert_eq!(SessionId(0).to_string(), "s0");
        assert_eq!(SessionId(7).to_string(), "s7");
        assert_eq!(SessionId(32).to_string(), "s10");
        assert_eq!(SessionId(u64::MAX).to_string(), "sfzzzzzzzzzzzz");
    }

    #[test]
    fn fresh_ids_do_not_repeat() {
        let sessions = Sessions::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            assert!(seen.insert(sessions.next_id()));
        }
    }
}
