//! A call in progress: `LiveCall` (runs tool calls), `Generation` (one model reply) and
//! `CallResult` (what one tool call did), as the adapter contract (`hark/call.py`) names them.

use std::sync::Arc;
use std::time::Duration;

use hark_tools::{CallResult, CallStatus, Generation, LiveCall, RawArguments, ToolRegistry};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::json::{bridge as helpers, to_py, to_value};
use super::state::PyCallState;
use super::{bridge, driver};

/// How long `close` lets background work (webhooks that do not wait) finish.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// One call in progress (`registry.start_call(...)`).
#[pyclass(name = "LiveCall", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyLiveCall {
    registry: Arc<ToolRegistry>,
    live: Arc<LiveCall>,
    /// True once `close` ran: running calls end as cancelled, new ones are refused.
    closed: watch::Sender<bool>,
}

/// The error a call of a closed `LiveCall` raises.
const CLOSED: &str = "this call is closed: live.close() ended it, so its tools no longer run. \
                      Start a new call with registry.start_call(...).";

impl PyLiveCall {
    /// A live call of `registry`'s tools.
    pub fn new(registry: Arc<ToolRegistry>, live: LiveCall) -> Self {
        Self {
            registry,
            live: Arc::new(live),
            closed: watch::Sender::new(false),
        }
    }
}

/// A coroutine that calls `start(*arguments)` once it runs and awaits the future it returns
/// (`hark._bridge.deferred`): like any `async def`, it can be made before the event loop runs
/// (`asyncio.run(live.run(...))`) and handed to `asyncio.create_task`; cancelling the task
/// cancels the future, which drops the Rust future.
fn deferred<'py>(
    start: Bound<'py, PyAny>,
    arguments: Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    helpers(start.py())?
        .getattr("deferred")?
        .call1((start, arguments))
}

/// Arguments Python holds but JSON cannot (a lone surrogate, NaN) as the JSON text the model
/// meant (`hark._bridge.arguments_text`), so the core refuses them in its own words.
fn arguments_text(value: &Bound<'_, PyAny>, tool: &str) -> PyResult<String> {
    helpers(value.py())?
        .getattr("arguments_text")?
        .call1((value, tool))?
        .extract()
}

/// One model reply and its tool calls.
#[pyclass(name = "Generation", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyGeneration {
    inner: Generation,
}

#[pymethods]
impl PyGeneration {
    /// The caller talked over the bot: running calls that do not `continue` are cancelled; a
    /// generation interrupted before any of it was spoken is discarded (its calls never run).
    fn interrupt(&self) {
        self.inner.interrupt();
    }

    /// Some of this reply has been spoken to the caller.
    fn mark_spoken(&self) {
        self.inner.mark_spoken();
    }

    /// True once the generation was interrupted.
    #[getter]
    fn interrupted(&self) -> bool {
        self.inner.is_interrupted()
    }

    /// True when it was interrupted before any of it was spoken.
    #[getter]
    fn discarded(&self) -> bool {
        self.inner.is_discarded()
    }
}

/// The arguments as the caller gave them, owned so the future can hold them.
enum Given {
    None,
    Text(String),
    Json(Value),
    /// Text that is not a JSON object as it is, read by `hark_llm::read_arguments`'s repairs.
    Repaired(hark_schema::ToolArguments),
}

/// What one tool call did (read-only).
#[pyclass(name = "CallResult", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyCallResult {
    tool: String,
    status: CallStatus,
    result: Value,
    model_result: Value,
    model_text: String,
    announced: Vec<String>,
    said: Vec<String>,
    saved: Vec<String>,
    ask_model_reply: bool,
    ends_conversation: bool,
    prechecked: bool,
    state: Value,
}

impl PyCallResult {
    fn new(result: CallResult, live: &LiveCall) -> Self {
        Self {
            model_text: result.outcome.model_text(),
            tool: result.outcome.tool,
            status: result.outcome.status,
            result: result.outcome.result,
            model_result: result.outcome.model_result,
            announced: result.announced.into_iter().collect(),
            said: result.said,
            saved: result.saved,
            ask_model_reply: result.ask_model_reply,
            ends_conversation: result.ends_conversation,
            prechecked: result.prechecked,
            state: live.state.values(),
        }
    }

