//! Typed tools for voice agents: checked arguments, refusals the model can act on, results checked
//! against their output, provider schemas, and sinks that never see a value.
//!
//! Spec: `tools-reference.md`. A tool is a [`ToolSpec`] (what the model sees, built and checked
//! once) plus a [`ToolExecutor`] (what runs). Build one from a typed async function with the
//! [`tool`] attribute macro or [`ToolSpec::local`], or from a JSON Schema and your own executor
//! with [`ToolSpec::new`]. A [`ToolRegistry`] runs every call through the same path: parse →
//! check arguments → run → check the result → what the model reads → sinks.
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

pub mod call;
pub mod error;
pub mod executor;
pub mod messages;
pub mod output;
pub mod phone;
pub mod registry;
pub mod schema;
pub mod sink;
pub mod spec;

pub use call::{CallHooks, CallInfo, CallType, DrainReport};
pub use error::{ToolError, ToolErrorKind};
pub use executor::{Arguments, ToolContext, ToolExecutor};
pub use hark_macros::tool;
pub use output::{Output, OutputMismatch, is_error_result};
pub use phone::{Phone, PhoneError};
pub use registry::{
    CallStatus, ProviderTools, RawArguments, ToolDefinition, ToolOutcome, ToolRegistry, replies_to,
};
pub use schema::Dialect;
pub use sink::{SinkError, Source, ToolEvent, ToolSink, ToolStage};
pub use spec::{BuildError, Interruption, Runner, ToolSpec, runner, to_result};

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
