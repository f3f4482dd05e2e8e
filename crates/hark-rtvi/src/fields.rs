//! Path-aware extraction of fields from untrusted JSON objects.
//!
//! serde's own errors do not say *where* a value was wrong; clients need
//! `data.tree.root.children[0].role: missing field`. These helpers take fields out of an owned
//! `serde_json::Map` one by one and report the full JSON path of any problem.

use serde_json::{Map, Value};

use crate::messages;

/// A problem at one place in an inbound JSON value: the JSON path (`data.content`,
/// `data.tree.root.children[2].role`) and, in [`FieldError::detail`], what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct FieldError {
    /// JSON path of the offending value, dot-separated with `[i]` for array items.
    pub path: String,
    /// Full client-readable detail, starting with the path, e.g. `data.content: missing field`.
    pub detail: String,
}

impl FieldError {
    pub(crate) fn missing(path: String) -> Self {
        let detail = messages::missing_field(&path);
        FieldError { path, detail }
    }

    pub(crate) fn wrong_type(path: String, expected: &str, found: &Value) -> Self {
        let detail = messages::wrong_type(&path, expected, kind(found));
        FieldError { path, detail }
    }

    pub(crate) fn with_detail(path: String, detail: String) -> Self {
        FieldError { path, detail }
    }
}

/// A short name of a JSON value's kind, for error texts.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Joins a parent path and a key (`data` + `content` → `data.content`).
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// An owned JSON object being taken apart, with its path.
pub(crate) struct Obj {
    map: Map<String, Value>,
    path: String,
}

impl Obj {
    /// Requires `v` to be an object; `Null` reads as an empty object when `null_is_empty`.
    pub(crate) fn new(v: Value, path: &str, null_is_empty: bool) -> Result<Obj, FieldError> {
        match v {
            Value::Object(map) => Ok(Obj {
                map,
                path: path.to_string(),
            }),
            Value::Null if null_is_empty => Ok(Obj {
                map: Map::new(),
                path: path.to_string(),
            }),
            other => Err(FieldError::wrong_type(
                path.to_string(),
                "an object",
                &other,
            )),
        }
    }

    pub(crate) fn path_of(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// Removes a key; JSON `null` reads as absent.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        match self.map.shift_remove(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    /// Removes a key as sent (`null` kept, to be refused by the caller).
    pub(crate) fn take_raw(&mut self, key: &str) -> Option<Value> {
        self.map.shift_remove(key)
    }

    pub(crate) fn req_str(&mut self, key: &str) -> Result<String, FieldError> {
        match self.map.shift_remove(key) {
            None => Err(FieldError::missing(self.path_of(key))),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(FieldError::wrong_type(
                self.path_of(key),
                "a string",
                &other,
            )),
        }
    }

    pub(crate) fn opt_str(&mut self, key: &str) -> Result<Option<String>, FieldError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(FieldError::wrong_type(
                self.path_of(key),
                "a string or null",
                &other,
            )),
        }
    }

    pub(crate) fn opt_bool(&mut self, key: &str) -> Result<Option<bool>, FieldError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(FieldError::wrong_type(
                self.path_of(key),
                "a boolean or null",
                &other,
            )),
        }
    }
}
