//! The built-in tools: `current_datetime_tool(zone)` and `user_phone_number_tool()`.

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

/// Adds the functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(current_datetime_tool, module)?)?;
    module.add_function(wrap_pyfunction!(user_phone_number_tool, module)?)?;
    Ok(())
}