    /// A call that `close` ended while it ran: failed, and the model reads
    /// `{"error": "cancelled"}`, as for any cancelled call.
    fn closed(tool: String, live: &LiveCall) -> Self {
        let error = json!({"error": "cancelled"});
        Self {
            model_text: error.to_string(),
            tool,
            status: CallStatus::Failed,
            result: error.clone(),
            model_result: error,
            announced: Vec::new(),
            said: Vec::new(),
            saved: Vec::new(),
            ask_model_reply: false,
            ends_conversation: false,
            prechecked: false,
            state: live.state.values(),
        }
    }
}

#[pymethods]
impl PyCallResult {
    /// The tool's name as the model called it.
    #[getter]
    fn tool(&self) -> &str {
        &self.tool
    }

    /// `"succeeded"`, `"failed"`, `"refused"` or `"still_running"`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.status {
            CallStatus::Succeeded => "succeeded",
            CallStatus::Failed => "failed",
            CallStatus::Refused => "refused",
            CallStatus::StillRunning => "still_running",
        }
    }

    /// What the model reads, as a JSON value.
    #[getter]
    fn model_result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.model_result)
    }

    /// The exact text of the tool message.
    #[getter]
    fn model_text(&self) -> &str {
        &self.model_text
    }

    /// The full checked result (task code reads it), or the error's JSON.
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.result)
    }

    /// The lines spoken before the tool ran.
    #[getter]
    fn announced(&self) -> Vec<String> {
        self.announced.clone()
    }

    /// The reply rows spoken after it.
    #[getter]
    fn said(&self) -> Vec<String> {
        self.said.clone()
    }

    /// The State values the result saved.
    #[getter]
    fn saved(&self) -> Vec<String> {
        self.saved.clone()
    }

    /// False when no model reply should follow.
    #[getter]
    fn ask_model_reply(&self) -> bool {
        self.ask_model_reply
    }

    /// True when the adapter ends the call after the last line played.
    #[getter]
    fn ends_conversation(&self) -> bool {
        self.ends_conversation
    }

    /// True when the tool ran and its result fits its output.
    #[getter]
    fn succeeded(&self) -> bool {
        self.status == CallStatus::Succeeded
    }

    /// True when the result came from the tool's precheck.
    #[getter]
    fn prechecked(&self) -> bool {
        self.prechecked
    }

    /// The call state's values after the call.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.state)
    }

    fn __repr__(&self) -> String {
        format!(
            "CallResult(tool={:?}, status={:?}, model_text={:?})",
            self.tool,
            self.status(),
            self.model_text
        )
    }
}

#[pymethods]
impl PyLiveCall {
    /// A new generation: one per model reply.
    fn generation(&self) -> PyGeneration {
        PyGeneration {
            inner: self.live.generation(),
        }
    }

