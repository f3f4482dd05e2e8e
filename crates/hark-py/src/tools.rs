//! The tool layer for Python: registries, specs and calls over `hark-tools`.

use pyo3::prelude::*;

/// Adds the tool layer's classes and functions to `hark._core`.
pub(crate) fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
