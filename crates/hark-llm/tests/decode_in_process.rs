//! The in-process decode entry of the `llm_stream` fuzz target (`hark_llm::__fuzz`) gives exactly
//! what `Provider::stream` gives for the same bytes over HTTP, for each provider's recorded stream
//! in any chunking, and for cut and broken bodies; plus the regressions the fuzzer found.

use std::sync::Arc;

use futures::StreamExt;
use hark_llm::__fuzz::{BodyEnd, Dialect, decode, sse_events};
use hark_llm::testing::{RecordingPause, ScriptedServer, Turn};
use hark_llm::{
    Anthropic, ChatRequest, Gemini, LlmError, Message, OpenAiCompatible, Provider, StreamEvent,
};

const OPENAI: &[u8] = include_bytes!("fixtures/openai_parallel_tool_calls.sse");
const ANTHROPIC: &[u8] = include_bytes!("fixtures/anthropic_tool_use.sse");
const GEMINI: &[u8] = include_bytes!("fixtures/gemini_function_calls.sse");

type Item = Result<StreamEvent, LlmError>;

/// What `Provider::stream` yields for `turn`, served on loopback.
async fn over_http(dialect: Dialect, turn: Turn) -> Vec<Item> {
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let pause = Arc::new(RecordingPause::new(0.0));
    let provider: Box<dyn Provider> = match dialect {
        Dialect::OpenAi => {
            Box::new(OpenAiCompatible::new(server.base_url(), None).with_pause(pause))
        }
        Dialect::Anthropic => {
            Box::new(Anthropic::with_base_url(server.base_url(), "key").with_pause(pause))
        }
        Dialect::Gemini => {
            Box::new(Gemini::with_base_url(server.base_url(), "key").with_pause(pause))
        }
    };
    let request = ChatRequest::new("m", vec![Message::User("hi".into())]);
    provider.stream(&request).collect().await
}

/// Errors name the provider's endpoint, which differs between the two; compare the kinds.
fn shape(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Ok(e) => format!("{e:?}"),
            Err(LlmError::StreamCut { open_call, .. }) => format!("cut {open_call:?}"),
            Err(LlmError::Decode { detail, .. }) => format!("decode {detail}"),
            Err(LlmError::Http {
                status, message, ..
            }) => format!("http {status} {message}"),
            Err(e) => format!("other {e:?}"),
        })
        .collect()
}

#[tokio::test]
async fn the_in_process_decode_matches_the_http_stream_for_every_recording_and_chunking() {
    for (dialect, bytes) in [
        (Dialect::OpenAi, OPENAI),
        (Dialect::Anthropic, ANTHROPIC),
        (Dialect::Gemini, GEMINI),
    ] {
        for size in [1, 7, 64, bytes.len()] {
            let pieces: Vec<&[u8]> = bytes.chunks(size).collect();
            let local = decode(dialect, &pieces, BodyEnd::Clean);
            assert!(
                matches!(local.last(), Some(Ok(StreamEvent::Finished(_)))),
                "{dialect:?} {size}: {local:?}"
            );
            let remote = over_http(dialect, Turn::stream().raw_in_pieces(bytes, size)).await;
            assert_eq!(local, remote, "{dialect:?} in chunks of {size}");
        }
    }
}

#[tokio::test]
async fn a_cut_body_decodes_to_the_same_cut_error_in_process_and_over_http() {
    for (dialect, bytes) in [
        (Dialect::OpenAi, OPENAI),
        (Dialect::Anthropic, ANTHROPIC),
        (Dialect::Gemini, GEMINI),
    ] {
        let half = &bytes[..bytes.len() / 2];
        let local = decode(dialect, &[half], BodyEnd::Broken);
        assert!(
            matches!(local.last(), Some(Err(_))),
            "{dialect:?}: {local:?}"
        );
        let remote = over_http(dialect, Turn::stream().raw(half).cut()).await;
        assert_eq!(shape(&local), shape(&remote), "{dialect:?} cut in half");
    }
}

