//! The rules each provider's API checks on a tool schema as sent, and `conform`, which every
//! provider client runs on every tool.

#![allow(missing_docs)]

use hark_schema::{Dialect, conform, messages, provider_rule_breaks};
use serde_json::{Value, json};

/// The UI worker's `reply` tool as it was once sent to every provider: optional
/// values written as JSON Schema type lists.
fn with_type_lists() -> Value {
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": "What to say."},
            "scroll_to": {"type": ["string", "null"]},
            "highlight": {"type": ["array", "null"], "items": {"type": "string"}},
            "fills": {"type": ["array", "null"], "items": {"type": "object",
                "properties": {"ref": {"type": "string"}, "value": {"type": "string"}},
                "required": ["ref", "value"]}}
        },
        "required": ["answer"]
    })
}

#[test]
fn the_checker_catches_a_type_list_for_gemini_parameters() {
    let breaks = provider_rule_breaks(&with_type_lists(), Dialect::GeminiParameters);
    let at: Vec<(&str, &str)> = breaks
        .iter()
        .map(|b| (b.keyword.as_str(), b.path.as_str()))
        .collect();
    assert_eq!(
        at,
        [
            ("type", "/properties/scroll_to/type"),
            ("type", "/properties/highlight/type"),
            ("type", "/properties/fills/type"),
        ]
    );
    assert_eq!(
        breaks[0].message,
        messages::rule_gemini_one_type(&json!(["string", "null"]))
    );
    assert!(
        breaks[0]
            .message
            .contains("write one type with \"nullable\": true")
    );
    // JSON Schema dialects take type lists.
    for d in [
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::GeminiJsonSchema,
    ] {
        assert_eq!(provider_rule_breaks(&with_type_lists(), d), [], "{d:?}");
    }
}

#[test]
fn the_checker_knows_the_other_gemini_refusals() {
    let s = json!({"type": "object", "additionalProperties": false, "properties": {
        "n": {"type": "integer", "enum": [1, 2]},
        "c": {"const": "x"},
        "o": {"type": "object"},
        "x-hint": {"type": "string"}
    }, "required": ["n", "missing"]});
    let keywords: Vec<String> = provider_rule_breaks(&s, Dialect::GeminiParameters)
        .into_iter()
        .map(|b| format!("{} {}", b.keyword, b.path))
        .collect();
    assert_eq!(
        keywords,
        [
            "additionalProperties /additionalProperties",
            "required /required",
            "enum /properties/n/enum",
            "const /properties/c/const",
            "type /properties/c/type",
            "properties /properties/o/properties",
        ]
    );
}

#[test]
fn the_checker_knows_the_strict_modes() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}});
    let openai: Vec<String> = provider_rule_breaks(&open, Dialect::OpenAiStrict)
        .into_iter()
        .map(|b| b.keyword)
        .collect();
    assert_eq!(openai, ["additionalProperties", "required", "minLength"]);
    let anthropic: Vec<String> = provider_rule_breaks(&open, Dialect::AnthropicStrict)
        .into_iter()
        .map(|b| b.keyword)
        .collect();
    assert_eq!(anthropic, ["additionalProperties", "minLength"]);
    let root = provider_rule_breaks(&json!({"type": "string"}), Dialect::Anthropic);
    assert_eq!(root[0].message, messages::rule_root_object("Anthropic"));
}

#[test]
fn conform_keeps_a_schema_that_keeps_the_rules_and_converts_any_other() {
    for d in Dialect::ALL {
        let sent = conform(&with_type_lists(), d).unwrap_or_else(|e| panic!("{d:?}: {e}"));
        assert_eq!(provider_rule_breaks(&sent, d), [], "{d:?}: {sent:#}");
    }
    // An optional value loses its null branch (the model leaves it out); a required one that
    // takes null says `nullable: true`.
    let mut required_null = with_type_lists();
    required_null["required"] = json!(["answer", "scroll_to"]);
    let gemini = conform(&required_null, Dialect::GeminiParameters).unwrap();
    assert_eq!(
        gemini["properties"]["scroll_to"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(gemini["properties"]["highlight"]["type"], json!("array"));
    // Already in the dialect: sent as it is (a second pass would refuse `nullable`).
    assert_eq!(conform(&gemini, Dialect::GeminiParameters).unwrap(), gemini);
    assert_eq!(
        conform(&with_type_lists(), Dialect::OpenAi).unwrap(),
        with_type_lists()
    );
}
