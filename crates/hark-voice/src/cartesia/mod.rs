//! Cartesia's streaming TTS over its WebSocket API ([`CartesiaTts`]).
//!
//! # The wire
//!
//! One WebSocket to `base_url` (default [`CARTESIA_URL`]), the key in the `X-API-Key` header and
//! the API version in `Cartesia-Version` (headers rather than the `api_key` query parameter, so
//! the key is never part of a URL that could be logged). Each line is one generation request on
//! its own `context_id`: `model_id`, `transcript`, `voice: {mode: "id", id}`, `language` (when
//! set), `output_format: {container: "raw", encoding: "pcm_s16le", sample_rate}`,
//! `continue: false` (the whole line is the context's input) and `add_timestamps: false`. Replies
//! carry the `context_id`: `chunk` (base64 PCM16 in `data`), `done`, and `error` (`status_code`
//! with `title` and `message`, or the older `error` string); `timestamps`, `phoneme_timestamps`
//! and `flush_done` are ignored. A line dropped before its end sends
//! `{"context_id": …, "cancel": true}`.
//!
//! # One connection, many lines
//!
//! A client keeps one WebSocket and multiplexes its lines on it by `context_id`, as Pipecat's and
//! LiveKit's Cartesia services do: a voice agent speaks sentence by sentence, and a new TLS
//! WebSocket per sentence would add a handshake (often as long as the time to first audio) to
//! every one. The socket is opened by the first line (lazily: nothing connects until a stream is
//! polled) and shared by the lines after it, and by lines synthesized at the same time (the
//! speaker synthesizes the next line while one plays). When it ends, for any reason (Cartesia
//! closes an idle connection after a few minutes, a close frame, a cut network), every line still
//! open on it ends with an error naming Cartesia, and the next line connects again. A line whose
//! connection was found closed when it was sent is sent once more on a new connection.
//!
//! A voice agent gives each call a client of its own ([`Tts::for_call`]: the same settings, its
//! own connection), so one call's connection trouble never cuts another call's lines.
//!
//! # Limits
//!
//! [`CartesiaTimeouts`]: the connection (TCP, TLS and the upgrade), the first audio of a line
//! after sending it, the longest quiet between two pieces of a line's audio (a stalled line), and
//! the longest a whole line may take (a context that never ends).
//! Each is a [`VoiceError::Timeout`] naming the setting to raise; a timed-out line is cancelled,
//! and the next line opens a new connection (a connection can die without a word: a dropped
//! NAT entry sends no close); the old one serves its open lines to their end, then closes.
//! Writing a message that Cartesia does not take within `stall_timeout` ends the connection.
//!
//! Nothing from the network panics: unreadable messages, bad base64 and odd byte counts (half a
//! sample is carried to the next chunk, [`Pcm16Carry`]) are errors of the line they belong to.

mod connection;
mod wire;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::audio::{AudioChunk, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, Pcm16Carry};
use crate::error::{ProviderLabel, Role, TimeoutPhase, VoiceError};
use crate::http::Secret;
use crate::tts::{Tts, TtsStream};
use connection::{Command, Conn, Event, Failure, Target};

/// The provider kind as errors and agent files name it.
pub const KIND: &str = "cartesia";

/// Cartesia's TTS WebSocket.
pub const CARTESIA_URL: &str = "wss://api.cartesia.ai/tts/websocket";

/// The `Cartesia-Version` sent (the API version whose messages this client reads).
pub const CARTESIA_VERSION: &str = "2026-03-01";

/// The model when none is set.
pub const CARTESIA_MODEL: &str = "sonic-3.5";

/// The rate asked for when none is set: 24 000 Hz, the rate the Pipecat client plays.
pub const CARTESIA_RATE: u32 = 24_000;

