//! The OpenAI-compatible client against the scripted server on loopback: stream assembly (parallel
//! calls, text before a call), cuts, retries before the first byte only, time limits, errors naming
//! provider+status.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hark_llm::testing::{RecordingPause, ScriptedServer, Turn};
use hark_llm::{
    ChatRequest, Completion, FinishReason, HttpOptions, LlmError, Message, OpenAiCompatible,
    OpenCall, Provider, RetryPolicy, StreamEvent, TimeoutPhase, ToolCall, ToolDefinition, Usage,
};
use serde_json::json;

fn request() -> ChatRequest {
    ChatRequest::new(
        "scripted-model",
        vec![Message::User("Is there a table for 4 at 8?".into())],
    )
    .with_tools(vec![
        ToolDefinition::new(
            "lookup",
            "Finds a booking.",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        ),
        ToolDefinition::new(
            "availability",
            "Free tables.",
            json!({"type": "object", "properties": {"party": {"type": "integer"}}}),
        ),
    ])
}

async fn events(provider: &OpenAiCompatible) -> Vec<Result<StreamEvent, LlmError>> {
    provider.stream(&request()).collect().await
}

fn client(server: &ScriptedServer, pause: &RecordingPause) -> OpenAiCompatible {
    OpenAiCompatible::new(server.base_url(), Some("sk-test-secret-123".into()))
        .with_pause(Arc::new(pause.clone()))
}

fn started(index: usize, id: &str, name: &str) -> StreamEvent {
    StreamEvent::ToolCallStarted {
        index,
        id: id.into(),
        name: name.into(),
    }
}

fn args(index: usize, delta: &str) -> StreamEvent {
    StreamEvent::ToolCallArgumentsDelta {
        index,
        delta: delta.into(),
    }
}

fn done(index: usize, id: &str, name: &str, arguments: &str) -> StreamEvent {
    StreamEvent::ToolCallDone {
        index,
        call: ToolCall::new(id, name, arguments),
    }
}

#[tokio::test]
async fn t6_two_parallel_calls_interleaved_over_many_deltas_assemble_by_index() {
    // Parallel calls (pipecat #3273): `lookup` and `availability` in one completion, their argument
    // pieces interleaved.
    let turn = Turn::stream()
        .tool_call_start(0, "call_a", "lookup")
        .tool_call_start(1, "call_b", "availability")
        .tool_call_args(0, "{\"na")
        .tool_call_args(1, "{\"par")
        .tool_call_args(0, "me\": \"Ro")
        .tool_call_args(1, "ty\": ")
        .tool_call_args(0, "ssi\"}")
        .tool_call_args(1, "4}")
        .finish("tool_calls")
        .usage(120, 31)
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let pause = RecordingPause::new(0.0);
    let got: Vec<StreamEvent> = events(&client(&server, &pause))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        got,
        vec![
            started(0, "call_a", "lookup"),
            started(1, "call_b", "availability"),
            args(0, "{\"na"),
            args(1, "{\"par"),
            args(0, "me\": \"Ro"),
            args(1, "ty\": "),
            args(0, "ssi\"}"),
            args(1, "4}"),
            done(0, "call_a", "lookup", "{\"name\": \"Rossi\"}"),
            done(1, "call_b", "availability", "{\"party\": 4}"),
            StreamEvent::Usage(Usage {
                input_tokens: 120,
                output_tokens: 31,
                cached_input_tokens: 0
            }),
            StreamEvent::Finished(FinishReason::ToolCalls),
        ]
    );
}

#[tokio::test]
async fn t10_text_and_a_call_in_one_reply_keep_their_order() {
    // Text before a call (pipecat #2787): the lead-in text comes before the call, once.
    let turn = Turn::stream()
        .text("Let me ")
        .text("check that.")
        .tool_call_start(0, "call_1", "lookup")
        .tool_call_args(0, "{}")
        .finish("tool_calls")
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let provider = client(&server, &RecordingPause::new(0.0));
    let c = provider.complete(&request()).await.unwrap();
    assert_eq!(
        c,
        Completion {
            text: "Let me check that.".into(),
            tool_calls: vec![ToolCall::new("call_1", "lookup", "{}")],
            usage: None,
            finish_reason: FinishReason::ToolCalls,
            logprobs: vec![],
        }
    );
}

#[tokio::test]
async fn request_goes_to_chat_completions_with_bearer_key_and_streaming_on() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Hi"])])
        .await
        .unwrap();
    let c = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(c.text, "Hi");
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 10,
            output_tokens: 1,
            cached_input_tokens: 0
        })
    );
    let r = &server.requests()[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-secret-123"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.body["stream"], json!(true));
    assert_eq!(r.body["stream_options"], json!({"include_usage": true}));
    assert_eq!(r.body["model"], json!("scripted-model"));
}

