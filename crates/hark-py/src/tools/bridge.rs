//! Awaiting a Python coroutine from Rust (pyo3-async-runtimes' `into_future`) so that dropping the
//! Rust future cancels the Python task: the coroutine runs inside `hark._bridge.guarded`, whose
//! handle the drop guard cancels.

use std::future::Future;
use std::pin::Pin;

use pyo3::prelude::*;

use super::json::bridge;

type PyFuture = Pin<Box<dyn Future<Output = PyResult<Py<PyAny>>> + Send>>;

/// A Python awaitable scheduled on the call's event loop, awaited from Rust.
pub struct Awaiting {
    future: PyFuture,
    guard: CancelOnDrop,
}

/// Cancels the Python task when dropped before the task finished.
struct CancelOnDrop {
    handle: Option<Py<PyAny>>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            // At interpreter exit there is nothing left to cancel: `try_attach` gives up then.
            let _ = Python::try_attach(|py| {
                if let Err(error) = handle.call_method0(py, "cancel") {
                    error.print(py);
                }
            });
        }
    }
}

/// Schedules `awaitable` (a coroutine, or any value: a plain value is returned as it is) on the
/// event loop of the asyncio task that awaits the call, and returns its Rust side.
///
/// Call it inside a future made by `future_into_py` (the loop is found there), before its first
/// await point.
pub fn awaiting(py: Python<'_>, awaitable: &Bound<'_, PyAny>) -> PyResult<Awaiting> {
    let module = bridge(py)?;
    let handle = module.getattr("Handle")?.call0()?;
    let guarded = module.getattr("guarded")?.call1((awaitable, &handle))?;
    let locals = pyo3_async_runtimes::tokio::get_current_locals(py)?;
    let future = pyo3_async_runtimes::into_future_with_locals(&locals, guarded)?;
    Ok(Awaiting {
        future: Box::pin(future),
        guard: CancelOnDrop {
            handle: Some(handle.unbind()),
        },
    })
}

impl Awaiting {
    /// Waits for the Python task's result (its exception as `Err`).
    pub async fn result(mut self) -> PyResult<Py<PyAny>> {
        let result = (&mut self.future).await;
        // Finished: nothing to cancel (the handle is dropped with the GIL held below).
        if let Some(handle) = self.guard.handle.take() {
            Python::attach(|_| drop(handle));
        }
        result
    }
}
