//! Which JSON Schema keywords hold subschemas, and small helpers over schema objects.

use serde_json::{Map, Value};

/// Keywords whose value is an object of named subschemas.
pub(crate) const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];

/// Keywords whose value is one subschema.
pub(crate) const SCHEMA_SINGLE: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];

/// Keywords whose value is a list of subschemas.
pub(crate) const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Annotations: keywords that say something about a value without restricting it. When two
/// schemas are merged, the outer one's annotation wins.
pub(crate) fn is_annotation(k: &str) -> bool {
    matches!(
        k,
        "description"
            | "title"
            | "default"
            | "examples"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
    ) || k.starts_with("x-")
}

/// The kind of a keyword, for walking subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An object of named subschemas.
    Map,
    /// One subschema.
    Single,
    /// A list of subschemas.
    List,
    /// `items`: one subschema, or (draft 7) a list of them.
    Items,
    /// Anything else: plain data.
    Data,
}

pub(crate) fn kind(k: &str) -> Kind {
    if k == "items" {
        Kind::Items
    } else if SCHEMA_MAPS.contains(&k) {
        Kind::Map
    } else if SCHEMA_SINGLE.contains(&k) {
        Kind::Single
    } else if SCHEMA_LISTS.contains(&k) {
        Kind::List
    } else {
        Kind::Data
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub(crate) fn esc(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `path` + `/` + escaped `segment`.
pub(crate) fn join(path: &str, segment: &str) -> String {
    format!("{path}/{}", esc(segment))
}

/// The JSON type names in `type`, if it is a string or a list of strings.
pub(crate) fn types(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The JSON type name of a value, `integer` for whole numbers.
pub(crate) fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// True when a schema accepts only `null`: `{"type": "null"}`, `{"const": null}`,
/// `{"enum": [null]}` (annotations aside).
pub(crate) fn is_null_only(v: &Value) -> bool {
    let Value::Object(m) = v else { return false };
    let mut saw = false;
    for (k, val) in m {
        if is_annotation(k) {
            continue;
        }
        let ok = match k.as_str() {
            "type" => {
                val == "null"
                    || val
                        .as_array()
                        .is_some_and(|a| a.len() == 1 && a[0] == "null")
            }
            "const" => val.is_null(),
            "enum" => val
                .as_array()
                .is_some_and(|a| a.len() == 1 && a[0].is_null()),
            _ => false,
        };
        if !ok {
            return false;
        }
        saw = true;
    }
    saw
}

/// True when a schema accepts `null` among other values (type list, enum, or anyOf/oneOf
/// branch), as written, without resolving anything.
pub(crate) fn allows_null(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Object(m) => {
            if m.is_empty() || is_null_only(v) {
                return true;
            }
            if let Some(t) = m.get("type") {
                let has =
                    t == "null" || t.as_array().is_some_and(|a| a.iter().any(|x| x == "null"));
                if !has {
                    return false;
                }
            }
            if let Some(Value::Array(e)) = m.get("enum") {
                return e.iter().any(Value::is_null);
            }
            if let Some(c) = m.get("const") {
                return c.is_null();
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(b)) = m.get(key) {
                    return b.iter().any(allows_null);
                }
            }
            m.contains_key("type")
        }
        _ => false,
    }
}

/// True when any container in `v` nests more than `limit` levels deep.
pub(crate) fn too_deep(v: &Value, limit: usize) -> bool {
    match v {
        Value::Array(a) => limit == 0 || a.iter().any(|x| too_deep(x, limit - 1)),
        Value::Object(m) => limit == 0 || m.values().any(|x| too_deep(x, limit - 1)),
        _ => false,
    }
}
