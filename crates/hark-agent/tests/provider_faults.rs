//! Provider faults against the real turn loop: a stream cut mid tool call,
//! 429 then 200, malformed tool-call JSON, and a provider that never sends a first byte. Each
//! runs a `VoiceAgent` over `hark_llm::testing::ScriptedServer` on loopback and checks the
//! outcome: no partial or broken call runs, every tool call in every
//! request has exactly one result, nothing is said twice, and the caller never waits in
//! silence (the hold line or the failure line).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use hark_agent::AgentEvent;
use hark_agent::messages::{hold_line, hold_line_in, model_failed_line};
use hark_llm::testing::{RecordingPause, Turn};
use hark_llm::{HttpOptions, Message, OpenAiCompatible};
use hark_tools::{ToolError, ToolRegistry, ToolSpec};
use serde_json::{Value, json};

/// A `lookup` tool that records the arguments of every run.
fn recording_lookup() -> (ToolSpec, Arc<Mutex<Vec<Value>>>) {
    let runs = Arc::new(Mutex::new(Vec::new()));
    let seen = runs.clone();
    let spec = tool("lookup", move |arguments| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(Value::Object(arguments));
            Ok::<_, ToolError>(json!({"name": "found"}))
        }
    });
    (spec, runs)
}

/// The rig, with its provider talking to the same scripted server but sleeping through a
/// [`RecordingPause`] (no real backoff) and with `options`.
async fn rig_with_pause(
    turns: Vec<Turn>,
    tools: Vec<ToolSpec>,
    options: HttpOptions,
) -> (Rig, RecordingPause) {
    let pause = RecordingPause::new(0.0);
    let p = pause.clone();
    let rig = rig_with(turns, ToolRegistry::new(tools).unwrap(), move |mut s| {
        let base = s.provider.label().endpoint.clone();
        s.provider = Arc::new(
            OpenAiCompatible::new(base, Some("sk-test".into()))
                .with_http_options(options)
                .with_pause(Arc::new(p)),
        );
        s
    })
    .await;
    (rig, pause)
}

/// The texts of the error events the client got (an RTVI session sends each as `error`).
fn errors(sent: &[AgentEvent]) -> Vec<String> {
    sent.iter()
        .filter_map(|m| match m {
            AgentEvent::Error { text, fatal } => {
                assert!(!fatal, "a model failure is not fatal: {text}");
                Some(text.clone())
            }
            _ => None,
        })
        .collect()
}

/// A reply that starts `lookup` and sends half its arguments, then the connection drops.
fn cut_mid_call(text: Option<&str>, id: &str) -> Turn {
    let mut turn = Turn::stream();
    if let Some(text) = text {
        turn = turn.text(text);
    }
    turn.tool_call_start(0, id, "lookup")
        .tool_call_args(0, "{\"q\": \"Pa")
        .cut()
}

