//! Awaiting a Python coroutine from Rust so that dropping the Rust future cancels the Python task:
//! the coroutine runs as a task of the call's event loop inside `hark._bridge.guarded`, whose
//! handle the drop guard cancels; the task's done callback sends its outcome to the Rust side.
//! Rust touches Python here only through the exit gate ([`crate::gate`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use pyo3::exceptions::asyncio::CancelledError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_async_runtimes::TaskLocals;
use tokio::sync::oneshot;

use super::json::bridge;
use crate::gate;

type PyFuture = Pin<Box<dyn Future<Output = PyResult<Py<PyAny>>> + Send>>;

/// The event loop of the last call run from Python: work the core runs outside the asyncio
/// task that awaits a call (a webhook sent in the background, a token it fetches) runs its
/// Python there.
static LAST_LOOP: Mutex<Option<TaskLocals>> = Mutex::new(None);

fn last_loop() -> Option<TaskLocals> {
    LAST_LOOP.lock().ok().and_then(|l| l.clone())
}

/// Remembers the running event loop (call it on the loop's thread, from a call's entry point).
pub fn remember_loop(py: Python<'_>) {
    if let Ok(locals) = TaskLocals::with_running_loop(py).and_then(|l| l.copy_context(py))
        && let Ok(mut last) = LAST_LOOP.lock()
    {
        *last = Some(locals);
    }
}

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
            // At interpreter exit (the gate closed) there is nothing left to cancel.
            gate::attach(|py| {
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
/// The loop is the running one when this runs on the loop's thread (a call's driver polls there),
/// else that of the `future_into_py` scope around it, else the last call's.
pub fn awaiting(py: Python<'_>, awaitable: &Bound<'_, PyAny>) -> PyResult<Awaiting> {
    let module = bridge(py)?;
    let handle = module.getattr("Handle")?.call0()?;
    let guarded = module.getattr("guarded")?.call1((awaitable, &handle))?;
    let locals = match pyo3_async_runtimes::tokio::get_current_locals(py) {
        Ok(locals) => locals,
        Err(error) => last_loop().ok_or(error)?,
    };
    let (tx, rx) = oneshot::channel();
    let reply = Reply {
        tx: Mutex::new(Some(tx)),
    };
    let event_loop = locals.event_loop(py);
    let on_loop =
        pyo3_async_runtimes::get_running_loop(py).is_ok_and(|running| running.is(&event_loop));
    if on_loop {
        // On the loop's thread: the task starts on the loop's next iteration, no wake-up needed.
        // `context.run(create_task, ...)`: the task runs in a copy of the call's context, as
        // `start` makes it from the other threads.
        let create_task = event_loop.getattr(pyo3::intern!(py, "create_task"))?;
        locals
            .context(py)
            .call_method1(pyo3::intern!(py, "run"), (create_task, guarded))?
            .call_method1(pyo3::intern!(py, "add_done_callback"), (reply,))?;
    } else {
        let kwargs = PyDict::new(py);
        kwargs.set_item(pyo3::intern!(py, "context"), locals.context(py))?;
        event_loop.call_method(
            pyo3::intern!(py, "call_soon_threadsafe"),
            (module.getattr(pyo3::intern!(py, "start"))?, guarded, reply),
            Some(&kwargs),
        )?;
    }
    let future = async move {
        // No reply: the loop dropped the task unrun (it closed).
        rx.await
            .unwrap_or_else(|_| Err(CancelledError::new_err("the event loop closed")))
    };
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
            gate::attach(|_| drop(handle));
        }
        result
    }
}

/// The done callback of the task a Rust future awaits: sends the task's result (its exception as
/// `Err`) to that future.
#[pyclass(name = "_Reply", module = "hark._core", frozen)]
struct Reply {
    tx: Mutex<Option<oneshot::Sender<PyResult<Py<PyAny>>>>>,
}

#[pymethods]
impl Reply {
    fn __call__(&self, task: &Bound<'_, PyAny>) {
        let outcome = task.call_method0("result").map(Bound::unbind);
        if let Some(tx) = self.tx.lock().ok().and_then(|mut tx| tx.take()) {
            // The Rust side gave up waiting: the outcome is dropped here, with the GIL held.
            drop(tx.send(outcome));
        }
    }
}
