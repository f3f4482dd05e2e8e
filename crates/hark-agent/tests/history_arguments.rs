//! A tool call whose arguments are empty or `null` goes back to the provider with
//! `"arguments": "{}"`: strict providers refuse `""` in the history.

mod common;

use common::*;
use hark_llm::testing::Turn;
use serde_json::json;

/// The model calls two tools, one with `""` and one with `null` arguments; the next request's
/// assistant message carries `"{}"` for both, and the tools still ran.
#[tokio::test]
async fn empty_and_null_arguments_are_sent_back_as_an_empty_object() {
    let ping = tool("ping", |_| async { Ok(json!({"ok": true})) });
    let pong = tool("pong", |_| async { Ok(json!({"ok": true})) });
    let rig = rig(
        vec![
            calls(None, &[("call_1", "ping", ""), ("call_2", "pong", "null")]),
            Turn::text_reply(&["Done."]),
        ],
        vec![ping, pong],
    )
    .await;
    rig.agent.user_turn("Ping please.").await;
    rig.agent.idle().await;

    let bodies = rig.server.bodies();
    assert_eq!(bodies.len(), 2);
    let second = wire_messages(&bodies[1]);
    let assistant = second
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("an assistant message in the second request");
    let sent: Vec<&str> = assistant["tool_calls"]
        .as_array()
        .expect("tool_calls")
        .iter()
        .map(|c| c["function"]["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["{}", "{}"], "{assistant}");
    assert_valid_histories(&rig.server);
}
