//! The demo's table booking flow (`examples/booking.toml`) through the real
//! server over WebSocket with an RTVI client, `hark_llm::testing::ScriptedServer` as the
//! provider (the file's `[llm] base_url` pointed at it):
//!
//! - a past day: `book_table`'s precheck refuses it; the caller hears the tool's reply and no
//!   read-back, and the turn costs one model request;
//! - a good day: the read-back reaches the client as bot output and the turn costs exactly one
//!   model request; nothing is booked yet;
//! - "yes": the tool runs once (one table in the book), the step's own reply is said, no model
//!   request is made, and the finish rule moves the flow to `wrap_up`, whose request offers
//!   only `end_call` and reads that step's instructions;
//! - every model request is counted: 3 for the whole call.
//!
//! The session's conductor is [`AgentSetup::conductor`] (one run of the flow per session),
//! given to the session's voice agent with `VoiceAgentConfig::conductor`.

mod common;

use std::sync::Arc;

use common::*;
use hark_agent::agent_file::{AgentFile, AgentSetup};
use hark_classify::LocalClassifier;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::demo::{self, TableBook};
use hark_server::{ServerConfig, UiHandlerFactory, UiSessionConfig, VoiceAgentConfig};
use jiff::civil::Date;
use serde_json::{Value, json};

/// `examples/booking.toml` with its LLM at `base_url` (no key: the scripted server needs none).
fn booking_file(base_url: &str) -> AgentFile {
    let text = demo::BOOKING_FILE
        .replace(
            "base_url = \"https://api.openai.com/v1\"",
            &format!("base_url = \"{base_url}\""),
        )
        .replace("api_key_env = \"OPENAI_API_KEY\"\n", "");
    assert!(text.contains(base_url) && !text.contains("OPENAI_API_KEY"));
    text.parse().expect("the booking file parses")
}

/// The voice agent of every session runs a fresh run of the file's flow.
fn factory(setup: &AgentSetup) -> Arc<UiHandlerFactory> {
    let flow = setup.clone();
    let agent = VoiceAgentConfig::from_setup(setup)
        .expect("an LLM is configured")
        .screen(setup.ui.worker)
        .conductor(Arc::new(move |_tools| {
            flow.conductor().expect("the file has a flow")
        }));
    let config = UiSessionConfig::new()
        .classifier(Arc::new(LocalClassifier::new()))
        .voice_agent(agent);
    Arc::new(UiHandlerFactory::new(config).expect("the session config is valid"))
}

/// Sends a user turn and reads every message until the bot output `last` (included): the
/// texts of `bot-output` in order.
async fn turn(ws: &mut Ws, id: &str, text: &str, last: &str) -> Vec<String> {
    send_json(ws, &envelope("send-text", id, json!({"content": text}))).await;
    let mut said = Vec::new();
    loop {
        let m = recv_json(ws).await;
        if m["type"] == "bot-output" {
            let line = m["data"]["text"].as_str().unwrap().to_string();
            let done = line == last;
            said.push(line);
            if done {
                return said;
            }
        }
    }
}

/// The tool names a request offered.
fn tools_of(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_booking_flow_reads_back_books_on_yes_and_counts_its_model_requests() {
    let tables = TableBook::new();
    let today = tables.today();
    // Two weeks ahead reads in full ("Friday, October 16, 2026"): no "tomorrow".
    let day: Date = today.checked_add(jiff::Span::new().days(14)).unwrap();
    let gone: Date = today.checked_sub(jiff::Span::new().days(3)).unwrap();
    let llm = ScriptedServer::start(vec![
        Turn::tool_call(
            "c1",
            "book_table",
            json!({"party": 4, "day": gone.to_string(), "seating": "inside"}),
        ),
        Turn::tool_call(
            "c2",
            "book_table",
            json!({"party": 4, "day": day.to_string(), "seating": "inside"}),
        ),
        Turn::tool_call("c3", "end_call", json!({})),
    ])
    .await
    .unwrap();

    let shop = demo::start_with(tables).await.unwrap();
    let setup = booking_file(&llm.base_url())
        .build(&shop.host)
        .expect("the booking file builds");
    assert!(setup.warnings.is_empty(), "{:?}", setup.warnings);
    let factory = factory(&setup);
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "r1").await;
    wait_ready(&mut events).await;

    // A past day: the precheck's outcome is said; nothing is read back or booked.
    let gone_line = "That day has already gone. Which other day would suit you?";
    let said = turn(
        &mut ws,
        "t1",
        "A table for four last Friday, inside.",
        gone_line,
    )
    .await;
    assert_eq!(said, [gone_line]);

    // A good day: the read-back, and nothing booked before the caller's yes.
    let spoken_day = day.strftime("%A, %B %-d, %Y").to_string();
    let read_back = format!("A table for 4 on {spoken_day}, inside. Shall I book it?");
    let said = turn(
        &mut ws,
        "t2",
        "Then in two weeks, four people, inside.",
        &read_back,
    )
    .await;
    assert_eq!(said, [read_back.as_str()]);
    assert!(shop.tables.is_empty(), "nothing runs before the yes");

    // Yes: the tool runs once; the step's own reply; the flow moves on.
    let booked = "Booked! Your reference is T-2001. Is there anything else?";
    let said = turn(&mut ws, "t3", "Yes, please.", booked).await;
    assert_eq!(said, [booked]);
    let tables = shop.tables.tables();
    assert_eq!(tables.len(), 1, "the tool ran once");
    assert_eq!((tables[0].party, tables[0].day), (4, day));
    assert_eq!(
        llm.requests().len(),
        2,
        "one request for the past day, one for the read-back, none for the yes"
    );

    // The next step: only its tools; end_call says the goodbye.
    let goodbye = "Thanks for calling Bistro Hark. See you soon!";
    let said = turn(&mut ws, "t4", "No, that's all. Thanks!", goodbye).await;
    assert_eq!(said, [goodbye]);

    let bodies = llm.bodies();
    assert_eq!(bodies.len(), 3, "three model requests in the whole call");
    assert_eq!(tools_of(&bodies[0]), ["current_datetime", "book_table"]);
    assert_eq!(tools_of(&bodies[1]), ["current_datetime", "book_table"]);
    assert_eq!(tools_of(&bodies[2]), ["end_call"]);
    let system = |body: &Value| body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(system(&bodies[0]).starts_with("You take table bookings by phone for Bistro Hark"));
    assert!(system(&bodies[0]).contains("Ask which day, how many people"));
    assert!(system(&bodies[2]).contains("The table is booked"));
    // The model read the past day's outcome, and the read-back held the call back.
    let result = |body: &Value, id: &str| -> Value {
        let m = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))
            .clone();
        serde_json::from_str(m["content"].as_str().unwrap()).unwrap()
    };
    assert_eq!(result(&bodies[1], "c1")["status"], "past_day");
    assert_eq!(result(&bodies[2], "c2")["status"], "confirming");
    server.stop().await;
}
