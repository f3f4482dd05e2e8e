//! What the registry tells about a session: its [`SessionEvent`]s, why it closed ([`CloseCause`])
//! and its [`SessionStats`], counted in [`Counters`] by the session's stages.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use hark_rtvi::SharedSnapshot;
use hark_rtvi::ui::{UiCancelJobGroup, UiEvent};

use super::id::SessionId;

/// Something that happened in a session, as seen by [`Sessions::subscribe`](super::Sessions::subscribe).
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
    /// The client sent `client-ready` and the server answered `bot-ready`.
    Ready {
        /// The client's `data.version` as sent (`None` when absent).
        client_version: Option<String>,
        /// The client's `data.about.library` (e.g. `@pipecat-ai/client-js`).
        client_library: Option<String>,
    },
    /// A `send-text` reached the session as a user turn.
    UserText(String),
    /// A `ui-snapshot` was received; it is now [`Sessions::latest_snapshot`](super::Sessions::latest_snapshot).
    Snapshot(SharedSnapshot),
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
    /// closed with 1008 and [`messages::message_flood`](crate::messages::message_flood).
    MessageFlood {
        /// The configured message rate, in messages a second
        /// ([`ServerConfig::max_messages_per_sec`](crate::ServerConfig::max_messages_per_sec)).
        per_sec: u32,
        /// The configured flood duration that closes the session.
        after: std::time::Duration,
    },
}

/// Queue depths and counters of one session, read with [`Sessions::stats`](super::Sessions::stats).
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
    /// including the one that triggers a flood close).
    pub messages_rate_limited: u64,
    /// Microphone audio frames dropped so far for being unusable (a rate outside 8–48 kHz,
    /// stereo, half a sample, over the size limit); the client is told once per
    /// [`ServerConfig::error_repeat_window`](crate::ServerConfig::error_repeat_window).
    pub audio_frames_dropped: u64,
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
    pub(crate) audio_frames_dropped: AtomicU64,
}

impl Counters {
    pub(crate) fn note_depth(slot: &AtomicUsize, depth: usize) {
        slot.fetch_max(depth, Ordering::Relaxed);
    }
}
