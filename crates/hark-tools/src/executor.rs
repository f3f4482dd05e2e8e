//! The trait behind every kind of tool: local functions, webhooks, and your own.
//!
//! Guide: `docs/guide/inputs-and-outputs.md`.

use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::context::{Arguments, ToolContext};
use crate::error::ToolError;

/// Runs one kind of tool.
///
/// The [`ToolSpec`](crate::ToolSpec) holds what the model sees (name, description, schema,
/// output, announce lines, effect, interruption rule); the executor only runs. It never changes
/// what the model sees.
pub trait ToolExecutor: Send + Sync + fmt::Debug + 'static {
    /// Runs the tool with checked arguments. `Err(ToolError)` text reaches the model as written;
    /// the registry turns a panic or any other failure into "`<tool>` failed before completing.
    /// Do not claim success."
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>>;

    /// Refuses bad input before the tool runs (and before a step asks the caller to confirm it).
    /// The default accepts everything.
    fn validate(&self, arguments: Arguments) -> Result<Arguments, ToolError> {
        Ok(arguments)
    }

    /// `true` to receive arguments the schema does not name (the executor then refuses them in
    /// its own words). With `false`, the default, the registry refuses them first.
    fn checks_extra_arguments(&self) -> bool {
        false
    }
}
