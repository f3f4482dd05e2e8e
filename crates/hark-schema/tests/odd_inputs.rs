//! Never a panic on arbitrary JSON: odd roots, odd keyword values, deep nesting and `$ref`
//! fan-out each give a clear error. (The fuzz target in `fuzz/` covers the rest.)

#![allow(missing_docs)]

use hark_schema::{
    Dialect, MAX_DEPTH, MAX_SCHEMAS, drop_strict_nulls, for_dialect, messages, normalise,
};
use serde_json::{Value, json};

fn all_paths(schema: &Value) {
    let n = normalise(schema);
    for d in Dialect::ALL {
        let _ = for_dialect(schema, d);
    }
    if let Ok(n) = n {
        let mut args = schema.clone();
        drop_strict_nulls(&n, &mut args);
    }
}

#[test]
fn non_object_roots_are_refused_as_a_whole() {
    for v in [
        json!(true),
        json!(false),
        json!(null),
        json!(1),
        json!("s"),
        json!([]),
        json!([{"type": "object"}]),
    ] {
        let e = normalise(&v).expect_err("refused");
        assert_eq!(e.keywords(), ["type"], "{v}");
        assert_eq!(e.0[0].path, "");
        assert_eq!(e.0[0].message, messages::root_not_object(&v));
        all_paths(&v);
    }
    assert_eq!(
        messages::root_not_object(&json!(true)),
        "The parameters must be a JSON Schema object with \"type\": \"object\", not true."
    );
}

#[test]
fn odd_keyword_values_are_refused_by_name() {
    let cases = [
        (json!({"properties": 5}), "properties"),
        (json!({"properties": {"a": 5}}), "properties"),
        (json!({"required": "a"}), "required"),
        (json!({"properties": {"a": {"items": 3}}}), "items"),
        (json!({"properties": {"a": {"anyOf": []}}}), "anyOf"),
        (json!({"properties": {"a": {"type": "text"}}}), "type"),
        (json!({"properties": {"a": {"type": []}}}), "type"),
        (json!({"properties": {"a": {"enum": []}}}), "enum"),
        (json!({"properties": {"a": {"$ref": "#anchor"}}}), "$ref"),
        (
            json!({"properties": {"a": {"$dynamicRef": "#x"}}}),
            "$dynamicRef",
        ),
        (json!({"properties": {"a": {"not": "x"}}}), "not"),
        (json!({"$defs": []}), "$defs"),
    ];
    for (schema, keyword) in cases {
        let e = normalise(&schema).expect_err(&schema.to_string());
        assert_eq!(e.keywords(), [keyword], "{schema}");
        all_paths(&schema);
    }
}

#[test]
fn boolean_and_empty_subschemas_pass_normalise() {
    let s = json!({"properties": {"any": true, "none": false, "empty": {}}});
    let n = normalise(&s).unwrap();
    assert_eq!(
        n["properties"],
        json!({"any": true, "none": false, "empty": {}})
    );
    all_paths(&s);
}

fn nested(levels: usize) -> Value {
    // Built by moving, not with json!(), which copies its inner value at every level.
    let mut v = json!({"type": "string"});
    for _ in 0..levels {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!("array"));
        m.insert("items".into(), v);
        v = Value::Object(m);
    }
    let mut props = serde_json::Map::new();
    props.insert("deep".into(), v);
    let mut root = serde_json::Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(props));
    Value::Object(root)
}

#[test]
fn huge_nesting_is_refused_with_the_depth_limit() {
    assert!(normalise(&nested(40)).is_ok());
    for levels in [MAX_DEPTH, 1_000, 100_000] {
        let s = nested(levels);
        let e = normalise(&s).expect_err("too deep");
        assert_eq!(e.keywords(), ["depth"]);
        assert_eq!(e.0[0].message, messages::too_deep(MAX_DEPTH));
        all_paths(&s);
        if levels > 1_000 {
            // serde_json drops a Value recursively; a value this deep would overflow the test
            // thread's stack in its own destructor, after this crate is done with it.
            std::mem::forget(s);
        }
    }
}

#[test]
fn refs_that_inline_too_deep_are_refused() {
    // Shallow as written, 200 levels once inlined.
    let mut defs = serde_json::Map::new();
    for i in 0..200 {
        let next = if i == 199 {
            json!({"type": "string"})
        } else {
            json!({"$ref": format!("#/$defs/D{}", i + 1)})
        };
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"x": next}}),
        );
    }
    let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    let e = normalise(&s).expect_err("too deep");
    assert_eq!(e.keywords(), ["depth"]);
}

#[test]
fn refs_that_fan_out_are_refused_quickly() {
    // 2^30 schemas once inlined: refused after MAX_SCHEMAS.
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = if i == 29 {
            json!({"type": "string"})
        } else {
            json!({"$ref": format!("#/$defs/D{}", i + 1)})
        };
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"l": next.clone(), "r": next}}),
        );
    }
    let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    let e = normalise(&s).expect_err("too big");
    assert_eq!(e.keywords(), ["$ref"]);
    assert_eq!(e.0[0].message, messages::too_big(MAX_SCHEMAS));
}

#[test]
fn drop_strict_nulls_ignores_arguments_of_another_shape() {
    let n = normalise(
        &json!({"properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}),
    )
    .unwrap();
    for mut args in [
        json!(null),
        json!([1, 2]),
        json!({"a": 5}),
        json!({"a": [null]}),
        json!("x"),
    ] {
        let before = args.clone();
        drop_strict_nulls(&n, &mut args);
        assert_eq!(args, before);
    }
}
