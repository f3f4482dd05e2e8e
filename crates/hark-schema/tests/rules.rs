//! The schema the model reads (a null default dropped, `format` and `pattern` in words, local
//! `$ref`s inlined) and the rules for a hand-written schema (`definitions`/`$id`, `nullable`, the
//! root), each with its text.

#![allow(missing_docs)]

use hark_schema::{SchemaErrors, messages, normalise};
use serde_json::{Value, json};

fn object(props: Value, required: Value) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

fn prop(schema: &Value, name: &str) -> Value {
    normalise(schema).unwrap()["properties"][name].clone()
}

fn errors(schema: Value) -> SchemaErrors {
    normalise(&schema).expect_err("refused")
}

// --- The schema the model reads: a null default -------------------------------------------------

#[test]
fn optional_with_null_default_loses_null_branch_and_default() {
    // Pydantic's `x: str | None = None`.
    let s = object(
        json!({"x": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "A note."}}),
        json!([]),
    );
    assert_eq!(
        prop(&s, "x"),
        json!({"description": "A note.", "type": "string"})
    );
}

#[test]
fn schemars_option_without_default_counts_as_null_default() {
    let s = object(
        json!({"x": {"type": ["string", "null"]}, "y": {"type": ["array", "null"], "items": {"type": "string"}}}),
        json!([]),
    );
    assert_eq!(prop(&s, "x"), json!({"type": "string"}));
    assert_eq!(
        prop(&s, "y"),
        json!({"type": "array", "items": {"type": "string"}})
    );
    let with_default = object(
        json!({"x": {"type": ["integer", "null"], "default": null}}),
        json!([]),
    );
    assert_eq!(prop(&with_default, "x"), json!({"type": "integer"}));
}

#[test]
fn null_in_enum_and_const_branches_goes_too() {
    let s = object(
        json!({
            "e": {"enum": ["a", "b", null]},
            "c": {"oneOf": [{"const": "a"}, {"const": null}]}
        }),
        json!([]),
    );
    assert_eq!(prop(&s, "e"), json!({"enum": ["a", "b"]}));
    assert_eq!(prop(&s, "c"), json!({"const": "a"}));
}

#[test]
fn a_value_without_that_default_keeps_null() {
    // Required: null means something ("clear this value").
    let required = object(json!({"x": {"type": ["string", "null"]}}), json!(["x"]));
    assert_eq!(prop(&required, "x"), json!({"type": ["string", "null"]}));
    // Another default: leaving it out gives "a", null gives null.
    let other_default = object(
        json!({"x": {"type": ["string", "null"], "default": "a"}}),
        json!([]),
    );
    assert_eq!(
        prop(&other_default, "x"),
        json!({"type": ["string", "null"], "default": "a"})
    );
}

#[test]
fn nested_objects_and_list_items_follow_the_rule_too() {
    let s = object(
        json!({"rows": {"type": "array", "items": {"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"type": ["string", "null"]}}, "required": ["b"]}}}),
        json!(["rows"]),
    );
    assert_eq!(
        prop(&s, "rows")["items"]["properties"],
        json!({"a": {"type": "string"}, "b": {"type": ["string", "null"]}})
    );
}

// --- Format and pattern become words -------------------------------------------------------------

#[test]
fn format_and_pattern_become_words_in_the_description() {
    let s = object(
        json!({
            "day": {"type": "string", "format": "date", "description": "The day the caller wants."},
            "code": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "The code"},
            "when": {"type": "string", "format": "date-time"},
            "ref": {"type": "string", "format": "spelled"},
            "x": {"type": "string", "format": "made-up"}
        }),
        json!([]),
    );
    let n = normalise(&s).unwrap();
    let d = |k: &str| {
        n["properties"][k]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        d("day"),
        "The day the caller wants. A date written YYYY-MM-DD."
    );
    assert_eq!(
        d("code"),
        "The code. It matches the regular expression ^[A-Z]{2}$."
    );
    assert_eq!(
        d("when"),
        "A date and time written YYYY-MM-DDTHH:MM:SS with its UTC offset, like 2026-10-16T09:30:00+02:00."
    );
    assert_eq!(
        d("ref"),
        "Write it exactly as the caller spells it, letter by letter."
    );
    assert_eq!(d("x"), "Written in the made-up format.");
    for k in ["day", "code", "when", "ref", "x"] {
        assert!(
            n["properties"][k].get("format").is_none()
                && n["properties"][k].get("pattern").is_none()
        );
    }
}

#[test]
fn schemars_number_formats_are_dropped_without_words() {
    for f in [
        "uint8", "uint16", "uint32", "uint64", "uint", "int8", "int32", "int64", "float", "double",
    ] {
        let s = object(
            json!({"n": {"type": "integer", "format": f, "minimum": 0}}),
            json!(["n"]),
        );
        assert_eq!(
            prop(&s, "n"),
            json!({"type": "integer", "minimum": 0}),
            "{f}"
        );
    }
}

// --- Local $refs are inlined ---------------------------------------------------------------------

#[test]
fn local_refs_are_inlined_and_defs_dropped() {
    let s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Area", "description": "Seating area."},
            "b": {"$ref": "#/$defs/Outer"}
        },
        "required": ["a", "b"],
        "$defs": {
            "Area": {"type": "string", "enum": ["in", "out"], "description": "Where to sit."},
            "Outer": {"type": "object", "properties": {"inner": {"$ref": "#/$defs/Area"}}, "required": ["inner"]}
        }
    });
    assert_eq!(
        normalise(&s).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "enum": ["in", "out"], "description": "Seating area."},
                "b": {"type": "object", "properties": {"inner": {"type": "string", "enum": ["in", "out"], "description": "Where to sit."}}, "required": ["inner"]}
            },
            "required": ["a", "b"]
        })
    );
}

