//! The `Speech` bridge: the adapter's Python object (`say`, `wait_playout`, `reply_spoke`) as
//! the call's voice in `hark-tools`.

use futures::future::BoxFuture;
use hark_tools::Speech;
use pyo3::prelude::*;

use super::bridge;
use super::json::bridge as helpers;
use crate::gate;

/// The adapter's speech object. A method that raises is logged (`hark` logger) and the call goes
/// on: a line that could not be said never fails a tool call.
pub struct PySpeech {
    object: Py<PyAny>,
    speaks_itself: bool,
}

impl std::fmt::Debug for PySpeech {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PySpeech")
    }
}

impl PySpeech {
    /// Wraps `object`; fails with `TypeError` when it lacks `say`, `wait_playout` or
    /// `reply_spoke`.
    pub fn new(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        let speaks_itself: bool = helpers(object.py())?
            .getattr("speech_flags")?
            .call1((object,))?
            .extract()?;
        Ok(Self {
            object: object.clone().unbind(),
            speaks_itself,
        })
    }

    async fn call(&self, method: &'static str, line: Option<&str>) {
        let awaiting = gate::attach_py(|py| {
            let object = self.object.bind(py);
            let coroutine = match line {
                Some(line) => object.call_method1(method, (line,))?,
                None => object.call_method0(method)?,
            };
            bridge::awaiting(py, &coroutine)
        });
        let result = match awaiting {
            Ok(awaiting) => awaiting.result().await.map(drop),
            Err(error) => Err(error),
        };
        if let Err(error) = result {
            warn(method, error);
        }
    }
}

fn warn(method: &str, error: PyErr) {
    gate::attach(|py| {
        let logged = helpers(py).and_then(|h| {
            h.getattr("speech_failed")?
                .call1((method, error.value(py)))
                .map(drop)
        });
        if let Err(e) = logged {
            e.print(py);
        }
    });
}

impl Speech for PySpeech {
    fn say<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(self.call("say", Some(line)))
    }

    fn wait_playout(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.call("wait_playout", None))
    }

    fn reply_spoke(&self) -> bool {
        gate::attach(|py| {
            match self
                .object
                .bind(py)
                .call_method0("reply_spoke")
                .and_then(|v| v.is_truthy())
            {
                Ok(spoke) => spoke,
                Err(error) => {
                    warn("reply_spoke", error);
                    false
                }
            }
        })
        .unwrap_or(false)
    }

    fn speaks_itself(&self) -> bool {
        self.speaks_itself
    }
}
