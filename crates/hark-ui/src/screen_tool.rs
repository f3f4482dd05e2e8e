//! `screen_tools`: the `screen` tool that lets a voice LLM ask a UI worker about the screen or
//! act on it (guide: `docs/guide/ui-worker.md`, "The `screen` tool").
//!
//! One tool, `screen(action, target?, value?)`: it sends the worker a `screen` job with payload
//! `{"action"}` plus `target`/`value` when given (not `null`), waits for the answer (default
//! 30 s, [`DEFAULT_SCREEN_TIMEOUT`]) and returns it to the voice LLM as data. It is not
//! cancelled when the user interrupts ([`Interruption::Continue`]). A job that fails, times out
//! or cannot reach its worker reads `{"error": text}`.
//!
//! The tool talks to the worker through [`ScreenJobs`]: implemented here for an in-process
//! `Arc<UiWorker>`, and for a worker on a [`Bus`] ([`BusScreenJobs`], whose worker serves the
//! job with a [`ScreenJobHandler`], e.g. routed under `screen` beside `respond`).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_rtvi::JobStatus;
use hark_tools::{
    Arguments, BuildError, Interruption, Output, ToolContext, ToolError, ToolExecutor, ToolSpec,
};
use serde_json::{Map, Value, json};

use crate::messages;
use crate::worker::UiWorker;
use hark_bus::JobResponse;
use hark_bus::{Bus, JobHandler, JobReply, JobRequest, JobUpdates};

/// How long the tool waits for the worker's answer by default (pipecat `timeout=30.0`).
pub const DEFAULT_SCREEN_TIMEOUT: Duration = Duration::from_secs(30);

/// The tool's name (hark-bus holds it, so a voice agent reaches it without the UI worker).
pub use hark_bus::names::SCREEN_TOOL;

/// Where the `screen` tool sends its jobs: a UI worker, in process or over a bus.
pub trait ScreenJobs: Send + Sync + fmt::Debug + 'static {
    /// The worker's name, for the error texts the voice LLM reads.
    fn worker_name(&self) -> &str;

    /// Runs one `screen` job with `payload` (`{"action", "target"?, "value"?}`) and returns the
    /// worker's answer.
    ///
    /// # Errors
    /// A sentence saying why the job could not reach the worker (it becomes `{"error": …}`).
    fn screen_job(&self, payload: Value) -> BoxFuture<'_, Result<JobResponse, String>>;
}

impl ScreenJobs for UiWorker {
    fn worker_name(&self) -> &str {
        self.name()
    }

    fn screen_job(&self, payload: Value) -> BoxFuture<'_, Result<JobResponse, String>> {
        Box::pin(async move { Ok(self.screen(&payload).await) })
    }
}

/// The tools a voice LLM needs to use the screen through `worker`: one [`ToolSpec`] named
/// `screen` with pipecat's parameters schema (`action` required, `target` and
/// `value` optional strings or `null`), waiting at most `timeout` for each answer.
///
/// # Errors
/// [`BuildError`] only if hark-tools refused the fixed schema (a bug: a test pins that it
/// builds).
pub fn screen_tools(
    worker: Arc<dyn ScreenJobs>,
    timeout: Duration,
) -> Result<Vec<ToolSpec>, BuildError> {
    Ok(vec![screen_tool(worker, timeout)?])
}

/// The `screen` tool alone (see [`screen_tools`]).
///
/// # Errors
/// As [`screen_tools`].
pub fn screen_tool(worker: Arc<dyn ScreenJobs>, timeout: Duration) -> Result<ToolSpec, BuildError> {
    Ok(SCREEN_TEMPLATE
        .clone()?
        .with_executor(Arc::new(ScreenExecutor { worker, timeout })))
}

/// The `screen` tool as the model sees it, built once per process: its schemas, validator and
/// description are shared by every session's spec, which adds only its own executor
/// (rebuilding them cost ~14 KiB per session).
static SCREEN_TEMPLATE: LazyLock<Result<ToolSpec, BuildError>> = LazyLock::new(|| {
    let spec = ToolSpec::new(
        SCREEN_TOOL,
        messages::screen_tool_description(),
        screen_parameters(),
        Output::json(
            "ScreenAnswer",
            json!({"type": "object", "additionalProperties": true}),
        ),
        Arc::new(NoWorker),
    )?;
    Ok(spec.interruption(Interruption::Continue))
});

/// The template's executor: never run, since [`screen_tool`] replaces it with the session's.
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
                "the screen tool template has no worker",
            ))
        })
    }
}

/// The `screen` tool's parameters schema, as pipecat generates it.
pub fn screen_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "description": messages::screen_tool_action()},
            "target": {"anyOf": [{"type": "string"}, {"type": "null"}],
                       "description": messages::screen_tool_target()},
            "value": {"anyOf": [{"type": "string"}, {"type": "null"}],
                      "description": messages::screen_tool_value()}
        },
        "required": ["action"]
    })
}

/// Runs the `screen` tool: builds the job payload, waits, maps failures to `{"error"}`.
struct ScreenExecutor {
    worker: Arc<dyn ScreenJobs>,
    timeout: Duration,
}

