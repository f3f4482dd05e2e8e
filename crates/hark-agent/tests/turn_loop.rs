//! The turn loop against a scripted OpenAI-compatible provider on loopback: two calls in one
//! completion, an interruption before the result, tool calls from a discarded generation, text
//! and a tool call in one reply, ends_conversation, replies that save a model turn, the round
//! limit, a failing provider, and a conductor that intercepts. The recorded requests prove the
//! history: every tool call has exactly one result, in call order.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use futures::future::BoxFuture;
use hark_agent::AgentEvent;
use hark_agent::{Conductor, PlainAgent, PolicyContext, ToolCallPlan, UserTurn};
use hark_llm::testing::Turn;
use hark_llm::{Message, ToolCall};
use hark_tools::{Interruption, ToolError, ToolRegistry, ToolReply, end_call_tool};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Two calls in one completion both run, and both results are in the history in the
/// order of the calls (not the order they finished) before the next model request.
#[tokio::test]
async fn t6_parallel_calls_all_run_and_results_keep_call_order() {
    let ran = Arc::new(AtomicUsize::new(0));
    let (r1, r2) = (ran.clone(), ran.clone());
    let lookup = tool("lookup", move |_| {
        let ran = r1.clone();
        async move {
            // Finishes last, though called first.
            tokio::time::sleep(Duration::from_millis(80)).await;
            ran.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"name": "Paris"}))
        }
    });
    let availability = tool("availability", move |_| {
        let ran = r2.clone();
        async move {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"name": "free"}))
        }
    });
    let mut rig = rig(
        vec![
            calls(
                None,
                &[
                    ("call_1", "lookup", r#"{"q":"Paris"}"#),
                    ("call_2", "availability", r#"{"q":"today"}"#),
                ],
            ),
            Turn::text_reply(&["Paris is free today."]),
        ],
        vec![lookup, availability],
    )
    .await;
    rig.agent.user_turn("Is Paris free today?").await;
    rig.agent.idle().await;

    assert_eq!(ran.load(Ordering::SeqCst), 2, "both calls ran");
    let bodies = rig.server.bodies();
    assert_eq!(bodies.len(), 2);
    let second = wire_messages(&bodies[1]);
    let roles: Vec<&str> = second.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "tool"]);
    assert_eq!(second[3]["tool_call_id"], "call_1");
    assert_eq!(second[3]["content"], r#"{"name":"Paris"}"#);
    assert_eq!(second[4]["tool_call_id"], "call_2");
    assert_eq!(second[4]["content"], r#"{"name":"free"}"#);
    assert_valid_histories(&rig.server);
    assert_eq!(said(&drain(&mut rig.rx)), ["Paris is free today."]);
    assert_eq!(
        rig.agent.history().len(),
        5,
        "user, assistant, 2 results, reply"
    );
}

/// The caller talks over the bot while `create_booking` (continue) and `lookup` (the
/// default: cancel) run. The booking finishes and its result reaches the model exactly once;
/// the lookup ends cancelled (`tool.failed … cancelled`); every request stays valid.
#[tokio::test]
async fn t7_interrupted_tools_continue_or_cancel_and_the_late_result_comes_once() {
    let gate = Arc::new(Notify::new());
    let started = Arc::new(AtomicUsize::new(0));
    let (g, s1, s2) = (gate.clone(), started.clone(), started.clone());
    let booking = tool("create_booking", move |_| {
        let (gate, started) = (g.clone(), s1.clone());
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            gate.notified().await;
            Ok(json!({"name": "booking", "reference": "B-7"}))
        }
    })
    .interruption(Interruption::Continue);
    let lookup = tool("lookup", move |_| {
        let started = s2.clone();
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            futures::future::pending::<Result<Value, ToolError>>().await
        }
    });
    let mut rig = rig(
        vec![
            calls(
                None,
                &[
                    ("call_b", "create_booking", r#"{"q":"friday"}"#),
                    ("call_l", "lookup", r#"{"q":"menu"}"#),
                ],
            ),
            Turn::text_reply(&["Sure, go ahead."]),
            Turn::text_reply(&["Your booking B-7 is done."]),
            Turn::text_reply(&["You are welcome."]),
        ],
        vec![booking, lookup],
    )
    .await;
    rig.agent.user_turn("Book Friday and check the menu.").await;
    until(|| started.load(Ordering::SeqCst) == 2).await;

    // The caller talks over the running tools.
    rig.agent.user_turn("Actually, one question first.").await;
    rig.agent.idle().await;
    let events = rig.events.all();
    assert!(
        events.contains(&"tool.failed lookup cancelled".to_string()),
        "{events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e.contains("create_booking") && e.contains("failed")),
        "{events:?}"
    );
    let second = wire_messages(&rig.server.bodies()[1]);
    let roles: Vec<&str> = second.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "user"]
    );
    assert!(
        second[3]["content"]
            .as_str()
            .unwrap()
            .contains("create_booking is still running"),
        "{second:#?}"
    );
    assert!(
        second[4]["content"].as_str().unwrap().contains("cancel"),
        "{second:#?}"
    );

    // The booking finishes: its result reaches the model in the next request, once.
    gate.notify_one();
    requests(&rig.server, 3).await;
    rig.agent.idle().await;
    rig.agent.user_turn("Thanks!").await;
    rig.agent.idle().await;
    requests(&rig.server, 4).await;
    for body in &rig.server.bodies()[2..] {
        let notes = wire_messages(body)
            .iter()
            .filter(|m| {
                m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("create_booking finished:"))
            })
            .count();
        assert_eq!(notes, 1, "{body:#}");
    }
    assert!(wire_messages(&rig.server.bodies()[2]).iter().any(
        |m| m["content"] == r#"create_booking finished: {"name":"booking","reference":"B-7"}"#
    ));
    assert_valid_histories(&rig.server);
    let lines = said(&drain(&mut rig.rx));
    assert_eq!(
        lines,
        [
            "Sure, go ahead.",
            "Your booking B-7 is done.",
            "You are welcome."
        ]
    );
}

