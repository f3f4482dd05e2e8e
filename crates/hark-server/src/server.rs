//! The HTTP side: binding, routes (`/ws` for RTVI, static demo page at `/`), graceful shutdown.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use axum::Extension;
use axum::Router;
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::http::{HeaderMap, Request, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tower_http::services::ServeDir;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::config::ServerConfig;
use crate::messages;
use crate::session::{
    ConnectionSetup, HandlerFactory, NoAgentHandler, SessionLimits, run_connection,
};
use crate::sessions::Sessions;
use crate::socket::{RawConn, share, split_axum};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A bound, not yet running hark server: RTVI sessions at `/ws`, the demo page at `/`.
///
/// Lifecycle: [`Server::bind`] (the port is taken here), read [`Server::local_addr`] and
/// [`Server::sessions`], then [`Server::run_until`] serves until the given future completes.
#[derive(Debug)]
pub struct Server {
    listener: std::net::TcpListener,
    local_addr: SocketAddr,
    config: ServerConfig,
    sessions: Sessions,
    factory: Arc<dyn HandlerFactory>,
}

#[derive(Clone)]
struct AppState {
    sessions: Sessions,
    factory: Arc<dyn HandlerFactory>,
    limits: SessionLimits,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    origins: Arc<OriginPolicy>,
    gate: Arc<ConnectionGate>,
}

/// The cap on open WebSocket sessions ([`ServerConfig::max_connections`]).
#[derive(Debug)]
struct ConnectionGate {
    max: usize,
    open: AtomicUsize,
    refused: AtomicU64,
    /// When the current burst of refusals was logged, and the refusal count then.
    logged: Mutex<Option<(std::time::Instant, u64)>>,
}

/// A refusal after this long without one starts a new burst (logged again).
const REFUSAL_BURST_GAP: Duration = Duration::from_secs(10);

impl ConnectionGate {
    fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            open: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            logged: Mutex::new(None),
        }
    }

    /// A slot for one session, held until the returned guard drops; `None` when full.
    fn enter(self: &Arc<Self>) -> Option<SessionSlot> {
        let admitted = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .is_ok();
        admitted.then(|| SessionSlot(self.clone()))
    }

    /// Counts a refusal; logs the first of a burst (and how many the previous burst had).
    fn note_refusal(&self, peer: SocketAddr) {
        let total = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
        let now = std::time::Instant::now();
        let mut logged = self.logged.lock().unwrap_or_else(|e| e.into_inner());
        let new_burst = match *logged {
            Some((at, _)) => now.duration_since(at) >= REFUSAL_BURST_GAP,
            None => true,
        };
        if new_burst {
            let before = logged.map(|(_, count)| count).unwrap_or(0);
            warn!(%peer, max = self.max, refused_before = before, refused_total = total,
                  "server full: /ws upgrades refused with 503 (logged once per burst)");
            *logged = Some((now, total));
        } else if let Some((at, _)) = *logged {
            *logged = Some((at, total));
        }
    }
}

/// One open session's place under the connection cap; frees it when dropped.
#[derive(Debug)]
struct SessionSlot(Arc<ConnectionGate>);

impl Drop for SessionSlot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Server {
    /// Binds `config.addr` with the built-in [`NoAgentHandler`] for every session.
    ///
    /// # Errors
    /// The OS error when the address cannot be bound (in use, not local, no permission).
    pub fn bind(config: ServerConfig) -> io::Result<Server> {
        Self::bind_with_handler(config, Arc::new(|_| Box::new(NoAgentHandler) as _))
    }

    /// Binds `config.addr`; each new session gets a handler from `factory` (the
    /// seam where an agent or a UI worker plugs in).
    ///
    /// Logs at startup (and `/` says so) when `config.web_dir` has no `index.html`.
    ///
    /// # Errors
    /// The OS error when the address cannot be bound.
    pub fn bind_with_handler(
        config: ServerConfig,
        factory: Arc<dyn HandlerFactory>,
    ) -> io::Result<Server> {
        let listener = listen(config.addr)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        if let Some(dir) = &config.web_dir {
            if dir.join("index.html").is_file() {
                info!(web_dir = %dir.display(), "serving the demo page");
            } else {
                warn!("{}", messages::web_dir_missing_log(dir));
            }
        }
        Ok(Server {
            listener,
            local_addr,
            config,
            sessions: Sessions::new(),
            factory,
        })
    }

