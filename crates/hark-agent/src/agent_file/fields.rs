//! Field definitions (State values, webhook inputs and outputs) into JSON Schemas.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::messages;
use super::toml_shape::{FieldFormat, FieldType};

/// Whether `null` is a value of the field (State values: unset is `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nullable {
    Yes,
    No,
}

fn type_name(kind: FieldType) -> &'static str {
    match kind {
        FieldType::String
        | FieldType::Date
        | FieldType::Time
        | FieldType::DateTime
        | FieldType::Phone => "string",
        FieldType::Integer => "integer",
        FieldType::Number => "number",
        FieldType::Boolean => "boolean",
        FieldType::Object => "object",
        FieldType::Array => "array",
    }
}

/// The JSON Schema of one field; problems with its keys go to `problems`, prefixed by `place`.
pub(crate) fn schema(
    field: &FieldFormat,
    place: &str,
    nullable: Nullable,
    problems: &mut Vec<String>,
) -> Value {
    let mut out = Map::new();
    let name = type_name(field.kind);
    out.insert(
        "type".into(),
        match nullable {
            Nullable::Yes => json!([name, "null"]),
            Nullable::No => json!(name),
        },
    );
    let format = match field.kind {
        FieldType::Date => Some("date"),
        FieldType::Time => Some("time"),
        FieldType::DateTime => Some("date-time"),
        FieldType::Phone => Some("phone"),
        _ => None,
    };
    if let Some(format) = format {
        out.insert("format".into(), json!(format));
    }
    if let Some(description) = &field.description {
        out.insert("description".into(), json!(description));
    }
    if let Some(values) = &field.values {
        if values.is_empty() {
            problems.push(messages::field_values_empty(place));
        } else if field.kind == FieldType::String {
            let mut list: Vec<Value> = values.iter().map(|v| json!(v)).collect();
            if nullable == Nullable::Yes {
                list.push(Value::Null);
            }
            out.insert("enum".into(), Value::Array(list));
        } else {
            problems.push(messages::field_key_needs_type(place, "values", "string"));
        }
    }
    let numeric = matches!(field.kind, FieldType::Integer | FieldType::Number);
    for (key, bound, limit) in [("min", field.min, "minimum"), ("max", field.max, "maximum")] {
        if let Some(bound) = bound {
            if numeric {
                out.insert(limit.into(), number(bound, field.kind));
            } else {
                problems.push(messages::field_key_needs_type(
                    place,
                    key,
                    "integer or number",
                ));
            }
        }
    }
    // A webhook input's range is checked where every tool's is (`hark_tools`' build names the
    // argument, the bounds and the fix; [`parameters`]' places read `webhook <name>: input.…`);
    // an output's and a state field's here.
    if let (Some(min), Some(max)) = (field.min, field.max)
        && min > max
        && !place.contains(": input.")
    {
        problems.push(messages::min_above_max(place));
    }
    match (&field.fields, field.kind) {
        (Some(fields), FieldType::Object) => {
            let (properties, required) = object(fields, place, problems);
            out.insert("properties".into(), properties);
            out.insert("required".into(), required);
        }
        (Some(_), _) => problems.push(messages::field_key_needs_type(place, "fields", "object")),
        (None, _) => {}
    }
    match (&field.items, field.kind) {
        (Some(item), FieldType::Array) => {
            let item = schema(item, &format!("{place} items"), Nullable::No, problems);
            out.insert("items".into(), item);
        }
        (Some(_), _) => problems.push(messages::field_key_needs_type(place, "items", "array")),
        (None, _) => {}
    }
    Value::Object(out)
}

fn number(bound: f64, kind: FieldType) -> Value {
    if kind == FieldType::Integer && bound.fract() == 0.0 && bound.abs() < 9.0e15 {
        // A whole bound of an integer reads as one (`"minimum": 1`, not `1.0`).
        json!(bound as i64)
    } else {
        json!(bound)
    }
}

/// `properties` and `required` of an object of fields (`optional = false` fields are required).
pub(crate) fn object(
    fields: &BTreeMap<String, FieldFormat>,
    place: &str,
    problems: &mut Vec<String>,
) -> (Value, Value) {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, field) in fields {
        let sub = schema(field, &format!("{place}.{name}"), Nullable::No, problems);
        properties.insert(name.clone(), sub);
        if !field.optional {
            required.push(json!(name));
        }
    }
    (Value::Object(properties), Value::Array(required))
}

/// The parameters schema of a webhook's inputs.
pub(crate) fn parameters(
    fields: &BTreeMap<String, FieldFormat>,
    place: &str,
    problems: &mut Vec<String>,
) -> Value {
    let (properties, required) = object(fields, place, problems);
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The output schema of a webhook's outputs.
pub(crate) fn output(
    fields: &BTreeMap<String, FieldFormat>,
    place: &str,
    problems: &mut Vec<String>,
) -> Value {
    let (properties, required) = object(fields, place, problems);
    json!({"type": "object", "properties": properties, "required": required})
}

/// `OrderStatus` for `order_status`: the output's name in messages.
pub(crate) fn output_name(tool: &str) -> String {
    let mut name = String::new();
    for part in tool.split(['_', '-']).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    if name.is_empty() {
        "Result".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(toml: &str) -> FieldFormat {
        toml::from_str(toml).unwrap()
    }

    #[test]
    fn types_become_schemas() {
        let mut problems = Vec::new();
        let s = schema(
            &field("type = \"date\"\ndescription = \"The day.\""),
            "x",
            Nullable::No,
            &mut problems,
        );
        assert_eq!(
            s,
            json!({"type": "string", "format": "date", "description": "The day."})
        );
        let s = schema(
            &field("type = \"string\"\nvalues = [\"a\", \"b\"]"),
            "x",
            Nullable::Yes,
            &mut problems,
        );
        assert_eq!(
            s,
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
        let s = schema(
            &field("type = \"integer\"\nmin = 1\nmax = 12"),
            "x",
            Nullable::No,
            &mut problems,
        );
        assert_eq!(s, json!({"type": "integer", "minimum": 1, "maximum": 12}));
        assert!(problems.is_empty());
        assert_eq!(output_name("order_status"), "OrderStatus");
    }

    #[test]
    fn keys_of_another_type_are_problems() {
        let mut problems = Vec::new();
        schema(
            &field("type = \"boolean\"\nvalues = [\"x\"]\nmin = 3"),
            "webhook t: input a",
            Nullable::No,
            &mut problems,
        );
        assert_eq!(
            problems,
            [
                "webhook t: input a: values belongs to type string. Change the type, or remove values.",
                "webhook t: input a: min belongs to type integer or number. Change the type, or remove min."
            ]
        );
    }
}
