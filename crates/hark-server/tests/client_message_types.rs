//! Every client message type pipecat-ai 1.14.0 reads is either handled or
//! answered, never dropped unread. A valid `dtmf` reaches the handler (the agent) as the caller's
//! input, `DTMF: <keys>`; a malformed one gets an `error-response` naming the problem; the types
//! Hark does not act on (`llm-function-call-result`, `raw-audio`, `raw-audio-batch`) and the ones
//! pipecat 1.14 does not know (`append-to-context`) or Hark does not (`send-file`) get an
//! `error-response` starting `Unsupported type <t>`, as pipecat answers an unknown type.

mod common;

use std::sync::Arc;

use common::*;
use futures::future::BoxFuture;
use hark_server::{Outbox, ServerConfig, SessionHandler, SessionId, SessionInput};
use serde_json::json;

/// Passes each user turn to the test, then lets the built-in handler answer.
#[derive(Debug)]
struct Recorder(tokio::sync::mpsc::UnboundedSender<String>);

impl SessionHandler for Recorder {
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
        if let SessionInput::UserText { text } = &input {
            let _ = self.0.send(text.clone());
        }
        Box::pin(async move { hark_server::NoAgentHandler.handle(input, outbox).await })
    }
}

#[tokio::test]
async fn a_valid_dtmf_reaches_the_agent_as_the_callers_input() {
    let (turns_tx, mut turns) = tokio::sync::mpsc::unbounded_channel();
    let factory: Arc<dyn hark_server::HandlerFactory> = Arc::new(move |_: SessionId| {
        Box::new(Recorder(turns_tx.clone())) as Box<dyn SessionHandler>
    });
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(factory),
    );
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    send_json(
        &mut ws,
        &envelope("dtmf", "k1", json!({"buttons": ["1", "2", "#"]})),
    )
    .await;
    let turn = tokio::time::timeout(STEP, turns.recv())
        .await
        .expect("the handler gets the keys in time");
    assert_eq!(turn.as_deref(), Some("DTMF: 12#"));
    // The turn is answered like typed text (here by the built-in no-agent reply).
    assert_eq!(recv_json(&mut ws).await["type"], "bot-llm-started");
    server.stop().await;
}

#[tokio::test]
async fn a_malformed_dtmf_gets_an_error_response_naming_the_problem() {
    let server = TestServer::local();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let cases = [
        (
            json!({"button": "5"}),
            "Invalid message: data.buttons: missing field (protocol 2.1.0 replaced \"button\" with \"buttons\", a list: send {\"buttons\": [\"1\"]})",
        ),
        (
            json!({"buttons": []}),
            "Invalid message: data.buttons: no keys; send at least one keypad key (\"0\" to \"9\", \"*\" or \"#\")",
        ),
        (
            json!({"buttons": [5]}),
            "Invalid message: data.buttons[0]: a number is not a keypad key; send each key as its own string: \"0\" to \"9\", \"*\" or \"#\"",
        ),
    ];
    for (n, (data, want)) in cases.into_iter().enumerate() {
        let id = format!("k{n}");
        send_json(&mut ws, &envelope("dtmf", &id, data)).await;
        let answer = recv_json(&mut ws).await;
        assert_eq!(answer["type"], "error-response", "{answer}");
        assert_eq!(answer["id"], id.as_str());
        assert_eq!(answer["data"]["error"], want);
    }
    server.stop().await;
}

#[tokio::test]
async fn types_hark_does_not_act_on_are_answered_never_dropped() {
    let server = TestServer::local();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let cases = [
        (
            "llm-function-call-result",
            json!({"function_name": "f", "tool_call_id": "c1", "arguments": {}, "result": "ok"}),
            hark_server::messages::function_call_result_unsupported(),
        ),
        (
            "raw-audio",
            json!({"base64Audio": "AAA=", "sampleRate": 16000, "numChannels": 1}),
            hark_server::messages::audio_unsupported("raw-audio"),
        ),
        (
            "raw-audio-batch",
            json!({"base64AudioBatch": ["AAA="], "sampleRate": 16000, "numChannels": 1}),
            hark_server::messages::audio_unsupported("raw-audio-batch"),
        ),
        (
            "append-to-context",
            json!({"role": "user", "content": "x"}),
            "Unsupported type append-to-context".to_owned(),
        ),
        (
            "send-file",
            json!({"content": "see", "file": {"format": "image/png", "source": {"type": "url", "url": "https://x"}}}),
            "Unsupported type send-file".to_owned(),
        ),
    ];
    for (n, (type_, data, want)) in cases.into_iter().enumerate() {
        let id = format!("u{n}");
        send_json(&mut ws, &envelope(type_, &id, data)).await;
        let answer = recv_json(&mut ws).await;
        assert_eq!(answer["type"], "error-response", "{type_}: {answer}");
        assert_eq!(answer["id"], id.as_str(), "{type_}");
        assert_eq!(answer["data"]["error"], want.as_str(), "{type_}");
        assert!(
            want.starts_with(&format!("Unsupported type {type_}")),
            "{want}"
        );
    }
    assert_alive(&mut ws, "a1").await;
    server.stop().await;
}
