//! Anthropic and Gemini clients against recorded wire examples (written from the providers'
//! documented stream examples, `tests/fixtures/`), served by the scripted server on loopback.

use std::sync::Arc;

use futures::StreamExt;
use hark_llm::testing::{RecordingPause, ScriptedServer, Turn};
use hark_llm::{
    Anthropic, ChatRequest, Completion, FinishReason, Gemini, LlmError, Message, OpenCall,
    Provider, StreamEvent, ToolCall, Usage,
};

fn request(model: &str) -> ChatRequest {
    ChatRequest::new(
        model,
        vec![Message::User("What's the weather in San Francisco?".into())],
    )
}

fn anthropic(server: &ScriptedServer) -> Anthropic {
    Anthropic::with_base_url(server.base_url(), "sk-ant-secret-42")
        .with_pause(Arc::new(RecordingPause::new(0.0)))
}

fn gemini(server: &ScriptedServer) -> Gemini {
    Gemini::with_base_url(server.base_url(), "AIza-secret-42")
        .with_pause(Arc::new(RecordingPause::new(0.0)))
}

const ANTHROPIC_FIXTURE: &[u8] = include_bytes!("fixtures/anthropic_tool_use.sse");
const GEMINI_FIXTURE: &[u8] = include_bytes!("fixtures/gemini_function_calls.sse");

#[tokio::test]
async fn anthropic_recorded_tool_use_stream_assembles_text_calls_and_usage() {
    for size in [1, 13, ANTHROPIC_FIXTURE.len()] {
        let server =
            ScriptedServer::start(vec![Turn::stream().raw_in_pieces(ANTHROPIC_FIXTURE, size)])
                .await
                .unwrap();
        let c = anthropic(&server)
            .complete(&request("claude-sonnet-4-5"))
            .await
            .unwrap();
        assert_eq!(
            c,
            Completion {
                text: "Okay, let's check the weather for San Francisco, CA:".into(),
                tool_calls: vec![
                    ToolCall::new(
                        "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                        "get_weather",
                        "{\"location\": \"San Francisco, CA\", \"unit\": \"fahrenheit\"}"
                    ),
                    ToolCall::new(
                        "toolu_02Bx7uXGZ7ZNg2ZKDVZt1jBV",
                        "get_time",
                        "{\"timezone\": \"America/Los_Angeles\"}"
                    ),
                ],
                usage: Some(Usage {
                    input_tokens: 472,
                    output_tokens: 89,
                    cached_input_tokens: 0
                }),
                finish_reason: FinishReason::ToolCalls,
                logprobs: vec![],
            },
            "chunk size {size}"
        );
        let r = &server.requests()[0];
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some("sk-ant-secret-42"));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(r.body["stream"], serde_json::json!(true));
    }
}

#[tokio::test]
async fn anthropic_event_order_calls_done_at_block_stop() {
    let server = ScriptedServer::start(vec![Turn::stream().raw(ANTHROPIC_FIXTURE)])
        .await
        .unwrap();
    let events: Vec<StreamEvent> = anthropic(&server)
        .stream(&request("claude-sonnet-4-5"))
        .map(Result::unwrap)
        .collect()
        .await;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            StreamEvent::TextDelta(_) => "text",
            StreamEvent::ToolCallStarted { .. } => "start",
            StreamEvent::ToolCallArgumentsDelta { .. } => "args",
            StreamEvent::ToolCallDone { .. } => "done",
            StreamEvent::Usage(_) => "usage",
            StreamEvent::Logprobs(_) => "logprobs",
            StreamEvent::Finished(_) => "finished",
            StreamEvent::Retrying { .. } => "retrying",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text", "text", "start", "args", "args", "args", "args", "args", "args", "args",
            "args", "done", "start", "args", "done", "usage", "finished"
        ]
    );
}

#[tokio::test]
async fn anthropic_stream_cut_inside_a_tool_use_block_names_it() {
    let cut_at = std::str::from_utf8(ANTHROPIC_FIXTURE)
        .unwrap()
        .find("renheit")
        .unwrap();
    let server =
        ScriptedServer::start(vec![Turn::stream().raw(&ANTHROPIC_FIXTURE[..cut_at]).cut()])
            .await
            .unwrap();
    let got: Vec<_> = anthropic(&server)
        .stream(&request("claude-sonnet-4-5"))
        .collect()
        .await;
    let err = got.last().unwrap().clone().unwrap_err();
    assert_eq!(
        err,
        LlmError::StreamCut {
            provider: hark_llm::ProviderLabel::new("anthropic", &server.base_url()),
            open_call: Some(OpenCall {
                index: 0,
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                name: "get_weather".into()
            }),
        }
    );
}

