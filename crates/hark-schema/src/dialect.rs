//! Provider dialects: the normalised schema as each provider accepts it.
//!
//! Rules per provider: what each provider's API documents it takes (the table on [`Dialect`]).
//! A keyword a dialect does not take moves into the description in words, never silently
//! dropped; a schema a dialect cannot express is refused with an error naming the keyword.

use serde_json::{Map, Value};

use crate::error::{SchemaError, SchemaErrors};
use crate::keywords::{Kind, allows_null, is_null_only, join, kind, types, value_type};
use crate::messages::{self, Bounds};
use crate::normalise::{MAX_DEPTH, normalise};

/// A provider's flavour of tool-parameter schema.
///
/// | dialect | what it does to the normalised schema |
/// | --- | --- |
/// | `OpenAi` | nothing beyond dropping `x-` keys: non-strict function calling reads the schema as given |
/// | `OpenAiStrict` | `strict: true`: every object closed (`additionalProperties: false`) and every property required, optional ones made nullable; `oneOf` → `anyOf`; `minLength`, `maxLength`, `default`, `uniqueItems`… → words; `allOf`, `not`, `if`, tuples, open maps refused; at most 10 levels of objects and 1,000 enum values |
/// | `Anthropic` | nothing beyond dropping `x-` keys |
/// | `AnthropicStrict` | strict tool use: every object closed, `required` kept; `oneOf` → `anyOf`, `const` → one-value `enum`; numeric and length bounds, `default`, `minItems` other than 0 or 1… → words; `not`, `if`, tuples, open maps refused |
/// | `GeminiParameters` | `FunctionDeclaration.parameters` (OpenAPI 3.0 subset, also the Live API; for a tool without arguments send no `parameters`, see [`takes_no_arguments`]): type lists and null branches → `nullable: true`; enums of strings only (others → words); `const` → `enum`; `oneOf` → `anyOf`; `title` → description when there is none, else dropped; `additionalProperties: false` dropped; exclusive bounds, `multipleOf`, `uniqueItems`, `examples` → words; `allOf`, `not`, `if`, tuples, open maps and untyped values refused |
/// | `GeminiJsonSchema` | `FunctionDeclaration.parametersJsonSchema`: real JSON Schema; only `x-` keys dropped |
///
/// In the strict dialects "every object" means every schema whose `type` includes `"object"`
/// and every schema that holds `properties`, whatever its `type` says (`"type": "string"`
/// beside `properties` is valid JSON Schema, so it is kept and closed, not refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI function calling without `strict`.
    OpenAi,
    /// OpenAI function calling with `strict: true` (structured outputs).
    OpenAiStrict,
    /// Anthropic tool use.
    Anthropic,
    /// Anthropic strict tool use (`strict: true`).
    AnthropicStrict,
    /// Gemini `FunctionDeclaration.parameters`: the OpenAPI 3.0 subset (also the Live API).
    GeminiParameters,
    /// Gemini `FunctionDeclaration.parametersJsonSchema` (JSON Schema, Gemini 2.5 and later).
    GeminiJsonSchema,
}

impl Dialect {
    /// True for the dialects whose tools are sent with `strict: true` ([`Dialect::OpenAiStrict`],
    /// [`Dialect::AnthropicStrict`]).
    pub fn is_strict(self) -> bool {
        matches!(self, Dialect::OpenAiStrict | Dialect::AnthropicStrict)
    }

    /// Every dialect, in declaration order.
    pub const ALL: [Dialect; 6] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
    ];

    /// The name used in messages, e.g. `"OpenAI strict mode"`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "OpenAI",
            Dialect::OpenAiStrict => "OpenAI strict mode",
            Dialect::Anthropic => "Anthropic",
            Dialect::AnthropicStrict => "Anthropic strict tool use",
            Dialect::GeminiParameters => "Gemini parameters",
            Dialect::GeminiJsonSchema => "Gemini parametersJsonSchema",
        }
    }
}

/// OpenAI strict mode: most levels of nested objects.
pub const OPENAI_STRICT_MAX_OBJECT_DEPTH: usize = 10;
/// OpenAI strict mode: most values in one enum.
pub const OPENAI_STRICT_MAX_ENUM: usize = 1_000;

