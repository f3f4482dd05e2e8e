//! Where a bus worker's messages wait for the one publisher: each with the channel it goes on,
//! so every call's worker of a `call:*` pattern shares one queue and one Redis connection.

use std::sync::Arc;

use hark_bus::{RedisBus, WireMessage};
use tokio::sync::mpsc;

/// A message and the channel it is published on.
pub type Outgoing = (Arc<str>, WireMessage);

/// One channel's way into the publisher's queue. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Outbox {
    channel: Arc<str>,
    tx: mpsc::UnboundedSender<Outgoing>,
}

/// The publisher stopped; nothing more goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

impl Outbox {
    /// Messages for `channel` into `tx` (read by [`publish_loop`]).
    pub fn new(channel: impl Into<Arc<str>>, tx: mpsc::UnboundedSender<Outgoing>) -> Self {
        Outbox {
            channel: channel.into(),
            tx,
        }
    }

    /// The channel it sends on.
    pub fn channel(&self) -> &str {
        &self.channel
    }

    /// Queues `message` for its channel.
    ///
    /// # Errors
    /// [`Closed`] when the publisher stopped.
    pub fn send(&self, message: WireMessage) -> Result<(), Closed> {
        self.tx
            .send((self.channel.clone(), message))
            .map_err(|_| Closed)
    }
}

/// Publishes what the workers queue, in order, until every [`Outbox`] is gone.
pub async fn publish_loop(bus: RedisBus, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some((channel, message)) = rx.recv().await {
        if let Err(e) = bus.publish_on(&channel, &message).await {
            tracing::warn!("a bus message was not sent: {e}");
        }
    }
}
