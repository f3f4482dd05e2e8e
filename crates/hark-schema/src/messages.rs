//! Every sentence this crate writes: refusals a developer reads when a tool is built, and the
//! words a model reads in a schema's `description` in place of a keyword.
//!
//! Tests in `tests/messages.rs` pin these texts word for word.

use serde_json::Value;

/// The keywords the root of the parameters may hold, as the refusal lists them.
pub const ROOT_KEYWORDS_TEXT: &str = "$schema, $defs, type (\"object\"), properties, required, \
additionalProperties, description, title, $comment and x- keys";

/// A hand-written schema's `definitions` and `$id` are refused.
pub fn definitions_refused() -> String {
    "definitions and $id are refused. Use $defs and local #/$defs/... references.".to_owned()
}

/// `nullable` is refused. `type_name` is the schema's own `type` when it has one (filled into
/// the suggestion), else the placeholder `<type>` stays.
pub fn nullable_refused(type_name: Option<&str>) -> String {
    let t = type_name.unwrap_or("<type>");
    format!(
        "nullable is not JSON Schema, so it is refused. Write \"type\": [\"{t}\", \"null\"] instead."
    )
}

/// A keyword at the root that frameworks would lose is refused.
pub fn root_keyword_refused(keyword: &str) -> String {
    // An empty key is shown as "" so the sentence still names it.
    let keyword = if keyword.is_empty() { "\"\"" } else { keyword };
    format!(
        "{keyword} is not allowed at the root. The root of the parameters is a plain object \
schema. It may hold only {ROOT_KEYWORDS_TEXT}. Frameworks send only the root properties and \
required, so {keyword} would be lost on one of them. Move it into a property, or wrap the choice \
in one property."
    )
}

/// The root's `type` is not `"object"`: refused.
pub fn root_type_not_object(found: &Value) -> String {
    format!(
        "The root of the parameters is a plain object schema, so its type must be \"object\", \
not {}. Wrap the value in one property.",
        json_text(found)
    )
}

/// The parameters are not a JSON object at all (`true`, an array, a string…).
pub fn root_not_object(found: &Value) -> String {
    format!(
        "The parameters must be a JSON Schema object with \"type\": \"object\", not {}.",
        short(found)
    )
}

/// A keyword that must hold a schema (or schemas) holds something else.
pub fn not_a_schema(keyword: &str, expected: &str) -> String {
    format!("{keyword} must hold {expected}. Fix its value.")
}

/// `type` holds something other than a type name or a list of them.
pub fn bad_type(found: &Value) -> String {
    format!(
        "type must be one of \"object\", \"array\", \"string\", \"integer\", \"number\", \
\"boolean\", \"null\", or a list of them, not {}.",
        short(found)
    )
}

/// `required` holds something other than a list of property names.
pub fn bad_required(found: &Value) -> String {
    format!(
        "required must be a list of property names, not {}.",
        short(found)
    )
}

/// `enum` holds something other than a non-empty list.
pub fn bad_enum(found: &Value) -> String {
    format!(
        "enum must be a non-empty list of values, not {}.",
        short(found)
    )
}

/// A `$ref` that is not a string.
pub fn ref_not_string(found: &Value) -> String {
    format!(
        "$ref must be a string like \"#/$defs/Name\", not {}.",
        short(found)
    )
}

/// A `$ref` to another document.
pub fn ref_not_local(reference: &str) -> String {
    format!(
        "{reference} is not a local reference. Only local references like #/$defs/Name can be \
inlined: put the schema under $defs."
    )
}

/// A local `$ref` whose target does not exist.
pub fn ref_missing(reference: &str) -> String {
    format!("{reference} points to nothing in this schema. Add it under $defs, or fix the name.")
}

/// `$dynamicRef` / `$recursiveRef`: cannot be inlined.
pub fn dynamic_ref_refused(keyword: &str) -> String {
    format!("{keyword} cannot be inlined. Use a plain local $ref to #/$defs/Name.")
}

/// A `$ref` cycle: a recursive type cannot be inlined. `chain` lists the definitions from the
/// first to the one that refers back, e.g. `["Node", "Node"]`.
pub fn ref_cycle(definition: &str, chain: &[String]) -> String {
    format!(
        "{definition} refers to itself ({}), and a recursive type cannot be inlined into the \
schema the model reads. Cut the cycle: give the nested value a plain type, or limit the nesting \
to a fixed depth with separate types.",
        chain.join(" → ")
    )
}