/// The schema in one provider's dialect.
///
/// Input: the output of [`normalise`], or any schema `normalise` accepts (it is normalised
/// first; normalising twice changes nothing). Output: the value to send as the tool's
/// parameters (OpenAI `parameters`, Anthropic `input_schema`, Gemini `parameters` or
/// `parametersJsonSchema`).
///
/// # Errors
/// The errors of [`normalise`], then every keyword the dialect cannot express, each with the
/// keyword, its JSON pointer in the normalised schema and a message naming the dialect and
/// the fix. A caller building several tools refuses only the tool that fails.
pub fn for_dialect(schema: &Value, dialect: Dialect) -> Result<Value, SchemaErrors> {
    let normalised = normalise(schema)?;
    match dialect {
        Dialect::OpenAi | Dialect::Anthropic | Dialect::GeminiJsonSchema => {
            Ok(strip_extensions(normalised))
        }
        Dialect::OpenAiStrict | Dialect::AnthropicStrict | Dialect::GeminiParameters => {
            let mut c = Converter {
                dialect,
                errors: Vec::new(),
            };
            let out = c.node(&normalised, "", false, 1);
            if c.errors.is_empty() {
                Ok(out)
            } else {
                Err(SchemaErrors(c.errors))
            }
        }
    }
}

/// True when a tool's schema names no arguments and takes no others: its root has no (or empty)
/// `properties` and `additionalProperties` is absent or false.
///
/// Gemini refuses `parameters` whose root object has empty `properties` ("should be non-empty
/// for OBJECT type"), so for such a tool a Gemini request leaves `parameters` out rather than
/// send `for_dialect(.., Dialect::GeminiParameters)`.
pub fn takes_no_arguments(schema: &Value) -> bool {
    let Value::Object(m) = schema else {
        return false;
    };
    let no_properties = match m.get("properties") {
        None => true,
        Some(Value::Object(p)) => p.is_empty(),
        Some(_) => false,
    };
    let closed = matches!(
        m.get("additionalProperties"),
        None | Some(Value::Bool(false))
    );
    no_properties && closed
}

/// Removes `x-` keys from every schema: they are for tools, never for the model.
fn strip_extensions(v: Value) -> Value {
    let Value::Object(m) = v else { return v };
    let mut out = Map::new();
    for (k, v) in m {
        if k.starts_with("x-") {
            continue;
        }
        let v = match (kind(&k), v) {
            (Kind::Data, v) => v,
            (Kind::Map, Value::Object(c)) => Value::Object(
                c.into_iter()
                    .map(|(n, s)| (n, strip_extensions(s)))
                    .collect(),
            ),
            (Kind::List | Kind::Items, Value::Array(c)) => {
                Value::Array(c.into_iter().map(strip_extensions).collect())
            }
            (_, s) => strip_extensions(s),
        };
        out.insert(k, v);
    }
    Value::Object(out)
}

/// What a dialect does with one keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Keep,
    Words,
    Refuse,
    Drop,
    Special,
}

struct Converter {
    dialect: Dialect,
    errors: Vec<SchemaError>,
}

const SPECIAL: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
    "default",
    "minItems",
    "unevaluatedProperties",
];

const REFUSED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "prefixItems",
    "patternProperties",
    "dependentSchemas",
    "unevaluatedItems",
    "additionalItems",
    "$ref",
    "$defs",
    "definitions",
    "$dynamicRef",
    "$recursiveRef",
];

impl Converter {
    fn err(&mut self, keyword: &str, path: &str, message: String) {
        self.errors.push(SchemaError::new(keyword, path, message));
    }

