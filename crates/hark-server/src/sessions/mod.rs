//! The registry of open sessions: events, latest snapshots, sending to a session.
//!
//! Files, lowest first: `id` (a session's id), `events` (its events, close cause and counters),
//! then this one, the registry, which also reaches each session's outbox and reader queue.

pub(crate) mod events;
pub(crate) mod id;

pub(crate) use events::Counters;
pub use events::{CloseCause, SessionEvent, SessionEventKind, SessionStats};
pub use id::SessionId;
use id::random_u64;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hark_rtvi::SharedSnapshot;
use hark_rtvi::message::ServerMessage;
use hark_rtvi::snapshot::A11ySnapshot;
use tokio::sync::{broadcast, mpsc};

use crate::session::outbox::{Outbox, SendError};

/// How many events a [`Sessions::subscribe`] receiver may fall behind before it skips
/// (it then gets `RecvError::Lagged(n)` from tokio's broadcast channel).
pub const EVENT_BUFFER: usize = 1024;

#[derive(Debug)]
struct Entry {
    outbox: Outbox,
    inbound: mpsc::WeakSender<crate::session::reader::ReaderItem>,
    inbound_capacity: usize,
    counters: Arc<Counters>,
    latest_snapshot: Option<SharedSnapshot>,
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

    /// The last `ui-snapshot` the session sent (`None`: no snapshot yet or no such session),
    /// decoded from the JSON it is kept as unless a reader holds its tree now.
    pub fn latest_snapshot(&self, id: SessionId) -> Option<Arc<A11ySnapshot>> {
        let snapshot = self.lock().get(&id).and_then(|e| e.latest_snapshot.clone());
        snapshot.map(|s| s.tree())
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
            audio_frames_dropped: e.counters.audio_frames_dropped.load(Ordering::Relaxed),
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
        inbound: mpsc::WeakSender<crate::session::reader::ReaderItem>,
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

    pub(crate) fn store_snapshot(&self, id: SessionId, snapshot: SharedSnapshot) {
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