impl fmt::Debug for ScreenExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScreenExecutor")
            .field("worker", &self.worker.worker_name())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ToolExecutor for ScreenExecutor {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move { Ok(self.answer(arguments).await) })
    }
}

impl ScreenExecutor {
    async fn answer(&self, arguments: Arguments) -> Value {
        let mut payload = Map::new();
        for key in ["action", "target", "value"] {
            match arguments.get(key) {
                None | Some(Value::Null) => {}
                Some(v) => {
                    payload.insert(key.into(), v.clone());
                }
            }
        }
        let name = self.worker.worker_name();
        let job = self.worker.screen_job(Value::Object(payload));
        match tokio::time::timeout(self.timeout, job).await {
            Err(_) => json!({"error": messages::screen_timeout(name, self.timeout.as_secs_f64())}),
            Ok(Err(detail)) => {
                json!({"error": messages::screen_worker_unreachable(name, &detail)})
            }
            Ok(Ok(JobResponse {
                status: JobStatus::Completed,
                response,
            })) => response.unwrap_or_else(|| json!({})),
            Ok(Ok(JobResponse { status, response })) => {
                let text = response
                    .as_ref()
                    .and_then(|r| r.get("error"))
                    .and_then(Value::as_str)
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_string);
                let status = serde_json::to_value(status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                json!({"error": text.unwrap_or_else(|| messages::screen_job_failed(name, &status))})
            }
        }
    }
}

/// A worker's `screen` job as a bus worker: answers each job with [`UiWorker::screen`] on its
/// payload (`{"action", "target"?, "value"?}`). Route it under `"screen"` with
/// [`crate::JobRoutes`] beside `respond`, so one worker name serves both jobs.
#[derive(Debug, Clone)]
pub struct ScreenJobHandler {
    worker: Arc<UiWorker>,
}

impl ScreenJobHandler {
    /// The `screen` job of `worker`.
    pub fn new(worker: Arc<UiWorker>) -> Self {
        ScreenJobHandler { worker }
    }
}

impl JobHandler for ScreenJobHandler {
    fn handle(&self, job: JobRequest, _updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async move { JobReply::Response(self.worker.screen(&job.payload).await) })
    }
}

/// [`ScreenJobs`] over a [`Bus`]: each `screen` job is a [`JobRequest`] named `screen` from
/// `source` (the requester, e.g. the voice agent) to the worker `worker`, with a fresh job id
/// `"<source>-screen-<n>"`.
///
/// A worker that is not on the bus answers status `error` with the bus's `no worker named …`
/// text (see [`Bus::request`]); a worker that ends a streamed job reads as `completed` with no
/// response. It never returns `Err`: every failure is an answer the tool maps to `{"error"}`.
#[derive(Debug)]
pub struct BusScreenJobs {
    bus: Arc<Bus>,
    source: String,
    worker: String,
    next: AtomicU64,
}

impl BusScreenJobs {
    /// Jobs from `source` to the worker named `worker` on `bus`.
    pub fn new(bus: Arc<Bus>, source: impl Into<String>, worker: impl Into<String>) -> Self {
        BusScreenJobs {
            bus,
            source: source.into(),
            worker: worker.into(),
            next: AtomicU64::new(1),
        }
    }
}

impl ScreenJobs for BusScreenJobs {
    fn worker_name(&self) -> &str {
        &self.worker
    }

    fn screen_job(&self, payload: Value) -> BoxFuture<'_, Result<JobResponse, String>> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let job = JobRequest::new(
            format!("{}-screen-{n}", self.source),
            self.source.clone(),
            self.worker.clone(),
            SCREEN_TOOL,
            payload,
        );
        Box::pin(async move {
            let updates = JobUpdates::discard(&job);
            Ok(match self.bus.request(job, updates).await {
                JobReply::Response(response) => response,
                JobReply::StreamEnded => JobResponse {
                    status: JobStatus::Completed,
                    response: None,
                },
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Named(&'static str);

    impl ScreenJobs for Named {
        fn worker_name(&self) -> &str {
            self.0
        }

        fn screen_job(&self, _payload: Value) -> BoxFuture<'_, Result<JobResponse, String>> {
            Box::pin(async { Err("not in this test".to_owned()) })
        }
    }

    #[test]
    fn each_session_shares_the_built_schemas_and_gets_its_own_executor() {
        let timeout = DEFAULT_SCREEN_TIMEOUT;
        let a = screen_tool(Arc::new(Named("a")), timeout).unwrap();
        let b = screen_tool(Arc::new(Named("b")), timeout).unwrap();
        assert_eq!(a.name(), SCREEN_TOOL);
        assert_eq!(a.description(), messages::screen_tool_description());
        assert_eq!(a.parameters(), &screen_parameters());
        assert_eq!(a.interruption_rule(), Interruption::Continue);
        assert!(std::ptr::eq(a.parameters(), b.parameters()));
        assert!(std::ptr::eq(a.model_parameters(), b.model_parameters()));
        assert!(!Arc::ptr_eq(a.executor(), b.executor()));
        assert!(format!("{:?}", a.executor()).contains("\"a\""));
        assert!(format!("{:?}", b.executor()).contains("\"b\""));
    }
}
