//! Server settings: address, static directory, frame limit, queue bounds, connection deadlines
//! (header read, `client-ready`, keep-alive), error damping, allowed origins and the
//! per-session limits against hostile clients (message rate, snapshot size,
//! pending jobs, connection cap).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default listen address of `hark serve` (`127.0.0.1:7860`).
pub const DEFAULT_ADDR: &str = "127.0.0.1:7860";

/// Default limit on one incoming WebSocket frame or message: 1 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 1 << 20;

/// Default bound of each session's inbound queue (decoded client messages waiting for the
/// session), in messages.
pub const DEFAULT_INBOUND_QUEUE: usize = 16;

/// Default bound of each session's outbound queue (server messages waiting for the socket), in
/// messages.
pub const DEFAULT_OUTBOUND_QUEUE: usize = 128;

/// Default time a client has to send its whole HTTP request head (the `/ws` upgrade request or a
/// page request): 10 s. A silent or trickling connection is dropped after it.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Default time a WebSocket client has to send `client-ready` after the upgrade: 30 s; then the
/// socket is closed with 1008.
pub const DEFAULT_CLIENT_READY_TIMEOUT: Duration = Duration::from_secs(30);

/// Default interval of the server's WebSocket keep-alive pings: 30 s.
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(30);

/// Default time a client has to answer a keep-alive ping with a pong: 20 s; then the socket is
/// closed with 1011.
pub const DEFAULT_PONG_TIMEOUT: Duration = Duration::from_secs(20);

/// Default window in which an identical `error` / `error-response` text is sent to one session
/// at most once: 5 s.
pub const DEFAULT_ERROR_REPEAT_WINDOW: Duration = Duration::from_secs(5);

/// Default sustained message rate per session: 200 WebSocket data messages a second.
/// Pipecat's client sends a debounced snapshot at most every few hundred ms and a few
/// messages per turn, and microphone audio in 20 ms frames (50 a second), far below it.
pub const DEFAULT_MAX_MESSAGES_PER_SEC: u32 = 200;

/// Default burst of the per-session token bucket: 400 messages accepted at once after a quiet
/// spell.
pub const DEFAULT_MESSAGE_BURST: u32 = 400;

/// A client sending more than this many times [`ServerConfig::max_messages_per_sec`] in each
/// second for [`ServerConfig::flood_close_after`] is closed (1008).
pub const FLOOD_FACTOR: u32 = 10;

/// Default time a client may flood (over [`FLOOD_FACTOR`] × the rate, every second) before it is
/// closed with 1008: 5 s.
pub const DEFAULT_FLOOD_CLOSE_AFTER: Duration = Duration::from_secs(5);

/// Default largest `ui-snapshot` message, in bytes of RTVI JSON: 512 KiB. client-js caps a
/// snapshot at 200 nodes (a few tens of KB); 5,000 nodes of about 65 bytes fit.
pub const DEFAULT_MAX_SNAPSHOT_BYTES: usize = 512 * 1024;

/// Default most UI jobs (`screen`, `respond`) waiting or running per session: 8. More are
/// answered at once with an error the model reads.
pub const DEFAULT_MAX_PENDING_JOBS: usize = 8;

/// Default most app UI-event handlers running per session: 32. More `ui-event`s are refused
/// with an `error` until one finishes.
pub const DEFAULT_MAX_UI_EVENTS_IN_FLIGHT: usize = 32;

/// Default most job groups running at once per UI session: 64
/// ([`hark_ui::job_group::DEFAULT_MAX_OPEN_GROUPS`]). An app runs a few at a time; more are
/// refused with [`hark_ui::messages::too_many_job_groups`] until one ends.
pub const DEFAULT_MAX_JOB_GROUPS: usize = hark_ui::job_group::DEFAULT_MAX_OPEN_GROUPS;

/// Default most open WebSocket sessions per server: 4,096. Beyond it `/ws` answers 503.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// The `Retry-After` a refused upgrade (server full) carries, in seconds.
pub const FULL_RETRY_AFTER_SECS: u64 = 5;

