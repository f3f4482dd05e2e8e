//! `webhook_tool`: builds a [`ToolSpec`] whose executor is a guarded webhook, with every build
//! check the crate docs list (URL, auth, limits, private addresses, locked arguments), all
//! problems at once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use schemars::JsonSchema;
use serde_json::{Value, json};
use url::{Host, Url};

use futures::future::BoxFuture;
use hark_tools::schema::schema_of;
use hark_tools::{
    Arguments, BuildError, Locked, Output, ToolContext, ToolError, ToolExecutor, ToolSpec,
};

use crate::addr::check_ip;
use crate::auth::{SIGNATURE_HEADER, WebhookAuth, WebhookSigning};
use crate::body::BodyShape;
use crate::client::{DEFAULT_TIMEOUT, WebhookClient};
use crate::executor::{Clock, Inner, Method, WebhookExecutor};
use crate::messages;

/// The longest timeout a webhook may set: 600 seconds.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// Headers Hark sets itself; a fixed one fails at build.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "content-type",
    "te",
    "upgrade",
];

/// Settings shared by several webhook tools ("webhook_tool": `WebhookOptions`). Each `Some` field
/// overrides the tool's default when applied with [`WebhookToolBuilder::options`]; a setter
/// called after `options` wins.
///
/// ```
/// use std::time::Duration;
/// use hark_webhook::WebhookOptions;
///
/// let options = WebhookOptions {
///     timeout: Some(Duration::from_secs(5)),
///     wait_for_response: Some(false),
///     ..WebhookOptions::default()
/// };
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct WebhookOptions {
    /// The one deadline (default 10 s, at most [`MAX_TIMEOUT`]).
    pub timeout: Option<Duration>,
    /// `false`: answer `{"ok": true, "accepted": true}` at once and send in the background.
    pub wait_for_response: Option<bool>,
    /// Accept private addresses and plain http (off by default; never for URLs others write).
    pub allow_private_network: Option<bool>,
    /// The credential.
    pub auth: Option<WebhookAuth>,
    /// HMAC signing of the body (`X-Hark-Signature`).
    pub signing: Option<WebhookSigning>,
    /// The body shape of POST, PUT, PATCH and DELETE.
    pub body: Option<BodyShape>,
    /// Extra headers, added to the tool's own.
    pub headers: Vec<(String, String)>,
    /// The client (and so the network guard) to send with.
    pub client: Option<WebhookClient>,
}

struct Parts {
    executor: WebhookExecutor,
    output: Output,
    name: String,
    description: String,
}

enum OutputChoice {
    Unset,
    Done,
    Accepted,
    Other(Output),
}

/// Builds one webhook tool; start with [`webhook_tool`]. Every problem is reported at once by
/// [`build`](Self::build).
pub struct WebhookToolBuilder {
    name: String,
    description: String,
    url: String,
    method: Method,
    parameters: Value,
    output: OutputChoice,
    locked: BTreeMap<String, Locked>,
    auth: Option<WebhookAuth>,
    signing: Option<WebhookSigning>,
    body: BodyShape,
    timeout: Duration,
    wait_for_response: bool,
    allow_private_network: bool,
    headers: Vec<(String, String)>,
    client: Option<WebhookClient>,
    clock: Clock,
}

impl std::fmt::Debug for WebhookToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookToolBuilder")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

/// Starts a webhook tool named `name` that the model reads as `description` and that sends to
/// `url` (checked by [`build`](WebhookToolBuilder::build)). Defaults: POST, plain body, no input
/// arguments, 10 s timeout, waits for the answer, private network refused.
///
/// `webhook_tool("lookup_order", "Look up an order by its id.", URL).method(Method::Get)
/// .input::<OrderQuery>().output::<Order>().build()`
pub fn webhook_tool(
    name: impl Into<String>,
    description: impl Into<String>,
    url: impl Into<String>,
) -> WebhookToolBuilder {
    WebhookToolBuilder {
        name: name.into(),
        description: description.into(),
        url: url.into(),
        method: Method::Post,
        parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        output: OutputChoice::Unset,
        locked: BTreeMap::new(),
        auth: None,
        signing: None,
        body: BodyShape::Plain,
        timeout: DEFAULT_TIMEOUT,
        wait_for_response: true,
        allow_private_network: false,
        headers: Vec::new(),
        client: None,
        clock: Arc::new(Timestamp::now),
    }
}

