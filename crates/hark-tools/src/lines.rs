//! How templates read a call: the resolver behind announce lines, reply lines and locked values.
//!
//! `{{value}}` reads a State value or an argument of this call, `{{call.name}}` what the call
//! carries, `{{result.…}}` the result; values are said by their JSON Schema format. Guide:
//! `docs/guide/announce-lines.md`, `docs/guide/replies-and-assign.md`.

use hark_speak::{Placeholder, Resolve, SayAs, Scope, SpokenValue};
use serde_json::Value;

use crate::call::{CallInfo, CallType};
use crate::context::Arguments;
use crate::walk;

/// The names `{{call.name}}` may read.
pub(crate) const CALL_FIELDS: [&str; 6] = crate::call::CALL_VALUES;

/// True when `path` (after `call.`) names something a call carries.
pub(crate) fn is_call_field(path: &[String]) -> bool {
    path.len() == 1 && CALL_FIELDS.contains(&path[0].as_str())
}

/// The value of `{{call.<name>}}`, or `None` when this call does not carry it (an empty text
/// and `call_type = none` count as not carried).
pub(crate) fn call_value(call: &CallInfo, name: &str) -> Option<(Value, SayAs)> {
    let text = |s: &str| (!s.trim().is_empty()).then(|| Value::String(s.to_string()));
    match name {
        "session_id" => text(&call.session_id).map(|v| (v, SayAs::Plain)),
        "remote_number" => call
            .remote_number
            .as_deref()
            .and_then(text)
            .map(|v| (v, SayAs::Phone)),
        "carrier_call_id" => call
            .carrier_call_id
            .as_deref()
            .and_then(text)
            .map(|v| (v, SayAs::Plain)),
        "participant" => call
            .participant
            .as_deref()
            .and_then(text)
            .map(|v| (v, SayAs::Plain)),
        "call_type" => match call.call_type {
            CallType::Inbound => Some((Value::String("inbound".into()), SayAs::Words)),
            CallType::Outbound => Some((Value::String("outbound".into()), SayAs::Words)),
            CallType::None => None,
        },
        "end_reason" => call
            .end_reason
            .as_deref()
            .and_then(text)
            .map(|v| (v, SayAs::Words)),
        _ => None,
    }
}

/// Everything a line of one tool call may read. Schemas give how each value is said.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    /// The State values (a JSON object).
    pub state: &'a Value,
    /// The State type's schema, when the registry has one.
    pub state_schema: Option<&'a Value>,
    /// What the call carries.
    pub call: &'a CallInfo,
    /// The arguments of this call and the tool's parameters schema (announce lines).
    pub arguments: Option<(&'a Arguments, &'a Value)>,
    /// The result and the output's schema (reply lines).
    pub result: Option<(&'a Value, &'a Value)>,
}

fn say_as(schema: Option<&Value>, path: &[String]) -> SayAs {
    schema
        .and_then(|s| walk::field_at(s, s, path))
        .map_or(SayAs::Plain, SayAs::from_schema)
}

impl Resolve for View<'_> {
    fn resolve(&self, placeholder: &Placeholder) -> Option<SpokenValue<'_>> {
        let path = &placeholder.path;
        match placeholder.scope {
            Scope::Call => {
                let (value, say_as) = call_value(self.call, path.first()?)?;
                Some(SpokenValue::owned(value, say_as))
            }
            Scope::Result => {
                let (result, schema) = self.result?;
                let value = walk::value_at(result, path)?;
                Some(SpokenValue::new(value, say_as(Some(schema), path)))
            }
            Scope::Value => {
                if let Some((arguments, schema)) = self.arguments
                    && let Some(first) = arguments.get(&path[0])
                    && !first.is_null()
                {
                    let value = walk::value_at(first, &path[1..])?;
                    return Some(SpokenValue::new(value, say_as(Some(schema), path)));
                }
                let value = walk::value_at(self.state, path)?;
                Some(SpokenValue::new(value, say_as(self.state_schema, path)))
            }
        }
    }
}
