//! `POST {base_url}/audio/speech` with `response_format: "pcm"`: the body is raw 24 kHz 16-bit
//! signed little-endian mono samples, streamed as the provider makes them.

use bytes::Bytes;
use futures::stream::StreamExt;
use serde_json::json;
use tokio::time::Instant;

use crate::audio::{AudioChunk, Pcm16Carry};
use crate::error::{ProviderLabel, Role, VoiceError};
use crate::http::{HttpOptions, Remote};
use crate::tts::{Tts, TtsStream};

/// The rate of OpenAI's `pcm` format: 24 000 Hz.
pub const OPENAI_PCM_RATE: u32 = 24_000;

/// Longest `input` the endpoint takes, in characters (OpenAI's documented limit).
const MAX_INPUT_CHARS: usize = 4096;

/// Settings of an [`OpenAiTts`].
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiTtsConfig {
    /// API root, e.g. `https://api.openai.com/v1` (a trailing `/` is dropped).
    pub base_url: String,
    /// The key, read by the caller from the environment variable the agent file names.
    pub api_key: Option<String>,
    /// `model`, e.g. `gpt-4o-mini-tts` or `tts-1`.
    pub model: String,
    /// `voice`, e.g. `alloy`.
    pub voice: String,
    /// `speed` (0.25–4.0), sent only when set.
    pub speed: Option<f32>,
    /// `instructions`, sent only when set.
    pub instructions: Option<String>,
    /// Time limits.
    pub options: HttpOptions,
}

impl OpenAiTtsConfig {
    /// Settings for `model` and `voice` at `base_url`, default limits, no key.
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        voice: impl Into<String>,
    ) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            voice: voice.into(),
            speed: None,
            instructions: None,
            options: HttpOptions::default(),
        }
    }
}

/// TTS over an OpenAI-compatible `/audio/speech` endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiTts {
    remote: Remote,
    url: String,
    model: String,
    voice: String,
    speed: Option<f32>,
    instructions: Option<String>,
}

impl OpenAiTts {
    /// A client with these settings (no request is made until a stream is polled).
    pub fn new(config: OpenAiTtsConfig) -> Self {
        let base = config.base_url.trim_end_matches('/').to_owned();
        let label = ProviderLabel::remote(super::KIND, Role::Tts, &base);
        Self {
            remote: Remote::new(label, config.api_key, config.options),
            url: format!("{base}/audio/speech"),
            model: config.model,
            voice: config.voice,
            speed: config.speed,
            instructions: config.instructions,
        }
    }

    /// The label its errors carry.
    pub fn label(&self) -> &ProviderLabel {
        &self.remote.label
    }

    fn body(&self, text: &str) -> serde_json::Value {
        let mut body = json!({
            "model": self.model,
            "input": text,
            "voice": self.voice,
            "response_format": "pcm",
        });
        if let Some(speed) = self.speed {
            body["speed"] = json!(speed);
        }
        if let Some(instructions) = &self.instructions {
            body["instructions"] = json!(instructions);
        }
        body
    }
}

enum State {
    Start(OpenAiTts, String),
    Streaming {
        tts: OpenAiTts,
        body: futures::stream::BoxStream<'static, reqwest::Result<Bytes>>,
        carry: Pcm16Carry,
        deadline: Instant,
    },
    Done,
}

impl Tts for OpenAiTts {
    fn synthesize(&self, text: &str) -> TtsStream {
        let start = State::Start(self.clone(), text.to_owned());
        Box::pin(futures::stream::unfold(start, |state| async move {
            let (tts, mut body, mut carry, deadline) = match state {
                State::Done => return None,
                State::Start(tts, text) => match tts.open(&text).await {
                    Ok((body, deadline)) => (tts, body, Pcm16Carry::new(), deadline),
                    Err(e) => return Some((Err(e), State::Done)),
                },
                State::Streaming {
                    tts,
                    body,
                    carry,
                    deadline,
                } => (tts, body, carry, deadline),
            };
            loop {
                match tokio::time::timeout_at(deadline, body.next()).await {
                    Err(_) => return Some((Err(tts.remote.total_timeout()), State::Done)),
                    Ok(Some(Err(e))) => {
                        let err = tts.remote.cut(carry.total_bytes(), &e);
                        return Some((Err(err), State::Done));
                    }
                    Ok(Some(Ok(bytes))) => {
                        let samples = carry.push(&bytes);
                        if samples.is_empty() {
                            continue;
                        }
                        let chunk = AudioChunk::new(samples, OPENAI_PCM_RATE);
                        let next = State::Streaming {
                            tts,
                            body,
                            carry,
                            deadline,
                        };
                        return Some((Ok(chunk), next));
                    }
                    Ok(None) => {
                        if carry.total_bytes() == 0 {
                            let err = tts.remote.decode("HTTP 200 with no audio in the body");
                            return Some((Err(err), State::Done));
                        }
                        if carry.has_partial() {
                            let err = crate::error::VoiceError::StreamCut {
                                provider: tts.remote.label.clone(),
                                bytes: carry.total_bytes(),
                                detail: "the body ended inside a 16-bit sample".to_owned(),
                            };
                            return Some((Err(err), State::Done));
                        }
                        return None;
                    }
                }
            }
        }))
    }

    fn sample_rate(&self) -> u32 {
        OPENAI_PCM_RATE
    }
}

impl OpenAiTts {
    async fn open(
        &self,
        text: &str,
    ) -> Result<
        (
            futures::stream::BoxStream<'static, reqwest::Result<Bytes>>,
            Instant,
        ),
        VoiceError,
    > {
        if text.trim().is_empty() {
            return Err(VoiceError::InvalidRequest {
                provider: self.remote.label.clone(),
                detail: "the line to speak is empty; give it some text".to_owned(),
            });
        }
        let chars = text.chars().count();
        if chars > MAX_INPUT_CHARS {
            return Err(VoiceError::InvalidRequest {
                provider: self.remote.label.clone(),
                detail: format!(
                    "the line to speak has {chars} characters, more than the {MAX_INPUT_CHARS} \
                     the endpoint takes; split it into shorter lines"
                ),
            });
        }
        let deadline = Instant::now() + self.remote.options.total_timeout;
        let request = self.remote.http.post(&self.url).json(&self.body(text));
        let response = self.remote.send(request, deadline).await?;
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("application/json") || content_type.starts_with("text/") {
            let text = response.text().await.unwrap_or_default();
            return Err(self.remote.decode(format!(
                "HTTP 200 with {content_type} instead of audio ({}); check base_url",
                crate::http::excerpt(&text)
            )));
        }
        Ok((response.bytes_stream().boxed(), deadline))
    }
}