/// Settings of one [`Server`](crate::Server).
///
/// Memory per session is bounded by `max_frame_bytes × (inbound_queue + 2)` for input plus
/// `outbound_queue` encoded messages for output: when a queue is full, the stage that feeds it
/// waits (the socket reader stops reading, so TCP pushes back on the client).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on; port 0 picks a free port (see [`Server::local_addr`](crate::Server::local_addr)).
    pub addr: SocketAddr,
    /// Directory of the demo page, served at `/` (`None`: `/` answers a short page naming `/ws`).
    /// A directory without `index.html` makes `/` answer a page saying how to build it.
    pub web_dir: Option<PathBuf>,
    /// Largest incoming WebSocket frame or message, in bytes. A larger one closes the socket
    /// with close code 1009 and a reason naming the limit.
    pub max_frame_bytes: usize,
    /// Bound of each session's inbound queue, in messages (at least 1).
    pub inbound_queue: usize,
    /// Bound of each session's outbound queue, in messages (at least 1).
    pub outbound_queue: usize,
    /// How long a session waits for the client's answer to the close frame at shutdown, and how
    /// long [`Server::run_until`](crate::Server::run_until) waits for sessions to finish.
    pub close_grace: Duration,
    /// Longest wait for a connection's complete HTTP request head (hyper's HTTP/1
    /// `header_read_timeout`; covers a silent connection, a partial upgrade request and an idle
    /// keep-alive connection). Must be more than zero.
    pub header_read_timeout: Duration,
    /// Longest wait, from the WebSocket upgrade, for the client's `client-ready`; then the
    /// socket is closed with 1008 and [`messages::client_ready_timeout`](crate::messages::client_ready_timeout).
    pub client_ready_timeout: Duration,
    /// Interval of WebSocket keep-alive pings (zero: no pings, no pong deadline; a client that
    /// stops reading is still closed, see [`pong_timeout`](Self::pong_timeout)).
    pub ping_interval: Duration,
    /// Longest wait for a pong after a keep-alive ping is due (a peer stuck mid-frame or gone
    /// cannot answer); then the socket is closed with 1011 and
    /// [`messages::pong_timeout`](crate::messages::pong_timeout).
    ///
    /// Also bounds a client that stopped reading: when a write to it moves
    /// not a single byte for `ping_interval + pong_timeout`, the session ends the same way
    /// ([`CloseCause::PongTimeout`](crate::CloseCause::PongTimeout)). With pings off (a zero
    /// `ping_interval`) this still applies, with [`DEFAULT_PING_INTERVAL`] (30 s) in place of
    /// the interval, so turning pings off never shortens that window below the default's
    /// (see [`SessionLimits::stalled_write_window`](crate::session::SessionLimits::stalled_write_window)).
    /// A client that reads slowly moves bytes and is not closed for it. Zero turns this
    /// stalled-write close off; with a zero `ping_interval` too, no keep-alive deadline applies
    /// at all.
    pub pong_timeout: Duration,
    /// An `error` whose text equals one sent to the same session less than this long ago is not
    /// sent again (counted in
    /// [`SessionStats::errors_suppressed`](crate::SessionStats::errors_suppressed) and logged);
    /// the first one always goes out. An `error-response` answers a request by its id and is
    /// always sent. Zero: every error is sent.
    pub error_repeat_window: Duration,
    /// Origins (e.g. `http://localhost:5173`) allowed to open `/ws` besides same-origin pages
    /// and clients sending no `Origin`; `*` allows every origin. Others get 403.
    pub allowed_origins: Vec<String>,
    /// Most nodes accepted in one `ui-snapshot` (all nodes, the root included); a larger one is
    /// refused with an `error-response` naming the count and the limit (hark-rtvi's
    /// [`SnapshotLimits`](hark_rtvi::snapshot::SnapshotLimits)). Default
    /// [`MAX_SNAPSHOT_NODES`](hark_rtvi::snapshot::MAX_SNAPSHOT_NODES) (5,000).
    pub max_snapshot_nodes: usize,
    /// Deepest node level accepted in one `ui-snapshot` (the root is 1); a deeper one is
    /// refused with an `error-response` naming the path and the limit. Values above
    /// [`MAX_TREE_DEPTH`](hark_rtvi::snapshot::MAX_TREE_DEPTH) (60, the default) read as 60.
    pub max_snapshot_depth: usize,
    /// Largest `ui-snapshot` message, in bytes of RTVI JSON; a larger one is refused with an
    /// `error-response` naming the size and the limit, found by reading only its `type` and `id`
    /// (the tree is not decoded). Default [`DEFAULT_MAX_SNAPSHOT_BYTES`] (512 KiB).
    pub max_snapshot_bytes: usize,
    /// Sustained rate of WebSocket data messages (binary or text frames) one session may send,
    /// per second (a token bucket of [`message_burst`](Self::message_burst)); messages over it
    /// are dropped undecoded, counted, logged once per episode, and the client gets one `error`
    /// ([`messages::message_rate_exceeded`](crate::messages::message_rate_exceeded)) per
    /// episode. 0: no limit. Default [`DEFAULT_MAX_MESSAGES_PER_SEC`] (200).
    pub max_messages_per_sec: u32,
    /// Bucket size of the message rate limit, in messages (at least 1). Default
    /// [`DEFAULT_MESSAGE_BURST`] (400).
    pub message_burst: u32,
    /// A client sending more than [`FLOOD_FACTOR`] × `max_messages_per_sec` messages in every
    /// second for this long is closed with 1008 and
    /// [`messages::message_flood`](crate::messages::message_flood). Zero: never closed for it.
    /// Default [`DEFAULT_FLOOD_CLOSE_AFTER`] (5 s); whole seconds count.
    pub flood_close_after: Duration,
    /// Most UI jobs (`screen`, `respond`) waiting or running per session for a UI worker
    /// ([`UiHandlerFactory`](crate::UiHandlerFactory)); more are answered at once with status
    /// `error` and [`messages::too_many_jobs`](crate::messages::too_many_jobs). At least 1.
    /// Default [`DEFAULT_MAX_PENDING_JOBS`] (8).
    pub max_pending_jobs: usize,
    /// Most app UI-event handlers running per session; a `ui-event` beyond it is refused with
    /// an `error` ([`messages::too_many_ui_events`](crate::messages::too_many_ui_events)) and not
    /// recorded. At least 1. Default [`DEFAULT_MAX_UI_EVENTS_IN_FLIGHT`] (32).
    pub max_ui_events_in_flight: usize,
    /// Most job groups running at once per UI session
    /// ([`hark_ui::job_group::JobGroups::max_open`]); one more is refused before anything is
    /// sent, with [`hark_ui::messages::too_many_job_groups`] for the app that started it. At
    /// least 1. Default [`DEFAULT_MAX_JOB_GROUPS`] (64). A
    /// [`UiSessionConfig::max_job_groups`](crate::UiSessionConfig::max_job_groups) wins over it.
    pub max_job_groups: usize,
    /// Most open WebSocket sessions; a `/ws` upgrade beyond it gets HTTP 503 with
    /// `Retry-After` and [`messages::server_full`](crate::messages::server_full) (counted,
    /// logged once per burst); open sessions are not affected. Connections that never finish
    /// their request head are dropped by `header_read_timeout`. Default
    /// [`DEFAULT_MAX_CONNECTIONS`] (4,096).
    pub max_connections: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            addr: DEFAULT_ADDR
                .parse()
                .expect("DEFAULT_ADDR is a socket address"),
            web_dir: None,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            inbound_queue: DEFAULT_INBOUND_QUEUE,
            outbound_queue: DEFAULT_OUTBOUND_QUEUE,
            close_grace: Duration::from_secs(2),
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            client_ready_timeout: DEFAULT_CLIENT_READY_TIMEOUT,
            ping_interval: DEFAULT_PING_INTERVAL,
            pong_timeout: DEFAULT_PONG_TIMEOUT,
            error_repeat_window: DEFAULT_ERROR_REPEAT_WINDOW,
            allowed_origins: Vec::new(),
            max_snapshot_nodes: hark_rtvi::snapshot::MAX_SNAPSHOT_NODES,
            max_snapshot_depth: hark_rtvi::snapshot::MAX_TREE_DEPTH,
            max_snapshot_bytes: DEFAULT_MAX_SNAPSHOT_BYTES,
            max_messages_per_sec: DEFAULT_MAX_MESSAGES_PER_SEC,
            message_burst: DEFAULT_MESSAGE_BURST,
            flood_close_after: DEFAULT_FLOOD_CLOSE_AFTER,
            max_pending_jobs: DEFAULT_MAX_PENDING_JOBS,
            max_ui_events_in_flight: DEFAULT_MAX_UI_EVENTS_IN_FLIGHT,
            max_job_groups: DEFAULT_MAX_JOB_GROUPS,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

