//! Webhook tools that are safe to point at the internet.
//!
//! The user guide's page `docs/guide/webhooks.md` shows each part below in use.
//!
//! [`webhook_tool`] builds a [`hark_tools::ToolSpec`] whose executor sends one HTTP request per
//! call and returns the answer's JSON to the model:
//!
//! - **Build checks** (all problems at once): https (http only with `allow_private_network`), a
//!   host, no user info, no fragment, port 1–65535, no IP-literal host in a refused range, a GET
//!   tool's input or locked names not among the URL's query values, no fixed `Authorization`
//!   header next to `auth` (any letter case).
//! - **Network guard** ([`NetworkGuard`], off only with `allow_private_network`): private,
//!   loopback, link-local, unique-local, multicast, unspecified, CGNAT, documentation,
//!   benchmarking, broadcast and metadata addresses are refused in every spelling, on the first
//!   request and on every redirect hop (at most 5); names are resolved once and the checked
//!   address is the one connected to. See [`addr`] for the exact ranges. A request with `auth`
//!   or fixed headers follows redirects only within its first URL's origin, so a key never
//!   reaches another host.
//! - **One deadline** (default 10 s) over credentials, DNS, connection, redirects and the whole
//!   answer; **64 KiB caps** on the request and on the answer, read as a stream.
//! - **Errors**: the model reads the status and a short excerpt ([`body::excerpt`]); sinks and
//!   logs get the status only ([`hark_tools::ToolError::event_text`]).
//! - **Auth** ([`WebhookAuth`]) from an environment variable or an async token function, and
//!   optional HMAC signing ([`WebhookSigning`], header `X-Hark-Signature`, see [`auth`]).
//! - **`wait_for_response(false)`**: `{"ok": true, "accepted": true}` at once; the request runs
//!   on the call's [`hark_tools::CallHooks`], which let it finish when the call ends.
//! - **Body shapes**: the arguments object, or the envelope documented in [`body`].
//! - **Locked arguments** ([`WebhookToolBuilder::locked`], values [`Locked`]: a template like
//!   `"{{customer.id}}"` or `"{{call.session_id}}"`, or [`Transcript`]) are locked on the built
//!   [`hark_tools::ToolSpec`] with [`hark_tools::ToolSpec::locked`] (the guide's
//!   `docs/guide/locked-values-and-transcript.md`): the model's schema never has them, a value the
//!   model sends is replaced, the registry fills them before the call and refuses the call with a
//!   hint while a value is unset, and a registry built with a State type checks their paths. A name
//!   the input lacks is added to what the webhook receives. Build fails on `{{@name}}` spellings
//!   (naming the new one) and, for GET, on a locked name that is also a URL query value.
//!
//! ```
//! use axum::{Json, Router, routing::post};
//! use hark_tools::{CallInfo, ToolContext, ToolRegistry};
//! use hark_webhook::{webhook_tool, Method};
//! use serde_json::{json, Value};
//!
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! struct OrderQuery {
//!     /// The order id the caller reads out.
//!     order_id: String,
//! }
//!
//! #[derive(schemars::JsonSchema, serde::Serialize)]
//! struct Order {
//!     status: String,
//! }
//!
//! // A public URL with a private address fails at build, naming the fix.
//! let refused = webhook_tool("lookup_order", "Look up an order.", "https://127.0.0.1/orders")
//!     .input::<OrderQuery>()
//!     .output::<Order>()
//!     .build()
//!     .unwrap_err();
//! assert!(refused.to_string().contains("127.0.0.1 is loopback"));
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! // Your own service on localhost: allow_private_network (never for URLs others write).
//! let app = Router::new().route("/orders", post(|Json(args): Json<Value>| async move {
//!     let (order, session) = (args["order_id"].as_str(), args["session"].as_str());
//!     Json(json!({"status": format!("{} shipped ({})", order.unwrap_or("?"), session.unwrap_or("?"))}))
//! }));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! let url = format!("http://{}/orders", listener.local_addr().unwrap());
//! tokio::spawn(async move { axum::serve(listener, app).await });
//!
//! let tool = webhook_tool("lookup_order", "Look up an order by its id.", url)
//!     .method(Method::Post)
//!     .input::<OrderQuery>()
//!     .output::<Order>()
//!     .allow_private_network(true)
//!     // Locked: the model never sees `session`; the registry fills it from the call.
//!     .locked("session", "{{call.session_id}}")
//!     .build()
//!     .unwrap();
//! assert_eq!(tool.model_parameters()["properties"].as_object().unwrap().len(), 1);
//! let registry = ToolRegistry::new(vec![tool]).unwrap();
//! let call = CallInfo { session_id: "s-1".into(), ..CallInfo::default() };
//! let context = ToolContext { call, ..ToolContext::default() };
//! let sent = r#"{"order_id": "A-12", "session": "forged"}"#;
//! let outcome = registry.call("lookup_order", sent, &context).await;
//! assert_eq!(outcome.model_text(), r#"{"status":"A-12 shipped (s-1)"}"#);
//! # });
//! ```

pub mod addr;
pub mod auth;
pub mod body;
pub mod builder;
pub mod client;
pub mod executor;
pub mod guard;
pub mod messages;

pub use auth::{
    AuthFailure, SIGNATURE_HEADER, TokenSource, WebhookAuth, WebhookSigning, signature,
};
pub use body::BodyShape;
pub use builder::{MAX_TIMEOUT, WebhookOptions, WebhookToolBuilder, webhook_tool};
pub use client::{
    BODY_CAP, DEFAULT_TIMEOUT, SendError, WebhookAnswer, WebhookClient, WebhookRequest,
};
pub use executor::{Clock, Method, WebhookExecutor};
pub use guard::{DEFAULT_MAX_REDIRECTS, GuardRefusal, NetworkGuard, Resolver, SystemResolver};
/// The value of a locked argument and the transcript value: hark-tools' own types (one
/// mechanism for every tool; see [`hark_tools::ToolSpec::locked`]).
pub use hark_tools::{Locked, Transcript};
