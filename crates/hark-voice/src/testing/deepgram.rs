//! A scripted Deepgram live server on loopback: the test double of `wss://api.deepgram.com/v1/listen`
//! (the wire described in [`crate::deepgram`]).
//!
//! [`ScriptedDeepgram::start`] binds `127.0.0.1:0` (axum, WebSocket) and plays one
//! [`DeepgramScript`] per connection, in order: a refused handshake (an HTTP status with
//! Deepgram's `{"err_code","err_msg","request_id"}` body and its `dg-error` header), or
//! [`DgStep`]s on the open socket: wait for audio or for `Finalize`, send `Results`, close with a
//! code, cut the TCP connection, or go silent. A script that runs out answers `CloseStream` as
//! Deepgram does (a `Metadata` message, then close 1000). Every connection is recorded
//! ([`DeepgramConnection`]): query, headers, the audio bytes and the text (control) messages.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::header_list;

/// What the server does on one connection.
#[derive(Debug, Clone)]
pub enum DeepgramScript {
    /// Refuse the handshake with this status and JSON body (and a `dg-error` header).
    Refuse {
        /// The HTTP status.
        status: u16,
        /// Deepgram's error body.
        body: Value,
    },
    /// Upgrade, then play these steps.
    Steps(Vec<DgStep>),
}

impl DeepgramScript {
    /// A refused handshake as Deepgram refuses one: `status` with
    /// `{"err_code": code, "err_msg": message, "request_id": …}`.
    pub fn refuse(status: u16, code: &str, message: &str) -> Self {
        Self::Refuse {
            status,
            body: json!({"err_code": code, "err_msg": message,
                         "request_id": "00000000-0000-0000-0000-000000000000"}),
        }
    }
}

/// One step of an open connection's script.
#[derive(Debug, Clone)]
pub enum DgStep {
    /// Wait until this many audio bytes arrived on the connection in all.
    AwaitAudio(usize),
    /// Wait for the client's `{"type":"Finalize"}`.
    AwaitFinalize,
    /// Send this JSON as a text message.
    Send(Value),
    /// Wait this long.
    Delay(Duration),
    /// Send a close frame with this code and reason, and end the connection.
    Close(u16, String),
    /// Drop the TCP connection without a close frame.
    Cut,
    /// Answer nothing more (not even `CloseStream`) until the client goes away.
    Hang,
}

impl DgStep {
    /// An interim `Results` message (`is_final: false`).
    pub fn interim(text: &str) -> Self {
        Self::Send(results(text, false, false, false))
    }

    /// A final `Results` message (`is_final: true`, `speech_final: true`).
    pub fn final_result(text: &str) -> Self {
        Self::Send(results(text, true, true, false))
    }

    /// The final `Results` message that answers `Finalize` (`from_finalize: true`).
    pub fn finalized(text: &str) -> Self {
        Self::Send(results(text, true, false, true))
    }

    /// A `SpeechStarted` message.
    pub fn speech_started() -> Self {
        Self::Send(json!({"type": "SpeechStarted", "channel": [0], "timestamp": 0.0}))
    }

    /// An `UtteranceEnd` message.
    pub fn utterance_end() -> Self {
        Self::Send(json!({"type": "UtteranceEnd", "channel": [0, 1], "last_word_end": 1.0}))
    }
}

/// A `Results` message as Deepgram's live API sends it.
pub fn results(text: &str, is_final: bool, speech_final: bool, from_finalize: bool) -> Value {
    json!({
        "type": "Results",
        "channel_index": [0, 1],
        "duration": 1.0,
        "start": 0.0,
        "is_final": is_final,
        "speech_final": speech_final,
        "from_finalize": from_finalize,
        "channel": {"alternatives": [{"transcript": text, "confidence": 0.98, "words": []}]},
        "metadata": {"request_id": "00000000-0000-0000-0000-000000000000",
                     "model_info": {"name": "general-nova-3", "version": "1", "arch": "nova-3"},
                     "model_uuid": "00000000-0000-0000-0000-000000000000"}
    })
}

fn metadata() -> Value {
    json!({"type": "Metadata", "transaction_key": "deprecated",
           "request_id": "00000000-0000-0000-0000-000000000000",
           "sha256": "", "created": "2026-01-01T00:00:00.000Z", "duration": 1.0, "channels": 1})
}

/// What one connection brought.
#[derive(Debug, Clone, Default)]
pub struct DeepgramConnection {
    /// The handshake's query parameters, in order (percent-decoded).
    pub query: Vec<(String, String)>,
    /// The handshake's header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// Every binary message's bytes, joined.
    pub audio: Vec<u8>,
    /// Every text message, in order.
    pub texts: Vec<String>,
    /// The client sent a close frame or went away.
    pub ended: bool,
}

impl DeepgramConnection {
    /// The query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `type` of each text message, in order (`Finalize`, `CloseStream`, …).
    pub fn control_types(&self) -> Vec<String> {
        self.texts
            .iter()
            .map(|t| {
                serde_json::from_str::<Value>(t)
                    .ok()
                    .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
                    .unwrap_or_else(|| t.clone())
            })
            .collect()
    }
}

#[derive(Default)]
struct Shared {
    scripts: Mutex<VecDeque<DeepgramScript>>,
    connections: Mutex<Vec<DeepgramConnection>>,
    changed: Notify,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shared")
    }
}

