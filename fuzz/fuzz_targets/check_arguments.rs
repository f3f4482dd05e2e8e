//! The whole call path of `hark_tools::ToolRegistry` on arbitrary argument bytes.
//!
//! Two tools are built once: `book_table` (the `#[tool]` macro: a date, a ranged integer with a
//! default, an enum with a default, a bounded string, an optional phone number) and `echo` (the
//! dynamic path, `ToolSpec::new`: nested objects, arrays, `anyOf`, a nullable field, open
//! objects; its executor returns its arguments, so the result check `Output::check` runs on
//! fuzz-shaped results too). Each input is sent to both tools as the raw arguments text, and as
//! a JSON value when it parses. Checks, besides "never panics":
//! - exactly one terminal sink event per call, matching the outcome's status, and `tool.started`
//!   only when the tool ran;
//! - the model text is valid JSON and equals `model_result`;
//! - a refusal names the tool (and every missing argument it lists);
//! - no argument value reaches a sink event (strings of 4+ characters, numbers that could not be
//!   an array index), once field names, the tool's name and the event texts' fixed words are
//!   taken out of the event text.
//!
//! An input that is a JSON array `[schema, result]` also checks `Output::check` against the walk
//! it did before its shape was compiled (`reference_shape` below, then the schema's validator):
//! the same checked result, key order included, and an error exactly when that walk gives one.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run check_arguments corpus/check_arguments seeds/check_arguments -- -dict=arguments.dict -max_len=4096`
#![no_main]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex};
use std::task::{Context, Poll, Waker};

use hark_tools::{
    Arguments, CallStatus, Output, Phone, ToolContext, ToolError, ToolErrorKind, ToolEvent,
    ToolExecutor, ToolOutcome, ToolRegistry, ToolSpec, ToolStage, tool,
};
use jiff::civil::Date;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booking {
    reference: String,
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    party: u8,
    seating: Seating,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

/// Book a table.
///
/// # Arguments
/// * `day` - The day the caller wants.
/// * `party` - How many people come.
/// * `seating` - Where they sit.
/// * `name` - The name for the booking.
/// * `phone` - A number to call back.
#[tool]
async fn book_table(
    day: Date,
    #[arg(range(min = 1, max = 12), default = 2)] party: u8,
    #[arg(default = Seating::Inside)] seating: Seating,
    #[arg(length(min = 1, max = 40))] name: String,
    phone: Option<Phone>,
) -> Result<Booking, ToolError> {
    let _ = (name, phone);
    Ok(Booking {
        reference: "B-12".into(),
        day,
        party,
        seating,
    })
}

/// Returns its arguments as its result.
#[derive(Debug)]
struct Echo;

impl ToolExecutor for Echo {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send + 'a>> {
        Box::pin(async move { Ok(Value::Object(arguments)) })
    }
}

fn echo_tool() -> ToolSpec {
    let item = json!({
        "type": "object",
        "properties": {
            "sku": {"type": "string", "minLength": 1, "maxLength": 12},
            "count": {"type": "integer", "minimum": 1, "default": 1}
        },
        "required": ["sku"]
    });
    let parameters = json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["held", "shipped"]},
            "note": {"type": ["string", "null"], "maxLength": 80},
            "items": {"type": "array", "items": item, "maxItems": 8},
            "total": {"type": "number", "minimum": 0},
            "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
            "extra": {"type": "object", "additionalProperties": true}
        },
        "required": ["status", "note"]
    });
    let output = Output::json(
        "Order",
        json!({
            "type": "object",
            "$defs": {"Item": item},
            "properties": {
                "status": {"type": "string", "enum": ["held", "shipped"]},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "total": {"type": "number", "default": 0},
                "when": {"anyOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {"day": {"type": "string", "default": "today"}}}
                ]},
                "extra": {"type": "object", "additionalProperties": true}
            },
            "required": ["status"]
        }),
    );
    ToolSpec::new(
        "echo",
        "Return the order as given.",
        parameters,
        output,
        Arc::new(Echo),
    )
    .expect("the echo tool builds")
}

struct Harness {
    registry: ToolRegistry,
    events: Arc<Mutex<Vec<ToolEvent>>>,
    context: ToolContext,
}

static HARNESS: LazyLock<Harness> = LazyLock::new(|| {
    let registry = ToolRegistry::new(vec![
        book_table_tool().expect("book_table builds"),
        echo_tool(),
    ])
    .expect("the registry builds");
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink_events = Arc::clone(&events);
    registry.listen(Arc::new(move |event: &ToolEvent| {
        sink_events.lock().unwrap().push(event.clone());
        Ok(())
    }));
    Harness {
        registry,
        events,
        context: ToolContext::default(),
    }
});

/// Polls a future that never waits (both tools finish on their first poll).
fn run_now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("a tool call did not finish without waiting");
}

/// Fixed words of the event texts (see `registry.rs`), and the keywords jsonschema names.
const EVENT_WORDS: &[&str] = &[
    "arguments are not a JSON object",
    "unknown arguments",
    "unknown tool",
    "invalid arguments",
    "result does not fit",
    "the result reports an error",
    "failed before completing",
    "missing",
    "(arguments)",
    "(root)",
    "Order",
    "Booking",
];

/// Leaf values of the arguments that a sink must never see, and every key (keys may show).
fn leaves(value: &Value, values: &mut Vec<Value>, keys: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                keys.push(k.clone());
                leaves(v, values, keys);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| leaves(v, values, keys)),
        Value::String(s) => {
            // A JSON text inside a JSON string is decoded once more (double encoding).
            if let Ok(inner) = serde_json::from_str::<Value>(s) {
                if inner.is_object() {
                    leaves(&inner, values, keys);
                }
            }
            values.push(value.clone());
        }
        Value::Number(_) => values.push(value.clone()),
        _ => {}
    }
}

