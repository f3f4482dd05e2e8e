//! The HTTP side: binding, routes (`/ws` for RTVI, static demo page at `/`), graceful shutdown.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::services::ServeDir;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::config::ServerConfig;
use crate::messages;
use crate::registry::Sessions;
use crate::session::{
    ConnectionSetup, HandlerFactory, NoAgentHandler, SessionLimits, run_connection,
};
use crate::socket::split_axum;

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
}

impl Server {
    /// Binds `config.addr` with the built-in [`NoAgentHandler`] for every session.
    ///
    /// # Errors
    /// The OS error when the address cannot be bound (in use, not local, no permission).
    pub fn bind(config: ServerConfig) -> io::Result<Server> {
        Self::bind_with_handler(config, Arc::new(|_| Box::new(NoAgentHandler) as _))
    }

    /// Binds `config.addr`; each new session gets a handler from `factory` (issue 2, point 6:
    /// the seam where an agent or a UI worker plugs in).
    ///
    /// Logs at startup (and `/` says so) when `config.web_dir` has no `index.html`.
    ///
    /// # Errors
    /// The OS error when the address cannot be bound.
    pub fn bind_with_handler(
        config: ServerConfig,
        factory: Arc<dyn HandlerFactory>,
    ) -> io::Result<Server> {
        let listener = std::net::TcpListener::bind(config.addr)?;
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
        };
        let app = router(state, self.config.web_dir.clone());
        info!(addr = %self.local_addr, "hark listening: RTVI at ws://{}/ws", self.local_addr);
        let signal_token = token.clone();
        // RTVI messages are small and latency-bound: no Nagle delay on them.
        let listener = listener.tap_io(|tcp| {
            if let Err(err) = tcp.set_nodelay(true) {
                debug!(%err, "cannot set TCP_NODELAY");
            }
        });
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            tokio::select! {
                () = shutdown => {}
                () = signal_token.cancelled() => {}
            }
            info!("shutting down: closing open sessions");
            signal_token.cancel();
        })
        .await?;
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
        None => router.route("/", get(|| async { Html(messages::no_demo_page()) })),
    };
    router.with_state(state)
}

fn not_built(uri: &Uri, dir: &std::path::Path) -> Response {
    if uri.path() == "/" || uri.path() == "/index.html" {
        Html(messages::web_dir_missing_page(dir)).into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    }
}

async fn ws_handler(
    ws: WebSocketUpgrade,
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
) -> Response {
    let token = app.tracker.token();
    let limit = app.limits.max_frame_bytes;
    ws.max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| {
            let id = app.sessions.next_id();
            let span = info_span!("session", id = %id);
            async move {
                let _tracked = token;
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
                    },
                )
                .await;
                info!(?cause, "session closed");
            }
            .instrument(span)
        })
}