#[test]
fn escaped_ref_names_resolve() {
    let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a~1b%20c"}}, "$defs": {"a/b c": {"type": "boolean"}}});
    assert_eq!(prop(&s, "a"), json!({"type": "boolean"}));
}

#[test]
fn a_recursive_type_is_refused_naming_the_definition() {
    let s = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
    let e = errors(s);
    assert_eq!(e.keywords(), ["$ref"]);
    assert_eq!(e.0[0].path, "/$defs/Node/properties/next/$ref");
    assert_eq!(
        e.0[0].message,
        messages::ref_cycle("Node", &["Node".into(), "Node".into()])
    );
    assert!(
        e.0[0]
            .message
            .starts_with("Node refers to itself (Node → Node)")
    );

    let mutual = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                  "B": {"type": "array", "items": {"$ref": "#/$defs/A"}}}});
    let e = errors(mutual);
    assert!(
        e.0[0].message.starts_with("A refers to itself (A → B → A)"),
        "{e}"
    );
}

#[test]
fn refs_that_are_not_local_or_point_nowhere_are_refused() {
    let e = errors(object(
        json!({"a": {"$ref": "https://example.com/s.json"}, "b": {"$ref": "#/$defs/Missing"}, "c": {"$ref": 5}}),
        json!([]),
    ));
    assert_eq!(e.keywords(), ["$ref", "$ref", "$ref"]);
    assert_eq!(
        e.0[0].message,
        messages::ref_not_local("https://example.com/s.json")
    );
    assert_eq!(e.0[1].message, messages::ref_missing("#/$defs/Missing"));
    assert_eq!(e.0[1].path, "/properties/b/$ref");
}

// --- Rules for a hand-written schema ---------------------------------------------------------------

#[test]
fn definitions_and_id_are_refused() {
    let e = errors(
        json!({"type": "object", "$id": "urn:x", "properties": {"a": {"$ref": "#/definitions/A"}},
        "definitions": {"A": {"type": "string"}}}),
    );
    assert_eq!(e.keywords(), ["$id", "$ref", "definitions"]);
    for err in &e.0 {
        assert_eq!(
            err.message,
            "definitions and $id are refused. Use $defs and local #/$defs/... references."
        );
    }
    // A property may be called "definitions": only the keyword is refused.
    assert!(
        normalise(&object(
            json!({"definitions": {"type": "string"}}),
            json!([])
        ))
        .is_ok()
    );
}

#[test]
fn nullable_is_refused_with_the_type_list_to_write() {
    let e = errors(object(
        json!({"a": {"type": "string", "nullable": true}, "b": {"nullable": true}}),
        json!([]),
    ));
    assert_eq!(e.keywords(), ["nullable", "nullable"]);
    assert_eq!(e.0[0].path, "/properties/a/nullable");
    assert_eq!(
        e.0[0].message,
        "nullable is not JSON Schema, so it is refused. Write \"type\": [\"string\", \"null\"] instead."
    );
    assert_eq!(
        e.0[1].message,
        "nullable is not JSON Schema, so it is refused. Write \"type\": [\"<type>\", \"null\"] instead."
    );
}

