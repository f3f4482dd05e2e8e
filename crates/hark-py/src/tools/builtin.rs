//! The built-in tools: `current_datetime_tool(zone)`, `user_phone_number_tool()` and the core of
//! `end_call_tool`.

use hark_tools::ToolSpec;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::build_error;
use super::spec::PyToolSpec;
use crate::misuse;

fn named(
    call: &str,
    spec: ToolSpec,
    name: Option<&Bound<'_, PyAny>>,
    description: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let name = misuse::optional_string(call, "name", name, &format!("{call}(name=\"what_time\")"))?;
    let description = misuse::optional_string(
        call,
        "description",
        description,
        &format!("{call}(description=\"Get the time now.\")"),
    )?;
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
    zone: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
    description: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    const CALL: &str = "current_datetime_tool";
    let zone = misuse::string(
        CALL,
        "zone",
        zone,
        "current_datetime_tool(\"Europe/Madrid\")",
    )?;
    let spec = hark_tools::current_datetime_tool(&zone).map_err(build_error)?;
    named(CALL, spec, name, description, options)
}

/// `user_phone_number`: the caller's number and the call's direction, from what the call
/// carries.
#[pyfunction]
#[pyo3(signature = (*, name=None, description=None, **options))]
fn user_phone_number_tool(
    name: Option<&Bound<'_, PyAny>>,
    description: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let spec = hark_tools::user_phone_number_tool().map_err(build_error)?;
    named("user_phone_number_tool", spec, name, description, options)
}

/// `end_call`: a tool with no arguments whose success ends the conversation; `goodbye` is its
/// announce line, which plays out before the call ends (a blank goodbye raises `ValueError`).
/// The Pipecat adapter's `end_call_tool` builds on it.
#[pyfunction]
#[pyo3(signature = (description, goodbye, **options))]
fn end_call_tool(
    description: &Bound<'_, PyAny>,
    goodbye: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    const CALL: &str = "end_call_tool";
    const EXAMPLE: &str =
        "end_call_tool(\"Call it when the caller is done.\", \"Goodbye!\", reply_text(llm))";
    let description = misuse::string(CALL, "description", description, EXAMPLE)?;
    let goodbye = misuse::string(CALL, "goodbye", goodbye, EXAMPLE)?;
    let spec = hark_tools::end_call_tool(&description, &goodbye).map_err(build_error)?;
    PyToolSpec::from_spec(spec, options)
}

/// Adds the functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(current_datetime_tool, module)?)?;
    module.add_function(wrap_pyfunction!(user_phone_number_tool, module)?)?;
    module.add_function(wrap_pyfunction!(end_call_tool, module)?)?;
    Ok(())
}
