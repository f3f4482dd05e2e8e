//! The local classifier for Python (`hark.pipecat.LocalClassifier`), over `hark-classify`.

use pyo3::prelude::*;

/// Adds the classifier's classes to `hark._core`.
pub(crate) fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
