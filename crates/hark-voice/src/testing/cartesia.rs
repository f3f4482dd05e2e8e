//! A scripted Cartesia TTS WebSocket server on loopback: the test double for [`crate::CartesiaTts`].
//!
//! [`CartesiaServer::start`] binds `127.0.0.1:0` and serves `/tts/websocket`. Each connection's
//! handshake takes the next scripted [`Handshake`] (accepted when none is left); each generation
//! request, on whatever connection, takes the next script of [`CartesiaStep`]s, played on that
//! request's `context_id` in Cartesia's message shapes: audio chunks (base64 PCM), timestamps,
//! delays and waits, `done`, an `error`, a close frame, a TCP connection cut without one. A
//! cancel stops that context's script. Everything is recorded: each connection's path, query and
//! headers, each JSON message with its connection, and the cancels.
//!
//! Not for production: it trusts its client and keeps everything in memory.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use super::Gate;

/// One step of a context's script.
#[derive(Debug, Clone)]
pub enum CartesiaStep {
    /// A `chunk` message carrying these bytes (base64, any count, odd too).
    Audio(Vec<u8>),
    /// A `chunk` message whose `data` is this text as it is (not base64, for tests of bad data).
    Data(String),
    /// A `timestamps` message with one word.
    Timestamps,
    /// This text message as it is (the context is not filled in).
    Raw(String),
    /// Wait this long.
    Delay(Duration),
    /// Wait until the test calls [`Gate::open`].
    Wait(Gate),
    /// The `done` message.
    Done,
    /// An `error` message with `status_code`, `title` and `message` (`done: true`).
    Error {
        /// The HTTP-like status.
        status: u16,
        /// Cartesia's short summary (`Invalid voice`).
        title: String,
        /// Its longer words.
        message: String,
    },
    /// A close frame (code 1000, reason `scripted close`); the connection ends.
    Close,
    /// The TCP connection dropped without a close frame.
    Cut,
}

impl CartesiaStep {
    /// The chunk of these PCM16 samples.
    pub fn samples(samples: &[i16]) -> Self {
        CartesiaStep::Audio(samples.iter().flat_map(|s| s.to_le_bytes()).collect())
    }