#[test]
fn the_root_holds_only_the_listed_keywords() {
    let ok = json!({"$schema": "x", "$defs": {}, "type": "object", "properties": {}, "required": [],
        "additionalProperties": false, "description": "d", "title": "t", "$comment": "c", "x-hark": 1});
    assert!(normalise(&ok).is_ok());
    for k in [
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "if",
    ] {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let v = match k {
            "oneOf" | "anyOf" | "allOf" => json!([{"required": ["a"]}]),
            "minProperties" | "maxProperties" => json!(1),
            "patternProperties" => json!({"^x": {"type": "string"}}),
            _ => json!({"required": ["a"]}),
        };
        s[k] = v;
        let e = errors(s);
        assert_eq!(e.keywords(), [k]);
        assert_eq!(e.0[0].path, format!("/{k}"));
        assert_eq!(e.0[0].message, messages::root_keyword_refused(k));
    }
}

#[test]
fn an_empty_root_key_is_named_as_quotes() {
    let e = errors(json!({"type": "object", "": 1}));
    assert_eq!(e.keywords(), [""]);
    assert_eq!(e.0[0].path, "/");
    assert!(
        e.0[0]
            .message
            .starts_with("\"\" is not allowed at the root."),
        "{e}"
    );
}

#[test]
fn the_root_type_must_be_object() {
    let e = errors(json!({"type": "string"}));
    assert_eq!(e.keywords(), ["type"]);
    assert_eq!(
        e.0[0].message,
        "The root of the parameters is a plain object schema, so its type must be \"object\", not \"string\". Wrap the value in one property."
    );
}

#[test]
fn all_problems_come_at_once_and_display_joins_them() {
    let e = errors(
        json!({"type": "object", "oneOf": [{}], "properties": {"a": {"type": "string", "nullable": true}}, "definitions": {}}),
    );
    assert_eq!(e.keywords(), ["oneOf", "nullable", "definitions"]);
    let text = e.to_string();
    assert_eq!(
        text,
        format!(
            "/oneOf: {}; /properties/a/nullable: {}; /definitions: {}",
            messages::root_keyword_refused("oneOf"),
            messages::nullable_refused(Some("string")),
            messages::definitions_refused()
        )
    );
}

#[test]
fn documented_enum_variants_become_an_enum_with_words() {
    let s = object(
        json!({"c": {"description": "How to confirm.", "oneOf": [
        {"type": "string", "const": "sms", "description": "A text message."},
        {"type": "string", "const": "call"}]}}),
        json!(["c"]),
    );
    assert_eq!(
        prop(&s, "c"),
        json!({"description": "How to confirm. \"sms\": A text message.", "type": "string", "enum": ["sms", "call"]})
    );
}

#[test]
fn allof_parts_merge_when_they_do_not_conflict() {
    let s = object(
        json!({"a": {"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        {"properties": {"y": {"type": "integer"}}, "required": ["y"]}], "description": "Both."}}),
        json!(["a"]),
    );
    assert_eq!(
        prop(&s, "a"),
        json!({"description": "Both.", "type": "object",
        "properties": {"x": {"type": "string"}, "y": {"type": "integer"}}, "required": ["x", "y"]})
    );
    // Conflicting parts stay an allOf.
    let c = object(
        json!({"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}),
        json!(["a"]),
    );
    assert_eq!(
        prop(&c, "a"),
        json!({"allOf": [{"type": "string"}, {"type": "integer"}]})
    );
}

#[test]
fn normalising_twice_changes_nothing() {
    let s = json!({"type": "object", "properties": {
        "a": {"$ref": "#/$defs/A", "description": "x"},
        "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]},
        "c": {"oneOf": [{"const": "x", "description": "X"}, {"const": "y"}]}},
        "required": ["a"],
        "$defs": {"A": {"type": "string", "format": "date", "pattern": "^\\d+$"},
                  "B": {"type": "object", "properties": {"n": {"type": ["integer", "null"], "format": "int32"}}}}});
    let once = normalise(&s).unwrap();
    assert_eq!(normalise(&once).unwrap(), once);
}

#[test]
fn an_empty_schema_is_a_tool_without_arguments() {
    assert_eq!(
        normalise(&json!({})).unwrap(),
        json!({"type": "object", "properties": {}})
    );
}
