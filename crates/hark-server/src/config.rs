//! Server settings: address, static directory, frame limit, queue bounds.

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
