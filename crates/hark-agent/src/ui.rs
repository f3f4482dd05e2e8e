//! The voice agent's side of the UI worker: the `ask_screen` tool, which sends the UI worker a
//! `respond` job over the call's bus and says the worker's spoken answer verbatim.
//!
//! As pipecat's UI worker: a requester sends `respond` with `{"query": question}`; the worker
//! answers from its own LLM turn over `<ui_state>`, and its reply tool's answer is spoken
//! verbatim by the requester. The `screen` tool itself is the UI worker's (hark-ui's
//! `screen_tools`, named [`hark_bus::names::SCREEN_TOOL`]); the voice LLM gets both.
//!
//! The answer of a `respond` job is `{"answer": …}` for the voice LLM to phrase, or, from the
//! worker's reply tool, `{"answer": …, "speak": true}`: then the tool's reply row says the
//! answer as it is, and no model turn follows (the reply saves it).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_bus::{Bus, JobReply, JobRequest, JobUpdates};
use hark_rtvi::JobStatus;
use hark_tools::{
    Arguments, BuildError, Interruption, Output, ToolContext, ToolError, ToolExecutor, ToolReply,
    ToolSpec,
};
use serde_json::{Value, json};

use crate::messages;

/// The tool's name.
pub const ASK_SCREEN_TOOL: &str = "ask_screen";

/// The `respond` job's name on the UI worker.
pub use hark_bus::names::RESPOND_JOB;

/// The `ask_screen` tool: `ask_screen(query)` sends the worker `worker` on `bus` a `respond`
/// job `{"query": query}` from `source`, waits at most `timeout`, and returns the job's answer
/// object. A spoken answer (`"speak": true`) is said verbatim by the tool's reply row and saves
/// the model turn. A failed, timed-out or unreachable job reads `{"error": …}`. The tool keeps
/// running when the caller talks over it ([`Interruption::Continue`]): it may act on the page.
///
/// # Errors
/// [`BuildError`] only if hark-tools refused the fixed schema (a test pins that it builds).
pub fn ask_screen_tool(
    bus: Arc<Bus>,
    source: impl Into<String>,
    worker: impl Into<String>,
    timeout: Duration,
) -> Result<ToolSpec, BuildError> {
    let executor = AskScreen {
        bus,
        source: source.into(),
        worker: worker.into(),
        timeout,
        next: AtomicU64::new(1),
    };
    Ok(ASK_SCREEN_TEMPLATE
        .clone()?
        .with_executor(Arc::new(executor)))
}

/// The `ask_screen` tool as the model sees it, built once per process: its schemas, validator,
/// description and reply row are shared by every session's spec, which adds only its own
/// executor (rebuilding them cost ~14 KiB per session).
static ASK_SCREEN_TEMPLATE: LazyLock<Result<ToolSpec, BuildError>> = LazyLock::new(|| {
    let spec = ToolSpec::new(
        ASK_SCREEN_TOOL,
        messages::ask_screen_description(),
        json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": messages::ask_screen_query()}},
            "required": ["query"]
        }),
        Output::json(
            "ScreenReply",
            json!({
                "type": "object",
                "properties": {
                    "answer": {"type": "string"},
                    "speak": {"type": "boolean"}
                },
                "additionalProperties": true
            }),
        ),
        Arc::new(NoWorker),
    )?;
    Ok(spec
        .interruption(Interruption::Continue)
        .replies([ToolReply::say(["{{result.answer}}"]).when("speak", [true])]))
});

/// The template's executor: never run, since [`ask_screen_tool`] replaces it with the
/// session's.
#[derive(Debug)]
struct NoWorker;

impl ToolExecutor for NoWorker {
    fn run<'a>(
        &'a self,
        _arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async {
            Err(ToolError::internal(
                "the ask_screen tool template has no worker",
            ))
        })
    }
}

struct AskScreen {
    bus: Arc<Bus>,
    source: String,
    worker: String,
    timeout: Duration,
    next: AtomicU64,
}

impl fmt::Debug for AskScreen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskScreen")
            .field("worker", &self.worker)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ToolExecutor for AskScreen {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move {
            let query = arguments.get("query").cloned().unwrap_or(Value::Null);
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            let job = JobRequest::new(
                format!("{}-respond-{n}", self.source),
                self.source.clone(),
                self.worker.clone(),
                RESPOND_JOB,
                json!({ "query": query }),
            );
            let updates = JobUpdates::discard(&job);
            let reply = tokio::time::timeout(self.timeout, self.bus.request(job, updates)).await;
            Ok(match reply {
                Err(_) => {
                    json!({"error": messages::ask_screen_timeout(&self.worker, self.timeout)})
                }
                Ok(JobReply::StreamEnded) => json!({"note": messages::screen_answer_empty()}),
                Ok(JobReply::Response(response)) => match response.status {
                    JobStatus::Completed => response
                        .response
                        .unwrap_or_else(|| json!({"note": messages::screen_answer_empty()})),
                    _ => {
                        let text = response
                            .response
                            .as_ref()
                            .and_then(|r| r.get("error"))
                            .and_then(Value::as_str)
                            .filter(|t| !t.trim().is_empty())
                            .map(str::to_string)
                            .unwrap_or_else(|| messages::ask_screen_failed(&self.worker));
                        json!({ "error": text })
                    }
                },
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_session_shares_the_built_schemas_and_gets_its_own_executor() {
        let timeout = Duration::from_secs(30);
        let a = ask_screen_tool(Arc::new(Bus::new()), "voice", "ui-a", timeout).unwrap();
        let b = ask_screen_tool(Arc::new(Bus::new()), "voice", "ui-b", timeout).unwrap();
        assert_eq!(a.name(), ASK_SCREEN_TOOL);
        assert_eq!(a.description(), messages::ask_screen_description());
        assert_eq!(a.interruption_rule(), Interruption::Continue);
        assert!(std::ptr::eq(a.parameters(), b.parameters()));
        assert!(std::ptr::eq(a.model_parameters(), b.model_parameters()));
        assert!(!Arc::ptr_eq(a.executor(), b.executor()));
        assert!(format!("{:?}", a.executor()).contains("\"ui-a\""));
        assert!(format!("{:?}", b.executor()).contains("\"ui-b\""));
    }
}