/// Time limits of a [`CartesiaTts`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CartesiaTimeouts {
    /// Longest wait for the WebSocket: TCP, TLS and the upgrade. Default 5 s.
    pub connect_timeout: Duration,
    /// Longest wait from sending a line to its first audio. Default 5 s.
    pub first_audio_timeout: Duration,
    /// Longest quiet between two pieces of a line's audio (and before its end). Default 5 s.
    pub stall_timeout: Duration,
    /// Longest a whole line may take, from sending it to its end, however steadily its audio
    /// comes (a context that never ends). Default 60 s, as the HTTP providers' `total_timeout`.
    pub total_timeout: Duration,
}

impl Default for CartesiaTimeouts {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_audio_timeout: Duration::from_secs(5),
            stall_timeout: Duration::from_secs(5),
            total_timeout: Duration::from_secs(60),
        }
    }
}

/// Settings of a [`CartesiaTts`]. Its `Debug` never shows the key.
#[derive(Clone, PartialEq)]
pub struct CartesiaConfig {
    /// The WebSocket URL, `wss://api.cartesia.ai/tts/websocket` (tests: `ws://127.0.0.1:PORT`).
    pub base_url: String,
    /// The key, read by the caller from the environment variable the agent file names.
    pub api_key: Option<String>,
    /// That variable's name (`CARTESIA_API_KEY`), said in the error when the key is refused.
    pub key_env: Option<String>,
    /// `Cartesia-Version`. Default [`CARTESIA_VERSION`].
    pub version: String,
    /// `model_id`. Default [`CARTESIA_MODEL`].
    pub model: String,
    /// The voice's id (`voice: {mode: "id", id}`).
    pub voice: String,
    /// `language` (ISO 639-1, `en`), sent when set.
    pub language: Option<String>,
    /// The rate of the audio asked for and of the chunks yielded. Default [`CARTESIA_RATE`].
    pub sample_rate: u32,
    /// Time limits.
    pub timeouts: CartesiaTimeouts,
}

impl CartesiaConfig {
    /// Settings for `voice` (a voice id) on Cartesia's public API, default model, rate and
    /// limits, no key.
    pub fn new(voice: impl Into<String>) -> Self {
        Self {
            base_url: CARTESIA_URL.to_owned(),
            api_key: None,
            key_env: None,
            version: CARTESIA_VERSION.to_owned(),
            model: CARTESIA_MODEL.to_owned(),
            voice: voice.into(),
            language: None,
            sample_rate: CARTESIA_RATE,
            timeouts: CartesiaTimeouts::default(),
        }
    }
}

impl std::fmt::Debug for CartesiaConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CartesiaConfig")
            .field(
                "base_url",
                &crate::error::ProviderLabel::remote(KIND, Role::Tts, &self.base_url).endpoint,
            )
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("key_env", &self.key_env)
            .field("version", &self.version)
            .field("model", &self.model)
            .field("voice", &self.voice)
            .field("language", &self.language)
            .field("sample_rate", &self.sample_rate)
            .field("timeouts", &self.timeouts)
            .finish()
    }
}

/// TTS over Cartesia's WebSocket: one connection per client, lines multiplexed on it by
/// `context_id` (see the [module docs](self)). Cheap to clone; clones share the connection.
#[derive(Debug, Clone)]
pub struct CartesiaTts {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    target: Target,
    shape: wire::RequestShape,
    timeouts: CartesiaTimeouts,
    conn: tokio::sync::Mutex<Option<Conn>>,
    next_context: AtomicU64,
}

impl CartesiaTts {
    /// A client with these settings (nothing connects until a stream is polled).
    pub fn new(config: CartesiaConfig) -> Self {
        let label = ProviderLabel::remote(KIND, Role::Tts, &config.base_url);
        let target = Target {
            url: config.base_url,
            secret: config.api_key.filter(|k| !k.is_empty()).map(Secret::new),
            version: config.version,
            key_env: config.key_env,
            label,
            connect_timeout: config.timeouts.connect_timeout,
            send_timeout: config.timeouts.stall_timeout,
        };
        Self {
            shared: Arc::new(Shared {
                target,
                shape: wire::RequestShape {
                    model: config.model,
                    voice: config.voice,
                    language: config.language,
                    sample_rate: config.sample_rate,
                },
                timeouts: config.timeouts,
                conn: tokio::sync::Mutex::new(None),
                next_context: AtomicU64::new(1),
            }),
        }
    }

