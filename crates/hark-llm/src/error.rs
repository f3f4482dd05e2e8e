//! Errors of a provider call: each names the provider and its endpoint, and never holds the key.
//!
//! Errors name the provider and the status. The sentences live in
//! [`crate::messages`].

use std::time::Duration;

use crate::messages;

/// Which provider and endpoint an error came from: `openai-compatible at http://host/v1`.
///
/// `endpoint` is the base URL without user info, query or fragment, so it never carries a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderLabel {
    /// `openai-compatible`, `anthropic` or `gemini`.
    pub kind: &'static str,
    /// The base URL, cleaned of credentials and query.
    pub endpoint: String,
}

impl ProviderLabel {
    /// A label for `kind` at `base_url`; user info (`user:pass@`), query and fragment are removed.
    pub fn new(kind: &'static str, base_url: &str) -> Self {
        Self {
            kind,
            endpoint: clean_endpoint(base_url),
        }
    }
}

impl std::fmt::Display for ProviderLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&messages::provider_label(self.kind, &self.endpoint))
    }
}

fn clean_endpoint(base_url: &str) -> String {
    let mut s = base_url;
    if let Some(i) = s.find(['?', '#']) {
        s = &s[..i];
    }
    let (scheme, rest) = match s.find("://") {
        Some(i) => (&s[..i + 3], &s[i + 3..]),
        None => ("", s),
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(host_end);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    format!("{scheme}{authority}{path}")
        .trim_end_matches('/')
        .to_owned()
}

/// A tool call that was still open when a stream ended: which one, so the caller can say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCall {
    /// Position among the turn's calls (0-based).
    pub index: usize,
    /// The call id, when it had arrived.
    pub id: String,
    /// The tool name, when it had arrived (may be empty).
    pub name: String,
}

/// Everything that can go wrong talking to a provider.
///
/// `Display` gives one sentence naming the provider, e.g.
/// `openai-compatible at http://127.0.0.1:8080/v1: HTTP 429: Rate limit reached`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The provider answered with an error status (before streaming) or an error event (during).
    #[error("{}", messages::http_error(provider, *status, message))]
    Http {
        /// Who answered.
        provider: ProviderLabel,
        /// The HTTP status (for an error event inside a stream: its code, or 500 when it has none).
        status: u16,
        /// A short excerpt of the provider's error message (at most
        /// [`messages::EXCERPT_CHARS`] characters, the key redacted).
        message: String,
        /// The `Retry-After` the provider asked for, if any.
        retry_after: Option<Duration>,
    },
    /// The connection could not be made or broke before any reply.
    #[error("{}", messages::connect_error(provider, detail))]
    Connect {
        /// Whom we tried to reach.
        provider: ProviderLabel,
        /// What the HTTP client said (no URL query, no key).
        detail: String,
    },
    /// No reply (headers) or no next stream chunk within the configured time.
    #[error("{}", messages::timeout(provider, phase, *after))]
    Timeout {
        /// Whom we waited for.
        provider: ProviderLabel,
        /// What we were waiting for: [`TimeoutPhase`].
        phase: TimeoutPhase,
        /// The limit that ran out.
        after: Duration,
    },
    /// The stream ended (or broke) before the provider finished the turn.
    #[error("{}", messages::stream_cut(provider, open_call.as_ref()))]
    StreamCut {
        /// Whose stream.
        provider: ProviderLabel,
        /// The tool call that was still arriving, if one was.
        open_call: Option<OpenCall>,
    },
    /// The provider sent something this client cannot read.
    #[error("{}", messages::decode_error(provider, detail))]
    Decode {
        /// Whose reply.
        provider: ProviderLabel,
        /// What was wrong with it.
        detail: String,
    },
    /// The request cannot be expressed for this provider (e.g. a tool result whose call is not
    /// in the history, which Gemini needs for the tool's name).
    #[error("{}", messages::invalid_request(provider, detail))]
    InvalidRequest {
        /// For whom the request was built.
        provider: ProviderLabel,
        /// What to fix.
        detail: String,
    },
}

/// What a [`LlmError::Timeout`] was waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// The response headers (time to first byte).
    FirstByte,
    /// The next chunk of a started stream (idle time).
    NextChunk,
}

impl LlmError {
    /// The provider this error names.
    pub fn provider(&self) -> &ProviderLabel {
        match self {
            LlmError::Http { provider, .. }
            | LlmError::Connect { provider, .. }
            | LlmError::Timeout { provider, .. }
            | LlmError::StreamCut { provider, .. }
            | LlmError::Decode { provider, .. }
            | LlmError::InvalidRequest { provider, .. } => provider,
        }
    }

    /// The HTTP status, for [`LlmError::Http`].
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The error as an end user's client may read it: the provider's kind, the status and
    /// what happened, without the endpoint (an internal address), the provider's own message
    /// (which may quote a key's fragment or the request) or the connection's detail. The
    /// server's log keeps the whole [`Display`](std::fmt::Display) text.
    pub fn for_client(&self) -> String {
        let kind = ProviderLabel {
            kind: self.provider().kind,
            endpoint: String::new(),
        };
        match self {
            LlmError::Http { status, .. } => messages::http_error(&kind, *status, ""),
            LlmError::Connect { .. } => messages::connect_failed_for_client(&kind),
            LlmError::Timeout { phase, after, .. } => messages::timeout(&kind, phase, *after),
            LlmError::StreamCut { open_call, .. } => {
                messages::stream_cut(&kind, open_call.as_ref())
            }
            LlmError::Decode { .. } => messages::decode_failed_for_client(&kind),
            LlmError::InvalidRequest { detail, .. } => messages::invalid_request(&kind, detail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_reads_no_endpoint_and_no_provider_text() {
        let provider = ProviderLabel::new("openai-compatible", "http://10.0.0.7:8000/v1");
        let http = LlmError::Http {
            provider: provider.clone(),
            status: 401,
            message: "Incorrect API key provided: sk-proj-****abcd".into(),
            retry_after: None,
        };
        assert!(
            http.to_string().contains("10.0.0.7"),
            "the log keeps it all"
        );
        assert_eq!(http.for_client(), "openai-compatible: HTTP 401");
        let connect = LlmError::Connect {
            provider,
            detail: "dns error: llm.internal.example".into(),
        };
        assert_eq!(
            connect.for_client(),
            "openai-compatible: could not connect. The server's log has the details."
        );
    }

    #[test]
    fn endpoint_loses_credentials_query_and_trailing_slash() {
        assert_eq!(
            clean_endpoint("https://user:sk-secret@api.example.com/v1/?key=sk-secret#x"),
            "https://api.example.com/v1"
        );
        assert_eq!(
            clean_endpoint("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
    }
}