/// The schema (as written, or once its `$ref`s are inlined) nests deeper than `limit` levels.
pub fn too_deep(limit: usize) -> String {
    format!(
        "The schema nests deeper than {limit} levels. Flatten it: a model cannot fill values \
nested that deeply."
    )
}

/// The schema grows past `limit` schema nodes once its `$ref`s are inlined.
pub fn too_big(limit: usize) -> String {
    format!(
        "The schema grows past {limit} schemas once its $refs are inlined. Use fewer nested \
types, or fewer references to the large ones."
    )
}

// ---------------------------------------------------------------------------------------------
// Refusals of a provider dialect.

/// A dialect needs every object closed, and this one takes any key.
pub fn open_object_refused(dialect: &str, keyword: &str) -> String {
    format!(
        "{dialect} needs every object closed, and this one takes keys the schema does not name \
({keyword} is true or a schema). Give the object named properties, or take the map \
as a list of objects with a key and a value."
    )
}

/// A value that accepts anything (`true`, `{}`, no type): the dialect needs a type.
pub fn any_value_refused(dialect: &str) -> String {
    format!(
        "This value accepts anything, and {dialect} needs a type for every value. Give it a \
type, or take it as a JSON string."
    )
}

/// A `false` schema: no value fits, which the dialect cannot say.
pub fn false_schema_refused(dialect: &str) -> String {
    format!(
        "No value fits this schema (it is false), and {dialect} cannot say that. Remove the property."
    )
}

/// A keyword the dialect refuses and whose meaning cannot be moved into words safely.
pub fn keyword_refused(dialect: &str, keyword: &str) -> String {
    format!(
        "{dialect} does not support {keyword}, and the tool's arguments would change without it. \
Rewrite the schema without {keyword}, for example as one property per choice."
    )
}

/// An `enum` with objects or lists among its values.
pub fn enum_not_primitive(dialect: &str) -> String {
    format!(
        "{dialect} takes only strings, numbers, booleans and null in an enum. Use an enum of \
names and map them to values in the tool."
    )
}

/// More enum values than the dialect allows.
pub fn enum_too_large(dialect: &str, limit: usize, found: usize) -> String {
    format!(
        "{dialect} allows at most {limit} enum values, and this enum has {found}. Take the value as text and check it in the tool."
    )
}

/// Objects nested deeper than the dialect allows.
pub fn objects_too_deep(dialect: &str, limit: usize) -> String {
    format!("{dialect} allows objects nested at most {limit} levels deep. Flatten the arguments.")
}

// ---------------------------------------------------------------------------------------------
// Rules a provider's API checks on a tool schema as it is sent (`provider_rules.rs`): what the
// API answers with a 400, in words a developer reads.

/// The root is not `type: object`.
pub fn rule_root_object(dialect: &str) -> String {
    format!("{dialect} takes only an object schema (\"type\": \"object\") as a tool's parameters.")
}

/// A keyword the provider refuses.
pub fn rule_keyword_refused(dialect: &str, keyword: &str) -> String {
    format!("{dialect} refuses {keyword}.")
}

/// An object that is not closed in a strict mode.
pub fn rule_closed_object(dialect: &str) -> String {
    format!("{dialect} needs \"additionalProperties\": false on every object.")
}

/// A property left out of `required` in OpenAI strict mode.
pub fn rule_every_property_required(dialect: &str, property: &str) -> String {
    format!(
        "{dialect} needs every property in required, and {property} is not (an optional value \
is written as a type list with \"null\")."
    )
}

/// A string format the provider does not take.
pub fn rule_format_refused(dialect: &str, format: &str) -> String {
    format!("{dialect} does not take the string format {format}.")
}

/// A Gemini `parameters` key that is not a field of its `Schema`.
pub fn rule_gemini_unknown_field(key: &str) -> String {
    format!(
        "Gemini parameters: Invalid JSON payload received. Unknown name \"{key}\": it is not \
a field of Gemini's Schema (an OpenAPI subset)."
    )
}

