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
}
