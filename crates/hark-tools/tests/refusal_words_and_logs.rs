//! The second new-user trial's faults: no value in the log, format words for values a type
//! refuses, every sink stage in the log, blank lines refused, nested path typos.

use std::io::Write;
use std::sync::{Arc, Mutex};

use hark_tools::{
    Assign, CallInfo, CallState, InMemorySpeech, LiveCall, SinkError, SpeechEvent, StateModel,
    ToolContext, ToolError, ToolEvent, ToolRegistry, ToolReply, ToolSink, ToolSpec, end_call_tool,
    messages, tool,
};
use jiff::civil::{Date, DateTime, Time};
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Runs `body` with every log line (all levels) written to the returned buffer.
async fn logged<F: std::future::Future<Output = ()>>(body: F) -> String {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time() // a timestamp's digits could hold a value the test says is absent
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    body.await;
    captured.text()
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

fn live(state: CallState) -> (LiveCall, Arc<InMemorySpeech>) {
    let speech = Arc::new(InMemorySpeech::new());
    (LiveCall::new(state, speech.clone()).unwrap(), speech)
}

// ------------------------------------------------------------------ 1. no value in the log

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Basic,
    Gold,
}

/// The call's State.
#[derive(Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Shop {
    /// The customer's tier.
    tier: Option<Tier>,
    /// How many people.
    party: Option<u8>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Found {
    tier: String,
    party: u32,
}

const SECRET: &str = "platinum +34 612 345 678";

