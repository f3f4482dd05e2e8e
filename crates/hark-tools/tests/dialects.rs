//! Case T9: schemas every provider accepts, and one bad tool never breaks the others.
#![allow(missing_docs)]

use std::sync::Arc;

use hark_tools::{Dialect, Output, ToolError, ToolRegistry, ToolSpec};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Seating {
    Inside,
    Terrace,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Contact {
    /// Who to ask for.
    name: String,
}

/// The T9 argument types.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Reserve {
    /// A note for the kitchen.
    note: Option<String>,
    /// Allergies, if any.
    allergies: Option<Vec<String>>,
    /// Where to sit.
    seating: Seating,
    /// How many people.
    #[schemars(range(min = 1, max = 12))]
    party: u8,
    /// Who to ask for.
    contact: Contact,
    /// The day.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: jiff::civil::Date,
    /// The booking code.
    #[schemars(regex(pattern = r"^[A-Z]{2}-\d{4}$"))]
    code: String,
}

async fn reserve(_: Reserve) -> Result<(), ToolError> {
    Ok(())
}

fn t9_registry() -> ToolRegistry {
    let good = ToolSpec::local("reserve", "Reserve a table.", reserve).unwrap();
    // Valid JSON Schema, but a tuple no Gemini `parameters` schema can express.
    let odd = ToolSpec::new(
        "odd",
        "Takes a pair.",
        json!({"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}}}),
        Output::done(),
        Arc::new(Noop),
    )
    .unwrap();
    ToolRegistry::new(vec![good, odd]).unwrap()
}

#[derive(Debug)]
struct Noop;

impl hark_tools::ToolExecutor for Noop {
    fn run<'a>(
        &'a self,
        _: hark_tools::Arguments,
        _: &'a hark_tools::ToolContext,
    ) -> futures::future::BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { Ok(json!({})) })
    }
}

fn snapshot(dialect: Dialect) -> Value {
    let file = match dialect {
        Dialect::OpenAi => include_str!("snapshots/t9_openai.json"),
        Dialect::OpenAiStrict => include_str!("snapshots/t9_openai_strict.json"),
        Dialect::Anthropic => include_str!("snapshots/t9_anthropic.json"),
        Dialect::AnthropicStrict => include_str!("snapshots/t9_anthropic_strict.json"),
        Dialect::GeminiParameters => include_str!("snapshots/t9_gemini_parameters.json"),
        Dialect::GeminiJsonSchema => include_str!("snapshots/t9_gemini_json_schema.json"),
    };
    serde_json::from_str(file).unwrap()
}

/// Every string and key anywhere in a schema, to look for keywords.
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[test]
fn t9_each_dialect_is_pinned() {
    let reg = t9_registry();
    for dialect in Dialect::ALL {
        let out = reg.definitions(dialect);
        let reserve = out
            .tools
            .iter()
            .find(|t| t.name == "reserve")
            .expect("reserve always comes out");
        assert_eq!(reserve.parameters, snapshot(dialect), "{dialect:?}");
        assert_eq!(reserve.description, "Reserve a table.");
    }
}

