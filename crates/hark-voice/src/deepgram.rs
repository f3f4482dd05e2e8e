//! Deepgram's live streaming STT: a WebSocket to `{base_url}` (`wss://api.deepgram.com/v1/listen`)
//! per utterance ([`DeepgramStt`], a [`StreamingStt`]).
//!
//! The wire, as Deepgram's streaming documentation gives it:
//! - the handshake: `GET {base_url}?model=…&encoding=linear16&sample_rate=…&channels=1&
//!   interim_results=true&punctuate=true&smart_format=true[&language=…]` with
//!   `Authorization: Token <key>`; a refused one is an HTTP 4xx/5xx whose JSON body has
//!   `err_code` and `err_msg` (and a `dg-error` header): a [`VoiceError::Http`];
//! - audio: binary messages of PCM16 little-endian samples at that rate;
//! - control: text messages `{"type":"Finalize"}` (flush: what is buffered comes back final, the
//!   last result with `from_finalize: true`), `{"type":"CloseStream"}` (flush, a `Metadata`
//!   message, then the server closes), `{"type":"KeepAlive"}`;
//! - results: `{"type":"Results", "is_final", "speech_final", "from_finalize",
//!   "channel": {"alternatives": [{"transcript", "confidence"}]}}`, plus `Metadata`,
//!   `SpeechStarted` and `UtteranceEnd` messages (read past);
//! - errors mid-stream: a close frame, 1008 with `DATA-0000` (audio it cannot read) or 1011
//!   with `NET-0000` (no audio in time): a [`VoiceError::StreamClosed`].
//!
//! **One connection per utterance.** Deepgram also lets one connection carry many utterances
//! (`Finalize` between them, `KeepAlive` every few seconds of silence, since 10 s without audio
//! closes it with `NET-0001`). Hark opens the stream at the VAD's speech start instead: the
//! handshake happens while the caller speaks (the VAD confirms a start a fraction of a second
//! in, and the pre-roll is sent as soon as it is open), so its cost is hidden; no idle
//! connection is kept alive and billed nothing but pings; no late result of one utterance can be
//! taken for the next; and a broken connection costs one utterance, not the rest of the call.
//! At the end of the utterance the client sends `Finalize` and then `CloseStream`: the stream
//! ends at the result marked `from_finalize`, or, when nothing was buffered (Deepgram then may
//! send no such result), at the `Metadata` or the normal close that `CloseStream` brings.
//! [`DeepgramConfig::final_timeout`] bounds that wait.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use crate::error::{ProviderLabel, Role, TimeoutPhase, VoiceError};
use crate::http::{Secret, error_message, excerpt};
use crate::stt::{StreamInput, StreamingStt, SttStream, Transcript};

/// The provider kind as errors and agent files name it.
pub const KIND: &str = "deepgram";
/// Deepgram's live endpoint.
pub const DEEPGRAM_LISTEN_URL: &str = "wss://api.deepgram.com/v1/listen";

/// How long one write to Deepgram may wait: longer, and it has stopped reading (its TCP window
/// is full), so the utterance's connection is given up rather than the call going deaf.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the closing handshake may take before the socket is simply dropped.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// Settings of a [`DeepgramStt`]. Its `Debug` never shows the key.
#[derive(Clone, PartialEq)]
pub struct DeepgramConfig {
    /// The live endpoint, [`DEEPGRAM_LISTEN_URL`] (tests: `ws://127.0.0.1:PORT/v1/listen`).
    pub base_url: String,
    /// The key, read by the caller from the environment (`DEEPGRAM_API_KEY`).
    pub api_key: Option<String>,
    /// `model`, e.g. `nova-3`.
    pub model: String,
    /// `language` (BCP-47, e.g. `en` or `en-US`), sent only when set.
    pub language: Option<String>,
    /// `interim_results`: interim transcripts while the caller speaks. Default `true`.
    pub interim_results: bool,
    /// `smart_format` (and `punctuate`): punctuation and formatted numbers. Default `true`.
    pub smart_format: bool,
    /// Longest wait for the WebSocket handshake (TCP, TLS and the upgrade). Default 3 s.
    pub connect_timeout: Duration,
    /// Longest wait, from the end of the utterance, for its final transcript. Default 5 s.
    pub final_timeout: Duration,
}

