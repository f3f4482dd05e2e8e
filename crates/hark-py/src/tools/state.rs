//! `CallState`: one call's State values, what the call carries, its language, timezone and
//! transcript, shared by every tool call of the call.

use hark_tools::{CALL_VALUES, CallInfo, CallState, ToolContext};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Map, Value};

use super::json::{to_py, to_value};

/// The state of one call (`hark.CallState`). Clones share it: a tool's saves are seen by the
/// next call.
#[pyclass(name = "CallState", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyCallState {
    /// The Rust call state.
    pub inner: CallState,
}

impl PyCallState {
    /// A copy of the call state a tool runs with (what its `ToolContext` holds).
    pub fn snapshot(context: &ToolContext) -> Self {
        let inner = CallState::new(
            context.call.clone(),
            context.language.clone(),
            context.timezone.as_deref(),
        );
        if let Value::Object(values) = &context.state {
            for (name, value) in values {
                inner.set(name.clone(), value.clone());
            }
        }
        for message in &context.transcript {
            inner.push_message(message.role.clone(), message.text.clone());
        }
        Self { inner }
    }
}

/// What a call carries, from a dict of `session_id`, `remote_number`, `carrier_call_id`,
/// `participant`, `call_type` (`"inbound"`, `"outbound"` or `None`) and `end_reason`.
pub fn call_info(call: Option<&Bound<'_, PyAny>>) -> PyResult<CallInfo> {
    let Some(call) = call.filter(|c| !c.is_none()) else {
        return Ok(CallInfo::default());
    };
    let Value::Object(mut map) = to_value(call)? else {
        return Err(PyTypeError::new_err(
            "call must be a dict like {\"session_id\": \"s-1\", \"remote_number\": \"+14155550123\"}",
        ));
    };
    if let Some(unknown) = map.keys().find(|k| !CALL_VALUES.contains(&k.as_str())) {
        return Err(PyValueError::new_err(format!(
            "call has no value {unknown}: a call carries {}",
            CALL_VALUES.join(", ")
        )));
    }
    map.entry("session_id")
        .or_insert(Value::String(String::new()));
    if map.get("call_type").is_none_or(Value::is_null) {
        map.insert("call_type".into(), Value::String("none".into()));
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        PyValueError::new_err(format!(
            "call: {e}. session_id and the numbers are text, call_type is \"inbound\", \"outbound\" or None"
        ))
    })
}

/// A dict of State values (a pydantic model instance is dumped first, on the Python side).
pub fn values_of(values: Option<&Bound<'_, PyAny>>) -> PyResult<Map<String, Value>> {
    match values.filter(|v| !v.is_none()) {
        None => Ok(Map::new()),
        Some(values) => match to_value(values)? {
            Value::Object(map) => Ok(map),
            _ => Err(PyTypeError::new_err(
                "state values must be a dict of State values or a State model instance",
            )),
        },
    }
}

#[pymethods]
impl PyCallState {
    /// A call's state: `values` (a dict of State values), `call` (what the call carries),
    /// `language` (BCP 47) and `timezone` (IANA).
    #[new]
    #[pyo3(signature = (values=None, *, call=None, language=None, timezone=None))]
    fn new(
        values: Option<&Bound<'_, PyAny>>,
        call: Option<&Bound<'_, PyAny>>,
        language: Option<&Bound<'_, PyAny>>,
        timezone: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let language = crate::misuse::optional_string(
            "CallState",
            "language",
            language,
            "CallState(language=\"en-US\")",
        )?
        .unwrap_or_else(|| "en".to_string());
        let language = language.as_str();
        let timezone = crate::misuse::optional_string(
            "CallState",
            "timezone",
            timezone,
            "CallState(timezone=\"Europe/Madrid\")",
        )?;
        let timezone = timezone.as_deref();
        // The core's one check of a call's language and timezone, where they are given.
        hark_speak::locale::check_call(language, timezone)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let inner = CallState::new(call_info(call)?, language, timezone);
        for (name, value) in values_of(values)? {
            inner.set(name, value);
        }
        Ok(Self { inner })
    }

    /// A State value, or `None` when it is unset.
    fn get<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.get(name) {
            Some(value) => to_py(py, &value),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Sets one State value (unchecked: the agent's own write). `None` unsets it.
    fn set(&self, name: String, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set(name, to_value(value)?);
        Ok(())
    }

    /// Every State value, as a dict.
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.values())
    }

    /// What the call carries, as a dict.
    #[getter]
    fn call<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let call = serde_json::to_value(self.inner.call()).unwrap_or(Value::Null);
        to_py(py, &call)
    }

    /// Replaces what the call carries.
    fn set_call(&self, call: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_call(call_info(Some(call))?);
        Ok(())
    }

    /// The call's language (BCP 47).
    #[getter]
    fn language(&self) -> String {
        self.inner.language()
    }

    /// The call's IANA timezone, if set.
    #[getter]
    fn timezone(&self) -> Option<String> {
        self.inner.timezone()
    }

    /// Adds a message to the transcript (`role` is `"user"` or `"assistant"`).
    fn push_message(&self, role: String, text: String) {
        self.inner.push_message(role, text);
    }

    /// Marks a value as confirmed with the caller.
    fn confirm(&self, name: String) {
        self.inner.confirm(name);
    }

    /// True when the value was confirmed with the caller.
    fn is_confirmed(&self, name: &str) -> bool {
        self.inner.is_confirmed(name)
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}
