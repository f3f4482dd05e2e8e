//! The `respond` job.

use std::sync::Arc;
use std::time::Duration;

use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{OpenAiCompatible, Roles};
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_tools::{ToolError, ToolRegistry, ToolSpec};
use hark_ui::bus::{Bus, JobReply, JobRequest, JobUpdates};
use hark_ui::context::UiContextOptions;
use hark_ui::respond::{QueryFn, RespondHandle, Responder};
use hark_ui::{JobResponse, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"generic","children":[
    {"ref":"e2","role":"checkbox","name":"Gift wrap","state":["checked"]},
    {"ref":"e3","role":"button","name":"Pay now"}]},"captured_at":1767225600000}"#;

const UI_STATE: &str = "<ui_state>\n- generic [ref=e1]:\n  - checkbox \"Gift wrap\" [checked] [ref=e2]\n  - button \"Pay now\" [ref=e3]\n</ui_state>";

fn worker(options: UiContextOptions) -> (Arc<UiWorker>, UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::with_options("ui", Arc::new(tx), options);
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).unwrap());
    (Arc::new(worker), rx)
}

/// OpenAI roles: the requests carry the worker's context as it keeps it (`<ui_state>` as a
/// developer message), which these tests read; the portable default is pinned in
/// hark-llm's openai_roles.rs.
fn provider(server: &ScriptedServer) -> Arc<OpenAiCompatible> {
    Arc::new(
        OpenAiCompatible::new(server.base_url(), Some("sk-test".into())).with_roles(Roles::OpenAi),
    )
}

fn job(query: &str) -> JobRequest {
    JobRequest::new("job-1", "voice", "ui", "respond", json!({ "query": query }))
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

fn tool_call(id: &str, name: &str, args: &str) -> Turn {
    Turn::stream()
        .tool_call_start(0, id, name)
        .tool_call_args(0, args)
        .finish("tool_calls")
        .done()
}

#[tokio::test]
async fn the_reply_is_the_answer_with_the_guide_the_query_and_ui_state() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Gift wrap ", "is on."])])
        .await
        .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "gpt-test")
        .instruction("Answer in one sentence.")
        .build();

    let answer = responder.respond(job("is gift wrap on?")).await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "Gift wrap is on."}))
    );

    let body = &server.bodies()[0];
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(roles(body), ["system", "user", "developer"]);
    assert_eq!(
        body["messages"][0]["content"],
        format!(
            "Answer in one sentence.\n\n{}",
            messages::ui_state_prompt_guide()
        )
    );
    assert_eq!(body["messages"][1]["content"], "is gift wrap on?");
    assert_eq!(body["messages"][2]["content"], UI_STATE);
    assert!(
        responder.current_job().is_none(),
        "released after the answer"
    );
}

/// A reply that comes with tool calls is a preamble; `<ui_state>` is not injected again after
/// the tool round (pipecat PR #4540).
#[tokio::test]
async fn a_reply_with_tool_calls_is_a_preamble_and_ui_state_is_injected_once() {
    let server = ScriptedServer::start(vec![
        Turn::stream()
            .text("Let me count.")
            .tool_call_start(0, "call_1", "count_items")
            .tool_call_args(0, "{\"kind\": \"checkbox\"}")
            .finish("tool_calls")
            .done(),
        Turn::text_reply(&["There is one checkbox."]),
    ])
    .await
    .unwrap();
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Count {
        kind: String,
    }
    let count = ToolSpec::local(
        "count_items",
        "Counts items of a kind.",
        |c: Count| async move { Ok::<_, ToolError>(json!({ "kind": c.kind, "count": 1 })) },
    );
    let registry = ToolRegistry::new(vec![count.unwrap()]).unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "m")
        .tools(Arc::new(registry))
        .build();

    let answer = responder.respond(job("how many checkboxes?")).await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "There is one checkbox."}))
    );

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["tools"][0]["function"]["name"], "count_items");
    assert_eq!(
        roles(&bodies[1]),
        ["system", "user", "developer", "assistant", "tool"]
    );
    let assistant = &bodies[1]["messages"][3];
    assert_eq!(assistant["content"], "Let me count.");
    assert_eq!(assistant["tool_calls"][0]["id"], "call_1");
    let tool = &bodies[1]["messages"][4];
    assert_eq!(tool["tool_call_id"], "call_1");
    assert_eq!(tool["content"], r#"{"kind":"checkbox","count":1}"#);
    let states = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"] == UI_STATE)
        .count();
    assert_eq!(states, 1, "a tool round does not repeat <ui_state>");
}