#[tokio::test]
async fn a_stream_cut_mid_tool_call_names_the_call_and_keeps_earlier_events() {
    let turn = Turn::stream()
        .text("One moment.")
        .tool_call_start(0, "call_1", "lookup")
        .tool_call_args(0, "{\"name\": \"Ro")
        .cut();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let pause = RecordingPause::new(0.0);
    let got = events(&client(&server, &pause)).await;
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[0], Ok(StreamEvent::TextDelta("One moment.".into())));
    assert_eq!(got[1], Ok(started(0, "call_1", "lookup")));
    assert_eq!(got[2], Ok(args(0, "{\"name\": \"Ro")));
    let err = got[3].clone().unwrap_err();
    assert_eq!(
        err,
        LlmError::StreamCut {
            provider: hark_llm::ProviderLabel::new("openai-compatible", &server.base_url()),
            open_call: Some(OpenCall {
                index: 0,
                id: "call_1".into(),
                name: "lookup".into()
            }),
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: the stream ended in the middle of tool call 0 (lookup, id call_1). \
The call is incomplete: do not run it; ask the model again.",
            server.base_url()
        )
    );
    // A failure after the first byte is never retried.
    assert_eq!(server.requests().len(), 1);
    assert!(pause.waits().is_empty());
}

#[tokio::test]
async fn a_stream_that_ends_cleanly_without_finish_is_a_cut_too() {
    // The body ends properly (chunked terminator), but no finish_reason and no [DONE] came.
    let turn = Turn::stream()
        .tool_call_start(0, "call_1", "lookup")
        .tool_call_start(1, "call_2", "availability")
        .tool_call_args(1, "{\"party\"");
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let got = events(&client(&server, &RecordingPause::new(0.0))).await;
    let err = got.last().unwrap().clone().unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::StreamCut { open_call: Some(OpenCall { index: 1, ref name, .. }), .. } if name == "availability"
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_text_stream_cut_says_the_turn_did_not_finish() {
    let server = ScriptedServer::start(vec![Turn::stream().text("Hel").cut()])
        .await
        .unwrap();
    let got = events(&client(&server, &RecordingPause::new(0.0))).await;
    assert_eq!(got[0], Ok(StreamEvent::TextDelta("Hel".into())));
    assert_eq!(
        got[1].clone().unwrap_err().to_string(),
        format!(
            "openai-compatible at {}: the stream ended before the turn finished. Ask the model again.",
            server.base_url()
        )
    );
    assert_eq!(got.len(), 2);
}

#[tokio::test]
async fn status_429_then_200_is_retried_after_the_retry_after_wait() {
    let server = ScriptedServer::start(vec![
        Turn::status(429, "Rate limit reached for requests").retry_after("3"),
        Turn::text_reply(&["Hello", " there"]),
    ])
    .await
    .unwrap();
    let pause = RecordingPause::new(0.5);
    let c = client(&server, &pause).complete(&request()).await.unwrap();
    assert_eq!(c.text, "Hello there");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        server.bodies()[0],
        server.bodies()[1],
        "the retry sends the same body"
    );
    assert_eq!(pause.waits(), vec![Duration::from_secs(3)]);
}

#[tokio::test]
async fn status_5xx_without_retry_after_backs_off_exponentially_then_gives_up() {
    let server = ScriptedServer::start(vec![
        Turn::status(503, "Service Unavailable"),
        Turn::status(502, "Bad gateway"),
        Turn::status(
            500,
            "The server had an error while processing your request.",
        ),
    ])
    .await
    .unwrap();
    let pause = RecordingPause::new(1.0);
    let err = client(&server, &pause)
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 3, "one attempt and two retries");
    // Default policy, jitter 1.0: the full base delay, 250 ms then 500 ms.
    assert_eq!(
        pause.waits(),
        vec![Duration::from_millis(250), Duration::from_millis(500)]
    );
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: HTTP 500: The server had an error while processing your request.",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn a_500_after_the_first_byte_is_not_retried() {
    let turn = Turn::stream()
        .text("Sure, ")
        .error_event(500, "upstream model crashed");
    let server = ScriptedServer::start(vec![turn, Turn::text_reply(&["never sent"])])
        .await
        .unwrap();
    let pause = RecordingPause::new(0.0);
    let got = events(&client(&server, &pause)).await;
    assert_eq!(got[0], Ok(StreamEvent::TextDelta("Sure, ".into())));
    let err = got[1].clone().unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: HTTP 500: upstream model crashed",
            server.base_url()
        )
    );
    assert_eq!(got.len(), 2);
    assert_eq!(server.requests().len(), 1);
    assert!(pause.waits().is_empty());
}

