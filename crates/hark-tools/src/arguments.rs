//! The argument checks that come before the schema check, at every level of the arguments:
//! keys the schema does not name ("Arguments the schema does not name") and required values left
//! out or blank ("A required argument left out or empty"), nested ones with a dotted path
//! (`contact.bogus`, `contact.name`).
//!
//! Compiled once per tool from its parameters schema into a graph of nodes (one per distinct
//! schema after `$ref`, so a recursive schema is a cycle); a call walks that graph, never the
//! schema.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::output::resolve;

/// How deep the walk goes into the arguments: deeper parts are left to the schema check.
const MAX_DEPTH: usize = 64;

/// What the checks found in one call's arguments.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Findings {
    /// Keys the schema does not name: (the dotted path of their object, `""` at the root; the
    /// dotted path of the key), in the order the arguments hold them.
    pub unknown: Vec<(String, String)>,
    /// Dotted paths of required values absent, blank or `null` where `null` is not a value: the
    /// root's first in schema order, then each nested object's.
    pub missing: Vec<String>,
}

/// One object schema: its declared properties, its required ones, and whether other keys stay.
#[derive(Debug, Clone)]
struct ObjectNode {
    /// Declared properties, with the node of each.
    properties: HashMap<String, usize>,
    /// Required properties in schema order, with whether `null` is a value for them.
    required: Vec<(String, bool)>,
    /// Keys the schema does not name are kept (not refused).
    open: bool,
}

#[derive(Debug, Clone)]
enum Node {
    /// Nothing to check here (no object, array or choice the checks understand).
    Any,
    /// An object schema.
    Object(ObjectNode),
    /// An array schema whose `items` is a schema.
    Array(usize),
    /// `anyOf`/`oneOf`: the checks go on in the one branch whose type fits the value; with
    /// several (or none) fitting, they stop and the schema check decides.
    Branches(Vec<(u8, usize)>),
}

/// The compiled checks of one parameters schema.
#[derive(Debug, Clone)]
pub(crate) struct ArgumentShape {
    /// `nodes[0]` is the root.
    nodes: Vec<Node>,
}

/// JSON types as bits (`0` admits every type).
fn type_bits(schema: &Value) -> u8 {
    fn bit(name: &str) -> u8 {
        match name {
            "null" => 1,
            "boolean" => 1 << 1,
            "integer" => 1 << 2,
            "number" => (1 << 3) | (1 << 2),
            "string" => 1 << 4,
            "array" => 1 << 5,
            "object" => 1 << 6,
            _ => 0,
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) => bit(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .fold(0, |b, t| b | bit(t)),
        _ if schema.get("properties").is_some() => bit("object"),
        _ if schema.get("items").is_some() => bit("array"),
        _ => 0,
    }
}

fn value_bit(value: &Value) -> u8 {
    match value {
        Value::Null => 1,
        Value::Bool(_) => 1 << 1,
        Value::Number(n) if n.is_i64() || n.is_u64() => 1 << 2,
        Value::Number(_) => 1 << 3,
        Value::String(_) => 1 << 4,
        Value::Array(_) => 1 << 5,
        Value::Object(_) => 1 << 6,
    }
}

/// True when `null` is a value of the schema (its type, or a branch of its `anyOf`/`oneOf`).
pub(crate) fn allows_null(schema: &Value, root: &Value) -> bool {
    let schema = resolve(schema, root);
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|bs| bs.iter().any(|b| allows_null(b, root)))
        }),
    }
}

/// Whether an object schema keeps keys it does not name. `additionalProperties: true` or a
/// schema keeps them (a map, a `serde_json::Value`, a `#[serde(flatten)]` map), and so do
/// `patternProperties` and `unevaluatedProperties` (other keys may fit them). Otherwise a schema
/// generated from a Rust type is closed: a struct names all its fields, even a struct with none.
/// A hand-written schema without properties stays open ("Arguments the schema does not name",
/// point 2).
pub(crate) fn keeps_other_keys(schema: &Value, typed: bool) -> bool {
    match schema.get("additionalProperties") {
        Some(Value::Bool(keep)) => *keep,
        Some(Value::Object(_)) => true,
        _ if schema.get("patternProperties").is_some()
            || schema.get("unevaluatedProperties").is_some() =>
        {
            true
        }
        _ if typed => false,
        _ => schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty),
    }
}

