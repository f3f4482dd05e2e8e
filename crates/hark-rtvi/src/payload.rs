//! A free-form JSON payload a client sent (`ui-event.payload`), forwarded as written.
//!
//! serde_json's `Value` (without the workspace-wide `arbitrary_precision`, which would change
//! every crate's numbers) holds integers only within 64 bits: `12345678901234567890123` becomes
//! the float `1.2345678901234568e+22`. Pipecat keeps Python's exact integer. So a [`Payload`]
//! keeps, beside its value, its text whenever the value would change a number: an integer too
//! wide for it (19 digits or more), or `-0` (a float `-0.0` in a `Value`; Python's `json` reads
//! the integer 0). That text is [`canonical_text`]: compact, integers as written (`-0` as `0`),
//! a repeated key in its first place with its last value, as pipecat's `json.loads` +
//! `model_dump_json` give it. [`Payload::exact_text`] is what to render for the model, and what
//! Hark sends back (a `server-response` echo).

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::de::{MapAccess, Visitor};
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
        let exact = if needs_text(text) {
            Some(RawValue::from_string(canonical_text(text)?)?)
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

    /// The JSON text (compact, numbers as sent: [`canonical_text`]), when [`Self::value`] does
    /// not hold it exactly (an integer of 19 digits or more, or `-0`); `None` when the value is
    /// exact.
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

/// Whether a `Value` read from `text` (valid JSON) would change one of its numbers: an integer
/// literal of 19 digits or more ([`has_wide_integer`]) or a negative zero integer (`-0`).
pub(crate) fn needs_text(text: &str) -> bool {
    has_wide_integer(text) || text.contains("-0") && has_negative_zero(text)
}

/// Whether `text` (valid JSON) has, outside strings, the integer literal `-0`.
fn has_negative_zero(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'-' if bytes.get(i + 1) == Some(&b'0')
                && !matches!(bytes.get(i + 2), Some(b'.' | b'e' | b'E')) =>
            {
                return true;
            }
            _ => i += 1,
        }
    }
    false
}

/// The index just past the string starting at `bytes[start]` (a `"`).
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// `text` (JSON) written back as pipecat would send it after reading it with Python's `json`
/// (`model_dump_json`): compact; integers exactly as written, `-0` as `0`; other numbers as a
/// `Value` writes them; a key given twice in its first place with its last value. Errors:
/// serde_json's, for text that is not JSON.
pub fn canonical_text(text: &str) -> Result<String, serde_json::Error> {
    let mut out = String::with_capacity(text.len());
    write_canonical(text, &mut out, 0)?;
    Ok(out)
}

/// serde_json's own nesting limit, so a deep payload is an error, not a stack overflow.
const MAX_DEPTH: usize = 128;

fn write_canonical(text: &str, out: &mut String, depth: usize) -> Result<(), serde_json::Error> {
    use serde::de::Error as _;
    if depth > MAX_DEPTH {
        return Err(serde_json::Error::custom("recursion limit exceeded"));
    }
    let t = text.trim_matches([' ', '\t', '\n', '\r']);
    match t.as_bytes().first() {
        Some(b'{') => {
            let Members(members) = serde_json::from_str(t)?;
            out.push('{');
            for (n, (key, value)) in members.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key.as_ref())?);
                out.push(':');
                write_canonical(value.get(), out, depth + 1)?;
            }
            out.push('}');
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(t)?;
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(item.get(), out, depth + 1)?;
            }
            out.push(']');
        }
        Some(b'"') => {
            let s: Cow<'_, str> = serde_json::from_str(t)?;
            out.push_str(&serde_json::to_string(s.as_ref())?);
        }
        Some(b'-' | b'0'..=b'9') if !t.contains(['.', 'e', 'E']) => {
            serde_json::from_str::<IgnoredNumber>(t)?;
            out.push_str(if t == "-0" { "0" } else { t });
        }
        _ => out.push_str(&serde_json::from_str::<Value>(t)?.to_string()),
    }
    Ok(())
}

/// A valid JSON number (any width), read and dropped.
struct IgnoredNumber;

impl<'de> Deserialize<'de> for IgnoredNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<IgnoredNumber, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = IgnoredNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E>(self, _: i64) -> Result<IgnoredNumber, E> {
                Ok(IgnoredNumber)
            }
            fn visit_u64<E>(self, _: u64) -> Result<IgnoredNumber, E> {
                Ok(IgnoredNumber)
            }
            fn visit_f64<E>(self, _: f64) -> Result<IgnoredNumber, E> {
                Ok(IgnoredNumber)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object's members in order, a repeated key kept in its first place with its last value
/// (as a Python `dict` built by `json.loads`).
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Members<'a>, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut members: Vec<(Cow<'a, str>, &'a RawValue)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<Cow<'a, str>, &'a RawValue>()? {
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => members.push((key, value)),
                    }
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Whether `text` (valid JSON) has, outside strings, an integer literal (no fraction, no
/// exponent) of 19 digits or more: one `i64`/`u64` may not hold.
pub(crate) fn has_wide_integer(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
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
        assert_eq!(p.exact_text(), Some(r#"{"n":12345678901234567890123}"#));
        assert!(p.get("n").is_some_and(Value::is_f64));
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"n":12345678901234567890123}"#
        );
        let small = Payload::from_json_text(r#"{"n": 5}"#).unwrap();
        assert_eq!(small.exact_text(), None);
        assert_eq!(serde_json::to_string(&small).unwrap(), r#"{"n":5}"#);
    }

    /// What pipecat 1.14 sends back after `json.loads` (`model_dump_json`).
    #[test]
    fn canonical_text_is_what_pipecat_writes_back() {
        for (text, want) in [
            ("-0", "0"),
            (" -0 ", "0"),
            ("-0.0", "-0.0"),
            ("1.0", "1.0"),
            ("2.50", "2.5"),
            ("1e3", "1000.0"),
            ("12345678901234567890123", "12345678901234567890123"),
            (
                r#"{"k": 1, "a": [ -0 , "x\"-0"], "k": 2}"#,
                r#"{"k":2,"a":[0,"x\"-0"]}"#,
            ),
            (r#"{"é": "\u00e9"}"#, r#"{"é":"é"}"#),
            ("[]", "[]"),
            ("{}", "{}"),
            ("true", "true"),
            ("null", "null"),
        ] {
            assert_eq!(canonical_text(text).unwrap(), want, "{text}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(canonical_text(&deep).is_err());
    }

    #[test]
    fn negative_zero_keeps_its_text_and_the_rest_does_not() {
        assert!(needs_text("-0"));
        assert!(needs_text(r#"{"a":[1,-0]}"#));
        assert!(!needs_text("-0.5"));
        assert!(!needs_text("-0e1"));
        assert!(!needs_text(r#"{"a":"-0"}"#));
        assert!(!needs_text(r#"{"a":-10}"#));
        let p = Payload::from_json_text(r#"{"z": -0}"#).unwrap();
        assert_eq!(p.exact_text(), Some(r#"{"z":0}"#));
    }
}
