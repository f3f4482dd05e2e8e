//! Credentials of a webhook (`WebhookAuth`) and optional HMAC signing of its body.
//!
//! A missing variable or a failing token source reads "could not authenticate" naming the
//! variable or the source's label, never a value (what to do about it: the guide's
//! `docs/guide/troubleshooting/could-not-authenticate.md`).
//!
//! Signing (optional): with [`WebhookSigning::hmac_sha256`], every request carries
//! `X-Hark-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">`, where the payload
//! is the exact request body, or for a GET the query string as sent (without `?`). The receiver
//! recomputes the HMAC with the shared secret, compares in constant time, and refuses a `t` older
//! than its tolerance (5 minutes is usual) to stop replays.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::messages;

/// The header that carries the signature: `X-Hark-Signature`.
pub const SIGNATURE_HEADER: &str = "X-Hark-Signature";

type TokenFn = dyn Fn() -> BoxFuture<'static, Result<String, Box<dyn std::error::Error + Send + Sync>>>
    + Send
    + Sync;

/// Where a credential comes from: an environment variable (read at each call) or an async token
/// function (a vault, a token exchange). `"CRM_KEY".into()` is the environment variable `CRM_KEY`.
#[derive(Clone)]
pub struct TokenSource {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Env(String),
    Function { label: String, f: Arc<TokenFn> },
}

impl fmt::Debug for TokenSource {
    /// Shows the variable name or the label, never a value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Env(name) => f.debug_tuple("TokenSource::Env").field(name).finish(),
            Kind::Function { label, .. } => {
                f.debug_tuple("TokenSource::Function").field(label).finish()
            }
        }
    }
}

impl From<&str> for TokenSource {
    fn from(variable: &str) -> Self {
        Self::env(variable)
    }
}

impl From<String> for TokenSource {
    fn from(variable: String) -> Self {
        Self::env(variable)
    }
}

/// Why a credential could not be read. Its text names the variable or label, never a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthFailure {
    /// The environment variable is not set or empty.
    EnvMissing(String),
    /// The token function returned an error (its text is dropped: it may hold a secret).
    SourceFailed(String),
    /// The value cannot be sent in an HTTP header.
    InvalidValue(String),
}

impl AuthFailure {
    /// The text the model reads for this failure of tool `tool`.
    pub fn model_text(&self, tool: &str) -> String {
        match self {
            Self::EnvMissing(var) => messages::auth_env_missing(tool, var),
            Self::SourceFailed(label) => messages::auth_source_failed(tool, label),
            Self::InvalidValue(label) => messages::auth_value_invalid(tool, label),
        }
    }
}

impl TokenSource {
    /// The environment variable `variable`, read at each call.
    pub fn env(variable: impl Into<String>) -> Self {
        Self {
            kind: Kind::Env(variable.into()),
        }
    }

    /// An async token function; `label` names it in errors ("the token source vault:crm failed").
    /// The function's error text is never shown or logged: it may hold a secret.
    pub fn function<F, Fut, E>(label: impl Into<String>, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, E>> + Send + 'static,
        E: Into<Box<dyn std::error::Error + Send + Sync>> + 'static,
    {
        let f: Arc<TokenFn> = Arc::new(move || {
            let fut = f();
            Box::pin(async move { fut.await.map_err(Into::into) })
        });
        Self {
            kind: Kind::Function {
                label: label.into(),
                f,
            },
        }
    }

    /// The variable name or the label.
    pub fn label(&self) -> &str {
        match &self.kind {
            Kind::Env(name) => name,
            Kind::Function { label, .. } => label,
        }
    }

    /// Reads an environment source now, without waiting: `Some(result)` for an environment
    /// variable, `None` for a function.
    pub fn read_now(&self) -> Option<Result<String, AuthFailure>> {
        match &self.kind {
            Kind::Env(name) => Some(read_env(name)),
            Kind::Function { .. } => None,
        }
    }

    /// Reads the credential.
    pub async fn read(&self) -> Result<String, AuthFailure> {
        match &self.kind {
            Kind::Env(name) => read_env(name),
            Kind::Function { label, f } => match f().await {
                Ok(value) if !value.is_empty() => Ok(value),
                _ => Err(AuthFailure::SourceFailed(label.clone())),
            },
        }
    }
}

/// An environment variable's value; unset, empty or not Unicode is "not set".
fn read_env(name: &str) -> Result<String, AuthFailure> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Ok(value),
        _ => Err(AuthFailure::EnvMissing(name.to_string())),
    }
}

