//! Blocking Rust work as asyncio awaitables.
//!
//! [`awaitable`] returns a future of the running asyncio loop. The work runs on the blocking
//! pool of pyo3-async-runtimes' tokio runtime, without the GIL; its outcome is handed to the
//! loop (`call_soon_threadsafe`) through the exit gate ([`crate::gate`]) and dropped if the
//! future was cancelled meanwhile, or the interpreter is exiting.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::gate;

/// How a piece of work ended.
enum Outcome<E> {
    Done(String),
    Failed(E),
    Panicked(String),
}

/// An asyncio future of the running loop that resolves to the string `work` returns, or
/// raises what `to_error` makes of its error. `work` runs on tokio's blocking pool, off the
/// GIL.
///
/// # Errors
/// `RuntimeError` when no asyncio loop is running (call it from a coroutine) or when the
/// interpreter is exiting.
pub(crate) fn awaitable<'py, E: Send + 'static>(
    py: Python<'py>,
    work: impl FnOnce() -> Result<String, E> + Send + 'static,
    to_error: fn(Python<'_>, E) -> PyErr,
) -> PyResult<Bound<'py, PyAny>> {
    if gate::is_closed() {
        return Err(gate::closed_error());
    }
    let event_loop = pyo3_async_runtimes::get_running_loop(py)?;
    let future = event_loop.call_method0("create_future")?;
    let (event_loop, handle) = (event_loop.unbind(), future.clone().unbind());
    let runtime = pyo3_async_runtimes::tokio::get_runtime();
    drop(runtime.spawn_blocking(move || {
        let outcome = match catch_unwind(AssertUnwindSafe(work)) {
            Ok(Ok(text)) => Outcome::Done(text),
            Ok(Err(e)) => Outcome::Failed(e),
            Err(panic) => Outcome::Panicked(panic_text(panic.as_ref())),
        };
        hand_over(event_loop, handle, outcome, to_error);
    }));
    Ok(future)
}

/// Hands `outcome` to the loop unless the gate is closed (then drops it, never touching
/// Python).
fn hand_over<E>(
    event_loop: Py<PyAny>,
    future: Py<PyAny>,
    outcome: Outcome<E>,
    to_error: fn(Python<'_>, E) -> PyErr,
) {
    // `move`: the loop and the future are released here, with the GIL held.
    gate::attach(move |py| {
        let (ok, value): (bool, Py<PyAny>) = match outcome {
            Outcome::Done(text) => (true, PyString::new(py, &text).into_any().unbind()),
            Outcome::Failed(e) => (false, to_error(py, e).into_value(py).into_any()),
            Outcome::Panicked(text) => (
                false,
                PyRuntimeError::new_err(format!(
                    "hark's Rust core failed unexpectedly: {text}. Please report it with the \
                     question that caused it."
                ))
                .into_value(py)
                .into_any(),
            ),
        };
        let settled = wrap_pyfunction!(settle, py).and_then(|settle| {
            event_loop.call_method1(py, "call_soon_threadsafe", (settle, future, ok, value))
        });
        // A loop that closed meanwhile: nobody awaits the future any more.
        drop(settled);
    });
}

/// Sets an asyncio future's result (`ok`) or exception, unless it is done (cancelled).
#[pyfunction]
fn settle(future: &Bound<'_, PyAny>, ok: bool, value: Bound<'_, PyAny>) -> PyResult<()> {
    if future.call_method0("done")?.is_truthy()? {
        return Ok(());
    }
    if ok {
        future.call_method1("set_result", (value,))?;
    } else {
        future.call_method1("set_exception", (value,))?;
    }
    Ok(())
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}
