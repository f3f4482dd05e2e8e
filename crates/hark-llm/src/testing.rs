//! A test double for an OpenAI-compatible provider, for this crate's tests and other crates'.
//!
//! [`ScriptedServer`] binds `127.0.0.1:0`, answers each request with the next scripted [`Turn`]
//! (a stream of chunks, an error status, a delay, a cut mid tool call), and records every request
//! it received (method, path, headers, JSON body). It speaks plain HTTP/1.1, one request per
//! connection, bodies with `Content-Length` (what `reqwest` sends); streams are sent with
//! chunked transfer encoding, so a [`Turn::cut`] is a connection dropped mid-body, exactly what a
//! client sees when a provider's connection breaks. Turns are served in order whatever the path,
//! so [`Turn::raw`] also serves recorded Anthropic or Gemini streams.
//!
//! Every tool schema of every request is checked against the rules of the provider the path
//! names ([`provider_rules`]): a schema the real API would refuse is answered with the 400 that
//! API sends, naming the tool, the schema's place and the rule, and the scripted turn is kept
//! for the next request. [`ScriptedServer::schema_refusals`] lists them.
//!
//! [`RecordingPause`] replaces the retry sleep: it records the waits and returns at once.
//!
//! This module is not for production: the server trusts its client and keeps everything in
//! memory.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::messages;
use crate::retry::Pause;

