//! Every sentence of `messages.rs`, pinned word for word, and a check that no log line holds
//! the key.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_llm::messages;
use hark_llm::testing::{RecordingPause, ScriptedServer, Turn};
use hark_llm::{ChatRequest, Message, OpenAiCompatible, OpenCall, Provider, TimeoutPhase};

const P: &str = "openai-compatible at http://127.0.0.1:8080/v1";

#[test]
fn provider_errors() {
    assert_eq!(
        messages::provider_label("gemini", "https://x/v1beta"),
        "gemini at https://x/v1beta"
    );
    assert_eq!(messages::provider_label("stream", ""), "stream");
    assert_eq!(
        messages::http_error(&P, 429, "Rate limit reached"),
        format!("{P}: HTTP 429: Rate limit reached")
    );
    assert_eq!(messages::http_error(&P, 502, ""), format!("{P}: HTTP 502"));
    assert_eq!(
        messages::connect_error(&P, "connection refused"),
        format!(
            "{P}: could not connect (connection refused). Check the base URL and that the server is running."
        )
    );
    assert_eq!(
        messages::timeout(&P, &TimeoutPhase::FirstByte, Duration::from_secs(30)),
        format!(
            "{P}: no reply within 30000 ms. The provider may be overloaded; try again or raise the timeout."
        )
    );
    assert_eq!(
        messages::timeout(&P, &TimeoutPhase::NextChunk, Duration::from_millis(1500)),
        format!("{P}: the stream stalled: no data for 1500 ms.")
    );
    assert_eq!(
        messages::stream_cut(
            &P,
            Some(&OpenCall {
                index: 1,
                id: "call_2".into(),
                name: "availability".into()
            })
        ),
        format!(
            "{P}: the stream ended in the middle of tool call 1 (availability, id call_2). The call is incomplete: do not run it; ask the model again."
        )
    );
    assert_eq!(
        messages::stream_cut(
            &P,
            Some(&OpenCall {
                index: 0,
                id: String::new(),
                name: String::new()
            })
        ),
        format!(
            "{P}: the stream ended in the middle of tool call 0 (unnamed, id none). The call is incomplete: do not run it; ask the model again."
        )
    );
    assert_eq!(
        messages::stream_cut(&P, None),
        format!("{P}: the stream ended before the turn finished. Ask the model again.")
    );
    assert_eq!(
        messages::decode_error(&P, "x"),
        format!("{P}: unreadable reply: x")
    );
    assert_eq!(
        messages::invalid_request(&P, "y"),
        format!("{P}: cannot build the request: y")
    );
    assert_eq!(
        messages::stream_without_finish(),
        "the stream ended without a finish event"
    );
    assert_eq!(
        messages::event_too_large(8),
        "a stream event is larger than 8 bytes"
    );
    assert_eq!(
        messages::bad_chunk("a chunk", "eof"),
        "a chunk is not valid: eof"
    );
    assert_eq!(
        messages::delta_without_start(3),
        "arguments arrived for tool call 3 before its id and name"
    );
    assert_eq!(
        messages::script_exhausted(2),
        "scripted server: no turn left for request 2. Add a turn to the script."
    );
}

#[test]
fn texts_the_model_reads() {
    assert_eq!(
        messages::arguments_not_json("trailing characters at line 1 column 9"),
        "The arguments are not valid JSON (trailing characters at line 1 column 9). Call the tool again with its arguments as one JSON object."
    );
    assert_eq!(
        messages::arguments_not_object("an array"),
        "The arguments must be a JSON object, not an array. Call the tool again with its arguments as one JSON object."
    );
    assert_eq!(
        messages::tool_result_without_call("call_9"),
        "the tool result for call call_9 answers no tool call of an earlier assistant message. Keep each tool result after the assistant message that made the call."
    );
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn logs_never_hold_the_key_or_the_conversation() {
    const KEY: &str = "sk-live-very-secret-0042";
    const SAID: &str = "my card number is 4111";
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time() // a timestamp's digits could hold a value the test says is absent
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = ScriptedServer::start(vec![
        Turn::status(429, &format!("Rate limit for key {KEY}")),
        Turn::status(401, &format!("Incorrect API key provided: {KEY}")),
    ])
    .await
    .unwrap();
    let provider = OpenAiCompatible::new(server.base_url(), Some(KEY.into()))
        .with_pause(Arc::new(RecordingPause::new(0.0)));
    let err = provider
        .complete(&ChatRequest::new("m", vec![Message::User(SAID.into())]))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("llm request failed; retrying"),
        "logs were captured: {logs}"
    );
    assert!(
        logs.contains("429") && logs.contains(&server.base_url()),
        "{logs}"
    );
    assert!(!logs.contains(KEY), "{logs}");
    assert!(!logs.contains(SAID), "{logs}");
}