/// A generation that contains `end_call()` is interrupted before any of it is spoken: the
/// call never runs, the conversation goes on, and the history holds no trace of it.
#[tokio::test]
async fn t8_tool_calls_of_a_discarded_generation_never_run() {
    let ended = Arc::new(AtomicBool::new(false));
    let e = ended.clone();
    let end_call = tool("end_call", move |_| {
        let ended = e.clone();
        async move {
            ended.store(true, Ordering::SeqCst);
            Ok(json!({}))
        }
    });
    let mut rig = rig(
        vec![
            Turn::stream()
                .tool_call_start(0, "call_end", "end_call")
                .tool_call_args(0, "{}")
                .delay(Duration::from_millis(1500))
                .finish("tool_calls")
                .done(),
            Turn::text_reply(&["Of course, what else?"]),
        ],
        vec![end_call],
    )
    .await;
    rig.agent.user_turn("That is all, bye.").await;
    requests(&rig.server, 1).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    rig.agent.user_turn("Wait, one more thing!").await;
    rig.agent.idle().await;
    // The interrupted stream was dropped: nothing of it can run later.
    tokio::time::sleep(Duration::from_millis(200)).await;

    assert!(!ended.load(Ordering::SeqCst), "end_call ran");
    assert!(rig.events.all().is_empty(), "{:?}", rig.events.all());
    assert!(!rig.agent.is_ended());
    let second = wire_messages(&rig.server.bodies()[1]);
    let roles: Vec<&str> = second.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "user"]);
    assert_valid_histories(&rig.server);
    assert_eq!(said(&drain(&mut rig.rx)), ["Of course, what else?"]);
}