/// The server. Dropping it stops it.
#[derive(Debug)]
pub struct ScriptedDeepgram {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for ScriptedDeepgram {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedDeepgram {
    /// Binds `127.0.0.1:0` and plays `scripts`, one per connection, in order (a connection
    /// beyond them is refused with 500).
    pub async fn start(scripts: Vec<DeepgramScript>) -> Self {
        let shared = Arc::new(Shared::default());
        shared.scripts.lock().unwrap().extend(scripts);
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, shared, task }
    }

    /// `ws://127.0.0.1:PORT/v1/listen`, the `base_url` to give a client.
    pub fn url(&self) -> String {
        format!("ws://{}/v1/listen", self.addr)
    }

    /// Every connection so far (refused ones too: their query and headers).
    pub fn connections(&self) -> Vec<DeepgramConnection> {
        self.shared.connections.lock().unwrap().clone()
    }

    /// Waits until connection `index` has ended (the client closed or went away), at most
    /// `limit`; whether it did.
    pub async fn wait_ended(&self, index: usize, limit: Duration) -> bool {
        let wait = async {
            loop {
                let notified = self.shared.changed.notified();
                if self.connections().get(index).is_some_and(|c| c.ended) {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let record = DeepgramConnection {
        query: parse_query(query.as_deref().unwrap_or("")),
        headers: header_list(&headers),
        ..DeepgramConnection::default()
    };
    let index = {
        let mut connections = shared.connections.lock().unwrap();
        connections.push(record);
        connections.len() - 1
    };
    let script = shared.scripts.lock().unwrap().pop_front();
    let steps = match script {
        None => {
            return refuse(
                500,
                &json!({"err_code": "NO_SCRIPT", "err_msg": "no script left"}),
            );
        }
        Some(DeepgramScript::Refuse { status, body }) => return refuse(status, &body),
        Some(DeepgramScript::Steps(steps)) => steps,
    };
    let Ok(upgrade) = upgrade else {
        return refuse(
            400,
            &json!({"err_code": "NOT_WEBSOCKET", "err_msg": "expected a WebSocket upgrade"}),
        );
    };
    upgrade.on_upgrade(move |socket| play(socket, shared, index, steps))
}

fn refuse(status: u16, body: &Value) -> Response {
    let status = axum::http::StatusCode::from_u16(status)
        .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    let message = body
        .get("err_msg")
        .and_then(|m| m.as_str())
        .unwrap_or("")
        .to_owned();
    (
        status,
        [
            ("content-type", "application/json".to_owned()),
            ("dg-error", message),
        ],
        body.to_string(),
    )
        .into_response()
}

/// What the reader has seen, checked by a step's wait.
fn seen<T>(shared: &Shared, index: usize, f: impl Fn(&DeepgramConnection) -> T) -> T {
    let connections = shared.connections.lock().unwrap();
    f(&connections[index])
}

/// Waits until `done` holds for the connection; `false` if the client went away first.
async fn wait_for(
    shared: &Shared,
    index: usize,
    done: impl Fn(&DeepgramConnection) -> bool,
) -> bool {
    loop {
        let notified = shared.changed.notified();
        let (ok, ended) = seen(shared, index, |c| (done(c), c.ended));
        if ok {
            return true;
        }
        if ended {
            return false;
        }
        notified.await;
    }
}

fn has_control(c: &DeepgramConnection, kind: &str) -> bool {
    c.control_types().iter().any(|t| t == kind)
}

async fn play(socket: WebSocket, shared: Arc<Shared>, index: usize, steps: Vec<DgStep>) {
    let (mut tx, mut rx) = socket.split();
    let reader_shared = shared.clone();
    let reader = tokio::spawn(async move {
        while let Some(Ok(message)) = rx.next().await {
            let mut connections = reader_shared.connections.lock().unwrap();
            let c = &mut connections[index];
            match message {
                Message::Binary(b) => c.audio.extend_from_slice(&b),
                Message::Text(t) => c.texts.push(t.as_str().to_owned()),
                Message::Close(_) => break,
                _ => {}
            }
            drop(connections);
            reader_shared.changed.notify_waiters();
        }
        reader_shared.connections.lock().unwrap()[index].ended = true;
        reader_shared.changed.notify_waiters();
        rx
    });
    for step in steps {
        match step {
            DgStep::AwaitAudio(n) => {
                if !wait_for(&shared, index, |c| c.audio.len() >= n).await {
                    return;
                }
            }
            DgStep::AwaitFinalize => {
                if !wait_for(&shared, index, |c| has_control(c, "Finalize")).await {
                    return;
                }
            }
            DgStep::Send(value) => {
                if tx
                    .send(Message::Text(value.to_string().into()))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            DgStep::Delay(d) => tokio::time::sleep(d).await,
            DgStep::Close(code, reason) => {
                let frame = CloseFrame {
                    code,
                    reason: reason.into(),
                };
                let _ = tx.send(Message::Close(Some(frame))).await;
                let _ = tokio::time::timeout(Duration::from_secs(2), reader).await;
                return;
            }
            DgStep::Cut => {
                // Both halves dropped: the upgraded TCP stream closes with no close frame.
                reader.abort();
                let _ = reader.await;
                drop(tx);
                return;
            }
            DgStep::Hang => {
                let _ = reader.await;
                return;
            }
        }
    }
    // As Deepgram answers CloseStream: the summary, then a normal close.
    if wait_for(&shared, index, |c| has_control(c, "CloseStream")).await {
        let _ = tx.send(Message::Text(metadata().to_string().into())).await;
        let frame = CloseFrame {
            code: 1000,
            reason: "".into(),
        };
        let _ = tx.send(Message::Close(Some(frame))).await;
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), reader).await;
}

fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else if bytes[i] == b'+' {
            out.push(b' ');
            i += 1;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
