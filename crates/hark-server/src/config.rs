//! Server settings: address, static directory, frame limit, queue bounds, connection deadlines
//! (header read, `client-ready`, keep-alive), error damping and allowed origins.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default listen address of `hark serve` (`127.0.0.1:7860`).
pub const DEFAULT_ADDR: &str = "127.0.0.1:7860";

/// Default limit on one incoming WebSocket frame or message: 1 MiB (issue 2, point 3).
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
    /// Interval of WebSocket keep-alive pings (zero: no pings, no pong deadline).
    pub ping_interval: Duration,
    /// Longest wait for a pong after a keep-alive ping is due (a peer stuck mid-frame or gone
    /// cannot answer); then the socket is closed with 1011 and
    /// [`messages::pong_timeout`](crate::messages::pong_timeout).
    pub pong_timeout: Duration,
    /// An `error` or `error-response` whose text equals one sent to the same session less than
    /// this long ago is not sent again (counted in
    /// [`SessionStats::errors_suppressed`](crate::SessionStats::errors_suppressed) and logged);
    /// the first one always goes out. Zero: every error is sent.
    pub error_repeat_window: Duration,
    /// Origins (e.g. `http://localhost:5173`) allowed to open `/ws` besides same-origin pages
    /// and clients sending no `Origin`; `*` allows every origin. Others get 403.
    pub allowed_origins: Vec<String>,
    /// Most nodes accepted in one `ui-snapshot` (all nodes, the root included); a larger one is
    /// refused with an `error-response` naming the count and the limit (hark-rtvi's
    /// [`SnapshotLimits`](hark_rtvi::snapshot::SnapshotLimits)). Default
    /// [`MAX_SNAPSHOT_NODES`](hark_rtvi::snapshot::MAX_SNAPSHOT_NODES) (5,000).
    pub max_snapshot_nodes: usize,
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
