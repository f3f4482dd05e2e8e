//! Provider dialects: words for refused keywords,
//! refusals naming the keyword, one bad tool never breaking the others.

#![allow(missing_docs)]

use hark_schema::{Dialect, SchemaErrors, drop_strict_nulls, for_dialect, messages, normalise};
use serde_json::{Value, json};

fn object(props: Value, required: Value) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// The schema in dialect `d`, which must keep every rule of the provider's API
/// (`provider_rule_breaks`): every dialect test is also a conformance test.
fn out(schema: &Value, d: Dialect) -> Value {
    let sent = for_dialect(schema, d).unwrap_or_else(|e| panic!("{d:?}: {e}"));
    if !hark_schema::takes_no_arguments(&sent) {
        let breaks = hark_schema::provider_rule_breaks(&sent, d);
        assert!(
            breaks.is_empty(),
            "{d:?} output breaks its rules: {breaks:?}\n{sent:#}"
        );
    }
    sent
}

fn refused(schema: &Value, d: Dialect) -> SchemaErrors {
    for_dialect(schema, d).expect_err("refused")
}

const STRICT_AND_GEMINI: [Dialect; 3] = [
    Dialect::OpenAiStrict,
    Dialect::AnthropicStrict,
    Dialect::GeminiParameters,
];
const LENIENT: [Dialect; 3] = [
    Dialect::OpenAi,
    Dialect::Anthropic,
    Dialect::GeminiJsonSchema,
];

#[test]
fn an_open_map_cannot_be_expressed_in_strict_modes_or_gemini_parameters() {
    // schemars' HashMap<String, i32>.
    let s = object(
        json!({"m": {"type": "object", "additionalProperties": {"type": "integer"}}}),
        json!(["m"]),
    );
    for d in STRICT_AND_GEMINI {
        let e = refused(&s, d);
        assert_eq!(e.keywords(), ["additionalProperties"], "{d:?}");
        assert_eq!(e.0[0].path, "/properties/m/additionalProperties");
        assert_eq!(
            e.0[0].message,
            messages::open_object_refused(d.name(), "additionalProperties")
        );
    }
    for d in LENIENT {
        assert_eq!(
            out(&s, d)["properties"]["m"],
            json!({"type": "object", "additionalProperties": {"type": "integer"}})
        );
    }
}

#[test]
fn a_value_of_any_type_cannot_be_expressed_in_strict_modes_or_gemini_parameters() {
    // schemars' serde_json::Value is `true`.
    let s = object(
        json!({"v": true, "w": {"description": "Anything."}}),
        json!(["v"]),
    );
    for d in STRICT_AND_GEMINI {
        let e = refused(&s, d);
        assert_eq!(e.keywords(), ["type", "type"], "{d:?}");
        assert_eq!(e.0[0].message, messages::any_value_refused(d.name()));
    }
    for d in LENIENT {
        assert!(for_dialect(&s, d).is_ok());
    }
}

#[test]
fn root_one_of_and_recursion_are_refused_for_every_dialect() {
    let root_one_of =
        json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
    let recursive = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
    for d in Dialect::ALL {
        assert_eq!(refused(&root_one_of, d).keywords(), ["oneOf"]);
        let e = refused(&recursive, d);
        assert_eq!(e.keywords(), ["$ref"]);
        assert!(e.0[0].message.starts_with("Node refers to itself"), "{}", e);
    }
}

#[test]
fn one_bad_tool_never_breaks_the_others() {
    let tools = [
        (
            "book_table",
            object(
                json!({"day": {"type": "string", "format": "date"}}),
                json!(["day"]),
            ),
        ),
        (
            "tree",
            json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}),
        ),
        (
            "tags",
            object(
                json!({"t": {"type": "object", "additionalProperties": true}}),
                json!([]),
            ),
        ),
        (
            "lookup",
            object(json!({"id": {"type": "string"}}), json!(["id"])),
        ),
    ];
    let built: Vec<(&str, Result<Value, String>)> = tools
        .iter()
        .map(|(name, s)| {
            (
                *name,
                for_dialect(s, Dialect::GeminiParameters).map_err(|e| format!("{name}: {e}")),
            )
        })
        .collect();
    assert!(built[0].1.is_ok() && built[3].1.is_ok());
    let tree = built[1].1.as_ref().unwrap_err();
    assert!(
        tree.starts_with("tree: /$defs/N/properties/next/$ref: N refers to itself"),
        "{tree}"
    );
    let tags = built[2].1.as_ref().unwrap_err();
    assert!(
        tags.starts_with(
            "tags: /properties/t/additionalProperties: Gemini parameters needs every object closed"
        ),
        "{tags}"
    );
}

