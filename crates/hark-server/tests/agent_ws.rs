//! `hark serve --agent FILE` over the wire: an agent file whose `[llm] base_url` points at
//! `hark_llm::testing::ScriptedServer` on loopback, built as the binary builds it
//! (`hark_server::serve::agent_sessions`), served, and talked to with an RTVI client.
//!
//! - A text turn streams `bot-llm-started`, `bot-llm-text`, `bot-output` + `bot-tts-text`,
//!   `bot-llm-stopped`; the model read the file's system prompt and its tools plus the session's
//!   `screen` and `ask_screen` tools.
//! - A tool call that ends the conversation says the goodbye, then the session closes with
//!   1000 "The call ended" (`CloseCause::CallEnded`), with nothing lost of what was queued.
//! - Without an LLM configured, the same file runs the offline screen mode.

mod common;

use common::*;
use futures::StreamExt;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::{CloseCause, ServerConfig, SessionEventKind};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

fn agent_file(base_url: &str) -> String {
    format!(
        r#"
name = "desk"
system_prompt = "You answer for the front desk."
language = "en-US"

[llm]
provider = "openai-compatible"
base_url = "{base_url}"
model = "desk-model"

[tools]
builtin = ["end_call"]
goodbye = "Thanks for calling. Goodbye!"
"#
    )
}

/// Every message until the first of type `until` (included).
async fn messages_until(ws: &mut Ws, until: &str) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let m = recv_json(ws).await;
        let done = m["type"] == until;
        all.push(m);
        if done {
            return all;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_file_runs_a_voice_agent_that_can_end_the_call() {
    let llm = ScriptedServer::start(vec![
        Turn::text_reply(&["Hello! ", "How can I help?"]),
        Turn::stream()
            .text("Glad I could help.")
            .tool_call_start(0, "call_1", "end_call")
            .tool_call_args(0, "{}")
            .finish("tool_calls")
            .done(),
    ])
    .await
    .unwrap();
    let dir = std::env::temp_dir().join(format!("hark-agent-ws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("desk.toml");
    std::fs::write(&path, agent_file(&llm.base_url())).unwrap();

    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the agent file builds");
    assert!(served.voice, "an LLM is configured");
    assert_eq!(served.agent, "desk");
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "r1").await;
    let id = wait_ready(&mut events).await;

    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "hi"})),
    )
    .await;
    let turn = messages_until(&mut ws, "bot-llm-stopped").await;
    let types: Vec<&str> = turn.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "bot-llm-started",
            "bot-llm-text",
            "bot-output",
            "bot-transcription",
            "bot-tts-text",
            "bot-llm-text",
            "bot-output",
            "bot-transcription",
            "bot-tts-text",
            "bot-llm-stopped"
        ]
    );
    assert_eq!(turn[2]["data"]["text"], "Hello!");
    assert_eq!(turn[2]["data"]["aggregated_by"], "sentence");
    assert_eq!(turn[2]["data"]["will_be_spoken"], true);
    assert_eq!(turn[3]["data"]["text"], "Hello!", "bot-transcription");
    assert_eq!(turn[7]["data"]["text"], "How can I help?");
    let asked = &llm.bodies()[0];
    assert_eq!(asked["model"], "desk-model");
    assert_eq!(
        asked["messages"][0],
        json!({"role": "system", "content": "You answer for the front desk."})
    );
    let tools: Vec<&str> = asked["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["end_call", "screen", "ask_screen"]);

    send_json(
        &mut ws,
        &envelope("send-text", "t2", json!({"content": "that's all, bye"})),
    )
    .await;
    let mut said = Vec::new();
    let close = loop {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("in time")
            .expect("open")
            .expect("ok");
        match msg {
            Message::Binary(bytes) => {
                let frame = hark_rtvi::frame::decode_frame(&bytes).unwrap();
                let m: Value = serde_json::from_str(frame.message_json().unwrap()).unwrap();
                if m["type"] == "bot-tts-text" {
                    said.push(m["data"]["text"].as_str().unwrap().to_string());
                }
            }
            Message::Close(frame) => break frame,
            _ => {}
        }
    };
    assert_eq!(said, ["Glad I could help.", "Thanks for calling. Goodbye!"]);
    let close = close.expect("a close frame");
    assert_eq!(
        (u16::from(close.code), close.reason.as_str()),
        (1000, "The call ended")
    );
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c) if e.session == id => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(cause, CloseCause::CallEnded);
    assert_eq!(llm.requests().len(), 2, "no model turn after the goodbye");
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn without_an_llm_the_agent_file_runs_the_offline_screen_mode() {
    let dir = std::env::temp_dir().join(format!("hark-agent-offline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plain.toml");
    std::fs::write(
        &path,
        "name = \"plain\"\nsystem_prompt = \"Help.\"\n[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"HARK_TEST_SURELY_UNSET_KEY\"\n",
    )
    .unwrap();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("builds, with a warning");
    assert!(!served.voice);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The demo shop's own agent file on a scripted provider: a local tool of the shop
/// (`add_to_cart`) runs through the turn loop, saves the cart into the call's State and its
/// reply row says the line, so no second model turn is asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shop_agent_adds_to_the_cart_with_its_reply_line() {
    let llm = ScriptedServer::start(vec![
        Turn::stream()
            .tool_call_start(0, "call_1", "add_to_cart")
            .tool_call_args(0, r#"{"product": "blue mug"}"#)
            .finish("tool_calls")
            .done(),
    ])
    .await
    .unwrap();
    let text = hark_server::demo::AGENT_FILE
        .replace("https://api.openai.com/v1", &llm.base_url())
        .replace("api_key_env = \"OPENAI_API_KEY\"\n", "");
    assert!(!text.contains("OPENAI_API_KEY"), "the key line is gone");
    let dir = std::env::temp_dir().join(format!("hark-agent-shop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.toml");
    std::fs::write(&path, text).unwrap();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the shop's agent file builds");
    assert!(served.voice);
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    let mut ws = connect(&server).await;
    handshake(&mut ws, "r1").await;
    send_json(
        &mut ws,
        &envelope(
            "send-text",
            "t1",
            json!({"content": "add the blue mug to my cart"}),
        ),
    )
    .await;
    let said = loop {
        let m = recv_json(&mut ws).await;
        if m["type"] == "bot-tts-text" {
            break m["data"]["text"].as_str().unwrap().to_string();
        }
    };
    assert_eq!(said, "Added 1 × Blue mug. You have 1 items, €22.00 in all.");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        llm.requests().len(),
        1,
        "the reply line saved the model turn"
    );
    let tools: Vec<String> = llm.bodies()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    for name in [
        "search_products",
        "add_to_cart",
        "place_order",
        "order_status",
        "screen",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name} in {tools:?}");
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