impl std::fmt::Debug for DeepgramConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeepgramConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("language", &self.language)
            .field("interim_results", &self.interim_results)
            .field("smart_format", &self.smart_format)
            .field("connect_timeout", &self.connect_timeout)
            .field("final_timeout", &self.final_timeout)
            .finish()
    }
}

impl DeepgramConfig {
    /// Settings for `model` at Deepgram's endpoint, default limits, no key.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            base_url: DEEPGRAM_LISTEN_URL.to_owned(),
            api_key: None,
            model: model.into(),
            language: None,
            interim_results: true,
            smart_format: true,
            connect_timeout: Duration::from_secs(3),
            final_timeout: Duration::from_secs(5),
        }
    }
}

/// Deepgram's live STT over its WebSocket API (one connection per utterance).
#[derive(Debug, Clone)]
pub struct DeepgramStt {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: DeepgramConfig,
    secret: Option<Secret>,
    label: ProviderLabel,
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl DeepgramStt {
    /// A client with these settings.
    pub fn new(mut config: DeepgramConfig) -> Self {
        let label = ProviderLabel::remote(KIND, Role::Stt, &config.base_url);
        let secret = config
            .api_key
            .take()
            .filter(|k| !k.is_empty())
            .map(Secret::new);
        Self {
            inner: Arc::new(Inner {
                config,
                secret,
                label,
                // `None` (tokio-tungstenite then loads the native roots itself) if it cannot
                // be built.
                tls: crate::ws::tls_config().ok(),
            }),
        }
    }

    /// The label its errors carry.
    pub fn label(&self) -> &ProviderLabel {
        &self.inner.label
    }
}

impl StreamingStt for DeepgramStt {
    fn open(&self, sample_rate: u32) -> SttStream {
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let inner = self.inner.clone();
        let task = tokio::spawn(async move {
            let result = inner.run(sample_rate, in_rx, &out_tx).await;
            if let Err(e) = result {
                let _ = out_tx.send(Err(e));
            }
        });
        SttStream::new(in_tx, out_rx, Some(task))
    }
}

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;
type Out = mpsc::UnboundedSender<Result<Transcript, VoiceError>>;

/// What one message from the server means for the stream.
enum Read {
    /// Keep reading.
    More,
    /// The utterance's results are all in.
    Done,
}

impl Inner {
    fn redact(&self, text: &str) -> String {
        match self.secret.as_ref().map(Secret::expose) {
            Some(k) if k.len() >= 4 => text.replace(k, "[redacted]"),
            _ => text.to_owned(),
        }
    }

    /// The handshake URL: `base_url` with the stream's query parameters.
    fn url(&self, sample_rate: u32) -> String {
        let c = &self.config;
        let yes_no = |b: bool| if b { "true" } else { "false" };
        let mut params = vec![
            ("model", c.model.clone()),
            ("encoding", "linear16".to_owned()),
            ("sample_rate", sample_rate.to_string()),
            ("channels", "1".to_owned()),
            ("interim_results", yes_no(c.interim_results).to_owned()),
            ("punctuate", yes_no(c.smart_format).to_owned()),
            ("smart_format", yes_no(c.smart_format).to_owned()),
        ];
        if let Some(language) = &c.language {
            params.push(("language", language.clone()));
        }
        let query: Vec<String> = params
            .iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect();
        let sep = if c.base_url.contains('?') { '&' } else { '?' };
        format!("{}{sep}{}", c.base_url, query.join("&"))
    }

