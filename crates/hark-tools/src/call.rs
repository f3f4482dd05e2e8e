//! What a call carries: its id, numbers, the participant, direction and end reason, read by
//! `{{call.<name>}}`.
//! Vocabulary: imports nothing else of the crate.
//!
//! Guide: `docs/guide/locked-values-and-transcript.md` (`{{call.name}}`).

use serde::{Deserialize, Serialize};

pub use crate::hooks::UNNAMED_BACKGROUND;

/// The direction of a call: `inbound`, `outbound`, or `none` (a web session with no phone leg).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallType {
    /// The caller dialled in.
    Inbound,
    /// The agent dialled out.
    Outbound,
    /// No direction (browser session, test); serialises as `"none"`, spoken to the model as `null`.
    #[default]
    None,
}

/// The names `{{call.<name>}}` may read: the fields of [`CallInfo`]. Which of them a call
/// actually carries depends on the program that runs it (an RTVI session of `hark serve`
/// carries `session_id` only).
pub const CALL_VALUES: [&str; 6] = [
    "session_id",
    "remote_number",
    "carrier_call_id",
    "participant",
    "call_type",
    "end_reason",
];

/// What the call carries, read by `{{call.<name>}}` templates and the built-in tools.
///
/// Field names are the template names: `{{call.session_id}}`, `{{call.remote_number}}`,
/// `{{call.carrier_call_id}}`, `{{call.participant}}`, `{{call.call_type}}`, `{{call.end_reason}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallInfo {
    /// Hark's own id of this call (one per RTVI session or phone call).
    pub session_id: String,
    /// The caller's number in E.164 (`+14155550123`), when the call has one.
    pub remote_number: Option<String>,
    /// The carrier's or telephony platform's id of the call, when it has one.
    pub carrier_call_id: Option<String>,
    /// Who the agent talks with, as the call's platform names them (a LiveKit participant's
    /// identity, `sip_+14155550123`), when it names them.
    #[serde(default)]
    pub participant: Option<String>,
    /// Inbound, outbound or none.
    pub call_type: CallType,
    /// Why the call ended (`"hangup"`, `"transfer"`, …); set once it has ended.
    pub end_reason: Option<String>,
}
