//! Behaviour of the call path: arguments checked, refusals, results checked, sinks.
#![allow(missing_docs)]

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use hark_tools::{
    Arguments, CallStatus, Interruption, Output, Phone, ToolContext, ToolError, ToolEvent,
    ToolExecutor, ToolRegistry, ToolSpec, ToolStage, replies_to, tool,
};
use jiff::civil::Date;
use serde_json::{Value, json};

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

// ---- tools -------------------------------------------------------------------------------

/// Set how many guests come.
///
/// # Arguments
/// * `count` - How many guests, 1 to 12.
#[tool]
async fn set_guests(#[arg(range(min = 1, max = 12))] count: u8) -> Result<(), ToolError> {
    let _ = count;
    Ok(())
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    reference: String,
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
}

#[derive(serde::Serialize, schemars::JsonSchema, Clone, Copy, PartialEq, Debug)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

impl<'de> serde::Deserialize<'de> for Seating {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "inside" => Ok(Self::Inside),
            "terrace" => Ok(Self::Terrace),
            _ => Err(serde::de::Error::custom("not a seating")),
        }
    }
}

/// Book a table.
///
/// # Arguments
/// * `day` - The day the caller wants.
/// * `party` - How many people come.
/// * `seating` - Where they sit.
/// * `phone` - A number to call back.
#[tool]
async fn book_table(
    day: Date,
    #[arg(range(min = 1, max = 12), default = 2)] party: u8,
    #[arg(default = Seating::Inside)] seating: Seating,
    phone: Option<Phone>,
    context: &ToolContext,
) -> Result<Booking, ToolError> {
    let _ = (seating, phone, &context.language);
    Ok(Booking {
        reference: format!("B-{party}"),
        day,
    })
}

