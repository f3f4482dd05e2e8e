//! Inputs the fuzz targets (`fuzz/fuzz_targets/normalise.rs`) found, each pinned with its
//! outcome, and the target's per-dialect invariants checked on them.

#![allow(missing_docs)]

use hark_schema::{Dialect, for_dialect, normalise};
use serde_json::{Map, Value, json};

/// The normalise target's crash `crash-bda57b5f842890c994e5edfde836bdea68c14281`: a `$ref` to a
/// definition with `"type": "string"` beside `properties` left that schema unclosed and its
/// property not required in OpenAI strict mode.
const CRASH_BDA57B5F: &str = r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"},"c":{"amaximumnyOf":[{"$rEf":"#/$dfes/B"},{"type":"null"}]},"c":{"oneOf":[{"const":"x","description":"X"},{"const":"y"}]},"d":{"allOf":[{"$ref":"#/$defs/A"}],"default":null}},"required":["a"],"$defs":{"A":{"type":"string","format":"date","pattern":"ct","properties":{"n":{"type":["integer","null"],"minimum":0,"exclusiveMaximum":9,"multipleOf":3}},"additionalProperties":false}}}"##;

/// The same fault by hand, at its smallest: `properties` on a schema whose `type` is not
/// `"object"`, with neither `required` nor `additionalProperties`.
fn minimised() -> Value {
    json!({
        "type": "object",
        "properties": {"a": {"type": "string", "properties": {"n": {"type": "integer"}}}},
        "required": ["a"]
    })
}

/// Every schema node of `schema`, the way the fuzz target walks it.
fn nodes(schema: &Value) -> Vec<&Map<String, Value>> {
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
    let mut found = Vec::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else { continue };
        found.push(map);
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
    found
}

/// The fuzz target's strict invariants: every schema holding `properties` is closed, and in
/// OpenAI strict mode requires every property.
fn assert_strict_rules(d: Dialect, out: &Value) {
    for node in nodes(out) {
        let Some(Value::Object(props)) = node.get("properties") else {
            continue;
        };
        assert_eq!(
            node.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{d:?} closes every schema with properties: {node:?}"
        );
        if d == Dialect::OpenAiStrict {
            let required: Vec<&str> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in props.keys() {
                assert!(
                    required.contains(&name.as_str()),
                    "OpenAI strict requires {name}: {node:?}"
                );
            }
        }
    }
}

const STRICT: [Dialect; 2] = [Dialect::OpenAiStrict, Dialect::AnthropicStrict];

#[test]
fn properties_beside_a_non_object_type_are_closed_and_required_in_openai_strict() {
    let s = minimised();
    let strict = for_dialect(&s, Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {"a": {
                "type": "string",
                "properties": {"n": {"type": ["integer", "null"]}},
                "additionalProperties": false,
                "required": ["n"]
            }},
            "additionalProperties": false,
            "required": ["a"]
        })
    );
    assert_strict_rules(Dialect::OpenAiStrict, &strict);
}

#[test]
fn properties_beside_a_non_object_type_are_closed_in_anthropic_strict() {
    let s = minimised();
    let strict = for_dialect(&s, Dialect::AnthropicStrict).unwrap();
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {"a": {
                "type": "string",
                "properties": {"n": {"type": "integer"}},
                "additionalProperties": false
            }},
            "required": ["a"],
            "additionalProperties": false
        })
    );
    assert_strict_rules(Dialect::AnthropicStrict, &strict);
}

#[test]
fn properties_beside_a_non_object_type_are_kept_as_written_outside_strict_modes() {
    // Valid JSON Schema (properties apply only to objects), so normalise keeps it and the
    // lenient dialects and Gemini parameters pass it on unclosed.
    let s = minimised();
    assert_eq!(normalise(&s).unwrap(), s);
    for d in [
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::GeminiJsonSchema,
        Dialect::GeminiParameters,
    ] {
        assert_eq!(for_dialect(&s, d).unwrap(), s, "{d:?}");
    }
}

#[test]
fn crash_bda57b5f_passes_the_strict_rules() {
    let s: Value = serde_json::from_str(CRASH_BDA57B5F).unwrap();
    let normalised = normalise(&s).unwrap();
    assert_eq!(normalise(&normalised).as_ref(), Ok(&normalised));
    for d in Dialect::ALL {
        assert_eq!(for_dialect(&s, d), for_dialect(&normalised, d), "{d:?}");
    }
    for d in STRICT {
        let out = for_dialect(&s, d).unwrap_or_else(|e| panic!("{d:?}: {e}"));
        assert_strict_rules(d, &out);
    }
}

#[test]
fn crash_bda57b5f_gives_a_pinned_openai_strict_schema() {
    let s: Value = serde_json::from_str(CRASH_BDA57B5F).unwrap();
    let strict = for_dialect(&s, Dialect::OpenAiStrict).unwrap();
    let n = json!({
        "type": ["integer", "null"],
        "minimum": 0,
        "exclusiveMaximum": 9,
        "multipleOf": 3
    });
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {
                "a": {
                    "type": "string",
                    "properties": {"n": n},
                    "additionalProperties": false,
                    "description": "x. A date written YYYY-MM-DD. It matches the regular expression ct.",
                    "required": ["n"]
                },
                "c": {
                    "description": "\"x\": X.",
                    "anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]
                },
                "d": {
                    "type": ["string", "null"],
                    "properties": {"n": n},
                    "additionalProperties": false,
                    "description": "A date written YYYY-MM-DD. It matches the regular expression ct.",
                    "required": ["n"]
                }
            },
            "additionalProperties": false,
            "required": ["a", "c", "d"]
        })
    );
}
