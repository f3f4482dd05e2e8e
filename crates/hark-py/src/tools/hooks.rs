//! `CallHooks`: a call's tool hooks (`wrap_tool`, `after_tool`) written in Python, and its
//! background work, which `live.close()` lets finish.

use std::sync::{Arc, Mutex};

use hark_tools::{CallHooks, CallStatus, HookCall, Next, ToolOutcome, Wrapped};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::bridge;
use super::driver;
use super::json::{bridge as helpers, to_py, to_value};
use crate::gate;

/// The hooks of one call (`hark.CallHooks`). Pass them to `registry.start_call(..., hooks=)`.
#[pyclass(name = "CallHooks", module = "hark._core", frozen)]
#[derive(Debug, Default)]
pub struct PyCallHooks {
    inner: Mutex<CallHooks>,
}

impl PyCallHooks {
    /// The Rust hooks (clones share the background work).
    pub fn hooks(&self) -> CallHooks {
        self.inner.lock().map(|h| h.clone()).unwrap_or_default()
    }

    fn update(&self, change: impl FnOnce(CallHooks) -> CallHooks) {
        if let Ok(mut hooks) = self.inner.lock() {
            let current = std::mem::take(&mut *hooks);
            *hooks = change(current);
        }
    }
}

/// One call's checked outcome as a hook sees it: return it from a `wrap_tool` hook to keep it.
#[pyclass(name = "ToolOutcome", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyToolOutcome {
    /// The Rust outcome.
    pub inner: ToolOutcome,
}

#[pymethods]
impl PyToolOutcome {
    /// The tool's name.
    #[getter]
    fn tool(&self) -> &str {
        &self.inner.tool
    }

    /// True when the tool ran and its result fits its output.
    #[getter]
    fn succeeded(&self) -> bool {
        self.inner.succeeded()
    }

    /// `"succeeded"`, `"failed"`, `"refused"` or `"still_running"`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.inner.status {
            CallStatus::Succeeded => "succeeded",
            CallStatus::Failed => "failed",
            CallStatus::Refused => "refused",
            CallStatus::StillRunning => "still_running",
        }
    }

    /// The checked result (or the error's JSON).
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.result)
    }

    /// What the model reads.
    #[getter]
    fn model_result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.model_result)
    }

    /// The exact text the model reads.
    #[getter]
    fn model_text(&self) -> String {
        self.inner.model_text()
    }

    fn __repr__(&self) -> String {
        format!(
            "ToolOutcome(tool={:?}, status={:?})",
            self.inner.tool,
            self.status()
        )
    }
}

/// The rest of the call path, handed to a `wrap_tool` hook: `await next()` runs the tool.
#[pyclass(name = "NextTool", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyNext {
    start: Mutex<Option<oneshot::Sender<oneshot::Sender<ToolOutcome>>>>,
}

#[pymethods]
impl PyNext {
    /// Runs the tool (and the hooks inside this one); resolves to its checked `ToolOutcome`.
    fn __call__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let start = self
            .start
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .ok_or_else(|| {
                PyTypeError::new_err("next() runs the tool once; it was called already")
            })?;
        let (tx, rx) = oneshot::channel();
        let _ = start.send(tx);
        let future = driver::on_loop(py, async move {
            match rx.await {
                Ok(outcome) => Ok(PyToolOutcome { inner: outcome }),
                Err(_) => Err(PyTypeError::new_err(
                    "the tool call ended before next() ran",
                )),
            }
        })?;
        helpers(py)?.getattr("awaited")?.call1((future,))
    }
}

fn call_dict<'py>(py: Python<'py>, call: &HookCall) -> PyResult<Bound<'py, PyAny>> {
    to_py(
        py,
        &json!({"tool": call.tool, "arguments": call.arguments, "source": call.source}),
    )
}

