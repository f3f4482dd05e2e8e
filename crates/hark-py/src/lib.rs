//! `hark._core`: the Rust side of the `hark-voice` Python package (python/).
//!
//! Today it carries the package's version only: the tool layer (over `hark-tools`) and the
//! local classifier for Pipecat's `UIWorker` (over `hark-classify`) come as their own modules
//! with issue 18.

use pyo3::prelude::*;

/// The extension module, imported by the Python package as `hark._core`.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