fn lookup() -> ToolSpec {
    ToolSpec::local("lookup", "Look a customer up.", |q: Query| async move {
        Ok::<_, ToolError>(Found {
            tier: if q.id == "enum" {
                SECRET.into()
            } else {
                "gold".into()
            },
            party: if q.id == "enum" { 2 } else { 300 },
        })
    })
    .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_save_the_state_refuses_logs_the_field_and_kind_never_the_value() {
    for (id, field, kind, value) in [
        ("enum", "tier", "unknown variant", SECRET),
        ("u8", "party", "invalid value", "300"),
    ] {
        let assign = [
            Assign::new("tier", ["tier"]),
            Assign::new("party", ["party"]),
        ];
        let registry = ToolRegistry::builder(vec![lookup()])
            .state::<Shop>()
            .assign("lookup", assign)
            .build()
            .unwrap();
        let events = listen(&registry);
        let (live, _) = live(CallState::new(CallInfo::default(), "en-US", None));
        let arguments = json!({ "id": id }).to_string();
        let logs = logged(async {
            let done = registry
                .call_live("lookup", &arguments, &live, &live.generation())
                .await
                .unwrap();
            assert!(done.saved.is_empty());
        })
        .await;
        assert!(!logs.contains(value), "{value} is in the log: {logs}");
        assert!(logs.contains("tool.save_refused"), "{logs}");
        assert!(
            logs.contains(&format!("error=\"the State refused {field}\"")),
            "{logs}"
        );
        assert!(logs.contains(&format!("kind=\"{kind}\"")), "{logs}");
        let refused: Vec<Option<String>> = events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.stage == hark_tools::ToolStage::SaveRefused)
            .map(|e| e.error.clone())
            .collect();
        assert_eq!(refused, [Some(format!("the State refused {field}"))]);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_state_from_a_schema_refuses_a_save_without_logging_the_value() {
    let model = StateModel::from_schema(
        "ShopState",
        json!({"type": "object", "properties": {
            "tier": {"type": ["string", "null"], "enum": ["basic", "gold", null]}
        }}),
    )
    .unwrap();
    let registry = ToolRegistry::builder(vec![lookup()])
        .state_model(model.clone())
        .assign("lookup", [Assign::new("tier", ["tier"])])
        .build()
        .unwrap();
    let (live, _) = live(CallState::new(CallInfo::default(), "en-US", None));
    let logs = logged(async {
        registry
            .call_live("lookup", r#"{"id": "enum"}"#, &live, &live.generation())
            .await
            .unwrap();
    })
    .await;
    assert!(!logs.contains(SECRET), "{logs}");
    assert!(logs.contains("kind=\"enum\""), "{logs}");
    // The author's own check keeps the whole text.
    let refusal = model.refusal(&json!({ "tier": SECRET })).unwrap_err();
    assert_eq!(
        (refusal.field.as_str(), refusal.kind.as_str()),
        ("tier", "enum")
    );
    assert!(refusal.detail.contains(SECRET));
}

#[tokio::test(flavor = "current_thread")]
async fn a_map_key_below_a_state_field_is_not_named() {
    /// The call's State.
    #[derive(Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Book {
        /// Tiers by phone number.
        tiers: Option<std::collections::BTreeMap<String, Tier>>,
    }
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let refusal = state
        .save_all(
            vec![("tiers".into(), json!({"+34612345678": "platinum"}))],
            Some(&StateModel::of::<Book>()),
        )
        .unwrap_err();
    assert_eq!(refusal.field, "tiers");
    assert_eq!(refusal.event_text(), "the State refused tiers");
}

// ------------------------------------------------------------ 3. every sink stage in the log

#[tokio::test(flavor = "current_thread")]
async fn every_stage_a_sink_gets_goes_to_the_log_with_its_name() {
    let registry = ToolRegistry::builder(vec![lookup()])
        .replies([ToolReply::say(["Found you."]).tool("lookup")])
        .build()
        .unwrap();
    let events = listen(&registry);
    let (live, _) = live(CallState::new(CallInfo::default(), "en-US", None));
    let logs = logged(async {
        registry
            .call_live(
                "lookup",
                r#"{"id": "x-secret-id"}"#,
                &live,
                &live.generation(),
            )
            .await
            .unwrap();
        registry
            .call_live("lookup", r#"{"id": 7}"#, &live, &live.generation())
            .await
            .unwrap();
        registry
            .call_live("nope", r#"{}"#, &live, &live.generation())
            .await
            .unwrap();
    })
    .await;
    let seen: Vec<&str> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| e.stage.as_str())
        .collect();
    assert_eq!(
        seen,
        [
            "tool.started",
            "tool.succeeded",
            "tool.replied",
            "tool.refused",
            "tool.refused"
        ]
    );
    let lines: Vec<&str> = logs.lines().collect();
    for stage in seen {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(stage) && l.contains("tool=\"")),
            "{stage} is not in the log: {logs}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("DEBUG") && l.contains("tool.started")),
        "{logs}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" INFO") && l.contains("tool.replied")),
        "{logs}"
    );
    for value in ["x-secret-id", "Found you.", "gold", "300"] {
        assert!(!logs.contains(value), "{value} is in the log: {logs}");
    }
}

// ------------------------------------------------------ 2. format words for a refused value

#[allow(dead_code)] // decoded only to be refused
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Guest {
    #[schemars(schema_with = "hark_tools::schema::date")]
    born: Date,
}

#[allow(dead_code)] // decoded only to be refused
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Promise {
    /// The day the caller promises to pay.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    #[schemars(schema_with = "hark_tools::schema::optional_date")]
    #[serde(default)]
    later: Option<Date>,
    #[schemars(schema_with = "hark_tools::schema::time")]
    #[serde(default = "noon")]
    at: Time,
    #[schemars(schema_with = "hark_tools::schema::datetime")]
    #[serde(
        default = "noon_on_day",
        deserialize_with = "hark_tools::schema::deserialize_datetime"
    )]
    when: DateTime,
    #[serde(default)]
    guests: Vec<Guest>,
    #[schemars(with = "String")]
    #[serde(default)]
    count: u8,
}

fn noon() -> Time {
    Time::constant(12, 0, 0, 0)
}

fn noon_on_day() -> DateTime {
    "2026-10-16T12:00:00".parse().unwrap()
}

fn promise() -> ToolSpec {
    ToolSpec::local("promise", "Record a promise.", |_: Promise| async {
        Ok::<_, ToolError>(json!({"ok": true}))
    })
    .unwrap()
}

async fn refused(tool: ToolSpec, arguments: Value) -> (String, String) {
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let outcome = registry
        .call("promise", &arguments, &ToolContext::default())
        .await;
    let error = outcome.error.expect("refused");
    (
        error.model_text().to_string(),
        error.event_text().to_string(),
    )
}