#[tokio::test]
async fn anthropic_error_event_mid_stream_names_status_and_message() {
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n\
event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
    let server = ScriptedServer::start(vec![Turn::stream().raw(stream)])
        .await
        .unwrap();
    let err = anthropic(&server)
        .complete(&request("claude-sonnet-4-5"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("anthropic at {}: HTTP 529: Overloaded", server.base_url())
    );
    assert_eq!(
        server.requests().len(),
        1,
        "errors inside a stream are not retried"
    );
}

#[tokio::test]
async fn anthropic_rate_limit_status_is_retried_then_the_stream_is_read() {
    let rate = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#;
    let server = ScriptedServer::start(vec![
        Turn::status_with_body(429, rate).retry_after("1"),
        Turn::stream().raw(ANTHROPIC_FIXTURE),
    ])
    .await
    .unwrap();
    let c = anthropic(&server)
        .complete(&request("claude-sonnet-4-5"))
        .await
        .unwrap();
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn anthropic_error_body_excerpt_names_the_status_and_hides_the_key() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.input_schema: JSON schema is invalid (key sk-ant-secret-42)"}}"#;
    let server = ScriptedServer::start(vec![Turn::status_with_body(400, body)])
        .await
        .unwrap();
    let err = anthropic(&server)
        .complete(&request("claude-sonnet-4-5"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "anthropic at {}: HTTP 400: tools.0.input_schema: JSON schema is invalid (key [redacted])",
            server.base_url()
        )
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn gemini_recorded_function_calls_assemble_with_signatures_and_usage() {
    let server = ScriptedServer::start(vec![Turn::stream().raw_in_pieces(GEMINI_FIXTURE, 17)])
        .await
        .unwrap();
    let c = gemini(&server)
        .complete(&request("gemini-2.5-flash"))
        .await
        .unwrap();
    let mut enable = ToolCall::new("hark_call_0", "enable_lights", "{}");
    enable.signature =
        Some("CiwB0e2Kb3dRh+BYdbZvmulSN2Pwwl6zF9hSpVT7ZvLVvb7UDTsa8qQ5RTb9RfI".into());
    assert_eq!(
        c,
        Completion {
            text: "Turning on the lights".into(),
            tool_calls: vec![
                enable,
                ToolCall::new("hark_call_1", "set_light_color", "{\"rgb_hex\":\"FF0000\"}")
            ],
            usage: Some(Usage {
                input_tokens: 104,
                output_tokens: 83,
                cached_input_tokens: 0
            }),
            finish_reason: FinishReason::ToolCalls,
            logprobs: vec![],
        }
    );
    let r = &server.requests()[0];
    assert_eq!(
        r.path,
        "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(r.header("x-goog-api-key"), Some("AIza-secret-42"));
    assert!(!r.path.contains("AIza"), "the key never goes in the URL");
}

#[tokio::test]
async fn gemini_stream_without_finish_reason_is_cut() {
    let first_event = &GEMINI_FIXTURE[..GEMINI_FIXTURE
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap()
        + 2];
    let server = ScriptedServer::start(vec![Turn::stream().raw(first_event)])
        .await
        .unwrap();
    let got: Vec<_> = gemini(&server)
        .stream(&request("models/gemini-2.5-flash"))
        .collect()
        .await;
    assert_eq!(
        got[0],
        Ok(StreamEvent::TextDelta("Turning on the lights".into()))
    );
    assert!(
        matches!(
            got[1],
            Err(LlmError::StreamCut {
                open_call: None,
                ..
            })
        ),
        "{got:?}"
    );
    assert_eq!(
        server.requests()[0].path,
        "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
}

#[tokio::test]
async fn gemini_error_status_names_provider_status_and_the_providers_words() {
    let server = ScriptedServer::start(vec![Turn::status(400, "Invalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters': Cannot find field.")]).await.unwrap();
    let err = gemini(&server)
        .complete(&request("gemini-2.5-flash"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "gemini at {}: HTTP 400: Invalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters': Cannot find field.",
            server.base_url()
        )
    );
    assert_eq!(server.requests().len(), 1, "400 is not retried");
}

#[tokio::test]
async fn gemini_safety_and_malformed_call_finish_reasons() {
    let safety = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}], \"role\": \"model\"}, \"finishReason\": \"SAFETY\"}]}\n\n";
    let malformed = "data: {\"candidates\": [{\"finishReason\": \"MALFORMED_FUNCTION_CALL\"}]}\n\n";
    let blocked = "data: {\"promptFeedback\": {\"blockReason\": \"PROHIBITED_CONTENT\"}}\n\n";
    let server = ScriptedServer::start(vec![
        Turn::stream().raw(safety),
        Turn::stream().raw(malformed),
        Turn::stream().raw(blocked),
    ])
    .await
    .unwrap();
    let g = gemini(&server);
    let r = request("gemini-2.5-flash");
    assert_eq!(
        g.complete(&r).await.unwrap().finish_reason,
        FinishReason::ContentFilter
    );
    assert_eq!(
        g.complete(&r).await.unwrap().finish_reason,
        FinishReason::Other("MALFORMED_FUNCTION_CALL".into())
    );
    assert_eq!(
        g.complete(&r).await.unwrap().finish_reason,
        FinishReason::ContentFilter
    );
}