/// A tool answers with `respond_to_job`; the job ends without another inference.
#[tokio::test]
async fn a_tool_answers_with_respond_to_job() {
    let server = ScriptedServer::start(vec![tool_call("c1", "tick_gift_wrap", "{}")])
        .await
        .unwrap();
    let handle = RespondHandle::new();
    let (worker, mut rx) = worker(UiContextOptions::default());
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nothing {}
    let (h, w) = (handle.clone(), worker.clone());
    let tick = ToolSpec::local("tick_gift_wrap", "Ticks gift wrap.", move |_: Nothing| {
        let (h, w) = (h.clone(), w.clone());
        async move {
            let job = h.current_job().expect("a job is in flight inside a tool");
            assert_eq!(job.payload["query"], "wrap it please");
            w.click("e2").map_err(|e| ToolError::new(e.to_string()))?;
            assert!(h.respond_to_job(Some("Done, it is wrapped."), JobStatus::Completed));
            assert!(
                !h.respond_to_job(Some("again"), JobStatus::Completed),
                "already answered"
            );
            Ok::<_, ToolError>(json!({"ok": true}))
        }
    });
    let responder = Responder::builder(worker, provider(&server), "m")
        .tools(Arc::new(ToolRegistry::new(vec![tick.unwrap()]).unwrap()))
        .handle(handle.clone())
        .build();

    let answer = responder.respond(job("wrap it please")).await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "Done, it is wrapped."}))
    );
    assert_eq!(
        server.requests().len(),
        1,
        "no inference after the tool answered"
    );
    let Ok(ServerMessage::UiCommand(cmd)) = rx.try_recv() else {
        panic!("click sent")
    };
    assert_eq!(cmd.command, "click");
    assert!(
        !handle.respond_to_job(Some("late"), JobStatus::Completed),
        "no job in flight"
    );
    assert!(handle.current_job().is_none());
}

#[tokio::test]
async fn a_falsy_answer_completes_with_no_answer() {
    let server = ScriptedServer::start(vec![tool_call("c1", "act", "{}")])
        .await
        .unwrap();
    let handle = RespondHandle::new();
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nothing {}
    let h = handle.clone();
    let act = ToolSpec::local("act", "Acts.", move |_: Nothing| {
        let h = h.clone();
        async move {
            assert!(h.respond_to_job(Some(""), JobStatus::Completed));
            Ok::<_, ToolError>(json!({}))
        }
    });
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "m")
        .tools(Arc::new(ToolRegistry::new(vec![act.unwrap()]).unwrap()))
        .handle(handle)
        .build();
    let answer = responder.respond(job("do it")).await;
    assert_eq!(
        answer,
        JobResponse {
            status: JobStatus::Completed,
            response: None
        }
    );
}

#[tokio::test]
async fn respond_to_job_is_a_no_op_when_idle() {
    let handle = RespondHandle::new();
    assert!(!handle.respond_to_job(Some("hello"), JobStatus::Completed));
    assert!(!handle.respond_to_job_spoken(Some("hello"), JobStatus::Completed));
    assert!(handle.current_job().is_none());
}

