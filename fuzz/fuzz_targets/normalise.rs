//! Schema normalisation and every provider dialect on arbitrary JSON.
//!
//! Checks, besides "never panics": normalising is idempotent, a normalised schema never keeps
//! `$ref`, `$defs`, `format` or `pattern` as keywords, and `for_dialect` gives the same result
//! from the raw schema and from the normalised one.
//!
//! Per provider dialect: no dialect's output keeps an
//! `x-` keyword; the strict dialects (OpenAI, Anthropic) close every object
//! (`additionalProperties: false`) and OpenAI strict requires every property; Gemini
//! `parameters` never holds `$ref`, `$defs`, `oneOf`, `allOf`, `not`, `if`, `const`,
//! `additionalProperties` or a list of types; a dialect's refusal names the dialect;
//! `takes_no_arguments` never panics.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run normalise seeds/normalise -- -dict=schema.dict`
#![no_main]

use hark_schema::{Dialect, drop_strict_nulls, for_dialect, normalise, takes_no_arguments};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Keywords whose values are schemas, lists of schemas or maps of schemas.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `check` on every schema node of `schema` (not on property names or enum values).
fn each_node(schema: &Value, check: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else { continue };
        check(map);
        for key in ONE {
            if let Some(v @ Value::Object(_)) = map.get(*key) {
                stack.push(v);
            }
        }
        for key in LIST {
            if let Some(Value::Array(items)) = map.get(*key) {
                stack.extend(items);
            }
        }
        for key in MAP {
            if let Some(Value::Object(m)) = map.get(*key) {
                stack.extend(m.values());
            }
        }
    }
}

fn check_dialect(d: Dialect, out: &Value) {
    each_node(out, &mut |node| {
        assert!(
            node.keys().all(|k| !k.starts_with("x-")),
            "{d:?} keeps an x- keyword: {node:?}"
        );
        let closes = matches!(d, Dialect::OpenAiStrict | Dialect::AnthropicStrict);
        if closes && node.contains_key("properties") {
            assert_eq!(
                node.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{d:?} closes every object: {node:?}"
            );
        }
        if d == Dialect::OpenAiStrict {
            if let Some(Value::Object(props)) = node.get("properties") {
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for name in props.keys() {
                    assert!(
                        required.contains(&name.as_str()),
                        "OpenAI strict requires {name}"
                    );
                }
            }
        }
        if d == Dialect::GeminiParameters {
            for key in [
                "$ref",
                "$defs",
                "oneOf",
                "allOf",
                "not",
                "if",
                "const",
                "additionalProperties",
            ] {
                assert!(
                    !node.contains_key(key),
                    "Gemini parameters keeps {key}: {node:?}"
                );
            }
            assert!(
                !matches!(node.get("type"), Some(Value::Array(_))),
                "{node:?}"
            );
        }
    });
}

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(normalised) = normalise(&schema) else {
        // Refusals say something, and the sentence names the keyword (an empty key is shown
        // as "").
        let errors = normalise(&schema).unwrap_err();
        assert!(!errors.0.is_empty());
        for e in &errors.0 {
            assert!(!e.message.is_empty());
            let shown = if e.keyword.is_empty() {
                "\"\""
            } else {
                e.keyword.as_str()
            };
            assert!(
                e.message.contains(shown) || matches!(e.keyword.as_str(), "depth" | "$ref"),
                "{e}"
            );
        }
        return;
    };
    assert_eq!(
        normalise(&normalised).as_ref(),
        Ok(&normalised),
        "normalise is idempotent"
    );
    assert!(normalised.get("$defs").is_none());
    for d in Dialect::ALL {
        let from_raw = for_dialect(&schema, d);
        let from_normalised = for_dialect(&normalised, d);
        assert_eq!(from_raw, from_normalised, "{d:?}");
        match from_raw {
            Ok(out) => check_dialect(d, &out),
            Err(errors) => {
                assert!(!errors.0.is_empty() && errors.0.iter().all(|e| !e.message.is_empty()));
                for e in &errors.0 {
                    assert!(e.message.contains(d.name()), "{d:?} refusal names it: {e}");
                }
            }
        }
    }
    let _ = takes_no_arguments(&schema);
    // Arguments shaped like the schema itself: drop_strict_nulls must not panic on anything.
    let mut args = schema.clone();
    drop_strict_nulls(&normalised, &mut args);
});
