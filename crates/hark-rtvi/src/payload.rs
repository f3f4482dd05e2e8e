//! A free-form JSON payload a client sent (`ui-event.payload`), forwarded as written.
//!
//! serde_json's `Value` (without the workspace-wide `arbitrary_precision`, which would change
//! every crate's numbers) holds integers only within 64 bits: `12345678901234567890123` becomes
//! the float `1.2345678901234568e+22`. Pipecat keeps Python's exact integer. So a [`Payload`]
//! keeps, beside its value, the text as sent whenever that text has an integer too wide for the
//! value (19 digits or more); [`Payload::exact_text`] is what to render for the model.

use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A client's JSON payload: its value, and its text when the value cannot hold it exactly.
/// Derefs to the [`Value`], so `payload.get("ref")` reads it like one.
#[derive(Debug, Clone, Default)]
pub struct Payload {
    value: Value,
    exact: Option<Box<RawValue>>,
}

impl Payload {
    /// Reads a payload from its JSON text (errors: serde_json's, e.g. nesting past 127 levels).
    pub fn from_json_text(text: &str) -> Result<Payload, serde_json::Error> {
        let value = serde_json::from_str(text)?;
        let exact = if has_wide_integer(text) {
            Some(RawValue::from_string(text.trim().to_owned())?)
        } else {
            None
        };
        Ok(Payload { value, exact })
    }

    /// The parsed value (an integer beyond 64 bits in it is a float).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The parsed value, owned.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The JSON text as sent, when [`Self::value`] does not hold it exactly (an integer of 19
    /// digits or more); `None` when the value is exact.
    pub fn exact_text(&self) -> Option<&str> {
        self.exact.as_deref().map(RawValue::get)
    }
}

/// Equal when the values are equal and so is the text each keeps (if any).
impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.value == other.value && self.exact_text() == other.exact_text()
    }
}

impl Deref for Payload {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.value
    }
}

impl From<Value> for Payload {
    fn from(value: Value) -> Payload {
        Payload { value, exact: None }
    }
}

/// Written as sent when the text is kept, else as the value.
impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.exact {
            Some(raw) => raw.serialize(s),
            None => self.value.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Payload, D::Error> {
        Value::deserialize(d).map(Payload::from)
    }
}

/// Whether `text` (valid JSON) has, outside strings, an integer literal (no fraction, no
/// exponent) of 19 digits or more: one `i64`/`u64` may not hold.
pub(crate) fn has_wide_integer(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let integral = !matches!(bytes.get(i), Some(b'.' | b'e' | b'E'));
                if integral && i - start >= 19 {
                    return true;
                }
                // Skip the rest of the number (fraction, exponent).
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_integers_are_found_outside_strings_only() {
        assert!(has_wide_integer("12345678901234567890123"));
        assert!(has_wide_integer(r#"{"n":[1,-9223372036854775809]}"#));
        assert!(!has_wide_integer(r#"{"n":"12345678901234567890123"}"#));
        assert!(!has_wide_integer(r#"{"a\"12345678901234567890":1}"#));
        assert!(!has_wide_integer("1234567890123456789.5"));
        assert!(!has_wide_integer("1.2345678901234567890123e5"));
        assert!(!has_wide_integer("123456789012345678"));
    }

    #[test]
    fn a_wide_integer_keeps_its_text() {
        let p = Payload::from_json_text(r#" {"n": 12345678901234567890123} "#).unwrap();
        assert_eq!(p.exact_text(), Some(r#"{"n": 12345678901234567890123}"#));
        assert!(p.get("n").is_some_and(Value::is_f64));
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"n": 12345678901234567890123}"#
        );
        let small = Payload::from_json_text(r#"{"n": 5}"#).unwrap();
        assert_eq!(small.exact_text(), None);
        assert_eq!(serde_json::to_string(&small).unwrap(), r#"{"n":5}"#);
    }
}
