//! Flows in agent files: `[flow]` is the flow's own `FlowSpec`, built with
//! the file's registry; the setup carries the built flow and its registry (with the hints that
//! name the confirming step), each call gets its own run of the flow, and every problem —
//! TOML shape or the flow's build-time checks — names its line and the fix.

use std::sync::Arc;
use std::time::Duration;

use hark_agent::agent_file::{AgentFile, Host, Problem};
use hark_agent::flow::AssignRow;
use hark_agent::{AgentEvent, AgentSettings, ChannelOutput, VoiceAgent};
use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_tools::{CallInfo, CallState, InMemorySpeech, LiveCall, ToolError, ToolSpec};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    /// How many people come.
    #[schemars(range(min = 1, max = 12))]
    party: u8,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Booked,
    TooMany,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booked {
    status: Status,
    reference: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Deposit {
    party: u8,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Paid {
    ok: bool,
}

/// `book_table` (a precheck refuses more than 10) and `pay_deposit` (its party is locked to
/// the State's).
fn host() -> Host {
    let book = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
        Ok::<_, ToolError>(Booked {
            status: Status::Booked,
            reference: format!("B-{}", b.party),
        })
    })
    .unwrap()
    .precheck(|b: Booking| {
        (b.party > 10).then_some(Booked {
            status: Status::TooMany,
            reference: String::new(),
        })
    })
    .unwrap();
    let deposit = ToolSpec::local("pay_deposit", "Take a deposit.", |d: Deposit| async move {
        Ok::<_, ToolError>(Paid { ok: d.party > 0 })
    })
    .unwrap()
    .locked([("party", "{{party}}")])
    .unwrap();
    Host::new().with_local_tools([book, deposit])
}

const FILE: &str = r#"system_prompt = "You take bookings for Chez Hark."

[state.party]
type = "integer"

[state.booking_ref]
type = "string"

[tools]
local = ["book_table", "pay_deposit"]

[flow]
first = "booking"

[[flow.steps]]
name = "booking"
instructions = "Ask how many people come, then call book_table."
tools = ["book_table"]
saves = ["party", "booking_ref"]
assign = [{ tool = "book_table", variable = "booking_ref", path = ["reference"] }]
next = "deposit"

[flow.steps.closing]
tool = "book_table"
finish = { status = ["booked"] }
confirm = ["A table for {{party}}. Shall I book it?"]

[[flow.steps]]
name = "deposit"
instructions = "Take the deposit."
tools = ["pay_deposit"]
"#;

fn parse(text: &str) -> AgentFile {
    text.parse().unwrap_or_else(|e| panic!("parses: {e}"))
}

fn problems(text: &str) -> Vec<String> {
    parse(text)
        .check(&host())
        .iter()
        .map(Problem::to_string)
        .collect()
}

#[tokio::test]
async fn a_flow_in_a_file_builds_and_its_registry_names_the_confirming_step() {
    let setup = parse(FILE).build(&host()).expect("the file builds");
    let flow = setup.flow.as_ref().expect("the setup carries the flow");
    assert_eq!(flow.step_names(), ["booking", "deposit"]);
    assert_eq!(flow.first_step(), "booking");
    assert!(
        Arc::ptr_eq(&setup.registry, &flow.registry()),
        "the agent's registry is the flow's"
    );
    assert!(setup.conductor().is_some());

    // The refusal hint reads the flow: party is confirmed with the caller in `booking`.
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let live = LiveCall::new(state, Arc::new(InMemorySpeech::new())).unwrap();
    let generation = live.generation();
    let refused = setup
        .registry
        .call_live("pay_deposit", "{}", &live, &generation)
        .await
        .expect("not discarded");
    assert_eq!(
        refused.outcome.model_result["refused"],
        "party not set yet. Run first: it confirms with the caller (booking), then call this \
         tool again."
    );

    // A plain file has no flow and no conductor.
    let plain = parse("system_prompt = \"Hi\"\n")
        .build(&Host::new())
        .unwrap();
    assert!(plain.flow.is_none() && plain.conductor().is_none());
}

/// What the client heard in a turn, once the turn is over.
async fn say(
    agent: &VoiceAgent,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    text: &str,
) -> Vec<String> {
    agent.user_turn(text).await;
    tokio::time::timeout(Duration::from_secs(20), agent.idle())
        .await
        .expect("the turn ends");
    let mut said = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let AgentEvent::Spoken { text, .. } = m {
            said.push(text);
        }
    }
    said
}

