//! The HTTP side of the remote providers: time limits, the key, and error replies read into
//! [`VoiceError`]s.

use std::time::Duration;

use tokio::time::Instant;

use crate::error::{ProviderLabel, TimeoutPhase, VoiceError};
use crate::messages::EXCERPT_CHARS;

/// Time limits of a provider client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest wait for the TCP/TLS connection. Default 3 s.
    pub connect_timeout: Duration,
    /// Longest wait from sending the request to the response headers. Default 10 s.
    pub first_byte_timeout: Duration,
    /// Longest wait for the whole reply, from sending the request (for speech: the last audio
    /// byte). Default 60 s.
    pub total_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(3),
            first_byte_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(60),
        }
    }
}

/// A key whose `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub fn new(key: String) -> Self {
        Self(key)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// One remote provider's connection: client, label, limits, key.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    pub http: reqwest::Client,
    pub label: ProviderLabel,
    pub options: HttpOptions,
    pub secret: Option<Secret>,
}

/// Largest error body read for an excerpt.
const MAX_ERROR_BODY: usize = 64 * 1024;

impl Remote {
    pub fn new(label: ProviderLabel, api_key: Option<String>, options: HttpOptions) -> Self {
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .unwrap_or_default();
        Self {
            http,
            label,
            options,
            secret: api_key.filter(|k| !k.is_empty()).map(Secret::new),
        }
    }

    pub fn redact(&self, text: &str) -> String {
        match self.secret.as_ref().map(Secret::expose) {
            Some(k) if k.len() >= 4 => text.replace(k, "[redacted]"),
            _ => text.to_owned(),
        }
    }

    pub fn authorize(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.secret {
            Some(key) => request.bearer_auth(key.expose()),
            None => request,
        }
    }

    fn err_transport(&self, e: &reqwest::Error) -> VoiceError {
        if e.is_timeout() && e.is_connect() {
            return VoiceError::Timeout {
                provider: self.label.clone(),
                phase: TimeoutPhase::Connect,
                after: self.options.connect_timeout,
            };
        }
        VoiceError::Connect {
            provider: self.label.clone(),
            detail: self.redact(&error_chain(e)),
        }
    }

    /// Sends `request`; the response when its status is a success, else the error (status and
    /// the provider's own message). Waits at most `first_byte_timeout` for the headers, and never
    /// past `deadline`.
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
        deadline: Instant,
    ) -> Result<reqwest::Response, VoiceError> {
        let first_byte = Instant::now() + self.options.first_byte_timeout;
        let (limit, phase, after) = if first_byte <= deadline {
            (
                first_byte,
                TimeoutPhase::FirstByte,
                self.options.first_byte_timeout,
            )
        } else {
            (deadline, TimeoutPhase::Total, self.options.total_timeout)
        };
        let sent = self.authorize(request).send();
        let response = match tokio::time::timeout_at(limit, sent).await {
            Err(_) => {
                return Err(VoiceError::Timeout {
                    provider: self.label.clone(),
                    phase,
                    after,
                });
            }
            Ok(Err(e)) => return Err(self.err_transport(&e)),
            Ok(Ok(r)) => r,
        };
        if response.status().is_success() {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let body: String = tokio::time::timeout_at(deadline, read_limited(response))
            .await
            .unwrap_or_default();
        Err(VoiceError::Http {
            provider: self.label.clone(),
            status,
            message: self.redact(&error_message(&body)),
        })
    }

    /// The error for a body that broke after `bytes` bytes.
    pub fn cut(&self, bytes: u64, e: &reqwest::Error) -> VoiceError {
        VoiceError::StreamCut {
            provider: self.label.clone(),
            bytes,
            detail: self.redact(&error_chain(e)),
        }
    }

    pub fn total_timeout(&self) -> VoiceError {
        VoiceError::Timeout {
            provider: self.label.clone(),
            phase: TimeoutPhase::Total,
            after: self.options.total_timeout,
        }
    }

    pub fn decode(&self, detail: impl Into<String>) -> VoiceError {
        VoiceError::Decode {
            provider: self.label.clone(),
            detail: self.redact(&detail.into()),
        }
    }
}

/// reqwest's error with its sources, `a: b: c`.
fn error_chain(e: &reqwest::Error) -> String {
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail = format!("{detail}: {s}");
        source = s.source();
    }
    detail
}

/// At most [`MAX_ERROR_BODY`] bytes of an error body, as text.
async fn read_limited(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BODY {
            body.truncate(MAX_ERROR_BODY);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The provider's own words from an error body: `error.message` of OpenAI's
/// `{"error": {"message", "type", "code"}}`, a plain `message` or `detail` string (what many
/// self-hosted servers send), Deepgram's `err_msg` (with its `err_code`), else the body itself;
/// cut to [`EXCERPT_CHARS`] characters.
pub(crate) fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let pick = |v: &serde_json::Value| v.as_str().map(str::to_owned);
            v.pointer("/error/message")
                .and_then(pick)
                .or_else(|| v.get("error").and_then(pick))
                .or_else(|| v.get("message").and_then(pick))
                .or_else(|| v.get("detail").and_then(pick))
                .or_else(|| {
                    let text = v.get("err_msg").and_then(pick)?;
                    Some(match v.get("err_code").and_then(|c| c.as_str()) {
                        Some(code) => format!("{text} ({code})"),
                        None => text,
                    })
                })
        });
    excerpt(from_json.as_deref().unwrap_or(body).trim())
}

/// `text` cut to [`EXCERPT_CHARS`] characters, with `…` when cut.
pub(crate) fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