#[tokio::test(flavor = "current_thread")]
async fn a_value_its_type_refuses_reads_the_words_of_its_format() {
    // The value is quoted and the words say what is wrong with it; the event names the field only.
    for (arguments, line, event) in [
        (
            json!({"day": "yesterday"}),
            "day: \"yesterday\" is not written year-month-day: give the day like 2026-10-16",
            "day (format)",
        ),
        (
            json!({"day": "2026-02-30"}),
            "day: \"2026-02-30\" is not a day on the calendar: February 2026 has days 01 to 28",
            "day (format)",
        ),
        (
            json!({"day": "2026-10-16", "later": "soon"}),
            "later: \"soon\" is not written year-month-day: give the day like 2026-10-16",
            "later (format)",
        ),
        (
            json!({"day": "2026-10-16", "at": "noonish"}),
            "at: \"noonish\" is not written hours:minutes:seconds: give it on a 24-hour clock, like 09:30:00",
            "at (format)",
        ),
        (
            json!({"day": "2026-10-16", "at": "24:30"}),
            "at: \"24:30\" is not a time of day: the hours are 00 to 23 and the minutes 00 to 59",
            "at (format)",
        ),
        (
            json!({"day": "2026-10-16", "when": "tomorrow at 9"}),
            "when: \"tomorrow at 9\" is not a date and time: give it like 2026-10-16T09:30:00",
            "when (format)",
        ),
        (
            json!({"day": "2026-10-16", "when": "2026-10-16T09:30:00-05:00"}),
            "when: \"2026-10-16T09:30:00-05:00\" has a UTC offset: give the local date and time without one, like 2026-10-16T09:30:00",
            "when (format)",
        ),
        (
            json!({"day": "2026-10-16", "guests": [{"born": "2001-02-29"}]}),
            "guests.0.born: \"2001-02-29\" is not a day on the calendar: February 2001 has days 01 to 28",
            "guests.0.born (format)",
        ),
    ] {
        let (text, event_text) = refused(promise(), arguments.clone()).await;
        assert_eq!(
            text,
            messages::invalid_arguments("promise", &[line.to_string()]),
            "{arguments}"
        );
        assert_eq!(event_text, event, "{arguments}");
    }
    assert_eq!(
        messages::not_a_date(),
        "is not a date: give it as year-month-day, like 2026-10-16"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_refused_phone_number_is_quoted_with_what_is_wrong() {
    #[allow(dead_code)] // decoded only to be refused
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Caller {
        phone: hark_tools::Phone,
    }
    let tool = ToolSpec::local("promise", "Record a promise.", |_: Caller| async {
        Ok::<_, ToolError>(json!({"ok": true}))
    })
    .unwrap();
    for (phone, line) in [
        (
            "call me maybe",
            "phone: \"call me maybe\" is not a phone number: it has letters. Give its digits in international format, like +14155550123",
        ),
        (
            "+1 12",
            "phone: \"+1 12\" is too short for a phone number: give all its digits in international format, like +14155550123",
        ),
    ] {
        let (text, event) = refused(tool.clone(), json!({ "phone": phone })).await;
        assert_eq!(
            text,
            messages::invalid_arguments("promise", &[line.to_string()])
        );
        // The event (what logs and sinks get) names the field, never the number.
        assert_eq!(event, "phone (format)");
    }
    // A runaway value is quoted as every refusal quotes one: 60 characters, then "…".
    let long = format!("+1 {}", "9".repeat(10_000));
    let (text, _) = refused(tool, json!({ "phone": long })).await;
    assert_eq!(
        text.lines().next().unwrap(),
        format!(
            "phone: \"+1 {}… is too long for a phone number: give only its digits in international format, like +14155550123",
            "9".repeat(56)
        )
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_refused_value_without_a_format_reads_field_and_expected() {
    let (text, event) = refused(promise(), json!({"day": "2026-10-16", "count": "many"})).await;
    assert!(text.starts_with("count: invalid type: string"), "{text}");
    assert!(text.contains("expected u8"), "{text}");
    assert_eq!(event, "count (type)");
}

#[tokio::test(flavor = "current_thread")]
async fn a_precheck_and_a_macro_tool_read_the_format_words_too() {
    #[allow(dead_code)] // decoded only to be refused
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Day {
        #[schemars(schema_with = "hark_tools::schema::date")]
        day: Date,
    }
    let checked = ToolSpec::local("promise", "Record a promise.", |_: Day| async {
        Ok::<_, ToolError>(Found {
            tier: "gold".into(),
            party: 2,
        })
    })
    .unwrap()
    // The precheck decodes the same field before the tool would.
    .precheck(|_: Day| -> Option<Found> { None })
    .unwrap();
    let (text, event) = refused(checked, json!({"day": "yesterday"})).await;
    assert_eq!(
        text,
        messages::invalid_arguments(
            "promise",
            &[
                "day: \"yesterday\" is not written year-month-day: give the day like 2026-10-16"
                    .to_string()
            ]
        )
    );
    assert_eq!(event, "day (format)");

    /// Book a table.
    ///
    /// # Arguments
    /// * `day` - The day.
    #[tool]
    async fn book(day: Date) -> Result<(), ToolError> {
        let _ = day;
        Ok(())
    }
    let registry = ToolRegistry::new(vec![book_tool().unwrap()]).unwrap();
    let outcome = registry
        .call("book", r#"{"day": "2026-02-30"}"#, &ToolContext::default())
        .await;
    assert_eq!(
        outcome.error.unwrap().model_text(),
        messages::invalid_arguments(
            "book",
            &[
                "day: \"2026-02-30\" is not a day on the calendar: February 2026 has days 01 to 28"
                    .to_string()
            ]
        )
    );
}

// ------------------------------------------------------------------------- 4. blank lines

#[test]
fn blank_goodbye_announce_and_reply_lines_are_refused_at_build() {
    for goodbye in ["", "   "] {
        assert_eq!(
            end_call_tool("Done.", goodbye).unwrap_err().problems,
            [
                "end_call: the goodbye is empty. Write what the caller hears before the call ends, like \"Goodbye!\"."
            ]
        );
    }
    for line in ["", "   "] {
        assert_eq!(
            lookup().announce([line]).unwrap_err().problems,
            [
                "lookup: an announce line is empty. Write the words the caller hears, or remove the line."
            ]
        );
    }
    let problems = ToolRegistry::builder(vec![lookup()])
        .replies([ToolReply::say([" "]).tool("lookup")])
        .build()
        .unwrap_err()
        .problems;
    assert_eq!(
        problems,
        ["lookup: a reply line is empty. Write the words the caller hears, or remove the line."]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_tool_that_ends_the_call_waits_for_its_announce_to_play_out() {
    let bye = lookup().announce(["Bye!"]).unwrap().ends_conversation();
    let registry = ToolRegistry::new(vec![bye]).unwrap();
    let (live, speech) = live(CallState::new(CallInfo::default(), "en-US", None));
    let done = registry
        .call_live("lookup", r#"{"id": "x"}"#, &live, &live.generation())
        .await
        .unwrap();
    assert!(done.ends_conversation);
    assert_eq!(
        speech.events(),
        [SpeechEvent::Said("Bye!".into()), SpeechEvent::PlayedOut]
    );
}

// ---------------------------------------------------------------- 5. nested path typos

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Parcel {
    size: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct FindOrder {
    order_id: String,
    status: String,
    eta: String,
    r#box: Parcel,
}

fn find_order() -> ToolSpec {
    ToolSpec::local("find_order", "Find an order.", |q: Query| async move {
        Ok::<_, ToolError>(FindOrder {
            order_id: q.id,
            status: "held".into(),
            eta: "soon".into(),
            r#box: Parcel { size: "S".into() },
        })
    })
    .unwrap()
}

#[test]
fn a_nested_typo_lists_the_fields_of_its_level() {
    const NESTED: &str = "find_order: the result field box.sise is not in FindOrder: box has no field sise. Use one of: size.";
    let reply = ToolRegistry::builder(vec![find_order()])
        .replies([ToolReply::say(["It is {{result.box.sise}}."]).tool("find_order")])
        .build()
        .unwrap_err()
        .problems;
    assert_eq!(reply, [NESTED]);
    let assign = ToolRegistry::builder(vec![find_order()])
        .state::<Shop>()
        .assign("find_order", [Assign::new("tier", ["box", "sise"])])
        .build()
        .unwrap_err()
        .problems;
    assert_eq!(assign, [NESTED]);
    let top = ToolRegistry::builder(vec![find_order()])
        .replies([ToolReply::say(["It is {{result.eto}}."]).tool("find_order")])
        .build()
        .unwrap_err()
        .problems;
    assert_eq!(
        top,
        [
            "find_order: the result field eto is not in FindOrder. Use one of: order_id, status, eta, box."
        ]
    );
    assert_eq!(
        find_order().hidden(["box.size"]).unwrap_err().problems,
        [
            "find_order: hidden names box.size, which FindOrder does not have. Use one of the output's fields: order_id, status, eta, box."
        ]
    );
}
