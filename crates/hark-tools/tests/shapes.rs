//! Outputs and arguments of every shape a Rust type gives, on every path that builds a tool from
//! one (`ToolSpec::local`, `local_with_context`, `#[tool]`): `()` and other types that serialise
//! to `null` read `{"ok": true}`; keys the schema does not name are refused at every level;
//! missing values are named by their dotted path, in arguments and in results alike.
#![allow(missing_docs, dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use hark_tools::{
    Arguments, CallStatus, Dialect, Output, ToolContext, ToolError, ToolExecutor, ToolOutcome,
    ToolRegistry, ToolSpec, tool,
};
use serde_json::{Value, json};

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn call(tool: ToolSpec, arguments: &str) -> ToolOutcome {
    let name = tool.name().to_string();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    block(registry.call(&name, arguments, &ToolContext::default()))
}

fn refused(outcome: &ToolOutcome) -> &str {
    assert_eq!(
        outcome.status,
        CallStatus::Refused,
        "{}",
        outcome.model_text()
    );
    outcome.model_result["refused"].as_str().unwrap()
}

// ---- outputs that serialise to null -------------------------------------------------------

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Reservation {
    /// The day, year-month-day.
    day: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Saved;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Order {
    status: String,
}

async fn reserve(reservation: Reservation) -> Result<(), ToolError> {
    let _ = reservation.day;
    Ok(())
}

#[test]
fn a_local_tool_returning_unit_reads_ok_true() {
    // The guide's `reserve` (providers-and-schema-dialects.md): every call used to fail with
    // `{} is not of type "null"`.
    let tool = ToolSpec::local("reserve", "Reserve a day.", reserve).unwrap();
    assert_eq!(tool.output().name(), "Done");
    let outcome = call(tool, r#"{"day": "2026-10-16"}"#);
    assert_eq!(outcome.status, CallStatus::Succeeded);
    assert_eq!(outcome.model_text(), r#"{"ok":true}"#);

    let empty = ToolSpec::local("tidy", "Tidy up.", |_: Nothing| async {
        Ok::<(), ToolError>(())
    })
    .unwrap();
    assert_eq!(call(empty, "{}").model_text(), r#"{"ok":true}"#);

    let with_context = ToolSpec::local_with_context("tidy", "Tidy up.", |_: Nothing, _| async {
        Ok::<(), ToolError>(())
    })
    .unwrap();
    assert_eq!(call(with_context, "").model_text(), r#"{"ok":true}"#);
}

#[test]
fn every_type_that_serialises_to_null_reads_ok_true() {
    let unit_struct = ToolSpec::local("save", "Save.", |_: Nothing| async {
        Ok::<_, ToolError>(Saved)
    })
    .unwrap();
    assert_eq!(call(unit_struct, "{}").model_text(), r#"{"ok":true}"#);
    for value in [None, Some(())] {
        let optional_unit = ToolSpec::local("save", "Save.", move |_: Nothing| async move {
            Ok::<_, ToolError>(value)
        })
        .unwrap();
        assert_eq!(call(optional_unit, "{}").model_text(), r#"{"ok":true}"#);
    }
    assert_eq!(Output::of::<()>().name(), "Done");
    assert_eq!(Output::of::<Saved>().schema(), Output::done().schema());
    assert_eq!(Output::name_of::<Option<()>>(), "Done");
    assert_eq!(Output::name_of::<Order>(), "Order");
}

#[test]
fn an_optional_output_keeps_none_as_null() {
    for (found, text) in [(false, "null"), (true, r#"{"status":"held"}"#)] {
        let tool = ToolSpec::local("find", "Find.", move |_: Nothing| async move {
            Ok::<_, ToolError>(found.then(|| Order {
                status: "held".into(),
            }))
        })
        .unwrap();
        let outcome = call(tool, "{}");
        assert_eq!(outcome.status, CallStatus::Succeeded);
        assert_eq!(outcome.model_text(), text);
    }
}

/// Save it.
#[tool]
async fn save_it() -> Result<Saved, ToolError> {
    Ok(Saved)
}

#[test]
fn a_tool_fn_returning_a_unit_struct_reads_ok_true_and_its_precheck_fits() {
    assert_eq!(
        call(save_it_tool().unwrap(), "{}").model_text(),
        r#"{"ok":true}"#
    );
    let tool = ToolSpec::local("reserve", "Reserve a day.", reserve).unwrap();
    let checked = tool.precheck(|r: Reservation| (r.day == "never").then_some(()));
    assert!(checked.is_ok(), "{checked:?}");
}

// ---- keys the schema does not name --------------------------------------------------------

/// Check the line.
#[tool]
async fn ping() {}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Contact {
    /// The caller's name.
    name: String,
    /// A number to call back.
    phone: Option<String>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    contact: Contact,
    backup: Option<Contact>,
    #[serde(default)]
    guests: Vec<Contact>,
    #[serde(default)]
    notes: BTreeMap<String, String>,
    #[serde(default)]
    anything: Value,
}

fn lookup() -> ToolSpec {
    ToolSpec::local("lookup", "Look someone up.", |_: Lookup| async {
        Ok::<(), ToolError>(())
    })
    .unwrap()
}

#[test]
fn a_tool_without_arguments_refuses_any_argument() {
    let outcome = call(ping_tool().unwrap(), r#"{"x": 1}"#);
    assert_eq!(
        refused(&outcome),
        "x is not an argument of ping. Call ping again without it."
    );
    let empty = ToolSpec::local("tidy", "Tidy up.", |_: Nothing| async {
        Ok::<(), ToolError>(())
    })
    .unwrap();
    let outcome = call(empty, r#"{"bogus": 1, "other": 2}"#);
    assert_eq!(
        refused(&outcome),
        "bogus and other are not arguments of tidy. Call tidy again without them."
    );
    assert_eq!(
        outcome.error.unwrap().event_text(),
        "unknown arguments: bogus, other"
    );
    assert_eq!(
        call(ping_tool().unwrap(), "{}").model_text(),
        r#"{"ok":true}"#
    );
}

#[test]
fn a_nested_key_the_schema_does_not_name_is_refused_naming_its_object() {
    let outcome = call(lookup(), r#"{"contact": {"name": "Ana", "bogus": 1}}"#);
    assert_eq!(
        refused(&outcome),
        "contact.bogus is not a field of contact. Call lookup again without it."
    );
    assert_eq!(
        outcome.error.unwrap().event_text(),
        "unknown arguments: contact.bogus"
    );
    // Inside an optional value and a list too; one sentence for all of them.
    let outcome = call(
        lookup(),
        r#"{"contact": {"name": "Ana"}, "backup": {"name": "Bo", "x": 1}, "guests": [{"name": "Cy", "y": 1, "z": 2}], "top": 1}"#,
    );
    assert_eq!(
        refused(&outcome),
        "backup.x is not a field of backup. guests.0.y and guests.0.z are not fields of guests.0. \
         top is not an argument of lookup. Call lookup again without them."
    );
}

#[test]
fn maps_values_and_flattened_maps_keep_their_keys() {
    let outcome = call(
        lookup(),
        r#"{"contact": {"name": "Ana"}, "notes": {"any": "key"}, "anything": {"deep": {"x": 1}}}"#,
    );
    assert_eq!(
        outcome.status,
        CallStatus::Succeeded,
        "{}",
        outcome.model_text()
    );

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Open {
        name: String,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
    }
    let open = ToolSpec::local("open", "Open.", |o: Open| async move {
        Ok::<_, ToolError>(o.rest.len() + o.name.len())
    })
    .unwrap();
    assert_eq!(
        call(open, r#"{"name": "a", "x": 1, "y": 2}"#).model_text(),
        "3"
    );
}

#[test]
fn what_providers_see_is_unchanged() {
    let registry = ToolRegistry::new(vec![ping_tool().unwrap(), lookup()]).unwrap();
    let ping = registry.get("ping").unwrap().model_parameters();
    assert!(ping.get("additionalProperties").is_none(), "{ping}");
    let contact = &registry.get("lookup").unwrap().model_parameters()["properties"]["contact"];
    assert!(contact.get("additionalProperties").is_none(), "{contact}");
    // Strict dialects close every object themselves.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Only {
        contact: Contact,
    }
    let only = ToolSpec::local("only", "Only.", |_: Only| async { Ok::<(), ToolError>(()) });
    let registry = ToolRegistry::new(vec![only.unwrap()]).unwrap();
    let strict = registry.definitions(Dialect::OpenAiStrict);
    assert_eq!(
        strict.tools[0].parameters["properties"]["contact"]["additionalProperties"],
        false
    );
}

/// Runs a hand-written schema; gets what it is sent.
#[derive(Debug)]
struct Echo(bool);

impl ToolExecutor for Echo {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move { Ok(Value::Object(arguments)) })
    }

    fn checks_extra_arguments(&self) -> bool {
        self.0
    }
}

fn hand_written(parameters: Value, checks_extra: bool) -> ToolSpec {
    let output = Output::json(
        "Echo",
        json!({"type": "object", "additionalProperties": true}),
    );
    ToolSpec::new(
        "echo",
        "Echo.",
        parameters,
        output,
        Arc::new(Echo(checks_extra)),
    )
    .unwrap()
}

#[test]
fn hand_written_schemas_close_every_level_that_names_its_properties() {
    let schema = json!({
        "type": "object",
        "properties": {
            "contact": {"type": "object", "properties": {"name": {"type": "string"}}},
            "free": {"type": "object"},
            "open": {"type": "object", "properties": {"a": {}}, "additionalProperties": true}
        }
    });
    let outcome = call(
        hand_written(schema.clone(), false),
        r#"{"contact": {"name": "A", "b": 1}}"#,
    );
    assert_eq!(
        refused(&outcome),
        "contact.b is not a field of contact. Call echo again without it."
    );
    let fine = r#"{"contact": {"name": "A"}, "free": {"x": 1}, "open": {"y": 2}}"#;
    assert!(call(hand_written(schema.clone(), false), fine).succeeded());
    // Point 2: a schema without properties stays open.
    assert!(
        call(
            hand_written(json!({"type": "object"}), false),
            r#"{"x": 1}"#
        )
        .succeeded()
    );
    // Point 3: an executor that checks extra arguments gets them, at every level.
    let outcome = call(
        hand_written(schema, true),
        r#"{"contact": {"name": "A", "b": 1}, "top": 2}"#,
    );
    assert_eq!(
        outcome.result,
        json!({"contact": {"name": "A", "b": 1}, "top": 2})
    );
}

// ---- missing values -----------------------------------------------------------------------

#[test]
fn a_missing_nested_value_reads_like_a_missing_argument() {
    let outcome = call(lookup(), r#"{"contact": {"phone": "+14155550123"}}"#);
    assert_eq!(
        refused(&outcome),
        "contact.name is missing. Ask the caller for it, then call lookup again."
    );
    assert_eq!(outcome.model_result["missing"], json!(["contact.name"]));
    assert_eq!(outcome.error.unwrap().event_text(), "missing: contact.name");
    // Blank text is missing too, in an optional value and a list as well.
    let outcome = call(
        lookup(),
        r#"{"contact": {"name": " "}, "backup": {"phone": null}, "guests": [{"name": "A"}, {}]}"#,
    );
    assert_eq!(
        refused(&outcome),
        "contact.name, backup.name and guests.1.name are missing. Ask the caller for them, \
         then call lookup again."
    );
    // Root values first, in schema order.
    let outcome = call(lookup(), r#"{"guests": [{}]}"#);
    assert_eq!(
        refused(&outcome),
        "contact and guests.0.name are missing. Ask the caller for them, then call lookup again."
    );
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Item {
    sku: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Parcel {
    status: String,
    item: Option<Item>,
}

fn returning(result: Value) -> ToolOutcome {
    let tool = ToolSpec::local_json(
        "find_order",
        "Find an order.",
        Output::of::<Parcel>(),
        move |_: Nothing| {
            let result = result.clone();
            async move { Ok(result) }
        },
    )
    .unwrap();
    call(tool, "{}")
}

#[test]
fn a_result_without_a_required_field_names_the_field_never_the_root() {
    let outcome = returning(json!({"item": null}));
    assert_eq!(outcome.status, CallStatus::Failed);
    assert_eq!(
        outcome.model_result["error"],
        "find_order returned a result that does not fit Parcel: status is missing. Do not claim success."
    );
    assert_eq!(
        outcome.error.unwrap().event_text(),
        "result does not fit Parcel: status (required)"
    );
    // One level down, through the optional value's branch.
    let outcome = returning(json!({"status": "held", "item": {}}));
    assert_eq!(
        outcome.model_result["error"],
        "find_order returned a result that does not fit Parcel: item.sku is missing. Do not claim success."
    );
    assert_eq!(
        outcome.error.unwrap().event_text(),
        "result does not fit Parcel: item.sku (required)"
    );
    // A result of the wrong kind names the whole result, never "(root)".
    let outcome = returning(json!("held"));
    assert_eq!(
        outcome.error.unwrap().event_text(),
        "result does not fit Parcel: (result) (type)"
    );
}

#[test]
fn a_choice_no_branch_of_fits_reads_without_schema_words() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(untagged)]
    enum Who {
        Name { name: String },
        Phone { phone: String },
    }
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Find {
        who: Who,
    }
    let tool =
        ToolSpec::local("find", "Find.", |_: Find| async { Ok::<(), ToolError>(()) }).unwrap();
    let outcome = call(tool, r#"{"who": {"age": 3}}"#);
    assert_eq!(
        refused(&outcome),
        "who: {\"age\":3} fits none of the choices here\n\
         Fix these arguments, asking the caller if needed, then call find again."
    );
}

/// A value no branch of a choice takes by its type reads as a one-type schema's error does, the
/// `null` of an optional value left out (the model's schema does not show it): was "5 fits none
/// of the choices here", naming choices the model never saw.
#[test]
fn a_value_of_a_type_no_choice_takes_names_the_types() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Lookup {
        ids: Option<Vec<i64>>,
    }
    let tool = ToolSpec::local("lookup", "Look up.", |_: Lookup| async {
        Ok::<(), ToolError>(())
    })
    .unwrap();
    assert_eq!(
        refused(&call(tool.clone(), r#"{"ids": 5}"#)),
        "ids: 5 is not of type \"array\"\n\
         Fix these arguments, asking the caller if needed, then call lookup again."
    );
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(untagged)]
    enum Key {
        Name(String),
        Number(i64),
    }
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Find {
        key: Key,
    }
    let tool =
        ToolSpec::local("find", "Find.", |_: Find| async { Ok::<(), ToolError>(()) }).unwrap();
    assert_eq!(
        refused(&call(tool, r#"{"key": true}"#)),
        "key: true is not of type \"string\" or \"integer\"\n\
         Fix these arguments, asking the caller if needed, then call find again."
    );
}
