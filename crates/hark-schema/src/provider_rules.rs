//! What each provider's API refuses in a tool schema, checked on the schema as it is sent.
//!
//! Written from each provider's API documentation (the keywords it refuses, and what its strict
//! mode requires). [`provider_rule_breaks`] is what the real API would answer with a 400; the
//! scripted test server (`hark_llm::testing`) runs it on every tool of every request it
//! receives, so every provider test in the workspace is also a conformance test.
//! [`conform`] is what each provider client runs on every tool schema before it is sent: a
//! schema that already keeps the rules goes as it is, any other is brought into the dialect
//! with [`for_dialect`](crate::for_dialect).

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::error::{SchemaError, SchemaErrors};
use crate::messages;

/// The `Schema` fields of Gemini's OpenAPI subset (`FunctionDeclaration.parameters`); any other
/// key is refused with "Invalid JSON payload received. Unknown name".
pub const GEMINI_PARAMETERS_FIELDS: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// The Gemini `parameters` types (OpenAPI, any case).
const GEMINI_TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "array", "object"];

/// String formats OpenAI strict mode enforces.
const OPENAI_STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// String formats Anthropic strict tool use enforces.
const ANTHROPIC_STRICT_FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords OpenAI strict mode refuses.
const OPENAI_STRICT_REFUSED: [&str; 14] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "oneOf",
    "minLength",
    "maxLength",
    "uniqueItems",
    "contains",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
];

/// Keywords Anthropic strict tool use refuses.
const ANTHROPIC_STRICT_REFUSED: [&str; 18] = [
    "not",
    "if",
    "then",
    "else",
    "oneOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "uniqueItems",
    "contains",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
];

/// Every rule of `dialect` that `schema` (a tool's parameters, as sent) breaks, in schema
/// order; empty when the provider takes it. Each break names the keyword, its JSON pointer and
/// the rule (see `messages.rs`).
pub fn provider_rule_breaks(schema: &Value, dialect: Dialect) -> Vec<SchemaError> {
    let mut out = Vec::new();
    let Value::Object(root) = schema else {
        out.push(SchemaError::new(
            "type",
            "",
            messages::rule_root_object(dialect.name()),
        ));
        return out;
    };
    let root_type_ok = match root.get("type") {
        Some(Value::String(t)) => t.eq_ignore_ascii_case("object"),
        _ => false,
    };
    if !root_type_ok {
        out.push(SchemaError::new(
            "type",
            "/type",
            messages::rule_root_object(dialect.name()),
        ));
    }
    if dialect == Dialect::OpenAiStrict && root.contains_key("anyOf") {
        out.push(SchemaError::new(
            "anyOf",
            "/anyOf",
            messages::rule_keyword_refused(dialect.name(), "anyOf at the root"),
        ));
    }
    match dialect {
        Dialect::OpenAi | Dialect::Anthropic | Dialect::GeminiJsonSchema => {}
        Dialect::OpenAiStrict | Dialect::AnthropicStrict => {
            strict(schema, dialect, "", 0, &mut out)
        }
        Dialect::GeminiParameters => gemini(schema, "", &mut out),
    }
    out
}

/// `schema` as `dialect` takes it: unchanged when it keeps every rule, else
/// [`for_dialect`](crate::for_dialect) of it (which also checks that the result keeps them).
///
/// # Errors
/// What `for_dialect` refuses, or the rules its output still breaks.
pub fn conform(schema: &Value, dialect: Dialect) -> Result<Value, SchemaErrors> {
    if provider_rule_breaks(schema, dialect).is_empty() {
        return Ok(schema.clone());
    }
    let converted = crate::for_dialect(schema, dialect)?;
    let left = provider_rule_breaks(&converted, dialect);
    if left.is_empty() {
        Ok(converted)
    } else {
        Err(SchemaErrors(left))
    }
}

fn is_object_schema(m: &Map<String, Value>) -> bool {
    m.contains_key("properties")
        || match m.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => false,
        }
}

