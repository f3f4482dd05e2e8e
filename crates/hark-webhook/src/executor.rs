//! The executor of a webhook tool: turns checked arguments into one guarded HTTP request and
//! its answer into what the model reads.
//!
//! An answer with an empty body reads `{"ok": true}` to the model.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use jiff::Timestamp;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use url::Url;

use hark_tools::{Arguments, ToolContext, ToolError, ToolExecutor};

use crate::auth::{AuthFailure, WebhookAuth, WebhookSigning, signature};
use crate::body::{BodyShape, envelope, excerpt, query_pairs};
use crate::client::{BODY_CAP, SendError, WebhookAnswer, WebhookClient, WebhookRequest};
use crate::guard::GuardRefusal;
use crate::messages;

/// A clock: the time put in `sent_at` and in signatures. Injected so tests are exact.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The HTTP methods a webhook may use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Method {
    /// GET: the arguments go in the query; no body.
    Get,
    /// POST (the default): the body carries the arguments.
    #[default]
    Post,
    /// PUT: the body carries the arguments.
    Put,
    /// PATCH: the body carries the arguments.
    Patch,
    /// DELETE: the body carries the arguments.
    Delete,
}

impl Method {
    fn to_reqwest(self) -> reqwest::Method {
        match self {
            Self::Get => reqwest::Method::GET,
            Self::Post => reqwest::Method::POST,
            Self::Put => reqwest::Method::PUT,
            Self::Patch => reqwest::Method::PATCH,
            Self::Delete => reqwest::Method::DELETE,
        }
    }
}

/// Runs one webhook tool. Built by [`webhook_tool`](crate::webhook_tool); cheap to clone.
///
/// It sends the arguments it is given. Locked arguments live on the [`hark_tools::ToolSpec`]
/// that [`build`](crate::WebhookToolBuilder::build) returns: the registry fills them before the
/// executor runs, so an executor run on its own sends no locked value.
#[derive(Clone)]
pub struct WebhookExecutor {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) name: String,
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) query_names: BTreeSet<String>,
    pub(crate) body: BodyShape,
    pub(crate) auth: Option<(WebhookAuth, HeaderName)>,
    pub(crate) signing: Option<WebhookSigning>,
    pub(crate) headers: HeaderMap,
    pub(crate) timeout: Duration,
    pub(crate) wait_for_response: bool,
    pub(crate) client: WebhookClient,
    pub(crate) clock: Clock,
}

impl fmt::Debug for WebhookExecutor {
    /// Names, URL and settings; never a credential or a header value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("WebhookExecutor")
            .field("name", &i.name)
            .field("method", &i.method)
            .field("url", &i.url.as_str())
            .field("body", &i.body)
            .field(
                "auth",
                &i.auth.as_ref().map(|(a, _)| a.header_name().to_string()),
            )
            .field("signed", &i.signing.is_some())
            .field(
                "headers",
                &i.headers.keys().map(|k| k.as_str()).collect::<Vec<_>>(),
            )
            .field("timeout", &i.timeout)
            .field("wait_for_response", &i.wait_for_response)
            .field("guard", i.client.guard())
            .finish()
    }
}

/// A request built from one call's arguments, before credentials are read.
struct Prepared {
    url: Url,
    body: Option<Vec<u8>>,
}

impl WebhookExecutor {
    pub(crate) fn from_inner(inner: Inner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The tool's URL as checked at build.
    pub fn url(&self) -> &Url {
        &self.inner.url
    }

    /// The tool's method.
    pub fn method(&self) -> Method {
        self.inner.method
    }

    /// The one deadline of a request.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// False for a webhook that answers `{"ok": true, "accepted": true}` at once.
    pub fn waits_for_response(&self) -> bool {
        self.inner.wait_for_response
    }
}

impl Inner {
    /// Clash check, body or query, and the size cap: everything that needs no network.
    fn prepare(
        &self,
        arguments: &Arguments,
        call: &hark_tools::CallInfo,
    ) -> Result<Prepared, ToolError> {
        let mut url = self.url.clone();
        let body = if self.method == Method::Get {
            if let Some(clash) = arguments
                .keys()
                .find(|name| self.query_names.contains(*name))
            {
                return Err(
                    ToolError::refused(messages::call_query_clash(&self.name, clash))
                        .with_event_text("argument clashes with a URL query value"),
                );
            }
            let pairs = query_pairs(arguments);
            if !pairs.is_empty() {
                url.query_pairs_mut().extend_pairs(pairs);
            }
            if url.as_str().len() > BODY_CAP {
                return Err(too_large(&self.name, url.as_str().len()));
            }
            None
        } else {
            let value = match self.body {
                BodyShape::Plain => Value::Object(arguments.clone()),
                BodyShape::Envelope => envelope(&self.name, arguments, call, (self.clock)()),
            };
            let bytes = serde_json::to_vec(&value).unwrap_or_default();
            if bytes.len() > BODY_CAP {
                return Err(too_large(&self.name, bytes.len()));
            }
            Some(bytes)
        };
        Ok(Prepared { url, body })
    }

