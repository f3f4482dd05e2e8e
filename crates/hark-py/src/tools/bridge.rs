//! Awaiting a Python coroutine from Rust so that dropping the Rust future cancels the Python task.
//! On the event loop's thread (where a call's driver polls) the coroutine starts at once and runs
//! until it first waits (`hark._bridge.eager`): one that finishes without waiting is done before
//! the Rust side awaits it, so a call whose Python work does no I/O never gives the loop away.
//! One that waits goes on as a task of the loop, whose handle the drop guard cancels; from other
//! threads it starts as a task inside `hark._bridge.guarded`. The task's done callback sends its
//! outcome to the Rust side. Rust touches Python here only through the exit gate
//! ([`crate::gate`]).

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

/// Runs `awaitable` (a coroutine, or any value: a plain value is returned as it is) on the event
/// loop of the asyncio task that awaits the call, and returns its Rust side.
///
/// On the loop's thread (a call's driver polls there) it starts at once ([`eagerly`]); from
/// another thread it is scheduled on the loop of the `future_into_py` scope around it, else the
/// last call's.
pub fn awaiting(py: Python<'_>, awaitable: &Bound<'_, PyAny>) -> PyResult<Awaiting> {
    let module = bridge(py)?;
    if on_running_loop(py) {
        return eagerly(py, module, awaitable);
    }
    let handle = module.getattr("Handle")?.call0()?;
    let guarded = module.getattr("guarded")?.call1((awaitable, &handle))?;
    let locals = match pyo3_async_runtimes::tokio::get_current_locals(py) {
        Ok(locals) => locals,
        Err(error) => last_loop().ok_or(error)?,
    };
    let (reply, rx) = Reply::channel();
    let kwargs = PyDict::new(py);
    kwargs.set_item(pyo3::intern!(py, "context"), locals.context(py))?;
    locals.event_loop(py).call_method(
        pyo3::intern!(py, "call_soon_threadsafe"),
        (module.getattr(pyo3::intern!(py, "start"))?, guarded, reply),
        Some(&kwargs),
    )?;
    Ok(Awaiting {
        future: replied(rx),
        guard: CancelOnDrop {
            handle: Some(handle.unbind()),
        },
    })
}

/// True on the thread of a running event loop (a call's driver polls there).
fn on_running_loop(py: Python<'_>) -> bool {
    pyo3_async_runtimes::get_running_loop(py).is_ok()
}

/// On the loop's thread: the awaitable runs at once, until it first waits
/// (`hark._bridge.eager`, like Python 3.12's eager tasks), in a copy of the current context. A
/// coroutine that finishes without waiting (a tool that does no I/O) is done before this
/// returns, so the call does not give the loop away; one that waits goes on as a task.
fn eagerly(
    py: Python<'_>,
    module: &Bound<'_, PyModule>,
    awaitable: &Bound<'_, PyAny>,
) -> PyResult<Awaiting> {
    let started = module
        .getattr(pyo3::intern!(py, "eager"))?
        .call1((awaitable,));
    let (finished, value): (bool, Bound<'_, PyAny>) = match started {
        Ok(started) => started.extract()?,
        Err(error) => {
            return Ok(Awaiting {
                future: Box::pin(std::future::ready(Err(error))),
                guard: CancelOnDrop { handle: None },
            });
        }
    };
    if finished {
        let value = value.unbind();
        return Ok(Awaiting {
            future: Box::pin(std::future::ready(Ok(value))),
            guard: CancelOnDrop { handle: None },
        });
    }
    let handle = module
        .getattr(pyo3::intern!(py, "handle_of"))?
        .call1((&value,))?;
    let (reply, rx) = Reply::channel();
    value.call_method1(pyo3::intern!(py, "add_done_callback"), (reply,))?;
    Ok(Awaiting {
        future: replied(rx),
        guard: CancelOnDrop {
            handle: Some(handle.unbind()),
        },
    })
}

/// The task's outcome, once its done callback sent it.
fn replied(rx: oneshot::Receiver<PyResult<Py<PyAny>>>) -> PyFuture {
    Box::pin(async move {
        // No reply: the loop dropped the task unrun (it closed).
        rx.await
            .unwrap_or_else(|_| Err(CancelledError::new_err("the event loop closed")))
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

impl Reply {
    fn channel() -> (Self, oneshot::Receiver<PyResult<Py<PyAny>>>) {
        let (tx, rx) = oneshot::channel();
        (
            Self {
                tx: Mutex::new(Some(tx)),
            },
            rx,
        )
    }
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
