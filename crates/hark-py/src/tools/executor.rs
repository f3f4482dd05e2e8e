//! `PyExecutor`: a tool executor that is a Python object with an async `run(arguments, state, *,
//! context=None)`, an optional `validate(arguments) -> dict`, `checks_extra_arguments` and
//! `takes_state` (False: `run` gets `None` for the state).

use futures::future::BoxFuture;
use hark_tools::{Arguments, ToolContext, ToolError, ToolExecutor};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

use super::bridge;
use super::errors::tool_error;
use super::json::{bridge as helpers, to_py, to_value};
use super::state::PyCallState;
use crate::gate;

/// A Python executor, as `hark-tools` runs it. What it may do was read once, when it was built.
pub struct PyExecutor {
    object: Py<PyAny>,
    /// The tool's name, for the log.
    tool: String,
    label: String,
    takes_context: bool,
    /// False when `run` ignores its state (a `local_tool`): `None` is passed, no snapshot made.
    takes_state: bool,
    validates: bool,
    checks_extra: bool,
}

impl std::fmt::Debug for PyExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyExecutor({})", self.label)
    }
}

impl PyExecutor {
    /// Reads what `object` offers (`hark._bridge.executor_flags`): fails with `TypeError` when it
    /// has no async `run`.
    pub fn new(tool: &str, object: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (label, takes_context, takes_state, validates, checks_extra): (
            String,
            bool,
            bool,
            bool,
            bool,
        ) = helpers(object.py())?
            .getattr("executor_flags")?
            .call1((tool, object))?
            .extract()?;
        Ok(Self {
            object: object.clone().unbind(),
            tool: tool.to_string(),
            label,
            takes_context,
            takes_state,
            validates,
            checks_extra,
        })
    }
}

impl ToolExecutor for PyExecutor {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move {
            // Every Python call happens on the first poll: on the loop's thread (the driver polls
            // there), or in a task that found the loop when it started.
            let awaiting = gate::attach_py(|py| -> PyResult<bridge::Awaiting> {
                let arguments = to_py(py, &Value::Object(arguments))?;
                let state = if self.takes_state {
                    Py::new(py, PyCallState::snapshot(context))?.into_any()
                } else {
                    py.None()
                };
                // No keyword dict for a `run` that takes no context (a `local_tool`).
                let kwargs = if self.takes_context {
                    let event = match &context.event {
                        Some(event) => to_py(py, &Value::Object(event.clone()))?,
                        None => py.None().into_bound(py),
                    };
                    let kwargs = PyDict::new(py);
                    kwargs.set_item(pyo3::intern!(py, "context"), event)?;
                    Some(kwargs)
                } else {
                    None
                };
                let coroutine = self.object.bind(py).call_method(
                    pyo3::intern!(py, "run"),
                    (arguments, state),
                    kwargs.as_ref(),
                )?;
                bridge::awaiting(py, &coroutine)
            })
            .map_err(|error| tool_error(&self.tool, error))?;
            let result = awaiting
                .result()
                .await
                .map_err(|error| tool_error(&self.tool, error))?;
            gate::attach_py(|py| {
                to_value(result.bind(py)).inspect_err(|error| {
                    // The core logs through `tracing`, which a Python program does not see:
                    // the developer reads why here (the encoder names the type, not the value).
                    let _ = helpers(py).and_then(|h| {
                        h.getattr("warn")?.call1((format!(
                            "{}: the tool returned a value that is not JSON: {}",
                            self.tool,
                            error.value(py)
                        ),))
                    });
                })
            })
            .map_err(|_| ToolError::internal("the tool returned a value that is not JSON"))
        })
    }

    fn validate(&self, arguments: Arguments) -> Result<Arguments, ToolError> {
        if !self.validates {
            return Ok(arguments);
        }
        gate::attach_py(|py| -> PyResult<Result<Arguments, ToolError>> {
            let given = to_py(py, &Value::Object(arguments))?;
            let validate = pyo3::intern!(py, "validate");
            let checked = match self.object.bind(py).call_method1(validate, (given,)) {
                Ok(checked) => checked,
                Err(error) => return Ok(Err(tool_error(&self.tool, error))),
            };
            match to_value(&checked)? {
                Value::Object(map) => Ok(Ok(map)),
                _ => Ok(Err(ToolError::internal(
                    "validate returned something other than a dict",
                ))),
            }
        })
        .unwrap_or_else(|error| Err(tool_error(&self.tool, error)))
    }

    fn checks_extra_arguments(&self) -> bool {
        self.checks_extra
    }
}
