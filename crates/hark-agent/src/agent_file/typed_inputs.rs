//! A webhook input typed `date`, `time`, `date-time` or `phone` in an agent file is checked when
//! the model calls the tool.
//!
//! The tool layer checks a hand-written schema's `format` as a hint only (`format` is
//! words in the description the model reads), so a file's `type = "date"` would reach the webhook
//! as any text. A file's type is a type, like a Rust tool's `jiff::civil::Date` or `Phone`, so the
//! webhook's executor is wrapped: [`FormatChecked::validate`] refuses a value that is not of its
//! type before the tool runs (and before a flow's step asks the caller to confirm it), the way a
//! Rust-typed tool's decode does: one `<path>: <reason>` line per value, which the registry turns
//! into "… Fix these arguments, asking the caller if needed, then call `<tool>` again." (the guide
//! shows it in `docs/guide/first-tool.md`, "What the model reads").
//!
//! The accepted shapes are the ones the speaker says (`hark_speak::SayAs`): a date
//! `YYYY-MM-DD`; a time `HH:MM[:SS[.fff]]` (an offset after it is allowed); a date-time in RFC
//! 3339, with or without its offset; a phone number in international format, which is passed
//! on in E.164 (`+14155550123`), as a Rust tool's `Phone` receives it.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use hark_tools::{Arguments, Phone, ToolContext, ToolError, ToolExecutor};
use jiff::civil;
use serde_json::Value;

use super::messages;
use super::toml_shape::{FieldFormat, FieldType};

/// A webhook's executor with its inputs' types checked first.
#[derive(Debug)]
pub(super) struct FormatChecked {
    inner: Arc<dyn ToolExecutor>,
    inputs: BTreeMap<String, FieldFormat>,
}

impl FormatChecked {
    /// `inner` with the formats of `inputs` checked; `None` when no input (nested ones
    /// included) has a type with a format.
    pub(super) fn wrap(
        inner: Arc<dyn ToolExecutor>,
        inputs: &BTreeMap<String, FieldFormat>,
    ) -> Option<Self> {
        inputs.values().any(has_format).then(|| Self {
            inner,
            inputs: inputs.clone(),
        })
    }
}

fn has_format(field: &FieldFormat) -> bool {
    match field.kind {
        FieldType::Date | FieldType::Time | FieldType::DateTime | FieldType::Phone => true,
        FieldType::Object => field
            .fields
            .as_ref()
            .is_some_and(|fields| fields.values().any(has_format)),
        FieldType::Array => field.items.as_deref().is_some_and(has_format),
        _ => false,
    }
}

impl ToolExecutor for FormatChecked {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        self.inner.run(arguments, context)
    }

    /// The inner executor's checks, then every value of a `date`, `time`, `date-time` or `phone`
    /// input (nested in objects and lists too): each that is not of its type is one line of an
    /// `InvalidArguments` error; a phone number is rewritten in E.164.
    fn validate(&self, arguments: Arguments) -> Result<Arguments, ToolError> {
        let mut arguments = self.inner.validate(arguments)?;
        let mut lines = Vec::new();
        let mut fields = Vec::new();
        for (name, field) in &self.inputs {
            if let Some(value) = arguments.get_mut(name) {
                check(field, name, value, &mut lines, &mut fields);
            }
        }
        if lines.is_empty() {
            Ok(arguments)
        } else {
            Err(ToolError::invalid_arguments(
                lines,
                format!("invalid arguments: {}", fields.join(", ")),
            ))
        }
    }

    fn checks_extra_arguments(&self) -> bool {
        self.inner.checks_extra_arguments()
    }
}

/// Checks `value` (at `path`) against `field`'s type, recursing into objects and lists.
fn check(
    field: &FieldFormat,
    path: &str,
    value: &mut Value,
    lines: &mut Vec<String>,
    fields: &mut Vec<String>,
) {
    match (field.kind, value) {
        (FieldType::Object, Value::Object(map)) => {
            for (name, sub) in field.fields.iter().flatten() {
                if let Some(value) = map.get_mut(name) {
                    check(sub, &format!("{path}.{name}"), value, lines, fields);
                }
            }
        }
        (FieldType::Array, Value::Array(items)) => {
            if let Some(item) = field.items.as_deref() {
                for (i, value) in items.iter_mut().enumerate() {
                    check(item, &format!("{path}.{i}"), value, lines, fields);
                }
            }
        }
        (kind, Value::String(text)) => match checked(kind, text) {
            Ok(Some(normal)) => *text = normal,
            Ok(None) => {}
            Err(reason) => {
                lines.push(hark_tools::messages::argument_error_line(path, &reason));
                fields.push(format!("{path} (format)"));
            }
        },
        _ => {}
    }
}