    /// The label its errors carry: `cartesia TTS at wss://api.cartesia.ai/tts/websocket`.
    pub fn label(&self) -> &ProviderLabel {
        &self.shared.target.label
    }
}

impl Shared {
    /// The open connection, or a new one (one handshake at a time: lines that start together
    /// share it).
    async fn connection(&self, stale: Option<&Conn>) -> Result<Conn, VoiceError> {
        let mut slot = self.conn.lock().await;
        if let Some(conn) = slot.as_ref() {
            let is_stale = stale.is_some_and(|s| s.commands.same_channel(&conn.commands));
            if !conn.is_closed() && !is_stale {
                return Ok(conn.clone());
            }
        }
        *slot = None;
        let conn = connection::connect(&self.target).await?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Stops handing the connection of `commands` to new lines (after a line timed out on it:
    /// it may be dead without having said so). Its open lines go on; its task closes the socket
    /// when they are done.
    async fn forget(&self, commands: &mpsc::UnboundedSender<Command>) {
        let mut slot = self.conn.lock().await;
        if slot
            .as_ref()
            .is_some_and(|conn| conn.commands.same_channel(commands))
        {
            *slot = None;
        }
    }

    fn invalid(&self, detail: String) -> VoiceError {
        VoiceError::InvalidRequest {
            provider: self.target.label.clone(),
            detail,
        }
    }

    /// Sends the line; its open [`Line`].
    async fn open(self: Arc<Self>, text: String) -> Result<Line, VoiceError> {
        if text.trim().is_empty() {
            return Err(self.invalid("the line to speak is empty; give it some text".to_owned()));
        }
        let rate = self.shape.sample_rate;
        if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
            return Err(VoiceError::SampleRate { rate });
        }
        let context_id = format!("hark-{}", self.next_context.fetch_add(1, Ordering::Relaxed));
        let request = wire::request(&self.shape, &context_id, &text);
        let (events_tx, events) = mpsc::unbounded_channel();
        let mut stale = None;
        for _ in 0..2 {
            let conn = self.connection(stale.as_ref()).await?;
            let start = Command::Start {
                context_id: context_id.clone(),
                request: request.clone(),
                events: events_tx.clone(),
            };
            if conn.commands.send(start).is_ok() {
                tracing::debug!(provider = %self.target.label, %context_id, "line sent");
                return Ok(Line {
                    guard: CancelGuard {
                        commands: conn.commands.clone(),
                        context_id,
                        armed: true,
                    },
                    deadline: tokio::time::Instant::now() + self.timeouts.total_timeout,
                    shared: self,
                    events,
                    carry: Pcm16Carry::new(),
                });
            }
            // The connection ended between the check and the send: once more on a new one.
            stale = Some(conn);
        }
        Err(VoiceError::Connect {
            provider: self.target.label.clone(),
            detail: "the connection closed twice as the line was sent".to_owned(),
        })
    }
}

/// Sends the cancel for its context when the line is dropped before its end.
struct CancelGuard {
    commands: mpsc::UnboundedSender<Command>,
    context_id: String,
    armed: bool,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if self.armed {
            let context_id = std::mem::take(&mut self.context_id);
            let _ = self.commands.send(Command::Cancel { context_id });
        }
    }
}

/// One line being spoken.
struct Line {
    /// First: fields drop in order, so the cancel goes out while the line's route (`events`)
    /// is still open and the connection task still knows the context to cancel.
    guard: CancelGuard,
    shared: Arc<Shared>,
    events: mpsc::UnboundedReceiver<Event>,
    carry: Pcm16Carry,
    /// When the line must have ended ([`CartesiaTimeouts::total_timeout`]).
    deadline: tokio::time::Instant,
}

enum State {
    Start(Arc<Shared>, String),
    Open(Line),
    Done,
}