/// The stream is cut mid tool call before anything was said: the half call never runs, the
/// caller hears the hold line, the same request goes out again, and its call runs once.
#[tokio::test]
async fn a_stream_cut_mid_tool_call_runs_nothing_and_the_request_is_sent_again() {
    let (lookup, runs) = recording_lookup();
    let mut rig = rig(
        vec![
            cut_mid_call(None, "call_cut"),
            calls(None, &[("call_2", "lookup", r#"{"q": "Paris"}"#)]),
            Turn::text_reply(&["Paris it is."]),
        ],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("Find Paris.").await;
    rig.agent.idle().await;

    assert_eq!(
        *runs.lock().unwrap(),
        [json!({"q": "Paris"})],
        "one run, whole"
    );
    let bodies = rig.server.bodies();
    assert_eq!(bodies.len(), 3);
    assert_eq!(
        bodies[0], bodies[1],
        "the broken request is sent again as it was"
    );
    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), [hold_line(), "Paris it is.".to_string()]);
    assert!(errors(&sent).is_empty(), "{sent:?}");
    assert_valid_histories(&rig.server);
    let history = rig.agent.history();
    assert!(
        !format!("{history:?}").contains("call_cut"),
        "the cut call leaves no trace: {history:?}"
    );
}

/// The stream is cut mid tool call after the bot said something: it is not asked again (that
/// would repeat what was said); the half call never runs; the client gets the error and the
/// caller hears the failure line after the text; the text said is recorded without calls, and
/// the next turn's request is valid.
#[tokio::test]
async fn a_stream_cut_mid_tool_call_after_text_fails_the_turn_clearly() {
    let (lookup, runs) = recording_lookup();
    let mut rig = rig(
        vec![
            cut_mid_call(Some("Let me check."), "call_cut"),
            Turn::text_reply(&["Sure."]),
        ],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("Find Paris.").await;
    rig.agent.idle().await;

    assert!(runs.lock().unwrap().is_empty(), "the half call never runs");
    assert_eq!(rig.server.requests().len(), 1, "not asked again");
    let sent = drain(&mut rig.rx);
    assert_eq!(
        said(&sent),
        ["Let me check.".to_string(), model_failed_line()]
    );
    let errors = errors(&sent);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("The model request failed:") && errors[0].contains("lookup"),
        "the error names the cut call: {}",
        errors[0]
    );
    assert_eq!(
        rig.agent.history(),
        [
            Message::User("Find Paris.".into()),
            Message::Assistant {
                content: "Let me check.".into(),
                tool_calls: vec![]
            },
        ]
    );
    rig.agent.user_turn("Hello?").await;
    rig.agent.idle().await;
    assert_eq!(said(&drain(&mut rig.rx)), ["Sure."]);
    assert_valid_histories(&rig.server);
}

/// Cut twice: the request is sent again once per turn, then the turn fails; the caller hears
/// the hold line and the failure line, each once.
#[tokio::test]
async fn a_stream_cut_twice_fails_after_one_more_request() {
    let (lookup, runs) = recording_lookup();
    let mut rig = rig(
        vec![
            cut_mid_call(None, "call_a"),
            cut_mid_call(None, "call_b"),
            Turn::text_reply(&["unused"]),
        ],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("Find Paris.").await;
    rig.agent.idle().await;

    assert!(runs.lock().unwrap().is_empty());
    assert_eq!(rig.server.requests().len(), 2);
    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), [hold_line(), model_failed_line()]);
    assert_eq!(errors(&sent).len(), 1);
    assert_eq!(rig.agent.history(), [Message::User("Find Paris.".into())]);
}

/// One language per call: a call in Spanish hears the hold line and the
/// failure line in Spanish.
#[tokio::test]
async fn the_hold_and_failure_lines_are_said_in_the_calls_language() {
    let (lookup, _runs) = recording_lookup();
    let mut rig = rig_in(
        "es-ES",
        vec![
            cut_mid_call(None, "call_a"),
            cut_mid_call(None, "call_b"),
            Turn::text_reply(&["unused"]),
        ],
        ToolRegistry::new(vec![lookup]).unwrap(),
        |s| s,
    )
    .await;
    rig.agent.user_turn("Busca París.").await;
    rig.agent.idle().await;
    assert_eq!(
        said(&drain(&mut rig.rx)),
        [
            "Un momento.",
            "Perdone, no he podido responder a eso ahora. ¿Puede repetirlo?"
        ]
    );
    assert_eq!(hold_line_in("fr-CA"), "Un instant.");
    assert_eq!(hold_line_in("ja-JP"), hold_line());
}

/// 429 with `Retry-After`, a tool call, 429 without it, the answer: each 429 is retried (the
/// provider's wait, then the policy's backoff), the tool runs once, the answer is said once,
/// and the hold line is said once for the whole turn.
#[tokio::test]
async fn status_429_with_and_without_retry_after_is_retried_and_answered_once() {
    let (lookup, runs) = recording_lookup();
    let (mut rig, pause) = rig_with_pause(
        vec![
            Turn::status(429, "Rate limit reached for requests").retry_after("2"),
            calls(None, &[("call_1", "lookup", r#"{"q": "Paris"}"#)]),
            Turn::status(429, "Rate limit reached for requests"),
            Turn::text_reply(&["Paris is free."]),
        ],
        vec![lookup],
        HttpOptions::default(),
    )
    .await;
    rig.agent.user_turn("Is Paris free?").await;
    rig.agent.idle().await;

    assert_eq!(runs.lock().unwrap().len(), 1);
    assert_eq!(rig.server.requests().len(), 4);
    // Jitter 0: the provider's 2 s, then half of the 250 ms first backoff.
    assert_eq!(
        pause.waits(),
        [Duration::from_secs(2), Duration::from_millis(125)]
    );
    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), [hold_line(), "Paris is free.".to_string()]);
    assert!(errors(&sent).is_empty(), "{sent:?}");
    let answers = rig
        .agent
        .history()
        .iter()
        .filter(|m| matches!(m, Message::Assistant { content, .. } if content == "Paris is free."))
        .count();
    assert_eq!(answers, 1);
    assert_valid_histories(&rig.server);
}

/// Malformed tool-call JSON that can be read safely (trailing comma, a double-encoded string,
/// chat-template tokens, a code fence) is repaired and the calls run, each once, with the
/// intended arguments; each gets its one result.
#[tokio::test]
async fn repairable_tool_call_json_is_repaired_and_runs() {
    let (lookup, runs) = recording_lookup();
    let broken = [
        ("call_comma", r#"{"q": "Paris",}"#),
        ("call_double", r#""{\"q\": \"Paris\"}""#),
        ("call_template", r#"<|tool_call|>{"q": "Paris"}<|eot_id|>"#),
        ("call_fence", "```json\n{\"q\": \"Paris\"}\n```"),
    ];
    let script: Vec<(&str, &str, &str)> =
        broken.iter().map(|(id, a)| (*id, "lookup", *a)).collect();
    let mut rig = rig(
        vec![calls(None, &script), Turn::text_reply(&["Found it."])],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("Find Paris.").await;
    rig.agent.idle().await;

    assert_eq!(*runs.lock().unwrap(), vec![json!({"q": "Paris"}); 4]);
    let second = wire_messages(&rig.server.bodies()[1]);
    let results: Vec<(&str, &str)> = second
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str)> = broken
        .iter()
        .map(|(id, _)| (*id, r#"{"name":"found"}"#))
        .collect();
    assert_eq!(results, expected);
    assert_valid_histories(&rig.server);
    assert_eq!(said(&drain(&mut rig.rx)), ["Found it."]);
}

/// Tool-call JSON that cannot be read safely (truncated, or not an object) is not run: the
/// next request carries, as that call's one result, an error the model can act on.
#[tokio::test]
async fn irreparable_tool_call_json_does_not_run_and_the_model_reads_why() {
    let (lookup, runs) = recording_lookup();
    let mut rig = rig(
        vec![
            calls(
                None,
                &[
                    ("call_cut", "lookup", r#"{"q": "Par"#),
                    ("call_list", "lookup", r#"["Paris"]"#),
                ],
            ),
            Turn::text_reply(&["Let me try that again."]),
        ],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("Find Paris.").await;
    rig.agent.idle().await;

    assert!(
        runs.lock().unwrap().is_empty(),
        "{:?}",
        runs.lock().unwrap()
    );
    let second = wire_messages(&rig.server.bodies()[1]);
    let results: Vec<(String, String)> = second
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(results.len(), 2, "{second:#?}");
    assert_eq!(results[0].0, "call_cut");
    assert_eq!(results[1].0, "call_list");
    for (id, text) in &results {
        // The registry's refusal (hark-tools' wording): it names the tool and what to do.
        let result: Value = serde_json::from_str(text).expect("a JSON result");
        assert_eq!(
            result["refused"],
            hark_tools::messages::arguments_not_an_object("lookup"),
            "{id}: {text}"
        );
    }
    assert_valid_histories(&rig.server);
    assert_eq!(said(&drain(&mut rig.rx)), ["Let me try that again."]);
}

/// A provider that never sends a first byte: with a short first-byte limit (10 s for voice,
/// `HttpOptions::for_voice`; 2 s here) the request is given up on and sent again, and the
/// caller hears the hold line while it runs, then the answer.
#[tokio::test]
async fn a_silent_provider_is_asked_again_and_the_caller_hears_the_hold_line() {
    let options = HttpOptions {
        first_byte_timeout: Duration::from_secs(2),
        ..HttpOptions::for_voice()
    };
    let (mut rig, pause) = rig_with_pause(
        vec![
            Turn::text_reply(&["never sent"]).delayed(Duration::from_secs(300)),
            Turn::text_reply(&["Here I am."]),
        ],
        vec![],
        options,
    )
    .await;
    rig.agent.user_turn("Hello?").await;
    rig.agent.idle().await;

    assert_eq!(rig.server.requests().len(), 2);
    assert_eq!(pause.waits().len(), 1);
    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), [hold_line(), "Here I am.".to_string()]);
    assert!(errors(&sent).is_empty(), "{sent:?}");
    assert_eq!(
        rig.agent.history(),
        [
            Message::User("Hello?".into()),
            Message::Assistant {
                content: "Here I am.".into(),
                tool_calls: vec![]
            },
        ]
    );
}

/// A provider that never answers at all: after the retries the turn fails; the caller heard
/// the hold line, then the failure line; the client gets the timeout error.
#[tokio::test]
async fn a_provider_that_never_answers_fails_the_turn_with_the_hold_and_failure_lines() {
    let options = HttpOptions {
        first_byte_timeout: Duration::from_millis(300),
        retry: hark_llm::RetryPolicy {
            max_retries: 1,
            ..hark_llm::RetryPolicy::default()
        },
        ..HttpOptions::for_voice()
    };
    let silent = || Turn::text_reply(&["never sent"]).delayed(Duration::from_secs(300));
    let (mut rig, _pause) = rig_with_pause(vec![silent(), silent()], vec![], options).await;
    rig.agent.user_turn("Hello?").await;
    rig.agent.idle().await;

    assert_eq!(rig.server.requests().len(), 2);
    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), [hold_line(), model_failed_line()]);
    let errors = errors(&sent);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains("no reply within 300 ms"),
        "{}",
        errors[0]
    );
    assert_eq!(rig.agent.history(), [Message::User("Hello?".into())]);
}