/// A `wrap_tool` hook: the Python coroutine runs beside the rest of the call path, which starts
/// when the hook calls `next()`.
fn wrap(
    hook: Arc<Py<PyAny>>,
) -> impl for<'a> Fn(&'a HookCall, Next<'a>) -> futures::future::BoxFuture<'a, Wrapped>
+ Send
+ Sync
+ 'static {
    move |call: &HookCall, next: Next<'_>| {
        let hook = hook.clone();
        Box::pin(async move {
            let (start_tx, start_rx) = oneshot::channel::<oneshot::Sender<ToolOutcome>>();
            let started = gate::attach_py(|py| {
                let next = Py::new(
                    py,
                    PyNext {
                        start: Mutex::new(Some(start_tx)),
                    },
                )?;
                let coroutine = hook.bind(py).call1((call_dict(py, call)?, next))?;
                bridge::awaiting(py, &coroutine)
            });
            let awaiting = match started {
                Ok(awaiting) => awaiting,
                Err(error) => {
                    gate::attach(|py| error.print(py));
                    return Wrapped::Keep(next.await);
                }
            };
            let run_next = async move {
                if let Ok(reply) = start_rx.await {
                    let outcome = next.await;
                    let _ = reply.send(outcome);
                }
            };
            let hook_result = awaiting.result();
            tokio::pin!(run_next, hook_result);
            let mut next_done = false;
            let returned = loop {
                tokio::select! {
                    returned = &mut hook_result => break returned,
                    () = &mut run_next, if !next_done => next_done = true,
                }
            };
            gate::attach(|py| match returned {
                Ok(value) => {
                    let value = value.bind(py);
                    if let Ok(outcome) = value.cast::<PyToolOutcome>() {
                        Wrapped::Keep(outcome.get().inner.clone())
                    } else {
                        match to_value(value) {
                            Ok(replacement) => Wrapped::Replace(replacement),
                            Err(_) => Wrapped::Replace(
                                json!({"error": "a wrap_tool hook returned a value that is not JSON"}),
                            ),
                        }
                    }
                }
                Err(error) => {
                    error.print(py);
                    Wrapped::Replace(
                        json!({"error": format!("{} failed before completing. Do not claim success.", call.tool)}),
                    )
                }
            })
            .unwrap_or_else(|| {
                Wrapped::Replace(
                    json!({"error": format!("{} failed before completing. Do not claim success.", call.tool)}),
                )
            })
        })
    }
}

#[pymethods]
impl PyCallHooks {
    /// New hooks with no tool hooks and no background work.
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Adds `async def hook(call, next)`: `call` is `{"tool", "arguments", "source"}`, `await
    /// next()` runs the tool and gives its checked `ToolOutcome`; return it to keep it, or any
    /// other value to put that result in its place (not checked again). The first hook added is
    /// the outermost. Returns `hook`, so it works as a decorator.
    fn wrap_tool<'py>(&self, hook: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let is_async: bool = helpers(hook.py())?
            .getattr("is_async_function")?
            .call1((&hook,))?
            .extract()?;
        if !is_async {
            return Err(PyTypeError::new_err(
                "wrap_tool takes an async function: async def hook(call, next)",
            ));
        }
        let shared = Arc::new(hook.clone().unbind());
        self.update(|hooks| hooks.wrap_tool(wrap(shared)));
        Ok(hook)
    }

    /// Adds `def hook(call, outcome)`: return `None` to keep the outcome or a value to put in
    /// its place (not checked again). Hooks run in the order added. Returns `hook`.
    fn after_tool<'py>(&self, hook: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if !hook.is_callable() {
            return Err(PyTypeError::new_err(
                "after_tool takes a function: def hook(call, outcome)",
            ));
        }
        let function = hook.clone().unbind();
        self.update(|hooks| {
            hooks.after_tool(move |call, outcome| {
                gate::attach(|py| -> Option<Value> {
                    let given = Py::new(
                        py,
                        PyToolOutcome {
                            inner: outcome.clone(),
                        },
                    )
                    .ok()?;
                    let returned = match call_dict(py, call)
                        .and_then(|c| function.bind(py).call1((c, given)))
                    {
                        Ok(value) => value,
                        Err(error) => {
                            error.print(py);
                            return None;
                        }
                    };
                    if returned.is_none() || returned.is_instance_of::<PyToolOutcome>() {
                        return None;
                    }
                    to_value(&returned).ok()
                })
                .flatten()
            })
        });
        Ok(hook)
    }

    /// How many background tasks (webhooks that do not wait) are running now.
    #[getter]
    fn background(&self) -> usize {
        self.hooks().background_len()
    }
}
