//! Part 2: what a tool does in a call. Call state, templates, locked arguments, refusal hints,
//! announce lines, interruption, effects, assign rows, replies, prechecks, spoken
//! values. Every sentence pinned here is the guide's or `messages.rs`'s.

use std::sync::{Arc, Mutex};

use hark_tools::{
    Assign, CallInfo, CallState, CallStatus, CallType, FixedClock, Generation, InMemorySpeech,
    Interruption, LiveCall, SinkError, SpeechEvent, ToolContext, ToolError, ToolEvent,
    ToolRegistry, ToolReply, ToolSink, ToolSpec, ToolStage, Transcript, end_call_tool,
};
use jiff::civil::Date;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------- fixtures

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Held,
    Shipped,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
struct Order {
    order_id: String,
    status: Status,
    #[schemars(schema_with = "hark_tools::schema::date")]
    arrives: Date,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
struct Customer {
    id: String,
    tier: String,
}

/// The call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default, Debug, PartialEq)]
struct St {
    /// The day the caller wants.
    #[schemars(schema_with = "hark_tools::schema::optional_date")]
    day: Option<Date>,
    /// The caller's first name.
    name: Option<String>,
    /// The brand the caller asks about.
    brand: Option<String>,
    /// Whether the caller is a VIP.
    vip: Option<bool>,
    /// The caller's order.
    order: Option<Order>,
    /// The caller's order number.
    order_number: Option<String>,
    /// The customer record.
    customer: Option<Customer>,
    /// How many people come.
    party: Option<u8>,
    /// A value nobody describes.
    note: Option<String>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct OrderQuery {
    /// The order id the caller reads out.
    order_id: String,
}

fn find_order_with(status: Status, arrives: &str) -> ToolSpec {
    let arrives: Date = arrives.parse().unwrap();
    ToolSpec::local("find_order", "Find an order.", move |q: OrderQuery| {
        let status = status.clone();
        async move {
            Ok::<_, ToolError>(Order {
                order_id: q.order_id,
                status,
                arrives,
            })
        }
    })
    .unwrap()
}

// 2026-10-15 at noon in New York.
const NOW: &str = "2026-10-15T16:00:00Z";

fn call_info() -> CallInfo {
    CallInfo {
        session_id: "s-1".into(),
        remote_number: Some("+14155550123".into()),
        carrier_call_id: None,
        participant: None,
        call_type: CallType::Inbound,
        end_reason: None,
    }
}

fn state_with(values: St, lang: &str, tz: Option<&str>) -> CallState {
    CallState::new(call_info(), lang, tz)
        .with_values(&values)
        .unwrap()
}

fn live_with(state: CallState, speech: Arc<InMemorySpeech>) -> LiveCall {
    LiveCall::with_clock(state, speech, Arc::new(FixedClock(NOW.parse().unwrap()))).unwrap()
}

fn live(values: St) -> (LiveCall, Arc<InMemorySpeech>) {
    let speech = Arc::new(InMemorySpeech::new());
    let live = live_with(
        state_with(values, "en-US", Some("America/New_York")),
        speech.clone(),
    );
    (live, speech)
}

type Events = Arc<Mutex<Vec<ToolEvent>>>;

fn listen(registry: &ToolRegistry) -> Events {
    let events: Events = Arc::default();
    let seen = events.clone();
    let sink = move |e: &ToolEvent| -> Result<(), SinkError> {
        seen.lock().unwrap().push(e.clone());
        Ok(())
    };
    registry.listen(Arc::new(sink) as Arc<dyn ToolSink>);
    events
}

fn stages(events: &Events) -> Vec<(ToolStage, String, Option<String>)> {
    events
        .lock()
        .unwrap()
        .iter()
        .map(|e| (e.stage, e.tool.clone(), e.error.clone()))
        .collect()
}

fn build_error(result: Result<ToolRegistry, hark_tools::BuildError>) -> Vec<String> {
    result.unwrap_err().problems
}

/// A tool that records its arguments when it runs, returning `Done`.
fn recorder(name: &str, parameters: Value) -> (ToolSpec, Arc<Mutex<Vec<Value>>>) {
    #[derive(Debug)]
    struct Rec(Arc<Mutex<Vec<Value>>>);
    impl hark_tools::ToolExecutor for Rec {
        fn run<'a>(
            &'a self,
            arguments: hark_tools::Arguments,
            _context: &'a ToolContext,
        ) -> futures::future::BoxFuture<'a, Result<Value, ToolError>> {
            self.0.lock().unwrap().push(Value::Object(arguments));
            Box::pin(async { Ok(json!({"ok": true})) })
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let spec = ToolSpec::new(
        name,
        "Record.",
        parameters,
        hark_tools::Output::done(),
        Arc::new(Rec(seen.clone())),
    )
    .unwrap();
    (spec, seen)
}

// ------------------------------------------------------------------------------ 1. call state

#[test]
fn call_state_holds_typed_values_call_language_timezone_and_transcript() {
    let state = state_with(
        St {
            name: Some("Ana".into()),
            ..St::default()
        },
        "es-ES",
        Some("Europe/Madrid"),
    );
    state.set("party", json!(4));
    state.push_message("user", "hola");
    state.push_message("assistant", "¿en qué puedo ayudarle?");
    state.push_message("user", "una mesa");
    let typed: St = state.typed().unwrap();
    assert_eq!(typed.name.as_deref(), Some("Ana"));
    assert_eq!(typed.party, Some(4));
    assert_eq!(state.get("day"), None, "a null value is unset");
    let context = state.context(&hark_tools::CallHooks::new());
    assert_eq!(context.call.session_id, "s-1");
    assert_eq!(context.call.call_type, CallType::Inbound);
    assert_eq!(context.language, "es-ES");
    assert_eq!(context.timezone.as_deref(), Some("Europe/Madrid"));
    assert_eq!(context.state["name"], "Ana");
    assert_eq!(context.transcript.len(), 3);
    assert_eq!(state.transcript(2)[0].text, "¿en qué puedo ayudarle?");
}

#[test]
fn a_live_call_refuses_a_timezone_that_is_not_iana() {
    let state = CallState::new(call_info(), "en-US", Some("Mars/Olympus"));
    let error = LiveCall::new(state, Arc::new(InMemorySpeech::new())).unwrap_err();
    assert_eq!(
        error.problems,
        vec![
            "timezone \"Mars/Olympus\" is not a timezone of the tz database. Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
        ]
    );
}

#[test]
fn a_live_call_refuses_a_language_it_cannot_speak_values_in() {
    let state = CallState::new(call_info(), "english", None);
    let error = LiveCall::new(state, Arc::new(InMemorySpeech::new())).unwrap_err();
    assert_eq!(
        error.problems,
        vec![
            "language \"english\" is not a language Hark can speak values in; did you mean \"en\"? Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" (en_US is read as en-US)."
        ]
    );
    let state = CallState::new(call_info(), "en_US", Some("Europe/Paris"));
    assert!(LiveCall::new(state, Arc::new(InMemorySpeech::new())).is_ok());
}

// ------------------------------------------------------------------------------ 2. templates

#[test]
fn removed_at_names_fail_at_build_naming_the_new_spelling() {
    let (tool, _) = recorder(
        "lookup",
        json!({"type": "object", "properties": {"id": {"type": "string"}, "phone": {"type": "string"}}}),
    );
    let problems = tool
        .clone()
        .locked([("id", "{{@call_id}}"), ("phone", "{{@phone_number}}")])
        .unwrap_err()
        .problems;
    assert_eq!(problems.len(), 2, "every problem at once: {problems:?}");
    assert!(
        problems[0].contains("{{@call_id}} is now {{call.carrier_call_id}} or {{call.session_id}}"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("{{@phone_number}} is {{call.remote_number}}"),
        "{}",
        problems[1]
    );
    let problems = tool
        .clone()
        .announce(["Sending {{@transcript}}"])
        .unwrap_err()
        .problems;
    assert!(
        problems[0].starts_with("lookup: announce: {{@transcript}}"),
        "{}",
        problems[0]
    );
    assert!(
        problems[0].contains("is Transcript { max_messages }"),
        "{}",
        problems[0]
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DayQuery {
    /// The day to check.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
}

fn check_day() -> ToolSpec {
    ToolSpec::local("check_day", "Check a day.", |q: DayQuery| async move {
        Ok::<_, ToolError>(json!({"ok": q.day.year() == 2026}))
    })
    .unwrap()
}

#[tokio::test]
async fn announce_reads_arguments_state_and_call_and_says_values_in_the_calls_language() {
    let tool = check_day()
        .announce(["Let me check {{day}} for {{brand}}. Call {{call.session_id}}."])
        .unwrap();
    let registry = ToolRegistry::builder(vec![tool])
        .state::<St>()
        .build()
        .unwrap();
    let (live, speech) = live(St {
        brand: Some("Hark".into()),
        ..St::default()
    });
    let generation = live.generation();
    let result = registry
        .call_live("check_day", r#"{"day": "2026-10-16"}"#, &live, &generation)
        .await
        .unwrap();
    assert!(result.outcome.succeeded());
    assert_eq!(
        speech.lines(),
        vec!["Let me check tomorrow, October 16 for Hark. Call s-1."]
    );
    assert_eq!(
        result.announced.as_deref(),
        Some("Let me check tomorrow, October 16 for Hark. Call s-1.")
    );
}

/// A value the schema lets through but the type refuses (a day not on the calendar) is refused
/// with the other argument checks, before anything is said: no announce line, no precheck, no
/// `tool.started` for the sinks, and a flow's check (`check_live`) refuses it before a
/// read-back (it was decoded only when the tool ran, after the line was said).
#[tokio::test]
async fn a_day_not_on_the_calendar_is_refused_before_the_announce_line() {
    let prechecked = Arc::new(Mutex::new(0));
    let seen = prechecked.clone();
    let tool = check_day()
        .announce(["Let me check {{day}}."])
        .unwrap()
        .precheck_json(move |_| {
            *seen.lock().unwrap() += 1;
            Ok(None)
        });
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let events = listen(&registry);
    let (live, speech) = live(St::default());
    let generation = live.generation();
    let result = registry
        .call_live("check_day", r#"{"day": "2026-02-30"}"#, &live, &generation)
        .await
        .unwrap();
    assert_eq!(result.outcome.status, CallStatus::Refused);
    assert_eq!(
        result.outcome.model_result["refused"],
        "day: \"2026-02-30\" is not a day on the calendar: February 2026 has days 01 to 28\nFix these arguments, asking the caller if needed, then call check_day again."
    );
    assert!(speech.lines().is_empty(), "{:?}", speech.lines());
    assert_eq!(result.announced, None);
    assert_eq!(*prechecked.lock().unwrap(), 0);
    assert_eq!(
        stages(&events),
        vec![(
            ToolStage::Refused,
            "check_day".to_string(),
            Some("day (format)".to_string())
        )]
    );
    let checked = registry
        .check_live("check_day", r#"{"day": "2026-02-30"}"#, &live, &generation)
        .await
        .unwrap();
    assert!(matches!(checked, hark_tools::Checked::Done(_)));
}

/// How many times a [`Counted`] was decoded (one counter per test: each test names its own).
static DECODED: [std::sync::atomic::AtomicUsize; 3] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// A string that counts its decodes in `DECODED[index]`, the index being the text itself.
struct Counted;

impl<'de> serde::Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let index: usize = String::deserialize(d)?.parse().unwrap();
        DECODED[index].fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Counted)
    }
}

impl schemars::JsonSchema for Counted {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Counted".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct CountedDay {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    counter: Counted,
}

/// A typed tool whose input has a format decodes it during the checks (above); the run takes
/// that decode: the arguments are decoded once per call, on its own, live, and live with
/// `continue`.
#[tokio::test]
async fn a_typed_input_checked_early_is_decoded_once_per_call() {
    let tool = |name: &str| {
        ToolSpec::local(name, "Check a day.", |q: CountedDay| async move {
            let _ = q.counter;
            Ok::<_, ToolError>(json!({"ok": q.day.year() == 2026}))
        })
        .unwrap()
    };
    let registry = ToolRegistry::new(vec![
        tool("alone"),
        tool("live"),
        tool("kept").interruption(Interruption::Continue),
    ])
    .unwrap();
    let alone = registry
        .call(
            "alone",
            r#"{"day": "2026-10-16", "counter": "0"}"#,
            &ToolContext::default(),
        )
        .await;
    assert!(alone.succeeded(), "{:?}", alone.model_result);
    let (live, _speech) = live(St::default());
    for (index, name) in [(1, "live"), (2, "kept")] {
        let generation = live.generation();
        let arguments = format!(r#"{{"day": "2026-10-16", "counter": "{index}"}}"#);
        let result = registry
            .call_live(name, arguments.as_str(), &live, &generation)
            .await
            .unwrap();
        assert!(
            result.outcome.succeeded(),
            "{:?}",
            result.outcome.model_result
        );
    }
    let counts: Vec<usize> = DECODED
        .iter()
        .map(|c| c.load(std::sync::atomic::Ordering::SeqCst))
        .collect();
    assert_eq!(counts, vec![1, 1, 1]);
}

// ------------------------------------------------------------------ 3 + 4. locked and hints

fn customer_tool() -> (ToolSpec, Arc<Mutex<Vec<Value>>>) {
    recorder(
        "lookup_customer",
        json!({
            "type": "object",
            "properties": {
                "customer_id": {"type": "string"},
                "call": {"type": "string"},
                "question": {"type": "string"}
            },
            "required": ["customer_id", "call", "question"]
        }),
    )
}

#[tokio::test]
async fn a_locked_argument_is_hidden_replaced_and_filled_from_the_state() {
    let (tool, seen) = customer_tool();
    let tool = tool
        .locked([
            ("customer_id", "{{customer.id}}"),
            ("call", "{{call.session_id}}"),
        ])
        .unwrap();
    assert_eq!(
        tool.model_parameters()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["question"],
        "the model never sees a locked argument"
    );
    assert_eq!(tool.model_parameters()["required"], json!(["question"]));
    let registry = ToolRegistry::builder(vec![tool])
        .state::<St>()
        .build()
        .unwrap();
    let (live, _) = live(St {
        customer: Some(Customer {
            id: "C-7".into(),
            tier: "gold".into(),
        }),
        ..St::default()
    });
    let result = registry
        .call_live(
            "lookup_customer",
            r#"{"question": "balance", "customer_id": "C-666"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert!(result.outcome.succeeded(), "{:?}", result.outcome);
    assert_eq!(
        seen.lock().unwrap()[0],
        json!({"customer_id": "C-7", "call": "s-1", "question": "balance"}),
        "the value the model sent is replaced"
    );
}

#[tokio::test]
async fn an_unset_locked_value_is_refused_with_the_get_hint_and_the_description() {
    let (tool, seen) = customer_tool();
    let tool = tool.lock("customer_id", "{{customer.id}}").unwrap();
    let registry = ToolRegistry::builder(vec![tool])
        .state::<St>()
        .build()
        .unwrap();
    let (live, _) = live(St::default());
    let result = registry
        .call_live(
            "lookup_customer",
            r#"{"question": "x", "call": "y"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(result.outcome.status, CallStatus::Refused);
    assert_eq!(
        result.outcome.model_result,
        json!({"refused": "customer.id not set yet. Get it from the caller (The customer record), then call this tool again."})
    );
    assert!(seen.lock().unwrap().is_empty(), "the tool does not run");
}

#[tokio::test]
async fn the_plain_call_path_fills_locked_values_from_the_context_too() {
    let (tool, seen) = customer_tool();
    let tool = tool.lock("customer_id", "{{note}}").unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let context = ToolContext {
        state: json!({"note": "N-1"}),
        ..ToolContext::default()
    };
    let outcome = registry
        .call(
            "lookup_customer",
            r#"{"question": "x", "call": "y"}"#,
            &context,
        )
        .await;
    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!(seen.lock().unwrap()[0]["customer_id"], "N-1");
    let outcome = registry
        .call(
            "lookup_customer",
            r#"{"question": "x", "call": "y"}"#,
            &ToolContext::default(),
        )
        .await;
    assert_eq!(
        outcome.model_result,
        json!({"refused": "note not set yet. Get it from the caller, then call this tool again."})
    );
}

#[tokio::test]
async fn an_empty_call_value_refuses_with_the_spec_sentence() {
    let (tool, seen) = customer_tool();
    let tool = tool.lock("call", "{{call.carrier_call_id}}").unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, _) = live(St::default());
    let result = registry
        .call_live(
            "lookup_customer",
            r#"{"question": "x", "customer_id": "C"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(
        result.outcome.model_result,
        json!({"refused": "This tool reads call.carrier_call_id, which this call does not carry."})
    );
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn hints_come_in_the_spec_order_confirm_then_saves_then_get() {
    let (tool, _) = recorder(
        "book",
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "integer"}}}),
    );
    let tool = tool
        .locked([("a", "{{order_number}}"), ("b", "{{name}}")])
        .unwrap();
    let registry = ToolRegistry::builder(vec![
        tool.clone(),
        find_order_with(Status::Held, "2026-10-16"),
    ])
    .state::<St>()
    .assign("find_order", [Assign::new("order_number", ["order_id"])])
    .confirms("confirm_order", ["order_number"])
    .build()
    .unwrap();
    let (live, _) = live(St::default());
    let refused = |r: hark_tools::CallResult| {
        r.outcome.model_result["refused"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = registry
        .call_live("book", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(
        refused(r),
        "order_number not set yet. Run first: it confirms with the caller (confirm_order), then call this tool again."
    );
    let registry = ToolRegistry::builder(vec![
        tool.clone(),
        find_order_with(Status::Held, "2026-10-16"),
    ])
    .state::<St>()
    .assign("find_order", [Assign::new("order_number", ["order_id"])])
    .build()
    .unwrap();
    let r = registry
        .call_live("book", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(
        refused(r),
        "order_number not set yet. Run first: it saves order_number (find_order), then call this tool again."
    );
    live.state.set("order_number", json!("A-1"));
    let r = registry
        .call_live("book", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(
        refused(r),
        "name not set yet. Get it from the caller (The caller's first name), then call this tool again."
    );
}

#[tokio::test]
async fn every_announce_line_is_filled_before_one_is_picked() {
    let tool = check_day()
        .announce(["One moment.", "Checking for {{name}}."])
        .unwrap();
    let registry = ToolRegistry::builder(vec![tool])
        .state::<St>()
        .build()
        .unwrap();
    let (live, speech) = live(St::default());
    let r = registry
        .call_live(
            "check_day",
            r#"{"day": "2026-10-16"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.outcome.status, CallStatus::Refused);
    assert_eq!(
        r.outcome.model_result["refused"],
        "name not set yet. Get it from the caller (The caller's first name), then call this tool again."
    );
    assert!(speech.lines().is_empty(), "nothing is said");
}

fn locked_problems(param_schema: Value, template: &str) -> Vec<String> {
    let (tool, _) = recorder(
        "t",
        json!({"type": "object", "properties": {"p": param_schema}}),
    );
    let tool = tool.lock("p", template).unwrap();
    build_error(ToolRegistry::builder(vec![tool]).state::<St>().build())
}

#[tokio::test]
async fn a_registry_with_a_state_checks_every_locked_path_at_build() {
    assert_eq!(
        locked_problems(json!({"type": "string"}), "{{customer.idd}}"),
        vec![
            "t: {{customer.idd}} is not in the State: customer has no field idd. Use one of: id, tier."
        ]
    );
    assert_eq!(
        locked_problems(json!({"type": "integer"}), "{{name}}"),
        vec![
            "t: p is locked to {{name}}, which holds string, but p takes integer. Lock a value of the parameter's type, or change the parameter's type."
        ]
    );
    let problems = locked_problems(json!({"type": "string"}), "Customer: {{customer}}");
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with(
            "t: {{customer}} is an object or a list and cannot sit inside a longer text."
        ),
        "{}",
        problems[0]
    );
    // A whole object locked as the only text to an object parameter: the tool gets the object.
    let (tool, seen) = recorder(
        "t",
        json!({"type": "object", "properties": {"p": {"type": "object"}}}),
    );
    let registry = ToolRegistry::builder(vec![tool.lock("p", "{{customer}}").unwrap()])
        .state::<St>()
        .build()
        .unwrap();
    let (live, _) = live(St {
        customer: Some(Customer {
            id: "C-7".into(),
            tier: "gold".into(),
        }),
        ..St::default()
    });
    let r = registry
        .call_live("t", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert!(r.outcome.succeeded(), "{:?}", r.outcome);
    assert_eq!(
        seen.lock().unwrap()[0]["p"],
        json!({"id": "C-7", "tier": "gold"})
    );
}

#[tokio::test]
async fn the_transcript_is_a_locked_value() {
    let (tool, seen) = recorder(
        "notify",
        json!({"type": "object", "properties": {"transcript": {"type": "array"}, "reason": {"type": "string"}}}),
    );
    let tool = tool
        .lock("transcript", Transcript { max_messages: 2 })
        .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, _) = live(St::default());
    live.state.push_message("user", "one");
    live.state.push_message("assistant", "two");
    live.state.push_message("user", "three");
    registry
        .call_live("notify", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(
        seen.lock().unwrap()[0]["transcript"],
        json!([{"role": "assistant", "text": "two"}, {"role": "user", "text": "three"}])
    );
    let (bad, _) = recorder(
        "n",
        json!({"type": "object", "properties": {"t": {"type": "string"}}}),
    );
    assert_eq!(
        bad.lock("t", Transcript { max_messages: 5 })
            .unwrap_err()
            .problems,
        vec![
            "n: t is locked to Transcript, a list of messages, but the parameter is not an array. Type it as a list (Vec<TranscriptMessage>) or leave it without a type."
        ]
    );
}

#[test]
fn locking_a_parameter_the_tool_does_not_have_names_the_ones_it_has() {
    let (tool, _) = customer_tool();
    assert_eq!(
        tool.lock("customer", "{{customer.id}}")
            .unwrap_err()
            .problems,
        vec![
            "lookup_customer: locked names customer, which is not a parameter of lookup_customer. Lock one of: call, customer_id, question."
        ]
    );
}

// ---------------------------------------------------------------------------- 5. announce

#[tokio::test]
async fn several_announce_lines_never_repeat_in_a_row() {
    let tool = check_day()
        .announce(["One moment.", "Let me check.", "Checking now."])
        .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, speech) = live(St::default());
    for _ in 0..6 {
        registry
            .call_live(
                "check_day",
                r#"{"day": "2026-10-16"}"#,
                &live,
                &live.generation(),
            )
            .await
            .unwrap();
    }
    let lines = speech.lines();
    assert_eq!(lines.len(), 6);
    assert!(lines.windows(2).all(|w| w[0] != w[1]), "{lines:?}");
    assert_eq!(lines[0], "One moment.");
}

#[tokio::test]
async fn announce_wait_plays_the_line_out_before_the_tool_runs() {
    let speech = Arc::new(InMemorySpeech::new());
    let marks = speech.clone();
    let tool = ToolSpec::local("transfer", "Transfer the call.", move |_: OrderQuery| {
        marks.mark("tool ran");
        async { Ok::<_, ToolError>(json!({"ok": true})) }
    })
    .unwrap()
    .announce(["Putting you through now."])
    .unwrap()
    .announce_wait(true);
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let live = live_with(state_with(St::default(), "en-US", None), speech.clone());
    registry
        .call_live(
            "transfer",
            r#"{"order_id": "x"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(
        speech.events(),
        vec![
            SpeechEvent::Said("Putting you through now.".into()),
            SpeechEvent::PlayedOut,
            SpeechEvent::Mark("tool ran".into()),
        ]
    );
}

#[tokio::test]
async fn a_realtime_model_that_speaks_itself_skips_the_line() {
    let tool = check_day().announce(["One moment."]).unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let speech = Arc::new(InMemorySpeech::realtime());
    let live = live_with(state_with(St::default(), "en-US", None), speech.clone());
    let r = registry
        .call_live(
            "check_day",
            r#"{"day": "2026-10-16"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert!(r.outcome.succeeded());
    assert!(speech.lines().is_empty());
    assert_eq!(r.announced, None);
}

// ----------------------------------------------------------------------------- 6. interruption

#[tokio::test]
async fn t7_continue_finishes_and_reaches_the_model_once_and_the_lookup_is_cancelled() {
    let (release, gate) = tokio::sync::oneshot::channel::<()>();
    let gate = Arc::new(Mutex::new(Some(gate)));
    let booking = ToolSpec::local("create_booking", "Book.", move |q: OrderQuery| {
        let gate = gate.lock().unwrap().take();
        async move {
            if let Some(gate) = gate {
                let _ = gate.await;
            }
            Ok::<_, ToolError>(json!({"reference": format!("B-{}", q.order_id)}))
        }
    })
    .unwrap()
    .interruption(Interruption::Continue);
    let lookup = ToolSpec::local("lookup", "Look up.", |_: OrderQuery| async {
        futures::future::pending::<()>().await;
        Ok::<_, ToolError>(json!({}))
    })
    .unwrap();
    let registry = ToolRegistry::new(vec![booking, lookup]).unwrap();
    let events = listen(&registry);
    let (live, _) = live(St::default());
    let generation = live.generation();
    generation.mark_spoken();
    let interrupter = {
        let generation = generation.clone();
        async move {
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            generation.interrupt();
        }
    };
    let (booked, looked, ()) = tokio::join!(
        registry.call_live("create_booking", r#"{"order_id": "1"}"#, &live, &generation),
        registry.call_live("lookup", r#"{"order_id": "1"}"#, &live, &generation),
        interrupter,
    );
    let booked = booked.unwrap();
    let looked = looked.unwrap();
    // Every tool call in the history has exactly one result.
    assert_eq!(booked.outcome.status, CallStatus::StillRunning);
    assert_eq!(
        booked.outcome.model_result["note"],
        "create_booking is still running. Its result comes in a later reply; do not say it is done yet."
    );
    assert_eq!(looked.outcome.status, CallStatus::Failed);
    assert_eq!(looked.outcome.model_result, json!({"error": "cancelled"}));
    assert!(stages(&events).contains(&(
        ToolStage::Failed,
        "lookup".into(),
        Some("cancelled".into())
    )));
    assert_eq!(live.late_len(), 1);
    release.send(()).unwrap();
    let late = registry.late_results(&live).await;
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].outcome.tool, "create_booking");
    assert_eq!(late[0].outcome.model_result, json!({"reference": "B-1"}));
    assert!(
        registry.late_results(&live).await.is_empty(),
        "exactly once"
    );
    let succeeded: Vec<_> = stages(&events)
        .into_iter()
        .filter(|(s, t, _)| *s == ToolStage::Succeeded && t == "create_booking")
        .collect();
    assert_eq!(succeeded.len(), 1);
}

#[tokio::test]
async fn a_continue_tool_that_is_not_interrupted_returns_its_result_at_once() {
    let tool = check_day().interruption(Interruption::Continue);
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, _) = live(St::default());
    let r = registry
        .call_live(
            "check_day",
            r#"{"day": "2026-10-16"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.outcome.model_result, json!({"ok": true}));
    assert!(registry.late_results(&live).await.is_empty());
}

#[tokio::test]
async fn t8_tool_calls_of_a_discarded_generation_never_run() {
    let registry = ToolRegistry::new(vec![
        end_call_tool("Call it when the caller is done.", "Goodbye!").unwrap(),
    ])
    .unwrap();
    let events = listen(&registry);
    let (live, speech) = live(St::default());
    let generation: Generation = live.generation();
    generation.interrupt();
    assert!(generation.is_discarded());
    let r = registry
        .call_live("end_call", "{}", &live, &generation)
        .await;
    assert_eq!(r.unwrap_err(), hark_tools::Discarded);
    assert!(speech.lines().is_empty(), "the goodbye was never said");
    assert!(events.lock().unwrap().is_empty(), "the call never started");
    // A generation interrupted after some of it was spoken is not discarded.
    let spoken = live.generation();
    spoken.mark_spoken();
    spoken.interrupt();
    assert!(!spoken.is_discarded());
}

// ------------------------------------------------------------------------------- 7. effects

#[derive(Debug)]
struct Fails;
impl hark_tools::ToolExecutor for Fails {
    fn run<'a>(
        &'a self,
        _arguments: hark_tools::Arguments,
        _context: &'a ToolContext,
    ) -> futures::future::BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { Ok(json!({"error": "Failed to add order"})) })
    }
}

#[tokio::test]
async fn t5_a_failed_or_refused_call_never_ends_the_conversation_nor_says_a_success_reply() {
    let tool = ToolSpec::new(
        "add_order",
        "Add the order.",
        json!({"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}),
        hark_tools::Output::done(),
        Arc::new(Fails),
    )
    .unwrap()
    .replies([ToolReply::say(["Your order is in."])]);
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, speech) = live(St::default());
    let r = registry
        .call_live(
            "add_order",
            r#"{"item": "pizza"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.outcome.status, CallStatus::Failed);
    assert_eq!(
        r.outcome.model_result,
        json!({"error": "Failed to add order"})
    );
    assert!(
        r.said.is_empty() && speech.lines().is_empty(),
        "no success reply plays"
    );
    assert!(r.ask_model_reply, "the model reads the error and goes on");

    let ending = ToolSpec::new(
        "hang_up",
        "Hang up.",
        json!({"type": "object", "properties": {"why": {"type": "string"}}, "required": ["why"]}),
        hark_tools::Output::done(),
        Arc::new(Fails),
    )
    .unwrap()
    .ends_conversation();
    let registry = ToolRegistry::new(vec![ending]).unwrap();
    let failed = registry
        .call_live("hang_up", r#"{"why": "done"}"#, &live, &live.generation())
        .await
        .unwrap();
    assert!(!failed.ends_conversation);
    let refused = registry
        .call_live("hang_up", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(refused.outcome.status, CallStatus::Refused);
    assert!(!refused.ends_conversation);
}

#[tokio::test]
async fn end_call_says_goodbye_waits_and_ends_the_conversation() {
    let tool = end_call_tool("Call it when the caller is done.", "Goodbye!").unwrap();
    assert_eq!(tool.name(), "end_call");
    assert_eq!(tool.description(), "Call it when the caller is done.");
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, speech) = live(St::default());
    let r = registry
        .call_live("end_call", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert!(r.ends_conversation);
    assert_eq!(r.outcome.model_result, json!({"ok": true}));
    assert_eq!(
        speech.events(),
        vec![SpeechEvent::Said("Goodbye!".into()), SpeechEvent::PlayedOut]
    );
}

#[test]
fn a_reply_on_a_tool_that_ends_the_call_is_refused_at_build() {
    let tool = end_call_tool("Done.", "Bye.").unwrap();
    let problems = build_error(
        ToolRegistry::builder(vec![tool])
            .replies([ToolReply::say(["See you!"]).tool("end_call")])
            .build(),
    );
    assert_eq!(
        problems,
        vec![
            "end_call ends the call, so a reply on it is refused: the call is over before the line could play. Say a goodbye with the tool's announce and announce_wait."
        ]
    );
}

// --------------------------------------------------------------------------- 8. assign rows

#[tokio::test]
async fn assign_saves_the_whole_result_and_a_field_in_one_batch_and_never_confirms() {
    let registry = ToolRegistry::builder(vec![find_order_with(Status::Held, "2026-10-16")])
        .state::<St>()
        .assign(
            "find_order",
            [
                Assign::new("order", [] as [&str; 0]),
                Assign::new("order_number", ["order_id"]),
            ],
        )
        .build()
        .unwrap();
    let (live, _) = live(St::default());
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A-17"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.saved, vec!["order", "order_number"]);
    let st: St = live.state.typed().unwrap();
    assert_eq!(st.order_number.as_deref(), Some("A-17"));
    assert_eq!(st.order.unwrap().status, Status::Held);
    assert!(
        !live.state.is_confirmed("order_number"),
        "a save never confirms a value"
    );
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Count {
    name: String,
    count: i64,
}

#[tokio::test]
async fn a_save_the_state_refuses_saves_nothing_is_told_to_sinks_and_the_model_still_reads() {
    let tool = ToolSpec::local("count", "Count.", |_: OrderQuery| async {
        Ok::<_, ToolError>(Count {
            name: "Ana".into(),
            count: 300,
        })
    })
    .unwrap();
    let registry = ToolRegistry::builder(vec![tool])
        .state::<St>()
        .assign(
            "count",
            [
                Assign::new("name", ["name"]),
                Assign::new("party", ["count"]),
            ],
        )
        .build()
        .unwrap();
    let events = listen(&registry);
    let (live, _) = live(St::default());
    let r = registry
        .call_live("count", r#"{"order_id": "x"}"#, &live, &live.generation())
        .await
        .unwrap();
    assert!(r.outcome.succeeded());
    assert_eq!(r.outcome.model_result, json!({"name": "Ana", "count": 300}));
    assert!(r.saved.is_empty());
    assert_eq!(live.state.get("name"), None, "one batch, or not at all");
    let refused: Vec<_> = stages(&events)
        .into_iter()
        .filter(|(s, _, _)| *s == ToolStage::SaveRefused)
        .collect();
    assert_eq!(
        refused,
        vec![(
            ToolStage::SaveRefused,
            "count".into(),
            Some("the State refused party".into())
        )]
    );
    assert!(
        !format!("{:?}", events.lock().unwrap()).contains("300"),
        "sinks never get a value"
    );
}

#[test]
fn assign_rows_are_checked_at_build_with_every_problem_at_once() {
    let problems = build_error(
        ToolRegistry::builder(vec![find_order_with(Status::Held, "2026-10-16")])
            .state::<St>()
            .assign("find_ordr", [Assign::new("order", [] as [&str; 0])])
            .assign(
                "find_order",
                [
                    Assign::new("ordr", ["order_id"]),
                    Assign::new("order_number", ["id"]),
                    Assign::new("vip", ["order_id"]),
                ],
            )
            .build(),
    );
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert_eq!(
        problems[0],
        "An assign row names the tool find_ordr, which the registry does not have. Use one of: find_order."
    );
    assert!(
        problems[1].starts_with("find_order: ordr is not a State value. Use one of: day, name,"),
        "{}",
        problems[1]
    );
    assert_eq!(
        problems[2],
        "find_order: the result field id is not in Order. Use one of: order_id, status, arrives."
    );
    assert_eq!(
        problems[3],
        "find_order: assign saves order_id (string) into vip, which takes boolean. Save a field of that type, or change the State value's type."
    );
}

// ------------------------------------------------------------------------------- 9. replies

fn spec_registry(status: Status, arrives: &str) -> ToolRegistry {
    ToolRegistry::builder(vec![find_order_with(status, arrives)])
        .state::<St>()
        .assign(
            "find_order",
            [
                Assign::new("order", [] as [&str; 0]),
                Assign::new("order_number", ["order_id"]),
            ],
        )
        .replies([
            ToolReply::say(["{{result.order_id}} is held."])
                .tool("find_order")
                .when("status", ["held"]),
            ToolReply::say(["{{name}}, it arrives {{result.arrives}}."])
                .tool("find_order")
                .state("vip", [true]),
            ToolReply::say([
                "Your order arrives {{result.arrives}}.",
                "It comes {{result.arrives}}.",
            ])
            .tool("find_order"),
        ])
        .build()
        .unwrap()
}

#[tokio::test]
async fn replies_are_tried_in_order_and_the_first_that_matches_and_fills_is_said() {
    let registry = spec_registry(Status::Held, "2026-10-16");
    let events = listen(&registry);
    let (live, speech) = live(St::default());
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A-17"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["A-17 is held."]);
    assert!(!r.ask_model_reply, "no model reply is asked");
    assert_eq!(
        r.outcome.model_result["order_id"], "A-17",
        "the model reads the result"
    );
    assert!(stages(&events).contains(&(ToolStage::Replied, "find_order".into(), None)));

    // Shipped, VIP but no name: the VIP line does not fill, the fixed reply is said, in turn.
    let registry = spec_registry(Status::Shipped, "2026-10-16");
    live.state.set("vip", json!(true));
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A-17"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["Your order arrives tomorrow, October 16."]);
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A-17"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(
        r.said,
        vec!["It comes tomorrow, October 16."],
        "alternatives are said in turn"
    );
    live.state.set("name", json!("Ana"));
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A-17"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["Ana, it arrives tomorrow, October 16."]);
    assert_eq!(speech.lines().len(), 4);
}

#[tokio::test]
async fn the_places_replies_come_first_then_the_tools_own() {
    let tool =
        find_order_with(Status::Shipped, "2026-10-20").replies([ToolReply::say(["Own line."])]);
    let registry = ToolRegistry::builder(vec![tool.clone()])
        .replies([ToolReply::say(["Place line."])
            .tool("find_order")
            .when("status", ["shipped"])])
        .build()
        .unwrap();
    let (live, _) = live(St::default());
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["Place line."]);
    let registry = ToolRegistry::builder(vec![tool])
        .replies([ToolReply::say(["Place line."])
            .tool("find_order")
            .when("status", ["held"])])
        .build()
        .unwrap();
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["Own line."]);
}

#[test]
fn reply_rows_are_checked_at_build_and_each_message_names_the_fix() {
    let own_other =
        find_order_with(Status::Held, "2026-10-16").replies([ToolReply::say(["x"]).tool("lookup")]);
    let problems = build_error(
        ToolRegistry::builder(vec![own_other])
            .state::<St>()
            .replies([
                ToolReply::say(["x"]),
                ToolReply::say(["x"]).tool("find_ordr"),
                ToolReply::say(["x"])
                    .tool("find_order")
                    .when("status", ["shiped"]),
                ToolReply::say(["{{result.eta}}"]).tool("find_order"),
                ToolReply::say(["x"])
                    .tool("find_order")
                    .state("vipp", [true]),
                ToolReply::say(["x"])
                    .tool("find_order")
                    .state("vip", ["yes"]),
            ])
            .build(),
    );
    assert_eq!(problems.len(), 7, "{problems:#?}");
    assert_eq!(
        problems[0],
        "find_order: its own reply names the tool lookup. Leave tool out, or put the reply on the registry."
    );
    assert_eq!(
        problems[1],
        "A reply on a ToolRegistry names its tool: set tool on the ToolReply."
    );
    assert_eq!(
        problems[2],
        "A reply names the tool find_ordr, which the registry does not have. Use one of: find_order."
    );
    assert_eq!(
        problems[3],
        "find_order: when status is \"shiped\", which status never holds. It holds: \"held\", \"shipped\"."
    );
    assert_eq!(
        problems[4],
        "find_order: the result field eta is not in Order. Use one of: order_id, status, arrives."
    );
    assert!(
        problems[5].starts_with(
            "find_order: vipp is not a State value. Use one of: day, name, brand, vip,"
        ),
        "{}",
        problems[5]
    );
    assert_eq!(
        problems[6],
        "find_order: when vip is \"yes\", which vip never holds. It holds: true, false, null."
    );
}

// ------------------------------------------------------------------------------ 10. precheck

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Recorded {
    status: RecordedStatus,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum RecordedStatus {
    Recorded,
    PastDay,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Promise {
    /// The day the caller promises to pay.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    /// The amount.
    amount: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DayOnly {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
}

fn outside_window(p: DayOnly) -> Option<Recorded> {
    let today: Date = "2026-10-15".parse().unwrap();
    (p.day < today).then_some(Recorded {
        status: RecordedStatus::PastDay,
    })
}

#[tokio::test]
async fn a_precheck_outcome_is_the_result_the_tool_does_not_run_and_its_reply_is_said() {
    let ran = Arc::new(Mutex::new(0));
    let count = ran.clone();
    let tool = ToolSpec::local("record_promise", "Record a promise.", move |_: Promise| {
        *count.lock().unwrap() += 1;
        async {
            Ok::<_, ToolError>(Recorded {
                status: RecordedStatus::Recorded,
            })
        }
    })
    .unwrap()
    .precheck(outside_window)
    .unwrap()
    .announce(["Recording that."])
    .unwrap()
    .replies([
        ToolReply::say(["That day has already gone. Which other day would suit you?"])
            .when("status", ["past_day"]),
    ]);
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, speech) = live(St::default());
    let r = registry
        .call_live(
            "record_promise",
            r#"{"day": "2026-10-01", "amount": 50}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.outcome.model_result, json!({"status": "past_day"}));
    assert_eq!(*ran.lock().unwrap(), 0, "the tool does not run");
    assert_eq!(
        speech.lines(),
        vec!["That day has already gone. Which other day would suit you?"],
        "no announce plays"
    );
    let r = registry
        .call_live(
            "record_promise",
            r#"{"day": "2026-10-20", "amount": 50}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.outcome.model_result, json!({"status": "recorded"}));
    assert_eq!(*ran.lock().unwrap(), 1);
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct WrongDay {
    day: String,
}

#[test]
fn a_precheck_parameter_of_another_type_fails_at_build() {
    let tool = ToolSpec::local("record_promise", "Record.", |_: Promise| async {
        Ok::<_, ToolError>(Recorded {
            status: RecordedStatus::Recorded,
        })
    })
    .unwrap();
    let problems = tool
        .precheck(|_: WrongDay| None::<Recorded>)
        .unwrap_err()
        .problems;
    assert_eq!(
        problems,
        vec![
            "record_promise: the precheck takes day, which is not a parameter of record_promise with the same type. Take the tool's parameters by name with their types, or the whole input."
        ]
    );
}

// ------------------------------------------------------------------------ 11. spoken values

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Slot {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    #[schemars(schema_with = "hark_tools::schema::time")]
    at: jiff::civil::Time,
    phone: hark_tools::Phone,
    seating: Seating,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Seating {
    OutsideTerrace,
}

#[tokio::test]
async fn reply_values_are_said_by_their_format_in_the_calls_language() {
    let cases = [
        (
            "en-US",
            "America/New_York",
            "+14155550123",
            "tomorrow, October 16 at 9:00 AM; 415 555 0123; outside terrace",
        ),
        (
            "es-ES",
            "Europe/Madrid",
            "+34612345678",
            "mañana, 16 de octubre at 09:00; 612 34 56 78; outside terrace",
        ),
        (
            "fr-FR",
            "Europe/Paris",
            "+33612345678",
            "demain, 16 octobre at 09:00; 06 12 34 56 78; outside terrace",
        ),
        (
            "de-DE",
            "Europe/Berlin",
            "+4930901820",
            "morgen, 16. Oktober at 09:00; 030 901820; outside terrace",
        ),
    ];
    for (lang, tz, phone, expected) in cases {
        let phone = hark_tools::Phone::parse(phone).unwrap();
        let tool = ToolSpec::local("slot", "Find a slot.", move |_: OrderQuery| {
            let phone = phone.clone();
            async move {
                Ok::<_, ToolError>(Slot {
                    day: "2026-10-16".parse().unwrap(),
                    at: "09:00".parse().unwrap(),
                    phone,
                    seating: Seating::OutsideTerrace,
                })
            }
        })
        .unwrap()
        .replies([ToolReply::say([
            "{{result.day}} at {{result.at}}; {{result.phone}}; {{result.seating}}",
        ])]);
        let registry = ToolRegistry::new(vec![tool]).unwrap();
        let speech = Arc::new(InMemorySpeech::new());
        let live = live_with(state_with(St::default(), lang, Some(tz)), speech.clone());
        let r = registry
            .call_live("slot", r#"{"order_id": "x"}"#, &live, &live.generation())
            .await
            .unwrap();
        assert_eq!(r.said, vec![expected], "{lang}");
    }
}

#[tokio::test]
async fn without_a_timezone_a_date_reads_in_full() {
    let registry = spec_registry(Status::Shipped, "2026-10-16");
    let speech = Arc::new(InMemorySpeech::new());
    let live = live_with(state_with(St::default(), "en-US", None), speech);
    let r = registry
        .call_live(
            "find_order",
            r#"{"order_id": "A"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(r.said, vec!["Your order arrives Friday, October 16, 2026."]);
}

// ---------------------------------------------------------------- refusals and model replies

#[tokio::test]
async fn a_missing_argument_after_a_reply_that_spoke_asks_no_model_reply() {
    let registry = ToolRegistry::new(vec![check_day()]).unwrap();
    let (live, speech) = live(St::default());
    speech.set_reply_spoke(true);
    let r = registry
        .call_live("check_day", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(r.outcome.model_result["missing"], json!(["day"]));
    assert!(!r.ask_model_reply);
    speech.set_reply_spoke(false);
    let r = registry
        .call_live("check_day", "{}", &live, &live.generation())
        .await
        .unwrap();
    assert!(r.ask_model_reply);
}

#[tokio::test]
async fn a_json_precheck_reads_the_checked_arguments_and_its_outcome_is_checked_like_a_result() {
    let ran = Arc::new(Mutex::new(0));
    let count = ran.clone();
    let tool = ToolSpec::local("record_promise", "Record a promise.", move |_: Promise| {
        *count.lock().unwrap() += 1;
        async {
            Ok::<_, ToolError>(Recorded {
                status: RecordedStatus::Recorded,
            })
        }
    })
    .unwrap()
    .precheck_json(|arguments| {
        Ok(match arguments["day"].as_str() {
            Some(day) if day < "2026-10-15" => Some(json!({"status": "past_day"})),
            Some("2026-12-31") => Some(json!({"status": "closed"})),
            _ => None,
        })
    });
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let (live, _speech) = live(St::default());
    let run = |day: &'static str| {
        let registry = &registry;
        let live = &live;
        async move {
            registry
                .call_live(
                    "record_promise",
                    format!(r#"{{"day": "{day}", "amount": 50}}"#).as_str(),
                    live,
                    &live.generation(),
                )
                .await
                .unwrap()
        }
    };
    let past = run("2026-10-01").await;
    assert!(past.prechecked);
    assert_eq!(past.outcome.model_result, json!({"status": "past_day"}));
    let unfit = run("2026-12-31").await;
    assert_eq!(unfit.outcome.status, CallStatus::Failed);
    assert!(
        unfit.outcome.model_result["error"]
            .as_str()
            .unwrap()
            .starts_with("record_promise returned a result that does not fit Recorded: ")
    );
    assert_eq!(*ran.lock().unwrap(), 0);
    let went_ahead = run("2026-10-20").await;
    assert_eq!(
        went_ahead.outcome.model_result,
        json!({"status": "recorded"})
    );
    assert_eq!(*ran.lock().unwrap(), 1);
}