    fn fate(&self, k: &str) -> Fate {
        if k.starts_with("x-") || k == "$comment" || k == "$schema" {
            return Fate::Drop;
        }
        if SPECIAL.contains(&k) {
            return Fate::Special;
        }
        if REFUSED.contains(&k) {
            return Fate::Refuse;
        }
        let keep: &[&str] = match self.dialect {
            Dialect::OpenAiStrict => &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "maxItems",
            ],
            Dialect::GeminiParameters => &[
                "minimum",
                "maximum",
                "minLength",
                "maxLength",
                "maxItems",
                "minProperties",
                "maxProperties",
            ],
            _ => &[],
        };
        if keep.contains(&k) {
            Fate::Keep
        } else {
            Fate::Words
        }
    }

    fn node(&mut self, node: &Value, path: &str, optional: bool, depth: usize) -> Value {
        let name = self.dialect.name();
        let m = match node {
            Value::Object(m) => m,
            Value::Bool(true) => {
                self.err("type", path, messages::any_value_refused(name));
                return node.clone();
            }
            Value::Bool(false) => {
                self.err("type", path, messages::false_schema_refused(name));
                return node.clone();
            }
            other => return other.clone(),
        };

        let mut type_list: Vec<String> = types(m).into_iter().map(str::to_owned).collect();
        let inferred = type_list.is_empty();
        if inferred {
            if m.contains_key("properties") {
                type_list.push("object".into());
            } else if m.contains_key("items") {
                type_list.push("array".into());
            }
        }
        let has_choice = ["anyOf", "oneOf", "allOf", "enum", "const"]
            .iter()
            .any(|k| m.contains_key(*k));
        if type_list.is_empty() && !has_choice {
            self.err("type", path, messages::any_value_refused(name));
            return node.clone();
        }
        let is_object = type_list.iter().any(|t| t == "object");
        // A schema holding `properties` is closed like an object even when its `type` leaves
        // objects out (`"type": "string"` beside `properties`): the strict dialects check every
        // schema that names properties (fuzz crash bda57b5f).
        let names_properties = is_object || m.contains_key("properties");
        if names_properties
            && self.dialect == Dialect::OpenAiStrict
            && depth > OPENAI_STRICT_MAX_OBJECT_DEPTH
        {
            self.err(
                "properties",
                path,
                messages::objects_too_deep(name, OPENAI_STRICT_MAX_OBJECT_DEPTH),
            );
        }
        let required: Vec<String> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();

        let gemini = self.dialect == Dialect::GeminiParameters;
        let mut out = Map::new();
        let mut nullable = false;
        let word_keys: Vec<&str> = m
            .keys()
            .map(String::as_str)
            .filter(|k| self.fate(k) == Fate::Words || self.special_in_words(k, m))
            .collect();
        let mut notes = words(m, &word_keys);

        if inferred && !type_list.is_empty() {
            out.insert("type".into(), Value::String(type_list[0].clone()));
        }
        for (k, v) in m {
            let kp = join(path, k);
            match self.fate(k) {
                Fate::Keep => {
                    out.insert(k.clone(), v.clone());
                }
                Fate::Drop | Fate::Words => {}
                Fate::Refuse => self.err(k, &kp, messages::keyword_refused(name, k)),
                Fate::Special => match k.as_str() {
                    "type" => {
                        if gemini {
                            self.gemini_type(v, &mut out, &mut nullable);
                        } else {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                    "properties" => {
                        let Value::Object(props) = v else { continue };
                        let mut converted = Map::new();
                        for (pname, p) in props {
                            let opt = !required.contains(pname);
                            let c = self.node(p, &join(&kp, pname), opt, depth + 1);
                            converted.insert(pname.clone(), c);
                        }
                        out.insert(k.clone(), Value::Object(converted));
                    }
                    "required" if self.dialect != Dialect::OpenAiStrict => {
                        out.insert(k.clone(), v.clone());
                    }
                    "additionalProperties" | "unevaluatedProperties" => match v {
                        Value::Bool(false) => {
                            if !gemini && k == "additionalProperties" {
                                out.insert(k.clone(), v.clone());
                            }
                        }
                        _ => self.err(k, &kp, messages::open_object_refused(name, k)),
                    },
                    "items" => match v {
                        Value::Array(_) => self.err(k, &kp, messages::keyword_refused(name, k)),
                        child => {
                            let c = self.node(child, &kp, false, depth);
                            out.insert(k.clone(), c);
                        }
                    },
                    "anyOf" | "oneOf" => {
                        let Value::Array(branches) = v else { continue };
                        if out.contains_key("anyOf") {
                            self.err(k, &kp, messages::keyword_refused(name, k));
                            continue;
                        }
                        let mut converted = Vec::new();
                        for (i, b) in branches.iter().enumerate() {
                            if gemini && is_null_only(b) {
                                nullable = true;
                                continue;
                            }
                            converted.push(self.node(b, &format!("{kp}/{i}"), false, depth));
                        }
                        out.insert("anyOf".into(), Value::Array(converted));
                    }
                    "allOf" => {
                        if self.dialect == Dialect::AnthropicStrict {
                            let Value::Array(parts) = v else { continue };
                            let converted = parts
                                .iter()
                                .enumerate()
                                .map(|(i, b)| self.node(b, &format!("{kp}/{i}"), false, depth))
                                .collect();
                            out.insert(k.clone(), Value::Array(converted));
                        } else {
                            self.err(k, &kp, messages::keyword_refused(name, k));
                        }
                    }
                    "enum" => self.enum_values(v, &kp, &mut out, &mut nullable),
                    "const" => self.const_value(v, &kp, &mut out),
                    "description" => {
                        out.insert(k.clone(), v.clone());
                    }
                    "title" => {
                        if gemini {
                            if !m.contains_key("description") {
                                out.insert("description".into(), v.clone());
                            }
                        } else {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                    "default" if gemini => {
                        out.insert(k.clone(), v.clone());
                    }
                    "minItems" if !self.special_in_words(k, m) => {
                        out.insert(k.clone(), v.clone());
                    }
                    _ => {}
                },
            }
        }

        if names_properties && self.dialect != Dialect::GeminiParameters {
            if is_object && !out.contains_key("properties") {
                out.insert("properties".into(), Value::Object(Map::new()));
            }
            if !out.contains_key("additionalProperties") {
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            if self.dialect == Dialect::OpenAiStrict {
                let all: Vec<Value> = out
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().map(Value::String).collect())
                    .unwrap_or_default();
                out.insert("required".into(), Value::Array(all));
            }
        }

        if gemini {
            // A choice left with one branch once null is out becomes that branch.
            if let Some(Value::Array(b)) = out.get("anyOf")
                && b.len() == 1
            {
                let branch = b[0].clone();
                if let Value::Object(bm) = branch
                    && bm
                        .keys()
                        .all(|k| !out.contains_key(k) || k == "description")
                {
                    out.shift_remove("anyOf");
                    for (k, v) in bm {
                        out.entry(k).or_insert(v);
                    }
                }
            }
            if nullable {
                out.insert("nullable".into(), Value::Bool(true));
            }
        }

        if !notes.is_empty() {
            notes.retain(|n| !n.is_empty());
            let d = messages::append_to_description(
                out.get("description").and_then(Value::as_str),
                &notes,
            );
            if !d.is_empty() {
                out.insert("description".into(), Value::String(d));
            }
        }

        if optional && self.dialect == Dialect::OpenAiStrict {
            out = make_nullable(out);
        }
        Value::Object(out)
    }

    /// True for a special keyword this dialect words in this schema: `default` outside Gemini,
    /// `minItems` other than 0 or 1 for Anthropic strict.
    fn special_in_words(&self, k: &str, m: &Map<String, Value>) -> bool {
        match k {
            "default" => self.dialect != Dialect::GeminiParameters,
            "minItems" => {
                self.dialect == Dialect::AnthropicStrict
                    && !matches!(m.get("minItems").and_then(Value::as_u64), Some(0 | 1))
            }
            _ => false,
        }
    }

    fn gemini_type(&mut self, v: &Value, out: &mut Map<String, Value>, nullable: &mut bool) {
        match v {
            Value::Array(list) => {
                let non_null: Vec<&Value> = list.iter().filter(|t| *t != "null").collect();
                if non_null.len() < list.len() {
                    *nullable = true;
                }
                match non_null.as_slice() {
                    [] => {
                        out.insert("type".into(), Value::from("null"));
                    }
                    [one] => {
                        out.insert("type".into(), (*one).clone());
                    }
                    many => {
                        let branches = many
                            .iter()
                            .map(|t| {
                                let mut b = Map::new();
                                b.insert("type".into(), (*t).clone());
                                Value::Object(b)
                            })
                            .collect();
                        out.insert("anyOf".into(), Value::Array(branches));
                    }
                }
            }
            other => {
                out.insert("type".into(), other.clone());
            }
        }
    }

    fn enum_values(
        &mut self,
        v: &Value,
        kp: &str,
        out: &mut Map<String, Value>,
        nullable: &mut bool,
    ) {
        let name = self.dialect.name();
        let Value::Array(values) = v else { return };
        let primitive = values.iter().all(|x| !x.is_array() && !x.is_object());
        match self.dialect {
            Dialect::GeminiParameters => {
                let non_null: Vec<Value> =
                    values.iter().filter(|x| !x.is_null()).cloned().collect();
                if non_null.len() < values.len() {
                    *nullable = true;
                }
                if !non_null.is_empty() && non_null.iter().all(Value::is_string) {
                    out.insert("enum".into(), Value::Array(non_null));
                    out.entry("type").or_insert_with(|| Value::from("string"));
                } else {
                    // Gemini takes only strings in an enum: the values go into words, and the
                    // type stays (or is taken from the values when they share one).
                    if let Some(t) = common_type(&non_null) {
                        out.entry("type").or_insert_with(|| Value::from(t));
                    }
                    let note = messages::describe_enum(&non_null);
                    push_note(out, note);
                }
            }
            _ => {
                if !primitive {
                    self.err("enum", kp, messages::enum_not_primitive(name));
                } else if self.dialect == Dialect::OpenAiStrict
                    && values.len() > OPENAI_STRICT_MAX_ENUM
                {
                    self.err(
                        "enum",
                        kp,
                        messages::enum_too_large(name, OPENAI_STRICT_MAX_ENUM, values.len()),
                    );
                }
                out.insert("enum".into(), v.clone());
            }
        }
    }

    fn const_value(&mut self, v: &Value, kp: &str, out: &mut Map<String, Value>) {
        let name = self.dialect.name();
        match self.dialect {
            Dialect::OpenAiStrict => {
                out.insert("const".into(), v.clone());
            }
            Dialect::AnthropicStrict => {
                if v.is_array() || v.is_object() {
                    self.err("const", kp, messages::enum_not_primitive(name));
                } else {
                    out.insert("enum".into(), Value::Array(vec![v.clone()]));
                }
            }
            _ => {
                if v.is_string() {
                    out.insert("enum".into(), Value::Array(vec![v.clone()]));
                    out.entry("type").or_insert_with(|| Value::from("string"));
                } else {
                    if let Some(t) = common_type(std::slice::from_ref(v)) {
                        out.entry("type").or_insert_with(|| Value::from(t));
                    }
                    push_note(out, messages::describe_const(v));
                }
            }
        }
    }
}

/// The one scalar JSON type of `values` (`number` for a mix of whole and other numbers),
/// `None` when they differ, are empty, or hold null, lists or objects.
fn common_type(values: &[Value]) -> Option<&'static str> {
    let mut found: Option<&'static str> = None;
    for v in values {
        let t = match value_type(v) {
            t @ ("string" | "integer" | "number" | "boolean") => t,
            _ => return None,
        };
        found = match (found, t) {
            (None, t) => Some(t),
            (Some(a), b) if a == b => Some(a),
            (Some("integer" | "number"), "integer" | "number") => Some("number"),
            _ => return None,
        };
    }
    found
}

/// Appends one note to the description already in `out`.
fn push_note(out: &mut Map<String, Value>, note: String) {
    let d =
        messages::append_to_description(out.get("description").and_then(Value::as_str), &[note]);
    out.insert("description".into(), Value::String(d));
}

/// Words for the keywords `keys` of schema `m`, in their order, with bound pairs in one note.
fn words(m: &Map<String, Value>, keys: &[&str]) -> Vec<String> {
    const PAIRS: &[(&str, &str, Bounds)] = &[
        ("minLength", "maxLength", Bounds::Length),
        ("minimum", "maximum", Bounds::Number),
        ("exclusiveMinimum", "exclusiveMaximum", Bounds::Exclusive),
        ("minItems", "maxItems", Bounds::Items),
        ("minProperties", "maxProperties", Bounds::Properties),
    ];
    let mut done: Vec<&str> = Vec::new();
    let mut notes = Vec::new();
    for &k in keys {
        if done.contains(&k) {
            continue;
        }
        let v = &m[k];
        if let Some(&(lo, hi, b)) = PAIRS.iter().find(|(lo, hi, _)| *lo == k || *hi == k) {
            let lo_v = keys.contains(&lo).then(|| m.get(lo)).flatten();
            let hi_v = keys.contains(&hi).then(|| m.get(hi)).flatten();
            done.extend([lo, hi]);
            if lo_v.is_some_and(Value::is_number) || hi_v.is_some_and(Value::is_number) {
                notes.push(messages::describe_bounds(
                    b,
                    lo_v.filter(|x| x.is_number()),
                    hi_v.filter(|x| x.is_number()),
                ));
                continue;
            }
        }
        done.push(k);
        let note = match k {
            "multipleOf" if v.is_number() => Some(messages::describe_multiple_of(v)),
            "uniqueItems" => messages::describe_unique_items(v),
            "default" => Some(messages::describe_default(v)),
            "examples" => Some(messages::describe_examples(v)),
            "deprecated" => messages::describe_deprecated(v),
            "readOnly" | "writeOnly" if v == &Value::Bool(false) => None,
            _ => Some(messages::describe_keyword(k, v)),
        };
        notes.extend(note);
    }
    notes
}

/// Makes an optional property nullable for OpenAI strict mode, where every property is required.
fn make_nullable(mut out: Map<String, Value>) -> Map<String, Value> {
    if allows_null(&Value::Object(out.clone())) {
        return out;
    }
    let null_branch = || {
        let mut n = Map::new();
        n.insert("type".into(), Value::from("null"));
        Value::Object(n)
    };
    let choice = out.contains_key("enum") || out.contains_key("const");
    if !choice && let Some(Value::Array(b)) = out.get_mut("anyOf") {
        b.push(null_branch());
        return out;
    }
    // A plain scalar takes null in a type list, as OpenAI's own examples write it; objects,
    // lists, enums and constants take it as a second branch.
    if !choice
        && let Some(Value::String(t)) = out.get_mut("type")
        && matches!(t.as_str(), "string" | "integer" | "number" | "boolean")
    {
        let t = t.clone();
        out.insert(
            "type".into(),
            Value::Array(vec![Value::String(t), Value::from("null")]),
        );
        return out;
    }
    let mut outer = Map::new();
    for k in ["title", "description"] {
        if let Some(v) = out.shift_remove(k) {
            outer.insert(k.into(), v);
        }
    }
    outer.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(out), null_branch()]),
    );
    outer
}

