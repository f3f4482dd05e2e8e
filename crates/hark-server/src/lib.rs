//! hark-server: RTVI over WebSocket for Pipecat's JS client, the demo page, and the `hark` binary.
//!
//! A [`Server`] listens on one address and serves:
//! - `/ws`: one RTVI session per WebSocket (binary protobuf `pipecat.Frame`s carrying RTVI JSON,
//!   as pipecat's transport does): the `client-ready` → `bot-ready` handshake, `send-text` (and a
//!   `TranscriptionFrame` with text, taken as a `send-text`),
//!   `client-message`, `ui-snapshot`, `ui-event`, `ui-cancel-job-group`; bad input gets an
//!   `error-response` or `error` and never a panic; an oversize frame closes the socket with 1009;
//!   `disconnect-bot` closes it with 1000 "Client asked to disconnect".
//! - Connection hygiene ([`ServerConfig`], each also a `hark serve` flag and env var): an HTTP
//!   request head must arrive within `header_read_timeout` (hyper's HTTP/1 server is driven
//!   directly for this, as `axum::serve` has no such knob); `client-ready` within
//!   `client_ready_timeout` (else close 1008); keep-alive pings every `ping_interval`, answered
//!   within `pong_timeout` (else close 1011); an identical `error` text goes to one session at
//!   most once per `error_repeat_window`; `/ws` upgrades from foreign `Origin`s get 403 unless
//!   listed in `allowed_origins`.
//! - Hostile-input limits (each a [`ServerConfig`] field and `hark serve` flag):
//!   a per-session token bucket of `max_messages_per_sec` data messages a second in bursts of
//!   `message_burst` (messages over it are dropped undecoded, counted in
//!   [`SessionStats::messages_rate_limited`], one `error` per episode); a client over 10 × the
//!   rate every second for `flood_close_after` is closed with 1008
//!   ([`CloseCause::MessageFlood`]); a `ui-snapshot` over `max_snapshot_bytes`, deeper than
//!   `max_snapshot_depth` or with more than `max_snapshot_nodes` nodes is refused with an
//!   `error-response`; a UI worker keeps at most `max_pending_jobs` jobs and
//!   `max_ui_events_in_flight` app UI-event handlers per session ([`HandlerLimits`]); beyond
//!   `max_connections` open sessions `/ws` answers 503 with `Retry-After`.
//! - `/`: the demo page from [`ServerConfig::web_dir`] (or a page saying how to build it).
//!
//! Each session hands typed [`SessionInput`]s to a [`SessionHandler`] (the seam where an agent
//! or UI worker plugs in; [`NoAgentHandler`] until then) and publishes [`SessionEvent`]s on the
//! [`Sessions`] registry, which also keeps each session's latest snapshot and sends server
//! messages (e.g. `ui-command`s) to a session.
//!
//! [`UiHandlerFactory`] ([`ui_session`]) runs a hark-ui [`hark_ui::UiWorker`] per session:
//! snapshots, UI events and job-group cancels go to it, its commands and `ui-job-group`
//! envelopes go to the client; `hark serve --demo` uses it. With
//! [`UiSessionConfig::voice_agent`] each session also runs a hark-agent voice agent beside the
//! worker ([`agent_session`]); [`serve`] builds that from an agent file (`hark serve --agent`).
//!
//! # Example
//!
//! A server on a free port, a client that does the handshake, and a `ui-command` sent to it:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use futures::{SinkExt, StreamExt};
//! use hark_rtvi::frame::{decode_frame, encode_message_json};
//! use hark_rtvi::message::ServerMessage;
//! use hark_rtvi::ui::UiCommand;
//! use hark_server::{Server, ServerConfig, SessionEventKind};
//! use tokio_tungstenite::tungstenite::Message;
//!
//! let server = Server::bind(ServerConfig::with_addr("127.0.0.1:0".parse()?))?;
//! let addr = server.local_addr();
//! let sessions = server.sessions();
//! let mut events = sessions.subscribe();
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let serving = tokio::spawn(server.run_until(async { let _ = stopped.await; }));
//!
//! let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await?;
//! let hello = r#"{"label":"rtvi-ai","type":"client-ready","id":"a1b2c3d4","data":{"version":"2.1.0"}}"#;
//! ws.send(Message::Binary(encode_message_json(hello).into())).await?;
//! let reply = ws.next().await.unwrap()?.into_data();
//! let json: serde_json::Value = serde_json::from_str(decode_frame(&reply)?.message_json().unwrap())?;
//! assert_eq!((json["type"].as_str(), json["id"].as_str()), (Some("bot-ready"), Some("a1b2c3d4")));
//! assert_eq!(json["data"]["version"], "2.2.0");
//!
//! // The server side saw the session become ready; send it a command.
//! let id = loop {
//!     let event = events.recv().await?;
//!     if let SessionEventKind::Ready { .. } = event.kind { break event.session; }
//! };
//! sessions.send(id, ServerMessage::UiCommand(UiCommand::click("e7"))).await?;
//! let frame = ws.next().await.unwrap()?.into_data();
//! let json: serde_json::Value = serde_json::from_str(decode_frame(&frame)?.message_json().unwrap())?;
//! assert_eq!(json["type"], "ui-command");
//! assert_eq!(json["data"]["command"], "click");
//!
//! stop.send(()).unwrap();
//! serving.await??;
//! # Ok(())
//! # }
//! ```

pub mod agent_events;
pub mod agent_session;
pub mod bus_worker;
pub mod check;
pub mod cli;
pub mod config;
pub mod demo;
#[cfg(doctest)]
pub mod guide_doctests;
pub mod log_filter;
pub mod messages;
pub mod offline_voice;
pub mod serve;
pub mod server;
pub mod session;
pub mod sessions;
pub mod socket;
pub mod ui_session;
mod wire;

pub use agent_session::{OutboxOutput, VoiceAgentConfig};
pub use config::ServerConfig;
pub use server::Server;
pub use session::{
    HandlerFactory, HandlerLimits, NoAgentHandler, Outbound, Outbox, Outgoing, SendError,
    SessionHandler, SessionInput, run_connection,
};
pub use sessions::{CloseCause, SessionEvent, SessionEventKind, SessionId, SessionStats, Sessions};
pub use ui_session::{
    RemoteBusConfig, UiHandlerFactory, UiSession, UiSessionConfig, UiSessionHandler, UiSetupError,
};
