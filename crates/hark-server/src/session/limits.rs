//! A session's limits ([`SessionLimits`]), taken from the server's configuration.

use std::time::Duration;

use crate::config::{DEFAULT_PING_INTERVAL, ServerConfig};

use super::outbox::HandlerLimits;

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
    /// Flooding (over [`FLOOD_FACTOR`](crate::config::FLOOD_FACTOR) × the rate every second) this long closes with 1008
    /// (zero: never).
    pub flood_close_after: Duration,
    /// What the handler applies itself (see [`Outbox::handler_limits`](crate::Outbox::handler_limits)).
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
    /// with 1011 ([`CloseCause::PongTimeout`](crate::CloseCause::PongTimeout) with this as `after`): the client stopped
    /// reading. `ping_interval + pong_timeout`, the time the keep-alive
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