#[test]
fn pending_gives_what_the_chunks_completed_and_nothing_after_the_end_marker_is_read() {
    let body =
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
    let pending = decode(Dialect::OpenAi, &[body], BodyEnd::Pending);
    assert_eq!(
        pending,
        vec![
            Ok(StreamEvent::TextDelta("Hi".into())),
            Ok(StreamEvent::Finished(hark_llm::FinishReason::Stop)),
        ],
        "[DONE] ends the turn without waiting for the body's end"
    );
    let after = decode(
        Dialect::OpenAi,
        &[
            body,
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"late\"}}]}\n\n",
        ],
        BodyEnd::Clean,
    );
    assert_eq!(after, pending, "chunks after [DONE] are not read");
}

#[test]
fn sse_events_are_the_same_whole_and_in_pieces() {
    let whole = sse_events(&[OPENAI]).unwrap();
    let pieces: Vec<&[u8]> = OPENAI.chunks(3).collect();
    assert_eq!(sse_events(&pieces).unwrap(), whole);
    assert!(whole.iter().all(|(event, _)| event == "message"));
    assert_eq!(whole.last().unwrap().1, "[DONE]");
}

/// Fuzz regression (`llm_stream`): an Anthropic `tool_use` block whose
/// `input_json_delta`s are empty (a tool without arguments) was done as `{}` with no delta
/// saying so, so the deltas did not add up to the done call's arguments. Now the `{}` comes as
/// a last delta; whitespace-only deltas are kept in front of it.
#[test]
fn an_anthropic_call_without_arguments_sends_its_braces_as_a_delta() {
    let stream = |partial: &str| {
        format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"enable_lights\",\"input\":{{}}}}}}\n\n\
             event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{partial}\"}}}}\n\n\
             event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
             event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"tool_use\"}},\"usage\":{{\"output_tokens\":5}}}}\n\n\
             event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        )
    };
    for (partial, arguments) in [("", "{}"), ("  ", "  {}")] {
        let body = stream(partial);
        let events: Vec<StreamEvent> =
            decode(Dialect::Anthropic, &[body.as_bytes()], BodyEnd::Clean)
                .into_iter()
                .map(Result::unwrap)
                .collect();
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallArgumentsDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        let done = events
            .iter()
            .find_map(|e| match e {
                StreamEvent::ToolCallDone { call, .. } => Some(call.clone()),
                _ => None,
            })
            .expect("the call is done");
        assert_eq!(done.raw_arguments, arguments, "partial {partial:?}");
        assert_eq!(
            deltas, done.raw_arguments,
            "the deltas add up, partial {partial:?}"
        );
        assert_eq!(done.parse_arguments().unwrap(), serde_json::json!({}));
    }
}

/// Fuzz regression (`llm_stream`): an OpenAI call whose pieces carry an id and
/// arguments but never a name was started and done at the finish with its arguments, but no
/// delta carried them. Now the held text comes as a delta between the start and the done.
#[test]
fn an_openai_call_without_a_name_still_sends_its_arguments_as_a_delta() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\",\"function\":{\"arguments\":\"{\\\"city\\\": \"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Bogotá\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let events: Vec<StreamEvent> = decode(Dialect::OpenAi, &[body.as_bytes()], BodyEnd::Clean)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStarted {
                index: 0,
                id: "call_x".into(),
                name: String::new(),
            },
            StreamEvent::ToolCallArgumentsDelta {
                index: 0,
                delta: "{\"city\": \"Bogotá\"}".into(),
            },
            StreamEvent::ToolCallDone {
                index: 0,
                call: hark_llm::ToolCall::new("call_x", "", "{\"city\": \"Bogotá\"}"),
            },
            StreamEvent::Finished(hark_llm::FinishReason::ToolCalls),
        ]
    );
}