// --- OpenAI strict ------------------------------------------------------------------------------

#[test]
fn openai_strict_requires_every_property_and_makes_optional_ones_nullable() {
    let s = object(
        json!({
            "a": {"type": "string"},
            "b": {"type": "integer", "default": 2, "description": "Guests"},
            "c": {"type": "string", "enum": ["x", "y"]},
            "d": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "e": {"type": "string", "minLength": 1, "maxLength": 40},
            "f": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1}
        }),
        json!(["a"]),
    );
    assert_eq!(
        out(&s, Dialect::OpenAiStrict),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": ["integer", "null"], "description": "Guests. Default: 2."},
                "c": {"anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]},
                "d": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "e": {"type": ["string", "null"], "description": "From 1 to 40 characters."},
                "f": {"anyOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1}, {"type": "null"}], "description": "No item twice."}
            },
            "required": ["a", "b", "c", "d", "e", "f"],
            "additionalProperties": false
        })
    );
}

#[test]
fn openai_strict_refuses_what_it_cannot_express() {
    let s = object(
        json!({
            "a": {"allOf": [{"type": "string"}, {"type": "integer"}]},
            "b": {"type": "string", "not": {"const": "x"}},
            "c": {"type": "array", "prefixItems": [{"type": "string"}]}
        }),
        json!([]),
    );
    let e = refused(&s, Dialect::OpenAiStrict);
    assert_eq!(e.keywords(), ["allOf", "not", "prefixItems"]);
    assert_eq!(
        e.0[1].message,
        messages::keyword_refused("OpenAI strict mode", "not")
    );
    assert_eq!(e.0[1].path, "/properties/b/not");
}

#[test]
fn openai_strict_limits_nesting_and_enum_size() {
    let mut v = json!({"type": "string"});
    for _ in 0..10 {
        v = json!({"type": "object", "properties": {"x": v}, "required": ["x"]});
    }
    let deep = object(json!({"x": v}), json!(["x"]));
    assert_eq!(
        refused(&deep, Dialect::OpenAiStrict).keywords(),
        ["properties"]
    );
    assert!(for_dialect(&deep, Dialect::OpenAi).is_ok());

    let values: Vec<Value> = (0..1001).map(|i| json!(format!("v{i}"))).collect();
    let big = object(
        json!({"e": {"type": "string", "enum": values}}),
        json!(["e"]),
    );
    let e = refused(&big, Dialect::OpenAiStrict);
    assert_eq!(e.keywords(), ["enum"]);
    assert_eq!(
        e.0[0].message,
        messages::enum_too_large("OpenAI strict mode", 1000, 1001)
    );
}

#[test]
fn strict_nulls_go_back_to_absent() {
    let n = normalise(&object(
        json!({"day": {"type": "string"}, "note": {"type": "string"},
               "clear": {"type": ["string", "null"]},
               "contact": {"type": "object", "properties": {"phone": {"type": "string"}}}}),
        json!(["day", "clear"]),
    ))
    .unwrap();
    let mut args =
        json!({"day": "2026-10-16", "note": null, "clear": null, "contact": {"phone": null}});
    drop_strict_nulls(&n, &mut args);
    assert_eq!(
        args,
        json!({"day": "2026-10-16", "clear": null, "contact": {}})
    );
}

// --- Anthropic strict -----------------------------------------------------------------------------

#[test]
fn anthropic_strict_closes_objects_and_words_its_unsupported_bounds() {
    let s = object(
        json!({
            "n": {"type": "integer", "minimum": 1, "maximum": 12, "description": "Guests."},
            "k": {"const": "fixed"},
            "l": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "m": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 5},
            "o": {"type": "object", "properties": {"x": {"type": "string"}}},
            "p": {"oneOf": [{"type": "string"}, {"type": "number", "exclusiveMinimum": 0}]}
        }),
        json!(["n"]),
    );
    assert_eq!(
        out(&s, Dialect::AnthropicStrict),
        json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "description": "Guests. From 1 to 12."},
                "k": {"enum": ["fixed"]},
                "l": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "m": {"type": "array", "items": {"type": "string"}, "description": "From 2 to 5 items."},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false},
                "p": {"anyOf": [{"type": "string"}, {"type": "number", "description": "Greater than 0."}]}
            },
            "required": ["n"],
            "additionalProperties": false
        })
    );
}

#[test]
fn anthropic_strict_refuses_enums_of_objects() {
    let s = object(json!({"e": {"enum": [{"a": 1}, "b"]}}), json!(["e"]));
    assert_eq!(refused(&s, Dialect::AnthropicStrict).keywords(), ["enum"]);
    assert!(for_dialect(&s, Dialect::Anthropic).is_ok());
}

