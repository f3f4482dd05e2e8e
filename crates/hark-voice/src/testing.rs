//! A scripted OpenAI-compatible speech server on loopback (feature `test-support`): the test
//! double for `/audio/speech` and `/audio/transcriptions`.
//!
//! [`ScriptedSpeechServer::start`] binds `127.0.0.1:0` (axum) and answers each request, whatever
//! its path, with the next scripted [`Reply`]: an audio body streamed in steps (bytes, a wait for
//! the test's go-ahead, a delay, a cut connection), an error status with OpenAI's JSON error
//! body, a JSON body, each optionally delayed before the headers. It records every request:
//! path, headers, the JSON body or the multipart fields. [`ScriptedSpeechServer::body_dropped`]
//! tells when a streamed body was dropped before its end (the client went away).
//!
//! Not for production: it trusts its client and keeps everything in memory.
//!
//! [`CartesiaServer`] is the scripted Cartesia TTS WebSocket (its own wire format: contexts,
//! base64 chunks, `done`, `error`, cancels).
//! [`ScriptedDeepgram`] is the same for Deepgram's live WebSocket STT (its own module).
//!
//! Also for voice tests: [`espeak_speech`] (a caller's speech), [`LocalSttServer`] (the local
//! STT, `scripts/stt-server.py`, run with [`python_or_skip`]'s Python) and [`LocalTtsServer`]
//! (the local neural TTS, `scripts/tts-server.py`, run with [`tts_python_or_skip`]'s Python).

mod cartesia;
mod deepgram;
mod local_server;
mod local_stt;
mod local_tts;

pub use cartesia::{CartesiaServer, CartesiaStep, Handshake, RecordedConnection, RecordedMessage};
pub use deepgram::{DeepgramConnection, DeepgramScript, DgStep, ScriptedDeepgram, results};
pub use local_stt::{LocalSttServer, python_or_skip};
pub use local_tts::{LocalTtsServer, tts_python_or_skip};

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// One step of a streamed audio body.
#[derive(Debug, Clone)]
pub enum Step {
    /// Send these bytes as one body chunk.
    Bytes(Vec<u8>),
    /// Wait until the test calls [`Gate::open`].
    Wait(Gate),
    /// Wait this long.
    Delay(Duration),
    /// Break the connection here (the body is not finished).
    Cut,
}

/// A go-ahead the test gives a streaming reply.
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<Notify>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the reply go on (also when it reaches the gate later).
    pub fn open(&self) {
        self.0.notify_one();
    }
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    kind: ReplyKind,
    delay: Option<Duration>,
}

#[derive(Debug, Clone)]
enum ReplyKind {
    Audio {
        content_type: &'static str,
        steps: Vec<Step>,
    },
    Body {
        status: u16,
        content_type: &'static str,
        body: String,
    },
}

impl Reply {
    /// A `200 audio/pcm` body sent in these steps.
    pub fn audio(steps: Vec<Step>) -> Self {
        Self {
            kind: ReplyKind::Audio {
                content_type: "audio/pcm",
                steps,
            },
            delay: None,
        }
    }

    /// `status` with OpenAI's error body `{"error": {"message", "type", "param", "code"}}`.
    pub fn error(status: u16, message: &str) -> Self {
        let body = json!({"error": {"message": message, "type": "invalid_request_error",
                                    "param": null, "code": null}});
        Self::body(status, "application/json", &body.to_string())
    }

    /// A `200 application/json` transcription `{"text": text}`.
    pub fn transcript(text: &str) -> Self {
        Self::body(200, "application/json", &json!({"text": text}).to_string())
    }

    /// `status` with this content type and body.
    pub fn body(status: u16, content_type: &'static str, body: &str) -> Self {
        Self {
            kind: ReplyKind::Body {
                status,
                content_type,
                body: body.to_owned(),
            },
            delay: None,
        }
    }

    /// Waits `delay` before sending anything (not even headers).
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }
}

