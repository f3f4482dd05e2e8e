//! `[llm] roles`: which chat roles an OpenAI-compatible server takes.
//! Default `portable`: one system message first, later system text as user text marked as
//! context; `openai`: mid-history system (and developer) messages as given.

use hark_agent::agent_file::{AgentFile, Host, Problem};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{ChatRequest, Message, messages};
use serde_json::Value;

const PROMPT: &str = "system_prompt = \"You help.\"\n";

fn history() -> Vec<Message> {
    vec![
        Message::System("You help.".into()),
        Message::User("Book Friday.".into()),
        Message::System("The booking B-7 finished.".into()),
    ]
}

async fn sent_with(roles_line: &str) -> Vec<Value> {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Done."])])
        .await
        .unwrap();
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nbase_url = \"${{LLM_URL}}\"\nmodel = \"small\"\n{roles_line}"
    );
    let host = Host::new().with_value("LLM_URL", server.base_url());
    let file: AgentFile = text.parse().unwrap();
    let agent = file.build(&host).unwrap();
    let llm = agent.llm.expect("no key needed for a local server");
    let done = llm
        .provider
        .complete(&ChatRequest::new(llm.model.clone(), history()))
        .await
        .unwrap();
    assert_eq!(done.text, "Done.");
    server.bodies()[0]["messages"].as_array().cloned().unwrap()
}

fn roles(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn without_roles_the_server_gets_one_system_message_first() {
    for line in ["", "roles = \"portable\"\n"] {
        let messages = sent_with(line).await;
        assert_eq!(roles(&messages), ["system", "user"], "{line}");
        assert_eq!(
            messages[1]["content"],
            format!(
                "Book Friday.\n\n{}",
                messages::context_note("The booking B-7 finished.")
            )
        );
    }
}

#[tokio::test]
async fn roles_openai_sends_system_messages_in_place() {
    let messages = sent_with("roles = \"openai\"\n").await;
    assert_eq!(roles(&messages), ["system", "user", "system"]);
    assert_eq!(messages[2]["content"], "The booking B-7 finished.");
}

#[test]
fn roles_with_another_provider_is_an_error_on_its_line() {
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key_env = \"HARK_TEST_ROLES_KEY\"\nroles = \"openai\"\n"
    );
    let file: AgentFile = text.parse().unwrap();
    let problems: Vec<String> = file
        .check(&Host::new())
        .iter()
        .map(Problem::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "line 6: error: [llm] roles is for provider openai-compatible only; provider anthropic \
             always takes its system text first and later notes as marked user text. Remove roles."
        ]
    );
}