/// Each call runs the flow from its first step with its own progress: a read-back waiting in
/// one call does not make another call's "yes" a confirmation.
#[tokio::test]
async fn each_call_gets_its_own_run_of_the_flow() {
    let llm = ScriptedServer::start(vec![
        Turn::stream()
            .tool_call_start(0, "c1", "book_table")
            .tool_call_args(0, r#"{"party": 4}"#)
            .finish("tool_calls")
            .done(),
        Turn::text_reply(&["How many people are coming?"]),
    ])
    .await
    .unwrap();
    let setup = parse(FILE).build(&host()).unwrap();
    let provider = Arc::new(OpenAiCompatible::new(llm.base_url(), None));
    let agent = |setup: &hark_agent::agent_file::AgentSetup| {
        let settings = AgentSettings::new(
            provider.clone(),
            "m",
            setup.system_prompt.clone(),
            setup.registry.clone(),
        )
        .with_conductor(setup.conductor().unwrap());
        let (output, rx) = ChannelOutput::new();
        let state = CallState::new(CallInfo::default(), &setup.language, None);
        (
            VoiceAgent::new(settings, state, Arc::new(output)).unwrap(),
            rx,
        )
    };
    let (first, mut first_rx) = agent(&setup);
    let (second, mut second_rx) = agent(&setup);

    let said = say(&first, &mut first_rx, "A table for four.").await;
    assert_eq!(said, ["A table for 4. Shall I book it?"]);
    assert_eq!(
        llm.requests().len(),
        1,
        "a read-back turn costs one model request"
    );

    // The second call has no read-back waiting: its "yes" goes to the model.
    let said = say(&second, &mut second_rx, "Yes.").await;
    assert_eq!(said, ["How many people are coming?"]);
    assert_eq!(llm.requests().len(), 2);
    let system = &llm.bodies()[1]["messages"][0]["content"];
    assert_eq!(
        system,
        &json!(
            "You take bookings for Chez Hark.\n\nAsk how many people come, then call book_table."
        ),
        "the file's system prompt, then the step's instructions"
    );
    assert!(second.live().state.get("party").is_none());
}

#[test]
fn a_typo_in_the_flow_names_the_key_and_its_line() {
    let text = FILE.replace("instructions = \"Take", "instrucions = \"Take");
    let error = text.parse::<AgentFile>().unwrap_err();
    let shown = error.problems[0].to_string();
    assert!(
        shown.starts_with("line 30: error: unknown field `instrucions`"),
        "{shown}"
    );
}

#[test]
fn the_flows_checks_name_their_lines_and_fixes() {
    // Instructions belong in system_prompt.
    let text = FILE.replace(
        "first = \"booking\"",
        "first = \"booking\"\ninstructions = \"x\"",
    );
    assert_eq!(
        problems(&text),
        [
            "line 12: error: [flow] instructions: in an agent file the model reads system_prompt \
             in every step. Move this text into system_prompt, and write what each step is for \
             in its own instructions."
        ]
    );

    // Two steps of one name: the second one's line; the first one's next now names no step
    // (and the flow's checks also find one of the two unreached).
    let text = FILE.replace("name = \"deposit\"", "name = \"booking\"");
    let found = problems(&text);
    assert_eq!(
        found[1..],
        [
            "line 21: error: [flow] step booking: next names deposit, which is not a step. Use \
             one of: booking, booking.",
            "line 29: error: [flow] Two steps are named booking. Give one of them another name.",
        ],
        "{found:#?}"
    );

    // A closing tool missing from its step (on `closing`'s line), a finish rule on a field
    // the result lacks, and a step no path reaches (on its `name`'s line).
    let text = FILE
        .replace("tools = [\"book_table\"]", "tools = []")
        .replace(
            "finish = { status = [\"booked\"] }",
            "finish = { state = [\"booked\"] }",
        )
        .replace("next = \"deposit\"\n", "");
    assert_eq!(
        problems(&text),
        [
            "line 16: error: [flow] step booking: an assign row reads the result of book_table, \
             which is not in its tools. Add book_table to the step's tools.",
            "line 22: error: [flow] step booking: its closing tool book_table is not in its \
             tools. Add book_table to the step's tools.",
            "line 22: error: [flow] step booking: finish rule: book_table: the result field state \
             is not in Booked. Use one of: status, reference.",
            "line 28: error: [flow] step deposit: no path from booking reaches it. Name it in a \
             step's next, or remove it.",
        ]
    );
}

/// A `{{typo}}` in a confirm line is reported on the line that holds it, in `confirm` or in
/// `confirm_in.<language>` (a line of a list written over several lines included), not on the
/// `[flow.steps.closing]` header.
#[test]
fn a_typo_in_a_confirm_line_is_on_that_line() {
    let text = FILE
        .replace("{{party}}. Shall", "{{partty}}. Shall")
        .replace(
            "confirm = [",
            "confirm_in.es = [\"Una mesa para {{party}}.\"]\nconfirm_in.fr = [\n  \"Une table pour {{party}}.\",\n  \"Pour {{paty}} ?\",\n]\nconfirm = [",
        );
    // Lines: 23 [flow.steps.closing], 26 confirm_in.es, 27 confirm_in.fr = [, 29 "Pour {{paty}} ?",
    // 31 confirm.
    assert_eq!(text.lines().nth(22), Some("[flow.steps.closing]"));
    assert_eq!(text.lines().nth(28), Some("  \"Pour {{paty}} ?\","));
    assert!(
        text.lines()
            .nth(30)
            .unwrap()
            .starts_with("confirm = [\"A table for {{partty}}")
    );
    assert_eq!(
        problems(&text),
        [
            "line 29: error: [flow] step booking: the confirm line reads {{paty}}, which is \
             neither an argument of book_table nor a State value. Use one of: party, \
             booking_ref.",
            "line 31: error: [flow] step booking: the confirm line reads {{partty}}, which is \
             neither an argument of book_table nor a State value. Use one of: party, \
             booking_ref.",
        ]
    );
}

/// With `[ui] classifier = "llm"`, an answer the local judge is unsure of goes to the LLM
/// classifier (one request, no tools, a JSON schema): its "yes" runs the closing tool.
#[tokio::test]
async fn the_llm_classifier_judges_what_the_local_judge_is_unsure_of() {
    let llm = ScriptedServer::start(vec![
        Turn::stream()
            .tool_call_start(0, "c1", "book_table")
            .tool_call_args(0, r#"{"party": 4}"#)
            .finish("tool_calls")
            .done(),
        Turn::text_reply(&[
            r#"{"confirmation": {"choice": "yes", "probabilities": {"yes": 0.9, "no": 0.05, "other": 0.05}}}"#,
        ]),
        Turn::text_reply(&["Your table is booked."]),
    ])
    .await
    .unwrap();
    let text = format!(
        "{FILE}\n[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"m\"\n\n[ui]\nclassifier = \"llm\"\n",
        llm.base_url()
    );
    let setup = parse(&text).build(&host()).expect("the file builds");
    let choice = setup.llm.as_ref().expect("an LLM");
    let settings = AgentSettings::new(
        choice.provider.clone(),
        choice.model.clone(),
        setup.system_prompt.clone(),
        setup.registry.clone(),
    )
    .with_conductor(setup.conductor().unwrap());
    let (output, mut rx) = ChannelOutput::new();
    let state = CallState::new(CallInfo::default(), &setup.language, None);
    let agent = VoiceAgent::new(settings, state, Arc::new(output)).unwrap();

    let said = say(&agent, &mut rx, "A table for four.").await;
    assert_eq!(said, ["A table for 4. Shall I book it?"]);
    let said = say(
        &agent,
        &mut rx,
        "Hmm, my sister thinks that could work out.",
    )
    .await;
    assert_eq!(said, ["Your table is booked."]);

    let bodies = llm.bodies();
    assert_eq!(
        bodies.len(),
        3,
        "the call, the classifier, the model's words"
    );
    assert!(
        bodies[1].get("response_format").is_some() && bodies[1].get("tools").is_none(),
        "the second request is the classifier's: {:#}",
        bodies[1]
    );
    let state = &agent.live().state;
    assert_eq!(state.get("party"), Some(json!(4)));
    assert!(state.is_confirmed("party"));
    assert_eq!(state.get("booking_ref"), Some(json!("B-4")));
}

/// A step's assign row reads like a top-level `[[assign]]` row (`state`, dotted `from`) or like
/// the flow's own `FlowSpec` (`variable`, `path` list): both spellings give the same flow; mixing
/// the two keys of one field is refused on the row's line.
#[test]
fn a_steps_assign_row_takes_the_top_level_spelling_too() {
    let row = |value| serde_json::from_value::<AssignRow>(value).unwrap();
    let expected = AssignRow {
        tool: "book_table".into(),
        variable: "booking_ref".into(),
        path: vec!["reference".into(), "id".into()],
    };
    assert_eq!(
        row(json!({"tool": "book_table", "variable": "booking_ref", "path": ["reference", "id"]})),
        expected
    );
    assert_eq!(
        row(json!({"tool": "book_table", "state": "booking_ref", "from": "reference.id"})),
        expected
    );
    let whole = row(json!({"tool": "book_table", "state": "booking_ref", "from": ""}));
    assert!(whole.path.is_empty());

    // In a file, the top-level spelling checks as clean as the `FlowSpec` one.
    let top_level_spelling = FILE.replace(
        "assign = [{ tool = \"book_table\", variable = \"booking_ref\", path = [\"reference\"] }]",
        "assign = [{ tool = \"book_table\", state = \"booking_ref\", from = \"reference\" }]",
    );
    assert_ne!(top_level_spelling, FILE);
    assert_eq!(problems(&top_level_spelling), Vec::<String>::new());

    let both = FILE.replace(
        "path = [\"reference\"] }",
        "path = [\"reference\"], from = \"reference\" }",
    );
    let shown = both.parse::<AgentFile>().unwrap_err().problems[0].to_string();
    assert!(
        shown.starts_with(
            "line 20: error: an assign row names the result field once: `from = \"order.id\"` or \
             `path = [\"order\", \"id\"]`, not both"
        ),
        "{shown}"
    );
    let neither = FILE.replace("variable = \"booking_ref\", ", "");
    let shown = neither.parse::<AgentFile>().unwrap_err().problems[0].to_string();
    assert!(
        shown.starts_with("line 20: error: an assign row needs `state`, the State value it saves"),
        "{shown}"
    );
}
