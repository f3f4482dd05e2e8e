//! The output of a tool: what a successful result must look like, and the check that makes it so.
//!
//! Spec: `tools-reference.md`, "Outputs" (points 2–5) and "A result the model does not read"
//! (point 2, which results are failures).

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
    pub fn of<T: JsonSchema>() -> Self {
        Self::json(T::schema_name(), schema_of::<T>())
    }

    /// An output named `name` with a hand-written JSON Schema. A schema the validator cannot
    /// compile makes [`ToolSpec::new`](crate::ToolSpec::new) fail with the reason.
    pub fn json(name: impl Into<String>, schema: Value) -> Self {
        let validator = jsonschema::options()
            .build(&schema)
            .map(Arc::new)
            .map_err(|error| format!("the output schema is not valid JSON Schema: {error}"));
        Self {
            name: name.into(),
            schema: Arc::new(schema),
            validator,
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

    /// The output's name as the model reads it in "does not fit <Output>".
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
    /// `Err` carries the first problem twice: for the model (`status: "shiped" is not one of
    /// "held" or "shipped"`) and for the log (field and keyword, never a value).
    pub fn check(&self, mut result: Value) -> Result<Value, OutputMismatch> {
        if result.is_null() {
            result = Value::Object(Map::new());
        }
        shape(&mut result, &self.schema, &self.schema, 0);
        let validator = match &self.validator {
            Ok(v) => v,
            Err(e) => {
                return Err(OutputMismatch {
                    model_detail: e.clone(),
                    log_detail: e.clone(),
                });
            }
        };
        if validator.is_valid(&result) {
            return Ok(result);
        }
        let Some(error) = validator.iter_errors(&result).next() else {
            return Ok(result);
        };
        let path = pointer_to_path(error.instance_path().as_str());
        let model_detail = format!(
            "{}.",
            crate::messages::argument_error_line(&path, &error.to_string())
        );
        let field = if path.is_empty() {
            "(root)".to_string()
        } else {
            path
        };
        let log_detail = format!("{field} ({})", error.kind().keyword());
        Err(OutputMismatch {
            model_detail,
            log_detail,
        })
    }
}

/// Why a result did not fit its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputMismatch {
    /// What the model reads after "does not fit <Output>: " (`status: "shiped" is not one of …`).
    pub model_detail: String,
    /// What the log and sinks get: the field and the keyword, never a value (`status (enum)`).
    pub log_detail: String,
}

/// True when a result reports an error, so it is never checked and always shown: an `error` or a
/// `refused` with text in it, or `"ok": false`. `{"error": null}` and `{"error": ""}` are
/// successes. Spec: "A result the model does not read", point 2.
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

/// `/extras/0/count` → `extras.0.count` (JSON Pointer escapes undone).
pub(crate) fn pointer_to_path(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|seg| seg.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
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

/// Fills defaults and drops undeclared fields, following `$ref`s, `items` and the branch of an
/// `anyOf`/`oneOf` whose type fits the value. Depth-limited: a result from the network never
/// overflows the stack.
fn shape(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
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
                shape(value, branch, root, depth + 1);
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
                    Some(v) => shape(v, sub, root, depth + 1),
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
                    shape(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}