/// Text and a tool call in one reply: the lead-in is said once, before the tool runs,
/// and it precedes the tool result in the history.
#[tokio::test]
async fn t10_text_and_a_tool_call_are_said_once_and_kept_in_order() {
    let mut rig = rig(
        vec![
            calls(
                Some("Let me check that."),
                &[("call_1", "lookup", r#"{"q":"weather"}"#)],
            ),
            Turn::text_reply(&["It is sunny."]),
        ],
        vec![tool("lookup", |_| async { Ok(json!({"name": "sunny"})) })],
    )
    .await;
    rig.agent.user_turn("How is the weather?").await;
    rig.agent.idle().await;

    let sent = drain(&mut rig.rx);
    assert_eq!(said(&sent), ["Let me check that.", "It is sunny."]);
    let llm_text: String = sent
        .iter()
        .filter_map(|m| match m {
            AgentEvent::TextDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(llm_text, "Let me check that.It is sunny.");
    let second = wire_messages(&rig.server.bodies()[1]);
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], "Let me check that.");
    assert_eq!(second[2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["content"], r#"{"name":"sunny"}"#);
    assert_valid_histories(&rig.server);
}

/// `ends_conversation`: the goodbye is said, the session ends after what is queued, no model
/// request follows, and background work gets to finish.
#[tokio::test]
async fn ends_conversation_says_goodbye_then_closes_and_drains() {
    let end = end_call_tool("Call it when the caller is done.", "Goodbye!").unwrap();
    let mut rig = rig(
        vec![
            calls(Some("Happy to help."), &[("call_1", "end_call", "{}")]),
            Turn::text_reply(&["never asked"]),
        ],
        vec![end],
    )
    .await;
    let finished = Arc::new(AtomicBool::new(false));
    let f = finished.clone();
    rig.agent.live().hooks.spawn_background(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        f.store(true, Ordering::SeqCst);
    });
    rig.agent.user_turn("That's all, thanks.").await;
    rig.agent.idle().await;

    assert!(rig.agent.is_ended());
    assert!(rig.output.is_ended());
    assert!(finished.load(Ordering::SeqCst), "background work drained");
    assert_eq!(rig.server.requests().len(), 1);
    let mut sent = Vec::new();
    while let Some(m) = rig.rx.recv().await {
        sent.push(m);
    }
    assert_eq!(said(&sent), ["Happy to help.", "Goodbye!"]);
    // Later turns are not taken.
    rig.agent.user_turn("Hello?").await;
    rig.agent.idle().await;
    assert_eq!(rig.server.requests().len(), 1);
}

/// A reply row says the line for the result and saves the model turn: no second request.
#[tokio::test]
async fn a_reply_line_saves_the_model_turn() {
    let add = tool("add_to_cart", |_| async { Ok(json!({"name": "blue mug"})) })
        .replies([ToolReply::say(["Added the {{result.name}}."])]);
    let registry = ToolRegistry::new(vec![add]).unwrap();
    let mut rig = rig_with(
        vec![
            calls(None, &[("call_1", "add_to_cart", r#"{"q":"blue mug"}"#)]),
            Turn::text_reply(&["never asked"]),
        ],
        registry,
        |s| s,
    )
    .await;
    rig.agent.user_turn("Add the blue mug.").await;
    rig.agent.idle().await;
    assert_eq!(said(&drain(&mut rig.rx)), ["Added the blue mug."]);
    assert_eq!(rig.server.requests().len(), 1);
    let history = rig.agent.history();
    assert_eq!(
        history.len(),
        4,
        "user, assistant call, result, the line said: {history:?}"
    );
    // The model knows what the caller was told, after the result it was said for.
    assert!(
        matches!(&history[3], Message::Assistant { content, tool_calls }
            if content == "Added the blue mug." && tool_calls.is_empty()),
        "{history:?}"
    );
}

/// An announce line is in the history where the caller heard it: in the reply that made the
/// call, after the reply's own text and before the result; the next request reads it.
#[tokio::test]
async fn an_announce_line_is_in_the_reply_that_made_the_call() {
    let lookup = tool("lookup", |_| async { Ok(json!({"name": "sunny"})) })
        .announce(["One moment while I look."])
        .unwrap();
    let mut rig = rig(
        vec![
            calls(
                Some("Let me check that."),
                &[("call_1", "lookup", r#"{"q":"weather"}"#)],
            ),
            Turn::text_reply(&["It is sunny."]),
        ],
        vec![lookup],
    )
    .await;
    rig.agent.user_turn("How is the weather?").await;
    rig.agent.idle().await;
    assert_eq!(
        said(&drain(&mut rig.rx)),
        [
            "Let me check that.",
            "One moment while I look.",
            "It is sunny."
        ]
    );
    let second = wire_messages(&rig.server.bodies()[1]);
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(
        second[2]["content"],
        "Let me check that. One moment while I look."
    );
    assert_eq!(second[2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second.len(), 4, "{second:?}");
    assert_valid_histories(&rig.server);
}

/// The round limit: after `max_tool_rounds` rounds of tool calls the last request says
/// `tool_choice: none` with a note, and tool calls in that reply do not run.
#[tokio::test]
async fn the_tool_round_limit_makes_the_model_answer_in_words() {
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let again = tool("again", move |_| {
        let ran = r.clone();
        async move {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok(json!({}))
        }
    });
    let mut rig = rig_with(
        vec![
            calls(None, &[("c1", "again", "{}")]),
            calls(None, &[("c2", "again", "{}")]),
            calls(Some("I looped."), &[("c3", "again", "{}")]),
        ],
        ToolRegistry::new(vec![again]).unwrap(),
        |s| s.with_max_tool_rounds(2),
    )
    .await;
    rig.agent.user_turn("Go.").await;
    rig.agent.idle().await;
    assert_eq!(ran.load(Ordering::SeqCst), 2);
    let bodies = rig.server.bodies();
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[2]["tool_choice"], "none");
    let last = wire_messages(&bodies[2]);
    assert!(
        last.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .starts_with("You have called tools 2 times in this turn")
    );
    assert_eq!(said(&drain(&mut rig.rx)), ["I looped."]);
    assert_valid_histories(&rig.server);
}

/// A provider that refuses the request: the client gets an `error` naming the provider's
/// status, and the caller hears a short line; the next turn works.
#[tokio::test]
async fn a_failed_model_request_is_reported_and_the_call_goes_on() {
    let mut rig = rig(
        vec![
            Turn::status(400, "model not found"),
            Turn::text_reply(&["Hello again."]),
        ],
        vec![],
    )
    .await;
    rig.agent.user_turn("Hi").await;
    rig.agent.idle().await;
    let sent = drain(&mut rig.rx);
    let error = sent
        .iter()
        .find_map(|m| match m {
            AgentEvent::Error { text, fatal } => Some((text.clone(), *fatal)),
            _ => None,
        })
        .expect("an error message");
    assert!(
        error.0.starts_with("The model request failed:"),
        "{}",
        error.0
    );
    assert!(error.0.contains("400"), "{}", error.0);
    // The client is an end user's page: it reads the provider's kind and the status, never
    // the endpoint or what the provider wrote (the server's log has both).
    assert_eq!(
        error.0,
        "The model request failed: openai-compatible: HTTP 400"
    );
    assert!(!error.1);
    assert_eq!(said(&sent), [hark_agent::messages::model_failed_line()]);
    rig.agent.user_turn("Hi?").await;
    rig.agent.idle().await;
    assert_eq!(said(&drain(&mut rig.rx)), ["Hello again."]);
}

/// A conductor that answers a user turn itself and intercepts a tool call (a read-back): the
/// tool does not run, the model reads the conductor's result, and no model turn follows.
#[tokio::test]
async fn a_conductor_answers_turns_and_intercepts_calls() {
    #[derive(Debug)]
    struct ReadBack {
        plain: PlainAgent,
        seen: std::sync::Mutex<Vec<String>>,
    }
    impl Conductor for ReadBack {
        fn instructions(&self, cx: &PolicyContext<'_>) -> String {
            self.plain.instructions(cx)
        }
        fn tools(&self, cx: &PolicyContext<'_>) -> Arc<ToolRegistry> {
            self.plain.tools(cx)
        }
        fn on_user_turn<'a>(
            &'a self,
            text: &'a str,
            _cx: &'a PolicyContext<'a>,
        ) -> BoxFuture<'a, UserTurn> {
            Box::pin(async move {
                if text == "yes" {
                    UserTurn::Answer {
                        say: vec!["Done, it is booked.".into()],
                    }
                } else {
                    UserTurn::Ask
                }
            })
        }
        fn before_tool_call<'a>(
            &'a self,
            call: &'a ToolCall,
            _cx: &'a PolicyContext<'a>,
        ) -> BoxFuture<'a, ToolCallPlan> {
            self.seen.lock().unwrap().push(call.name.clone());
            Box::pin(async {
                ToolCallPlan::Answer {
                    say: vec!["A table for 2 on Friday. Shall I book it?".into()],
                    result: json!({"read_back": "asked the caller to confirm"}),
                    ask_model_reply: false,
                }
            })
        }
    }
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let book = tool("book", move |_| {
        let ran = r.clone();
        async move {
            ran.store(true, Ordering::SeqCst);
            Ok(json!({}))
        }
    });
    let registry = ToolRegistry::new(vec![book]).unwrap();
    let mut rig = rig_with(
        vec![calls(None, &[("call_1", "book", r#"{"q":"friday 2"}"#)])],
        registry,
        |s| {
            let plain = PlainAgent::new("Book tables.", s.registry.clone());
            s.with_conductor(Arc::new(ReadBack {
                plain,
                seen: Default::default(),
            }))
        },
    )
    .await;
    rig.agent.user_turn("Book Friday for two.").await;
    rig.agent.idle().await;
    rig.agent.user_turn("yes").await;
    rig.agent.idle().await;

    assert!(
        !ran.load(Ordering::SeqCst),
        "the intercepted tool did not run"
    );
    assert_eq!(rig.server.requests().len(), 1);
    assert_eq!(
        said(&drain(&mut rig.rx)),
        [
            "A table for 2 on Friday. Shall I book it?",
            "Done, it is booked."
        ]
    );
    let history = rig.agent.history();
    assert!(hark_agent::check_tool_results(&history).is_ok());
    assert_eq!(history.len(), 5, "{history:?}");
    assert!(
        matches!(&history[2], hark_llm::Message::Tool { content, .. }
        if content == r#"{"read_back":"asked the caller to confirm"}"#)
    );
}
