//! Python's text forms of JSON values, byte for byte: `json.dumps(v)` (default separators,
//! `ensure_ascii=True`), `str(v)` and `repr(v)`.
//!
//! pipecat renders `<ui_event>` with `json.dumps(payload, default=str)` and formats a node's
//! `role` with an f-string (`str(role)`), so parity with pipecat-ai 1.14.0 needs
//! Python's exact spelling of numbers, strings and containers:
//!
//! - separators `", "` and `": "`; object keys in the order received;
//! - strings: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`; every other character outside
//!   `0x20..=0x7E` as `\uXXXX` (lowercase hex), characters above U+FFFF as a surrogate pair;
//! - integers in decimal; floats as `repr(float)`: shortest round-trip digits, fixed notation
//!   with at least one decimal (`1.0`, `1000000000000000.0`) when the decimal exponent is in
//!   `-4..16`, else scientific with a signed two-digit-minimum exponent (`1e+16`, `1e-05`).
//!
//! Known limits of a `serde_json::Value` (no `arbitrary_precision`): integers beyond the
//! `u64`/`i64` range arrive as floats, and `NaN`/`Infinity` cannot occur. [`dumps_text_into`]
//! reads the JSON text instead, so such integers keep every digit, as Python's do.

use serde_json::value::RawValue;
use serde_json::{Number, Value};
use std::fmt::Write as _;

/// `json.dumps(value)` with Python's defaults (`ensure_ascii=True`, separators `", "`/`": "`).
///
/// Iterative (explicit stack), so any nesting depth is safe.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    dumps_into(value, &mut out);
    out
}

enum Step<'a> {
    Value(&'a Value),
    Text(&'static str),
    Key(&'a str),
}

/// Appends `json.dumps(value)` to `out` (see [`dumps`]).
pub fn dumps_into(value: &Value, out: &mut String) {
    let mut stack: Vec<Step<'_>> = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Key(k) => {
                write_json_str(k, out);
                out.push_str(": ");
            }
            Step::Value(v) => match v {
                Value::Null => out.push_str("null"),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                Value::Number(n) => write_number(n, out),
                Value::String(s) => write_json_str(s, out),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Step::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        if i > 0 {
                            stack.push(Step::Text(", "));
                        }
                    }
                }
                Value::Object(map) => {
                    out.push('{');
                    stack.push(Step::Text("}"));
                    let n = map.len();
                    for (i, (k, item)) in map.iter().rev().enumerate() {
                        stack.push(Step::Value(item));
                        stack.push(Step::Key(k));
                        if i + 1 < n {
                            stack.push(Step::Text(", "));
                        }
                    }
                }
            },
        }
    }
}

/// Appends `json.dumps(json.loads(text))` to `out`: like [`dumps_into`], but integers keep every
/// digit as written (`12345678901234567890123`, as Python's unbounded `int`), since the text is
/// read piece by piece, never into a `Value` number. Objects follow Python's `dict`: a repeated
/// key keeps its first place and its last value. Errors: `text` is not valid JSON.
pub fn dumps_text_into(text: &str, out: &mut String) -> Result<(), serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(text)?;
    write_raw(raw, out)
}

fn write_raw(raw: &RawValue, out: &mut String) -> Result<(), serde_json::Error> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'{') => {
            let Entries(entries) = serde_json::from_str(text)?;
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json_str(key, out);
                out.push_str(": ");
                write_raw(value, out)?;
            }
            out.push('}');
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(text)?;
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_raw(item, out)?;
            }
            out.push(']');
        }
        Some(b'-' | b'0'..=b'9') if !text.contains(['.', 'e', 'E']) => {
            // An integer: Python's int keeps the digits; `-0` is 0.
            out.push_str(if text == "-0" { "0" } else { text });
        }
        _ => dumps_into(&serde_json::from_str::<Value>(text)?, out),
    }
    Ok(())
}

/// An object's members in order, a repeated key in its first place with its last value.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Entries<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries<'a>, A::Error> {
                let mut entries: Vec<(String, &'a RawValue)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    match entries.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => entries.push((key, value)),
                    }
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A JSON string literal as Python's `json.dumps` writes it with `ensure_ascii=True`.
pub fn write_json_str(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

fn write_number(n: &Number, out: &mut String) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        write_float_repr(f, out);
    }
}

/// `repr(f)` of a Python float (see the module docs for the rules).
pub fn float_repr(f: f64) -> String {
    let mut out = String::new();
    write_float_repr(f, &mut out);
    out
}

fn write_float_repr(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.5e-7", "1e16", "0e0".
    let sci = format!("{f:e}");
    let (negative, body) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci.as_str()),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    // Python: scientific when the decimal point position (exp + 1) is <= -4 or > 16.
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exp.unsigned_abs());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
            for _ in digits.len()..point {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
}

