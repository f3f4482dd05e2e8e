//! Runs a call's Rust future on the asyncio event loop's own thread: polled first when the call
//! starts, then each time it is woken (the waker puts the next poll on the loop with
//! `call_soon_threadsafe`). A tool call then never hops between threads unless its work does (a
//! webhook's I/O, on the tokio runtime's reactor, entered for each poll). Cancelling the asyncio
//! future drops the Rust future.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::gate;

type Boxed = Pin<Box<dyn Future<Output = PyResult<Py<PyAny>>> + Send>>;

/// One Rust future driven by the event loop, and the asyncio future it resolves.
#[pyclass(name = "_Driver", module = "hark._core", frozen)]
pub struct Driver {
    future: Mutex<Option<Boxed>>,
    /// The asyncio future of the output; made only when the first poll did not finish.
    result: OnceLock<Py<PyAny>>,
    event_loop: Py<PyAny>,
    /// The loop's thread: a wake-up there schedules with `call_soon` (no self-pipe write).
    loop_thread: ThreadId,
    scheduled: AtomicBool,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Driver")
    }
}

/// Wakes a driver: its next poll goes on the loop (once, however often it is woken meanwhile).
struct Wakeup(Py<Driver>);

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // At interpreter exit (the gate closed) there is no loop left to poll on.
        gate::attach(|py| {
            let driver = self.0.bind(py);
            if driver.get().scheduled.swap(true, Ordering::SeqCst) {
                return;
            }
            let on_loop = std::thread::current().id() == driver.get().loop_thread;
            let schedule = if on_loop {
                pyo3::intern!(py, "call_soon")
            } else {
                pyo3::intern!(py, "call_soon_threadsafe")
            };
            let scheduled = driver.getattr(pyo3::intern!(py, "_step")).and_then(|step| {
                driver
                    .get()
                    .event_loop
                    .bind(py)
                    .call_method1(schedule, (step,))
            });
            // A closed loop: the call's awaiter is gone, so is the work.
            if scheduled.is_err() {
                driver.get().drop_future();
            }
        });
    }
}

impl Driver {
    fn drop_future(&self) {
        let taken = self.future.lock().ok().and_then(|mut f| f.take());
        drop(taken);
    }

    /// Polls the Rust future once; its output once it is done (a panic is a `RuntimeError`).
    fn poll(slf: &Bound<'_, Self>) -> PyResult<Poll<PyResult<Py<PyAny>>>> {
        let this = slf.get();
        let waker = Waker::from(Arc::new(Wakeup(slf.clone().unbind())));
        let mut context = Context::from_waker(&waker);
        let Ok(mut slot) = this.future.lock() else {
            return Err(PyRuntimeError::new_err("a tool call's driver was poisoned"));
        };
        let Some(future) = slot.as_mut() else {
            return Ok(Poll::Pending);
        };
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        let polled =
            std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut context)));
        Ok(match polled {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => {
                *slot = None;
                Poll::Ready(output)
            }
            Err(_) => {
                *slot = None;
                Poll::Ready(Err(PyRuntimeError::new_err(
                    "a tool call panicked in Hark's core",
                )))
            }
        })
    }
}

#[pymethods]
impl Driver {
    /// Polls the future once (on the loop's thread); resolves the asyncio future when it is done.
    fn _step(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        let this = slf.get();
        this.scheduled.store(false, Ordering::SeqCst);
        let Some(result) = this.result.get() else {
            return Ok(());
        };
        let result = result.bind(py);
        if result.call_method0("done")?.is_truthy()? {
            this.drop_future();
            return Ok(());
        }
        match Driver::poll(slf)? {
            Poll::Pending => {}
            Poll::Ready(Ok(value)) => {
                result.call_method1("set_result", (value,))?;
            }
            Poll::Ready(Err(error)) => {
                result.call_method1("set_exception", (error.value(py),))?;
            }
        }
        Ok(())
    }

    /// The asyncio future is done: cancelled, the Rust future is dropped.
    fn _on_done(&self, _result: &Bound<'_, PyAny>) {
        self.drop_future();
    }
}

/// Drives `future` on the running event loop and returns the asyncio future of its output. It
/// is polled once here, before this returns.
pub fn on_loop<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    match start(py, future)? {
        Started::Pending(result) => Ok(result),
        Started::Done(output) => {
            let result = pyo3_async_runtimes::get_running_loop(py)?
                .call_method0(pyo3::intern!(py, "create_future"))?;
            match output {
                Ok(value) => result.call_method1("set_result", (value,))?,
                Err(error) => result.call_method1("set_exception", (error.value(py),))?,
            };
            Ok(result)
        }
    }
}

/// [`on_loop`] for a caller that takes either: the output itself when the first poll finished
/// (its error raised), else the asyncio future of the output. `hark._bridge.deferred` awaits
/// only a future, so a call that waits for nothing costs no future and no loop turn.
pub fn on_loop_or_value<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    match start(py, future)? {
        Started::Pending(result) => Ok(result),
        Started::Done(output) => output.map(|value| value.into_bound(py)),
    }
}

/// How the first poll ended.
enum Started<'py> {
    Done(PyResult<Py<PyAny>>),
    Pending(Bound<'py, PyAny>),
}

fn start<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Started<'py>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    let event_loop = pyo3_async_runtimes::get_running_loop(py)?;
    let boxed: Boxed = Box::pin(async move {
        let value = future.await?;
        gate::attach_py(|py| value.into_py_any(py))
    });
    let driver = Bound::new(
        py,
        Driver {
            future: Mutex::new(Some(boxed)),
            result: OnceLock::new(),
            event_loop: event_loop.clone().unbind(),
            loop_thread: std::thread::current().id(),
            scheduled: AtomicBool::new(false),
        },
    )?;
    if let Poll::Ready(output) = Driver::poll(&driver)? {
        return Ok(Started::Done(output));
    }
    let result = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
    // Woken during the first poll: that `_step` runs after this, on the loop, and finds it.
    let _ = driver.get().result.set(result.clone().unbind());
    result.call_method1(
        pyo3::intern!(py, "add_done_callback"),
        (driver.getattr(pyo3::intern!(py, "_on_done"))?,),
    )?;
    Ok(Started::Pending(result))
}
