//! The options of a tool (`announce=`, `interruption=`, `locked=`, `replies=`…) read from Python
//! keyword arguments and applied to a `hark_tools::ToolSpec`.

use hark_tools::{Interruption, Locked, ToolError, ToolReply, ToolSpec, Transcript};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;

use super::errors::{build_error, tool_error};
use super::json::{bridge, to_py, to_value};
use crate::gate;

/// Every option a tool takes.
pub const OPTIONS: [&str; 11] = [
    "announce",
    "announce_in",
    "announce_wait",
    "interruption",
    "show_result",
    "result_instructions",
    "hidden",
    "effect",
    "locked",
    "replies",
    "precheck",
];

/// One text or a list of texts.
fn lines(value: &Bound<'_, PyAny>, option: &str) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(vec![text.to_string()]);
    }
    value.extract::<Vec<String>>().map_err(|_| {
        PyTypeError::new_err(format!("{option} takes a line or a list of lines (str)"))
    })
}

/// Applies the options in `options` to `spec`, in the order a tool needs them (locked values
/// before announce lines). An unknown option raises `TypeError` naming the options there are.
pub fn apply(mut spec: ToolSpec, options: Option<&Bound<'_, PyDict>>) -> PyResult<ToolSpec> {
    let Some(options) = options else {
        return Ok(spec);
    };
    for key in options.keys() {
        let key: String = key.extract()?;
        if !OPTIONS.contains(&key.as_str()) {
            return Err(PyTypeError::new_err(format!(
                "{}: {key} is not an option of a tool. The options are: {}.",
                spec.name(),
                OPTIONS.join(", ")
            )));
        }
    }
    bridge(options.py())?
        .getattr("check_options")?
        .call1((options, spec.name()))?;
    let get = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(options.get_item(name)?.filter(|v| !v.is_none()))
    };
    if let Some(locked) = get("locked")? {
        let locked = locked.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(
                "locked takes a dict of parameter → \"{{template}}\" or Transcript(...)",
            )
        })?;
        let mut values: Vec<(String, Locked)> = Vec::new();
        for (parameter, value) in locked.iter() {
            let parameter: String = parameter.extract()?;
            let value = if let Ok(text) = value.cast::<PyString>() {
                Locked::Template(text.to_string())
            } else if let Ok(max) = value.getattr("max_messages").and_then(|m| m.extract()) {
                Locked::Transcript(Transcript { max_messages: max })
            } else {
                return Err(PyTypeError::new_err(format!(
                    "locked {parameter} must be a \"{{{{template}}}}\" text or Transcript(max_messages=...)"
                )));
            };
            values.push((parameter, value));
        }
        spec = spec.locked(values).map_err(build_error)?;
    }
    if let Some(announce) = get("announce")? {
        spec = spec
            .announce(lines(&announce, "announce")?)
            .map_err(build_error)?;
    }
    if let Some(announce_in) = get("announce_in")? {
        let announce_in = announce_in
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("announce_in takes a dict of language → lines"))?;
        for (language, value) in announce_in.iter() {
            let language: String = language.extract()?;
            spec = spec
                .announce_in(language, lines(&value, "announce_in")?)
                .map_err(build_error)?;
        }
    }
    if let Some(wait) = get("announce_wait")? {
        spec = spec.announce_wait(wait.extract()?);
    }
    if let Some(interruption) = get("interruption")? {
        let rule = match interruption.extract::<String>()?.as_str() {
            "provider_default" => Interruption::ProviderDefault,
            "continue" => Interruption::Continue,
            "cancel" => Interruption::Cancel,
            other => {
                return Err(PyValueError::new_err(format!(
                    "interruption is \"provider_default\", \"continue\" or \"cancel\", not {other:?}"
                )));
            }
        };
        spec = spec.interruption(rule);
    }
    if let Some(show) = get("show_result")? {
        spec = spec.show_result(show.extract()?);
    }
    if let Some(instructions) = get("result_instructions")? {
        spec = spec.result_instructions(instructions.extract::<String>()?);
    }
    if let Some(hidden) = get("hidden")? {
        let fields = if let Ok(one) = hidden.cast::<PyString>() {
            vec![one.to_string()]
        } else {
            hidden.extract::<Vec<String>>()?
        };
        spec = spec.hidden(fields).map_err(build_error)?;
    }
    if let Some(effect) = get("effect")? {
        match effect.extract::<String>()?.as_str() {
            "ends_conversation" => spec = spec.ends_conversation(),
            other => {
                return Err(PyValueError::new_err(format!(
                    "effect is \"ends_conversation\" or None, not {other:?}"
                )));
            }
        }
    }
    if let Some(replies) = get("replies")? {
        let rows = reply_rows(&replies, spec.name())?;
        spec = spec.replies(rows);
    }
    if let Some(precheck) = get("precheck")? {
        let function = precheck.unbind();
        let tool = format!("the precheck of {}", spec.name());
        spec = spec.precheck_json(move |arguments| {
            gate::attach(|py| -> Result<Option<Value>, ToolError> {
                let given = to_py(py, &Value::Object(arguments.clone()))
                    .map_err(|error| tool_error(&tool, error))?;
                let outcome = function
                    .bind(py)
                    .call1((given,))
                    .map_err(|error| tool_error(&tool, error))?;
                if outcome.is_none() {
                    return Ok(None);
                }
                to_value(&outcome).map(Some).map_err(|_| {
                    ToolError::internal("the precheck returned a value that is not JSON")
                })
            })
            .unwrap_or_else(|| Err(ToolError::internal(gate::CLOSED_TEXT)))
        });
    }
    Ok(spec)
}

/// Reply rows from a list of `ToolReply` (or dicts of `tool`, `when`, `state`, `say`, `say_in`).
/// `call` names the call for a wrong-type text (`ToolRegistry`, or the tool's name).
pub fn reply_rows(replies: &Bound<'_, PyAny>, call: &str) -> PyResult<Vec<ToolReply>> {
    let py = replies.py();
    let to_dict = bridge(py)?.getattr("reply_dict")?;
    let mut rows = Vec::new();
    let given = crate::misuse::items(
        call,
        "replies",
        replies,
        "a list of ToolReply",
        "replies=[ToolReply(tool=\"book_table\", say=[\"You are booked.\"])]",
    )?;
    for reply in given {
        let row = to_value(&to_dict.call1((reply,))?)?;
        let mut reply = ToolReply::say(strings(&row["say"]));
        if let Some(tool) = row["tool"].as_str() {
            reply = reply.tool(tool);
        }
        for (field, values) in conditions(&row["when"]) {
            reply = reply.when(field, values);
        }
        for (name, values) in conditions(&row["state"]) {
            reply = reply.state(name, values);
        }
        if let Some(map) = row["say_in"].as_object() {
            for (language, lines) in map {
                reply = reply.say_in(language.clone(), strings(lines));
            }
        }
        rows.push(reply);
    }
    Ok(rows)
}

/// A `when` or `state` mapping: each key with its values (one value alone is a list of one).
fn conditions(value: &Value) -> Vec<(String, Vec<Value>)> {
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    map.iter()
        .map(|(key, values)| {
            let values = match values {
                Value::Array(items) => items.clone(),
                one => vec![one.clone()],
            };
            (key.clone(), values)
        })
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(one) => vec![one.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}
