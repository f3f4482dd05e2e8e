//! Repair of malformed tool-call arguments from small open models.
//!
//! Malformed tool-call JSON from small open models is repaired where it can be: trailing
//! commas, a double-encoded string, chat-template tokens like `<|tool_call|>` around JSON;
//! otherwise the caller gets a clear error for the model. `null`, `""` and `"{}"` all mean no
//! arguments.
//!
//! Only repairs that cannot change a value are made. Truncated JSON (a missing `}` or `"`) is
//! never completed: the missing part could be any value, and a tool with side effects must not
//! run on a guess.

use hark_schema::{ArgumentsFault, ToolArguments};
use serde_json::{Map, Value};

use crate::messages;

/// Why arguments could not be read, in a sentence the model can act on
/// ([`messages::arguments_not_json`], [`messages::arguments_not_object`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RepairError {
    /// The sentence for the model.
    pub message: String,
    /// What is wrong with the text: a number out of range, a bad `\u` escape… or just no object.
    pub fault: ArgumentsFault,
}

/// Reads tool-call arguments as a JSON object, repairing what small models commonly break.
///
/// Steps, each tried only when the text does not parse as it is:
/// 1. blank, `null` or `""` → `{}`;
/// 2. chat-template tokens removed: `<|…|>` tokens (`<|tool_call|>`, `<|python_tag|>`,
///    `<|eot_id|>`, …), `<tool_call>`/`</tool_call>`, `<function_call>` tags,
///    `<start_of_turn>`/`<end_of_turn>`, and a Markdown code fence;
/// 3. the text outside the outermost `{…}` dropped (a model that talks around its JSON);
/// 4. trailing commas before `}` or `]` removed (outside strings);
/// 5. single-quoted JSON (`{'city': 'Paris'}`) read with double quotes, only when the text has
///    no double quote at all;
/// 6. a JSON string holding JSON (double encoding) unwrapped, twice at most.
///
/// Returns a `Value::Object`.
///
/// # Errors
/// [`RepairError`] when the text is not JSON after these steps, or is JSON but not an object.
pub fn repair_arguments(raw: &str) -> Result<Value, RepairError> {
    let mut text = raw.trim().to_owned();
    for _ in 0..3 {
        if hark_schema::no_arguments(&text) {
            return Ok(Value::Object(Map::new()));
        }
        let value = match serde_json::from_str::<Value>(&text) {
            Ok(v) => v,
            Err(first) => match repaired(&text) {
                Some(v) => v,
                None => return Err(not_json(&first, &text)),
            },
        };
        match value {
            Value::Object(_) => return Ok(value),
            Value::Null => return Ok(Value::Object(Map::new())),
            Value::String(inner) => text = inner.trim().to_owned(),
            other => return Err(not_object(&other)),
        }
    }
    Err(RepairError {
        message: messages::arguments_not_object("a string"),
        fault: ArgumentsFault::NotAnObject,
    })
}

/// Reads a tool call's arguments text once, where the call is assembled: the object
/// ([`repair_arguments`]'s repairs applied), or [`ToolArguments::Unreadable`] with the reason for
/// the log. The tool layer refuses an unreadable call in a sentence the model reads.
pub fn read_arguments(raw: &str) -> ToolArguments {
    match repair_arguments(raw) {
        Ok(Value::Object(map)) => {
            let value = Value::Object(map);
            if hark_schema::inexact_whole_number(&value, raw) {
                return ToolArguments::Unreadable {
                    reason: ArgumentsFault::WholeNumberTooLarge.event_text().to_owned(),
                    fault: ArgumentsFault::WholeNumberTooLarge,
                };
            }
            match value {
                Value::Object(map) => ToolArguments::Object(map),
                _ => ToolArguments::empty(),
            }
        }
        Ok(_) => ToolArguments::empty(),
        Err(error) => ToolArguments::Unreadable {
            reason: error.message,
            fault: error.fault,
        },
    }
}

fn not_json(e: &serde_json::Error, text: &str) -> RepairError {
    RepairError {
        message: messages::arguments_not_json(&e.to_string()),
        fault: ArgumentsFault::of(e, text),
    }
}