#[tokio::test]
async fn a_client_error_names_provider_and_status_is_not_retried_and_hides_the_key() {
    let server = ScriptedServer::start(vec![Turn::status(
        401,
        "Incorrect API key provided: sk-test-secret-123. You can find your API key at https://platform.openai.com/account/api-keys.",
    )])
    .await
    .unwrap();
    let pause = RecordingPause::new(0.0);
    let err = client(&server, &pause)
        .complete(&request())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "openai-compatible at {}: HTTP 401: Incorrect API key provided: [redacted].",
            server.base_url()
        )),
        "{text}"
    );
    assert!(!text.contains("sk-test-secret-123"));
    assert!(!format!("{err:?}").contains("sk-test-secret-123"));
    assert_eq!(server.requests().len(), 1);
    assert!(pause.waits().is_empty());
}

#[tokio::test]
async fn no_reply_within_the_first_byte_limit_is_a_timeout() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["late"]).delayed(Duration::from_secs(5)),
    ])
    .await
    .unwrap();
    let options = HttpOptions {
        first_byte_timeout: Duration::from_millis(100),
        retry: RetryPolicy::none(),
        ..HttpOptions::default()
    };
    let provider = client(&server, &RecordingPause::new(0.0)).with_http_options(options);
    let err = provider.complete(&request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Timeout {
                phase: TimeoutPhase::FirstByte,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: no reply within 100 ms. The provider may be overloaded; try again or raise the timeout.",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn a_stalled_stream_is_a_timeout_after_the_events_already_sent() {
    let turn = Turn::stream()
        .text("Hmm")
        .delay(Duration::from_secs(5))
        .finish("stop")
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(100),
        ..HttpOptions::default()
    };
    let pause = RecordingPause::new(0.0);
    let got = events(&client(&server, &pause).with_http_options(options)).await;
    assert_eq!(got[0], Ok(StreamEvent::TextDelta("Hmm".into())));
    assert!(
        matches!(
            got[1],
            Err(LlmError::Timeout {
                phase: TimeoutPhase::NextChunk,
                ..
            })
        ),
        "{got:?}"
    );
    assert_eq!(got.len(), 2);
    assert!(pause.waits().is_empty(), "a stalled stream is not retried");
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported_as_a_connect_error() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let pause = RecordingPause::new(0.0);
    let provider = OpenAiCompatible::new(format!("http://{addr}/v1"), None)
        .with_pause(Arc::new(pause.clone()));
    let err = provider.complete(&request()).await.unwrap_err();
    assert!(matches!(err, LlmError::Connect { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "openai-compatible at http://{addr}/v1: could not connect ("
        )),
        "{text}"
    );
    assert!(
        text.ends_with("Check the base URL and that the server is running."),
        "{text}"
    );
    assert_eq!(pause.waits().len(), 2);
}

#[tokio::test]
async fn servers_that_number_every_call_zero_or_say_stop_still_give_two_calls() {
    // Seen from some OpenAI-compatible servers: each call at index 0 with its own id, and
    // finish_reason "stop" although the turn ends in calls.
    let turn = Turn::stream()
        .tool_call_start(0, "call_a", "lookup")
        .tool_call_args(0, "{\"name\": \"A\"}")
        .tool_call_start(0, "call_b", "availability")
        .tool_call_args(0, "{\"party\": 2}")
        .finish("stop")
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let c = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(
        c.tool_calls,
        vec![
            ToolCall::new("call_a", "lookup", "{\"name\": \"A\"}"),
            ToolCall::new("call_b", "availability", "{\"party\": 2}"),
        ]
    );
    assert_eq!(c.finish_reason, FinishReason::ToolCalls);
}

#[tokio::test]
async fn done_without_finish_reason_ends_the_turn() {
    let server = ScriptedServer::start(vec![Turn::stream().text("ok").done()])
        .await
        .unwrap();
    let c = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(
        (c.text.as_str(), c.finish_reason),
        ("ok", FinishReason::Stop)
    );
}

#[tokio::test]
async fn a_chunk_that_is_not_json_is_a_decode_error() {
    let server = ScriptedServer::start(vec![Turn::stream().raw("data: {not json\n\n")])
        .await
        .unwrap();
    let err = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Decode { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "openai-compatible at {}: unreadable reply: a chat completion chunk is not valid: ",
            server.base_url()
        )),
        "{err}"
    );
}

