//! The agent file's `[ui] system_prompt` and `[ui] keep_history` reach the UI worker of every
//! session: its `respond` jobs' LLM requests carry the file's
//! instructions first in the system message, and its history is cleared per job unless
//! `keep_history = true`. Real parts: the file as `hark serve` reads it, the session config
//! `hark serve` builds, the session's bus, and the scripted LLM server.

use hark_agent::agent_file::{AgentFile, Host};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::{SessionId, UiHandlerFactory};
use hark_ui::{JobReply, JobRequest, JobUpdates};
use serde_json::{Value, json};

const WORKER_PROMPT: &str = "Answer about the page in one short sentence.";

fn file(base_url: &str, ui: &str) -> AgentFile {
    format!(
        "system_prompt = \"You help shoppers.\"\n\n[llm]\nprovider = \"openai-compatible\"\n\
         model = \"m\"\nbase_url = \"{base_url}\"\n\n[ui]\n{ui}"
    )
    .parse()
    .expect("the file parses")
}

/// Asks the session's UI worker two `respond` jobs; the LLM's request bodies.
async fn two_jobs(ui: &str) -> Vec<Value> {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["Two mugs."]),
        Turn::text_reply(&["Yes."]),
    ])
    .await
    .unwrap();
    let setup = file(&server.base_url(), ui).build(&Host::new()).unwrap();
    let (config, voice) = hark_server::serve::session_config(&setup);
    assert!(voice);
    let factory = UiHandlerFactory::new(config).unwrap();
    let handler = factory.handler(SessionId(1));
    let session = handler.session();
    for (n, query) in ["what is in the cart?", "is gift wrap on?"]
        .iter()
        .enumerate()
    {
        let job = JobRequest::new(
            format!("j{n}"),
            "voice",
            session.worker().name(),
            "respond",
            json!({ "query": query }),
        );
        let updates = JobUpdates::discard(&job);
        let JobReply::Response(answer) = session.bus().request(job, updates).await else {
            panic!("a respond job answers")
        };
        assert_eq!(answer.status, hark_rtvi::JobStatus::Completed, "{answer:?}");
    }
    server.bodies()
}

fn contents(body: &Value, role: &str) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == role)
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn the_ui_system_prompt_leads_the_workers_respond_request() {
    let bodies = two_jobs(&format!("system_prompt = \"{WORKER_PROMPT}\"\n")).await;
    for body in &bodies {
        let system = contents(body, "system");
        assert_eq!(system.len(), 1);
        assert!(
            system[0].starts_with(&format!("{WORKER_PROMPT}\n\n")),
            "the file's prompt, then the prompt guide: {system:?}"
        );
        assert!(system[0].contains("<ui_state>"), "the prompt guide follows");
    }
}

#[tokio::test]
async fn without_keep_history_each_respond_job_starts_cleared() {
    let bodies = two_jobs("").await;
    assert_eq!(contents(&bodies[1], "user"), ["is gift wrap on?"]);
}

#[tokio::test]
async fn keep_history_carries_the_last_job_into_the_next() {
    let bodies = two_jobs("keep_history = true\n").await;
    assert_eq!(
        contents(&bodies[1], "user"),
        ["what is in the cart?", "is gift wrap on?"]
    );
    assert!(contents(&bodies[1], "assistant").contains(&"Two mugs.".to_string()));
}