impl Line {
    /// The next chunk, `None` at the end, or the line's one error.
    async fn next(&mut self) -> Option<Result<AudioChunk, VoiceError>> {
        let label = &self.shared.target.label;
        loop {
            let (limit, phase) = if self.carry.total_bytes() == 0 {
                (
                    self.shared.timeouts.first_audio_timeout,
                    TimeoutPhase::FirstAudio,
                )
            } else {
                (self.shared.timeouts.stall_timeout, TimeoutPhase::Stall)
            };
            let left = self
                .deadline
                .saturating_duration_since(tokio::time::Instant::now());
            let (limit, phase, after) = if left < limit {
                (
                    left,
                    TimeoutPhase::Total,
                    self.shared.timeouts.total_timeout,
                )
            } else {
                (limit, phase, limit)
            };
            let event = match tokio::time::timeout(limit, self.events.recv()).await {
                Err(_) => {
                    // Still armed: dropping the line cancels it on Cartesia's side. The next
                    // line opens a new connection, in case this one is dead without a word.
                    self.shared.forget(&self.guard.commands).await;
                    return Some(Err(VoiceError::Timeout {
                        provider: label.clone(),
                        phase,
                        after,
                    }));
                }
                Ok(None) => Event::Failed(Failure::Lost("the connection ended".to_owned())),
                Ok(Some(event)) => event,
            };
            match event {
                Event::Audio(bytes) => {
                    let samples = self.carry.push(&bytes);
                    if !samples.is_empty() {
                        return Some(Ok(AudioChunk::new(samples, self.shared.shape.sample_rate)));
                    }
                }
                Event::Done => {
                    self.guard.armed = false;
                    if self.carry.total_bytes() == 0 {
                        return Some(Err(VoiceError::Decode {
                            provider: label.clone(),
                            detail: "Cartesia finished the line with no audio".to_owned(),
                        }));
                    }
                    if self.carry.has_partial() {
                        return Some(Err(VoiceError::StreamCut {
                            provider: label.clone(),
                            bytes: self.carry.total_bytes(),
                            detail: "the line ended inside a 16-bit sample".to_owned(),
                        }));
                    }
                    return None;
                }
                Event::Failed(failure) => {
                    // Cartesia ended the context, or the connection is gone: nothing to cancel.
                    self.guard.armed = false;
                    let target = &self.shared.target;
                    return Some(Err(match failure {
                        Failure::Provider { status, message } => {
                            connection::provider_error(target, status, target.redact(&message))
                        }
                        Failure::Unreadable(detail) => VoiceError::Decode {
                            provider: label.clone(),
                            detail: target.redact(&detail),
                        },
                        Failure::Lost(detail) => VoiceError::StreamCut {
                            provider: label.clone(),
                            bytes: self.carry.total_bytes(),
                            detail: target.redact(&detail),
                        },
                    }));
                }
            }
        }
    }
}

impl Tts for CartesiaTts {
    fn synthesize(&self, text: &str) -> TtsStream {
        let start = State::Start(self.shared.clone(), text.to_owned());
        Box::pin(futures::stream::unfold(start, |state| async move {
            let mut line = match state {
                State::Done => return None,
                State::Start(shared, text) => match shared.open(text).await {
                    Ok(line) => line,
                    Err(e) => return Some((Err(e), State::Done)),
                },
                State::Open(line) => line,
            };
            match line.next().await {
                Some(Ok(chunk)) => Some((Ok(chunk), State::Open(line))),
                // The line is dropped here: a timed-out line sends its cancel.
                Some(Err(e)) => Some((Err(e), State::Done)),
                None => None,
            }
        }))
    }

    fn sample_rate(&self) -> u32 {
        self.shared.shape.sample_rate
    }

    /// A client of its own for each call (the same settings, a connection of its own): one
    /// call's dropped socket or timed-out line never cuts another call's lines.
    fn for_call(&self) -> Option<Arc<dyn Tts>> {
        Some(Arc::new(CartesiaTts {
            shared: Arc::new(Shared {
                target: self.shared.target.clone(),
                shape: self.shared.shape.clone(),
                timeouts: self.shared.timeouts.clone(),
                conn: tokio::sync::Mutex::new(None),
                next_context: AtomicU64::new(1),
            }),
        }))
    }
}