/// Look up a policy.
///
/// Args:
///     birth_date: The caller's birth date.
///     name: The name on the policy.
#[tool(name = "lookup_policy", output = Policy)]
async fn policy(birth_date: Date, name: String) -> Result<Value, ToolError> {
    let _ = (birth_date, name);
    Ok(json!({"number": "P-1"}))
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Policy {
    number: String,
}

fn registry() -> ToolRegistry {
    ToolRegistry::new(vec![set_guests_tool().unwrap(), book_table_tool().unwrap()]).unwrap()
}

// ---- wrong types, limits, missing --------------------------------------------------------

#[test]
fn t1_wrong_type_names_field_and_reason() {
    let out = block(registry().call(
        "set_guests",
        r#"{"count": "four"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(out.status, CallStatus::Refused);
    let text = out.model_result["refused"].as_str().unwrap();
    assert!(
        text.starts_with(r#"count: "four" is not of type "integer""#),
        "{text}"
    );
    assert!(!text.contains("internal error"));
}

#[test]
fn t1_limit_names_field_and_limit() {
    let out = block(registry().call("set_guests", r#"{"count": 40}"#, &ToolContext::default()));
    assert_eq!(
        out.model_result["refused"],
        "count: 40 is greater than the maximum of 12\nFix these arguments, asking the caller if needed, then call set_guests again."
    );
}

#[test]
fn t1_empty_arguments_is_arguments_missing() {
    let out = block(registry().call("set_guests", "{}", &ToolContext::default()));
    assert_eq!(
        out.model_result,
        json!({"refused": "count is missing. Ask the caller for it, then call set_guests again.", "missing": ["count"]})
    );
    let error = out.error.unwrap();
    assert!(error.is_refusal());
    assert_eq!(
        error.kind(),
        &hark_tools::ToolErrorKind::ArgumentsMissing(vec!["count".into()])
    );
}

#[test]
fn all_errors_of_a_call_come_together() {
    let out = block(registry().call(
        "book_table",
        r#"{"day": "2026-10-16", "party": 40, "seating": "roof"}"#,
        &ToolContext::default(),
    ));
    let text = out.model_result["refused"].as_str().unwrap();
    assert!(
        text.contains("party: 40 is greater than the maximum of 12"),
        "{text}"
    );
    assert!(
        text.contains(r#"seating: "roof" is not one of "inside" or "terrace""#),
        "{text}"
    );
}

#[test]
fn blank_text_is_missing_and_spec_text_is_exact() {
    let reg = ToolRegistry::new(vec![policy_tool().unwrap()]).unwrap();
    let out = block(reg.call(
        "lookup_policy",
        r#"{"birth_date": "  ", "name": "Ann"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(
        out.model_result,
        json!({"refused": "birth_date is missing. Ask the caller for it, then call lookup_policy again.", "missing": ["birth_date"]})
    );
}

#[test]
fn a_day_that_does_not_exist_names_the_field() {
    let out = block(registry().call(
        "book_table",
        r#"{"day": "2026-02-30"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(out.status, CallStatus::Refused);
    let text = out.model_result["refused"].as_str().unwrap();
    assert!(text.starts_with("day: "), "{text}");
}

#[test]
fn defaults_and_typed_values_reach_the_function() {
    let out = block(registry().call(
        "book_table",
        r#"{"day": "2026-10-16", "phone": "+1 650-253-0000"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(out.status, CallStatus::Succeeded, "{}", out.model_text());
    assert_eq!(
        out.model_result,
        json!({"reference": "B-2", "day": "2026-10-16"})
    );
}

#[test]
fn a_bad_phone_is_refused_with_its_field() {
    let out = block(registry().call(
        "book_table",
        r#"{"day": "2026-10-16", "phone": "12"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(
        out.model_result["refused"],
        "phone: \"12\" has no country code: give it starting with + and the country code, like +14155550123\n\
         Fix these arguments, asking the caller if needed, then call book_table again."
    );
}

#[test]
fn replies_to_holds_the_spoke_rule() {
    let refusal = json!({"refused": "day is missing. Ask the caller for it, then call book again.", "missing": ["day"]});
    assert!(!replies_to(&refusal, true));
    assert!(replies_to(&refusal, false));
    assert!(replies_to(&json!({"ok": true}), true));
    assert!(replies_to(&json!({"refused": "No table."}), true));
}

// ---- unknown tool, unknown argument ------------------------------------------------------

#[test]
fn t2_unknown_tool_names_the_tools_that_exist() {
    let out = block(registry().call("book_tabel", "{}", &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Refused);
    assert_eq!(
        out.model_result["refused"],
        "There is no tool named book_tabel. The tools are: set_guests, book_table. Call one of them instead."
    );
}

#[test]
fn t2_extra_argument_is_refused_with_spec_text() {
    let out = block(registry().call(
        "book_table",
        r#"{"day": "2026-10-16", "bogus": 1}"#,
        &ToolContext::default(),
    ));
    assert_eq!(
        out.model_result,
        json!({"refused": "bogus is not an argument of book_table. Call book_table again without it."})
    );
}

#[derive(Debug)]
struct Echo {
    checks_extra: bool,
}

impl ToolExecutor for Echo {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move { Ok(json!({"got": Value::Object(arguments)})) })
    }
    fn checks_extra_arguments(&self) -> bool {
        self.checks_extra
    }
}

fn echo_output() -> Output {
    Output::json(
        "Echo",
        json!({"type": "object", "properties": {"got": {"type": "object"}}}),
    )
}

#[test]
fn open_schemas_keep_extras_and_checking_executors_get_them() {
    let open = ToolSpec::new(
        "open",
        "Open.",
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}),
        echo_output(),
        Arc::new(Echo { checks_extra: false }),
    )
    .unwrap();
    let checking = ToolSpec::new(
        "checking",
        "Checks its own extras.",
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        echo_output(),
        Arc::new(Echo { checks_extra: true }),
    )
    .unwrap();
    let reg = ToolRegistry::new(vec![open, checking]).unwrap();
    let ctx = ToolContext::default();
    let out = block(reg.call("open", r#"{"a": "x", "zz": 1}"#, &ctx));
    assert_eq!(out.result, json!({"got": {"a": "x", "zz": 1}}));
    let out = block(reg.call("checking", r#"{"a": "x", "zz": 1}"#, &ctx));
    assert_eq!(out.result, json!({"got": {"a": "x", "zz": 1}}));
}

// ---- null, "" and "{}" -------------------------------------------------------------------

#[derive(Debug)]
struct Count(Arc<Mutex<Vec<Value>>>);

impl ToolExecutor for Count {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        self.0.lock().unwrap().push(Value::Object(arguments));
        Box::pin(async { Ok(json!({})) })
    }
}

#[test]
fn t3_null_empty_and_empty_object_all_run_with_empty_arguments() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let spec = ToolSpec::new(
        "end_call",
        "End the call.",
        json!({"type": "object", "properties": {}}),
        Output::done(),
        Arc::new(Count(seen.clone())),
    )
    .unwrap();
    let reg = ToolRegistry::new(vec![spec]).unwrap();
    let ctx = ToolContext::default();
    let null = Value::Null;
    for out in [
        block(reg.call("end_call", &null, &ctx)),
        block(reg.call("end_call", Option::<&str>::None, &ctx)),
        block(reg.call("end_call", "", &ctx)),
        block(reg.call("end_call", "{}", &ctx)),
        block(reg.call("end_call", "null", &ctx)),
    ] {
        assert_eq!(out.status, CallStatus::Succeeded);
        assert_eq!(out.model_text(), r#"{"ok":true}"#);
    }
    assert_eq!(*seen.lock().unwrap(), vec![json!({}); 5]);
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    let out = block(registry().call("set_guests", "[1, 2]", &ToolContext::default()));
    assert_eq!(
        out.model_result["refused"],
        "The arguments of set_guests must be a JSON object of named arguments. Call set_guests again with one."
    );
    let out = block(registry().call("set_guests", "{not json", &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Refused);
    // Double-encoded JSON is decoded once more.
    let out = block(registry().call("set_guests", r#""{\"count\": 3}""#, &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Succeeded);
}

/// Arguments a provider's stream already read (`hark_llm::read_arguments`) are taken as they
/// are: an object runs, an unreadable text gets the same refusal as a text that is no object.
#[test]
fn arguments_read_by_the_stream_are_taken_as_read() {
    let object =
        hark_tools::ToolArguments::Object(json!({"count": 3}).as_object().unwrap().clone());
    let out = block(registry().call("set_guests", &object, &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Succeeded);
    let unreadable = hark_tools::ToolArguments::Unreadable {
        reason: "not JSON".into(),
        fault: hark_tools::ArgumentsFault::NotAnObject,
    };
    let out = block(registry().call("set_guests", &unreadable, &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Refused);
    assert_eq!(
        out.model_result["refused"],
        "The arguments of set_guests must be a JSON object of named arguments. Call set_guests again with one."
    );
    // What the stream found wrong reaches the model as the text's own fault, as a text the
    // registry reads itself does (a number too large, a bad escape), not as "no object".
    for (fault, text) in [
        (
            hark_tools::ArgumentsFault::NumberOutOfRange,
            "The arguments of set_guests hold a number too large to read, like 1e400. Call set_guests again with valid JSON.",
        ),
        (
            hark_tools::ArgumentsFault::BadEscape,
            "The arguments of set_guests hold an invalid \\u escape, like a lone surrogate \\ud800. Call set_guests again with valid JSON.",
        ),
    ] {
        let unreadable = hark_tools::ToolArguments::Unreadable {
            reason: "not JSON".into(),
            fault,
        };
        let out = block(registry().call("set_guests", &unreadable, &ToolContext::default()));
        assert_eq!(out.status, CallStatus::Refused);
        assert_eq!(out.model_result["refused"], text);
    }
}

/// A whole number written beyond the 64-bit range is read by JSON here as a rounded float: it
/// is refused in words, never handed to the tool changed (123456789012345678901234567890 became
/// 123456789012345677877719597056; -9223372036854775809 became -9223372036854775808). The
/// largest whole numbers that fit, and floats written as floats, pass as they are.
#[test]
fn a_whole_number_beyond_64_bits_is_refused_not_rounded() {
    let refused = "The arguments of set_guests hold a whole number outside -9223372036854775808 to 18446744073709551615, which cannot be read exactly. Call set_guests again with whole numbers in that range.";
    for text in [
        r#"{"count": 123456789012345678901234567890}"#,
        r#"{"count": -9223372036854775809}"#,
        r#"{"count": 18446744073709551616, "note": "1e400"}"#,
    ] {
        let out = block(registry().call("set_guests", text, &ToolContext::default()));
        assert_eq!(out.status, CallStatus::Refused, "{text}");
        assert_eq!(out.model_result["refused"], refused, "{text}");
    }
    // What a provider's stream reads (hark-llm) carries the fault; the registry says it so.
    let read = hark_tools::ToolArguments::Unreadable {
        reason: "arguments hold a whole number out of range".into(),
        fault: hark_tools::ArgumentsFault::WholeNumberTooLarge,
    };
    let out = block(registry().call("set_guests", &read, &ToolContext::default()));
    assert_eq!(out.model_result["refused"], refused);
    // In range, or a float written as one: read as written (then checked as usual).
    for (text, reason) in [
        (
            r#"{"count": 18446744073709551615}"#,
            "count: 18446744073709551615 is greater than the maximum of 12",
        ),
        (
            r#"{"count": -9223372036854775808}"#,
            "count: -9223372036854775808 is less than the minimum of 1",
        ),
        (
            r#"{"count": 1e300}"#,
            "count: 1e+300 is greater than the maximum of 12",
        ),
    ] {
        let out = block(registry().call("set_guests", text, &ToolContext::default()));
        assert_eq!(out.status, CallStatus::Refused, "{text}");
        let said = out.model_result["refused"].as_str().unwrap();
        assert!(said.starts_with(reason), "{text}: {said}");
    }
}

// ---- results that do not fit -------------------------------------------------------------------

#[derive(Debug)]
struct Raises(ToolError);

impl ToolExecutor for Raises {
    fn run<'a>(
        &'a self,
        _: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        let error = self.0.clone();
        Box::pin(async move { Err(error) })
    }
}

#[derive(Debug)]
struct Fixed(Value);

impl ToolExecutor for Fixed {
    fn run<'a>(
        &'a self,
        _: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        let value = self.0.clone();
        Box::pin(async move { Ok(value) })
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Status {
    Held,
    Shipped,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Order {
    status: Status,
    #[serde(default)]
    note: String,
    read_back: Option<String>,
}

fn find_order(result: Value) -> ToolSpec {
    ToolSpec::new(
        "find_order",
        "Find an order.",
        json!({"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}),
        Output::of::<Order>(),
        Arc::new(Fixed(result)),
    )
    .unwrap()
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn t4_result_that_does_not_fit_and_log_without_value() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time() // a timestamp's digits could hold a value the test says is absent
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .finish();
    let reg = ToolRegistry::new(vec![find_order(json!({"status": "shiped"}))]).unwrap();
    let events = Arc::new(Mutex::new(Vec::<ToolEvent>::new()));
    let sink_events = events.clone();
    reg.listen(Arc::new(
        move |e: &ToolEvent| -> Result<(), hark_tools::SinkError> {
            sink_events.lock().unwrap().push(e.clone());
            Ok(())
        },
    ));
    let out = tracing::subscriber::with_default(subscriber, || {
        block(reg.call(
            "find_order",
            r#"{"order_id": "SECRET-4417"}"#,
            &ToolContext::default(),
        ))
    });
    assert_eq!(out.status, CallStatus::Failed);
    let text = out.model_result["error"].as_str().unwrap();
    assert!(
        text.starts_with("find_order returned a result that does not fit Order: status: "),
        "{text}"
    );
    assert!(text.ends_with(" Do not claim success."), "{text}");
    let log = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        log.contains("find_order") && log.contains("status"),
        "{log}"
    );
    assert!(
        !log.contains("shiped") && !log.contains("SECRET-4417"),
        "{log}"
    );
    let events = format!("{:?}", events.lock().unwrap());
    assert!(events.contains("status"), "{events}");
    assert!(
        !events.contains("shiped") && !events.contains("SECRET-4417"),
        "{events}"
    );
}

#[test]
fn results_are_filled_and_trimmed() {
    let reg = ToolRegistry::new(vec![find_order(
        json!({"status": "held", "extra": 1, "read_back": "B 12"}),
    )])
    .unwrap();
    let out = block(reg.call(
        "find_order",
        r#"{"order_id": "1"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(
        out.result,
        json!({"status": "held", "read_back": "B 12", "note": ""})
    );
}

#[test]
fn error_results_are_never_checked_and_empty_errors_are_successes() {
    let ctx = ToolContext::default();
    for failure in [
        json!({"error": "Out of stock"}),
        json!({"refused": "Not now"}),
        json!({"ok": false}),
    ] {
        let reg = ToolRegistry::new(vec![find_order(failure.clone())]).unwrap();
        let out = block(reg.call("find_order", r#"{"order_id": "1"}"#, &ctx));
        assert_eq!(out.status, CallStatus::Failed);
        assert_eq!(out.model_result, failure);
    }
    for success in [
        json!({"status": "held", "error": null}),
        json!({"status": "held", "error": ""}),
    ] {
        let reg = ToolRegistry::new(vec![find_order(success)]).unwrap();
        let out = block(reg.call("find_order", r#"{"order_id": "1"}"#, &ctx));
        assert_eq!(out.status, CallStatus::Succeeded);
    }
}

#[derive(Debug)]
struct Fails(ToolError);

impl ToolExecutor for Fails {
    fn run<'a>(
        &'a self,
        _: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        let error = self.0.clone();
        Box::pin(async move { Err(error) })
    }
}

#[derive(Debug)]
struct Panics;

impl ToolExecutor for Panics {
    fn run<'a>(
        &'a self,
        _: Arguments,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { panic!("db password is hunter2") })
    }
}

fn no_args(name: &str, executor: Arc<dyn ToolExecutor>) -> ToolSpec {
    ToolSpec::new(
        name,
        "Does it.",
        json!({"type": "object", "properties": {}}),
        Output::done(),
        executor,
    )
    .unwrap()
}

#[test]
fn tool_error_text_is_shown_as_written_and_other_failures_are_hidden() {
    let reg = ToolRegistry::new(vec![
        no_args(
            "full",
            Arc::new(Fails(ToolError::new(
                "No table is free that day. Offer another day.",
            ))),
        ),
        no_args(
            "broken",
            Arc::new(Fails(ToolError::internal("connection reset by 10.0.0.7"))),
        ),
        no_args("panics", Arc::new(Panics)),
        no_args("blank", Arc::new(Fails(ToolError::new("")))),
        no_args("spaces", Arc::new(Fails(ToolError::refused("  \n")))),
    ])
    .unwrap();
    let ctx = ToolContext::default();
    // A failure with no words never reads as a success ({"error": ""} is one): the model reads
    // the reference's text for a failure it is not told about.
    let out = block(reg.call("blank", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Failed);
    assert_eq!(
        out.model_result,
        json!({"error": "blank failed before completing. Do not claim success."})
    );
    assert_eq!(out.error.unwrap().event_text(), "failed with no words");
    let out = block(reg.call("spaces", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Refused);
    assert_eq!(
        out.model_result,
        json!({"refused": "spaces failed before completing. Do not claim success."})
    );
    let out = block(reg.call("full", "{}", &ctx));
    assert_eq!(
        out.model_result,
        json!({"error": "No table is free that day. Offer another day."})
    );
    let out = block(reg.call("broken", "{}", &ctx));
    assert_eq!(
        out.model_result,
        json!({"error": "broken failed before completing. Do not claim success."})
    );
    let out = block(reg.call("panics", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Failed);
    assert_eq!(
        out.model_result,
        json!({"error": "panics failed before completing. Do not claim success."})
    );
}

#[test]
fn done_and_accepted() {
    let reg = ToolRegistry::new(vec![
        no_args("done", Arc::new(Fixed(Value::Null))),
        ToolSpec::new(
            "notify",
            "Notify.",
            json!({"type": "object"}),
            Output::accepted(),
            Arc::new(Fixed(json!({}))),
        )
        .unwrap(),
    ])
    .unwrap();
    let ctx = ToolContext::default();
    assert_eq!(
        block(reg.call("done", "{}", &ctx)).model_text(),
        r#"{"ok":true}"#
    );
    assert_eq!(
        block(reg.call("notify", "{}", &ctx)).model_text(),
        r#"{"ok":true,"accepted":true}"#
    );
}

#[test]
fn show_result_hidden_and_instructions() {
    let spec = find_order(json!({"status": "held", "read_back": "B 12"}))
        .hidden(["read_back"])
        .unwrap()
        .result_instructions("Tell the caller the status.");
    assert_eq!(
        spec.description(),
        "Find an order.\n\nUse the result like this: Tell the caller the status."
    );
    let quiet = find_order(json!({"status": "held"}))
        .with_name("quiet")
        .unwrap()
        .show_result(false);
    let reg = ToolRegistry::new(vec![spec, quiet]).unwrap();
    let ctx = ToolContext::default();
    let out = block(reg.call("find_order", r#"{"order_id": "1"}"#, &ctx));
    assert_eq!(out.model_result, json!({"status": "held", "note": ""}));
    assert_eq!(out.result["read_back"], "B 12");
    let out = block(reg.call("quiet", r#"{"order_id": "1"}"#, &ctx));
    assert_eq!(out.model_result, json!({"ok": true}));
    assert_eq!(
        reg.for_model("quiet", &json!({"status": "held"})),
        json!({"ok": true})
    );
    assert_eq!(
        reg.for_model("quiet", &json!({"error": "x"})),
        json!({"error": "x"})
    );
    assert_eq!(
        reg.for_model("find_order", &json!({"status": "held", "read_back": "r"})),
        json!({"status": "held"})
    );
}

#[test]
fn hidden_field_the_output_lacks_fails_at_build() {
    let error = find_order(json!({})).hidden(["readback"]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "find_order: hidden names readback, which Order does not have. Use one of the output's fields: status, note, read_back."
    );
}

// ---- registry ----------------------------------------------------------------------------

#[test]
fn registry_questions_and_subsets() {
    let reg = ToolRegistry::new(vec![
        set_guests_tool()
            .unwrap()
            .interruption(Interruption::Continue),
        book_table_tool().unwrap(),
    ])
    .unwrap();
    assert!(reg.contains("set_guests") && !reg.contains("nope"));
    assert!(reg.keeps_running("set_guests"));
    assert!(!reg.keeps_running("book_table"));
    assert!(!reg.keeps_running("nope"));
    let sink: Arc<dyn hark_tools::ToolSink> =
        Arc::new(|_: &ToolEvent| -> Result<(), hark_tools::SinkError> { Ok(()) });
    assert!(reg.listen(sink.clone()));
    assert!(
        !reg.listen(sink.clone()),
        "a sink already held is not added again"
    );
    let only = reg.only(&["book_table"]);
    assert_eq!(only.names(), vec!["book_table"]);
    assert!(!only.listen(sink.clone()), "only() keeps the sinks");
    let more = only.with_tools(vec![policy_tool().unwrap()]).unwrap();
    assert_eq!(more.names(), vec!["book_table", "lookup_policy"]);
    assert!(!more.listen(sink), "with_tools() keeps the sinks");
    let dup = ToolRegistry::new(vec![set_guests_tool().unwrap(), set_guests_tool().unwrap()])
        .unwrap_err();
    assert_eq!(
        dup.to_string(),
        "Two tools are named set_guests. Give one of them another name."
    );
}

#[test]
fn sinks_get_names_and_timing_never_values_and_failing_sinks_never_break_the_call() {
    let reg = registry();
    let seen = Arc::new(Mutex::new(Vec::<ToolEvent>::new()));
    let s = seen.clone();
    reg.listen(Arc::new(
        move |e: &ToolEvent| -> Result<(), hark_tools::SinkError> {
            s.lock().unwrap().push(e.clone());
            Ok(())
        },
    ));
    reg.listen(Arc::new(
        |_: &ToolEvent| -> Result<(), hark_tools::SinkError> { Err("sink down".into()) },
    ));
    reg.listen(Arc::new(
        |_: &ToolEvent| -> Result<(), hark_tools::SinkError> { panic!("sink panics") },
    ));
    let ctx = ToolContext::default();
    let ok = block(reg.call(
        "book_table",
        r#"{"day": "2026-10-16", "party": 7, "phone": "+1 650-253-0000"}"#,
        &ctx,
    ));
    assert!(ok.succeeded());
    block(reg.call("set_guests", r#"{"count": 77}"#, &ctx));
    block(reg.call("set_guests", r#"{"count": "sevenseven"}"#, &ctx));
    let events = seen.lock().unwrap().clone();
    let stages: Vec<ToolStage> = events.iter().map(|e| e.stage).collect();
    assert_eq!(
        stages,
        vec![
            ToolStage::Started,
            ToolStage::Succeeded,
            ToolStage::Refused,
            ToolStage::Refused
        ]
    );
    assert!(events.iter().all(|e| e.source == hark_tools::Source::Model));
    assert!(events[1].ms.is_some());
    let text = serde_json::to_string(&events).unwrap();
    for value in ["2026-10-16", "6502530000", "77", "sevenseven"] {
        assert!(!text.contains(value), "{value} reached a sink: {text}");
    }
    assert!(text.contains("count (maximum)"), "{text}");
    assert!(text.contains("tool.started"));
}

#[test]
fn event_source_comes_from_the_context() {
    let reg = registry();
    let seen = Arc::new(Mutex::new(Vec::<ToolEvent>::new()));
    let s = seen.clone();
    reg.listen(Arc::new(
        move |e: &ToolEvent| -> Result<(), hark_tools::SinkError> {
            s.lock().unwrap().push(e.clone());
            Ok(())
        },
    ));
    let ctx = ToolContext {
        event: Some(Default::default()),
        ..Default::default()
    };
    block(reg.call("set_guests", r#"{"count": 2}"#, &ctx));
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|e| e.source == hark_tools::Source::Event)
    );
}

// ---- macro -------------------------------------------------------------------------------

#[test]
fn macro_reads_doc_comments_and_limits() {
    let spec = book_table_tool().unwrap();
    assert_eq!(spec.name(), "book_table");
    assert_eq!(spec.description(), "Book a table.");
    let p = spec.model_parameters();
    assert_eq!(
        p["properties"]["day"]["description"]
            .as_str()
            .unwrap()
            .split(". ")
            .next(),
        Some("The day the caller wants")
    );
    assert_eq!(p["properties"]["party"]["maximum"], 12);
    assert_eq!(p["required"], json!(["day"]));
    assert!(p["properties"].get("context").is_none());
    let policy = policy_tool().unwrap();
    assert_eq!(policy.name(), "lookup_policy");
    assert_eq!(policy.description(), "Look up a policy.");
    assert_eq!(
        policy.model_parameters()["properties"]["name"]["description"],
        "The name on the policy."
    );
}

// ---- a result too large for the model -----------------------------------------------------

#[test]
fn a_result_larger_than_the_cap_fails_the_call_with_a_clear_text() {
    let huge = "x".repeat(hark_tools::bounds::RESULT_CAP);
    let texts = |name: &str, value: Value| {
        ToolSpec::new(
            name,
            "Does it.",
            json!({"type": "object", "properties": {}}),
            Output::json("Text", json!({"type": "object"})),
            Arc::new(Fixed(value)),
        )
        .unwrap()
    };
    let reg = ToolRegistry::new(vec![
        texts("dump", json!({"text": huge})),
        texts("fits", json!({"text": "x".repeat(1000)})),
        // An error result is capped too: the model reads it as well.
        texts("loud_error", json!({"error": huge})),
    ])
    .unwrap();
    let ctx = ToolContext::default();
    let out = block(reg.call("dump", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Failed);
    assert_eq!(
        out.model_result,
        json!({"error": "dump returned a result larger than the 64 KiB the model may read, so it failed. Do not claim success."})
    );
    assert_eq!(out.error.unwrap().event_text(), "result larger than 64 KiB");
    assert_eq!(
        block(reg.call("fits", "{}", &ctx)).status,
        CallStatus::Succeeded
    );
    let out = block(reg.call("loud_error", "{}", &ctx));
    assert_eq!(
        out.model_result["error"],
        "loud_error returned a result larger than the 64 KiB the model may read, so it failed. Do not claim success."
    );
    assert_eq!(hark_tools::bounds::RESULT_CAP, 65536);
}

/// A tool's own error or refusal words larger than the cap reach the model as one bounded
/// sentence, keeping the status (a new user's 1 MB `ToolError` went to the model whole).
#[test]
fn an_error_or_refusal_too_large_to_read_is_told_in_one_sentence() {
    let huge = "x".repeat(70_000);
    let raising = |name: &str, error: ToolError| {
        ToolSpec::new(
            name,
            "Does it.",
            json!({"type": "object", "properties": {}}),
            Output::json("Text", json!({"type": "object"})),
            Arc::new(Raises(error)),
        )
        .unwrap()
    };
    let fails = raising("fails", ToolError::new(huge.clone()));
    let refuses = raising("refuses", ToolError::refused(huge));
    let reg = ToolRegistry::new(vec![fails, refuses]).unwrap();
    let ctx = ToolContext::default();
    let out = block(reg.call("fails", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Failed);
    assert_eq!(
        out.model_result,
        json!({"error": "fails failed with an error message larger than the 64 KiB the model may read. Do not claim success."})
    );
    assert_eq!(out.error.unwrap().event_text(), "error larger than 64 KiB");
    let out = block(reg.call("refuses", "{}", &ctx));
    assert_eq!(out.status, CallStatus::Refused);
    assert_eq!(
        out.model_result,
        json!({"refused": "refuses failed with an error message larger than the 64 KiB the model may read. Do not claim success."})
    );
}

// ---- found by a new user (session 22) -----------------------------------------------------

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Seen {
    got: String,
}

/// When the caller may come.
#[tool]
async fn maybe_when(
    day: Option<Date>,
    at: Option<jiff::civil::Time>,
    when: Option<jiff::civil::DateTime>,
) -> Result<Seen, ToolError> {
    Ok(Seen {
        got: format!("{day:?} {at:?} {when:?}"),
    })
}

#[test]
fn an_optional_date_time_or_datetime_may_be_left_out_like_any_option() {
    let registry = ToolRegistry::new(vec![maybe_when_tool().unwrap()]).unwrap();
    let spec = &registry.tools()[0];
    assert_eq!(
        spec.model_parameters().get("required"),
        None,
        "{}",
        spec.model_parameters()
    );
    let out = block(registry.call("maybe_when", "{}", &ToolContext::default()));
    assert_eq!(out.status, CallStatus::Succeeded, "{}", out.model_text());
    assert_eq!(out.result["got"], "None None None");
    let out = block(registry.call(
        "maybe_when",
        r#"{"day": "2026-10-16"}"#,
        &ToolContext::default(),
    ));
    assert_eq!(out.result["got"], "Some(2026-10-16) None None");
}

/// Book a call back.
#[tool]
async fn call_back(at: jiff::civil::DateTime) -> Result<Seen, ToolError> {
    Ok(Seen {
        got: at.to_string(),
    })
}

/// A civil date-time is the call's own clock: the model is told to write it without an offset,
/// and one written with an offset, `Z` or a zone is refused in those words (jiff would drop the
/// offset, and `09:30-05:00` would reach the function as 09:30). Both with and without `Option`.
#[test]
fn a_local_date_time_with_an_offset_is_refused_not_silently_dropped() {
    let registry =
        ToolRegistry::new(vec![call_back_tool().unwrap(), maybe_when_tool().unwrap()]).unwrap();
    let ctx = ToolContext::default();
    let words = registry.tools()[0].model_parameters()["properties"]["at"]["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        words.contains(
            "A local date and time written YYYY-MM-DDTHH:MM:SS, without a UTC offset, like 2026-10-16T09:30:00."
        ),
        "{words}"
    );
    let out = block(registry.call("call_back", r#"{"at": "2026-10-16T09:30:00"}"#, &ctx));
    assert_eq!(
        out.result["got"],
        "2026-10-16T09:30:00",
        "{}",
        out.model_text()
    );
    for (tool, written) in [
        ("call_back", r#"{"at": "2026-10-16T09:30:00-05:00"}"#),
        ("call_back", r#"{"at": "2026-10-16T09:30:00Z"}"#),
        (
            "call_back",
            r#"{"at": "2026-10-16T09:30:00+01:00[Europe/Paris]"}"#,
        ),
        ("maybe_when", r#"{"when": "2026-10-16T09:30:00+02:00"}"#),
    ] {
        let out = block(registry.call(tool, written, &ctx));
        assert_eq!(
            out.status,
            CallStatus::Refused,
            "{written}: {}",
            out.model_text()
        );
        let text = out.model_result["refused"].as_str().unwrap();
        assert!(
            text.contains("has a UTC offset: give the local date and time without one, like 2026-10-16T09:30:00"),
            "{written}: {text}"
        );
    }
    let out = block(registry.call("maybe_when", r#"{"when": null}"#, &ctx));
    assert_eq!(out.result["got"], "None None None", "{}", out.model_text());
    let out = block(registry.call("maybe_when", r#"{"when": "2026-10-16T09:30"}"#, &ctx));
    assert_eq!(out.result["got"], "None None Some(2026-10-16T09:30:00)");
}

/// The arguments struct `#[tool]` generates leaves no trace in the schema the model reads: no
/// root `title` (its Rust name, which Gemini's dialect would turn into the arguments'
/// description) and no root `description` (its generated doc comment).
#[test]
fn a_generated_arguments_struct_adds_no_title_or_description_to_the_schema() {
    let registry = ToolRegistry::new(vec![call_back_tool().unwrap()]).unwrap();
    let schema = registry.tools()[0].model_parameters();
    assert_eq!(schema.get("title"), None, "{schema}");
    assert_eq!(schema.get("description"), None, "{schema}");
    for dialect in [
        hark_tools::Dialect::OpenAi,
        hark_tools::Dialect::OpenAiStrict,
        hark_tools::Dialect::Anthropic,
        hark_tools::Dialect::GeminiParameters,
        hark_tools::Dialect::GeminiJsonSchema,
    ] {
        let sent = registry.definitions(dialect);
        let text = sent.tools[0].parameters.to_string();
        assert!(
            !text.contains("CallBackArgs") && !text.contains("built by"),
            "{dialect:?}: {text}"
        );
    }
}

#[test]
fn a_whole_number_written_as_a_float_reaches_an_integer_argument() {
    for written in ["12.0", "4e0", "1.2e1"] {
        let out = block(registry().call(
            "set_guests",
            &format!(r#"{{"count": {written}}}"#),
            &ToolContext::default(),
        ));
        assert_eq!(
            out.status,
            CallStatus::Succeeded,
            "{written}: {}",
            out.model_text()
        );
    }
    // A fraction is still not an integer, in the schema's words.
    let out = block(registry().call("set_guests", r#"{"count": 2.5}"#, &ToolContext::default()));
    let text = out.model_result["refused"].as_str().unwrap();
    assert!(
        text.starts_with(r#"count: 2.5 is not of type "integer""#),
        "{text}"
    );
}

/// Bad ranges.
#[tool]
async fn swapped(#[arg(range(min = 12, max = 1))] n: u8) -> Result<(), ToolError> {
    let _ = n;
    Ok(())
}

/// Too wide.
#[tool]
async fn too_wide(#[arg(range(min = 1, max = 1000))] n: u8) -> Result<(), ToolError> {
    let _ = n;
    Ok(())
}

#[test]
fn a_range_no_value_can_meet_or_wider_than_its_type_is_refused_at_build() {
    let error = swapped_tool().unwrap_err().to_string();
    assert!(
        error.contains(
            "swapped: n: the minimum 12 is above the maximum 1, so no value can pass. Swap them."
        ),
        "{error}"
    );
    let error = too_wide_tool().unwrap_err().to_string();
    assert!(
        error.contains("too_wide: n: the maximum 1000 is more than a u8 holds (255). Lower it, or give the argument a wider type."),
        "{error}"
    );
    let out_of_range = ToolSpec::new(
        "party",
        "Party size.",
        json!({"type": "object", "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 12, "default": 40}
        }}),
        Output::done(),
        Arc::new(Fixed(json!({}))),
    );
    let error = out_of_range.unwrap_err().to_string();
    assert!(
        error.contains("party: size: the default 40 is outside its range (1 to 12). Change the default or the range."),
        "{error}"
    );
}
