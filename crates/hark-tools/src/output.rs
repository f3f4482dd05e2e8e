//! The output of a tool: what a successful result must look like, and the check that makes it so.
//!
//! Guide: `docs/guide/inputs-and-outputs.md` ("Outputs") and
//! `docs/guide/results-the-model-does-not-read.md` (which results are failures).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use jsonschema::Validator;
use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use crate::schema::schema_of;

/// What a tool's successful result must look like: a name (`"Order"`) and a JSON Schema.
///
/// Built once per tool; the validator is compiled here, not per call.
/// - [`Output::of::<T>()`](Output::of): the schema of a Rust type.
/// - [`Output::json`]: a name and a hand-written schema (the dynamic path).
/// - [`Output::done`]: `{"ok": true}`, the output of a tool that only runs.
/// - [`Output::accepted`]: `{"ok": true, "accepted": true}`, a webhook that does not wait.
#[derive(Clone)]
pub struct Output {
    name: String,
    schema: Arc<Value>,
    validator: Result<Arc<Validator>, String>,
    shape: Arc<Shape>,
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .finish()
    }
}

impl Output {
    /// The output of a Rust type: its name is the type's schema name (`Order`), its schema the
    /// one schemars builds.
    ///
    /// A type that serialises to nothing but `null` (`()`, a unit struct, `Option<()>`) is
    /// [`Output::done`]: the model reads `{"ok": true}`, as for a `#[tool]` function returning
    /// `()`.
    pub fn of<T: JsonSchema>() -> Self {
        let schema = schema_of::<T>();
        if only_null(&schema, &schema) {
            return Self::done();
        }
        Self::json(T::schema_name(), schema)
    }

    /// The name [`Output::of::<T>()`](Output::of) gives its output (`Order`; `Done` for a type
    /// that serialises to nothing but `null`), without building it.
    pub fn name_of<T: JsonSchema>() -> String {
        let schema = schema_of::<T>();
        if only_null(&schema, &schema) {
            "Done".to_string()
        } else {
            T::schema_name().into_owned()
        }
    }

    /// An output named `name` with a hand-written JSON Schema. A schema the validator cannot
    /// compile makes [`ToolSpec::new`](crate::ToolSpec::new) fail with the reason.
    pub fn json(name: impl Into<String>, schema: Value) -> Self {
        let validator = jsonschema::options()
            .build(&schema)
            .map(Arc::new)
            .map_err(|error| format!("the output schema is not valid JSON Schema: {error}"));
        let shape = Arc::new(Shape::compile(&schema));
        Self {
            name: name.into(),
            schema: Arc::new(schema),
            validator,
            shape,
        }
    }

    /// `Done`: `{"ok": true}`. An executor that returns `{}` or `null` gets `{"ok": true}`.
    pub fn done() -> Self {
        Self::json(
            "Done",
            json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean", "const": true, "default": true}},
                "required": ["ok"]
            }),
        )
    }

    /// `Accepted`: `{"ok": true, "accepted": true}`, the output of a webhook that does not wait
    /// for its answer.
    pub fn accepted() -> Self {
        Self::json(
            "Accepted",
            json!({
                "type": "object",
                "properties": {
                    "ok": {"type": "boolean", "const": true, "default": true},
                    "accepted": {"type": "boolean", "const": true, "default": true}
                },
                "required": ["ok", "accepted"]
            }),
        )
    }

    /// The output's name as the model reads it in "does not fit `<Output>`".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The output's JSON Schema as given (with `$defs`).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    pub(crate) fn build_error(&self) -> Option<&str> {
        self.validator.as_ref().err().map(String::as_str)
    }

    /// The names of the output's top-level fields (empty for a schema without `properties`).
    pub fn field_names(&self) -> Vec<String> {
        let root = resolve(&self.schema, &self.schema);
        root.get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Checks a successful result: fills defaults, drops fields the schema does not declare
    /// (unless it sets `additionalProperties` to `true` or a schema), then validates.
    ///
    /// Filling and dropping follow the shape compiled from the schema when the `Output` was
    /// built: a call walks that tree, never the schema, and looks up no keyword. Defaults are
    /// added after the result's own fields, in schema order; `$ref`s, `items` and the first
    /// `anyOf`/`oneOf` branch whose type fits the value are followed, 64 levels deep at most.
    ///
    /// `Err` carries the first problem twice: for the model (`status: "shiped" is not one of
    /// "held" or "shipped"`) and for the log (field and keyword, never a value).
    pub fn check(&self, mut result: Value) -> Result<Value, OutputMismatch> {
        let validator = match &self.validator {
            Ok(v) => v,
            Err(e) => {
                return Err(OutputMismatch {
                    model_detail: e.clone(),
                    log_detail: e.clone(),
                });
            }
        };
        // `null` is "nothing to say" (`Ok(())` from an executor): `{}`, which `Done` fills to
        // `{"ok": true}`; an output that holds `null` itself (`Option<Order>`) keeps it.
        if result.is_null() && !validator.is_valid(&result) {
            result = Value::Object(Map::new());
        }
        self.shape.apply(&mut result);
        if validator.is_valid(&result) {
            return Ok(result);
        }
        let Some(error) = validator.iter_errors(&result).next() else {
            return Ok(result);
        };
        let mut problems = Vec::new();
        crate::problems::describe(&error, &format!("a field of {}", self.name), &mut problems);
        let Some(problem) = problems.into_iter().next() else {
            return Ok(result);
        };
        Err(OutputMismatch {
            model_detail: format!(
                "{}.",
                crate::bounds::cut_to(&problem.line, crate::bounds::LINE_CHARS)
            ),
            log_detail: problem.log("(result)"),
        })
    }
}