    /// Reads credentials, signs, sends under the one deadline, and reads the answer.
    async fn perform(&self, prepared: Prepared) -> Result<Value, ToolError> {
        let deadline = self.timeout;
        let work = async {
            let mut headers = self.headers.clone();
            if prepared.body.is_some() {
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            }
            headers
                .entry(ACCEPT)
                .or_insert(HeaderValue::from_static("application/json"));
            if let Some((auth, header)) = &self.auth {
                let token = auth
                    .source()
                    .read()
                    .await
                    .map_err(|f| self.auth_error(&f))?;
                let value = HeaderValue::from_str(&auth.header_value(&token)).map_err(|_| {
                    self.auth_error(&AuthFailure::InvalidValue(
                        auth.source().label().to_string(),
                    ))
                })?;
                let mut value = value;
                value.set_sensitive(true);
                headers.insert(header.clone(), value);
            }
            if let Some(signing) = &self.signing {
                let secret = signing
                    .secret()
                    .read()
                    .await
                    .map_err(|f| self.auth_error(&f))?;
                let payload: &[u8] = match &prepared.body {
                    Some(body) => body,
                    None => prepared.url.query().unwrap_or("").as_bytes(),
                };
                let sig = signature(secret.as_bytes(), (self.clock)().as_second(), payload);
                if let Ok(value) = HeaderValue::from_str(&sig) {
                    headers.insert(HeaderName::from_static("x-hark-signature"), value);
                }
            }
            let request = WebhookRequest {
                method: self.method.to_reqwest(),
                url: prepared.url,
                headers,
                body: prepared.body,
                same_origin_redirects: self.auth.is_some() || !self.headers.is_empty(),
            };
            let answer = self
                .client
                .send(request, deadline)
                .await
                .map_err(|e| self.send_error(e))?;
            self.read_answer(answer)
        };
        match tokio::time::timeout(deadline, work).await {
            Ok(result) => result,
            Err(_) => Err(self.send_error(SendError::Timeout(deadline))),
        }
    }

    fn read_answer(&self, answer: WebhookAnswer) -> Result<Value, ToolError> {
        let status = answer.status;
        if !(200..300).contains(&status) {
            let excerpt = excerpt(&answer.body);
            return Err(ToolError::new(messages::error_status(
                &self.name,
                status,
                excerpt.as_deref(),
            ))
            .with_event_text(messages::event_status(status)));
        }
        if answer.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(messages::done());
        }
        serde_json::from_slice(&answer.body).map_err(|_| {
            ToolError::new(messages::answer_not_json(&self.name, status))
                .with_event_text(messages::event_status(status))
        })
    }

    fn auth_error(&self, failure: &AuthFailure) -> ToolError {
        ToolError::new(failure.model_text(&self.name)).with_event_text(messages::EVENT_AUTH)
    }

    fn send_error(&self, error: SendError) -> ToolError {
        let name = &self.name;
        match error {
            SendError::Refused(GuardRefusal::TooManyRedirects(limit)) => {
                ToolError::new(messages::too_many_redirects(name, limit))
                    .with_event_text(messages::EVENT_TOO_MANY_REDIRECTS)
            }
            SendError::Refused(GuardRefusal::Unresolved(host)) => {
                ToolError::new(messages::host_not_found(name, &host))
                    .with_event_text(messages::EVENT_HOST_NOT_FOUND)
            }
            SendError::Refused(refusal @ GuardRefusal::CrossOrigin(_)) => {
                ToolError::new(messages::address_refused(name, &refusal.to_string()))
                    .with_event_text(messages::EVENT_CROSS_ORIGIN)
            }
            SendError::Refused(refusal) => {
                ToolError::new(messages::address_refused(name, &refusal.to_string()))
                    .with_event_text(messages::EVENT_ADDRESS_REFUSED)
            }
            SendError::Timeout(d) => ToolError::new(messages::timed_out(name, d.as_secs_f64()))
                .with_event_text(messages::EVENT_TIMEOUT),
            SendError::RequestTooLarge(size) => too_large(name, size),
            SendError::AnswerTooLarge => ToolError::new(messages::answer_too_large(name))
                .with_event_text(messages::EVENT_ANSWER_TOO_LARGE),
            SendError::Unreachable => ToolError::new(messages::unreachable(name))
                .with_event_text(messages::EVENT_UNREACHABLE),
        }
    }

    /// Checks what can fail at once for a webhook that does not wait: environment credentials.
    fn precheck_credentials(&self) -> Result<(), ToolError> {
        let sources = self
            .auth
            .iter()
            .map(|(a, _)| a.source())
            .chain(self.signing.iter().map(|s| s.secret()));
        for source in sources {
            if let Some(Err(failure)) = source.read_now() {
                return Err(self.auth_error(&failure));
            }
        }
        Ok(())
    }
}

fn too_large(name: &str, size: usize) -> ToolError {
    ToolError::new(messages::request_too_large(name, size))
        .with_event_text(messages::EVENT_REQUEST_TOO_LARGE)
}

impl ToolExecutor for WebhookExecutor {
    /// Sends the request and returns the answer's JSON (`{"ok": true}` for an empty answer), or,
    /// with `wait_for_response = false`, `{"ok": true, "accepted": true}` at once while the
    /// request goes on in `context.hooks`' background.
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let prepared = inner.prepare(&arguments, &context.call)?;
            if inner.wait_for_response {
                return inner.perform(prepared).await;
            }
            inner.precheck_credentials()?;
            let owned = Arc::clone(&self.inner);
            // Counted under the tool's name, so a shutdown drain that gives up on it names it.
            context.hooks.spawn_background_for(&inner.name, async move {
                match owned.perform(prepared).await {
                    Ok(_) => tracing::debug!(tool = %owned.name, "background webhook answered"),
                    Err(error) => {
                        tracing::warn!(tool = %owned.name, error = %error.event_text(), "background webhook failed")
                    }
                }
            });
            Ok(messages::accepted())
        })
    }
}
