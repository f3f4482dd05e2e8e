//! Build-time checks of the numeric ranges in a tool's parameters schema: a range no value can
//! meet (`minimum` above `maximum`), a bound wider than the Rust integer type holds (schemars
//! writes the type as `format: "uint8"` …), and a default outside its own range. Each would
//! otherwise reach the model as a promise no call can keep, or the function as a value its own
//! range refuses.

use serde_json::{Map, Value};

use crate::messages;

/// Every range problem in `schema`, each naming the argument's path and the fix.
pub fn range_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "", &mut problems);
    problems
}

fn walk(schema: &Value, path: &str, problems: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if !path.is_empty() {
                check(map, path, problems);
            }
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("properties", Value::Object(properties)) => {
                        for (name, property) in properties {
                            let inner = if path.is_empty() {
                                name.clone()
                            } else {
                                format!("{path}.{name}")
                            };
                            walk(property, &inner, problems);
                        }
                    }
                    ("$defs" | "definitions", Value::Object(defs)) => {
                        for (name, def) in defs {
                            walk(def, &format!("{name} (a type)"), problems);
                        }
                    }
                    ("default" | "const" | "enum" | "examples", _) => {}
                    _ => walk(value, path, problems),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, path, problems);
            }
        }
        _ => {}
    }
}

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

/// What a Rust integer type named by schemars' `format` holds.
fn type_range(format: &str) -> Option<(f64, f64, &'static str)> {
    Some(match format {
        "uint8" => (0.0, f64::from(u8::MAX), "u8"),
        "uint16" => (0.0, f64::from(u16::MAX), "u16"),
        "uint32" => (0.0, f64::from(u32::MAX), "u32"),
        "int8" => (f64::from(i8::MIN), f64::from(i8::MAX), "i8"),
        "int16" => (f64::from(i16::MIN), f64::from(i16::MAX), "i16"),
        "int32" => (f64::from(i32::MIN), f64::from(i32::MAX), "i32"),
        _ => return None,
    })
}

fn check(map: &Map<String, Value>, path: &str, problems: &mut Vec<String>) {
    let low = number(map, "minimum").or_else(|| number(map, "exclusiveMinimum"));
    let high = number(map, "maximum").or_else(|| number(map, "exclusiveMaximum"));
    if let (Some(low), Some(high)) = (low, high)
        && low > high
    {
        problems.push(messages::range_swapped(path, low, high));
        return;
    }
    if let Some((least, most, rust)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(type_range)
    {
        if let Some(high) = high.filter(|h| *h > most) {
            problems.push(messages::range_wider_than_type(
                path, "maximum", high, rust, most,
            ));
        }
        if let Some(low) = low.filter(|l| *l < least) {
            problems.push(messages::range_wider_than_type(
                path, "minimum", low, rust, least,
            ));
        }
    }
    let Some(default) = map.get("default").and_then(Value::as_f64) else {
        return;
    };
    let below = number(map, "minimum").is_some_and(|m| default < m)
        || number(map, "exclusiveMinimum").is_some_and(|m| default <= m);
    let above = number(map, "maximum").is_some_and(|m| default > m)
        || number(map, "exclusiveMaximum").is_some_and(|m| default >= m);
    if below || above {
        problems.push(messages::default_out_of_range(path, default, low, high));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_sound_schema_has_no_problems() {
        let schema = json!({"type": "object", "properties": {
            "party": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 12, "default": 2},
            "price": {"type": "number", "exclusiveMinimum": 0.0}
        }});
        assert!(range_problems(&schema).is_empty());
    }

    #[test]
    fn each_kind_of_range_mistake_is_named_with_its_fix() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 12, "maximum": 1},
            "m": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 1000},
            "k": {"type": "integer", "minimum": 1, "maximum": 12, "default": 40},
            "inner": {"type": "object", "properties": {"x": {"type": "number", "minimum": 3, "maximum": 2}}}
        }});
        assert_eq!(
            range_problems(&schema),
            vec![
                "n: the minimum 12 is above the maximum 1, so no value can pass. Swap them.",
                "m: the maximum 1000 is more than a u8 holds (255). Lower it, or give the argument a wider type.",
                "k: the default 40 is outside its range (1 to 12). Change the default or the range.",
                "inner.x: the minimum 3 is above the maximum 2, so no value can pass. Swap them.",
            ]
        );
    }
}