    /// The address actually bound (with the real port when `config.addr` had port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The registry of this server's sessions (a cheap clone; keeps working while serving).
    pub fn sessions(&self) -> Sessions {
        self.sessions.clone()
    }

    /// Serves until `shutdown` completes, then shuts down gracefully: stops accepting, sends
    /// every open session a close frame (1001, "Server shutting down"), and waits up to
    /// `2 × config.close_grace` for the sessions to end.
    ///
    /// # Errors
    /// An I/O error from the listener.
    pub async fn run_until<F>(self, shutdown: F) -> io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let listener = tokio::net::TcpListener::from_std(self.listener)?;
        let token = CancellationToken::new();
        let tracker = TaskTracker::new();
        let state = AppState {
            sessions: self.sessions.clone(),
            factory: self.factory.clone(),
            limits: SessionLimits::from_config(&self.config),
            shutdown: token.clone(),
            tracker: tracker.clone(),
            origins: Arc::new(OriginPolicy::new(&self.config.allowed_origins)),
            gate: Arc::new(ConnectionGate::new(self.config.max_connections)),
        };
        let app = router(state, self.config.web_dir.clone());
        info!(addr = %self.local_addr, "hark listening: RTVI at ws://{}/ws", self.local_addr);
        // Hyper's HTTP/1 server driven directly (axum::serve has no header-read timeout): a
        // connection that does not deliver a complete request head within
        // `header_read_timeout` (silent, trickling, or idle between requests) is dropped.
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new()).header_read_timeout(
            self.config
                .header_read_timeout
                .max(Duration::from_millis(1)),
        );
        let connections = TaskTracker::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let (tcp, peer) = tokio::select! {
                biased;
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(err) => {
                        // Per-connection failures (reset before accept) are harmless; others
                        // (out of file descriptors) get a pause so the loop does not spin.
                        debug!(%err, "accept failed");
                        if !is_connection_error(&err) {
                            warn!(%err, "accept failed; retrying in 1 s");
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                        continue;
                    }
                },
            };
            // RTVI messages are small and latency-bound: no Nagle delay on them.
            if let Err(err) = tcp.set_nodelay(true) {
                debug!(%err, "cannot set TCP_NODELAY");
            }
            // The session keeps a handle on the TCP connection to drain the client's input
            // after refusing it (the client reads the 1009 close frame).
            let (io, raw) = share(tcp);
            let service = TowerToHyperService::new(app.clone().map_request(
                move |mut request: Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request.extensions_mut().insert(raw.clone());
                    request
                },
            ));
            let connection = http
                .serve_connection(TokioIo::new(io), service)
                .with_upgrades();
            let stop = token.clone();
            connections.spawn(async move {
                let mut connection = std::pin::pin!(connection);
                tokio::select! {
                    done = connection.as_mut() => {
                        if let Err(err) = done {
                            debug!(%peer, %err, "connection ended");
                        }
                        return;
                    }
                    () = stop.cancelled() => connection.as_mut().graceful_shutdown(),
                }
                if let Err(err) = connection.await {
                    debug!(%peer, %err, "connection ended at shutdown");
                }
            });
        }
        info!("shutting down: closing open sessions");
        drop(listener);
        token.cancel();
        connections.close();
        if tokio::time::timeout(self.config.close_grace * 2, connections.wait())
            .await
            .is_err()
        {
            debug!(
                open = connections.len(),
                "HTTP connections still open after the grace period; dropping them"
            );
        }
        token.cancel();
        tracker.close();
        if tokio::time::timeout(self.config.close_grace * 2, tracker.wait())
            .await
            .is_err()
        {
            warn!(
                open = tracker.len(),
                "sessions still open after the shutdown grace period; dropping them"
            );
        }
        info!("stopped");
        Ok(())
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState").finish_non_exhaustive()
    }
}

fn router(state: AppState, web_dir: Option<PathBuf>) -> Router {
    let router = Router::new().route("/ws", get(ws_handler));
    let router = match web_dir {
        Some(dir) => {
            let hint_dir = dir.clone();
            let fallback = get(move |uri: Uri| {
                let dir = hint_dir.clone();
                async move { not_built(&uri, &dir) }
            });
            router.fallback_service(ServeDir::new(dir).fallback(fallback))
        }
        None => router
            .route("/", get(|| async { Html(messages::no_demo_page()) }))
            .route(FAVICON_PATH, get(|| async { no_favicon() })),
    };
    router.with_state(state)
}

