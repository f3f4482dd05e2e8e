//! The roles an OpenAI-compatible server takes: the portable profile (the
//! default) sends one system message first and then user/assistant/tool turns, what every chat
//! template of vLLM, llama.cpp and Ollama takes; the OpenAI profile sends `developer` and
//! mid-history `system` messages as given.

use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{ChatRequest, Message, OpenAiCompatible, Provider, Roles, ToolCall, messages};
use serde_json::{Value, json};

/// A UI worker's history with a late tool result: instructions, the query, `<ui_state>`, a
/// tool round, a late note.
fn history() -> Vec<Message> {
    vec![
        Message::System("You are a guide.".into()),
        Message::Developer("Answer briefly.".into()),
        Message::User("Is gift wrap on?".into()),
        Message::Developer("<ui_state>\n- checkbox \"Gift wrap\" [checked]\n</ui_state>".into()),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall::new("call_1", "lookup", "{}")],
        },
        Message::Tool {
            tool_call_id: "call_1".into(),
            content: "{\"ok\":true}".into(),
        },
        Message::System("The booking B-7 finished.".into()),
    ]
}

async fn sent(provider: impl FnOnce(&ScriptedServer) -> OpenAiCompatible) -> Value {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Yes."])])
        .await
        .unwrap();
    let client = provider(&server);
    let done = client
        .complete(&ChatRequest::new("m", history()))
        .await
        .unwrap();
    assert_eq!(done.text, "Yes.");
    server.bodies()[0]["messages"].clone()
}

#[tokio::test]
async fn the_portable_profile_sends_one_system_message_first_and_context_as_user_text() {
    let messages = sent(|s| OpenAiCompatible::new(s.base_url(), None)).await;
    assert_eq!(
        messages,
        json!([
            {"role": "system", "content": "You are a guide.\n\nAnswer briefly."},
            {"role": "user", "content": "Is gift wrap on?\n\n[Context from the application, not said by the user]\n<ui_state>\n- checkbox \"Gift wrap\" [checked]\n</ui_state>"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "lookup", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "{\"ok\":true}"},
            {"role": "user", "content": "[Context from the application, not said by the user]\nThe booking B-7 finished."}
        ])
    );
    assert_eq!(
        messages::context_note("x"),
        "[Context from the application, not said by the user]\nx"
    );
    // Explicitly the same.
    let explicit =
        sent(|s| OpenAiCompatible::new(s.base_url(), None).with_roles(Roles::Portable)).await;
    assert_eq!(explicit, messages);
}

#[tokio::test]
async fn the_openai_profile_sends_developer_and_mid_history_system_messages() {
    let messages =
        sent(|s| OpenAiCompatible::new(s.base_url(), None).with_roles(Roles::OpenAi)).await;
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "developer",
            "user",
            "developer",
            "assistant",
            "tool",
            "system"
        ]
    );
    assert_eq!(messages[6]["content"], "The booking B-7 finished.");
    let as_system = sent(|s| {
        OpenAiCompatible::new(s.base_url(), None)
            .with_roles(Roles::OpenAi)
            .developer_as_system(true)
    })
    .await;
    assert_eq!(as_system[1]["role"], "system");
    assert_eq!(as_system[3]["role"], "system");
}

/// Anthropic and Gemini take system text only first too: a later one is user text marked as
/// context, not words the user seems to have said.
#[tokio::test]
async fn anthropic_and_gemini_mark_later_system_text_as_context() {
    let anthropic = hark_llm::Anthropic::with_base_url("http://127.0.0.1:9", "k");
    let body = anthropic
        .request_body(&ChatRequest::new("m", history()))
        .unwrap();
    assert_eq!(body["system"], "You are a guide.\n\nAnswer briefly.");
    assert_eq!(
        body["messages"][0]["content"][1]["text"],
        messages::context_note("<ui_state>\n- checkbox \"Gift wrap\" [checked]\n</ui_state>")
    );
    let gemini = hark_llm::Gemini::with_base_url("http://127.0.0.1:9", "k");
    let body = gemini
        .request_body(&ChatRequest::new("m", history()))
        .unwrap();
    let last = body["contents"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["parts"].as_array().unwrap().last().unwrap()["text"],
        messages::context_note("The booking B-7 finished.")
    );
}
