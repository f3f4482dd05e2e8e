//! Flows: a conversation in steps, with a read-back before a closing tool.
//!
//! The user guide's `docs/guide/flows.md` shows a flow in Rust and in an agent file. Anchors:
//! pipecat-flows (nodes, functions that move to the next node) and LiveKit Agents' tasks; both
//! leave the read-back, the confirmation and "which value is confirmed" to the developer, and a
//! flow here does it for them.
//!
//! - [`FlowSpec`] (plain serde data, so an agent file can describe it): steps with instructions,
//!   tools, a closing tool with its finish rule and confirm lines, the State values a step saves,
//!   its own replies and assign rows, and where the flow goes next.
//! - [`Flow::build`] checks it once against the agent's [`hark_tools::ToolRegistry`], every
//!   problem at once, each naming the fix.
//! - [`FlowConductor`] runs it in one call as the turn loop's [`crate::Conductor`].
//! - [`judge`]: the caller's answer to a read-back, yes / no / something else.
//!
//! The call's hooks (`wrap_tool`, `after_tool`: [`hark_tools::CallHooks`]) run inside the tool
//! layer's call path, so they run the same for the plain agent and for flows.
//!
//! ```
//! use std::sync::Arc;
//! use hark_agent::flow::{ClosingSpec, Flow, FlowSpec, StepSpec};
//! use hark_tools::{ToolError, ToolRegistry, ToolSpec};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Booking { party: u8 }
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Booked { reference: String }
//!
//! let book = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
//!     Ok::<_, ToolError>(Booked { reference: format!("B-{}", b.party) })
//! })?;
//! let registry = ToolRegistry::new(vec![book])?;
//! let spec: FlowSpec = toml::from_str(r#"
//!     first = "booking"
//!     [[steps]]
//!     name = "booking"
//!     instructions = "Ask how many people come, then book."
//!     tools = ["book_table"]
//!     closing = { tool = "book_table", confirm = ["A table for {{party}}. Shall I book it?"] }
//! "#)?;
//! let flow = Arc::new(Flow::build(&spec, &registry)?);
//! let conductor = flow.conductor(); // one per call
//! assert_eq!(conductor.step_name(), "booking");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
pub mod judge;
pub mod messages;
mod policy;
mod spec;

pub use build::Flow;
pub use judge::{
    ClassifierJudge, Confirmation, ConfirmationJudge, FallbackJudge, LocalJudge, Unsure,
};
pub use policy::FlowConductor;
pub use spec::{AssignRow, ClosingSpec, FlowSpec, NextSpec, ReplyRow, Route, StepSpec};