/// The path every browser asks for when it opens a page.
const FAVICON_PATH: &str = "/favicon.ico";

/// The answer to `/favicon.ico` when the web directory has none: 204 No
/// Content, an answer with no icon rather than an embedded one, so the demo page (built from
/// web/, unchanged) shows the browser's default icon, and neither the browser's console nor
/// the log reports a missing file (as a 404 did). A `favicon.ico` in the web directory is
/// served instead (the static files come first). Browsers may keep the answer for a day.
fn no_favicon() -> Response {
    (
        StatusCode::NO_CONTENT,
        [(header::CACHE_CONTROL, "public, max-age=86400")],
    )
        .into_response()
}

fn not_built(uri: &Uri, dir: &std::path::Path) -> Response {
    if uri.path() == FAVICON_PATH {
        return no_favicon();
    }
    if uri.path() == "/" || uri.path() == "/index.html" {
        Html(messages::web_dir_missing_page(dir)).into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    }
}

/// Initial capacity of each connection's WebSocket read buffer, in bytes: 4 KiB instead of
/// tungstenite's 128 KiB (per-session memory: measured with hark-load's
/// `session_memory` example, 6.1 KiB after the upgrade and 11.9 KiB more after the first 11 KB
/// message, against 16.4 + 15 KiB with a 16 KiB buffer). A larger frame still arrives whole:
/// the buffer grows to the frame's length (up to `max_frame_bytes`); a frame is then read in
/// `read()` calls of at most this size (a 490 KiB snapshot: ~120 calls, a few more syscalls
/// beside its JSON decode).
const WS_READ_BUFFER_BYTES: usize = 4 * 1024;

async fn ws_handler(
    ws: WebSocketUpgrade,
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    raw: Option<Extension<RawConn>>,
    headers: HeaderMap,
) -> Response {
    if let Err(origin) = app.origins.check(&headers) {
        warn!(%peer, %origin, "WebSocket upgrade from a foreign origin refused (403)");
        return (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            messages::origin_refused(&origin),
        )
            .into_response();
    }
    let Some(slot) = app.gate.enter() else {
        app.gate.note_refusal(peer);
        let retry = crate::config::FULL_RETRY_AFTER_SECS;
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
                (header::RETRY_AFTER, retry.to_string()),
            ],
            messages::server_full(app.gate.max, retry),
        )
            .into_response();
    };
    let raw = raw.map(|Extension(raw)| raw);
    let token = app.tracker.token();
    let limit = app.limits.max_frame_bytes;
    ws.max_message_size(limit)
        .max_frame_size(limit)
        .read_buffer_size(WS_READ_BUFFER_BYTES)
        .on_upgrade(move |socket| {
            let id = app.sessions.next_id();
            let span = info_span!("session", id = %id);
            async move {
                let _tracked = token;
                let _slot = slot;
                info!(%peer, "session opened");
                let (sink, stream) = split_axum(socket);
                let handler = app.factory.create(id);
                let cause = run_connection(
                    sink,
                    stream,
                    ConnectionSetup {
                        id,
                        sessions: app.sessions.clone(),
                        handler,
                        limits: app.limits,
                        shutdown: app.shutdown.child_token(),
                        raw,
                    },
                )
                .await;
                info!(?cause, "session closed");
            }
            .instrument(span)
        })
}

/// The listen backlog asked for (the kernel caps it at `net.core.somaxconn`). std's
/// `TcpListener::bind` asks for 128, which a burst of connections overflows: the kernel then
/// drops handshakes, and a client can be left connected to a socket the server never accepts
/// (a client opening thousands of connections).
pub const LISTEN_BACKLOG: i32 = 4096;