fn child(path: &str, key: &str) -> String {
    let key = key.replace('~', "~0").replace('/', "~1");
    format!("{path}/{key}")
}

/// Calls `f` on each subschema of `m` with its pointer.
fn each_subschema(m: &Map<String, Value>, path: &str, mut f: impl FnMut(&Value, String)) {
    for (key, value) in m {
        match (key.as_str(), value) {
            (
                "properties" | "$defs" | "definitions" | "patternProperties",
                Value::Object(props),
            ) => {
                let at = child(path, key);
                for (name, s) in props {
                    f(s, child(&at, name));
                }
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
                let at = child(path, key);
                for (i, s) in items.iter().enumerate() {
                    f(s, format!("{at}/{i}"));
                }
            }
            ("items", Value::Array(items)) => {
                for (i, s) in items.iter().enumerate() {
                    f(s, format!("{path}/items/{i}"));
                }
            }
            (
                "items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains",
                Value::Object(_),
            ) => f(value, child(path, key)),
            _ => {}
        }
    }
}

fn strict(schema: &Value, dialect: Dialect, path: &str, depth: usize, out: &mut Vec<SchemaError>) {
    let Value::Object(m) = schema else {
        return;
    };
    let name = dialect.name();
    let (refused, formats): (&[&str], &[&str]) = if dialect == Dialect::OpenAiStrict {
        (&OPENAI_STRICT_REFUSED, &OPENAI_STRICT_FORMATS)
    } else {
        (&ANTHROPIC_STRICT_REFUSED, &ANTHROPIC_STRICT_FORMATS)
    };
    let object = is_object_schema(m);
    let depth = depth + usize::from(object);
    if dialect == Dialect::OpenAiStrict && depth > crate::OPENAI_STRICT_MAX_OBJECT_DEPTH {
        out.push(SchemaError::new(
            "depth",
            path,
            messages::objects_too_deep(name, crate::OPENAI_STRICT_MAX_OBJECT_DEPTH),
        ));
        return;
    }
    if object && m.get("additionalProperties") != Some(&Value::Bool(false)) {
        out.push(SchemaError::new(
            "additionalProperties",
            &child(path, "additionalProperties"),
            messages::rule_closed_object(name),
        ));
    }
    if object && dialect == Dialect::OpenAiStrict {
        let required: Vec<&str> = match m.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if let Some(Value::Object(props)) = m.get("properties") {
            for key in props.keys().filter(|k| !required.contains(&k.as_str())) {
                out.push(SchemaError::new(
                    "required",
                    &child(path, "required"),
                    messages::rule_every_property_required(name, key),
                ));
            }
        }
    }
    for key in m.keys() {
        if refused.contains(&key.as_str()) {
            out.push(SchemaError::new(
                key,
                &child(path, key),
                messages::rule_keyword_refused(name, key),
            ));
        }
    }
    if let Some(Value::String(format)) = m.get("format")
        && !formats.contains(&format.as_str())
    {
        out.push(SchemaError::new(
            "format",
            &child(path, "format"),
            messages::rule_format_refused(name, format),
        ));
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        if dialect == Dialect::OpenAiStrict && values.len() > crate::OPENAI_STRICT_MAX_ENUM {
            out.push(SchemaError::new(
                "enum",
                &child(path, "enum"),
                messages::enum_too_large(name, crate::OPENAI_STRICT_MAX_ENUM, values.len()),
            ));
        }
        if values.iter().any(|v| v.is_array() || v.is_object()) {
            out.push(SchemaError::new(
                "enum",
                &child(path, "enum"),
                messages::enum_not_primitive(name),
            ));
        }
    }
    if dialect == Dialect::AnthropicStrict
        && let Some(n) = m.get("minItems").and_then(Value::as_u64)
        && n > 1
    {
        out.push(SchemaError::new(
            "minItems",
            &child(path, "minItems"),
            messages::rule_keyword_refused(name, "minItems other than 0 or 1"),
        ));
    }
    if m.contains_key("$ref") && m.len() > 1 && dialect == Dialect::OpenAiStrict {
        out.push(SchemaError::new(
            "$ref",
            &child(path, "$ref"),
            messages::rule_keyword_refused(name, "a key beside $ref"),
        ));
    }
    each_subschema(m, path, |s, at| strict(s, dialect, &at, depth, out));
}