impl ArgumentShape {
    /// Compiles the checks of `root`, a parameters schema; `typed` when it was generated from a
    /// Rust type (see [`keeps_other_keys`]).
    pub(crate) fn compile(root: &Value, typed: bool) -> Self {
        let mut ids: HashMap<*const Value, usize> = HashMap::new();
        let mut schemas: Vec<&Value> = Vec::new();
        fn intern<'a>(
            schema: &'a Value,
            root: &'a Value,
            ids: &mut HashMap<*const Value, usize>,
            schemas: &mut Vec<&'a Value>,
        ) -> usize {
            let schema = resolve(schema, root);
            let next = schemas.len();
            let id = *ids.entry(std::ptr::from_ref(schema)).or_insert(next);
            if id == next {
                schemas.push(schema);
            }
            id
        }
        intern(root, root, &mut ids, &mut schemas);
        let mut nodes = Vec::new();
        while let Some(&schema) = schemas.get(nodes.len()) {
            let mut branches = None;
            for key in ["anyOf", "oneOf"] {
                if let Some(list) = schema.get(key).and_then(Value::as_array) {
                    branches = Some(
                        list.iter()
                            .map(|b| {
                                let bits = type_bits(resolve(b, root));
                                (bits, intern(b, root, &mut ids, &mut schemas))
                            })
                            .collect(),
                    );
                    break;
                }
            }
            let node = if let Some(branches) = branches {
                Node::Branches(branches)
            } else if schema.get("allOf").is_some() {
                // Several schemas at once: the schema check decides.
                Node::Any
            } else if type_bits(schema) == 1 << 6 {
                let declared = schema.get("properties").and_then(Value::as_object);
                let properties = declared
                    .map(|props| {
                        props
                            .iter()
                            .map(|(name, sub)| {
                                (name.clone(), intern(sub, root, &mut ids, &mut schemas))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let required = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| {
                        names
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|n| {
                                let nullable = declared
                                    .and_then(|p| p.get(n))
                                    .is_some_and(|s| allows_null(s, root));
                                (n.to_string(), nullable)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Node::Object(ObjectNode {
                    properties,
                    required,
                    open: keeps_other_keys(schema, typed),
                })
            } else if let Some(items) = schema.get("items").filter(|s| s.is_object()) {
                Node::Array(intern(items, root, &mut ids, &mut schemas))
            } else {
                Node::Any
            };
            nodes.push(node);
        }
        Self { nodes }
    }

    /// Checks one call's arguments (an object, the root).
    pub(crate) fn check(&self, arguments: &Map<String, Value>) -> Findings {
        let mut findings = Findings::default();
        if let Node::Object(object) = &self.nodes[0] {
            self.check_object(object, arguments, "", 0, &mut findings);
        }
        findings
    }

    fn check_node(
        &self,
        id: usize,
        value: &Value,
        path: &str,
        depth: usize,
        findings: &mut Findings,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match (&self.nodes[id], value) {
            (Node::Object(object), Value::Object(map)) => {
                self.check_object(object, map, path, depth, findings);
            }
            (Node::Array(items), Value::Array(values)) => {
                for (i, item) in values.iter().enumerate() {
                    self.check_node(
                        *items,
                        item,
                        &join(path, &i.to_string()),
                        depth + 1,
                        findings,
                    );
                }
            }
            (Node::Branches(branches), _) => {
                let bit = value_bit(value);
                let mut fitting = branches
                    .iter()
                    .filter(|(bits, _)| *bits == 0 || bits & bit != 0);
                if let (Some((_, branch)), None) = (fitting.next(), fitting.next()) {
                    self.check_node(*branch, value, path, depth + 1, findings);
                }
            }
            _ => {}
        }
    }

    fn check_object(
        &self,
        object: &ObjectNode,
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
        findings: &mut Findings,
    ) {
        for (field, nullable) in &object.required {
            let missing = match map.get(field) {
                None => true,
                Some(Value::Null) => !nullable,
                Some(Value::String(text)) => text.trim().is_empty(),
                Some(_) => false,
            };
            if missing {
                findings.missing.push(join(path, field));
            }
        }
        for (key, value) in map {
            match object.properties.get(key) {
                // A value with nothing to check below it costs no path.
                Some(&node) if matches!(self.nodes[node], Node::Any) => {}
                Some(&node) => self.check_node(node, value, &join(path, key), depth + 1, findings),
                None if !object.open => {
                    findings.unknown.push((path.to_string(), join(path, key)));
                }
                None => {}
            }
        }
    }
}

/// `contact` + `name` → `contact.name`; at the root, `name`.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(schema: &Value, typed: bool, arguments: Value) -> Findings {
        let Value::Object(map) = arguments else {
            panic!("not an object")
        };
        ArgumentShape::compile(schema, typed).check(&map)
    }

    #[test]
    fn a_schema_without_properties_is_open_unless_it_is_a_rust_type() {
        let schema = json!({"type": "object"});
        assert!(check(&schema, false, json!({"x": 1})).unknown.is_empty());
        assert_eq!(
            check(&schema, true, json!({"x": 1})).unknown,
            vec![(String::new(), "x".to_string())]
        );
        for open in [
            json!({"type": "object", "additionalProperties": true}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": {}}}),
        ] {
            assert!(
                check(&open, true, json!({"x": 1})).unknown.is_empty(),
                "{open}"
            );
        }
    }

    #[test]
    fn a_recursive_schema_is_walked_64_levels_deep_and_no_further() {
        let schema = json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                "tag": {"type": "string"}
            }, "required": ["tag"]}},
            "$ref": "#/$defs/Node"
        });
        let mut value = json!({"tag": "t"});
        for _ in 0..100 {
            value = json!({"next": value, "tag": "t"});
        }
        value["next"]["next"]["tag"] = json!("");
        value["next"]["x"] = json!(1);
        let findings = check(&schema, true, value);
        assert_eq!(findings.missing, vec!["next.next.tag".to_string()]);
        assert_eq!(
            findings.unknown,
            vec![("next".to_string(), "next.x".to_string())]
        );
        let looping = json!({"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}]}}, "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}}});
        assert_eq!(
            check(&looping, true, json!({"a": {"b": 1}})),
            Findings::default()
        );
    }
}
