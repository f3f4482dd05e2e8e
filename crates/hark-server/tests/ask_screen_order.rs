//! The voice model asks the screen three times in one turn (three `ask_screen` calls): the UI
//! worker's `respond` jobs run one at a time, first asked first run. Real
//! parts: the agent file as `hark serve --agent` reads it, a real server on loopback, a
//! WebSocket client, and the scripted LLM server as both the voice model and the worker's.

mod common;

use common::*;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::ServerConfig;
use serde_json::{Value, json};

const VOICE_PROMPT: &str = "You answer for the shop.";
const ASKED: [&str; 3] = [
    "what is in the cart?",
    "is gift wrap on?",
    "what is the total?",
];
const ROUNDS: usize = 3;

fn agent_file(base_url: &str) -> String {
    format!(
        "name = \"shop\"\nsystem_prompt = \"{VOICE_PROMPT}\"\n\n[llm]\n\
         provider = \"openai-compatible\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\n"
    )
}

/// One voice turn: three `ask_screen` calls, the worker's three answers, then the voice reply.
fn round() -> Vec<Turn> {
    let mut asks = Turn::stream();
    for (i, query) in (0u32..).zip(ASKED) {
        asks = asks
            .tool_call_start(i, &format!("c{i}"), "ask_screen")
            .tool_call_args(i, &json!({ "query": query }).to_string());
    }
    vec![
        asks.finish("tool_calls").done(),
        Turn::text_reply(&["One."]),
        Turn::text_reply(&["Two."]),
        Turn::text_reply(&["Three."]),
        Turn::text_reply(&["Done."]),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_ask_screen_calls_of_one_turn_reach_the_worker_in_the_order_asked() {
    let llm = ScriptedServer::start((0..ROUNDS).flat_map(|_| round()).collect())
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("hark-ask-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.toml");
    std::fs::write(&path, agent_file(&llm.base_url())).unwrap();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the agent file builds");
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "r1").await;
    wait_ready(&mut events).await;

    for n in 0..ROUNDS {
        let id = format!("t{n}");
        send_json(
            &mut ws,
            &envelope("send-text", &id, json!({"content": "tell me"})),
        )
        .await;
        loop {
            let m = recv_json(&mut ws).await;
            if m["type"] == "bot-tts-text" && m["data"]["text"] == "Done." {
                break;
            }
        }
    }

    // The worker's requests (not the voice model's), by their query.
    let worker_queries: Vec<String> = llm
        .bodies()
        .iter()
        .filter(|b| b["messages"][0]["content"] != VOICE_PROMPT)
        .map(|b: &Value| {
            let messages = b["messages"].as_array().unwrap();
            let user = messages.iter().find(|m| m["role"] == "user").unwrap();
            user["content"].as_str().unwrap().to_string()
        })
        .collect();
    let expected: Vec<String> = (0..ROUNDS)
        .flat_map(|_| ASKED.iter().map(|q| q.to_string()))
        .collect();
    assert_eq!(worker_queries, expected);
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