impl WebhookToolBuilder {
    /// The HTTP method (default POST). GET sends the arguments as query values.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// The input type: its JSON Schema is what the model reads.
    pub fn input<T: JsonSchema>(mut self) -> Self {
        self.parameters = schema_of::<T>();
        self
    }

    /// A hand-written parameters schema (the dynamic path).
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = schema;
        self
    }

    /// The output type a successful answer must fit.
    pub fn output<T: JsonSchema>(mut self) -> Self {
        self.output = OutputChoice::Other(Output::of::<T>());
        self
    }

    /// Any [`Output`], such as a hand-written `Output::json`.
    pub fn output_json(mut self, output: Output) -> Self {
        self.output = OutputChoice::Other(output);
        self
    }

    /// Output `Done`: `{"ok": true}` (what an empty answer gives).
    pub fn output_done(mut self) -> Self {
        self.output = OutputChoice::Done;
        self
    }

    /// Output `Accepted`: the output of a webhook that does not wait.
    pub fn output_accepted(mut self) -> Self {
        self.output = OutputChoice::Accepted;
        self
    }

    /// Locks argument `name` ("Locked arguments", "Send the transcript") to a template
    /// (`"{{customer.id}}"`, `"{{call.session_id}}"`, `"Customer {{name}}"`) or to the
    /// transcript ([`Transcript`](hark_tools::Transcript)`{ max_messages }`). Calling it again
    /// for the same name replaces the value.
    ///
    /// [`build`](Self::build) locks it on the [`ToolSpec`] with [`ToolSpec::locked`]: the model
    /// never sees the argument, a value the model sends is replaced, and the registry fills it
    /// before the call from the call state, what the call carries or the transcript, refusing
    /// the call with a hint while a value is unset. A name the input does not have is added to
    /// the arguments the webhook receives, with no type. Build fails on a template that does not
    /// parse (`{{@call_id}}` names its new spelling), a transcript on a parameter that is not an
    /// array, and, for GET, a name that is also a query value of the URL. A registry built with
    /// a State type checks each path.
    pub fn locked(mut self, name: impl Into<String>, value: impl Into<Locked>) -> Self {
        self.locked.insert(name.into(), value.into());
        self
    }

    /// The credential ("WebhookAuth").
    pub fn auth(mut self, auth: WebhookAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Signs every request with HMAC-SHA256 (`X-Hark-Signature`, see [`crate::auth`]).
    pub fn signing(mut self, signing: WebhookSigning) -> Self {
        self.signing = Some(signing);
        self
    }

    /// The body shape (default [`BodyShape::Plain`]).
    pub fn body(mut self, body: BodyShape) -> Self {
        self.body = body;
        self
    }

    /// The one deadline for DNS, connection, every redirect and the answer (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// `false`: the model reads `{"ok": true, "accepted": true}` at once; the request goes on in
    /// the call's background and the call's hooks let it finish when the call ends.
    pub fn wait_for_response(mut self, wait: bool) -> Self {
        self.wait_for_response = wait;
        self
    }

    /// Accepts private, loopback and link-local addresses and plain http. Off by default.
    pub fn allow_private_network(mut self, allow: bool) -> Self {
        self.allow_private_network = allow;
        self
    }

    /// A fixed extra header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends with `client` (and its network guard) instead of the shared one.
    pub fn client(mut self, client: WebhookClient) -> Self {
        self.client = Some(client);
        self
    }

    /// The clock for `sent_at` and signatures (default: the system clock).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Applies shared settings (see [`WebhookOptions`]).
    pub fn options(mut self, options: &WebhookOptions) -> Self {
        if let Some(t) = options.timeout {
            self.timeout = t;
        }
        if let Some(w) = options.wait_for_response {
            self.wait_for_response = w;
        }
        if let Some(a) = options.allow_private_network {
            self.allow_private_network = a;
        }
        if let Some(a) = &options.auth {
            self.auth = Some(a.clone());
        }
        if let Some(s) = &options.signing {
            self.signing = Some(s.clone());
        }
        if let Some(b) = options.body {
            self.body = b;
        }
        if let Some(c) = &options.client {
            self.client = Some(c.clone());
        }
        self.headers.extend(options.headers.iter().cloned());
        self
    }

    /// Checks everything and builds the executor alone (for your own `ToolSpec`, or tests).
    /// [`build`](Self::build) is the usual way. Locked arguments are not applied here: they
    /// live on the `ToolSpec` (lock them there with [`ToolSpec::locked`]).
    pub fn build_executor(self) -> Result<WebhookExecutor, BuildError> {
        self.finish().map(|parts| parts.executor)
    }

    fn finish(self) -> Result<Parts, BuildError> {
        let mut problems = Vec::new();
        let name = self.name.clone();

        let client = match (&self.client, self.allow_private_network) {
            (Some(client), allow) => {
                if client.guard().allows_private() != allow {
                    problems.push(messages::client_guard_mismatch(&name));
                }
                Some(client.clone())
            }
            (None, false) => WebhookClient::shared().map_err(|e| problems.push(e)).ok(),
            (None, true) => WebhookClient::shared_private()
                .map_err(|e| problems.push(e))
                .ok(),
        };
        let allows_http =
            client.as_ref().is_some_and(|c| c.guard().allows_http()) || self.allow_private_network;
        // An address the client's guard allows exactly (`NetworkGuard::allow_address`).
        let exact = |url: &Url| {
            client
                .as_ref()
                .is_some_and(|c| c.guard().allows_address(url))
        };

        // The URL.
        let url = match Url::parse(&self.url) {
            Ok(url) => Some(url),
            Err(error) => {
                problems.push(messages::url_unreadable(&name, &error.to_string()));
                None
            }
        };
        let mut query_names = BTreeSet::new();
        if let Some(url) = &url {
            check_url(
                &name,
                url,
                allows_http || exact(url),
                self.allow_private_network || exact(url),
                &mut problems,
            );
            query_names = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
        }

        // GET: input and locked names must not be query values of the URL.
        if self.method == Method::Get {
            let inputs: Vec<String> = self
                .parameters
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            for arg in inputs.iter().filter(|a| query_names.contains(*a)) {
                problems.push(messages::get_query_clash(&name, "input", arg));
            }
            for arg in self.locked.keys().filter(|a| query_names.contains(*a)) {
                problems.push(messages::get_query_clash(&name, "locked", arg));
            }
        }

        // Headers.
        let mut headers = HeaderMap::new();
        for (header, value) in &self.headers {
            let lower = header.to_ascii_lowercase();
            if self.auth.is_some() && lower == "authorization" {
                problems.push(messages::authorization_with_auth(&name, header));
                continue;
            }
            if RESERVED_HEADERS.contains(&lower.as_str())
                || (self.signing.is_some() && lower == SIGNATURE_HEADER.to_ascii_lowercase())
            {
                problems.push(messages::header_reserved(&name, header));
                continue;
            }
            match (
                HeaderName::from_bytes(header.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(n), Ok(v)) => {
                    headers.append(n, v);
                }
                _ => problems.push(messages::header_invalid(&name, header)),
            }
        }
        let auth = match self.auth {
            Some(auth) => match HeaderName::from_bytes(auth.header_name().as_bytes()) {
                Ok(header) => {
                    if headers.contains_key(&header) {
                        problems.push(messages::authorization_with_auth(&name, auth.header_name()));
                    }
                    Some((auth, header))
                }
                Err(_) => {
                    problems.push(messages::auth_header_invalid(&name, auth.header_name()));
                    None
                }
            },
            None => None,
        };

        if self.timeout.is_zero() || self.timeout > MAX_TIMEOUT {
            problems.push(messages::timeout_out_of_range(&name, MAX_TIMEOUT.as_secs()));
        }

        let output = match (self.output, self.wait_for_response) {
            (OutputChoice::Accepted, _) | (OutputChoice::Unset, false) => Some(Output::accepted()),
            (_, false) => {
                problems.push(messages::output_not_accepted(&name));
                None
            }
            (OutputChoice::Done, true) => Some(Output::done()),
            (OutputChoice::Other(output), true) => Some(output),
            (OutputChoice::Unset, true) => {
                problems.push(messages::output_missing(&name));
                None
            }
        };

        let (Some(url), Some(client), Some(output), true) =
            (url, client, output, problems.is_empty())
        else {
            return Err(BuildError { problems });
        };
        let executor = WebhookExecutor::from_inner(Inner {
            name: name.clone(),
            method: self.method,
            url,
            query_names,
            body: self.body,
            auth,
            signing: self.signing,
            headers,
            timeout: self.timeout,
            wait_for_response: self.wait_for_response,
            client,
            clock: self.clock,
        });
        Ok(Parts {
            executor,
            output,
            name,
            description: self.description,
        })
    }

    /// Checks everything and builds the tool, its locked arguments locked with
    /// [`ToolSpec::locked`]. All problems come back at once in the [`BuildError`], one line each
    /// naming the tool and the fix: the webhook's own checks first, then the tool layer's (the
    /// name, the schema, the locked values). A name or schema the tool layer refuses hides the
    /// locked values' problems, since they are checked against that schema.
    pub fn build(self) -> Result<ToolSpec, BuildError> {
        let locked: Vec<(String, Locked)> = self
            .locked
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let parameters = with_locked_properties(&self.parameters, &self.locked);
        let (name, description) = (self.name.clone(), self.description.clone());
        let lock = |spec: ToolSpec| {
            if locked.is_empty() {
                Ok(spec)
            } else {
                spec.locked(locked.clone())
            }
        };
        match self.finish() {
            Ok(parts) => ToolSpec::new(
                parts.name,
                parts.description,
                parameters,
                parts.output,
                Arc::new(parts.executor),
            )
            .and_then(lock),
            Err(mut error) => {
                // Collect the tool layer's problems too, on a stand-in that never runs.
                let probe = ToolSpec::new(
                    name,
                    description,
                    parameters,
                    Output::done(),
                    Arc::new(Unbuilt),
                )
                .and_then(lock);
                if let Err(more) = probe {
                    error.problems.extend(more.problems);
                }
                Err(error)
            }
        }
    }
}