pub mod provider_rules;
mod streams;

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// `POST`, …
    pub method: String,
    /// The path with its query (`/v1/chat/completions`).
    pub path: String,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::String` of the text when it is not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Bytes(Vec<u8>),
    Delay(Duration),
    Cut,
}

#[derive(Debug, Clone, PartialEq)]
enum Reply {
    Stream(Vec<Step>),
    Status {
        status: u16,
        body: String,
        retry_after: Option<String>,
        content_type: &'static str,
    },
}

/// One scripted reply. Build a stream with [`Turn::stream`] and its chunk methods, or an error
/// with [`Turn::status`].
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    reply: Reply,
    delay: Option<Duration>,
}

fn chunk_bytes(choices: Value) -> Vec<u8> {
    chunk(choices).into_bytes()
}

fn chunk(choices: Value) -> String {
    let v = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
                   "model": "scripted", "choices": choices});
    format!("data: {v}\n\n")
}

impl Turn {
    /// An empty `200 text/event-stream` reply; add chunks with the methods below.
    pub fn stream() -> Self {
        Self {
            reply: Reply::Stream(Vec::new()),
            delay: None,
        }
    }

    /// A whole text reply: one chunk per piece, `finish_reason: "stop"`, usage, `[DONE]`.
    pub fn text_reply(pieces: &[&str]) -> Self {
        let mut t = Self::stream();
        for p in pieces {
            t = t.text(p);
        }
        t.finish("stop").usage(10, pieces.len() as u64).done()
    }

    /// A whole reply calling one tool: its start, `arguments` in one piece,
    /// `finish_reason: "tool_calls"`, `[DONE]`.
    pub fn tool_call(id: &str, name: &str, arguments: Value) -> Self {
        Self::stream()
            .tool_call_start(0, id, name)
            .tool_call_args(0, &arguments.to_string())
            .finish("tool_calls")
            .done()
    }

    /// An error reply with `status` and OpenAI's error body `{"error": {"message", "type", "code"}}`.
    pub fn status(status: u16, message: &str) -> Self {
        let body = json!({"error": {"message": message, "type": "scripted_error", "code": status}});
        Self {
            reply: Reply::Status {
                status,
                body: body.to_string(),
                retry_after: None,
                content_type: "application/json",
            },
            delay: None,
        }
    }

    /// An error reply with `status` and this exact JSON body (another provider's error shape).
    pub fn status_with_body(status: u16, body: &str) -> Self {
        Self {
            reply: Reply::Status {
                status,
                body: body.to_owned(),
                retry_after: None,
                content_type: "application/json",
            },
            delay: None,
        }
    }

    /// A `200 application/json` reply with this body (a server that does not stream).
    pub fn json_ok(body: &str) -> Self {
        Self::status_with_body(200, body)
    }

    /// A `200` reply with this content type and body: a `base_url` that reaches a web page or
    /// another service rather than a chat-completions endpoint (`"text/html"`, `"text/plain"`).
    pub fn ok_with_content_type(content_type: &'static str, body: &str) -> Self {
        Self {
            reply: Reply::Status {
                status: 200,
                body: body.to_owned(),
                retry_after: None,
                content_type,
            },
            delay: None,
        }
    }

    /// Adds a `Retry-After` header (seconds) to a [`Turn::status`] reply.
    pub fn retry_after(mut self, seconds: &str) -> Self {
        if let Reply::Status { retry_after, .. } = &mut self.reply {
            *retry_after = Some(seconds.to_owned());
        }
        self
    }

    /// Waits `delay` before sending anything (not even headers): for time-to-first-byte limits.
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    fn step(mut self, step: Step) -> Self {
        if let Reply::Stream(steps) = &mut self.reply {
            steps.push(step);
        }
        self
    }

    /// A chunk with `delta.content = text`.
    pub fn text(self, text: &str) -> Self {
        self.step(Step::Bytes(chunk_bytes(
            json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}]),
        )))
    }

    /// A chunk with `delta.content = text` and `logprobs.content = logprobs` (the token objects
    /// `{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}` as
    /// OpenAI streams them when the request sets `logprobs: true`).
    pub fn text_with_logprobs(self, text: &str, logprobs: Value) -> Self {
        self.step(Step::Bytes(chunk_bytes(json!([{"index": 0,
            "delta": {"content": text}, "logprobs": {"content": logprobs},
            "finish_reason": null}]))))
    }

    /// The first piece of a tool call: `index`, `id`, `function.name`, empty arguments.
    pub fn tool_call_start(self, index: u32, id: &str, name: &str) -> Self {
        self.step(Step::Bytes(chunk_bytes(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}, "finish_reason": null}]))))
    }

    /// More argument text for the call at `index`.
    pub fn tool_call_args(self, index: u32, arguments: &str) -> Self {
        self.step(Step::Bytes(chunk_bytes(
            json!([{"index": 0, "delta": {"tool_calls": [
            {"index": index, "function": {"arguments": arguments}}
        ]}, "finish_reason": null}]),
        )))
    }

    /// A chunk with `finish_reason` (`stop`, `tool_calls`, `length`…).
    pub fn finish(self, reason: &str) -> Self {
        self.step(Step::Bytes(chunk_bytes(
            json!([{"index": 0, "delta": {}, "finish_reason": reason}]),
        )))
    }

    /// The usage chunk (`choices: []`), as `stream_options.include_usage` makes OpenAI send.
    pub fn usage(self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        let v = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
            "model": "scripted", "choices": [], "usage": {"prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}});
        self.step(Step::Bytes(format!("data: {v}\n\n").into_bytes()))
    }

    /// An error inside the stream: `data: {"error": {"message", "code"}}`.
    pub fn error_event(self, code: u16, message: &str) -> Self {
        let v = json!({"error": {"message": message, "type": "server_error", "code": code}});
        self.step(Step::Bytes(format!("data: {v}\n\n").into_bytes()))
    }

    /// `data: [DONE]`.
    pub fn done(self) -> Self {
        self.step(Step::Bytes(b"data: [DONE]\n\n".to_vec()))
    }

    /// Raw bytes of the event stream, sent as one chunk (a recorded provider stream; pieces
    /// may split lines and UTF-8 characters anywhere).
    pub fn raw(self, bytes: impl AsRef<[u8]>) -> Self {
        self.step(Step::Bytes(bytes.as_ref().to_vec()))
    }

    /// A recorded stream sent in chunks of `size` bytes (at least 1).
    pub fn raw_in_pieces(mut self, bytes: impl AsRef<[u8]>, size: usize) -> Self {
        for piece in bytes.as_ref().chunks(size.max(1)) {
            self = self.raw(piece);
        }
        self
    }

    /// Waits before the next step.
    pub fn delay(self, delay: Duration) -> Self {
        self.step(Step::Delay(delay))
    }

    /// Drops the connection here, mid-body.
    pub fn cut(self) -> Self {
        self.step(Step::Cut)
    }
}

#[derive(Debug, Default)]
struct State {
    turns: VecDeque<Turn>,
    requests: Vec<RecordedRequest>,
    refusals: Vec<String>,
}

/// A scripted OpenAI-compatible server on loopback. Dropping it stops it.
#[derive(Debug)]
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panicking test thread cannot leave the state half-written: every update is one push.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl ScriptedServer {
    /// Binds `127.0.0.1:0` and serves `turns` in order.
    ///
    /// # Errors
    /// The bind error.
    pub async fn start(turns: Vec<Turn>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            turns: turns.into(),
            ..State::default()
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            // Connection tasks live in this set, so aborting the server ends them too.
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        if let Ok((socket, _)) = accepted {
                            connections.spawn(serve(socket, shared.clone()));
                        }
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        Ok(Self { addr, state, task })
    }

    /// `http://127.0.0.1:<port>/v1`: the base URL to give [`crate::OpenAiCompatible::new`].
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.state).turns.push_back(turn);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Every tool schema refused so far ([`provider_rules`]), one line per request with the
    /// rules its schemas break.
    pub fn schema_refusals(&self) -> Vec<String> {
        lock(&self.state).refusals.clone()
    }

    /// The JSON bodies of every request received so far.
    pub fn bodies(&self) -> Vec<Value> {
        lock(&self.state)
            .requests
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }
}