/// How a webhook authenticates ("WebhookAuth").
#[derive(Debug, Clone)]
pub enum WebhookAuth {
    /// The credential in a header of your choice, like `X-API-Key: <key>`.
    ApiKey {
        /// Where the key comes from.
        source: TokenSource,
        /// The header name (checked when the tool is built).
        header: String,
    },
    /// `Authorization: Bearer <token>`.
    Bearer {
        /// Where the token comes from.
        source: TokenSource,
    },
}

impl WebhookAuth {
    /// `WebhookAuth::api_key("CRM_KEY", "X-API-Key")`: the value of `CRM_KEY` in `X-API-Key`.
    pub fn api_key(source: impl Into<TokenSource>, header: impl Into<String>) -> Self {
        Self::ApiKey {
            source: source.into(),
            header: header.into(),
        }
    }

    /// `WebhookAuth::bearer("ORDERS_TOKEN")`: `Authorization: Bearer <value of ORDERS_TOKEN>`.
    pub fn bearer(source: impl Into<TokenSource>) -> Self {
        Self::Bearer {
            source: source.into(),
        }
    }

    /// The credential's source.
    pub fn source(&self) -> &TokenSource {
        match self {
            Self::ApiKey { source, .. } | Self::Bearer { source } => source,
        }
    }

    /// The header this auth sets.
    pub fn header_name(&self) -> &str {
        match self {
            Self::ApiKey { header, .. } => header,
            Self::Bearer { .. } => "Authorization",
        }
    }

    /// The header value for credential `value`.
    pub(crate) fn header_value(&self, value: &str) -> String {
        match self {
            Self::ApiKey { .. } => value.to_string(),
            Self::Bearer { .. } => format!("Bearer {value}"),
        }
    }
}

/// HMAC-SHA256 signing of webhook requests (optional). See the module docs for the
/// `X-Hark-Signature` format.
#[derive(Debug, Clone)]
pub struct WebhookSigning {
    secret: TokenSource,
}

impl WebhookSigning {
    /// Signs with the shared secret from `secret` (an environment variable or a token function).
    pub fn hmac_sha256(secret: impl Into<TokenSource>) -> Self {
        Self {
            secret: secret.into(),
        }
    }

    /// Where the secret comes from.
    pub fn secret(&self) -> &TokenSource {
        &self.secret
    }
}

/// The `X-Hark-Signature` value for `payload` sent at `unix_seconds` with `secret`:
/// `t=<unix_seconds>,v1=<64 lower-case hex digits>`.
pub fn signature(secret: &[u8], unix_seconds: i64, payload: &[u8]) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    let digest = mac.finalize().into_bytes();
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    format!("t={unix_seconds},v1={hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_sha256_of_t_dot_payload() {
        // Expected value computed independently with Python's hmac module:
        // hmac.new(b"key", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
        assert_eq!(
            signature(b"key", 1_700_000_000, br#"{"a":1}"#),
            "t=1700000000,v1=a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03"
        );
    }

    #[test]
    fn missing_env_names_the_variable() {
        let source = TokenSource::env("HARK_TEST_SURELY_UNSET_VAR");
        let failure = source.read_now().unwrap().unwrap_err();
        assert_eq!(
            failure.model_text("lookup"),
            "lookup could not authenticate: the environment variable HARK_TEST_SURELY_UNSET_VAR is not set. Do not claim success."
        );
    }

    #[test]
    fn failing_function_names_the_label_not_the_error() {
        let source = TokenSource::function("vault:crm", || async {
            Err::<String, _>("secret-xyz leaked")
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let failure = rt.block_on(source.read()).unwrap_err();
        let text = failure.model_text("crm");
        assert!(text.contains("vault:crm") && !text.contains("secret-xyz"));
        assert!(!format!("{source:?}").contains("secret"));
    }
}