fn not_object(v: &Value) -> RepairError {
    let found = match v {
        Value::Array(_) => "an array",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::String(_) => "a string",
        Value::Null => "null",
        Value::Object(_) => "an object",
    };
    RepairError {
        message: messages::arguments_not_object(found),
        fault: ArgumentsFault::NotAnObject,
    }
}

/// Applies the repairs in order, parsing after each; the first parse that succeeds wins.
fn repaired(text: &str) -> Option<Value> {
    let mut t = strip_template_tokens(text);
    if let Ok(v) = serde_json::from_str(&t) {
        return Some(v);
    }
    if let (Some(a), Some(b)) = (t.find('{'), t.rfind('}'))
        && a < b
    {
        t = t[a..=b].to_owned();
        if let Ok(v) = serde_json::from_str(&t) {
            return Some(v);
        }
    }
    t = remove_trailing_commas(&t);
    if let Ok(v) = serde_json::from_str(&t) {
        return Some(v);
    }
    if !t.contains('"') && t.contains('\'') {
        let swapped = remove_trailing_commas(&t.replace('\'', "\""));
        if let Ok(v) = serde_json::from_str(&swapped) {
            return Some(v);
        }
    }
    None
}

const TAGS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function_call>",
    "</function_call>",
    "<start_of_turn>",
    "<end_of_turn>",
    "</s>",
];

