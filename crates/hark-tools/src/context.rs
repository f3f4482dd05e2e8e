//! What a running tool can read of its call, and the arguments it runs with. Vocabulary: imports
//! nothing else of the crate but what a call carries and its hooks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::CallInfo;
use crate::hooks::CallHooks;

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
    pub transcript: Vec<TranscriptMessage>,
}

/// One message of the call's transcript, as a locked `Transcript` value sends it:
/// `{"role": "user" | "assistant", "text": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TranscriptMessage {
    /// `user` for the caller, `assistant` for the agent.
    pub role: String,
    /// What was said.
    pub text: String,
}
