//! The schema the model reads, and each LLM provider's dialect of it.
//!
//! Pure functions over [`serde_json::Value`], no Hark dependencies. The user guide's
//! `docs/guide/providers-and-schema-dialects.md` shows the rules for a hand-written schema and
//! what each provider reads.
//!
//! - [`normalise`] turns a tool's JSON Schema of its arguments (as schemars 1 generates it, or
//!   as a user writes it) into the schema the model reads, or refuses it with every problem at
//!   once ([`SchemaErrors`]).
//! - [`for_dialect`] turns that into what one provider accepts ([`Dialect`]): a keyword the
//!   provider refuses moves into the description in words; a schema it cannot express is
//!   refused with the keyword named, so a registry refuses that one tool and keeps the others.
//! - [`drop_strict_nulls`] undoes, on the model's arguments, the nulls OpenAI strict mode makes
//!   it send for optional values.
//! - [`takes_no_arguments`] tells a tool without arguments, whose Gemini declaration leaves
//!   `parameters` out.
//! - [`provider_rule_breaks`] checks a schema as it is sent against what the provider's API
//!   refuses (its documented 400 answers); [`conform`] keeps a schema that passes and
//!   brings any other into the dialect: every provider client runs it on every tool.
//! - [`ToolDefinition`] (a tool as a provider receives it) and [`ToolArguments`] (a call's
//!   arguments, read once) are the plain types the provider clients and the tool layer share;
//!   [`no_arguments`] is the one rule that blank or `null` arguments mean `{}`.
//! - [`messages`] holds every sentence, refusals and words alike.
//!
//! ```
//! use hark_schema::{Dialect, for_dialect, normalise};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {
//!         "day": {"type": "string", "format": "date", "description": "The day the caller wants."},
//!         "note": {"type": ["string", "null"]}
//!     },
//!     "required": ["day"]
//! });
//! let model_reads = normalise(&schema).unwrap();
//! assert_eq!(model_reads, json!({
//!     "type": "object",
//!     "properties": {
//!         "day": {"type": "string", "description": "The day the caller wants. A date written YYYY-MM-DD."},
//!         "note": {"type": "string"}
//!     },
//!     "required": ["day"]
//! }));
//!
//! let strict = for_dialect(&model_reads, Dialect::OpenAiStrict).unwrap();
//! assert_eq!(strict["required"], json!(["day", "note"]));
//! assert_eq!(strict["properties"]["note"]["type"], json!(["string", "null"]));
//!
//! let refused = normalise(&json!({"type": "object", "oneOf": [{"required": ["a"]}]})).unwrap_err();
//! assert_eq!(refused.keywords(), ["oneOf"]);
//! ```

mod dialect;
mod error;
mod keywords;
pub mod messages;
mod normalise;
mod provider_rules;
mod tool;

pub use dialect::{
    Dialect, OPENAI_STRICT_MAX_ENUM, OPENAI_STRICT_MAX_OBJECT_DEPTH, drop_strict_nulls,
    for_dialect, takes_no_arguments,
};
pub use error::{SchemaError, SchemaErrors};
pub use normalise::{MAX_DEPTH, MAX_SCHEMAS, normalise};
pub use provider_rules::{GEMINI_PARAMETERS_FIELDS, conform, provider_rule_breaks};
pub use tool::{ArgumentsFault, ToolArguments, ToolDefinition, inexact_whole_number, no_arguments};
