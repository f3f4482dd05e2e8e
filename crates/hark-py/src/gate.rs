//! The exit gate: the one way Hark's Rust code takes the GIL, so that no Rust thread touches a
//! finalizing interpreter.
//!
//! PyO3's exit race: a Rust thread (a tokio worker, the blocking pool) that takes or releases the
//! GIL while the interpreter finalizes aborts the process ("Fatal Python error:
//! PyGILState_Release"). Every hand-over from Rust to Python — a classifier's answer, a call's
//! wake-up, a tool, hook, sink, speech or token function called from a tokio thread — goes
//! through [`attach`]. [`shutdown`] (registered with `atexit` when `hark._core` is imported)
//! closes the gate: it waits, without the GIL, for the hand-overs in progress, and after it
//! [`attach`] runs nothing and returns `None`. Work still running then is abandoned: it finishes
//! on its thread and its outcome is dropped without touching Python (the objects it holds are
//! leaked; the interpreter is going away).

use std::cell::Cell;
use std::sync::{Condvar, Mutex, PoisonError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The text of the error work gets once the gate is closed.
pub(crate) const CLOSED_TEXT: &str =
    "hark is shutting down with the interpreter: no new work is started";

/// Whether the gate is closed and how many threads are inside it.
struct Gate {
    closed: bool,
    inside: usize,
}

static GATE: Mutex<Gate> = Mutex::new(Gate {
    closed: false,
    inside: 0,
});
/// Signalled when the last thread inside leaves.
static EMPTY: Condvar = Condvar::new();

thread_local! {
    /// How deep this thread is in [`attach`]: only the outermost counts as inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

fn gate() -> std::sync::MutexGuard<'static, Gate> {
    GATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Leaves the gate when dropped (also when `f` panics).
struct Inside;

impl Drop for Inside {
    fn drop(&mut self) {
        let depth = DEPTH.with(|d| {
            let depth = d.get() - 1;
            d.set(depth);
            depth
        });
        if depth == 0 {
            let mut gate = gate();
            gate.inside -= 1;
            if gate.inside == 0 {
                EMPTY.notify_all();
            }
        }
    }
}

/// Runs `f` with the GIL unless the gate is closed (then `None`, and `f` is dropped without
/// touching Python).
pub(crate) fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    let outermost = DEPTH.with(Cell::get) == 0;
    if outermost {
        let mut gate = gate();
        if gate.closed {
            drop(gate);
            // Its Python objects go to PyO3's pending decrefs, never touched again.
            drop(f);
            return None;
        }
        gate.inside += 1;
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let _inside = Inside;
    Some(Python::attach(f))
}

/// [`attach`] for work that returns a `PyResult`: a closed gate is a `RuntimeError` (made
/// without the GIL).
pub(crate) fn attach_py<R>(f: impl for<'py> FnOnce(Python<'py>) -> PyResult<R>) -> PyResult<R> {
    attach(f).unwrap_or_else(|| Err(closed_error()))
}

/// The error new work gets once the gate is closed.
pub(crate) fn closed_error() -> PyErr {
    PyRuntimeError::new_err(CLOSED_TEXT)
}

/// Whether the gate is closed (new work is refused).
pub(crate) fn is_closed() -> bool {
    gate().closed
}

/// Closes the gate (at interpreter exit): waits, without the GIL, for hand-overs in progress on
/// other threads; afterwards no Rust thread takes the GIL and new work is refused.
#[pyfunction]
#[pyo3(name = "_shutdown")]
pub(crate) fn shutdown(py: Python<'_>) {
    // Called from inside the gate (a hook that calls it): this thread's own entry stays.
    let own = usize::from(DEPTH.with(Cell::get) > 0);
    py.detach(|| {
        let mut gate = gate();
        gate.closed = true;
        while gate.inside > own {
            gate = EMPTY.wait(gate).unwrap_or_else(PoisonError::into_inner);
        }
    });
}

/// Adds `_shutdown` to `hark._core` and registers it with `atexit`.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let shutdown = wrap_pyfunction!(shutdown, module)?;
    module.add_function(shutdown.clone())?;
    module
        .py()
        .import("atexit")?
        .call_method1("register", (shutdown,))?;
    Ok(())
}
