//! Shared helpers of the WebSocket and browser tests: an in-process server and an RTVI test client.
#![allow(dead_code)] // each test binary uses a different subset

pub mod chromium;
pub mod hooks;

pub mod voice;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use hark_rtvi::frame::{decode_frame, encode_message_json};
use hark_server::{
    HandlerFactory, Server, ServerConfig, SessionEvent, SessionEventKind, SessionId, Sessions,
};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{broadcast, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Hang guard for one awaited step (not a timing assertion: a correct server answers at once).
pub const STEP: Duration = Duration::from_secs(30);

/// The test client's socket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A server running in this process on 127.0.0.1:0.
pub struct TestServer {
    pub addr: SocketAddr,
    pub sessions: Sessions,
    stop: Option<oneshot::Sender<()>>,
    join: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    pub fn start(config: ServerConfig) -> Self {
        Self::start_with(config, None)
    }

    pub fn start_with(config: ServerConfig, factory: Option<Arc<dyn HandlerFactory>>) -> Self {
        let server = match factory {
            Some(f) => Server::bind_with_handler(config, f),
            None => Server::bind(config),
        }
        .expect("bind 127.0.0.1:0");
        let addr = server.local_addr();
        let sessions = server.sessions();
        let (stop, stopped) = oneshot::channel::<()>();
        let join = tokio::spawn(server.run_until(async {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            sessions,
            stop: Some(stop),
            join: Some(join),
        }
    }

    pub fn local() -> Self {
        Self::start(ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()))
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// Triggers shutdown and waits for `run_until` to return.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(join) = self.join.take() {
            tokio::time::timeout(STEP, join)
                .await
                .expect("run_until returns after shutdown")
                .expect("server task")
                .expect("server result");
        }
    }
}

pub async fn connect(server: &TestServer) -> Ws {
    let (ws, _) = tokio::time::timeout(STEP, tokio_tungstenite::connect_async(server.ws_url()))
        .await
        .expect("connect in time")
        .expect("connect");
    ws
}

/// An RTVI envelope as JSON text.
pub fn envelope(type_: &str, id: &str, data: Value) -> String {
    serde_json::json!({"label": "rtvi-ai", "type": type_, "id": id, "data": data}).to_string()
}

/// One binary WebSocket message holding `json` in a pipecat.Frame MessageFrame.
pub fn frame(json: &str) -> Message {
    Message::Binary(encode_message_json(json).into())
}

pub async fn send_json(ws: &mut Ws, json: &str) {
    ws.send(frame(json)).await.expect("send");
}

/// The next data message, which must be a binary pipecat.Frame with RTVI JSON; returns the JSON.
pub async fn recv_json(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("a server message in time")
            .expect("socket open")
            .expect("socket ok");
        match msg {
            Message::Binary(bytes) => {
                let frame = decode_frame(&bytes).expect("server frames are pipecat.Frame");
                let json = frame.message_json().expect("a MessageFrame");
                return serde_json::from_str(json).expect("RTVI JSON");
            }
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected a binary frame, got {other:?}"),
        }
    }
}

/// Does the handshake and returns the bot-ready JSON.
pub async fn handshake(ws: &mut Ws, id: &str) -> Value {
    send_json(
        ws,
        &envelope(
            "client-ready",
            id,
            serde_json::json!({"version": "2.1.0", "about": {"library": "test-client", "library_version": "0"}}),
        ),
    )
    .await;
    let ready = recv_json(ws).await;
    assert_eq!(ready["type"], "bot-ready", "{ready}");
    ready
}

/// Waits for the first event matching `pick` and returns what it picked.
pub async fn wait_for<T>(
    events: &mut broadcast::Receiver<SessionEvent>,
    mut pick: impl FnMut(&SessionEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(STEP, async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(t) = pick(&event) {
                        return t;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => panic!("event channel closed"),
            }
        }
    })
    .await
    .expect("the awaited session event in time")
}

/// Waits for a session to become ready and returns its id.
pub async fn wait_ready(events: &mut broadcast::Receiver<SessionEvent>) -> SessionId {
    wait_for(events, |e| {
        matches!(e.kind, SessionEventKind::Ready { .. }).then_some(e.session)
    })
    .await
}

/// Sends a `client-message` ping and checks the `server-response`: the session is alive.
pub async fn assert_alive(ws: &mut Ws, id: &str) {
    send_json(
        ws,
        &envelope(
            "client-message",
            id,
            serde_json::json!({"t": "ping", "d": {"n": 1}}),
        ),
    )
    .await;
    let reply = recv_json(ws).await;
    assert_eq!(reply["type"], "server-response", "{reply}");
    assert_eq!(reply["id"], id);
    assert_eq!(reply["data"]["t"], "ping");
    assert_eq!(reply["data"]["d"]["n"], 1);
}
