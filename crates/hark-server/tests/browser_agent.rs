//! The voice agent end to end: the real demo page in headless Chromium on
//! the real Pipecat JS client, a hark server whose sessions run a voice agent beside the UI
//! worker, and `hark_llm::testing::ScriptedServer` as the provider of both the voice LLM and
//! the worker's LLM (the classifier and the `respond` job).
//!
//! 1. "add the blue mug to my cart": the voice LLM calls `screen` click → the page's cart count
//!    changes → the bot says the answer.
//! 2. A form filled by voice through the reply tool path: the voice LLM calls `ask_screen` (a
//!    `respond` job) → the worker's LLM calls `reply` with a fill → the email field is filled and
//!    the answer is said verbatim, with no second voice model turn.
//! 3. An interruption in the middle of a tool call, typed in the page: the running
//!    `continue` tool finishes and its result reaches the model exactly once; the cancellable
//!    one ends cancelled; every request the provider received keeps every tool call answered.
//!
//! Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is missing
//! the test FAILS with the command that installs or builds it.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::chromium::*;
use common::*;
use hark_agent::check_tool_results;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, Message, OpenAiCompatible, RetryPolicy, ToolCall};
use hark_rtvi::snapshot::{A11yNode, A11ySnapshot};
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, UiHandlerFactory, UiSessionConfig, VoiceAgentConfig};
use hark_tools::{Interruption, Output, ToolRegistry, ToolSpec};
use hark_ui::LlmClassifier;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The `Add to cart` button in the row of `product` ("Blue mug €22.00").
fn add_button<'a>(snapshot: &'a A11ySnapshot, row: &str) -> &'a A11yNode {
    let rows = find(&snapshot.root, "listitem", row);
    assert_eq!(rows.len(), 1, "one row {row:?}");
    let buttons = find(rows[0], "button", "Add to cart");
    assert_eq!(buttons.len(), 1, "one Add to cart button in {row:?}");
    buttons[0]
}

/// A script that is true once the page's conversation log shows `text` in a bot line.
fn bot_said(text: &str) -> String {
    format!(
        "return [...document.querySelectorAll('#log li.bot .text')].some((e) => e.textContent.includes({}));",
        json!(text)
    )
}

/// What the provider received, read back into messages, for the tool-result rule.
fn history_of(body: &Value) -> Vec<Message> {
    body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| match m["role"].as_str().unwrap_or_default() {
            "tool" => Message::Tool {
                tool_call_id: m["tool_call_id"].as_str().unwrap_or_default().into(),
                content: m["content"].as_str().unwrap_or_default().into(),
            },
            "assistant" => Message::Assistant {
                content: m["content"].as_str().unwrap_or_default().into(),
                tool_calls: m["tool_calls"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|c| {
                        ToolCall::new(
                            c["id"].as_str().unwrap_or_default(),
                            c["function"]["name"].as_str().unwrap_or_default(),
                            c["function"]["arguments"].as_str().unwrap_or_default(),
                        )
                    })
                    .collect(),
            },
            _ => Message::User(m["content"].as_str().unwrap_or_default().into()),
        })
        .collect()
}

