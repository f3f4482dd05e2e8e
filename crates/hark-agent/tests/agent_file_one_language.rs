//! One language per call: a line with per-language variants is said in the
//! call's language wherever lines are said — the read-back, a precheck's outcome, a reply, an
//! announce line and the goodbye — and `hark check` warns, on the line's key, of a line with no
//! variant for the file's language in a file whose other lines have one.

use std::sync::Arc;
use std::time::Duration;

use hark_agent::agent_file::{AgentFile, Host, Problem};
use hark_agent::{AgentEvent, AgentSettings, ChannelOutput, VoiceAgent};
use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_tools::{CallInfo, CallState, ToolError, ToolSpec};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    /// How many people come.
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

/// `book_table`: a precheck answers `too_many` above 10; its announce line has a Spanish variant
/// (the Rust way: `announce_in`).
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
    .unwrap()
    .announce(["One moment."])
    .unwrap()
    .announce_in("es", ["Un momento."])
    .unwrap();
    Host::new().with_local_tool(book)
}

const FILE: &str = r#"system_prompt = "Reservas del Bistro Hark."
language = "es-ES"

[state.party]
type = "integer"

[tools]
builtin = ["end_call"]
local = ["book_table"]
goodbye = "Goodbye!"
goodbye_in.es = "¡Adiós!"

[[reply]]
tool = "book_table"
when = { status = ["booked"] }
say = ["Booked: {{result.reference}}."]
say_in.es = ["Reservado: {{result.reference}}."]

[flow]
first = "booking"

[[flow.steps]]
name = "booking"
instructions = "Pregunta cuántas personas vienen."
tools = ["book_table"]
saves = ["party"]
next = "goodbye"
replies = [
  { tool = "book_table", when = { status = ["too_many"] }, say = ["That is too many."], say_in = { es = ["Son demasiadas personas."] } },
]

[flow.steps.closing]
tool = "book_table"
finish = { status = ["booked"] }
confirm = ["A table for {{party}}. Shall I book it?"]
confirm_in.es = ["Una mesa para {{party}}. ¿La reservo?"]

[[flow.steps]]
name = "goodbye"
instructions = "Despídete y llama a end_call."
tools = ["end_call"]
"#;

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

#[tokio::test]
async fn a_flow_in_es_es_says_every_line_in_spanish() {
    let llm = ScriptedServer::start(vec![
        Turn::stream()
            .tool_call_start(0, "c1", "book_table")
            .tool_call_args(0, r#"{"party": 12}"#)
            .finish("tool_calls")
            .done(),
        Turn::stream()
            .tool_call_start(0, "c2", "book_table")
            .tool_call_args(0, r#"{"party": 4}"#)
            .finish("tool_calls")
            .done(),
        Turn::stream()
            .tool_call_start(0, "c3", "end_call")
            .tool_call_args(0, "{}")
            .finish("tool_calls")
            .done(),
    ])
    .await
    .unwrap();
    let file: AgentFile = FILE.parse().unwrap();
    let setup = file
        .build(&host())
        .unwrap_or_else(|e| panic!("builds: {e}"));
    assert!(setup.warnings.is_empty(), "{:?}", setup.warnings);
    assert_eq!(setup.language, "es-ES");
    let provider = Arc::new(OpenAiCompatible::new(llm.base_url(), None));
    let settings = AgentSettings::new(
        provider,
        "m",
        setup.system_prompt.clone(),
        setup.registry.clone(),
    )
    .with_conductor(setup.conductor().unwrap());
    let (output, mut rx) = ChannelOutput::new();
    let state = CallState::new(CallInfo::default(), &setup.language, None);
    let agent = VoiceAgent::new(settings, state, Arc::new(output)).unwrap();

    // The precheck's outcome, in Spanish (no announce: the tool does not run).
    assert_eq!(
        say(&agent, &mut rx, "Somos doce.").await,
        ["Son demasiadas personas."]
    );
    // The read-back, in Spanish.
    assert_eq!(
        say(&agent, &mut rx, "Pues cuatro.").await,
        ["Una mesa para 4. ¿La reservo?"]
    );
    // The announce line and the reply, in Spanish.
    assert_eq!(
        say(&agent, &mut rx, "Sí.").await,
        ["Un momento.", "Reservado: B-4."]
    );
    // The goodbye, in Spanish.
    assert_eq!(say(&agent, &mut rx, "Gracias.").await, ["¡Adiós!"]);
}

#[test]
fn a_line_with_no_variant_for_the_files_language_is_a_warning_on_its_key() {
    let text = FILE
        .replace("say_in.es = [\"Reservado: {{result.reference}}.\"]\n", "")
        .replace("goodbye_in.es = \"¡Adiós!\"\n", "");
    let found: Vec<String> = text
        .parse::<AgentFile>()
        .unwrap()
        .check(&host())
        .iter()
        .map(Problem::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "line 10: warning: [tools] goodbye has no variant for es-ES, the file's language, \
             though other lines have one: a call in es-ES hears this line in its default words. \
             Add goodbye_in.es beside it.",
            "line 15: warning: [[reply]] say has no variant for es-ES, the file's language, \
             though other lines have one: a call in es-ES hears this line in its default words. \
             Add say_in.es beside it.",
        ]
    );
    // A file in another language, with variants for es only: its default lines are its own.
    let english = FILE
        .replace("language = \"es-ES\"", "language = \"en-US\"")
        .replace("say_in.es = [\"Reservado: {{result.reference}}.\"]\n", "");
    let found = english.parse::<AgentFile>().unwrap().check(&host());
    assert!(found.is_empty(), "{found:?}");
}

/// A local tool's own lines count too: in a file that speaks es-ES, a local tool whose replies
/// have no Spanish variant is a warning on its `[tools] local` entry.
#[test]
fn a_local_tool_whose_lines_have_no_variant_is_a_warning_on_its_entry() {
    let plain = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
        Ok::<_, ToolError>(Booked {
            status: Status::Booked,
            reference: format!("B-{}", b.party),
        })
    })
    .unwrap()
    .replies([hark_tools::ToolReply::say(["Booked."]).when("status", ["booked"])]);
    let text = "system_prompt = \"Hola.\"\nlanguage = \"es-ES\"\n\n[tools]\nbuiltin = [\"end_call\"]\n\
                local = [\"book_table\"]\ngoodbye = \"Bye!\"\ngoodbye_in.es = \"¡Adiós!\"\n";
    let found: Vec<String> = text
        .parse::<AgentFile>()
        .unwrap()
        .check(&Host::new().with_local_tool(plain.clone()))
        .iter()
        .map(Problem::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "line 6: warning: [tools] local book_table: its reply lines have no variant for es-ES, \
          the file's language, though other lines have one: a call in es-ES hears them in their \
          default words. Give them one in the program (ToolReply::say_in, ToolSpec::announce_in)."
        ]
    );
    let spanish = plain.replies([hark_tools::ToolReply::say(["Booked."])
        .say_in("es", ["Reservado."])
        .when("status", ["booked"])]);
    let found = text
        .parse::<AgentFile>()
        .unwrap()
        .check(&Host::new().with_local_tool(spanish));
    assert!(found.is_empty(), "{found:?}");
}
