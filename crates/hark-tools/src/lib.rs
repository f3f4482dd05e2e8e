//! Typed tools for voice agents: checked arguments, refusals the model can act on, results checked
//! against their output, provider schemas, and sinks that never see a value.
//!
//! Guide: `docs/guide/first-tool.md` and the pages after it.
//! A tool is a [`ToolSpec`] (what the model sees, built and checked
//! once) plus a [`ToolExecutor`] (what runs). Build one from a typed async function with the
//! [`tool`] attribute macro or [`ToolSpec::local`], or from a JSON Schema and your own executor
//! with [`ToolSpec::new`]. A [`ToolRegistry`] runs every call through the same path: read the
//! arguments → check them → precheck → announce → run → check the result → assign → replies →
//! what the model reads → sinks ([`ToolRegistry::call`] is that path with nothing said or
//! saved; [`ToolRegistry::call_live`] runs it in a call in progress).
//!
//! The vocabulary every part speaks sits at the bottom of the crate and imports nothing above it:
//! [`error`] ([`ToolError`]), [`sink`] ([`Source`], [`ToolEvent`]), [`outcome`] ([`ToolOutcome`],
//! [`CallResult`]), [`call`] ([`CallInfo`]), [`hooks`] ([`CallHooks`]), [`context`]
//! ([`ToolContext`], [`Arguments`]). The files above them import downwards only
//! (`scripts/import-cycles.py crates/hark-tools` lists the edges and finds no cycle).
//!
//! ```
//! use hark_tools::{tool, ToolContext, ToolError, ToolRegistry};
//! use jiff::civil::Date;
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Booking {
//!     reference: String,
//!     #[schemars(schema_with = "hark_tools::schema::date")]
//!     day: Date,
//! }
//!
//! /// Book a table.
//! ///
//! /// # Arguments
//! /// * `day` - The day the caller wants.
//! /// * `party` - How many people are coming.
//! #[tool]
//! async fn book_table(
//!     day: Date,
//!     #[arg(range(min = 1, max = 12))] party: u8,
//! ) -> Result<Booking, ToolError> {
//!     Ok(Booking { reference: format!("B-{party}"), day })
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let registry = ToolRegistry::new(vec![book_table_tool().unwrap()]).unwrap();
//! let context = ToolContext::default();
//!
//! let ok = registry.call("book_table", r#"{"day": "2026-10-16", "party": 4}"#, &context).await;
//! assert_eq!(ok.model_text(), r#"{"reference":"B-4","day":"2026-10-16"}"#);
//!
//! let bad = registry.call("book_table", r#"{"day": "2026-10-16", "party": 40}"#, &context).await;
//! assert!(bad.model_text().contains("party: 40 is greater than the maximum of 12"));
//!
//! let missing = registry.call("book_table", r#"{"party": 2}"#, &context).await;
//! assert_eq!(
//!     missing.model_result["refused"],
//!     "day is missing. Ask the caller for it, then call book_table again."
//! );
//! # });
//! ```
//!
//! In a call (part 2): the call's [`CallState`] (a typed State, what the call carries, language,
//! timezone, transcript), a [`LiveCall`] that speaks through the runtime's [`Speech`], and
//! [`ToolRegistry::call_live`], which fills locked values and announce lines, runs the tool
//! (cancelled when the caller talks over it, unless it `continue`s), saves assign rows in one
//! batch, says the first reply that matches, and reports `ends_conversation`.
//!
//! ```
//! use std::sync::Arc;
//! use hark_tools::{
//!     Assign, CallInfo, CallState, FixedClock, InMemorySpeech, LiveCall, ToolError,
//!     ToolRegistry, ToolReply, ToolSpec,
//! };
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Query { order_id: String }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Order {
//!     order_id: String,
//!     #[schemars(schema_with = "hark_tools::schema::date")]
//!     arrives: jiff::civil::Date,
//! }
//!
//! /// The call's State.
//! #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
//! struct State {
//!     /// The caller's order number.
//!     order_number: Option<String>,
//!     /// The customer's id in the CRM.
//!     customer_id: Option<String>,
//! }
//!
//! let find_order = ToolSpec::local("find_order", "Find an order.", |q: Query| async move {
//!     Ok::<_, ToolError>(Order { order_id: q.order_id, arrives: "2026-10-16".parse().unwrap() })
//! })?
//! .announce(["One moment."])?;
//! let registry = ToolRegistry::builder(vec![find_order])
//!     .state::<State>()
//!     .assign("find_order", [Assign::new("order_number", ["order_id"])])
//!     .replies([ToolReply::say(["Your order arrives {{result.arrives}}."]).tool("find_order")])
//!     .build()?;
//!
//! // One per call: 2026-10-15 at noon in New York.
//! let state = CallState::new(CallInfo::default(), "en-US", Some("America/New_York"));
//! let speech = Arc::new(InMemorySpeech::new());
//! let clock = Arc::new(FixedClock("2026-10-15T16:00:00Z".parse()?));
//! let live = LiveCall::with_clock(state, speech.clone(), clock)?;
//!
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! let generation = live.generation();
//! let done = registry.call_live("find_order", r#"{"order_id": "A-17"}"#, &live, &generation)
//!     .await
//!     .expect("not discarded");
//! assert_eq!(speech.lines(), ["One moment.", "Your order arrives tomorrow, October 16."]);
//! assert!(!done.ask_model_reply); // code spoke: no model reply
//! assert_eq!(live.state.get("order_number"), Some("A-17".into()));
//! # });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arguments;
pub mod bounds;
pub mod builtin;
pub mod call;
pub mod context;
pub mod error;
pub mod executor;
mod format_words;
pub mod hooks;
pub mod language;
mod lines;
pub mod live;
pub mod messages;
pub mod outcome;
pub mod output;
pub mod phone;
mod pipeline;
mod problems;
mod ranges;
pub mod registry;
pub mod reply;
mod rows;
pub mod schema;
pub mod sink;
pub mod spec;
pub mod speech;
pub mod state;
pub mod state_schema;
mod walk;

pub use builtin::{current_datetime_tool, end_call_tool, user_phone_number_tool};
pub use call::{CALL_VALUES, CallInfo, CallType};
pub use context::{Arguments, ToolContext, TranscriptMessage};
pub use error::{ArgumentsFault, PhoneFault, ToolError, ToolErrorKind};
pub use executor::{ToolExecutor, Validated};
pub use format_words::format_refused;
pub use hark_macros::tool;
pub use hark_schema::{ToolArguments, ToolDefinition};
pub use hark_speak::{FixedClock, Speaker};
pub use hooks::{CallHooks, DrainReport, HookCall, Next, Wrapped};
pub use live::{Checked, Generation, LiveCall};
pub use outcome::{CallResult, CallStatus, Discarded, ToolOutcome};
pub use output::{Output, OutputMismatch, is_error_result};
pub use phone::{Phone, PhoneError};
pub use registry::{ProviderTools, RawArguments, RegistryBuilder, ToolRegistry, replies_to};
pub use reply::{Assign, ToolReply};
pub use schema::Dialect;
pub use sink::{SinkError, Source, ToolEvent, ToolSink, ToolStage};
pub use spec::{BuildError, Interruption, Locked, Runner, ToolSpec, runner, to_result};
pub use speech::{InMemorySpeech, Speech, SpeechEvent};
pub use state::{CallState, State, StateModel, StateRefusal, Transcript};

/// What the `#[tool]` macro's generated code refers to. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use futures::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// The README's examples, run as doctests so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The repository README's "Define a tool" example, run as a doctest so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RootReadmeDoctests;
