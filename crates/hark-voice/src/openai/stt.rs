//! `POST {base_url}/audio/transcriptions`: a multipart form with the utterance as a WAV `file`,
//! `model` and `response_format=json` (plus `language` and `prompt` when set); the reply is
//! `{"text": "…"}`.

use futures::future::BoxFuture;
use reqwest::multipart::{Form, Part};
use tokio::time::Instant;

use crate::audio::AudioChunk;
use crate::error::{ProviderLabel, Role, VoiceError};
use crate::http::{HttpOptions, Remote};
use crate::stt::{Stt, Transcript};
use crate::wav::write_wav;

/// Settings of an [`OpenAiStt`].
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiSttConfig {
    /// API root, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The key, read by the caller from the environment.
    pub api_key: Option<String>,
    /// `model`, e.g. `whisper-1` or `gpt-4o-mini-transcribe`.
    pub model: String,
    /// `language` (ISO-639-1, e.g. `en`), sent only when set.
    pub language: Option<String>,
    /// `prompt`, sent only when set.
    pub prompt: Option<String>,
    /// Time limits.
    pub options: HttpOptions,
}

impl OpenAiSttConfig {
    /// Settings for `model` at `base_url`, default limits, no key.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            language: None,
            prompt: None,
            options: HttpOptions::default(),
        }
    }
}

/// STT over an OpenAI-compatible `/audio/transcriptions` endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiStt {
    remote: Remote,
    url: String,
    model: String,
    language: Option<String>,
    prompt: Option<String>,
}

impl OpenAiStt {
    /// A client with these settings.
    pub fn new(config: OpenAiSttConfig) -> Self {
        let base = config.base_url.trim_end_matches('/').to_owned();
        let label = ProviderLabel::remote(super::KIND, Role::Stt, &base);
        Self {
            remote: Remote::new(label, config.api_key, config.options),
            url: format!("{base}/audio/transcriptions"),
            model: config.model,
            language: config.language,
            prompt: config.prompt,
        }
    }

    /// The label its errors carry.
    pub fn label(&self) -> &ProviderLabel {
        &self.remote.label
    }

    async fn run(self, utterance: AudioChunk) -> Result<Transcript, VoiceError> {
        if utterance.is_empty() {
            return Err(VoiceError::InvalidRequest {
                provider: self.remote.label.clone(),
                detail: "the utterance has no audio".to_owned(),
            });
        }
        let wav = write_wav(&utterance)?;
        let file = Part::bytes(wav)
            .file_name("utterance.wav")
            .mime_str("audio/wav")
            .map_err(|e| self.remote.decode(e.to_string()))?;
        let mut form = Form::new()
            .part("file", file)
            .text("model", self.model.clone())
            .text("response_format", "json");
        if let Some(language) = &self.language {
            form = form.text("language", language.clone());
        }
        if let Some(prompt) = &self.prompt {
            form = form.text("prompt", prompt.clone());
        }
        let deadline = Instant::now() + self.remote.options.total_timeout;
        let request = self.remote.http.post(&self.url).multipart(form);
        let response = self.remote.send(request, deadline).await?;
        let body = match tokio::time::timeout_at(deadline, response.bytes()).await {
            Err(_) => return Err(self.remote.total_timeout()),
            Ok(Err(e)) => return Err(self.remote.cut(0, &e)),
            Ok(Ok(b)) => b,
        };
        let value: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
            self.remote.decode(format!(
                "not JSON ({e}): {}",
                crate::http::excerpt(&String::from_utf8_lossy(&body))
            ))
        })?;
        match value.get("text").and_then(|t| t.as_str()) {
            Some(text) => Ok(Transcript::final_text(text.trim())),
            None => Err(self.remote.decode(format!(
                "no \"text\" string in the JSON reply: {}",
                crate::http::excerpt(&value.to_string())
            ))),
        }
    }
}

impl Stt for OpenAiStt {
    fn transcribe(
        &self,
        utterance: AudioChunk,
    ) -> BoxFuture<'static, Result<Transcript, VoiceError>> {
        Box::pin(self.clone().run(utterance))
    }
}