/// A tool with one optional string argument and any object as result, running `run`.
fn tool<F, Fut>(name: &str, interruption: Interruption, run: F) -> ToolSpec
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, hark_tools::ToolError>> + Send + 'static,
{
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        #[allow(dead_code)]
        q: Option<String>,
    }
    let run = Arc::new(run);
    ToolSpec::local_json::<Args, _, _>(
        name,
        format!("The {name} tool."),
        Output::json(
            "Answer",
            json!({"type": "object", "additionalProperties": true}),
        ),
        move |_| {
            let run = run.clone();
            async move { run().await }
        },
    )
    .expect("the tool builds")
    .interruption(interruption)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_voice_agent_shops_fills_a_form_and_survives_an_interruption_in_the_browser() {
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);

    let llm = ScriptedServer::start(Vec::new())
        .await
        .expect("scripted LLM");
    let provider = Arc::new(
        OpenAiCompatible::new(llm.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    );
    // Part 3's tools: a booking that keeps running when talked over, and a lookup that is
    // cancelled.
    let gate = Arc::new(Notify::new());
    let started = Arc::new(AtomicUsize::new(0));
    let (g, s1, s2) = (gate.clone(), started.clone(), started.clone());
    let booking = tool("create_booking", Interruption::Continue, move || {
        let (gate, started) = (g.clone(), s1.clone());
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            gate.notified().await;
            Ok(json!({"reference": "B-7"}))
        }
    });
    let lookup = tool("lookup", Interruption::ProviderDefault, move || {
        let started = s2.clone();
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            futures::future::pending().await
        }
    });
    let registry = Arc::new(ToolRegistry::new(vec![booking, lookup]).unwrap());
    let agent = VoiceAgentConfig::new(
        provider.clone(),
        "voice-model",
        "You are the shop's voice.",
        registry,
    );
    let config = UiSessionConfig::new()
        .classifier(Arc::new(LlmClassifier::new(
            provider.clone(),
            "classifier-model",
        )))
        .respond(provider.clone(), "worker-model")
        .voice_agent(agent);
    let factory = Arc::new(UiHandlerFactory::new(config).expect("a valid config"));
    let server = TestServer::start_with(
        ServerConfig {
            web_dir: Some(web_dir),
            ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
        },
        Some(factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let (driver, browser) = start_browser("agent").await;
    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");
    let id = wait_ready(&mut events).await;
    let first = next_snapshot(&mut events, id, |s| {
        !find(&s.root, "listitem", "Blue mug €22.00").is_empty()
            && !find(&s.root, "textbox", "Email").is_empty()
    })
    .await;
    let add = add_button(&first, "Blue mug €22.00").ref_.to_string();
    let email = one(&first, "textbox", "Email").ref_.to_string();

    // 1. "add the blue mug to my cart" → screen click → the cart count changes → the answer.
    llm.push(Turn::tool_call(
        "call_1",
        "screen",
        json!({"action": "click", "target": "the add to cart button of the blue mug"}),
    ));
    llm.push(Turn::text_reply(&[
        &json!({"element": {"choice": add, "probabilities": {add.as_str(): 0.93}}}).to_string(),
    ]));
    llm.push(Turn::text_reply(&["I added the blue mug to your cart."]));
    type_message(&browser, "add the blue mug to my cart").await;
    page_until(
        &browser,
        "the cart count",
        "return document.getElementById('cart-link').textContent === 'Cart (1)';",
    )
    .await;
    page_until(
        &browser,
        "the answer",
        &bot_said("I added the blue mug to your cart."),
    )
    .await;
    let bodies = llm.bodies();
    assert_eq!(bodies.len(), 3, "voice, classifier, voice");
    assert_eq!(bodies[0]["model"], "voice-model");
    let offered: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"screen") && offered.contains(&"ask_screen"),
        "{offered:?}"
    );
    assert_eq!(bodies[1]["model"], "classifier-model");
    let result = &bodies[2]["messages"].as_array().unwrap().last().unwrap()["content"];
    assert_eq!(result, r#"{"done":true,"label":"Add to cart (Blue mug)"}"#);

    // 2. A form filled by voice: ask_screen → the worker's respond job → its reply tool fills
    //    the email and answers; the answer is said verbatim, no voice model turn follows.
    llm.push(Turn::tool_call(
        "call_2",
        "ask_screen",
        json!({"query": "put ana@example.com in the email field"}),
    ));
    llm.push(Turn::tool_call(
        "reply_1",
        "reply",
        json!({"answer": "Done, your email is filled in.",
               "fills": [{"ref": email, "value": "ana@example.com"}]}),
    ));
    type_message(&browser, "put ana@example.com in the email field").await;
    page_until(
        &browser,
        "the email field",
        "return document.getElementById('email').value === 'ana@example.com';",
    )
    .await;
    page_until(
        &browser,
        "the spoken answer",
        &bot_said("Done, your email is filled in."),
    )
    .await;
    let bodies = llm.bodies();
    assert_eq!(
        bodies.len(),
        5,
        "voice, worker; the reply saved a voice turn"
    );
    assert_eq!(bodies[4]["model"], "worker-model");
    assert!(
        bodies[4]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "user"
                && m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("put ana@example.com in the email field"))),
        "the worker's LLM reads the query: {:#}",
        bodies[4]
    );

    // 3. An interruption over the wire: the caller types while create_booking (continue) and
    // lookup run.
    llm.push(
        Turn::stream()
            .tool_call_start(0, "call_b", "create_booking")
            .tool_call_args(0, r#"{"q":"friday"}"#)
            .tool_call_start(1, "call_l", "lookup")
            .tool_call_args(1, r#"{"q":"menu"}"#)
            .finish("tool_calls")
            .done(),
    );
    llm.push(Turn::text_reply(&["Sure, what is it?"]));
    llm.push(Turn::text_reply(&["Your booking B-7 is confirmed."]));
    type_message(&browser, "book friday and check the menu").await;
    let deadline = tokio::time::Instant::now() + STEP;
    while started.load(Ordering::SeqCst) < 2 {
        assert!(tokio::time::Instant::now() < deadline, "both tools start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    type_message(&browser, "wait, one question").await;
    page_until(
        &browser,
        "the reply to the interruption",
        &bot_said("Sure, what is it?"),
    )
    .await;
    gate.notify_one();
    page_until(
        &browser,
        "the late result's reply",
        &bot_said("Your booking B-7 is confirmed."),
    )
    .await;
    let bodies = llm.bodies();
    assert_eq!(bodies.len(), 8);
    let interrupted = &bodies[6]["messages"];
    let tool_results: Vec<&str> = interrupted
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        tool_results
            .iter()
            .any(|c| c.contains("create_booking is still running")),
        "{tool_results:?}"
    );
    assert!(
        tool_results.iter().any(|c| c.contains("cancel")),
        "{tool_results:?}"
    );
    let late = bodies[7]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                // The portable roles carry the late result as marked context text in a user
                // message, not as a system message of its own.
                .is_some_and(|c| c.contains("create_booking finished:"))
        })
        .count();
    assert_eq!(late, 1, "the late result reaches the model once");
    for (i, body) in bodies.iter().enumerate() {
        if body["model"] != "voice-model" {
            continue;
        }
        if let Err(problem) = check_tool_results(&history_of(body)) {
            panic!("request {i} breaks the tool-result rule: {problem}");
        }
    }

    browser.close().await.ok();
    drop(driver);
    server.stop().await;
}