impl ServerConfig {
    /// The default settings with another address (`127.0.0.1:0` for tests).
    pub fn with_addr(addr: SocketAddr) -> Self {
        Self {
            addr,
            ..Self::default()
        }
    }
}

/// Finds the demo page's directory when `--web-dir` is not given.
///
/// Order: `web/dist` under `cwd` if it is a directory, else `web/dist` under the workspace root
/// known at build time (`CARGO_MANIFEST_DIR/../..`). Returns the first candidate even when
/// neither exists, so the startup log and `/` can say where the page was expected.
pub fn default_web_dir(cwd: &Path) -> PathBuf {
    let local = cwd.join("web").join("dist");
    if local.is_dir() {
        return local;
    }
    let built = workspace_web_dir();
    if built.is_dir() { built } else { local }
}

/// `web/dist` under the workspace root this crate was built in.
pub fn workspace_web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join("web")
        .join("dist")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_issue_values() {
        let c = ServerConfig::default();
        assert_eq!(c.addr.to_string(), "127.0.0.1:7860");
        assert_eq!(c.max_frame_bytes, 1_048_576);
        assert!(c.web_dir.is_none());
        assert_eq!(c.header_read_timeout, Duration::from_secs(10));
        assert_eq!(c.client_ready_timeout, Duration::from_secs(30));
        assert_eq!(c.ping_interval, Duration::from_secs(30));
        assert_eq!(c.pong_timeout, Duration::from_secs(20));
        assert_eq!(c.error_repeat_window, Duration::from_secs(5));
        assert!(c.allowed_origins.is_empty());
        assert_eq!(c.max_snapshot_nodes, 5_000);
        assert_eq!(c.max_snapshot_depth, 60);
        assert_eq!(c.max_snapshot_bytes, 524_288);
        assert_eq!((c.max_messages_per_sec, c.message_burst), (200, 400));
        assert_eq!(c.flood_close_after, Duration::from_secs(5));
        assert_eq!(c.max_pending_jobs, 8);
        assert_eq!(c.max_ui_events_in_flight, 32);
        assert_eq!(c.max_job_groups, 64);
        assert_eq!(c.max_connections, 4096);
    }

    #[test]
    fn web_dir_prefers_the_current_directory() {
        let tmp = std::env::temp_dir().join(format!("hark-webdir-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("web").join("dist")).unwrap();
        assert_eq!(default_web_dir(&tmp), tmp.join("web").join("dist"));
        std::fs::remove_dir_all(&tmp).unwrap();
        // Without one under cwd: the workspace's (if built) or the cwd candidate.
        let got = default_web_dir(&tmp);
        assert!(got == workspace_web_dir() || got == tmp.join("web").join("dist"));
    }
}
