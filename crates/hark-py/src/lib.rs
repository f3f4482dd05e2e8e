//! `hark._core`: the Rust side of the `hark-voice` Python package (python/).
//!
//! The tool layer (`tools/`) wraps `hark-tools` and `hark-webhook`: tools built from a JSON Schema
//! whose executor is a Python object, the registry, a call in progress and what a call ends in.
//! Arguments are checked, refused, templated and spoken here, with the Rust API's texts; Python
//! code gets only checked JSON.

use pyo3::prelude::*;

mod tools;

/// The extension module, imported by the Python package as `hark._core`.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    tools::register(module)?;
    Ok(())
}
