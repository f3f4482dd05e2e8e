//! The trait behind every kind of tool: local functions, webhooks, and your own.
//!
//! Spec: `tools-reference.md`, "Your own kind of tool".

use std::fmt;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use crate::call::{CallHooks, CallInfo};
use crate::error::ToolError;

/// The arguments of one tool call as a JSON object, after checks and with locked values filled.
pub type Arguments = Map<String, Value>;

/// What a running tool can read of its call.
///
/// Built by the registry for each call of a tool. `state` is the call's State as JSON (an object
/// of the State's fields; `null` fields are unset).
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    /// What the call carries.
    pub call: CallInfo,
    /// The call's State as a JSON object.
    pub state: Value,
    /// The call's language as a BCP 47 tag (`"en-US"`).
    pub language: String,
    /// The call's IANA timezone (`"Europe/Madrid"`), if set.
    pub timezone: Option<String>,
    /// The event context, for a tool run on an event rather than by the model.
    pub event: Option<Map<String, Value>>,
    /// The call's hooks: background work is spawned here.
    pub hooks: CallHooks,
    /// The call's transcript, oldest first (what a locked `Transcript` value reads).
    pub transcript: Vec<crate::state::TranscriptMessage>,
}

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