/// A Gemini `type` that is a list, or not one of its types.
pub fn rule_gemini_one_type(found: &Value) -> String {
    format!(
        "Gemini parameters take one type per schema (string, number, integer, boolean, array or \
object), and this one is {found}: a type list is refused (\"Proto field is not repeating\"); \
write one type with \"nullable\": true."
    )
}

/// A Gemini schema without a type.
pub fn rule_gemini_type_missing() -> String {
    "Gemini parameters need a type on every schema (or anyOf).".to_owned()
}

/// A Gemini `anyOf` beside other fields.
pub fn rule_gemini_any_of_alone() -> String {
    "Gemini parameters: when using anyOf it must be the only field.".to_owned()
}

/// A Gemini object without properties.
pub fn rule_gemini_empty_object() -> String {
    "Gemini parameters: properties should be non-empty for OBJECT type (a tool without \
arguments is declared without parameters)."
        .to_owned()
}

/// A Gemini `required` entry that names no property.
pub fn rule_gemini_required_unknown(name: &str) -> String {
    format!("Gemini parameters: required names {name}, which is not defined in properties.")
}

/// A Gemini array without one item schema.
pub fn rule_gemini_array_items() -> String {
    "Gemini parameters: an array needs items, one schema.".to_owned()
}

/// A Gemini subschema that is not an object.
pub fn rule_gemini_not_a_schema() -> String {
    "Gemini parameters: every schema is an object.".to_owned()
}

// ---------------------------------------------------------------------------------------------
// Words the model reads in place of a keyword.

/// Words for a `format`. `None` for the integer and number formats schemars writes (`uint8`,
/// `int32`, `double`…): they say nothing beyond the type and the bounds.
pub fn describe_format(format: &str) -> Option<String> {
    let words = match format {
        "int8" | "int16" | "int32" | "int64" | "int128" | "int" | "uint8" | "uint16" | "uint32"
        | "uint64" | "uint128" | "uint" | "float" | "double" => return None,
        "date" => "A date written YYYY-MM-DD.".to_owned(),
        "date-time" => "A date and time written YYYY-MM-DDTHH:MM:SS with its UTC offset, like \
2026-10-16T09:30:00+02:00."
            .to_owned(),
        "local-date-time" => "A local date and time written YYYY-MM-DDTHH:MM:SS, without a UTC \
offset, like 2026-10-16T09:30:00."
            .to_owned(),
        "time" => "A time of day written HH:MM:SS, like 09:30:00.".to_owned(),
        "duration" => "A duration written in ISO 8601, like PT1H30M.".to_owned(),
        "email" | "idn-email" => "An email address.".to_owned(),
        "hostname" | "idn-hostname" => "A host name, like example.com.".to_owned(),
        "ipv4" => "An IPv4 address, like 192.0.2.1.".to_owned(),
        "ipv6" => "An IPv6 address, like 2001:db8::1.".to_owned(),
        "uri" | "iri" => "A full web address, like https://example.com/page.".to_owned(),
        "uri-reference" | "iri-reference" => "A web address, full or relative.".to_owned(),
        "uuid" => "A UUID, like 123e4567-e89b-12d3-a456-426614174000.".to_owned(),
        "phone" => "A phone number, with its country code when the caller gives one.".to_owned(),
        "spelled" => "Write it exactly as the caller spells it, letter by letter.".to_owned(),
        "regex" => "A regular expression.".to_owned(),
        "json-pointer" => "A JSON pointer, like /a/b.".to_owned(),
        other => format!("Written in the {other} format."),
    };
    Some(words)
}

/// Words for a `pattern`.
pub fn describe_pattern(pattern: &str) -> String {
    format!("It matches the regular expression {pattern}")
        + if pattern.ends_with('.') { "" } else { "." }
}

/// Which pair of bound keywords a note describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bounds {
    /// `minLength` / `maxLength`: characters.
    Length,
    /// `minimum` / `maximum`: the number itself.
    Number,
    /// `exclusiveMinimum` / `exclusiveMaximum`.
    Exclusive,
    /// `minItems` / `maxItems`: list items.
    Items,
    /// `minProperties` / `maxProperties`: entries of an object.
    Properties,
}