#[tokio::test]
async fn the_recorded_openai_stream_assembles_in_any_chunking() {
    let fixture = include_bytes!("fixtures/openai_parallel_tool_calls.sse");
    for size in [1, 7, 64, fixture.len()] {
        let server = ScriptedServer::start(vec![Turn::stream().raw_in_pieces(fixture, size)])
            .await
            .unwrap();
        let c = client(&server, &RecordingPause::new(0.0))
            .complete(&request())
            .await
            .unwrap();
        assert_eq!(
            c,
            Completion {
                text: String::new(),
                tool_calls: vec![
                    ToolCall::new(
                        "call_DdmO9pD3xa9XTPNJ32zg2hcA",
                        "get_weather",
                        "{\"location\": \"Paris, France\"}"
                    ),
                    ToolCall::new(
                        "call_ABxHY1VJ6L5Bpo2PjWsdpPGk",
                        "get_weather",
                        "{\"location\": \"Bogotá, Colombia\"}"
                    ),
                ],
                usage: Some(Usage {
                    input_tokens: 81,
                    output_tokens: 46,
                    cached_input_tokens: 0
                }),
                finish_reason: FinishReason::ToolCalls,
                logprobs: vec![],
            },
            "chunk size {size}"
        );
    }
}

#[tokio::test]
async fn the_script_running_out_is_a_500_naming_the_request() {
    let server = ScriptedServer::start(vec![]).await.unwrap();
    let provider = client(&server, &RecordingPause::new(0.0)).with_http_options(HttpOptions {
        retry: RetryPolicy::none(),
        ..HttpOptions::default()
    });
    let err = provider.complete(&request()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: HTTP 500: scripted server: no turn left for request 1. Add a turn to the script.",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn a_json_reply_to_a_streaming_request_says_the_server_does_not_stream() {
    let body = r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#;
    let server = ScriptedServer::start(vec![Turn::json_ok(body)])
        .await
        .unwrap();
    let err = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Decode { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "openai-compatible at {}: unreadable reply: the reply is JSON, not an event stream; the server may not support streaming. It said: ",
            server.base_url()
        )),
        "{err}"
    );
}

#[tokio::test]
async fn debug_output_of_a_provider_never_shows_the_key() {
    let key = "sk-debug-secret-77";
    let o = OpenAiCompatible::new("http://x/v1", Some(key.into()));
    let a = hark_llm::Anthropic::new(key);
    let g = hark_llm::Gemini::new(key);
    for text in [format!("{o:?}"), format!("{a:?}"), format!("{g:?}")] {
        assert!(!text.contains(key), "{text}");
        assert!(text.contains("Secret([redacted])"), "{text}");
    }
}

/// `response_format` and `top_logprobs` reach the wire; streamed token log-probabilities come
/// back in order on the completion (OpenAI chunk shape `choices[0].logprobs.content`).
#[tokio::test]
async fn structured_output_and_logprobs_round_trip() {
    use hark_llm::{ResponseFormat, TokenLogprob};
    let turn = Turn::stream()
        .text_with_logprobs(
            "{\"a\":",
            json!([{"token": "{\"a\":", "logprob": -0.01, "bytes": [],
                    "top_logprobs": [{"token": "{\"a\":", "logprob": -0.01, "bytes": []}]}]),
        )
        .text_with_logprobs(
            "\"yes\"}",
            json!([
                {"token": "\"yes", "logprob": -0.2,
                 "top_logprobs": [{"token": "\"yes", "logprob": -0.2}, {"token": "\"no", "logprob": -1.7}]},
                {"token": "\"}", "logprob": -0.001, "top_logprobs": []}
            ]),
        )
        .finish("stop")
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}},
                        "required": ["a"], "additionalProperties": false});
    let request = ChatRequest {
        response_format: Some(ResponseFormat::JsonSchema {
            name: "answers".into(),
            schema: schema.clone(),
            strict: true,
        }),
        top_logprobs: Some(5),
        ..ChatRequest::new("m", vec![Message::User("?".into())])
    };
    let c = client(&server, &RecordingPause::new(0.0))
        .complete(&request)
        .await
        .unwrap();
    assert_eq!(c.text, "{\"a\":\"yes\"}");
    assert_eq!(
        c.logprobs,
        vec![
            TokenLogprob {
                token: "{\"a\":".into(),
                logprob: -0.01,
                top: vec![("{\"a\":".into(), -0.01)]
            },
            TokenLogprob {
                token: "\"yes".into(),
                logprob: -0.2,
                top: vec![("\"yes".into(), -0.2), ("\"no".into(), -1.7)]
            },
            TokenLogprob {
                token: "\"}".into(),
                logprob: -0.001,
                top: vec![]
            },
        ]
    );
    let body = &server.bodies()[0];
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "answers", "schema": schema, "strict": true}})
    );
    assert_eq!(body["logprobs"], json!(true));
    assert_eq!(body["top_logprobs"], json!(5));

    let plain = OpenAiCompatible::new("http://x/v1", None)
        .request_body(&ChatRequest {
            response_format: Some(ResponseFormat::JsonObject),
            ..ChatRequest::new("m", vec![])
        })
        .unwrap();
    assert_eq!(plain["response_format"], json!({"type": "json_object"}));
    assert!(plain.get("logprobs").is_none() && plain.get("top_logprobs").is_none());
}

