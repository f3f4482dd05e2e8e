//! `hark._core`: the Rust side of the `hark-voice` Python package (python/).
//!
//! The Python layer (`python/hark`) builds tools from type hints through pydantic and hands
//! their schemas here; the checks, refusals, templates, spoken values and webhooks run in
//! `hark-tools`, with the texts of the Rust API. The local classifier for Pipecat's `UIWorker`
//! is `hark-classify`'s.

use pyo3::prelude::*;

mod classify;
mod tools;

/// The extension module, imported by the Python package as `hark._core`.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    tools::register(module)?;
    classify::register(module)?;
    Ok(())
}