/// Removes, from tool arguments a model sent under [`Dialect::OpenAiStrict`], the `null` values
/// of properties that the normalised schema does not require and that do not take null: in
/// strict mode the model must send every property, and sends null for one it leaves out.
///
/// `normalised` is the output of [`normalise`]; `arguments` the model's arguments (an object).
/// Nested objects and lists of objects are handled too. Anything that does not fit the schema's
/// shape is left alone for the argument check to report.
pub fn drop_strict_nulls(normalised: &Value, arguments: &mut Value) {
    drop_nulls_at(normalised, arguments, MAX_DEPTH);
}

fn drop_nulls_at(schema: &Value, args: &mut Value, left: usize) {
    if left == 0 {
        return;
    }
    let Value::Object(s) = schema else { return };
    match args {
        Value::Object(a) => {
            let Some(Value::Object(props)) = s.get("properties") else {
                return;
            };
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, p) in props {
                if a.get(name).is_some_and(Value::is_null)
                    && !required.contains(&name.as_str())
                    && !allows_null(p)
                {
                    a.shift_remove(name);
                }
                if let Some(child) = a.get_mut(name) {
                    drop_nulls_at(p, child, left - 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.get("items") {
                for item in items {
                    drop_nulls_at(item_schema, item, left - 1);
                }
            }
        }
        _ => {}
    }
}