/// True when `null` is the only value of the schema: `"type": "null"`, `"const": null`,
/// `"enum": [null]`, or an `anyOf`/`oneOf` whose every branch is one.
fn only_null(schema: &Value, root: &Value) -> bool {
    only_null_within(schema, root, 0)
}

fn only_null_within(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let schema = resolve(schema, root);
    if let Some(t) = schema.get("type") {
        return t == "null" || *t == json!(["null"]);
    }
    if schema.get("const") == Some(&Value::Null) || schema.get("enum") == Some(&json!([null])) {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        schema.get(*k).and_then(Value::as_array).is_some_and(|bs| {
            !bs.is_empty() && bs.iter().all(|b| only_null_within(b, root, depth + 1))
        })
    })
}

/// Why a result did not fit its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputMismatch {
    /// What the model reads after "does not fit `<Output>`: " (`status: "shiped" is not one of …`).
    pub model_detail: String,
    /// What the log and sinks get: the field and the keyword, never a value (`status (enum)`).
    pub log_detail: String,
}

/// True when a result reports an error, so it is never checked and always shown: an `error` or a
/// `refused` with text in it, or `"ok": false`. `{"error": null}` and `{"error": ""}` are
/// successes. Guide: `docs/guide/results-the-model-does-not-read.md`.
pub fn is_error_result(result: &Value) -> bool {
    let Some(map) = result.as_object() else {
        return false;
    };
    let has_text = |v: Option<&Value>| match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    };
    has_text(map.get("error"))
        || has_text(map.get("refused"))
        || map.get("ok") == Some(&Value::Bool(false))
}

/// Follows a local `$ref` (`#/$defs/Name`, `#/definitions/Name`, `#`) to its schema.
pub(crate) fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..32 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            return current;
        };
        match root.pointer(pointer) {
            Some(target) => current = target,
            None => return current,
        }
    }
    current
}

/// The type bit of a value, as the type test of a branch reads it (`1` is `integer`, `1.5` is
/// `number`).
fn type_bit(value: &Value) -> u8 {
    match value {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Number(n) if n.is_i64() || n.is_u64() => types::INTEGER,
        Value::Number(_) => types::NUMBER,
        Value::String(_) => types::STRING,
        Value::Array(_) => types::ARRAY,
        Value::Object(_) => types::OBJECT,
    }
}

/// JSON types as bits of a `u8`.
mod types {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 1 << 1;
    pub const INTEGER: u8 = 1 << 2;
    pub const NUMBER: u8 = 1 << 3;
    pub const STRING: u8 = 1 << 4;
    pub const ARRAY: u8 = 1 << 5;
    pub const OBJECT: u8 = 1 << 6;

    /// The bits a `type` name admits: `number` admits integers too; an unknown name admits
    /// nothing.
    pub fn of_name(name: &str) -> u8 {
        match name {
            "null" => NULL,
            "boolean" => BOOLEAN,
            "integer" => INTEGER,
            "number" => NUMBER | INTEGER,
            "string" => STRING,
            "array" => ARRAY,
            "object" => OBJECT,
            _ => 0,
        }
    }
}