/// `Ok(None)`: the text is of its type as it is; `Ok(Some(text))`: it is, written this way
/// (a phone number in E.164); `Err(reason)`: it is not, in the Rust API's words, which quote the
/// text and say what is wrong with it ([`hark_tools::format_refused`]).
fn checked(kind: FieldType, text: &str) -> Result<Option<String>, String> {
    let refused = |format: &str, fallback: fn() -> String| {
        hark_tools::format_refused(format, Some(&Value::String(text.to_string())))
            .unwrap_or_else(fallback)
    };
    match kind {
        FieldType::Date => is_date(text)
            .then_some(None)
            .ok_or_else(|| refused("date", messages::not_a_date)),
        FieldType::Time => is_time(text)
            .then_some(None)
            .ok_or_else(|| refused("time", messages::not_a_time)),
        FieldType::DateTime => is_date_time(text)
            .then_some(None)
            .ok_or_else(|| refused("date-time", messages::not_a_date_time)),
        FieldType::Phone => Phone::parse(text.trim())
            .map(|phone| Some(phone.as_str().to_string()))
            .map_err(|_| refused("phone", hark_tools::messages::not_a_phone_number)),
        _ => Ok(None),
    }
}

/// `YYYY-MM-DD`, a day that exists.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && text.parse::<civil::Date>().is_ok()
}

/// `HH:MM[:SS[.fff]]`, with an offset (`Z`, `+02:00`) after it allowed, as the speaker reads a
/// time.
fn is_time(text: &str) -> bool {
    let bare = text
        .strip_suffix(['Z', 'z'])
        .or_else(|| {
            text.get(5..)
                .and_then(|rest| rest.find(['+', '-']).map(|k| &text[..5 + k]))
        })
        .unwrap_or(text);
    let b = bare.as_bytes();
    b.len() >= 5
        && b[2] == b':'
        && b[..2].iter().all(u8::is_ascii_digit)
        && b[3..5].iter().all(u8::is_ascii_digit)
        && bare.parse::<civil::Time>().is_ok()
}

/// RFC 3339: a date, `T` (or a space), a time, and an offset or `Z` or none (then the call's
/// local time).
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.get(..10).zip(text.get(11..)) else {
        return false;
    };
    let separator = text.as_bytes()[10];
    is_date(date) && matches!(separator, b'T' | b't' | b' ') && is_time(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_takes_its_shapes_only() {
        assert!(is_date("2026-10-16"));
        for bad in [
            "2026-02-30",
            "16/10/2026",
            "tomorrow",
            "2026-10-16T09:00",
            "2026-1-16",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for good in [
            "09:30",
            "09:30:15",
            "09:30:15.250",
            "09:30Z",
            "09:30:00+02:00",
        ] {
            assert!(is_time(good), "{good}");
        }
        for bad in ["9:30", "25:00", "half past nine", "09:61"] {
            assert!(!is_time(bad), "{bad}");
        }
        for good in [
            "2026-10-16T09:30:00+02:00",
            "2026-10-16T09:30:00Z",
            "2026-10-16T09:30",
            "2026-10-16 09:30",
        ] {
            assert!(is_date_time(good), "{good}");
        }
        for bad in [
            "2026-10-16",
            "2026-10-16T",
            "2026-10-32T09:30",
            "next Friday",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert_eq!(
            checked(FieldType::Phone, "+1 415 555 0123"),
            Ok(Some("+14155550123".to_string()))
        );
        assert_eq!(
            checked(FieldType::Phone, "555"),
            Err(
                "\"555\" has no country code: give it starting with + and the country code, \
                 like +14155550123"
                    .to_string()
            )
        );
    }
}
