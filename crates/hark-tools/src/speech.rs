//! Speech: how the tool layer says a line in a call. The agent runtime implements [`Speech`];
//! [`InMemorySpeech`] records lines for tests.
//!
//! It also knows whether the reply that made the call already spoke. Guide:
//! `docs/guide/announce-lines.md`, `docs/guide/replies-and-assign.md`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;

/// The call's voice, as the tool layer needs it.
pub trait Speech: Send + Sync + std::fmt::Debug {
    /// Queues `line` to be said; resolves once it is queued (not played).
    fn say<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()>;

    /// Says `line` and resolves once it has played out; the caller cannot cut it off (a tool's
    /// `announce_wait` line, or the goodbye of a tool that ends the call). By default
    /// [`say`](Self::say) then [`wait_playout`](Self::wait_playout).
    fn say_waited<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            self.say(line).await;
            self.wait_playout().await;
        })
    }

    /// Resolves once everything queued so far has played out (or was cut off). A runtime on
    /// Pipecat waits at most 30 seconds.
    fn wait_playout(&self) -> BoxFuture<'_, ()>;

    /// True when the reply that made the current tool calls already said something to the
    /// caller (then an `ArgumentsMissing` refusal gets no model reply).
    fn reply_spoke(&self) -> bool;

    /// True for a realtime model that speaks itself: announce lines are skipped and the model
    /// words its own.
    fn speaks_itself(&self) -> bool {
        false
    }
}

/// What an [`InMemorySpeech`] saw, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechEvent {
    /// A line was said.
    Said(String),
    /// The runtime waited for playout.
    PlayedOut,
    /// A mark a test adds (like "the tool ran"), to check the order of things.
    Mark(String),
}

/// Speech that records what it is asked to say. Playout is immediate.
#[derive(Debug, Default)]
pub struct InMemorySpeech {
    events: Mutex<Vec<SpeechEvent>>,
    reply_spoke: AtomicBool,
    realtime: bool,
}

impl InMemorySpeech {
    /// A speech that records lines; the reply has not spoken.
    pub fn new() -> Self {
        Self::default()
    }

    /// A realtime model that speaks itself: announce lines are skipped.
    pub fn realtime() -> Self {
        Self {
            realtime: true,
            ..Self::default()
        }
    }

    /// Sets whether the reply that made the calls already spoke.
    pub fn set_reply_spoke(&self, spoke: bool) {
        self.reply_spoke.store(spoke, Ordering::SeqCst);
    }

    /// Adds a mark to the event list.
    pub fn mark(&self, text: impl Into<String>) {
        self.lock().push(SpeechEvent::Mark(text.into()));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<SpeechEvent>> {
        self.events.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every line said, in order.
    pub fn lines(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter_map(|e| match e {
                SpeechEvent::Said(line) => Some(line.clone()),
                _ => None,
            })
            .collect()
    }

    /// Every event, in order.
    pub fn events(&self) -> Vec<SpeechEvent> {
        self.lock().clone()
    }
}

impl Speech for InMemorySpeech {
    fn say<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()> {
        self.lock().push(SpeechEvent::Said(line.to_string()));
        Box::pin(async {})
    }

    fn wait_playout(&self) -> BoxFuture<'_, ()> {
        self.lock().push(SpeechEvent::PlayedOut);
        Box::pin(async {})
    }

    fn reply_spoke(&self) -> bool {
        self.reply_spoke.load(Ordering::SeqCst)
    }

    fn speaks_itself(&self) -> bool {
        self.realtime
    }
}