    /// Cartesia's error `status` with `title` and `message`.
    pub fn error(status: u16, title: &str, message: &str) -> Self {
        CartesiaStep::Error {
            status,
            title: title.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// How one connection's handshake is answered.
#[derive(Debug, Clone)]
pub enum Handshake {
    /// Upgraded to a WebSocket.
    Accept,
    /// Refused with this status and JSON body `{"error_code", "title", "message", "request_id"}`.
    Refuse {
        /// The status (401 for a bad key).
        status: u16,
        /// `title`.
        title: String,
        /// `message`.
        message: String,
    },
}

impl Handshake {
    /// A refusal with `status`, `title` and `message`.
    pub fn refuse(status: u16, title: &str, message: &str) -> Self {
        Handshake::Refuse {
            status,
            title: title.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// One connection the server received.
#[derive(Debug, Clone)]
pub struct RecordedConnection {
    /// The path (`/tts/websocket`).
    pub path: String,
    /// The query string, empty when none.
    pub query: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
}

impl RecordedConnection {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One JSON message the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedMessage {
    /// Which connection it came on (0 for the first).
    pub connection: usize,
    /// The message (`Value::Null` when it was not JSON).
    pub json: Value,
}

#[derive(Debug, Default)]
struct Shared {
    handshakes: Mutex<VecDeque<Handshake>>,
    scripts: Mutex<VecDeque<Vec<CartesiaStep>>>,
    connections: Mutex<Vec<RecordedConnection>>,
    messages: Mutex<Vec<RecordedMessage>>,
    cancels: Mutex<Vec<String>>,
    changed: Notify,
}

/// The server. Dropping it stops it.
#[derive(Debug)]
pub struct CartesiaServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for CartesiaServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CartesiaServer {
    /// Binds `127.0.0.1:0`; accepts every handshake and plays `scripts` in the order the
    /// requests arrive.
    pub async fn start(scripts: Vec<Vec<CartesiaStep>>) -> Self {
        Self::start_with(Vec::new(), scripts).await
    }

    /// As [`CartesiaServer::start`], the first connections' handshakes answered by
    /// `handshakes` in order.
    pub async fn start_with(handshakes: Vec<Handshake>, scripts: Vec<Vec<CartesiaStep>>) -> Self {
        let shared = Arc::new(Shared::default());
        shared.handshakes.lock().unwrap().extend(handshakes);
        shared.scripts.lock().unwrap().extend(scripts);
        let app = Router::new()
            .route("/tts/websocket", get(handle))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, shared, task }
    }

    /// `ws://127.0.0.1:PORT/tts/websocket`, the `base_url` to give a client.
    pub fn url(&self) -> String {
        format!("ws://{}/tts/websocket", self.addr)
    }

    /// Adds scripts after those given at the start.
    pub fn push_scripts(&self, scripts: Vec<Vec<CartesiaStep>>) {
        self.shared.scripts.lock().unwrap().extend(scripts);
    }

    /// Every connection so far (refused ones too).
    pub fn connections(&self) -> Vec<RecordedConnection> {
        self.shared.connections.lock().unwrap().clone()
    }

    /// Every JSON message so far, in order.
    pub fn messages(&self) -> Vec<RecordedMessage> {
        self.shared.messages.lock().unwrap().clone()
    }

    /// The generation requests so far (the messages with a `transcript`).
    pub fn requests(&self) -> Vec<RecordedMessage> {
        self.messages()
            .into_iter()
            .filter(|m| m.json.get("transcript").is_some())
            .collect()
    }

    /// The contexts cancelled so far, in order.
    pub fn cancels(&self) -> Vec<String> {
        self.shared.cancels.lock().unwrap().clone()
    }

    /// Waits until `context_id` has been cancelled, at most `limit`; whether it was.
    pub async fn wait_cancel(&self, context_id: &str, limit: Duration) -> bool {
        self.wait_until(limit, |s| s.cancels().iter().any(|c| c == context_id))
            .await
    }

    /// Waits until `done(self)` holds, at most `limit`; whether it did.
    pub async fn wait_until(&self, limit: Duration, done: impl Fn(&Self) -> bool) -> bool {
        let wait = async {
            loop {
                let changed = self.shared.changed.notified();
                if done(self) {
                    return;
                }
                changed.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let connection = {
        let mut connections = shared.connections.lock().unwrap();
        connections.push(RecordedConnection {
            path: uri.path().to_owned(),
            query: uri.query().unwrap_or("").to_owned(),
            headers: headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_ascii_lowercase(),
                        v.to_str().unwrap_or("").to_owned(),
                    )
                })
                .collect(),
        });
        connections.len() - 1
    };
    shared.changed.notify_waiters();
    let handshake = shared.handshakes.lock().unwrap().pop_front();
    match handshake {
        Some(Handshake::Refuse {
            status,
            title,
            message,
        }) => {
            let body = json!({"error_code": null, "title": title, "message": message,
                              "request_id": "00000000-0000-0000-0000-000000000000"});
            (
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response()
        }
        Some(Handshake::Accept) | None => {
            upgrade.on_upgrade(move |socket| serve(socket, shared, connection))
        }
    }
}

/// What a context's player asks the connection to do.
enum Out {
    Text(String),
    Close,
    Cut,
}

async fn serve(mut socket: WebSocket, shared: Arc<Shared>, connection: usize) {
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Out>();
    let mut players: HashMap<String, JoinHandle<()>> = HashMap::new();
    loop {
        tokio::select! {
            message = socket.recv() => match message {
                Some(Ok(Message::Text(text))) => {
                    let json: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
                    shared.messages.lock().unwrap().push(RecordedMessage {
                        connection,
                        json: json.clone(),
                    });
                    let context_id = json
                        .get("context_id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    if json.get("cancel").and_then(Value::as_bool) == Some(true) {
                        if let Some(player) = players.remove(&context_id) {
                            player.abort();
                        }
                        shared.cancels.lock().unwrap().push(context_id);
                    } else if json.get("transcript").is_some() {
                        let script = shared.scripts.lock().unwrap().pop_front();
                        let script = script.unwrap_or_else(|| {
                            vec![CartesiaStep::error(500, "No script", "no scripted reply left")]
                        });
                        let player = tokio::spawn(play(script, context_id.clone(), out_tx.clone()));
                        players.insert(context_id, player);
                    }
                    shared.changed.notify_waiters();
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            out = out_rx.recv() => match out {
                Some(Out::Text(text)) => {
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                Some(Out::Close) => {
                    let frame = CloseFrame { code: 1000, reason: "scripted close".into() };
                    let _ = socket.send(Message::Close(Some(frame))).await;
                    break;
                }
                // Dropping the socket without a close frame.
                Some(Out::Cut) | None => break,
            },
        }
    }
    for (_, player) in players {
        player.abort();
    }
}

async fn play(steps: Vec<CartesiaStep>, context_id: String, out: mpsc::UnboundedSender<Out>) {
    let b64 = base64::engine::general_purpose::STANDARD;
    for step in steps {
        let message = match step {
            CartesiaStep::Audio(bytes) => chunk(&b64.encode(bytes), &context_id),
            CartesiaStep::Data(data) => chunk(&data, &context_id),
            CartesiaStep::Timestamps => json!({
                "type": "timestamps", "done": false, "status_code": 206, "context_id": context_id,
                "word_timestamps": {"words": ["Hello"], "start": [0.0], "end": [0.4]}
            })
            .to_string(),
            CartesiaStep::Raw(text) => text,
            CartesiaStep::Delay(d) => {
                tokio::time::sleep(d).await;
                continue;
            }
            CartesiaStep::Wait(gate) => {
                gate.0.notified().await;
                continue;
            }
            CartesiaStep::Done => json!({
                "type": "done", "done": true, "status_code": 206, "context_id": context_id
            })
            .to_string(),
            CartesiaStep::Error {
                status,
                title,
                message,
            } => json!({
                "type": "error", "done": true, "status_code": status, "error_code": null,
                "title": title, "message": message,
                "request_id": format!("00000000-0000-0000-0000-000000000000:{context_id}"),
                "context_id": context_id
            })
            .to_string(),
            CartesiaStep::Close => {
                let _ = out.send(Out::Close);
                return;
            }
            CartesiaStep::Cut => {
                let _ = out.send(Out::Cut);
                return;
            }
        };
        if out.send(Out::Text(message)).is_err() {
            return;
        }
    }
}

fn chunk(data: &str, context_id: &str) -> String {
    json!({
        "type": "chunk", "data": data, "done": false, "status_code": 206, "step_time": 12,
        "context_id": context_id
    })
    .to_string()
}
