//! The built-in tools: `current_datetime_tool(zone)`, `user_phone_number_tool()` and the core of
//! `end_call_tool`.

use hark_tools::ToolSpec;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::build_error;
use super::spec::PyToolSpec;

fn named(
    spec: ToolSpec,
    name: Option<String>,
    description: Option<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let mut spec = spec;
    if let Some(name) = name {
        spec = spec.with_name(name).map_err(build_error)?;
    }
    if let Some(description) = description {
        spec = spec.with_description(description);
    }
    PyToolSpec::from_spec(spec, options)
}

/// `current_datetime`: the date, time and weekday now in `zone`, an IANA zone like
/// `"Europe/Madrid"` (another name raises `ValueError`).
#[pyfunction]
#[pyo3(signature = (zone, *, name=None, description=None, **options))]
fn current_datetime_tool(
    zone: &str,
    name: Option<String>,
    description: Option<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let spec = hark_tools::current_datetime_tool(zone).map_err(build_error)?;
    named(spec, name, description, options)
}

/// `user_phone_number`: the caller's number and the call's direction, from what the call
/// carries.
#[pyfunction]
#[pyo3(signature = (*, name=None, description=None, **options))]
fn user_phone_number_tool(
    name: Option<String>,
    description: Option<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let spec = hark_tools::user_phone_number_tool().map_err(build_error)?;
    named(spec, name, description, options)
}

/// `end_call`: a tool with no arguments whose success ends the conversation; `goodbye` is its
/// announce line, which plays out before the call ends (a blank goodbye raises `ValueError`).
/// The Pipecat adapter's `end_call_tool` builds on it.
#[pyfunction]
#[pyo3(signature = (description, goodbye, **options))]
fn end_call_tool(
    description: &str,
    goodbye: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let spec = hark_tools::end_call_tool(description, goodbye).map_err(build_error)?;
    PyToolSpec::from_spec(spec, options)
}

/// Adds the functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(current_datetime_tool, module)?)?;
    module.add_function(wrap_pyfunction!(user_phone_number_tool, module)?)?;
    module.add_function(wrap_pyfunction!(end_call_tool, module)?)?;
    Ok(())
}
