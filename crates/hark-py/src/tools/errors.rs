//! Errors across the edge: a tool's Python exception as the `ToolError` the model reads, and a
//! Rust build error as the Python exception the author reads.

use hark_tools::{BuildError, ToolError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::json::bridge;
use crate::gate;

/// A tool or registry that could not be built: `ValueError` with every problem, one per line.
pub fn build_error(error: BuildError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// What a Python exception raised by a tool (or its `validate`, or a precheck) becomes: a
/// `hark.ToolError` keeps its words and kind (`ToolRefused`, `ArgumentsMissing`, the checked
/// arguments' own refusal), `asyncio.CancelledError` is a cancelled call, and any other
/// exception is a failure whose details the model never reads ("failed before completing");
/// the log names `tool` and the exception, with its traceback.
pub fn tool_error(tool: &str, error: PyErr) -> ToolError {
    gate::attach(|py| {
        let parts = bridge(py).and_then(|b| {
            b.getattr("tool_error_parts")?
                .call1((error.value(py), tool))?
                .extract::<(String, String, Option<String>, Vec<String>)>()
        });
        match parts {
            Ok((kind, message, event_text, extra)) => {
                let error = match kind.as_str() {
                    "refused" => ToolError::refused(message),
                    "missing" => ToolError::arguments_missing(message, extra),
                    "invalid" => ToolError::invalid_arguments(
                        extra,
                        event_text
                            .clone()
                            .unwrap_or_else(|| "invalid arguments".into()),
                    ),
                    "cancelled" => ToolError::cancelled(),
                    "failed" => ToolError::new(message),
                    _ => ToolError::internal(message),
                };
                match event_text {
                    Some(text) if kind != "invalid" => error.with_event_text(text),
                    _ => error,
                }
            }
            Err(_) => ToolError::internal("the tool raised an exception Hark could not read"),
        }
    })
    .unwrap_or_else(|| ToolError::internal(gate::CLOSED_TEXT))
}
