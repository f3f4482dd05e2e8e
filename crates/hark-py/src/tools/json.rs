//! Python values ↔ JSON values. Dicts with string keys, lists, tuples, strings, ints that fit 64
//! bits, finite floats, bools and `None` are converted directly; any other value goes through
//! the package's own encoder (`hark._bridge.dumps`: pydantic models, dates and enums as JSON,
//! and its errors for what JSON cannot hold), so both ways give what `json.dumps` and
//! `json.loads` give.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyModule, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep [`to_value`] follows dicts and lists itself.
const MAX_DEPTH: usize = 64;

static BRIDGE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The pure-Python helpers of the bridge (`hark/_bridge.py`).
pub fn bridge(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    BRIDGE
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("hark._bridge")?.unbind()))
        .map(|m| m.bind(py))
}

/// A Python value as JSON. A value JSON cannot hold raises `TypeError` naming its type.
pub fn to_value(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    match direct(value, 0) {
        Some(value) => Ok(value),
        None => encoded(value),
    }
}

/// The value through `hark._bridge.dumps`.
fn encoded(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = bridge(value.py())?
        .getattr("dumps")?
        .call1((value,))?
        .extract()?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| PyValueError::new_err(format!("the value is not JSON Hark can read: {e}")))?;
    if hark_schema::inexact_whole_number(&value, &text) {
        return Err(PyValueError::new_err(
            "the value holds a whole number outside -9223372036854775808 to \
             18446744073709551615, which JSON here cannot carry exactly; return it as a string",
        ));
    }
    Ok(value)
}

/// The value converted without the encoder, or `None` when some part of it needs the encoder
/// (then the whole value goes through it, so its texts and errors are the encoder's), or when
/// it nests deeper than [`MAX_DEPTH`] (a value that holds itself: the encoder names the cycle).
fn direct(value: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if value.is_none() {
        return Some(Value::Null);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Some(Value::Bool(flag.is_true()));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return text.to_str().ok().map(|s| Value::String(s.to_owned()));
    }
    if value.is_exact_instance_of::<PyInt>() {
        if let Ok(n) = value.extract::<i64>() {
            return Some(Value::Number(n.into()));
        }
        return value.extract::<u64>().ok().map(|n| Value::Number(n.into()));
    }
    if value.is_exact_instance_of::<PyFloat>() {
        let x: f64 = value.extract().ok()?;
        return Number::from_f64(x).map(Value::Number);
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let key = key.cast::<PyString>().ok()?.to_str().ok()?.to_owned();
            map.insert(key, direct(&item, depth + 1)?);
        }
        return Some(Value::Object(map));
    }
    if let Ok(list) = value.cast::<PyList>() {
        return list
            .iter()
            .map(|item| direct(&item, depth + 1))
            .collect::<Option<_>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|item| direct(&item, depth + 1))
            .collect::<Option<_>>()
            .map(Value::Array);
    }
    None
}

/// A JSON value as a Python value (dicts, lists, str, int, float, bool, None).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}
