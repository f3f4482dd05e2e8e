//! A tool as a provider receives it, and a tool call's arguments as the model meant them: the two
//! plain types the provider clients (`hark-llm`) and the tool layer (`hark-tools`) share, so
//! neither crate depends on the other.

use serde_json::{Map, Value};

/// A tool the model may call. `parameters` is a JSON Schema object; the provider it is sent to
/// brings it into its dialect ([`conform`](crate::conform)), so a schema written once reaches
/// every provider in a form it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The tool's name (`[a-zA-Z0-9_-]{1,64}` for every provider).
    pub name: String,
    /// What the tool does, as the model reads it.
    pub description: String,
    /// The arguments' JSON Schema (root `type: object`). Sent as it is when it keeps the
    /// provider's rules, else in the provider's dialect ([`conform`](crate::conform)).
    pub parameters: Value,
    /// Sends `strict: true` (OpenAI structured outputs, Anthropic strict tool use); ignored by
    /// Gemini. The schema must then be in the strict dialect.
    pub strict: bool,
}

impl ToolDefinition {
    /// A non-strict tool definition.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            strict: false,
        }
    }
}

/// The arguments of one tool call, read once where they arrive (the provider's stream): a JSON
/// object, or a text that is none even after repair, which the tool layer refuses in a sentence
/// the model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolArguments {
    /// The arguments as a JSON object (`{}` for a call without arguments, see
    /// [`no_arguments`]).
    Object(Map<String, Value>),
    /// Not a JSON object, even after repair: the tool does not run.
    Unreadable {
        /// Why, in a sentence for the log (never a value of the arguments).
        reason: String,
        /// What is wrong with the text, for the sentence the model reads.
        fault: ArgumentsFault,
    },
}

/// Why the arguments the model sent are no object of named arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentsFault {
    /// Not JSON, or JSON that is not an object.
    NotAnObject,
    /// An object nested deeper than the JSON reader goes (128 levels).
    TooDeep,
    /// A number too large for a 64-bit float (`1e400`).
    NumberOutOfRange,
    /// `NaN` or `Infinity`, which JSON has no number for.
    NotANumber,
    /// An invalid `\u` escape (a lone UTF-16 surrogate like `\ud800`).
    BadEscape,
    /// A whole number written beyond the 64-bit range (`123456789012345678901234567890`): JSON
    /// here holds it only as a rounded float, so the value the tool would get is not the one
    /// written ([`inexact_whole_number`]).
    WholeNumberTooLarge,
}

impl ArgumentsFault {
    /// The fault `error` (from reading `text` as JSON) names.
    pub fn of(error: &serde_json::Error, text: &str) -> Self {
        let words = error.to_string();
        if words.contains("recursion limit exceeded") {
            Self::TooDeep
        } else if words.contains("number out of range") {
            Self::NumberOutOfRange
        } else if words.contains("surrogate")
            || words.contains("invalid unicode code point")
            || words.contains("invalid escape")
            || words.contains("end of hex escape")
        {
            Self::BadEscape
        } else if words.contains("expected value") && bare_nan_or_infinity(text) {
            Self::NotANumber
        } else {
            Self::NotAnObject
        }
    }

    /// What sinks and logs get.
    pub fn event_text(self) -> &'static str {
        match self {
            Self::NotAnObject => "arguments are not a JSON object",
            Self::TooDeep => "arguments nested too deep",
            Self::NumberOutOfRange => "arguments hold a number out of range",
            Self::NotANumber => "arguments hold NaN or Infinity",
            Self::BadEscape => "arguments hold an invalid \\u escape",
            Self::WholeNumberTooLarge => "arguments hold a whole number out of range",
        }
    }
}

/// The smallest magnitude (2^63) at which a float read from JSON text may stand for an integer
/// literal beyond `i64`/`u64`: serde_json reads such a literal as the nearest `f64`.
const BEYOND_64_BITS: f64 = 9.223_372_036_854_776e18;

/// True when `text` writes a whole number outside `i64::MIN..=u64::MAX` (no fraction, no
/// exponent) and `value`, read from it, holds the rounded float serde_json made of it: the
/// number the model or a tool wrote is not the one that would be used. A float written as one
/// (`1e300`, `2.5e20`) is not such a number. Costs a walk of `value` for a float of 2^63 or
/// more; only then is `text` scanned.
pub fn inexact_whole_number(value: &Value, text: &str) -> bool {
    holds_big_float(value) && writes_big_integer(text)
}

fn holds_big_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|x| !n.is_i64() && !n.is_u64() && x.abs() >= BEYOND_64_BITS),
        Value::Array(items) => items.iter().any(holds_big_float),
        Value::Object(map) => map.values().any(holds_big_float),
        _ => false,
    }
}

/// Whether `text`, outside its strings, has an integer literal outside `i64::MIN..=u64::MAX`.
fn writes_big_integer(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Skip the string, its escapes included.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let literal = &text[start..i];
                if !literal.contains(['.', 'e', 'E'])
                    && literal.parse::<i64>().is_err()
                    && literal.parse::<u64>().is_err()
                    && literal.len() > 1
                    && literal[1..].bytes().all(|b| b.is_ascii_digit())
                {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// True when `text` holds `NaN` or `Infinity` where a value starts (after `:`, `[` or `,`).
fn bare_nan_or_infinity(text: &str) -> bool {
    ["NaN", "Infinity"].iter().any(|word| {
        text.match_indices(word).any(|(at, _)| {
            let before = text[..at].trim_end();
            let before = before.strip_suffix('-').map_or(before, str::trim_end);
            matches!(before.chars().last(), Some(':' | '[' | ','))
        })
    })
}

impl ToolArguments {
    /// No arguments: `{}`.
    pub fn empty() -> Self {
        Self::Object(Map::new())
    }

    /// The object, when the arguments could be read.
    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Self::Object(map) => Some(map),
            Self::Unreadable { .. } => None,
        }
    }
}

/// The one rule for arguments that say nothing: a text that is blank or the JSON `null` (spaces
/// around allowed) means `{}`. Every provider's stream, the history a provider reads back and the
/// tool layer's own entry ask this; a parsed `null` value means `{}` by the same rule.
pub fn no_arguments(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text == "null"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_number_written_beyond_64_bits_is_found_and_nothing_else() {
        let found = |text: &str| {
            let value: Value = serde_json::from_str(text).unwrap();
            inexact_whole_number(&value, text)
        };
        for text in [
            r#"{"n": 123456789012345678901234567890}"#,
            r#"{"n": -9223372036854775809}"#,
            r#"{"a": [1, {"b": 18446744073709551616}]}"#,
            r#"{"s": "12345678901234567890123", "n": 99999999999999999999}"#,
        ] {
            assert!(found(text), "{text}");
        }
        for text in [
            r#"{"n": 18446744073709551615, "m": -9223372036854775808}"#,
            r#"{"n": 1e300, "m": 9223372036854775808.0, "k": -2.5E20}"#,
            // Digits in a string (an escaped quote inside it) next to a float written as one.
            r#"{"s": "say \"123456789012345678901234567890\"", "n": 1e30}"#,
            r#"{"n": 12}"#,
        ] {
            assert!(!found(text), "{text}");
        }
    }

    #[test]
    fn blank_and_null_mean_no_arguments_and_nothing_else_does() {
        for text in ["", "  ", "null", " null\n"] {
            assert!(no_arguments(text), "{text:?}");
        }
        for text in ["{}", "\"\"", "nul", "[]", "0"] {
            assert!(!no_arguments(text), "{text:?}");
        }
    }
}