    async fn connect(&self, sample_rate: u32) -> Result<Socket, VoiceError> {
        let mut request = self.url(sample_rate).into_client_request().map_err(|e| {
            VoiceError::InvalidRequest {
                provider: self.label.clone(),
                detail: format!(
                    "base_url is not a WebSocket URL ({}); use wss://api.deepgram.com/v1/listen",
                    self.redact(&e.to_string())
                ),
            }
        })?;
        if let Some(key) = &self.secret {
            let mut value =
                HeaderValue::from_str(&format!("Token {}", key.expose())).map_err(|_| {
                    VoiceError::InvalidRequest {
                        provider: self.label.clone(),
                        detail: "the API key has characters a header cannot carry; check the \
                             environment variable named by api_key_env"
                            .to_owned(),
                    }
                })?;
            value.set_sensitive(true);
            request.headers_mut().insert("authorization", value);
        }
        let connector = self.tls.clone().map(Connector::Rustls);
        let connecting =
            tokio_tungstenite::connect_async_tls_with_config(request, None, true, connector);
        match tokio::time::timeout(self.config.connect_timeout, connecting).await {
            Err(_) => Err(VoiceError::Timeout {
                provider: self.label.clone(),
                phase: TimeoutPhase::Connect,
                after: self.config.connect_timeout,
            }),
            Ok(Ok((socket, _))) => Ok(socket),
            Ok(Err(WsError::Http(response))) => {
                let status = response.status().as_u16();
                let body = response
                    .body()
                    .as_deref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                let mut message = error_message(&body);
                if message.is_empty()
                    && let Some(header) = response
                        .headers()
                        .get("dg-error")
                        .and_then(|v| v.to_str().ok())
                {
                    message = excerpt(header.trim());
                }
                Err(VoiceError::Http {
                    provider: self.label.clone(),
                    status,
                    message: self.redact(&message),
                })
            }
            Ok(Err(e)) => Err(VoiceError::Connect {
                provider: self.label.clone(),
                detail: self.redact(&e.to_string()),
            }),
        }
    }

    async fn run(
        &self,
        sample_rate: u32,
        mut input: mpsc::UnboundedReceiver<StreamInput>,
        out: &Out,
    ) -> Result<(), VoiceError> {
        let mut socket = self.connect(sample_rate).await?;
        let mut sent: u64 = 0;
        // Set once the utterance ended (Finalize sent): the limit for its final transcript.
        let mut deadline: Option<Instant> = None;
        loop {
            let limit = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                message = socket.next() => {
                    let message = match message {
                        None => Err(self.lost(sent, "the connection closed without a close frame")),
                        Some(Err(e)) => Err(self.ws_error(sent, &e)),
                        Some(Ok(m)) => Ok(m),
                    };
                    match self.read(message?, deadline.is_some(), out)? {
                        Read::More => {}
                        Read::Done => {
                            let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.close(None)).await;
                            return Ok(());
                        }
                    }
                }
                given = input.recv(), if deadline.is_none() => match given {
                    Some(StreamInput::Audio(samples)) => {
                        let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
                        let len = bytes.len() as u64;
                        self.send(&mut socket, Message::Binary(bytes.into()), sent).await?;
                        sent += len;
                    }
                    Some(StreamInput::Finish) => {
                        for control in [r#"{"type":"Finalize"}"#, r#"{"type":"CloseStream"}"#] {
                            self.send(&mut socket, Message::text(control), sent).await?;
                        }
                        deadline = Some(Instant::now() + self.config.final_timeout);
                    }
                    None => {
                        // The caller dropped the utterance: tell Deepgram we are done.
                        let close = async {
                            let _ = socket.send(Message::text(r#"{"type":"CloseStream"}"#)).await;
                            let _ = socket.close(None).await;
                        };
                        let _ = tokio::time::timeout(CLOSE_TIMEOUT, close).await;
                        return Ok(());
                    }
                },
                () = limit => {
                    return Err(VoiceError::Timeout {
                        provider: self.label.clone(),
                        phase: TimeoutPhase::FinalTranscript,
                        after: self.config.final_timeout,
                    });
                }
            }
        }
    }

