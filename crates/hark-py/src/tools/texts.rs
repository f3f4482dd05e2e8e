//! The Rust API's own texts and checks the Python layer needs: a value refused by its format,
//! a phone number in E.164, what the model reads for a tool that keeps running.

use hark_tools::{Phone, messages};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What the model reads for `value` (a JSON value, or `None` when not at hand) refused by its
/// `format`: the Rust API's words, which quote it and say what is wrong
/// (`"2026-02-30" is not a day on the calendar: February 2026 has days 01 to 28`), or `None`.
#[pyfunction]
#[pyo3(signature = (format, value=None))]
fn format_refused(format: &str, value: Option<&Bound<'_, PyAny>>) -> Option<String> {
    // A value that is not JSON (pydantic may hand over any object) is quoted as not at hand.
    let value = value.and_then(|v| super::json::to_value(v).ok());
    hark_tools::format_refused(format, value.as_ref())
}

/// A phone number in international format as E.164 (`+14155550123`); `ValueError` with the
/// Rust API's words otherwise.
#[pyfunction]
fn parse_phone(text: &str) -> PyResult<String> {
    Phone::parse(text)
        .map(|p| p.as_str().to_string())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The description of a phone number in the schema the model reads.
#[pyfunction]
fn phone_description() -> &'static str {
    messages::PHONE_DESCRIPTION
}

/// `registry.replies_to` as a function: False when the result is a missing-argument refusal
/// and the reply that made the call already spoke.
#[pyfunction]
#[pyo3(signature = (result, *, spoke))]
fn replies_to(result: &Bound<'_, PyAny>, spoke: bool) -> PyResult<bool> {
    Ok(hark_tools::replies_to(
        &super::json::to_value(result)?,
        spoke,
    ))
}

/// What the model reads, as JSON text, for the tool `tool` while it keeps running after the
/// reply that called it was cut off: `{"status":"running","note":"<tool> is still running. …"}`
/// (the core's text for a `continue` tool; an adapter whose framework keeps every tool running
/// gives it for the others too).
#[pyfunction]
fn still_running(tool: &str) -> String {
    messages::still_running_result(tool).to_string()
}

/// What the model reads, as JSON text, when `tool` failed before completing and the details
/// are for the log only: `{"error":"<tool> failed before completing. Do not claim success."}`.
#[pyfunction]
fn failed_before_completing(tool: &str) -> String {
    serde_json::json!({"error": messages::failed_before_completing(tool)}).to_string()
}

/// Adds the functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(format_refused, module)?)?;
    module.add_function(wrap_pyfunction!(parse_phone, module)?)?;
    module.add_function(wrap_pyfunction!(phone_description, module)?)?;
    module.add_function(wrap_pyfunction!(replies_to, module)?)?;
    module.add_function(wrap_pyfunction!(still_running, module)?)?;
    module.add_function(wrap_pyfunction!(failed_before_completing, module)?)?;
    Ok(())
}