#[tokio::test]
async fn history_is_cleared_per_job_unless_keep_history() {
    for keep_history in [false, true] {
        let server = ScriptedServer::start(vec![
            Turn::text_reply(&["One."]),
            Turn::text_reply(&["Two."]),
        ])
        .await
        .unwrap();
        let options = UiContextOptions {
            keep_history,
            ..UiContextOptions::default()
        };
        let (worker, _rx) = worker(options);
        let responder = Responder::builder(worker, provider(&server), "m").build();
        responder.respond(job("first question")).await;
        responder.respond(job("second question")).await;
        let second = &server.bodies()[1];
        let texts: Vec<&str> = second["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        if keep_history {
            assert_eq!(
                roles(second),
                [
                    "system",
                    "user",
                    "developer",
                    "assistant",
                    "user",
                    "developer"
                ]
            );
            assert_eq!(texts[1], "first question");
            assert_eq!(texts[3], "One.");
            assert_eq!(texts[4], "second question");
        } else {
            assert_eq!(roles(second), ["system", "user", "developer"]);
            assert_eq!(texts[1], "second question");
        }
    }
}

#[tokio::test]
async fn render_query_can_be_overridden() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Ok."])])
        .await
        .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "m")
        .render_query(QueryFn(|job: &JobRequest| {
            format!(
                "{} (from {})",
                job.payload["question"].as_str().unwrap_or(""),
                job.source
            )
        }))
        .build();
    let request = JobRequest::new("j", "voice", "ui", "respond", json!({"question": "hi?"}));
    responder.respond(request).await;
    assert_eq!(
        server.bodies()[0]["messages"][1]["content"],
        "hi? (from voice)"
    );
}

/// A `respond` job without a query (missing, `null`, blank, or a custom `render_query` that
/// finds none) is refused at once with its own text: no LLM turn on an empty question, no
/// history, and the next job runs.
#[tokio::test]
async fn a_respond_job_without_a_query_is_refused_without_a_turn() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Gift wrap is on."])])
        .await
        .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker.clone(), provider(&server), "m").build();
    assert_eq!(
        messages::respond_query_missing(),
        "the respond job needs a query: send {\"query\": \"...\"} with the user's question or \
         request in words, e.g. {\"query\": \"is gift wrap on?\"}."
    );
    for payload in [
        json!({}),
        Value::Null,
        json!({"query": null}),
        json!({"query": ""}),
        json!({"query": "  \n"}),
        json!({"question": "is gift wrap on?"}),
    ] {
        let request = JobRequest::new("j", "voice", "ui", "respond", payload.clone());
        assert_eq!(
            responder.respond(request).await,
            JobResponse::error(messages::respond_query_missing()),
            "{payload}"
        );
    }
    assert!(server.requests().is_empty(), "no LLM call");
    assert!(responder.context().messages().is_empty(), "no history");
    assert!(responder.current_job().is_none());
    // A custom reader that finds nothing is refused the same way.
    let custom = Responder::builder(worker, provider(&server), "m")
        .render_query(QueryFn(|_: &JobRequest| String::new()))
        .build();
    assert_eq!(
        custom.respond(job("ignored")).await,
        JobResponse::error(messages::respond_query_missing())
    );
    // A real question still runs.
    assert_eq!(
        responder.respond(job("is gift wrap on?")).await,
        JobResponse::completed(json!({"answer": "Gift wrap is on."}))
    );
    assert_eq!(server.requests().len(), 1);
}

/// An LLM error answers the job with an error and releases it: the next job runs.
#[tokio::test]
async fn an_llm_error_answers_with_an_error_and_releases_the_job() {
    let server = ScriptedServer::start(vec![
        Turn::status(400, "model not found"),
        Turn::text_reply(&["Fine now."]),
    ])
    .await
    .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "m").build();
    let failed = responder.respond(job("one")).await;
    assert_eq!(failed.status, JobStatus::Error);
    let text = failed.response.unwrap()["error"]
        .as_str()
        .unwrap()
        .to_string();
    // The kind and the status; never the provider's own words or its address.
    assert_eq!(
        text,
        "the UI worker could not answer: its LLM call failed (openai-compatible: HTTP 400)"
    );
    assert!(
        !text.contains("model not found") && !text.contains("127.0.0.1"),
        "{text}"
    );
    let ok = responder.respond(job("two")).await;
    assert_eq!(ok, JobResponse::completed(json!({"answer": "Fine now."})));
}

