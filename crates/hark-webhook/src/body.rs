//! What a webhook sends (body shapes, GET query values) and what the model reads of an error
//! answer (the excerpt).
//!
//! # Body shapes (a public contract)
//!
//! [`BodyShape::Plain`] (the default) sends the arguments object as it is:
//! `{"order_id": "A-12"}`.
//!
//! [`BodyShape::Envelope`] sends the arguments with the call's metadata:
//!
//! ```json
//! {
//!   "tool": "notify_crm",
//!   "arguments": {"order_id": "A-12"},
//!   "call": {
//!     "session_id": "s-42",
//!     "remote_number": "+14155550123",
//!     "carrier_call_id": null,
//!     "call_type": "inbound"
//!   },
//!   "sent_at": "2026-10-15T09:30:00.000Z"
//! }
//! ```
//!
//! - `tool`: the tool's name as the model sees it.
//! - `arguments`: the checked arguments, locked values filled (the same object `Plain` sends).
//! - `call.session_id`: Hark's id of the call (string, always present).
//! - `call.remote_number`: the caller's number in E.164, or `null`.
//! - `call.carrier_call_id`: the carrier's id of the call, or `null`.
//! - `call.call_type`: `"inbound"`, `"outbound"`, or `null` when the call has no direction.
//! - `sent_at`: when Hark sent the request, RFC 3339 in UTC with milliseconds.
//!
//! Receivers should ignore fields they do not know: new ones may be added, none will be renamed.
//!
//! # GET
//!
//! A GET sends no body: each argument becomes a query value. A string is sent as it is, a number
//! or a boolean as its JSON text, `null` is left out, an array repeats the name once per item,
//! and an object is sent as its JSON text.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use hark_tools::{CallInfo, CallType};

/// The longest excerpt of an error answer the model reads, in characters.
pub const EXCERPT_CHARS: usize = 300;

/// Which body a POST, PUT, PATCH or DELETE webhook sends (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BodyShape {
    /// The arguments object.
    #[default]
    Plain,
    /// `{"tool", "arguments", "call", "sent_at"}`.
    Envelope,
}

/// The envelope body of a call of `tool` (see the module docs for the shape).
pub fn envelope(
    tool: &str,
    arguments: &Map<String, Value>,
    call: &CallInfo,
    sent_at: Timestamp,
) -> Value {
    let call_type = match call.call_type {
        CallType::Inbound => json!("inbound"),
        CallType::Outbound => json!("outbound"),
        CallType::None => Value::Null,
    };
    json!({
        "tool": tool,
        "arguments": arguments,
        "call": {
            "session_id": call.session_id,
            "remote_number": call.remote_number,
            "carrier_call_id": call.carrier_call_id,
            "call_type": call_type,
        },
        "sent_at": format!("{:.3}", sent_at.round(jiff::Unit::Millisecond).unwrap_or(sent_at)),
    })
}

/// The query pairs a GET sends for `arguments` (see the module docs for each kind of value).
pub fn query_pairs(arguments: &Map<String, Value>) -> Vec<(String, String)> {
    let mut pairs = Vec::with_capacity(arguments.len());
    for (name, value) in arguments {
        match value {
            Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    if let Some(text) = scalar_text(item) {
                        pairs.push((name.clone(), text));
                    }
                }
            }
            other => {
                if let Some(text) = scalar_text(other) {
                    pairs.push((name.clone(), text));
                }
            }
        }
    }
    pairs
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The short excerpt of an error answer the model reads: the `error`, `message` and `code` of a
/// JSON object body (an `error` object's own `message` and `code` too), as
/// `"error: …; message: …; code: …"`, or the first 300 characters of a text body. `None` for an
/// empty body. Line breaks become spaces; the result is at most [`EXCERPT_CHARS`] characters.
pub fn excerpt(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(trimmed) {
        let mut parts = Vec::new();
        collect(&map, &mut parts);
        if let Some(Value::Object(inner)) = map.get("error") {
            collect(inner, &mut parts);
        }
        if !parts.is_empty() {
            return Some(clip(&parts.join("; ")));
        }
    }
    Some(clip(trimmed))
}

fn collect(map: &Map<String, Value>, parts: &mut Vec<String>) {
    for key in ["error", "message", "code"] {
        match map.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                parts.push(format!("{key}: {}", s.trim()))
            }
            Some(v @ (Value::Number(_) | Value::Bool(_))) => parts.push(format!("{key}: {v}")),
            _ => {}
        }
    }
}

fn clip(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(EXCERPT_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_of_a_json_error() {
        assert_eq!(
            excerpt(br#"{"error": "Failed to add order"}"#).as_deref(),
            Some("error: Failed to add order")
        );
        assert_eq!(
            excerpt(br#"{"message": "bad day", "code": 42, "detail": "secret stack"}"#).as_deref(),
            Some("message: bad day; code: 42")
        );
        assert_eq!(
            excerpt(br#"{"error": {"message": "quota", "code": "RATE"}}"#).as_deref(),
            Some("message: quota; code: RATE")
        );
    }

    #[test]
    fn excerpt_of_text_is_the_first_300_characters() {
        let long = "é".repeat(400);
        assert_eq!(excerpt(long.as_bytes()).unwrap().chars().count(), 300);
        assert_eq!(
            excerpt(b"Bad gateway\n<html>").as_deref(),
            Some("Bad gateway <html>")
        );
        assert_eq!(excerpt(b"  \n"), None);
        // A JSON object without the three fields falls back to its text.
        assert_eq!(
            excerpt(br#"{"detail":"x"}"#).as_deref(),
            Some(r#"{"detail":"x"}"#)
        );
    }

    #[test]
    fn query_values_by_kind() {
        let args =
            json!({"q": "a b", "n": 3, "ok": true, "none": null, "ids": [1, "x"], "o": {"k": 1}});
        let pairs = query_pairs(args.as_object().unwrap());
        let expected: Vec<(String, String)> = [
            ("q", "a b"),
            ("n", "3"),
            ("ok", "true"),
            ("ids", "1"),
            ("ids", "x"),
            ("o", r#"{"k":1}"#),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(pairs, expected);
    }

    #[test]
    fn envelope_shape_is_pinned() {
        let call = CallInfo {
            session_id: "s-42".into(),
            remote_number: Some("+14155550123".into()),
            carrier_call_id: None,
            participant: None,
            call_type: CallType::None,
            end_reason: None,
        };
        let args = json!({"order_id": "A-12"});
        let sent_at: Timestamp = "2026-10-15T09:30:00.1234Z".parse().unwrap();
        let body = envelope("notify_crm", args.as_object().unwrap(), &call, sent_at);
        assert_eq!(
            body.to_string(),
            r#"{"tool":"notify_crm","arguments":{"order_id":"A-12"},"call":{"session_id":"s-42","remote_number":"+14155550123","carrier_call_id":null,"call_type":null},"sent_at":"2026-10-15T09:30:00.123Z"}"#
        );
    }
}
