//! `hark._core`: the Rust side of the `hark-voice` Python package (python/).
//!
//! - [`tools`]: the tool layer over `hark-tools` and `hark-webhook`: tools built from a JSON Schema
//!   whose executor is a Python object, the registry, a call in progress and what a call ends in.
//!   Arguments are checked, refused, templated and spoken here, with the Rust API's texts; Python
//!   code gets only checked JSON.
//! - [`classify`]: `LocalClassifier`, Hark's local classifier for Pipecat's `UIWorker`
//!   (`hark.pipecat.LocalClassifier` wraps it), with the JSON shapes of [`classify_shapes`].
//! - [`blocking`]: blocking Rust work as asyncio awaitables.
//! - [`gate`]: the exit gate, the one way Rust threads take the GIL, closed at interpreter exit.
//! - [`misuse`]: the one text of a wrong-type or wrong-shape argument to the public API.

mod blocking;
mod classify;
mod classify_shapes;
mod gate;
mod misuse;
mod tools;

use pyo3::prelude::*;

/// The extension module, imported by the Python package as `hark._core`.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    gate::register(module)?;
    tools::register(module)?;
    classify::register(module)?;
    misuse::register(module)?;
    Ok(())
}