fn strip_template_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // `<|…|>` tokens: short, no spaces inside.
    while let Some(start) = rest.find("<|") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("|>") {
            Some(end) if end <= 40 && !after[..end].contains(char::is_whitespace) => {
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("<|");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    for tag in TAGS {
        out = out.replace(tag, "");
    }
    let mut t = out.trim();
    if let Some(s) = t.strip_prefix("```") {
        let s = s.strip_prefix("json").unwrap_or(s);
        t = s.strip_suffix("```").unwrap_or(s).trim();
    }
    t.to_owned()
}

/// Removes a `,` followed (after whitespace) by `}` or `]`, outside strings.
fn remove_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(raw: &str) -> Value {
        repair_arguments(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
    }

    #[test]
    fn valid_json_is_unchanged() {
        assert_eq!(
            ok(r#"{"city": "Paris", "n": [1, 2]}"#),
            json!({"city": "Paris", "n": [1, 2]})
        );
    }

    #[test]
    fn t3_empty_null_and_empty_object_mean_no_arguments() {
        for raw in ["", "  ", "null", "{}", "\"\"", "\"null\""] {
            assert_eq!(ok(raw), json!({}), "{raw:?}");
        }
    }

    /// A call's arguments are read once, where the call is assembled: an object (repaired,
    /// `{}` for none), or unreadable with the reason, for the tool layer to refuse. A value that
    /// arrived parsed (Gemini's `args`) is read by the same rule.
    #[test]
    fn a_call_is_read_once_into_an_object_or_unreadable() {
        let call = crate::ToolCall::new("c", "t", r#"{"a": 1,}"#);
        assert_eq!(call.arguments.as_object(), json!({"a": 1}).as_object());
        assert_eq!(
            call.raw_arguments, r#"{"a": 1,}"#,
            "the text the model sent is kept"
        );
        for raw in ["", " null "] {
            assert_eq!(read_arguments(raw), ToolArguments::empty(), "{raw:?}");
        }
        assert_eq!(
            read_arguments("[1]"),
            ToolArguments::Unreadable {
                reason: messages::arguments_not_object("an array"),
                fault: ArgumentsFault::NotAnObject,
            }
        );
        assert!(matches!(
            read_arguments(r#"{"a": "#),
            ToolArguments::Unreadable { .. }
        ));
        // What is wrong with the text travels with it, so the model reads that fault.
        let deep = format!("{}1{}", "{\"a\":[".repeat(200), "]}".repeat(200));
        for (raw, fault) in [
            (r#"{"n": 1e400}"#, ArgumentsFault::NumberOutOfRange),
            (r#"{"s": "\ud800"}"#, ArgumentsFault::BadEscape),
            (r#"{"n": NaN}"#, ArgumentsFault::NotANumber),
            (deep.as_str(), ArgumentsFault::TooDeep),
            (r#"{"a": "#, ArgumentsFault::NotAnObject),
            ("[1]", ArgumentsFault::NotAnObject),
            (
                r#"{"n": 123456789012345678901234567890}"#,
                ArgumentsFault::WholeNumberTooLarge,
            ),
            // Repaired first (a trailing comma), then found.
            (
                r#"{"n": -9223372036854775809,}"#,
                ArgumentsFault::WholeNumberTooLarge,
            ),
        ] {
            match read_arguments(raw) {
                ToolArguments::Unreadable { fault: got, .. } => assert_eq!(got, fault, "{raw}"),
                other => panic!("{raw}: read as {other:?}"),
            }
        }
        let from_value = crate::ToolCall::from_value("c", "t", Value::Null);
        assert_eq!(from_value.arguments, ToolArguments::empty());
        assert_eq!(from_value.raw_arguments, "null");
        let from_value = crate::ToolCall::from_value("c", "t", json!([1]));
        assert!(matches!(
            from_value.arguments,
            ToolArguments::Unreadable { .. }
        ));
    }

    #[test]
    fn trailing_commas_are_removed_outside_strings() {
        assert_eq!(
            ok(r#"{"a": [1, 2,], "b": "x,}",}"#),
            json!({"a": [1, 2], "b": "x,}"})
        );
    }

    #[test]
    fn double_encoded_json_is_unwrapped() {
        assert_eq!(ok(r#""{\"city\": \"Paris\"}""#), json!({"city": "Paris"}));
        let twice =
            serde_json::to_string(&serde_json::to_string(&json!({"n": 1})).unwrap()).unwrap();
        assert_eq!(ok(&twice), json!({"n": 1}));
    }

    #[test]
    fn chat_template_tokens_around_json_are_stripped() {
        assert_eq!(
            ok(r#"<|tool_call|>{"city": "Paris"}<|/tool_call|>"#),
            json!({"city": "Paris"})
        );
        assert_eq!(
            ok(r#"<tool_call>{"city": "Paris"}</tool_call>"#),
            json!({"city": "Paris"})
        );
        assert_eq!(
            ok(r#"{"city": "Paris"}<|eot_id|>"#),
            json!({"city": "Paris"})
        );
        assert_eq!(ok(r#"<|python_tag|>{"a": 1,}<|eom_id|>"#), json!({"a": 1}));
        assert_eq!(ok("```json\n{\"a\": 1}\n```"), json!({"a": 1}));
        assert_eq!(
            ok(r#"Sure! Here you go: {"a": 1} hope that helps"#),
            json!({"a": 1})
        );
    }

    #[test]
    fn a_template_token_inside_a_string_value_is_kept() {
        assert_eq!(ok(r#"{"note": "<|x|>"}"#), json!({"note": "<|x|>"}));
    }

    #[test]
    fn single_quoted_json_is_read_when_no_double_quote_exists() {
        assert_eq!(ok("{'city': 'Paris'}"), json!({"city": "Paris"}));
    }

    #[test]
    fn truncated_json_is_never_completed() {
        let e = repair_arguments(r#"{"amount": 10"#).unwrap_err();
        assert!(
            e.message.starts_with("The arguments are not valid JSON ("),
            "{}",
            e.message
        );
        assert!(
            e.message
                .ends_with("). Call the tool again with its arguments as one JSON object."),
            "{}",
            e.message
        );
    }

    #[test]
    fn non_objects_are_refused_naming_the_type() {
        assert_eq!(
            repair_arguments("[1, 2]").unwrap_err().message,
            "The arguments must be a JSON object, not an array. Call the tool again with its arguments as one JSON object."
        );
        assert_eq!(
            repair_arguments("42").unwrap_err().message,
            "The arguments must be a JSON object, not a number. Call the tool again with its arguments as one JSON object."
        );
        assert_eq!(
            repair_arguments(r#""Paris""#).unwrap_err().message,
            "The arguments are not valid JSON (expected value at line 1 column 1). Call the tool again with its arguments as one JSON object."
        );
    }
}