fn gemini(schema: &Value, path: &str, out: &mut Vec<SchemaError>) {
    let name = Dialect::GeminiParameters.name();
    let Value::Object(m) = schema else {
        out.push(SchemaError::new(
            "type",
            path,
            messages::rule_gemini_not_a_schema(),
        ));
        return;
    };
    for key in m.keys() {
        if !GEMINI_PARAMETERS_FIELDS.contains(&key.as_str()) {
            out.push(SchemaError::new(
                key,
                &child(path, key),
                messages::rule_gemini_unknown_field(key),
            ));
        }
    }
    let kind = match m.get("type") {
        None => None,
        Some(Value::String(t)) if GEMINI_TYPES.iter().any(|g| t.eq_ignore_ascii_case(g)) => {
            Some(t.to_ascii_lowercase())
        }
        Some(other) => {
            out.push(SchemaError::new(
                "type",
                &child(path, "type"),
                messages::rule_gemini_one_type(other),
            ));
            None
        }
    };
    if kind.is_none() && !m.contains_key("anyOf") && m.get("type").is_none() {
        out.push(SchemaError::new(
            "type",
            &child(path, "type"),
            messages::rule_gemini_type_missing(),
        ));
    }
    if m.contains_key("anyOf")
        && m.keys()
            .any(|k| k != "anyOf" && k != "description" && k != "nullable")
    {
        out.push(SchemaError::new(
            "anyOf",
            &child(path, "anyOf"),
            messages::rule_gemini_any_of_alone(),
        ));
    }
    if let Some(Value::Array(values)) = m.get("enum")
        && values.iter().any(|v| !v.is_string())
    {
        out.push(SchemaError::new(
            "enum",
            &child(path, "enum"),
            messages::rule_keyword_refused(name, "an enum of values other than strings"),
        ));
    }
    if let Some(Value::String(format)) = m.get("format")
        && kind.as_deref() == Some("string")
        && format != "enum"
        && format != "date-time"
    {
        out.push(SchemaError::new(
            "format",
            &child(path, "format"),
            messages::rule_format_refused(name, format),
        ));
    }
    if kind.as_deref() == Some("object") {
        let props = match m.get("properties") {
            Some(Value::Object(p)) => Some(p),
            _ => None,
        };
        if props.is_none_or(Map::is_empty) {
            out.push(SchemaError::new(
                "properties",
                &child(path, "properties"),
                messages::rule_gemini_empty_object(),
            ));
        }
        if let Some(Value::Array(required)) = m.get("required") {
            for r in required.iter().filter_map(Value::as_str) {
                if !props.is_some_and(|p| p.contains_key(r)) {
                    out.push(SchemaError::new(
                        "required",
                        &child(path, "required"),
                        messages::rule_gemini_required_unknown(r),
                    ));
                }
            }
        }
    }
    if kind.as_deref() == Some("array") && !matches!(m.get("items"), Some(Value::Object(_))) {
        out.push(SchemaError::new(
            "items",
            &child(path, "items"),
            messages::rule_gemini_array_items(),
        ));
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        let at = child(path, "properties");
        for (key, s) in props {
            gemini(s, &child(&at, key), out);
        }
    }
    if let Some(items @ Value::Object(_)) = m.get("items") {
        gemini(items, &child(path, "items"), out);
    }
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        for (i, s) in branches.iter().enumerate() {
            gemini(s, &format!("{path}/anyOf/{i}"), out);
        }
    }
}