/// One part of a multipart form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The field name.
    pub name: String,
    /// Its file name, for a file part.
    pub file_name: Option<String>,
    /// Its content type, when given.
    pub content_type: Option<String>,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl FormField {
    /// The bytes as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The path (`/v1/audio/speech`).
    pub path: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` when it was not JSON).
    pub json: Value,
    /// The multipart fields, in order (empty when it was not a form).
    pub fields: Vec<FormField>,
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

    /// The form field `name`.
    pub fn field(&self, name: &str) -> Option<&FormField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    dropped: AtomicUsize,
    dropped_notify: Notify,
}

/// The server. Dropping it stops it.
#[derive(Debug)]
pub struct ScriptedSpeechServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shared")
    }
}

impl Drop for ScriptedSpeechServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedSpeechServer {
    /// Binds `127.0.0.1:0` and serves `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let shared = Arc::new(Shared::default());
        shared.replies.lock().unwrap().extend(replies);
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

    /// `http://127.0.0.1:PORT/v1`, the `base_url` to give a client.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// How many streamed bodies were dropped before their last step.
    pub fn body_dropped(&self) -> usize {
        self.shared.dropped.load(Ordering::SeqCst)
    }

    /// Waits until a streamed body has been dropped before its end, at most `limit`; whether it
    /// was.
    pub async fn wait_body_dropped(&self, limit: Duration) -> bool {
        let wait = async {
            loop {
                let notified = self.shared.dropped_notify.notified();
                if self.body_dropped() > 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let headers = header_list(request.headers());
    let is_form = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (json, fields) = if is_form {
        (Value::Null, read_form(request).await)
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), 64 * 1024 * 1024)
            .await
            .unwrap_or_default();
        (
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            Vec::new(),
        )
    };
    shared.requests.lock().unwrap().push(RecordedRequest {
        path,
        headers,
        json,
        fields,
    });
    let reply = shared.replies.lock().unwrap().pop_front();
    let Some(reply) = reply else {
        return plain(
            500,
            "application/json",
            r#"{"error":{"message":"no scripted reply left"}}"#,
        );
    };
    if let Some(d) = reply.delay {
        tokio::time::sleep(d).await;
    }
    match reply.kind {
        ReplyKind::Body {
            status,
            content_type,
            body,
        } => plain(status, content_type, &body),
        ReplyKind::Audio {
            content_type,
            steps,
        } => {
            let guard = DropGuard {
                shared: shared.clone(),
                finished: false,
            };
            let stream = futures::stream::unfold(
                (VecDeque::from(steps), guard),
                |(mut steps, mut guard)| async move {
                    loop {
                        match steps.pop_front() {
                            None => {
                                guard.finish();
                                return None;
                            }
                            Some(Step::Bytes(b)) => {
                                return Some((
                                    Ok::<_, std::io::Error>(Bytes::from(b)),
                                    (steps, guard),
                                ));
                            }
                            Some(Step::Wait(gate)) => gate.0.notified().await,
                            Some(Step::Delay(d)) => tokio::time::sleep(d).await,
                            Some(Step::Cut) => {
                                guard.finish();
                                let err = std::io::Error::other("scripted cut");
                                return Some((Err(err), (VecDeque::new(), guard)));
                            }
                        }
                    }
                },
            );
            Response::builder()
                .status(200)
                .header(header::CONTENT_TYPE, content_type)
                .body(Body::from_stream(stream))
                .unwrap_or_default()
        }
    }
}

/// Counts a streamed body dropped before its end.
struct DropGuard {
    shared: Arc<Shared>,
    finished: bool,
}

impl DropGuard {
    fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.shared.dropped.fetch_add(1, Ordering::SeqCst);
            self.shared.dropped_notify.notify_waiters();
        }
    }
}

fn plain(status: u16, content_type: &'static str, body: &str) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body.to_owned()))
        .unwrap_or_default()
}

fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_ascii_lowercase(),
                v.to_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

async fn read_form(request: Request) -> Vec<FormField> {
    let Ok(mut form) = Multipart::from_request(request, &()).await else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    while let Ok(Some(field)) = form.next_field().await {
        let name = field.name().unwrap_or("").to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let content_type = field.content_type().map(str::to_owned);
        let bytes = field.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
        fields.push(FormField {
            name,
            file_name,
            content_type,
            bytes,
        });
    }
    fields
}

/// `text` said by espeak-ng with `config`, at `rate` Hz (espeak-ng's 22 050 Hz resampled),
/// with `before` and `after` seconds of silence around it: a caller's speech for tests.
///
/// # Panics
/// When espeak-ng cannot speak (not installed: `apt install espeak-ng`).
pub async fn espeak_speech(
    text: &str,
    config: crate::EspeakConfig,
    rate: u32,
    before: f64,
    after: f64,
) -> Vec<i16> {
    use futures::StreamExt;

    use crate::Tts;

    let config = crate::EspeakConfig {
        sample_rate: Some(rate),
        ..config
    };
    let tts = crate::EspeakTts::new(config);
    let mut stream = tts.synthesize(text);
    let mut speech = Vec::new();
    while let Some(chunk) = stream.next().await {
        speech.extend(
            chunk
                .expect("espeak-ng speaks (apt install espeak-ng)")
                .samples,
        );
    }
    let silence = |s: f64| vec![0i16; (s * f64::from(rate)) as usize];
    [silence(before), speech, silence(after)].concat()
}
