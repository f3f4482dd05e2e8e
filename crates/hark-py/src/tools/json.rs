//! Python values ↔ JSON values, through the package's own encoder (`hark._bridge.dumps`: pydantic
//! models, dates and enums as JSON) and `json.loads`.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;
use serde_json::Value;

static BRIDGE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The pure-Python helpers of the bridge (`hark/_bridge.py`).
pub fn bridge(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    BRIDGE
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("hark._bridge")?.unbind()))
        .map(|m| m.bind(py))
}

/// A Python value as JSON. A value JSON cannot hold raises `TypeError` naming its type.
pub fn to_value(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = bridge(value.py())?
        .getattr("dumps")?
        .call1((value,))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| {
        pyo3::exceptions::PyValueError::new_err(format!("the value is not JSON Hark can read: {e}"))
    })
}

/// A JSON value as a Python value (dicts, lists, str, int, float, bool, None).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| {
        pyo3::exceptions::PyValueError::new_err(format!("the value could not be written: {e}"))
    })?;
    bridge(py)?.getattr("loads")?.call1((text,))
}