/// Binds `addr` as std does (SO_REUSEADDR on Unix) with a [`LISTEN_BACKLOG`] backlog.
fn listen(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// Whether an accept error concerns only the one connection (the listener is fine).
fn is_connection_error(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Which `Origin`s may open `/ws`: none sent (a non-browser client), the server's own
/// (the `Origin`'s host:port equals the `Host` header's), and the configured ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OriginPolicy {
    any: bool,
    /// Normalised `scheme://host:port`.
    allowed: Vec<String>,
}

impl OriginPolicy {
    /// The policy of [`ServerConfig::allowed_origins`] (`*` allows every origin; entries that
    /// are no origin are ignored here: the command line checks them).
    pub(crate) fn new(allowed: &[String]) -> Self {
        let any = allowed.iter().any(|o| o.trim() == "*");
        let allowed = allowed
            .iter()
            .filter_map(|o| normalize_origin(o).ok())
            .map(|(scheme, host, port)| format!("{scheme}://{host}:{port}"))
            .collect();
        OriginPolicy { any, allowed }
    }

    /// `Ok` when the request may upgrade; `Err(origin)` with the refused `Origin` as sent.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(origin.as_bytes()).into_owned();
        if self.any {
            return Ok(());
        }
        let Ok((scheme, host, port)) = normalize_origin(&text) else {
            return Err(text);
        };
        if self.allowed.contains(&format!("{scheme}://{host}:{port}")) {
            return Ok(());
        }
        let same = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| split_host_port(h, default_port(&scheme)?))
            .is_some_and(|(h, p)| h == host && p == port);
        if same { Ok(()) } else { Err(text) }
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// `host[:port]` (IPv6 in brackets), lower-cased, with `default` when no port is given.
fn split_host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    let authority = authority.trim().to_ascii_lowercase();
    if authority.is_empty() || authority.contains(['/', '@', ' ']) {
        return None;
    }
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let host = format!("[{host}]");
        match after {
            "" => (host, default),
            p => (host, p.strip_prefix(':')?.parse().ok()?),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host.to_owned(), port.parse().ok()?),
            None => (authority.clone(), default),
        }
    };
    (!host.is_empty()).then_some((host, port))
}

/// An origin `scheme://host[:port]` (a trailing `/` tolerated) as (scheme, host, port), all
/// lower-case, the port defaulted from the scheme.
///
/// # Errors
/// A sentence saying what is wrong, for the command line.
pub(crate) fn normalize_origin(text: &str) -> Result<(String, String, u16), String> {
    let trimmed = text.trim();
    let bad = || {
        format!("{text:?} is not an origin: write scheme://host[:port], e.g. http://localhost:5173")
    };
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    let default = default_port(&scheme).ok_or_else(bad)?;
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = split_host_port(authority, default).ok_or_else(bad)?;
    Ok((scheme, host, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn origins_same_host_none_and_listed_pass() {
        let p = OriginPolicy::new(&[]);
        assert_eq!(p.check(&headers(None, "127.0.0.1:7860")), Ok(()));
        assert_eq!(
            p.check(&headers(Some("http://127.0.0.1:7860"), "127.0.0.1:7860")),
            Ok(())
        );
        assert_eq!(
            p.check(&headers(Some("http://LOCALHOST"), "localhost:80")),
            Ok(())
        );
        assert_eq!(
            p.check(&headers(Some("http://[::1]:7860"), "[::1]:7860")),
            Ok(())
        );
        // Host carries no scheme: same host:port is same-origin whatever the scheme (a TLS proxy).
        assert_eq!(
            p.check(&headers(Some("https://127.0.0.1:7860"), "127.0.0.1:7860")),
            Ok(())
        );
        for foreign in [
            "http://evil.example",
            "http://127.0.0.1:9999",
            "null",
            "http://127.0.0.1",
        ] {
            assert_eq!(
                p.check(&headers(Some(foreign), "127.0.0.1:7860")),
                Err(foreign.to_owned()),
                "{foreign}"
            );
        }
        let listed = OriginPolicy::new(&["http://evil.example/".to_owned()]);
        assert_eq!(
            listed.check(&headers(Some("http://evil.example:80"), "127.0.0.1:7860")),
            Ok(())
        );
        assert!(
            listed
                .check(&headers(Some("https://evil.example"), "x"))
                .is_err()
        );
        let any = OriginPolicy::new(&["*".to_owned()]);
        assert_eq!(any.check(&headers(Some("null"), "127.0.0.1:7860")), Ok(()));
    }

    #[test]
    fn origin_syntax_is_checked() {
        assert_eq!(
            normalize_origin("HTTP://Example.com:8080/"),
            Ok(("http".into(), "example.com".into(), 8080))
        );
        for bad in [
            "example.com",
            "ftp://x",
            "http://",
            "http://a/b",
            "http://a:port",
        ] {
            let err = normalize_origin(bad).unwrap_err();
            assert!(err.contains("is not an origin"), "{err}");
        }
    }
}