/// `party (maximum), day (type)` → `party \0, day \0`: jsonschema keywords in parentheses.
fn strip_keywords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let word_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '$'))
            .unwrap_or(after.len());
        if word_len > 0 && after[word_len..].starts_with(')') {
            out.push('\u{0}');
            rest = &after[word_len + 1..];
        } else {
            out.push('(');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn check(
    tool: &str,
    outcome: &ToolOutcome,
    events: &[ToolEvent],
    sent: Option<&Value>,
    len: usize,
) {
    // One outcome, and the sinks agree with it.
    let terminal: Vec<&ToolEvent> = events
        .iter()
        .filter(|e| e.stage != ToolStage::Started)
        .collect();
    assert_eq!(terminal.len(), 1, "one terminal event per call: {events:?}");
    let expected = match outcome.status {
        CallStatus::Succeeded => ToolStage::Succeeded,
        CallStatus::Failed => ToolStage::Failed,
        CallStatus::Refused => ToolStage::Refused,
        // Only a `continue` tool whose reply was cut off is still running; neither tool is one.
        CallStatus::StillRunning => panic!("a call that is not a continue tool is still running"),
    };
    assert_eq!(terminal[0].stage, expected);
    let started = events
        .iter()
        .filter(|e| e.stage == ToolStage::Started)
        .count();
    assert!(started <= 1);
    if started == 1 {
        assert_eq!(events[0].stage, ToolStage::Started, "started comes first");
    }
    assert!(events.iter().all(|e| e.tool == tool));

    // The model text is JSON, and it is the model result.
    let text = outcome.model_text();
    let parsed: Value = serde_json::from_str(&text).expect("the model text is valid JSON");
    assert_eq!(parsed, outcome.model_result);

    // A refusal names the tool, and the missing arguments it lists.
    if outcome.status == CallStatus::Refused {
        let refused = outcome.model_result["refused"]
            .as_str()
            .expect("a refusal has text");
        assert!(refused.contains(tool), "a refusal names {tool}: {refused}");
        if let Some(ToolErrorKind::ArgumentsMissing(missing)) =
            outcome.error.as_ref().map(|e| e.kind())
        {
            assert!(!missing.is_empty());
            for m in missing {
                assert!(refused.contains(m.as_str()), "{refused} names {m}");
            }
        }
    }
    if outcome.status == CallStatus::Succeeded {
        assert!(outcome.error.is_none());
    }

    // No argument value in a sink event.
    let Some(sent) = sent else { return };
    let (mut values, mut keys) = (Vec::new(), Vec::new());
    leaves(sent, &mut values, &mut keys);
    keys.push(tool.to_string());
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    for event in events {
        let Some(error) = &event.error else { continue };
        // Fixed words first, then keywords in parentheses, then keys (longest first): what is
        // left is what a value could have put there.
        let mut rest = error.clone();
        for word in EVENT_WORDS {
            rest = rest.replace(word, "\u{0}");
        }
        rest = strip_keywords(&rest);
        for key in &keys {
            if !key.is_empty() {
                rest = rest.replace(key.as_str(), "\u{0}");
            }
        }
        for value in &values {
            let shown = match value {
                Value::String(s) if s.chars().count() >= 4 && !s.contains('\u{0}') => s.clone(),
                Value::Number(n) => {
                    let t = n.to_string();
                    let index_like = n.as_u64().is_some_and(|i| (i as usize) < len);
                    if index_like {
                        continue;
                    }
                    t
                }
                _ => continue,
            };
            assert!(
                !rest.contains(&shown),
                "the value {shown:?} reached a sink: {error:?} (stage {:?})",
                event.stage
            );
        }
    }
}

fn call(tool: &str, raw: hark_tools::RawArguments<'_>, sent: Option<&Value>, len: usize) {
    let harness = &*HARNESS;
    harness.events.lock().unwrap().clear();
    let outcome = run_now(harness.registry.call(tool, raw, &harness.context));
    let events = std::mem::take(&mut *harness.events.lock().unwrap());
    check(tool, &outcome, &events, sent, len);
}

/// The walk `Output::check` did before its shape was compiled (hark-tools 2d4ae98, `output.rs`).
fn reference_shape(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
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

/// `Output::check` on a fuzzed schema and result agrees with the reference walk + validator.
fn check_output(schema: &Value, result: &Value) {
    let got = Output::json("Fuzzed", schema.clone()).check(result.clone());
    let Ok(validator) = jsonschema::options().build(schema) else {
        assert!(
            got.is_err(),
            "a schema that does not compile refuses every result"
        );
        return;
    };
    let mut expected = if result.is_null() {
        json!({})
    } else {
        result.clone()
    };
    reference_shape(&mut expected, schema, schema, 0);
    match got {
        Ok(checked) => {
            assert!(
                validator.is_valid(&expected),
                "accepted what the reference refuses"
            );
            assert_eq!(
                checked.to_string(),
                expected.to_string(),
                "shaped like the reference"
            );
        }
        Err(mismatch) => {
            assert!(
                !validator.is_valid(&expected),
                "refused what the reference accepts: {mismatch:?}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = serde_json::from_str::<Value>(text).ok();
    if let Some(Value::Array(pair)) = &parsed {
        if let [schema, result] = pair.as_slice() {
            check_output(schema, result);
        }
    }
    for tool in ["book_table", "echo"] {
        call(
            tool,
            hark_tools::RawArguments::Text(text),
            parsed.as_ref(),
            data.len(),
        );
        if let Some(value) = &parsed {
            call(
                tool,
                hark_tools::RawArguments::Json(value),
                Some(value),
                data.len(),
            );
        }
    }
});
