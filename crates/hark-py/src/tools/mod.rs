//! The tool layer as Python classes: each module holds one of them (or the glue they share).

use pyo3::prelude::*;

mod bridge;
mod builtin;
mod driver;
mod errors;
mod executor;
mod hooks;
mod json;
mod live;
mod options;
mod registry;
mod spec;
mod speech;
mod state;
mod texts;
mod webhook;

pub(crate) use spec::PyToolSpec;

/// Adds the tool layer's classes and functions to `hark._core`.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<spec::PyToolSpec>()?;
    module.add_class::<registry::PyToolRegistry>()?;
    module.add_class::<live::PyLiveCall>()?;
    module.add_class::<live::PyGeneration>()?;
    module.add_class::<live::PyCallResult>()?;
    module.add_class::<state::PyCallState>()?;
    module.add_class::<hooks::PyCallHooks>()?;
    module.add_class::<hooks::PyToolOutcome>()?;
    module.add_class::<hooks::PyNext>()?;
    module.add_class::<driver::Driver>()?;
    texts::register(module)?;
    builtin::register(module)?;
    webhook::register(module)?;
    Ok(())
}
