//! The T9 type below (optional values, an enum, a bounded integer, a nested struct, a date and
//! a pattern: the schemas providers have refused) set through `normalise` and every dialect, with
//! the exact output pinned in `tests/snapshots/t9_*.json` (checked by hand against each
//! provider's documented rules). Set `HARK_SCHEMA_BLESS=1` to rewrite the snapshots, then
//! review the diff before keeping it.

#![allow(missing_docs, dead_code)]

use hark_schema::{Dialect, for_dialect, normalise};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Where to sit.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

/// How to reach the caller.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Channel {
    /// A text message.
    Sms,
    /// A phone call.
    Call,
}

/// Contact details.
#[derive(Deserialize, JsonSchema)]
struct Contact {
    /// The caller's name as spoken.
    name: String,
    /// A phone number.
    phone: Option<String>,
}

/// Book a table.
#[derive(Deserialize, JsonSchema)]
struct BookTable {
    /// The day the caller wants.
    #[schemars(extend("format" = "date"))]
    day: String,
    /// Number of guests.
    #[schemars(range(min = 1, max = 12))]
    party: u8,
    /// Seating area.
    seating: Seating,
    /// How to confirm the booking.
    confirm_by: Channel,
    /// Who books.
    contact: Contact,
    /// A second contact.
    backup: Option<Contact>,
    /// A note for the staff.
    note: Option<String>,
    /// Dietary needs.
    diets: Option<Vec<String>>,
    /// The voucher code on the card.
    #[schemars(regex(pattern = r"^[A-Z]{2}\d{4}$"))]
    voucher: Option<String>,
}

fn t9_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(BookTable)).unwrap()
}

fn snapshot(name: &str, actual: &Value) {
    let path = format!("{}/tests/snapshots/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("HARK_SCHEMA_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}; run with HARK_SCHEMA_BLESS=1 and review"));
    assert_eq!(text, expected, "{name} differs from {path}");
}

fn file_name(d: Dialect) -> &'static str {
    match d {
        Dialect::OpenAi => "t9_openai",
        Dialect::OpenAiStrict => "t9_openai_strict",
        Dialect::Anthropic => "t9_anthropic",
        Dialect::AnthropicStrict => "t9_anthropic_strict",
        Dialect::GeminiParameters => "t9_gemini_parameters",
        Dialect::GeminiJsonSchema => "t9_gemini_json_schema",
    }
}

#[test]
fn t9_input_is_what_schemars_generates() {
    snapshot("t9_input", &t9_schema());
}

#[test]
fn t9_normalised() {
    snapshot("t9_normalised", &normalise(&t9_schema()).unwrap());
}

#[test]
fn t9_every_dialect() {
    let normalised = normalise(&t9_schema()).unwrap();
    for d in Dialect::ALL {
        let out = for_dialect(&normalised, d).unwrap_or_else(|e| panic!("{d:?}: {e}"));
        snapshot(file_name(d), &out);
        // The raw schemars output gives the same result: for_dialect normalises first.
        assert_eq!(for_dialect(&t9_schema(), d).unwrap(), out, "{d:?}");
    }
}

/// Keys that must never reach a given dialect, anywhere in the output.
fn keys_anywhere(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                keys_anywhere(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys_anywhere(x, out)),
        _ => {}
    }
}

#[test]
fn t9_no_refused_keyword_reaches_a_dialect() {
    let normalised = normalise(&t9_schema()).unwrap();
    let everywhere = ["$ref", "$defs", "$schema", "format", "pattern", "oneOf"];
    for d in Dialect::ALL {
        let mut keys = Vec::new();
        keys_anywhere(&for_dialect(&normalised, d).unwrap(), &mut keys);
        for k in everywhere {
            // "pattern"/"format" could be property names; the T9 type has none of those.
            assert!(!keys.iter().any(|x| x == k), "{d:?} has {k}");
        }
        let refused: &[&str] = match d {
            Dialect::OpenAiStrict => &["minLength", "maxLength", "default"],
            Dialect::AnthropicStrict => &["minimum", "maximum", "minLength", "maxLength", "const"],
            Dialect::GeminiParameters => &["title", "additionalProperties", "const", "anyOf"],
            _ => &[],
        };
        for k in refused {
            assert!(!keys.iter().any(|x| x == k), "{d:?} has {k}");
        }
    }
}

#[test]
fn t9_words_replace_refused_keywords() {
    let normalised = normalise(&t9_schema()).unwrap();
    let day = &normalised["properties"]["day"]["description"];
    assert_eq!(
        day,
        &json!("The day the caller wants. A date written YYYY-MM-DD.")
    );
    let voucher = &normalised["properties"]["voucher"]["description"];
    assert_eq!(
        voucher,
        &json!("The voucher code on the card. It matches the regular expression ^[A-Z]{2}\\d{4}$.")
    );
    let anthropic = for_dialect(&normalised, Dialect::AnthropicStrict).unwrap();
    assert_eq!(
        anthropic["properties"]["party"]["description"],
        json!("Number of guests. From 1 to 12.")
    );
}