    /// One message from the server.
    fn read(&self, message: Message, finishing: bool, out: &Out) -> Result<Read, VoiceError> {
        let text = match message {
            Message::Text(text) => text,
            Message::Close(frame) => return self.closed(frame, finishing),
            // Pings are answered by tungstenite; Deepgram sends no binary messages.
            _ => return Ok(Read::More),
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text.as_str()) else {
            return Err(VoiceError::Decode {
                provider: self.label.clone(),
                detail: format!("a message that is not JSON: {}", excerpt(text.as_str())),
            });
        };
        match value.get("type").and_then(|t| t.as_str()) {
            Some("Results") => {
                let flag = |name: &str| value.get(name).and_then(|v| v.as_bool()) == Some(true);
                let is_final = flag("is_final");
                let transcript = value
                    .pointer("/channel/alternatives/0/transcript")
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .trim();
                if !transcript.is_empty() {
                    let _ = out.send(Ok(Transcript {
                        text: transcript.to_owned(),
                        is_final,
                    }));
                }
                if finishing && is_final && flag("from_finalize") {
                    return Ok(Read::Done);
                }
                Ok(Read::More)
            }
            // CloseStream's summary: everything before it was sent.
            Some("Metadata") if finishing => Ok(Read::Done),
            _ => Ok(Read::More),
        }
    }

    /// A close frame: the end after `CloseStream` when normal, else the provider's error.
    fn closed(&self, frame: Option<CloseFrame>, finishing: bool) -> Result<Read, VoiceError> {
        let (code, reason) = match &frame {
            Some(f) => (u16::from(f.code), f.reason.as_str().to_owned()),
            None => (1005, String::new()),
        };
        if finishing && matches!(code, 1000 | 1005) {
            return Ok(Read::Done);
        }
        Err(VoiceError::StreamClosed {
            provider: self.label.clone(),
            code,
            reason: self.redact(&excerpt(&reason)),
        })
    }

    /// Sends `message`, within [`SEND_TIMEOUT`].
    async fn send(
        &self,
        socket: &mut Socket,
        message: Message,
        sent: u64,
    ) -> Result<(), VoiceError> {
        match tokio::time::timeout(SEND_TIMEOUT, socket.send(message)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(self.after_send_error(socket, sent, &e).await),
            Err(_) => Err(self.lost(
                sent,
                &format!(
                    "Deepgram took nothing for {} s (it stopped reading)",
                    SEND_TIMEOUT.as_secs()
                ),
            )),
        }
    }

    fn lost(&self, sent: u64, detail: &str) -> VoiceError {
        VoiceError::StreamLost {
            provider: self.label.clone(),
            audio_bytes: sent,
            detail: self.redact(detail),
        }
    }

    fn ws_error(&self, sent: u64, e: &WsError) -> VoiceError {
        self.lost(sent, &e.to_string())
    }

    /// A send failed: the server may have closed with a reason first (read it), else the
    /// connection broke.
    async fn after_send_error(&self, socket: &mut Socket, sent: u64, e: &WsError) -> VoiceError {
        let wait = tokio::time::timeout(Duration::from_millis(200), async {
            while let Some(Ok(message)) = socket.next().await {
                if let Message::Close(frame) = message {
                    return Some(frame);
                }
            }
            None
        });
        match wait.await {
            Ok(Some(frame)) => match self.closed(frame, false) {
                Err(e) => e,
                Ok(_) => self.ws_error(sent, e),
            },
            _ => self.ws_error(sent, e),
        }
    }
}

/// `value` percent-encoded for a query (RFC 3986 unreserved characters kept).
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
