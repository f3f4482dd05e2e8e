//! The worker's [`CommandSink`] into the session's outbox: commands and `ui-job-group` envelopes
//! reach the client in order, none dropped while the session runs.

use std::sync::{Arc, Mutex, MutexGuard};

use hark_rtvi::message::ServerMessage;
use hark_ui::{CommandSink, SinkClosed};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::session::Outbox;

/// The worker's [`CommandSink`]: puts a message straight into the session's [`Outbox`] when
/// it has room (never waiting: the sink must not block), else behind the ones already waiting
/// in an unbounded backlog that a task empties into the outbox in order, waiting for room (the
/// outbox's back-pressure; nothing is dropped). Before the session's first input (no outbox
/// yet) messages wait in the backlog. Closed when the handler is dropped, or when the session
/// closed under a send: every later send is refused with [`SinkClosed`].
///
/// No channel or task per session while the outbox has room (a
/// tokio mpsc allocates its first 32-slot block when made: 8.3 KiB for inline
/// [`ServerMessage`]s); the backlog allocates only when used.
#[derive(Debug, Default)]
pub(super) struct SessionSink {
    pub(super) state: Arc<Mutex<SinkState>>,
}

#[derive(Debug, Default)]
pub(super) struct SinkState {
    /// The session's outbox, from its first input on.
    pub(super) outbox: Option<Outbox>,
    /// Messages waiting for room in the outbox (or for the outbox), oldest first.
    pub(super) backlog: std::collections::VecDeque<Box<ServerMessage>>,
    /// The task emptying the backlog, while it runs; new messages then queue behind it.
    pub(super) drainer: Option<JoinHandle<()>>,
    pub(super) closed: bool,
    /// The session was asked to end before it had an outbox: it ends when the outbox comes.
    pub(super) end_requested: bool,
}

pub(super) fn lock_sink(state: &Mutex<SinkState>) -> MutexGuard<'_, SinkState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionSink {
    /// From now on messages go to `outbox`; what waited for it goes first. Call inside the
    /// tokio runtime (the backlog's task is spawned on it).
    pub(super) fn attach(&self, outbox: &Outbox) {
        let mut state = lock_sink(&self.state);
        if state.closed || state.outbox.is_some() {
            return;
        }
        state.outbox = Some(outbox.clone());
        if !state.backlog.is_empty() {
            self.start_drainer(&mut state);
        }
        if state.end_requested {
            outbox.end_session();
        }
    }

    /// Ends the session from the bot's side ([`Outbox::end_session`]: what is queued goes
    /// out, then the socket closes with 1000); before the session's first input, as soon as
    /// its outbox is attached.
    pub(super) fn end_session(&self) {
        let mut state = lock_sink(&self.state);
        match &state.outbox {
            Some(outbox) => outbox.end_session(),
            None => state.end_requested = true,
        }
    }

    /// Spawns the task that moves the backlog into the outbox, in order, waiting for room.
    pub(super) fn start_drainer(&self, state: &mut SinkState) {
        let Some(outbox) = state.outbox.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Outside the runtime (not how a worker runs): the backlog waits for the next send
            // made inside it.
            return;
        };
        let shared = self.state.clone();
        state.drainer = Some(runtime.spawn(async move {
            loop {
                let next = {
                    let mut state = lock_sink(&shared);
                    match state.backlog.pop_front() {
                        Some(message) => message,
                        None => {
                            state.drainer = None;
                            return;
                        }
                    }
                };
                if outbox.send_boxed(next).await.is_err() {
                    // The session closed: later sends are refused.
                    let mut state = lock_sink(&shared);
                    state.closed = true;
                    state.outbox = None;
                    state.backlog.clear();
                    state.drainer = None;
                    return;
                }
            }
        }));
    }

    /// Refuses every later send, drops what waits and stops the backlog's task.
    pub(super) fn close(&self) {
        let mut state = lock_sink(&self.state);
        state.closed = true;
        state.outbox = None;
        state.backlog.clear();
        if let Some(drainer) = state.drainer.take() {
            drainer.abort();
        }
    }
}

impl CommandSink for SessionSink {
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed> {
        let mut state = lock_sink(&self.state);
        if state.closed {
            return Err(SinkClosed);
        }
        let mut message = Box::new(message);
        // Straight into the outbox only when nothing waits before it (order).
        if state.drainer.is_none()
            && state.backlog.is_empty()
            && let Some(outbox) = &state.outbox
        {
            match outbox.try_send_boxed(message) {
                Ok(()) => return Ok(()),
                Err(mpsc::error::TrySendError::Full(back)) => message = back,
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    state.closed = true;
                    state.outbox = None;
                    return Err(SinkClosed);
                }
            }
        }
        state.backlog.push_back(message);
        if state.drainer.is_none() && state.outbox.is_some() {
            self.start_drainer(&mut state);
        }
        Ok(())
    }
}