/// Which values fit a schema when it is a branch of an `anyOf`/`oneOf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeTest {
    /// The schema has `type` (a name or a list of names): a value fits when its type bit is set.
    Types(u8),
    /// The schema has no `type` (or one that is neither a name nor a list): an object fits when
    /// the schema has `properties`, any other value when it has none.
    Properties(bool),
}

impl TypeTest {
    fn of(schema: &Value) -> Self {
        match schema.get("type") {
            Some(Value::String(t)) => Self::Types(types::of_name(t)),
            Some(Value::Array(ts)) => Self::Types(
                ts.iter()
                    .filter_map(Value::as_str)
                    .fold(0, |bits, t| bits | types::of_name(t)),
            ),
            _ => Self::Properties(schema.get("properties").is_some()),
        }
    }

    fn fits(self, value: &Value) -> bool {
        match self {
            Self::Types(bits) => bits & type_bit(value) != 0,
            Self::Properties(has) => value.is_object() == has,
        }
    }
}

/// One declared property of an object node.
#[derive(Debug, Clone)]
struct Property {
    name: String,
    /// The node of its schema (after `$ref`).
    node: usize,
    /// Its `default`: the resolved schema's, else the one beside its `$ref`.
    default: Option<Value>,
}

/// The object part of a node: its `properties` in schema order, and what happens to other keys.
#[derive(Debug, Clone)]
struct ObjectShape {
    properties: Vec<Property>,
    /// Indices into `properties`, sorted by name, for objects with many properties.
    by_name: Vec<usize>,
    /// `additionalProperties` is `true` or a schema: undeclared keys stay.
    keeps_extra: bool,
}

/// Above this many properties a key is found by binary search rather than a linear scan.
const LINEAR_LOOKUP: usize = 12;

impl ObjectShape {
    fn find(&self, key: &str) -> Option<usize> {
        if self.properties.len() <= LINEAR_LOOKUP {
            return self.properties.iter().position(|p| p.name == key);
        }
        self.by_name
            .binary_search_by(|&i| self.properties[i].name.as_str().cmp(key))
            .ok()
            .map(|at| self.by_name[at])
    }
}

/// What a node does to a value, read once from its schema.
#[derive(Debug, Clone)]
enum NodeKind {
    /// The schema has `anyOf` (else `oneOf`) as a list: the first branch whose type test fits
    /// the value shapes it; no branch fitting leaves it as it is.
    Branches(Vec<usize>),
    /// Otherwise: an object is shaped by `properties` (when it is an object), each item of an
    /// array by `items` (when it is a schema object).
    Plain {
        object: Option<ObjectShape>,
        items: Option<usize>,
    },
}

/// One schema of the output (after following its `$ref`s), compiled.
#[derive(Debug, Clone)]
struct Node {
    /// Whether a value fits this schema as an `anyOf`/`oneOf` branch.
    test: TypeTest,
    kind: NodeKind,
}

/// How deep [`Shape::apply`] goes into a result: deeper parts are left as they are (a result
/// from the network never overflows the stack).
const MAX_DEPTH: usize = 64;

/// What [`Output::check`] does before validating, compiled once from the output's JSON Schema:
/// a graph of nodes (one per distinct schema reached from the root, `$ref`s followed, so a
/// recursive schema is a cycle), each knowing its declared properties, their defaults and
/// whether other keys are kept, its `items`, or its `anyOf`/`oneOf` branches with their type
/// tests. Applying it fills defaults and drops undeclared fields without looking up a keyword.
///
/// Guide: `docs/guide/inputs-and-outputs.md`, "Outputs".
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    /// `nodes[0]` is the root.
    nodes: Vec<Node>,
}

impl Shape {
    /// Compiles `root` (a JSON Schema; anything else compiles to a shape that changes nothing).
    /// Breadth first, without recursion: a deeply nested schema never overflows the stack.
    pub(crate) fn compile(root: &Value) -> Self {
        let mut compiler = Compiler {
            root,
            ids: HashMap::new(),
            schemas: Vec::new(),
        };
        compiler.id(root);
        let mut nodes = Vec::new();
        while let Some(&schema) = compiler.schemas.get(nodes.len()) {
            let node = compiler.node(schema);
            nodes.push(node);
        }
        Self { nodes }
    }

