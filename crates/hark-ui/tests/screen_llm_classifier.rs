//! The UI worker's `screen` job through the LLM classifier (hark-classify) and
//! `hark_llm::testing::ScriptedServer`: the worker hands the snapshot's tree, the LLM
//! classifier's prompt carries it as `<ui_state>` text.

use std::sync::Arc;

use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, Provider, RetryPolicy};
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::UiWorker;
use hark_ui::classifier::LlmClassifier;
use serde_json::json;

fn provider(server: &ScriptedServer) -> Arc<dyn Provider> {
    Arc::new(
        OpenAiCompatible::new(server.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    )
}

/// The worker's `screen` job through the LLM classifier and the scripted server.
#[tokio::test]
async fn the_screen_job_through_the_llm_classifier() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&[
            "```json\n{\"element\": {\"choice\": \"e3\", \"probabilities\": {\"e2\": 0.05, \"e3\": 0.93, \"e4\": 0.02}}}\n```",
        ]),
        Turn::text_reply(&["{\"e2\": {\"probability\": 0.9}, \"e3\": {\"probability\": 0.1}, \"e4\": {\"probability\": 0.7}}"]),
    ])
    .await
    .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    let worker = UiWorker::new("ui", Arc::new(tx))
        .with_classifier(Arc::new(LlmClassifier::new(provider(&server), "m")));
    worker.on_snapshot(
        A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"main","children":[
            {"ref":"e2","role":"checkbox","name":"Gift wrap"},
            {"ref":"e3","role":"button","name":"Pay now"},
            {"ref":"e4","role":"checkbox","name":"Insurance"},
            {"ref":"e5","role":"button"}]},"captured_at":1}"#,
        )
        .unwrap(),
    );
    let r = worker
        .screen(&json!({"action": "click", "target": "the pay button"}))
        .await;
    assert_eq!(r.status, JobStatus::Completed);
    assert_eq!(r.response, Some(json!({"done": true, "label": "Pay now"})));
    let Ok(ServerMessage::UiCommand(cmd)) = rx.try_recv() else {
        panic!("a command")
    };
    assert_eq!(cmd.payload, json!({"ref": "e3", "target_id": null}));
    let r = worker
        .screen(&json!({"action": "select", "target": "checkboxes"}))
        .await;
    assert_eq!(
        r.response,
        Some(json!({"matches": [
            {"label": "Gift wrap", "probability": 0.9},
            {"label": "Insurance", "probability": 0.7}
        ]}))
    );
    let bodies = server.bodies();
    let enum_ = &bodies[0]["response_format"]["json_schema"]["schema"]["properties"]["element"]["properties"]
        ["choice"]["enum"];
    assert_eq!(
        enum_,
        &json!(["e2", "e3", "e4"]),
        "unnamed e5 is not an option"
    );
    let user = bodies[1]["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("checkboxes: does checkbox \\\"Gift wrap\\\" match?"));
}
