//! What a job answers: a status and an optional response value.
//!
//! Statuses as pipecat's `JobStatus`: `completed | cancelled | failed | error`.

use hark_rtvi::JobStatus;
use serde_json::Value;

/// The answer to one job: `status` plus the response the requester reads (`None` when the job
/// completed with no answer, e.g. a `respond` job whose answer was spoken).
#[derive(Debug, Clone, PartialEq)]
pub struct JobResponse {
    /// How the job ended.
    pub status: JobStatus,
    /// The response value, e.g. `{"answer": "…"}` or `{"label": "Email", "confidence": 0.93}`.
    pub response: Option<Value>,
}

impl JobResponse {
    /// A completed job with this response.
    pub fn completed(response: Value) -> Self {
        Self {
            status: JobStatus::Completed,
            response: Some(response),
        }
    }

    /// A job that failed with an error the requester reads: `{"error": text}`, status `error`.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            status: JobStatus::Error,
            response: Some(serde_json::json!({ "error": text.into() })),
        }
    }

    /// A failed job whose kind of failure the requester decides by: `{"error": text, "kind":
    /// kind}` (`timeout`, `unreachable`: the names the UI worker's answers use), so a caller
    /// words it by kind, never by matching the text.
    pub fn error_of_kind(text: impl Into<String>, kind: &str) -> Self {
        Self {
            status: JobStatus::Error,
            response: Some(serde_json::json!({ "error": text.into(), "kind": kind })),
        }
    }
}
