//! A table booking by flow, end to end through the turn loop with the scripted provider:
//! missing party refused before any read-back; a precheck that refuses a past day without
//! reading it back; the read-back in English and Spanish; "yes" runs the tool
//! once; "no, make it five" reads back again; the finish rule moves to the next step (and a
//! result that does not match keeps it open); the step's own replies and assign rows; hints
//! that name the confirming and saving steps; the model requests counted (a read-back turn
//! costs exactly one model request).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hark_agent::flow::{Flow, FlowConductor, FlowSpec};
use hark_agent::{AgentEvent, AgentSettings, ChannelOutput, OutputSpeech, VoiceAgent};
use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_tools::{
    Assign, CallInfo, CallState, FixedClock, LiveCall, ToolContext, ToolError, ToolRegistry,
    ToolReply, ToolSpec,
};
use jiff::civil::Date;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

// ---------------------------------------------------------------------------------- fixtures

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
enum Status {
    Booked,
    PastDay,
    Full,
}

/// The call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
struct State {
    /// The day of the booking.
    #[schemars(schema_with = "hark_tools::schema::optional_date")]
    day: Option<Date>,
    /// How many people come.
    party: Option<u8>,
    /// Inside or on the terrace.
    seating: Option<Seating>,
    /// The booking's reference.
    booking_ref: Option<String>,
    /// The caller's name.
    name: Option<String>,
    /// Whether the terrace is open.
    terrace_open: Option<bool>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    /// The day the caller wants.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    /// How many people come, the caller included.
    #[schemars(range(min = 1, max = 12))]
    party: u8,
    /// Inside or on the terrace.
    seating: Seating,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booked {
    status: Status,
    reference: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DayOnly {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// The caller's name.
    name: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Noted {
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArguments {}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Terrace {
    open: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Deposit {
    party: u8,
    name: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Paid {
    ok: bool,
}

/// "Today" for the precheck and the speaker: 2026-10-15.
const TODAY: &str = "2026-10-15";

fn registry(runs: Arc<AtomicUsize>, prechecks: Arc<AtomicUsize>) -> ToolRegistry {
    let book = ToolSpec::local("book_table", "Book a table.", move |b: Booking| {
        let runs = runs.clone();
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let status = if b.party > 10 {
                Status::Full
            } else {
                Status::Booked
            };
            let _ = (b.day, b.seating);
            Ok::<_, ToolError>(Booked {
                status,
                reference: format!("B-{}", b.party),
            })
        }
    })
    .unwrap()
    .precheck(move |d: DayOnly| {
        prechecks.fetch_add(1, Ordering::SeqCst);
        (d.day < TODAY.parse::<Date>().unwrap()).then_some(Booked {
            status: Status::PastDay,
            reference: String::new(),
        })
    })
    .unwrap()
    .replies([
        ToolReply::say(["That day has already gone. Which other day would suit you?"])
            .when("status", ["past_day"]),
        ToolReply::say(["No table is free for that many. Shall I try fewer people?"])
            .when("status", ["full"]),
        ToolReply::say(["Your table is booked."]).when("status", ["booked"]),
    ]);
    let take_name = ToolSpec::local(
        "take_name",
        "Note the caller's name.",
        |n: Name| async move { Ok::<_, ToolError>(Noted { name: n.name }) },
    )
    .unwrap();
    let deposit = ToolSpec::local("pay_deposit", "Take a deposit.", |d: Deposit| async move {
        Ok::<_, ToolError>(Paid {
            ok: d.party > 0 && !d.name.is_empty(),
        })
    })
    .unwrap()
    .locked([("party", "{{party}}"), ("name", "{{name}}")])
    .unwrap();
    let terrace = ToolSpec::local(
        "check_terrace",
        "Is the terrace open?",
        |_: NoArguments| async move { Ok::<_, ToolError>(Terrace { open: true }) },
    )
    .unwrap();
    ToolRegistry::builder(vec![book, take_name, deposit, terrace])
        .state::<State>()
        .assign("check_terrace", [Assign::new("terrace_open", ["open"])])
        .build()
        .unwrap()
}

const FLOW: &str = r#"
first = "booking"
instructions = "You take table bookings for Chez Hark."

[[steps]]
name = "booking"
instructions = "Ask for the day, how many people and inside or terrace, then call book_table."
tools = ["book_table", "check_terrace"]
saves = ["day", "party", "seating", "booking_ref"]
assign = [{ tool = "book_table", variable = "booking_ref", path = ["reference"] }]
replies = [{ tool = "book_table", when = { status = ["booked"] }, say = ["Booked! Your reference is {{result.reference}}."] }]
next = "details"

[steps.closing]
tool = "book_table"
finish = { status = ["booked"] }
confirm = ["A table for {{party}} on {{day}}, {{seating}}. Shall I book it?"]
confirm_in.es = ["Una mesa para {{party}} el {{day}}. ¿La reservo?"]

[[steps]]
name = "details"
instructions = "Ask for the caller's name and note it."
tools = ["take_name", "pay_deposit"]
saves = ["name"]
closing = { tool = "take_name" }
"#;

fn flow(runs: Arc<AtomicUsize>, prechecks: Arc<AtomicUsize>) -> Arc<Flow> {
    let spec: FlowSpec = toml::from_str(FLOW).expect("the flow's TOML reads");
    Arc::new(Flow::build(&spec, &registry(runs, prechecks)).expect("the flow builds"))
}

struct Rig {
    server: ScriptedServer,
    agent: VoiceAgent,
    conductor: Arc<FlowConductor>,
    rx: UnboundedReceiver<AgentEvent>,
    runs: Arc<AtomicUsize>,
    prechecks: Arc<AtomicUsize>,
}

async fn rig(turns: Vec<Turn>, language: &str) -> Rig {
    let runs = Arc::new(AtomicUsize::new(0));
    let prechecks = Arc::new(AtomicUsize::new(0));
    let flow = flow(runs.clone(), prechecks.clone());
    let server = ScriptedServer::start(turns).await.expect("scripted server");
    let provider = Arc::new(OpenAiCompatible::new(
        server.base_url(),
        Some("sk-test".into()),
    ));
    let conductor = Arc::new(flow.conductor());
    let settings = AgentSettings::new(provider, "test-model", "unused", flow.registry())
        .with_conductor(conductor.clone());
    let (output, rx) = ChannelOutput::new();
    let speech = Arc::new(OutputSpeech::new(Arc::new(output)));
    // Without a timezone a date reads in full ("Friday, October 16, 2026").
    let state = CallState::new(CallInfo::default(), language, None);
    let clock = Arc::new(FixedClock(format!("{TODAY}T12:00:00Z").parse().unwrap()));
    let live = LiveCall::with_clock(state, speech.clone(), clock).expect("live call");
    let agent = VoiceAgent::with_live(settings, live, speech);
    Rig {
        server,
        agent,
        conductor,
        rx,
        runs,
        prechecks,
    }
}

fn booking(party: u8, day: &str) -> Value {
    json!({"day": day, "party": party, "seating": "inside"})
}

impl Rig {
    async fn say(&mut self, text: &str) -> Vec<String> {
        self.agent.user_turn(text).await;
        tokio::time::timeout(Duration::from_secs(20), self.agent.idle())
            .await
            .expect("the turn ends");
        let mut said = Vec::new();
        while let Ok(m) = self.rx.try_recv() {
            if let AgentEvent::Spoken { text, .. } = m {
                said.push(text);
            }
        }
        said
    }

    fn requests(&self) -> usize {
        self.server.requests().len()
    }

    /// The `content` of the tool result answering `id` in the last request.
    fn result_in_last_request(&self, id: &str) -> Value {
        let bodies = self.server.bodies();
        let last = bodies.last().expect("a request");
        let message = last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no result for {id} in {last:#}"));
        serde_json::from_str(message["content"].as_str().unwrap()).unwrap()
    }

    fn ran(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

const READ_BACK_4: &str = "A table for 4 on Friday, October 16, 2026, inside. Shall I book it?";

// ------------------------------------------------------------------------------------- tests

#[tokio::test]
async fn a_missing_party_is_refused_before_any_read_back() {
    let mut rig = rig(
        vec![
            Turn::tool_call(
                "c1",
                "book_table",
                json!({"day": "2026-10-16", "seating": "inside"}),
            ),
            Turn::text_reply(&["How many people are coming?"]),
        ],
        "en-US",
    )
    .await;
    let said = rig.say("A table on Friday, inside.").await;
    assert_eq!(
        said,
        ["How many people are coming?"],
        "nothing is read back"
    );
    assert_eq!(rig.ran(), 0);
    assert!(!rig.conductor.is_confirming());
    assert_eq!(
        rig.result_in_last_request("c1"),
        json!({
            "refused": "party is missing. Ask the caller for it, then call book_table again.",
            "missing": ["party"]
        })
    );
    assert_eq!(rig.requests(), 2, "the call, then the model's question");
}

#[tokio::test]
async fn a_precheck_refuses_a_past_day_without_reading_it_back() {
    let mut rig = rig(
        vec![Turn::tool_call(
            "c1",
            "book_table",
            booking(4, "2026-10-01"),
        )],
        "en-US",
    )
    .await;
    let said = rig.say("A table for four on October first, inside.").await;
    assert_eq!(
        said,
        ["That day has already gone. Which other day would suit you?"],
        "the outcome's reply, and no read-back of the wrong day"
    );
    assert_eq!(rig.ran(), 0, "the tool does not run");
    assert_eq!(
        rig.requests(),
        1,
        "the turn costs one model request: the call"
    );
    assert!(!rig.conductor.is_confirming());
    assert_eq!(
        rig.conductor.step_name(),
        "booking",
        "an outcome never ends the step"
    );
    assert_eq!(rig.agent.live().state.get("day"), None);
}

#[tokio::test]
async fn yes_runs_the_tool_once_and_the_finish_rule_moves_to_the_next_step() {
    let mut rig = rig(
        vec![
            Turn::tool_call("c1", "book_table", booking(4, "2026-10-16")),
            Turn::tool_call("c2", "take_name", json!({"name": "Ana"})),
            Turn::text_reply(&["Thank you, Ana."]),
        ],
        "en-US",
    )
    .await;
    let said = rig.say("A table for four on Friday, inside.").await;
    assert_eq!(said, [READ_BACK_4]);
    assert_eq!(
        rig.requests(),
        1,
        "a read-back turn costs exactly one model request"
    );
    assert_eq!(rig.ran(), 0, "nothing runs before the caller's yes");
    assert!(rig.conductor.is_confirming());
    assert_eq!(
        rig.agent.live().state.get("party"),
        None,
        "nothing is saved before the yes"
    );

    let said = rig.say("Yes please.").await;
    assert_eq!(rig.ran(), 1, "the tool runs once");
    assert_eq!(
        rig.prechecks.load(Ordering::SeqCst),
        2,
        "and again on the yes"
    );
    assert_eq!(
        said,
        ["Booked! Your reference is B-4."],
        "the step's own reply is tried before the tool's own"
    );
    assert_eq!(rig.requests(), 1, "the reply line saved the model request");
    assert_eq!(
        rig.conductor.step_name(),
        "details",
        "the finish rule moved the flow on"
    );

    let state = &rig.agent.live().state;
    assert_eq!(state.get("party"), Some(json!(4)));
    assert_eq!(state.get("day"), Some(json!("2026-10-16")));
    assert!(
        state.is_confirmed("party") && state.is_confirmed("day") && state.is_confirmed("seating")
    );
    assert_eq!(
        state.get("booking_ref"),
        Some(json!("B-4")),
        "the step's assign row saved when the step ended"
    );
    assert!(
        !state.is_confirmed("booking_ref"),
        "a save never confirms a value"
    );

    let said = rig.say("My name is Ana.").await;
    assert_eq!(said, ["Thank you, Ana."]);
    let bodies = rig.server.bodies();
    let offered: Vec<&str> = bodies[1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        ["take_name", "pay_deposit"],
        "the next step's tools"
    );
    let system = bodies[1]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You take table bookings for Chez Hark.\n\nAsk for the caller's name")
    );
    assert!(rig.conductor.is_finished(), "the last step ended");
    assert_eq!(rig.agent.live().state.get("name"), Some(json!("Ana")));
    assert!(
        !rig.agent.live().state.is_confirmed("name"),
        "no read-back, no confirmation"
    );
    assert_eq!(rig.requests(), 3);
}

#[tokio::test]
async fn no_make_it_five_gives_the_model_the_turn_and_reads_back_again() {
    let mut rig = rig(
        vec![
            Turn::tool_call("c1", "book_table", booking(4, "2026-10-16")),
            Turn::tool_call("c2", "book_table", booking(5, "2026-10-16")),
        ],
        "en-US",
    )
    .await;
    assert_eq!(
        rig.say("A table for four on Friday, inside.").await,
        [READ_BACK_4]
    );
    let said = rig.say("No, make it five.").await;
    assert_eq!(
        said,
        ["A table for 5 on Friday, October 16, 2026, inside. Shall I book it?"]
    );
    assert_eq!(rig.ran(), 0, "nothing ran on the no");
    assert_eq!(rig.requests(), 2, "one model request per read-back turn");
    let bodies = rig.server.bodies();
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["content"], "No, make it five.");
    let held = rig.result_in_last_request("c1");
    assert_eq!(
        held["status"], "confirming",
        "the model read that nothing ran yet"
    );

    let said = rig.say("Yes.").await;
    assert_eq!(said, ["Booked! Your reference is B-5."]);
    assert_eq!(rig.ran(), 1);
    assert_eq!(rig.agent.live().state.get("party"), Some(json!(5)));
}

#[tokio::test]
async fn the_read_back_is_said_in_spanish() {
    let mut rig = rig(
        vec![Turn::tool_call(
            "c1",
            "book_table",
            booking(4, "2026-10-16"),
        )],
        "es",
    )
    .await;
    let said = rig.say("Una mesa para cuatro el viernes.").await;
    assert_eq!(
        said,
        ["Una mesa para 4 el viernes, 16 de octubre de 2026. ¿La reservo?"]
    );
    let said = rig.say("Sí, perfecto.").await;
    assert_eq!(rig.ran(), 1, "a Spanish yes runs the tool");
    assert_eq!(said, ["Booked! Your reference is B-4."]);
}

#[tokio::test]
async fn a_result_that_does_not_match_the_finish_rule_keeps_the_step_open() {
    let mut rig = rig(
        vec![Turn::tool_call(
            "c1",
            "book_table",
            booking(11, "2026-10-16"),
        )],
        "en-US",
    )
    .await;
    rig.say("A table for eleven on Friday, inside.").await;
    let said = rig.say("Yes.").await;
    assert_eq!(rig.ran(), 1);
    assert_eq!(
        said,
        ["No table is free for that many. Shall I try fewer people?"]
    );
    assert_eq!(rig.conductor.step_name(), "booking");
    assert_eq!(
        rig.agent.live().state.get("booking_ref"),
        None,
        "the step did not end"
    );
}

#[tokio::test]
async fn something_else_gives_the_model_the_turn_and_drops_the_read_back() {
    let mut rig = rig(
        vec![
            Turn::tool_call("c1", "book_table", booking(4, "2026-10-16")),
            Turn::text_reply(&["Yes, the terrace is heated."]),
        ],
        "en-US",
    )
    .await;
    rig.say("A table for four on Friday, inside.").await;
    let said = rig.say("Is the terrace heated?").await;
    assert_eq!(said, ["Yes, the terrace is heated."]);
    assert_eq!(rig.ran(), 0);
    assert!(!rig.conductor.is_confirming());
    // A later "yes" is the model's to act on: nothing runs by itself.
    assert_eq!(rig.requests(), 2);
}

#[tokio::test]
async fn hints_name_the_confirming_and_the_saving_step() {
    let flow = flow(Arc::default(), Arc::default());
    let registry = flow.registry();
    let context = ToolContext::default();
    let refused = registry.call("pay_deposit", "{}", &context).await;
    assert_eq!(
        refused.model_result["refused"],
        "party not set yet. Run first: it confirms with the caller (booking), then call this tool again."
    );
    let state = CallState::new(CallInfo::default(), "en-US", None);
    state.set("party", json!(4));
    let context = state.context(&hark_tools::CallHooks::new());
    let refused = registry.call("pay_deposit", "{}", &context).await;
    assert_eq!(
        refused.model_result["refused"],
        "name not set yet. Run first: it saves name (details), then call this tool again."
    );
}

#[tokio::test]
async fn a_tool_that_does_not_end_the_step_saves_its_registry_rows_at_once() {
    let mut rig = rig(
        vec![
            Turn::tool_call("c1", "check_terrace", json!({})),
            Turn::text_reply(&["The terrace is open."]),
        ],
        "en-US",
    )
    .await;
    let said = rig.say("Is the terrace open?").await;
    assert_eq!(said, ["The terrace is open."]);
    assert_eq!(rig.conductor.step_name(), "booking", "the step goes on");
    assert_eq!(
        rig.agent.live().state.get("terrace_open"),
        Some(json!(true)),
        "saved at once, before the step ends"
    );
}