    /// Runs one tool call of `generation` (a coroutine); `None` when the generation was
    /// discarded. `arguments` is the model's JSON text, a dict or `None`.
    fn run<'py>(
        slf: &Bound<'py, Self>,
        name: String,
        arguments: Option<Bound<'py, PyAny>>,
        generation: Bound<'py, PyGeneration>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = arguments.unwrap_or_else(|| slf.py().None().into_bound(slf.py()));
        let arguments = (name, arguments, generation).into_pyobject(slf.py())?;
        deferred(slf.getattr("_start_run")?, arguments)
    }

    /// The start of [`run`](Self::run), on the event loop's thread: the future of the call.
    #[pyo3(name = "_start_run")]
    fn start_run<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
        generation: &Bound<'py, PyGeneration>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let given = match arguments.filter(|a| !a.is_none()) {
            None => Given::None,
            Some(text) if text.is_instance_of::<PyString>() => match text.extract() {
                Ok(text) => Given::Text(text),
                Err(_) => Given::Text(arguments_text(text, &name)?),
            },
            Some(value) if value.is_instance_of::<pyo3::types::PyDict>() => match to_value(value) {
                Ok(value) => Given::Json(value),
                Err(_) => Given::Text(arguments_text(value, &name)?),
            },
            Some(_) => {
                return Err(PyTypeError::new_err(
                    "arguments are the model's JSON text, a dict or None",
                ));
            }
        };
        let given = repaired(given);
        if *self.closed.borrow() {
            return Err(PyRuntimeError::new_err(CLOSED));
        }
        bridge::remember_loop(py);
        let generation = generation.get().inner.clone();
        let registry = self.registry.clone();
        let live = self.live.clone();
        let mut closed = self.closed.subscribe();
        let future = driver::on_loop_or_value(py, async move {
            let raw = match &given {
                Given::None => RawArguments::None,
                Given::Text(text) => RawArguments::Text(text),
                Given::Json(value) => RawArguments::Json(value),
                Given::Repaired(read) => RawArguments::Read(read),
            };
            tokio::select! {
                // The call first: once `close` ended the call, a `continue` tool that started
                // returns cancelled from the core and runs on, detached.
                biased;
                called = registry.call_live(&name, raw, &live, &generation) => match called {
                    Ok(result) => Ok(Some(PyCallResult::new(result, &live))),
                    Err(_discarded) => Ok(None),
                },
                // Dropping the call's future cancels the tool's Python task.
                _ = closed.wait_for(|closed| *closed) => Ok(Some(PyCallResult::closed(name, &live))),
            }
        })?;
        Ok(future)
    }

    /// The results of `continue` tools whose reply was cut off, each exactly once (a coroutine):
    /// waits for those still running, checks, saves and says each like any result. The adapter
    /// adds them to the next request.
    fn late_results<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        deferred(
            slf.getattr("_start_late_results")?,
            PyTuple::empty(slf.py()),
        )
    }

    /// The start of [`late_results`](Self::late_results), on the event loop's thread.
    #[pyo3(name = "_start_late_results")]
    fn start_late_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        bridge::remember_loop(py);
        let registry = self.registry.clone();
        let live = self.live.clone();
        driver::on_loop(py, async move {
            let results = registry.late_results(&live).await;
            Ok(results
                .into_iter()
                .map(|result| PyCallResult::new(result, &live))
                .collect::<Vec<_>>())
        })
    }

    /// The end of the call: each `run` still pending returns at once, a failed `CallResult`
    /// whose model text is `{"error": "cancelled"}` (its tool is cancelled, but a `continue`
    /// tool that started runs to its end, its result dropped); a later `run`
    /// raises `RuntimeError` ("this call is closed: ..."). Background work (webhooks that do not
    /// wait) finishes, for at most ten seconds. Returns how many background tasks were still
    /// running then.
    fn close<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        deferred(slf.getattr("_start_close")?, PyTuple::empty(slf.py()))
    }

    /// The start of [`close`](Self::close), on the event loop's thread.
    #[pyo3(name = "_start_close")]
    fn start_close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.live.end_calls();
        self.closed.send_replace(true);
        let live = self.live.clone();
        driver::on_loop(py, async move {
            Ok(live.hooks.drain(DRAIN_LIMIT).await.unfinished)
        })
    }

    /// The call's state (shared: a tool's saves show here).
    #[getter]
    fn state(&self) -> PyCallState {
        PyCallState {
            inner: self.live.state.clone(),
        }
    }
}

/// Text arguments that are not a JSON object as they are get the small-model repairs Hark's own
/// agent applies where it assembles a call (`hark_llm::read_arguments`: template tokens, trailing
/// commas, single quotes, double encoding). What the repairs cannot read stays text, so the
/// core refuses it in its own words (not an object, NaN, a bad escape, too deep).
fn repaired(given: Given) -> Given {
    let Given::Text(text) = given else {
        return given;
    };
    if matches!(serde_json::from_str::<Value>(&text), Ok(Value::Object(_)))
        || hark_schema::no_arguments(&text)
    {
        return Given::Text(text);
    }
    match hark_llm::read_arguments(&text) {
        read @ hark_schema::ToolArguments::Object(_) => Given::Repaired(read),
        _ => Given::Text(text),
    }
}
