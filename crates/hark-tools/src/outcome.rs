//! What one tool call ends in: its status, the result the model reads, and, in a call in
//! progress, what was said and saved around it. Vocabulary: imports nothing else of the crate
//! but the error type.

use serde_json::Value;

use crate::error::ToolError;

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    /// The tool ran and its result fits its output.
    Succeeded,
    /// The tool ran and failed, or its result reports an error or does not fit.
    Failed,
    /// The tool did not run: unknown tool, bad or missing arguments, or a refusal.
    Refused,
    /// A `continue` tool whose reply was cut off: the model reads that it is still running, and
    /// its result comes later from [`ToolRegistry::late_results`](crate::ToolRegistry::late_results) ("A tool the caller talks
    /// over", point 3; case T7).
    StillRunning,
}

/// The outcome of one call: exactly one result the model reads, always (case T2).
#[derive(Debug, Clone)]
pub struct ToolOutcome {
    /// The tool's name as the model called it.
    pub tool: String,
    /// How the call ended.
    pub status: CallStatus,
    /// The full result: the checked result on success (task code, assign rows and reply lines
    /// read it), else the error JSON.
    pub result: Value,
    /// What the model reads: `result` after `show_result` and `hidden`, or the error JSON.
    pub model_result: Value,
    /// The error, when the call did not succeed.
    pub error: Option<ToolError>,
    /// Milliseconds the tool ran (0 when it did not run).
    pub ms: u64,
}

impl ToolOutcome {
    /// The JSON text the model reads.
    pub fn model_text(&self) -> String {
        // The same compact text as `Display`, without the formatter machinery (a third of the
        // cost of this step on the call path).
        serde_json::to_string(&self.model_result).unwrap_or_default()
    }

    /// True when the tool ran and succeeded.
    pub fn succeeded(&self) -> bool {
        self.status == CallStatus::Succeeded
    }
}

/// A tool call of a discarded generation: it did not run (T8). The runtime leaves the call out
/// of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the generation was discarded before any of it was spoken, so its tool calls do not run")]
pub struct Discarded;

/// Everything one tool call in a call did, for the runtime.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The outcome: `model_result` is what the model reads for this tool call.
    pub outcome: ToolOutcome,
    /// The announce line said before the tool ran, if one was.
    pub announced: Option<String>,
    /// Reply lines code said for the result (at most one per call).
    pub said: Vec<String>,
    /// False when no model reply should follow: a reply line was said, or an
    /// `ArgumentsMissing` refusal came after a reply that already spoke.
    pub ask_model_reply: bool,
    /// True when the call ends the conversation (only on success, T5).
    pub ends_conversation: bool,
    /// The State values saved (empty when the State refused the batch).
    pub saved: Vec<String>,
    /// True when the result came from the tool's precheck: the tool did not run ("Check a rule
    /// before the tool runs"). A flow never counts such an outcome as a success of its closing
    /// tool.
    pub prechecked: bool,
}