/// As pipecat-subagents 8208302: a job cancelled mid-turn releases the single-flight lock.
#[tokio::test]
async fn a_cancelled_job_releases_the_lock() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["never heard"]).delayed(Duration::from_secs(600)),
        Turn::text_reply(&["Second answer."]),
    ])
    .await
    .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Arc::new(Responder::builder(worker, provider(&server), "m").build());
    let r = responder.clone();
    let first = tokio::spawn(async move { r.respond(job("slow")).await });
    while server.requests().is_empty() {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(responder.current_job().unwrap().payload["query"], "slow");
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    assert!(
        responder.current_job().is_none(),
        "cancellation clears the in-flight job"
    );
    let second = responder.respond(job("fast")).await;
    assert_eq!(
        second,
        JobResponse::completed(json!({"answer": "Second answer."}))
    );
}

/// Jobs run one at a time, in arrival order: the second waits for the first's answer.
#[tokio::test]
async fn respond_jobs_are_single_flight() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["First."]).delayed(Duration::from_millis(300)),
        Turn::text_reply(&["Second."]),
    ])
    .await
    .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Arc::new(Responder::builder(worker, provider(&server), "m").build());
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
    let (r, d) = (responder.clone(), done_tx.clone());
    let a = tokio::spawn(async move { d.send(("a", r.respond(job("a")).await)).unwrap() });
    while responder.current_job().is_none() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (r, d) = (responder.clone(), done_tx);
    let b = tokio::spawn(async move { d.send(("b", r.respond(job("b")).await)).unwrap() });
    a.await.unwrap();
    b.await.unwrap();
    let first = done_rx.recv().await.unwrap();
    let second = done_rx.recv().await.unwrap();
    assert_eq!(
        first,
        ("a", JobResponse::completed(json!({"answer": "First."})))
    );
    assert_eq!(
        second,
        ("b", JobResponse::completed(json!({"answer": "Second."})))
    );
    // Without the lock, b's request would have been served the first turn's slot.
    assert_eq!(server.bodies()[1]["messages"][1]["content"], "b");
}

#[tokio::test]
async fn too_many_tool_rounds_answer_with_an_error() {
    let server = ScriptedServer::start(vec![
        tool_call("c1", "nothing_here", "{}"),
        tool_call("c2", "nothing_here", "{}"),
        // The request after the limit offers no tool call; a call anyway does not run.
        tool_call("c3", "nothing_here", "{}"),
    ])
    .await
    .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Responder::builder(worker, provider(&server), "m")
        .max_rounds(2)
        .build();
    let answer = responder.respond(job("loop")).await;
    assert_eq!(
        answer,
        JobResponse::error(
            "the UI worker could not answer: its model was still calling tools after 2 rounds. \
             Ask a simpler question, or raise max_rounds."
        )
    );
    // The unknown tool was answered, so the history stays valid for the provider.
    assert_eq!(
        server.bodies()[1]["messages"][4]["content"],
        r#"{"error":"there is no tool named nothing_here. Use only the tools you were given."}"#
    );
}

/// The responder is a worker on the bus: a `respond` job sent by name reaches it.
#[tokio::test]
async fn the_responder_serves_respond_jobs_on_the_bus() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Via the bus."])])
        .await
        .unwrap();
    let (worker, _rx) = worker(UiContextOptions::default());
    let responder = Arc::new(Responder::builder(worker, provider(&server), "m").build());
    let bus = Bus::new();
    bus.register("ui", responder).unwrap();
    let request = job("hello");
    let reply = bus
        .request(request.clone(), JobUpdates::discard(&request))
        .await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::completed(json!({"answer": "Via the bus."})))
    );
}