/// Words for a pair of bounds (either may be absent), e.g. "From 1 to 12." or
/// "At least 1 character.".
pub fn describe_bounds(kind: Bounds, min: Option<&Value>, max: Option<&Value>) -> String {
    let unit = |n: &Value| -> &'static str {
        let one = n.as_f64() == Some(1.0);
        match (kind, one) {
            (Bounds::Length, true) => " character",
            (Bounds::Length, false) => " characters",
            (Bounds::Items, true) => " item",
            (Bounds::Items, false) => " items",
            (Bounds::Properties, true) => " entry",
            (Bounds::Properties, false) => " entries",
            _ => "",
        }
    };
    match (kind, min, max) {
        (Bounds::Exclusive, Some(a), Some(b)) => {
            format!("Greater than {} and less than {}.", num(a), num(b))
        }
        (Bounds::Exclusive, Some(a), None) => format!("Greater than {}.", num(a)),
        (Bounds::Exclusive, None, Some(b)) => format!("Less than {}.", num(b)),
        (_, Some(a), Some(b)) if a == b => format!("Exactly {}{}.", num(a), unit(a)),
        (_, Some(a), Some(b)) => format!("From {} to {}{}.", num(a), num(b), unit(b)),
        (_, Some(a), None) => format!("At least {}{}.", num(a), unit(a)),
        (_, None, Some(b)) => format!("At most {}{}.", num(b), unit(b)),
        (_, None, None) => String::new(),
    }
}

/// Words for `multipleOf`.
pub fn describe_multiple_of(n: &Value) -> String {
    format!("A multiple of {}.", num(n))
}

/// Words for `uniqueItems: true` (`None` for `false`, which is the default and says nothing).
pub fn describe_unique_items(v: &Value) -> Option<String> {
    (v == &Value::Bool(true)).then(|| "No item twice.".to_owned())
}

/// Words for a `default` the dialect cannot keep.
pub fn describe_default(v: &Value) -> String {
    format!("Default: {}.", json_text(v))
}

/// Words for `examples`.
pub fn describe_examples(v: &Value) -> String {
    match v {
        Value::Array(items) => format!(
            "For example: {}.",
            items.iter().map(json_text).collect::<Vec<_>>().join(", ")
        ),
        other => format!("For example: {}.", json_text(other)),
    }
}

/// Words for a `const` the dialect cannot keep.
pub fn describe_const(v: &Value) -> String {
    format!("Always {}.", json_text(v))
}

/// Words for an `enum` the dialect cannot keep (Gemini takes only strings).
pub fn describe_enum(values: &[Value]) -> String {
    format!(
        "One of {}.",
        values.iter().map(json_text).collect::<Vec<_>>().join(", ")
    )
}

/// Words for one documented choice of an enum written as `oneOf` of `const`s.
pub fn describe_choice(value: &Value, description: &str) -> String {
    let d = description.trim();
    let end = if d.ends_with(['.', '!', '?']) {
        ""
    } else {
        "."
    };
    format!("{}: {d}{end}", json_text(value))
}

/// Words for `deprecated: true` (`None` for `false`).
pub fn describe_deprecated(v: &Value) -> Option<String> {
    (v == &Value::Bool(true)).then(|| "Deprecated: leave it out.".to_owned())
}

/// Words for any other keyword the dialect does not take: its name and value.
pub fn describe_keyword(keyword: &str, v: &Value) -> String {
    format!("{keyword}: {}.", json_text(v))
}

/// The description with `notes` appended, each a full sentence. An empty description gives the
/// notes alone; a description without closing punctuation gets a full stop first.
pub fn append_to_description(description: Option<&str>, notes: &[String]) -> String {
    let mut out = description.unwrap_or("").trim_end().to_owned();
    for note in notes.iter().filter(|n| !n.is_empty()) {
        if !out.is_empty() {
            if !out.ends_with(['.', '!', '?', ':']) {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(note);
    }
    out
}

fn num(v: &Value) -> String {
    json_text(v)
}

/// A value as JSON text: strings quoted, numbers as written.
pub(crate) fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A value as JSON text, cut to 80 characters for error messages.
fn short(v: &Value) -> String {
    let t = json_text(v);
    if t.chars().count() > 80 {
        t.chars().take(77).collect::<String>() + "..."
    } else {
        t
    }
}