// --- Gemini parameters ----------------------------------------------------------------------------

#[test]
fn gemini_parameters_speaks_the_openapi_subset() {
    let s = json!({
        "type": "object",
        "title": "Lookup",
        "additionalProperties": false,
        "x-hark-internal": true,
        "properties": {
            "clear": {"type": ["string", "null"], "description": "Null clears the note."},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "kind": {"const": "order"},
            "count": {"const": 3},
            "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "maximum": 100},
            "tags": {"type": "array", "items": {"type": "string", "title": "Tag"}, "uniqueItems": true, "maxItems": 3},
            "who": {"anyOf": [{"type": "object", "properties": {"n": {"type": "string"}}, "additionalProperties": false}, {"type": "null"}], "description": "Who."},
            "size": {"enum": ["s", "m", null]},
            "either": {"type": ["string", "integer"]},
            "ex": {"type": "string", "examples": ["a", "b"], "default": "a"}
        },
        "required": ["clear", "level", "kind", "count", "price", "tags", "who", "size", "either", "ex"]
    });
    assert_eq!(
        out(&s, Dialect::GeminiParameters),
        json!({
            "type": "object",
            "description": "Lookup",
            "properties": {
                "clear": {"type": "string", "description": "Null clears the note.", "nullable": true},
                "level": {"type": "integer", "description": "One of 1, 2, 3."},
                "kind": {"enum": ["order"], "type": "string"},
                "count": {"type": "integer", "description": "Always 3."},
                "price": {"type": "number", "maximum": 100, "description": "Greater than 0. A multiple of 0.5."},
                "tags": {"type": "array", "items": {"type": "string", "description": "Tag"}, "maxItems": 3, "description": "No item twice."},
                "who": {"description": "Who.", "type": "object", "properties": {"n": {"type": "string"}}, "nullable": true},
                "size": {"enum": ["s", "m"], "type": "string", "nullable": true},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "ex": {"type": "string", "default": "a", "description": "For example: \"a\", \"b\"."}
            },
            "required": ["clear", "level", "kind", "count", "price", "tags", "who", "size", "either", "ex"]
        })
    );
}

#[test]
fn gemini_parameters_refuses_allof_not_and_tuples() {
    let s = object(
        json!({
            "a": {"allOf": [{"type": "string"}, {"type": "integer"}]},
            "b": {"type": "string", "if": {"const": "x"}, "then": {"minLength": 2}},
            "c": {"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "string"}}}
        }),
        json!([]),
    );
    assert_eq!(
        refused(&s, Dialect::GeminiParameters).keywords(),
        ["allOf", "if", "then", "patternProperties"]
    );
}

// --- Lenient dialects ------------------------------------------------------------------------------

#[test]
fn lenient_dialects_keep_the_normalised_schema_but_drop_x_keys() {
    let s = json!({"type": "object", "x-hark": 1, "properties": {"a": {"type": "string", "minLength": 2, "x-note": "n"}}});
    for d in LENIENT {
        assert_eq!(
            out(&s, d),
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}})
        );
    }
}

#[test]
fn a_tool_without_arguments_is_recognised_for_gemini() {
    use hark_schema::takes_no_arguments;
    for s in [
        json!({}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "object", "additionalProperties": false}),
    ] {
        let n = normalise(&s).unwrap();
        assert!(takes_no_arguments(&n), "{s}");
        assert!(
            takes_no_arguments(&out(&s, Dialect::GeminiParameters)),
            "{s}"
        );
    }
    assert!(!takes_no_arguments(
        &json!({"type": "object", "properties": {"a": {"type": "string"}}})
    ));
    assert!(!takes_no_arguments(
        &json!({"type": "object", "additionalProperties": true})
    ));
}

#[test]
fn unevaluated_properties_false_closes_an_object_like_additional_properties() {
    let s = object(
        json!({"o": {"type": "object", "properties": {"x": {"type": "string"}}, "unevaluatedProperties": false}}),
        json!(["o"]),
    );
    for d in [Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
        let o = &out(&s, d)["properties"]["o"];
        assert_eq!(o["additionalProperties"], json!(false), "{d:?}");
        assert!(o.get("unevaluatedProperties").is_none());
    }
    assert!(
        out(&s, Dialect::GeminiParameters)["properties"]["o"]
            .get("unevaluatedProperties")
            .is_none()
    );
    let open = object(
        json!({"o": {"type": "object", "unevaluatedProperties": true}}),
        json!([]),
    );
    assert_eq!(
        refused(&open, Dialect::AnthropicStrict).keywords(),
        ["unevaluatedProperties"]
    );
}
