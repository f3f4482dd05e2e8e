//! Template parsing and filling: `hark_speak::Template::parse`, then `fill` (spoken by a
//! `Speaker`, en-US in New York on a fixed clock) and `fill_json` (locked arguments) on
//! arbitrary text and values.
//!
//! Input: `template text` NUL `values JSON` (an object `{"state":…, "call":…, "result":…}`;
//! without a NUL, or when the JSON does not parse, a fixed set of values). How a value is said
//! (date, date-time, time, phone, words, plain) is picked from its last path name, so every
//! way of speaking meets fuzzed strings.
//!
//! Checks, besides "never panics":
//! - a refusal names its 1-based character position, and that position is inside the text;
//! - a parsed template reads back from its own text unchanged; every placeholder's text parses
//!   as a single-placeholder template holding that placeholder; filling each placeholder with
//!   its own text gives a template with the same placeholders (nothing lost or invented);
//! - a fill never leaves a placeholder unfilled without an error: `fill` and `fill_json` fail
//!   exactly when a placeholder has no value (or `null`), naming the first such placeholder in
//!   text order; when every value is a scalar without braces, the filled line has no `{{` or
//!   `}}` left;
//! - a single-placeholder `fill_json` gives the raw value.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run template corpus/template seeds/template -- -dict=template.dict -max_len=2048`
#![no_main]

use std::sync::{Arc, LazyLock};

use hark_speak::{
    FixedClock, Placeholder, Resolve, SayAs, Scope, Speaker, SpokenValue, Template, TemplateError,
};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static SPEAKER: LazyLock<Speaker> = LazyLock::new(|| {
    // 2026-10-15 12:00 in New York, as the crate's tests.
    let now = "2026-10-15T16:00:00Z".parse().expect("a timestamp");
    Speaker::with_clock("en-US", Some("America/New_York"), Arc::new(FixedClock(now)))
        .expect("the en-US speaker builds")
});

static DEFAULT_VALUES: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "state": {"day": "2026-10-16", "brand": "Acme", "name": "Ana",
                  "account": {"amount": 42, "words": "forty two"}, "tags": ["vip"], "unset": null},
        "call": {"session_id": "s-123", "remote_number": "+14155550123"},
        "result": {"order_id": "A-17", "arrives": "2026-10-16T09:30:00Z", "at": "09:30",
                   "status": "inProgress"}
    })
});

/// Resolves a placeholder by walking its path in `state`, `call` or `result`.
struct Values<'a>(&'a Value);

fn say_as_for(name: &str) -> SayAs {
    let sum: u32 = name.bytes().map(u32::from).sum();
    match sum % 6 {
        0 => SayAs::Plain,
        1 => SayAs::Date,
        2 => SayAs::DateTime,
        3 => SayAs::Time,
        4 => SayAs::Phone,
        _ => SayAs::Words,
    }
}

impl Values<'_> {
    fn lookup(&self, p: &Placeholder) -> Option<&Value> {
        let scope = match p.scope {
            Scope::Value => "state",
            Scope::Call => "call",
            Scope::Result => "result",
        };
        p.path
            .iter()
            .try_fold(self.0.get(scope)?, |v, name| v.get(name))
    }
}

impl Resolve for Values<'_> {
    fn resolve(&self, p: &Placeholder) -> Option<SpokenValue<'_>> {
        let value = self.lookup(p)?;
        let say_as = say_as_for(p.path.last().map_or("", String::as_str));
        Some(SpokenValue::new(value, say_as))
    }
}

/// Gives each placeholder its own text as a plain string.
struct OwnText;

impl Resolve for OwnText {
    fn resolve(&self, p: &Placeholder) -> Option<SpokenValue<'_>> {
        Some(SpokenValue::owned(
            Value::String(p.to_string()),
            SayAs::Plain,
        ))
    }
}

fn position(error: &TemplateError) -> usize {
    match error {
        TemplateError::Removed { position, .. }
        | TemplateError::Unclosed { position }
        | TemplateError::Unopened { position }
        | TemplateError::Nested { position }
        | TemplateError::Empty { position }
        | TemplateError::BadPath { position, .. }
        | TemplateError::NoField { position, .. } => *position,
    }
}

fn check_refusal(text: &str, error: &TemplateError) {
    let said = error.to_string();
    let at = position(error);
    assert!(
        at >= 1 && at <= text.chars().count(),
        "position {at} inside the text: {error:?}"
    );
    assert!(
        said.contains(&at.to_string()),
        "the text names the position: {said}"
    );
}

fn check_fills(template: &Template, values: &Values<'_>) {
    let missing = template
        .placeholders()
        .iter()
        .find(|p| values.lookup(p).is_none_or(Value::is_null));
    let spoken = template.fill(values, &SPEAKER);
    let locked = template.fill_json(values);
    match missing {
        Some(first) => {
            let spoken = spoken.expect_err("a line with a value not set is refused");
            assert_eq!(
                &spoken.placeholder, first,
                "names the first unset placeholder"
            );
            assert!(!spoken.to_string().is_empty());
            let locked = locked.expect_err("a locked value not set is refused");
            assert_eq!(&locked.placeholder, first);
        }
        None => {
            let spoken = spoken.expect("every placeholder has a value");
            let locked = locked.expect("every placeholder has a value");
            let scalars_without_braces =
                template
                    .placeholders()
                    .iter()
                    .all(|p| match values.lookup(p) {
                        Some(Value::String(s)) => !s.contains(['{', '}']),
                        Some(Value::Number(_) | Value::Bool(_)) => true,
                        _ => false,
                    });
            if scalars_without_braces {
                assert!(
                    !spoken.contains("{{") && !spoken.contains("}}"),
                    "{spoken:?}"
                );
                if let Value::String(s) = &locked {
                    assert!(!s.contains("{{") && !s.contains("}}"), "{s:?}");
                }
            }
            if template.is_single_placeholder() {
                let raw = values.lookup(&template.placeholders()[0]).unwrap();
                assert_eq!(&locked, raw, "a single placeholder locks the raw value");
            } else {
                assert!(locked.is_string());
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (text, values_json) = input.split_once('\0').unwrap_or((input, ""));
    let parsed_values = serde_json::from_str::<Value>(values_json).ok();
    let values = Values(parsed_values.as_ref().unwrap_or(&DEFAULT_VALUES));

    let template = match Template::parse(text) {
        Ok(t) => t,
        Err(error) => {
            check_refusal(text, &error);
            return;
        }
    };
    assert_eq!(template.text(), text);
    assert_eq!(Template::parse(template.text()).as_ref(), Ok(&template));
    for p in template.placeholders() {
        assert!(!p.path.is_empty(), "{p:?}");
        let alone = Template::parse(&p.to_string()).expect("a placeholder's text parses");
        assert!(alone.is_single_placeholder());
        assert_eq!(alone.placeholders(), std::slice::from_ref(p));
    }
    let Value::String(own) = template
        .fill_json(&OwnText)
        .expect("OwnText fills everything")
    else {
        // A single placeholder gives the raw value: here its own text.
        unreachable!("OwnText gives strings");
    };
    let again = Template::parse(&own)
        .unwrap_or_else(|e| panic!("the template with its own placeholders parses: {e}"));
    assert_eq!(again.placeholders(), template.placeholders());
    check_fills(&template, &values);
});