/// `str(v)` of the Python value that `json.loads` makes of `v`: strings as they are, `None`,
/// `True`/`False`, numbers as Python prints them, lists and dicts as their `repr`.
///
/// pipecat's node renderer formats `role` with an f-string, so a non-string role (possible only
/// on the plain-dict path, never past pydantic) prints this way.
pub fn py_str(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => out.push_str(s),
        other => py_repr(other, out),
    }
}

/// `repr(v)` of the Python value that `json.loads` makes of `v` (iterative).
///
/// String repr follows CPython: single quotes unless the text has `'` and no `"`; `\\`, the
/// quote, `\t`, `\n`, `\r` escaped; other non-printable characters as `\xNN`, `\uNNNN` or
/// `\UNNNNNNNN`. "Printable" for non-ASCII uses a fixed list of the common non-printable ranges
/// (C1 controls, non-space separators, format characters, private use, surrogates,
/// noncharacters); CPython's full Unicode tables may differ for rare unassigned code points.
pub fn py_repr(value: &Value, out: &mut String) {
    enum R<'a> {
        V(&'a Value),
        T(&'static str),
        K(&'a str),
    }
    let mut stack = vec![R::V(value)];
    while let Some(step) = stack.pop() {
        match step {
            R::T(t) => out.push_str(t),
            R::K(k) => {
                py_repr_str(k, out);
                out.push_str(": ");
            }
            R::V(v) => match v {
                Value::Null => out.push_str("None"),
                Value::Bool(true) => out.push_str("True"),
                Value::Bool(false) => out.push_str("False"),
                Value::Number(n) => write_number(n, out),
                Value::String(s) => py_repr_str(s, out),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(R::T("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(R::V(item));
                        if i > 0 {
                            stack.push(R::T(", "));
                        }
                    }
                }
                Value::Object(map) => {
                    out.push('{');
                    stack.push(R::T("}"));
                    let n = map.len();
                    for (i, (k, item)) in map.iter().rev().enumerate() {
                        stack.push(R::V(item));
                        stack.push(R::K(k));
                        if i + 1 < n {
                            stack.push(R::T(", "));
                        }
                    }
                }
            },
        }
    }
}

fn py_repr_str(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 || !is_printable(c) => {
                let u = c as u32;
                let _ = if u < 0x100 {
                    write!(out, "\\x{u:02x}")
                } else if u < 0x10000 {
                    write!(out, "\\u{u:04x}")
                } else {
                    write!(out, "\\U{u:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Approximation of CPython's `str.isprintable` for non-ASCII characters.
fn is_printable(c: char) -> bool {
    let u = c as u32;
    !matches!(u,
        0x80..=0xA0 | 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x1680 | 0x180E
        | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x2064 | 0x2066..=0x206F | 0x3000
        | 0xD800..=0xF8FF | 0xFDD0..=0xFDEF | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE | 0xFFFF
        | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_like_python_repr() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e16, "1.5e+16"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (100.0, "100.0"),
            (1e308, "1e+308"),
            (5e-324, "5e-324"),
            (123456789.12345679, "123456789.12345679"),
            (2.5e20, "2.5e+20"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "repr({f:?})");
        }
    }

    #[test]
    fn dumps_uses_python_separators_and_ascii_escapes() {
        let v = json!({"b": [1, 1.0, null, true], "a": "Zoë 🍰\n\"\u{7f}", "": {}});
        assert_eq!(
            dumps(&v),
            r#"{"b": [1, 1.0, null, true], "a": "Zo\u00eb \ud83c\udf70\n\"\u007f", "": {}}"#
        );
    }

    #[test]
    fn dumps_handles_a_deep_chain_without_recursion() {
        let mut v = json!(0);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let s = dumps(&v);
        assert_eq!(s.len(), 200_001);
        // serde_json's Value drop is recursive: take the chain apart iteratively.
        let mut cur = v;
        while let Value::Array(mut items) = cur {
            cur = items.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn py_repr_matches_python() {
        let mut s = String::new();
        py_str(&json!(["a", "b'c", 1, null, true, {"k": 1.5}]), &mut s);
        assert_eq!(s, r#"['a', "b'c", 1, None, True, {'k': 1.5}]"#);
        let mut s = String::new();
        py_str(&json!("plain \"x\""), &mut s);
        assert_eq!(s, "plain \"x\"");
        let mut s = String::new();
        py_repr(&json!("it's \"q\"\n\u{1}é"), &mut s);
        assert_eq!(s, "'it\\'s \"q\"\\n\\x01é'");
    }
}