const MAX_HEAD: usize = 64 * 1024;

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let breaks = provider_rules::rule_breaks(&request);
    let refused = provider_rules::Api::of_path(&request.path)
        .filter(|_| !breaks.is_empty())
        .map(|api| {
            let message = breaks.join(" ");
            let reply = Turn::status_with_body(400, &provider_rules::refusal_body(api, &message));
            (message, reply)
        });
    let turn = {
        let mut s = lock(&state);
        s.requests.push(request);
        let n = s.requests.len();
        match refused {
            // The real API refuses the request; the scripted turn waits for the next one.
            Some((message, reply)) => {
                s.refusals.push(message);
                reply
            }
            None => s
                .turns
                .pop_front()
                .unwrap_or_else(|| Turn::status(500, &messages::script_exhausted(n))),
        }
    };
    if let Some(d) = turn.delay {
        tokio::time::sleep(d).await;
    }
    let _ = write_reply(&mut socket, turn.reply).await;
}

async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            let (n, v) = l.split_once(':')?;
            Some((n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        })
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    })
}

async fn write_reply(socket: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Status {
            status,
            body,
            retry_after,
            content_type,
        } => {
            let retry = retry_after
                .map(|s| format!("Retry-After: {s}\r\n"))
                .unwrap_or_default();
            let head = format!(
                "HTTP/1.1 {status} Scripted\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
            socket.flush().await
        }
        Reply::Stream(steps) => {
            socket
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                )
                .await?;
            socket.flush().await?;
            for step in steps {
                match step {
                    // An empty chunk would end the chunked body early.
                    Step::Bytes(b) if b.is_empty() => {}
                    Step::Bytes(b) => {
                        let mut framed = format!("{:x}\r\n", b.len()).into_bytes();
                        framed.extend_from_slice(&b);
                        framed.extend_from_slice(b"\r\n");
                        socket.write_all(&framed).await?;
                        socket.flush().await?;
                    }
                    Step::Delay(d) => tokio::time::sleep(d).await,
                    Step::Cut => return Ok(()),
                }
            }
            socket.write_all(b"0\r\n\r\n").await?;
            socket.flush().await
        }
    }
}

/// A [`Pause`] that records each wait and returns at once, with a fixed jitter.
#[derive(Debug, Clone, Default)]
pub struct RecordingPause {
    jitter: f64,
    waits: Arc<Mutex<Vec<Duration>>>,
}

impl RecordingPause {
    /// A pause whose jitter is always `jitter` (clamped to `[0, 1]`).
    pub fn new(jitter: f64) -> Self {
        Self {
            jitter: jitter.clamp(0.0, 1.0),
            waits: Arc::default(),
        }
    }

    /// The waits asked for so far, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Pause for RecordingPause {
    fn jitter(&self) -> f64 {
        self.jitter
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        self.waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(duration);
        Box::pin(async {})
    }
}