#[tokio::test]
async fn a_web_page_at_the_base_url_says_to_check_base_url() {
    let server = ScriptedServer::start(vec![Turn::ok_with_content_type(
        "text/html; charset=utf-8",
        "<html><body>Welcome to nginx!</body></html>",
    )])
    .await
    .unwrap();
    let err = client(&server, &RecordingPause::new(0.0))
        .complete(&request())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Decode { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible at {}: unreadable reply: the reply is text/html, not an event stream of chat completions. Check base_url: it must be the API's base (an OpenAI-compatible one usually ends in /v1). It said: <html><body>Welcome to nginx!</body></html>",
            server.base_url()
        )
    );
}

/// A retry is announced in the stream, before anything else, with its wait
/// and the error that caused it; the reply that follows comes once.
#[tokio::test]
async fn a_retry_is_announced_before_the_reply_with_its_wait_and_reason() {
    let server = ScriptedServer::start(vec![
        Turn::status(429, "Rate limit reached for requests").retry_after("2"),
        Turn::text_reply(&["Hello"]),
    ])
    .await
    .unwrap();
    let pause = RecordingPause::new(0.0);
    let got = events(&client(&server, &pause)).await;
    let Ok(StreamEvent::Retrying { retry, wait, error }) = &got[0] else {
        panic!("a Retrying event first: {got:?}");
    };
    assert_eq!((*retry, *wait), (1, Duration::from_secs(2)));
    assert!(
        matches!(error, LlmError::Http { status: 429, .. }),
        "{error:?}"
    );
    let rest: Vec<_> = got[1..].iter().cloned().map(Result::unwrap).collect();
    assert_eq!(rest[0], StreamEvent::TextDelta("Hello".into()));
    assert_eq!(
        rest.last(),
        Some(&StreamEvent::Finished(FinishReason::Stop))
    );
    assert!(
        !rest
            .iter()
            .any(|e| matches!(e, StreamEvent::Retrying { .. })),
        "one retry, announced once: {got:?}"
    );
    assert_eq!(pause.waits(), vec![Duration::from_secs(2)]);
}

/// A provider that sends no first byte is given up on at the first-byte
/// limit and asked again; the retry is announced as a first-byte timeout.
#[tokio::test]
async fn a_silent_provider_is_asked_again_after_the_first_byte_limit() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["never sent"]).delayed(Duration::from_secs(120)),
        Turn::text_reply(&["Here I am."]),
    ])
    .await
    .unwrap();
    let options = HttpOptions {
        first_byte_timeout: Duration::from_secs(2),
        ..HttpOptions::for_voice()
    };
    let pause = RecordingPause::new(0.0);
    let provider = client(&server, &pause).with_http_options(options);
    let got = events(&provider).await;
    assert!(
        matches!(
            &got[0],
            Ok(StreamEvent::Retrying {
                retry: 1,
                error: LlmError::Timeout {
                    phase: TimeoutPhase::FirstByte,
                    ..
                },
                ..
            })
        ),
        "{got:?}"
    );
    let c = Completion::collect(futures::stream::iter(got))
        .await
        .unwrap();
    assert_eq!(c.text, "Here I am.");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn the_voice_options_give_up_on_silence_sooner_than_the_default() {
    let voice = HttpOptions::for_voice();
    assert_eq!(voice.first_byte_timeout, Duration::from_secs(10));
    assert_eq!(voice.first_byte_timeout, hark_llm::VOICE_FIRST_BYTE_TIMEOUT);
    assert!(voice.first_byte_timeout < HttpOptions::default().first_byte_timeout);
    assert!(voice.idle_timeout < HttpOptions::default().idle_timeout);
    assert_eq!(voice.retry, RetryPolicy::default());
}
