//! One Redis connection for every session of `hark serve --bus`: a [`RedisBus`] started on
//! the pattern `<channel prefix>*` ([`RedisBus::start_pattern`], PSUBSCRIBE: one subscribing and
//! one publishing connection, whatever the number of sessions), made by the factory on its
//! first session. Each session joins with its channel and gets that channel's messages;
//! messages on a channel of no running session (a session that ended, or another server's
//! under the same prefix) are dropped here.
//!
//! Every session reads [`Delivery::Connected`] after each (re)subscription, and once when it
//! joins a bus that is connected already, so it announces itself again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use hark_bus::redis_bus::{BadRedisUrl, ChannelEvent};
use hark_bus::{RedisBus, RedisBusConfig, WireMessage};
use tokio::sync::mpsc;
use tracing::{debug, info};

use super::config::{DEFAULT_SCREEN_SOURCE, RemoteBusConfig};

/// What a session reads from its channel.
#[derive(Debug)]
pub(super) enum Delivery {
    /// Subscribed (first time, after a reconnect, or already when the session joined).
    Connected,
    /// A message on the session's channel.
    Message(WireMessage),
}

type Joined = Mutex<HashMap<String, mpsc::UnboundedSender<Delivery>>>;

/// The shared bus and the sessions on it, by channel.
pub(super) struct RemoteHub {
    bus: RedisBus,
    sessions: Arc<Joined>,
}

impl std::fmt::Debug for RemoteHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteHub")
            .field("pattern", &self.bus.config().channel)
            .field("sessions", &lock(&self.sessions).len())
            .finish()
    }
}

fn lock(joined: &Joined) -> MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Delivery>>> {
    joined.lock().unwrap_or_else(|e| e.into_inner())
}

/// The Redis glob matching every channel that starts with `prefix` (its glob characters
/// escaped).
pub(super) fn prefix_pattern(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('*');
    pattern
}

impl RemoteHub {
    /// Connects (in the background, retried with backoff) to `config`'s Redis on every channel
    /// of its prefix. Must run in a tokio runtime.
    ///
    /// # Errors
    /// [`BadRedisUrl`] when the URL cannot be used.
    pub(super) fn start(config: &RemoteBusConfig) -> Result<Arc<RemoteHub>, BadRedisUrl> {
        let pattern = prefix_pattern(&config.channel_prefix);
        let mut bus_config = RedisBusConfig::new(config.url.clone(), pattern.clone());
        bus_config.max_message_bytes = config.max_message_bytes;
        bus_config.job_timeout = config.job_timeout;
        let (bus, events) = RedisBus::start_pattern(bus_config)?;
        // Every session's voice side: its own echoes are dropped.
        bus.add_own_name(DEFAULT_SCREEN_SOURCE);
        let sessions: Arc<Joined> = Arc::default();
        info!(url = %config.url, %pattern, "the sessions' buses are on Redis, on one connection");
        tokio::spawn(dispatch(Arc::downgrade(&sessions), events));
        Ok(Arc::new(RemoteHub { bus, sessions }))
    }

    /// The shared bus.
    pub(super) fn bus(&self) -> &RedisBus {
        &self.bus
    }

    /// The session on `channel` joins: what comes on it from now on is for the receiver.
    pub(super) fn join(&self, channel: &str) -> mpsc::UnboundedReceiver<Delivery> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.sessions).insert(channel.to_owned(), tx.clone());
        if self.bus.is_connected() {
            let _ = tx.send(Delivery::Connected);
        }
        rx
    }

    /// The session on `channel` left: its channel's messages are dropped, its workers
    /// forgotten.
    pub(super) fn leave(&self, channel: &str) {
        lock(&self.sessions).remove(channel);
        self.bus.forget_channel(channel);
    }
}

/// Hands each message to its channel's session until the bus stops.
async fn dispatch(sessions: Weak<Joined>, mut events: mpsc::Receiver<ChannelEvent>) {
    while let Some(event) = events.recv().await {
        let Some(sessions) = sessions.upgrade() else {
            return;
        };
        let joined = lock(&sessions);
        match event {
            ChannelEvent::Connected => {
                for tx in joined.values() {
                    let _ = tx.send(Delivery::Connected);
                }
            }
            ChannelEvent::Message { channel, message } => match joined.get(&channel) {
                Some(tx) => {
                    let _ = tx.send(Delivery::Message(*message));
                }
                None => {
                    debug!(%channel, "a bus message on a channel of no running session was dropped")
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::prefix_pattern;

    #[test]
    fn the_pattern_is_the_prefix_with_its_glob_characters_escaped_then_a_star() {
        assert_eq!(prefix_pattern("hark:"), "hark:*");
        assert_eq!(prefix_pattern("a*b?[c]\\:"), "a\\*b\\?\\[c\\]\\\\:*");
        assert_eq!(prefix_pattern(""), "*");
    }
}