/// The full parameters schema: the input's, plus a property with no type for each locked name
/// the input does not have (so the webhook receives it; [`ToolSpec::locked`] hides it from the
/// model).
fn with_locked_properties(parameters: &Value, locked: &BTreeMap<String, Locked>) -> Value {
    let mut parameters = parameters.clone();
    if locked.is_empty() {
        return parameters;
    }
    if let Value::Object(root) = &mut parameters {
        let properties = root
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(properties) = properties {
            for name in locked.keys() {
                properties.entry(name.clone()).or_insert_with(|| json!({}));
            }
        }
    }
    parameters
}

/// The stand-in executor of a tool whose webhook checks failed: it exists only so the tool
/// layer can report its own problems in the same [`BuildError`], and is never returned.
#[derive(Debug)]
struct Unbuilt;

impl ToolExecutor for Unbuilt {
    fn run<'a>(
        &'a self,
        _arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { Err(ToolError::internal("the webhook tool was not built")) })
    }
}

/// The URL checks of "webhook_tool" 1 plus an IP-literal host in a refused range.
fn check_url(
    name: &str,
    url: &Url,
    allows_http: bool,
    allow_private: bool,
    problems: &mut Vec<String>,
) {
    match url.scheme() {
        "https" => {}
        "http" if allows_http => {}
        other => problems.push(messages::url_scheme(name, other)),
    }
    if !url.username().is_empty() || url.password().is_some() {
        problems.push(messages::url_user_info(name));
    }
    if url.fragment().is_some() {
        problems.push(messages::url_fragment(name));
    }
    if url.port() == Some(0) {
        problems.push(messages::url_port(name, 0));
    }
    let ip = match url.host() {
        None => {
            problems.push(messages::url_no_host(name));
            return;
        }
        Some(Host::Domain("")) => {
            problems.push(messages::url_no_host(name));
            return;
        }
        Some(Host::Domain(domain)) => {
            // `localhost` and `*.localhost` are loopback by definition (RFC 6761): refused here
            // like 127.0.0.1, not left to the resolver at call time.
            if !allow_private && crate::guard::is_loopback_name(domain) {
                problems.push(messages::url_private_host(name, domain, "loopback"));
            }
            return;
        }
        Some(Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
    };
    if !allow_private && let Err(why) = check_ip(ip) {
        problems.push(messages::url_private_host(name, &ip.to_string(), why.0));
    }
}
