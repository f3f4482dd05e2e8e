//! Walking JSON Schemas by field names: what a path holds, its types, and the values a Literal,
//! bool or enum field can hold. Used by the build-time checks of locked values, assign rows,
//! reply rows and prechecks.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::output::resolve;

/// The non-null branches of a schema's `anyOf`/`oneOf` (resolved), or the schema itself.
fn branches<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    let schema = resolve(schema, root);
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            return list
                .iter()
                .map(|b| resolve(b, root))
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .flat_map(|b| branches(b, root))
                .collect();
        }
    }
    vec![schema]
}

/// The schema of the field at `path` (field names, outermost first) under `schema`; `path = []`
/// is the schema itself. `None` when a name is not a property.
pub(crate) fn field_at<'a>(
    schema: &'a Value,
    root: &'a Value,
    path: &[String],
) -> Option<&'a Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(resolve(schema, root));
    };
    branches(schema, root).into_iter().find_map(|b| {
        let sub = b.get("properties")?.get(first)?;
        field_at(sub, root, rest)
    })
}

/// The `format` of the value at `path` (field names and list indexes, outermost first) under
/// `schema`: its own, or the one its non-null `anyOf`/`oneOf` branches give. `None` when the
/// path leads nowhere or the value has no format.
pub(crate) fn format_at<'a>(
    schema: &'a Value,
    root: &'a Value,
    path: &[String],
) -> Option<&'a str> {
    let own = resolve(schema, root);
    let Some((first, rest)) = path.split_first() else {
        if let Some(format) = own.get("format").and_then(Value::as_str) {
            return Some(format);
        }
        return branches(schema, root)
            .into_iter()
            .find_map(|b| b.get("format").and_then(Value::as_str));
    };
    branches(schema, root).into_iter().find_map(|b| {
        let sub = b
            .get("properties")
            .and_then(|p| p.get(first))
            .or_else(|| {
                first
                    .parse::<usize>()
                    .ok()
                    .and_then(|_| b.get("items").filter(|i| i.is_object()))
            })
            .or_else(|| b.get("additionalProperties").filter(|a| a.is_object()))?;
        format_at(sub, root, rest)
    })
}

/// The property names of an object schema (following `$ref` and non-null branches).
pub(crate) fn property_names(schema: &Value, root: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for b in branches(schema, root) {
        if let Some(props) = b.get("properties").and_then(Value::as_object) {
            for k in props.keys() {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
        }
    }
    names
}

/// The JSON types a schema allows, without `null`; `integer` implies nothing more. Empty when the
/// schema does not say (then anything fits).
pub(crate) fn types(schema: &Value, root: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for b in branches(schema, root) {
        match b.get("type") {
            Some(Value::String(t)) => {
                out.insert(t.clone());
            }
            Some(Value::Array(ts)) => {
                out.extend(ts.iter().filter_map(Value::as_str).map(String::from))
            }
            _ => {
                let values: Vec<&Value> = match (b.get("enum"), b.get("const")) {
                    (Some(Value::Array(vs)), _) => vs.iter().collect(),
                    (_, Some(c)) => vec![c],
                    _ => {
                        if b.get("properties").is_some() {
                            out.insert("object".into());
                        } else if b.get("items").is_some() {
                            out.insert("array".into());
                        } else {
                            return BTreeSet::new();
                        }
                        continue;
                    }
                };
                for v in values {
                    out.insert(json_type(v).into());
                }
            }
        }
    }
    out.remove("null");
    out
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// True when a value of types `from` always fits types `to` (empty = any; an integer fits a
/// number).
pub(crate) fn fits(from: &BTreeSet<String>, to: &BTreeSet<String>) -> bool {
    if to.is_empty() || from.is_empty() {
        return true;
    }
    from.iter()
        .all(|t| to.contains(t) || (t == "integer" && to.contains("number")))
}

/// Types written for a message: `string`, `string or integer`, `any type`.
pub(crate) fn describe(types: &BTreeSet<String>) -> String {
    if types.is_empty() {
        "any type".into()
    } else {
        types.iter().cloned().collect::<Vec<_>>().join(" or ")
    }
}

/// The values a Literal, bool or enum field can hold (`null` included when it is optional);
/// `None` for any other field.
pub(crate) fn held_values(schema: &Value, root: &Value) -> Option<Vec<Value>> {
    let schema = resolve(schema, root);
    let mut out = Vec::new();
    let push = |v: &Value, out: &mut Vec<Value>| {
        if !out.contains(v) {
            out.push(v.clone());
        }
    };
    if let Some(Value::Array(vs)) = schema.get("enum") {
        vs.iter().for_each(|v| push(v, &mut out));
        return Some(out);
    }
    if let Some(c) = schema.get("const") {
        push(c, &mut out);
        return Some(out);
    }
    let ty = schema.get("type");
    let is = |name: &str| match ty {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == name),
        _ => false,
    };
    if is("boolean") {
        push(&Value::Bool(true), &mut out);
        push(&Value::Bool(false), &mut out);
        if is("null") {
            push(&Value::Null, &mut out);
        }
        return Some(out);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            for b in list {
                let b = resolve(b, root);
                if b.get("type").and_then(Value::as_str) == Some("null") {
                    push(&Value::Null, &mut out);
                } else {
                    out.extend(held_values(b, root)?);
                }
            }
            return Some(out);
        }
    }
    None
}

/// The `description` of a schema (following `$ref`; the property's own description first).
pub(crate) fn description<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a str> {
    schema
        .get("description")
        .or_else(|| resolve(schema, root).get("description"))
        .and_then(Value::as_str)
}

/// Walks a JSON value by field names.
pub(crate) fn value_at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, name| v.get(name))
}
