//! What goes from the turn loop to the client: the [`AgentOutput`] trait the agent emits its
//! [`AgentEvent`]s through, and [`ChannelOutput`] for tests and embedding. hark-agent does not
//! depend on the server and sends no wire messages: hark-server implements [`AgentOutput`] over
//! its session outbox and turns each event into RTVI messages.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use crate::event::AgentEvent;

/// The client went away: nothing more can be sent to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the client's session is closed; nothing more can be sent to it")]
pub struct OutputClosed;

/// Where one call's events for the client go (a session's outbound queue).
pub trait AgentOutput: Send + Sync + fmt::Debug {
    /// Queues `event` for the client, in order; waits while the queue is full.
    ///
    /// # Errors
    /// [`OutputClosed`] once the client is gone.
    fn send(&self, event: AgentEvent) -> BoxFuture<'_, Result<(), OutputClosed>>;

    /// Ends the session from the bot's side (the call ended, `ends_conversation`): what is
    /// queued still goes out, then the connection closes normally. Resolves once the close is
    /// under way; later [`send`](Self::send)s fail.
    fn end(&self) -> BoxFuture<'_, ()>;
}

/// An [`AgentOutput`] over a tokio channel: every event lands in the receiver, in order;
/// [`end`](AgentOutput::end) drops the sender (the receiver then ends after the queued
/// events). For tests and for embedding the agent behind another transport.
#[derive(Debug, Clone)]
pub struct ChannelOutput {
    tx: Arc<std::sync::Mutex<Option<mpsc::UnboundedSender<AgentEvent>>>>,
    ended: Arc<AtomicBool>,
}

impl ChannelOutput {
    /// An output and the receiver of its events.
    pub fn new() -> (ChannelOutput, mpsc::UnboundedReceiver<AgentEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            ChannelOutput {
                tx: Arc::new(std::sync::Mutex::new(Some(tx))),
                ended: Arc::default(),
            },
            rx,
        )
    }

    /// True once [`AgentOutput::end`] was called.
    pub fn is_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

impl AgentOutput for ChannelOutput {
    fn send(&self, event: AgentEvent) -> BoxFuture<'_, Result<(), OutputClosed>> {
        let sent = match &*self.tx.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(tx) => tx.send(event).map_err(|_| OutputClosed),
            None => Err(OutputClosed),
        };
        Box::pin(async move { sent })
    }

    fn end(&self) -> BoxFuture<'_, ()> {
        self.ended.store(true, Ordering::SeqCst);
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).take();
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_channel_output_refuses_after_end() {
        let (out, mut rx) = ChannelOutput::new();
        out.send(AgentEvent::LlmStarted).await.unwrap();
        out.end().await;
        assert_eq!(out.send(AgentEvent::LlmStopped).await, Err(OutputClosed));
        assert!(out.is_ended());
        assert_eq!(rx.recv().await, Some(AgentEvent::LlmStarted));
        assert!(rx.recv().await.is_none());
    }
}
