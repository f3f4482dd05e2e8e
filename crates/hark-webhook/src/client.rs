//! The HTTP client of webhooks: one deadline, size caps, and the network guard on every hop.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::HeaderMap;
use url::Url;

use crate::guard::{GuardRefusal, GuardResolve, NetworkGuard};
use crate::messages;

/// The cap on a request body and on an answer body: 64 KiB, the one cap on what a tool's result
/// the model reads may be ([`hark_tools::bounds::RESULT_CAP`]).
pub const BODY_CAP: usize = hark_tools::bounds::RESULT_CAP;

/// The default deadline of one webhook request: 10 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// One webhook request, ready to send.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// The HTTP method.
    pub method: reqwest::Method,
    /// The full URL, query included.
    pub url: Url,
    /// Headers to send (auth, signature, content type, fixed headers).
    pub headers: HeaderMap,
    /// The body, if any; at most [`BODY_CAP`] bytes.
    pub body: Option<Vec<u8>>,
    /// Follow redirects only within the first URL's origin (scheme, host, port). Set it when the
    /// request carries a credential or fixed headers: reqwest strips only `Authorization` and
    /// `Cookie` on a cross-host redirect, so an `X-API-Key` would follow to the other host.
    pub same_origin_redirects: bool,
}

/// A webhook's answer, read in full (at most [`BODY_CAP`] bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAnswer {
    /// The HTTP status code.
    pub status: u16,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// Why a request did not produce an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The guard refused the URL, a redirect hop or a resolved name. Nothing was sent there.
    #[error("refused: {0}")]
    Refused(GuardRefusal),
    /// The one deadline ran out (DNS, connect, redirects and body together).
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The request body is larger than the cap; nothing was sent.
    #[error("request of {0} bytes is over the cap")]
    RequestTooLarge(usize),
    /// The answer is larger than the cap; reading stopped at the cap.
    #[error("answer over the cap")]
    AnswerTooLarge,
    /// Connection refused or reset, TLS failure, closed early, malformed HTTP.
    #[error("unreachable")]
    Unreachable,
}

/// The HTTP client behind webhook tools: a reqwest client whose resolver and redirect policy are
/// a [`NetworkGuard`]'s, with no proxy (a proxy would bypass the guard), no retries, and no
/// decompression (no gzip bombs). Cheap to clone; share one per guard.
#[derive(Debug, Clone)]
pub struct WebhookClient {
    http: reqwest::Client,
    same_origin: reqwest::Client,
    guard: NetworkGuard,
}

impl WebhookClient {
    /// A client guarded by `guard`. Fails only when TLS cannot be set up; the text says so.
    pub fn new(guard: NetworkGuard) -> Result<Self, String> {
        let build = |same_origin: bool| {
            reqwest::Client::builder()
                .no_proxy()
                .dns_resolver(Arc::new(GuardResolve(guard.clone())))
                .redirect(guard.redirect_policy(same_origin))
                .retry(reqwest::retry::never())
                .referer(false)
                .user_agent(concat!("hark-webhook/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| messages::client_failed(&e.to_string()))
        };
        Ok(Self {
            http: build(false)?,
            same_origin: build(true)?,
            guard,
        })
    }

    /// The shared production client (`NetworkGuard::new()`), built once per process.
    pub fn shared() -> Result<Self, String> {
        static SHARED: OnceLock<Result<WebhookClient, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Self::new(NetworkGuard::new()))
            .clone()
    }

    /// The shared client for tools with `allow_private_network` on.
    pub fn shared_private() -> Result<Self, String> {
        static SHARED: OnceLock<Result<WebhookClient, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Self::new(NetworkGuard::allow_private_network()))
            .clone()
    }

    /// This client's guard.
    pub fn guard(&self) -> &NetworkGuard {
        &self.guard
    }

    /// Sends `request` under one deadline and reads the answer up to [`BODY_CAP`].
    ///
    /// The URL is checked by the guard before anything is sent; names are resolved through the
    /// guard; every redirect hop is checked. `deadline` covers everything until the last byte
    /// of the answer.
    pub async fn send(
        &self,
        request: WebhookRequest,
        deadline: Duration,
    ) -> Result<WebhookAnswer, SendError> {
        match tokio::time::timeout(deadline, self.send_unbounded(request)).await {
            Ok(result) => result,
            Err(_) => Err(SendError::Timeout(deadline)),
        }
    }

    async fn send_unbounded(&self, request: WebhookRequest) -> Result<WebhookAnswer, SendError> {
        if let Some(body) = &request.body
            && body.len() > BODY_CAP
        {
            return Err(SendError::RequestTooLarge(body.len()));
        }
        self.guard
            .check_url(&request.url)
            .map_err(SendError::Refused)?;
        let http = if request.same_origin_redirects {
            &self.same_origin
        } else {
            &self.http
        };
        let mut builder = http
            .request(request.method, request.url)
            .headers(request.headers);
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let mut response = builder.send().await.map_err(classify)?;
        let status = response.status().as_u16();
        if response
            .content_length()
            .is_some_and(|len| len > BODY_CAP as u64)
        {
            return Err(SendError::AnswerTooLarge);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(classify)? {
            if body.len() + chunk.len() > BODY_CAP {
                return Err(SendError::AnswerTooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(WebhookAnswer { status, body })
    }
}

/// Finds the guard's refusal in a reqwest error's source chain, or calls it unreachable.
fn classify(error: reqwest::Error) -> SendError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(err) = source {
        if let Some(refusal) = err.downcast_ref::<GuardRefusal>() {
            return SendError::Refused(refusal.clone());
        }
        source = err.source();
    }
    SendError::Unreachable
}