    /// Fills defaults and drops undeclared fields of `value` in place.
    pub(crate) fn apply(&self, value: &mut Value) {
        self.apply_node(0, value, 0);
    }

    fn apply_node(&self, id: usize, value: &mut Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &self.nodes[id].kind {
            NodeKind::Branches(branches) => {
                if let Some(&branch) = branches.iter().find(|&&b| self.nodes[b].test.fits(value)) {
                    self.apply_node(branch, value, depth + 1);
                }
            }
            NodeKind::Plain { object, items } => match value {
                Value::Object(map) => {
                    if let Some(object) = object {
                        self.apply_object(object, map, depth);
                    }
                }
                Value::Array(values) => {
                    if let Some(items) = *items {
                        for item in values {
                            self.apply_node(items, item, depth + 1);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    fn apply_object(&self, object: &ObjectShape, map: &mut Map<String, Value>, depth: usize) {
        let mut seen = Seen::new(object.properties.len());
        let mut extra = false;
        for (key, value) in map.iter_mut() {
            match object.find(key) {
                Some(i) => {
                    seen.insert(i);
                    self.apply_node(object.properties[i].node, value, depth + 1);
                }
                None => extra = true,
            }
        }
        if seen.count() < object.properties.len() {
            for (i, property) in object.properties.iter().enumerate() {
                if let (false, Some(default)) = (seen.contains(i), &property.default) {
                    map.insert(property.name.clone(), default.clone());
                }
            }
        }
        if extra && !object.keeps_extra {
            map.retain(|key, _| object.find(key).is_some());
        }
    }
}

/// Builds the nodes of a [`Shape`]: one id per distinct schema (after `$ref`), in the order
/// they are first reached.
struct Compiler<'a> {
    root: &'a Value,
    ids: HashMap<*const Value, usize>,
    /// `schemas[id]` is the schema of node `id`.
    schemas: Vec<&'a Value>,
}

impl<'a> Compiler<'a> {
    /// The id of the node of `schema` (its `$ref`s followed), reserving one when it is new.
    fn id(&mut self, schema: &'a Value) -> usize {
        let schema = resolve(schema, self.root);
        let next = self.schemas.len();
        let id = *self.ids.entry(std::ptr::from_ref(schema)).or_insert(next);
        if id == next {
            self.schemas.push(schema);
        }
        id
    }

    fn node(&mut self, schema: &'a Value) -> Node {
        let test = TypeTest::of(schema);
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                let branches = branches.iter().map(|b| self.id(b)).collect();
                return Node {
                    test,
                    kind: NodeKind::Branches(branches),
                };
            }
        }
        let object = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|declared| {
                let properties: Vec<Property> = declared
                    .iter()
                    .map(|(name, sub)| Property {
                        name: name.clone(),
                        node: self.id(sub),
                        default: resolve(sub, self.root)
                            .get("default")
                            .or_else(|| sub.get("default"))
                            .cloned(),
                    })
                    .collect();
                let mut by_name: Vec<usize> = (0..properties.len()).collect();
                by_name.sort_by(|&a, &b| properties[a].name.cmp(&properties[b].name));
                let keeps_extra = match schema.get("additionalProperties") {
                    Some(Value::Bool(keep)) => *keep,
                    Some(Value::Object(_)) => true,
                    _ => false,
                };
                ObjectShape {
                    properties,
                    by_name,
                    keeps_extra,
                }
            });
        let items = schema
            .get("items")
            .filter(|s| s.is_object())
            .map(|s| self.id(s));
        Node {
            test,
            kind: NodeKind::Plain { object, items },
        }
    }
}

/// Which declared properties a result object has: bits for up to 64, a list beyond.
enum Seen {
    Bits(u64, usize),
    List(Vec<bool>, usize),
}

impl Seen {
    fn new(len: usize) -> Self {
        if len <= 64 {
            Self::Bits(0, 0)
        } else {
            Self::List(vec![false; len], 0)
        }
    }

    fn insert(&mut self, i: usize) {
        match self {
            Self::Bits(bits, count) => {
                if *bits & (1 << i) == 0 {
                    *bits |= 1 << i;
                    *count += 1;
                }
            }
            Self::List(list, count) => {
                if !list[i] {
                    list[i] = true;
                    *count += 1;
                }
            }
        }
    }

    fn contains(&self, i: usize) -> bool {
        match self {
            Self::Bits(bits, _) => bits & (1 << i) != 0,
            Self::List(list, _) => list[i],
        }
    }

    fn count(&self) -> usize {
        match self {
            Self::Bits(_, count) | Self::List(_, count) => *count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk `Output::check` did before the shape was compiled: the schema `Value` read on
    /// every call. The compiled shape must do exactly what it does.
    fn reference_shape(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
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
        fn type_matches(schema: &Value, value: &Value) -> bool {
            let actual = json_type(value);
            let fits = |t: &str| t == actual || (t == "number" && actual == "integer");
            match schema.get("type") {
                Some(Value::String(t)) => fits(t),
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
                _ => match value {
                    Value::Object(_) => schema.get("properties").is_some(),
                    _ => schema.get("properties").is_none(),
                },
            }
        }
        if depth > 64 {
            return;
        }
        let schema = resolve(schema, root);
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                if let Some(branch) = branches
                    .iter()
                    .find(|b| type_matches(resolve(b, root), value))
                {
                    reference_shape(value, branch, root, depth + 1);
                }
                return;
            }
        }
        match value {
            Value::Object(map) => {
                let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                    return;
                };
                for (name, sub) in props {
                    match map.get_mut(name) {
                        Some(v) => reference_shape(v, sub, root, depth + 1),
                        None => {
                            if let Some(default) = resolve(sub, root)
                                .get("default")
                                .or_else(|| sub.get("default"))
                            {
                                map.insert(name.clone(), default.clone());
                            }
                        }
                    }
                }
                let keeps_extra = match schema.get("additionalProperties") {
                    Some(Value::Bool(b)) => *b,
                    Some(Value::Object(_)) => true,
                    _ => false,
                };
                if !keeps_extra {
                    map.retain(|k, _| props.contains_key(k));
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                    for item in items {
                        reference_shape(item, item_schema, root, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// Shapes `value` both ways and asserts the same result, keys in the same order; returns it.
    fn shaped(schema: &Value, value: Value) -> Value {
        let mut expected = value.clone();
        reference_shape(&mut expected, schema, schema, 0);
        let mut got = value;
        Shape::compile(schema).apply(&mut got);
        assert_eq!(got, expected, "schema {schema}");
        assert_eq!(
            got.to_string(),
            expected.to_string(),
            "key order, schema {schema}"
        );
        got
    }

    fn order() -> Value {
        json!({
            "type": "object",
            "$defs": {
                "Item": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "count": {"type": "integer", "default": 1}
                    },
                    "required": ["sku"]
                },
                "Status": {"type": "string", "enum": ["held", "shipped"], "default": "held"}
            },
            "properties": {
                "status": {"$ref": "#/$defs/Status"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "gift": {"$ref": "#/$defs/Item", "default": {"sku": "G"}},
                "extra": {"type": "object", "additionalProperties": true},
                "when": {"oneOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {"day": {"type": "string", "default": "today"}}}
                ]}
            }
        })
    }

    #[test]
    fn defaults_come_after_the_results_fields_in_schema_order() {
        let got = shaped(
            &order(),
            json!({"items": [{"sku": "A"}], "status": "shipped"}),
        );
        assert_eq!(
            got.to_string(),
            r#"{"items":[{"sku":"A","count":1}],"status":"shipped","note":null,"gift":{"sku":"G"}}"#
        );
    }

    #[test]
    fn undeclared_fields_are_dropped_unless_the_schema_keeps_them() {
        let got = shaped(
            &order(),
            json!({"status": "held", "secret": 1, "extra": {"any": [1]}, "items": [{"sku": "A", "x": 2}]}),
        );
        assert_eq!(
            got,
            json!({"status": "held", "extra": {"any": [1]}, "items": [{"sku": "A", "count": 1}], "note": null, "gift": {"sku": "G"}})
        );
        let open = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}});
        assert_eq!(
            shaped(&open, json!({"a": 1, "b": 2})),
            json!({"a": 1, "b": 2})
        );
    }

    #[test]
    fn the_first_branch_whose_type_fits_shapes_the_value() {
        let got = shaped(&order(), json!({"when": {"x": 1}}));
        assert_eq!(got["when"], json!({"day": "today"}));
        let got = shaped(&order(), json!({"when": "monday"}));
        assert_eq!(got["when"], "monday");
        // No branch fits: the value stays as it is.
        let got = shaped(&order(), json!({"when": [1, {"x": 1}]}));
        assert_eq!(got["when"], json!([1, {"x": 1}]));
    }

    #[test]
    fn type_tests_follow_the_json_types() {
        let schema = json!({"anyOf": [
            {"type": "integer", "properties": {}},
            {"type": ["null", "number"]},
            {"type": "object", "properties": {"n": {"default": "number"}}},
            {"properties": {"p": {"default": "untyped"}}},
            {"type": 7},
            {}
        ]});
        for value in [
            json!(1),
            json!(1.5),
            json!(null),
            json!({}),
            json!(true),
            json!("s"),
            json!([]),
        ] {
            shaped(&schema, value);
        }
        assert_eq!(shaped(&schema, json!({})), json!({"n": "number"}));
        let untyped = json!({"anyOf": [{"type": 7, "properties": {"p": {"default": 1}}}]});
        assert_eq!(shaped(&untyped, json!({})), json!({"p": 1}));
        assert_eq!(shaped(&untyped, json!(3)), json!(3));
    }

    #[test]
    fn a_recursive_schema_is_followed_64_levels_deep_and_no_further() {
        let schema = json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"$ref": "#/$defs/Node"},
                "tag": {"type": "string", "default": "t"}
            }}},
            "$ref": "#/$defs/Node"
        });
        let mut value = json!({});
        for _ in 0..80 {
            value = json!({"next": value, "drop": 1});
        }
        let got = shaped(&schema, value);
        let mut level = &got;
        let mut tagged = 0;
        while let Some(next) = level.get("next") {
            tagged += usize::from(level.get("tag").is_some());
            level = next;
        }
        assert_eq!(tagged, 65);
        assert_eq!(Shape::compile(&schema).nodes.len(), 2);
    }

    #[test]
    fn refs_that_do_not_resolve_and_loops_of_refs_change_nothing_and_never_hang() {
        for schema in [
            json!({"$ref": "#/nowhere"}),
            json!({"$ref": "https://example.invalid/s.json"}),
            json!({"$ref": "#"}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
            json!(true),
            json!(null),
            json!({"properties": {"a": {"$ref": "#"}}, "items": {"$ref": "#"}}),
        ] {
            shaped(&schema, json!({"a": {"a": [], "b": 1}, "b": 2}));
            shaped(&schema, json!([{"a": 1, "b": 2}]));
        }
    }

    #[test]
    fn many_properties_are_found_by_name() {
        let mut properties = Map::new();
        for i in (0..40).rev() {
            properties.insert(format!("f{i:02}"), json!({"default": i}));
        }
        let schema = json!({"type": "object", "properties": properties});
        let got = shaped(&schema, json!({"f07": "kept", "zz": 1, "f39": "kept"}));
        assert_eq!(got["f07"], "kept");
        assert_eq!(got["f00"], 0);
        assert!(got.get("zz").is_none());
        let mut wide = Map::new();
        for i in 0..100 {
            wide.insert(format!("w{i}"), json!({"type": "integer", "default": i}));
        }
        let schema = json!({"properties": wide});
        let got = shaped(&schema, json!({"w99": -1, "w3": -1, "extra": true}));
        assert_eq!(got.as_object().unwrap().len(), 100);
        assert_eq!(got["w99"], -1);
    }

    #[test]
    fn check_fills_defaults_drops_extras_and_names_the_first_problem() {
        let output = Output::json("Order", order());
        let checked = output
            .check(json!({"status": "held", "items": [{"sku": "A"}], "x": 1}))
            .unwrap();
        assert_eq!(
            checked.to_string(),
            r#"{"status":"held","items":[{"sku":"A","count":1}],"note":null,"gift":{"sku":"G"}}"#
        );
        assert_eq!(
            Output::done().check(Value::Null).unwrap(),
            json!({"ok": true})
        );
        let mismatch = output.check(json!({"status": "shiped"})).unwrap_err();
        assert_eq!(mismatch.log_detail, "status (enum)");
        assert!(
            mismatch
                .model_detail
                .starts_with(r#"status: "shiped" is not one of"#),
            "{}",
            mismatch.model_detail
        );
    }
}
