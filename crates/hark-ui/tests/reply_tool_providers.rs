//! The UI worker's requests reach every provider in its dialect and its round limit limits:
//! a `respond` job (what `ask_screen` sends) with the `reply` tool passes Gemini's, Anthropic's and
//! OpenAI's schema rules (the scripted server answers a break with the API's 400), and after the
//! last round the request offers no tool call.

use std::sync::Arc;

use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{Anthropic, Gemini, OpenAiCompatible, Provider};
use hark_rtvi::A11ySnapshot;
use hark_ui::bus::JobRequest;
use hark_ui::context::UiContextOptions;
use hark_ui::respond::Responder;
use hark_ui::{JobResponse, UiWorker, messages};
use serde_json::{Value, json};

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"generic","children":[
    {"ref":"e2","role":"checkbox","name":"Gift wrap","state":["checked"]}]},"captured_at":1767225600000}"#;

#[derive(Clone, Copy, Debug)]
enum Api {
    OpenAi,
    Anthropic,
    Gemini,
}

const APIS: [Api; 3] = [Api::OpenAi, Api::Anthropic, Api::Gemini];

fn worker() -> Arc<UiWorker> {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::with_options("ui", Arc::new(tx), UiContextOptions::default());
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).unwrap());
    Arc::new(worker)
}

fn provider(api: Api, server: &ScriptedServer) -> Arc<dyn Provider> {
    match api {
        Api::OpenAi => Arc::new(OpenAiCompatible::new(server.base_url(), None)),
        Api::Anthropic => Arc::new(Anthropic::with_base_url(server.base_url(), "k")),
        Api::Gemini => Arc::new(Gemini::with_base_url(server.base_url(), "k")),
    }
}

fn call(api: Api, i: usize, name: &str, args: Value) -> Turn {
    match api {
        Api::OpenAi => Turn::stream()
            .tool_call_start(0, &format!("call_{i}"), name)
            .tool_call_args(0, &args.to_string())
            .finish("tool_calls")
            .done(),
        Api::Anthropic => Turn::anthropic_tool_call(&format!("toolu_{i}"), name, &args.to_string()),
        Api::Gemini => Turn::gemini_tool_call(&format!("g_{i}"), name, args),
    }
}

fn text(api: Api, text: &str) -> Turn {
    match api {
        Api::OpenAi => Turn::text_reply(&[text]),
        Api::Anthropic => Turn::anthropic_text(text),
        Api::Gemini => Turn::gemini_text(text),
    }
}

fn job() -> JobRequest {
    JobRequest::new(
        "j1",
        "voice",
        "ui",
        "respond",
        json!({"query": "Is gift wrap on?"}),
    )
}

#[tokio::test]
async fn a_reply_tool_request_passes_every_providers_schema_rules() {
    for api in APIS {
        let server = ScriptedServer::start(vec![call(
            api,
            0,
            "reply",
            json!({"answer": "Gift wrap is on."}),
        )])
        .await
        .unwrap();
        let responder = Responder::builder(worker(), provider(api, &server), "m")
            .reply_tool(true)
            .build();
        let answer = responder.respond(job()).await;
        assert_eq!(server.schema_refusals(), Vec::<String>::new(), "{api:?}");
        assert_eq!(
            answer,
            JobResponse::completed(json!({"answer": "Gift wrap is on.", "speak": true})),
            "{api:?}"
        );
    }
    // Gemini reads the reply tool's optional values as one type each, no type list.
    let server = ScriptedServer::start(vec![call(
        Api::Gemini,
        0,
        "reply",
        json!({"answer": "On."}),
    )])
    .await
    .unwrap();
    Responder::builder(worker(), provider(Api::Gemini, &server), "m")
        .reply_tool(true)
        .build()
        .respond(job())
        .await;
    let body = &server.bodies()[0];
    let params = &body["tools"][0]["functionDeclarations"][0]["parameters"];
    assert_eq!(params["properties"]["scroll_to"]["type"], "string");
    assert_eq!(params["properties"]["highlight"]["type"], "array");
}

#[tokio::test]
async fn after_the_last_round_the_respond_request_offers_no_tool_call() {
    for api in APIS {
        let mut turns: Vec<Turn> = (0..8)
            .map(|i| call(api, i, "nothing_here", json!({})))
            .collect();
        turns.push(text(api, "The gift wrap box is ticked."));
        let server = ScriptedServer::start(turns).await.unwrap();
        let responder = Responder::builder(worker(), provider(api, &server), "m")
            .reply_tool(true)
            .build();
        let answer = responder.respond(job()).await;
        assert_eq!(
            answer,
            JobResponse::completed(json!({"answer": "The gift wrap box is ticked."})),
            "{api:?}"
        );
        let bodies = server.bodies();
        assert_eq!(bodies.len(), 9, "{api:?}: 8 rounds, then one without tools");
        let last = bodies.last().unwrap();
        let none = match api {
            Api::OpenAi => last["tool_choice"] == "none",
            Api::Anthropic => last["tool_choice"] == json!({"type": "none"}),
            Api::Gemini => last["toolConfig"]["functionCallingConfig"]["mode"] == "NONE",
        };
        assert!(none, "{api:?}: {last:#}");
        assert!(
            last.to_string()
                .contains("You have called tools 8 times for this request"),
            "{api:?}"
        );
        assert_eq!(server.schema_refusals(), Vec::<String>::new(), "{api:?}");
    }
    assert!(messages::respond_rounds_exhausted(8).starts_with("You have called tools 8 times"));
}

/// A model that calls a tool even when none may be called: the call does not run, and the job
/// answers with the round-limit error rather than hanging.
#[tokio::test]
async fn a_tool_call_after_the_limit_does_not_run() {
    let turns: Vec<Turn> = (0..3)
        .map(|i| call(Api::OpenAi, i, "reply", json!({"answer": "late"})))
        .collect();
    let server = ScriptedServer::start(turns).await.unwrap();
    let responder = Responder::builder(worker(), provider(Api::OpenAi, &server), "m")
        .max_rounds(2)
        .build();
    let answer = responder.respond(job()).await;
    assert_eq!(
        answer,
        JobResponse::error(messages::respond_too_many_rounds(2))
    );
    assert_eq!(server.bodies().len(), 3);
}