#[test]
fn t9_provider_rules_hold() {
    let reg = t9_registry();
    let strict = &reg.definitions(Dialect::OpenAiStrict).tools[0].parameters;
    let props: Vec<&String> = strict["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        strict["required"].as_array().unwrap().len(),
        props.len(),
        "every property required"
    );
    assert_eq!(strict["additionalProperties"], false);
    assert_eq!(
        strict["properties"]["contact"]["additionalProperties"],
        false
    );
    assert_eq!(
        strict["properties"]["note"]["type"],
        json!(["string", "null"])
    );

    for dialect in Dialect::ALL {
        let params = &reg.definitions(dialect).tools[0].parameters;
        let mut all = Vec::new();
        keys(params, &mut all);
        // format and pattern became words in every dialect; no $ref/$defs/$schema left.
        for gone in ["format", "pattern", "$ref", "$defs", "$schema"] {
            assert!(!all.iter().any(|k| k == gone), "{dialect:?} kept {gone}");
        }
        let code = params["properties"]["code"]["description"]
            .as_str()
            .unwrap();
        assert!(code.contains(r"^[A-Z]{2}-\d{4}$"), "{dialect:?}: {code}");
        let day = params["properties"]["day"]["description"].as_str().unwrap();
        assert!(day.contains("YYYY-MM-DD"), "{dialect:?}: {day}");
    }

    let gemini = &reg.definitions(Dialect::GeminiParameters).tools[0].parameters;
    let mut all = Vec::new();
    keys(gemini, &mut all);
    for gone in [
        "title",
        "additionalProperties",
        "exclusiveMinimum",
        "const",
        "anyOf",
    ] {
        assert!(
            !all.iter().any(|k| k == gone),
            "Gemini parameters kept {gone}"
        );
    }
    assert_eq!(
        gemini["properties"]["seating"]["enum"],
        json!(["inside", "terrace"])
    );

    let anthropic_strict = &reg.definitions(Dialect::AnthropicStrict).tools[0].parameters;
    let party = &anthropic_strict["properties"]["party"];
    assert!(
        party.get("maximum").is_none(),
        "Anthropic strict moves bounds into words: {party}"
    );
    assert!(
        party["description"].as_str().unwrap().contains("12"),
        "{party}"
    );
}

#[test]
fn t9_one_bad_tool_is_refused_naming_tool_and_keyword_and_never_breaks_the_others() {
    let reg = t9_registry();
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::GeminiParameters,
    ] {
        let out = reg.definitions(dialect);
        assert_eq!(
            out.tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["reserve"]
        );
        assert_eq!(out.refused.len(), 1, "{dialect:?}");
        assert!(
            out.refused[0].starts_with("odd: /properties/pair/prefixItems: "),
            "{}",
            out.refused[0]
        );
        assert!(
            out.refused[0].contains(&format!("{} does not support prefixItems", dialect.name()))
        );
    }
    for dialect in [
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::GeminiJsonSchema,
    ] {
        let out = reg.definitions(dialect);
        assert_eq!(out.tools.len(), 2, "{dialect:?}");
        assert!(out.refused.is_empty());
    }
}

#[test]
fn hand_written_schema_violations_fail_at_build_naming_tool_and_keyword() {
    let build = |schema: Value| {
        ToolSpec::new(
            "lookup",
            "Look it up.",
            schema,
            Output::done(),
            Arc::new(Noop),
        )
        .unwrap_err()
        .to_string()
    };
    let e =
        build(json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}}));
    assert!(
        e.starts_with(
            "lookup: /properties/a/nullable: nullable is not JSON Schema, so it is refused."
        ),
        "{e}"
    );
    let e = build(json!({"type": "object", "definitions": {}}));
    assert!(
        e.contains("definitions and $id are refused. Use $defs and local #/$defs/... references."),
        "{e}"
    );
    let e = build(json!({"type": "object", "oneOf": [{"required": ["a"]}]}));
    assert!(
        e.starts_with("lookup: ") && e.contains("oneOf is not allowed at the root."),
        "{e}"
    );
    // All problems at once.
    let e = build(
        json!({"type": "object", "$id": "x", "properties": {"a": {"nullable": true, "type": "string"}}}),
    );
    assert_eq!(e.lines().count(), 2, "{e}");
    // A bad name is named too.
    let e = ToolSpec::new(
        "book table",
        "x",
        json!({"type": "object"}),
        Output::done(),
        Arc::new(Noop),
    )
    .unwrap_err();
    assert!(e.to_string().contains("\"book table\" is not allowed"));
}

#[test]
fn optional_with_null_default_loses_its_null_branch_in_what_the_model_reads() {
    let spec = ToolSpec::local("reserve", "Reserve a table.", reserve).unwrap();
    assert_eq!(
        spec.model_parameters()["properties"]["note"]["type"],
        "string"
    );
    assert!(spec.parameters()["properties"]["note"]["type"].is_array());
}
