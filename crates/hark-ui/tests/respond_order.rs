//! `respond` jobs run one at a time in the order they were asked: single
//! flight is a queue, first asked first run, also when a queued job is cancelled. A job is
//! asked when the worker is handed it ([`JobHandler::handle`], what the bus calls), whatever
//! order the runtime then polls the waiting futures in.

use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, join_all};
use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_rtvi::A11ySnapshot;
use hark_ui::bus::{JobHandler, JobReply, JobRequest, JobUpdates};
use hark_ui::context::UiContextOptions;
use hark_ui::respond::Responder;
use hark_ui::{JobResponse, UiWorker};
use serde_json::json;

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"generic","children":[
    {"ref":"e2","role":"button","name":"Pay now"}]},"captured_at":1767225600000}"#;

fn responder(server: &ScriptedServer) -> Responder {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::with_options("ui", Arc::new(tx), UiContextOptions::default());
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).unwrap());
    let provider = Arc::new(OpenAiCompatible::new(
        server.base_url(),
        Some("sk-test".into()),
    ));
    Responder::builder(Arc::new(worker), provider, "m").build()
}

fn job(n: usize, query: &str) -> JobRequest {
    JobRequest::new(
        format!("job-{n}"),
        "voice",
        "ui",
        "respond",
        json!({ "query": query }),
    )
}

/// The query of each request the LLM saw, in the order it saw them.
fn queries_seen(server: &ScriptedServer) -> Vec<String> {
    server
        .bodies()
        .iter()
        .map(|b| {
            let messages = b["messages"].as_array().unwrap();
            let user = messages.iter().find(|m| m["role"] == "user").unwrap();
            // The portable roles (the default) send the query first, then the <ui_state> as
            // marked context text in the same user message.
            let content = user["content"].as_str().unwrap();
            content.split("\n\n").next().unwrap().to_string()
        })
        .collect()
}

fn answer(reply: JobReply) -> JobResponse {
    match reply {
        JobReply::Response(r) => r,
        JobReply::StreamEnded => panic!("a respond job answers"),
    }
}

/// Three jobs asked back to back; their futures are polled last first (as a runtime may start
/// the tasks of one model turn). The LLM still sees the queries in the order asked, and each
/// job gets its own answer.
#[tokio::test]
async fn three_respond_jobs_asked_back_to_back_run_in_the_order_asked() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["One."]),
        Turn::text_reply(&["Two."]),
        Turn::text_reply(&["Three."]),
    ])
    .await
    .unwrap();
    let responder = responder(&server);
    let asked = [
        "what is in the cart?",
        "is gift wrap on?",
        "what is the total?",
    ];
    let mut futures: Vec<BoxFuture<'_, JobReply>> = asked
        .iter()
        .enumerate()
        .map(|(n, q)| {
            let j = job(n, q);
            let updates = JobUpdates::discard(&j);
            responder.handle(j, updates)
        })
        .collect();
    futures.reverse();
    let mut answers: Vec<JobResponse> = join_all(futures).await.into_iter().map(answer).collect();
    answers.reverse();

    assert_eq!(queries_seen(&server), asked);
    assert_eq!(
        answers,
        ["One.", "Two.", "Three."]
            .map(|a| JobResponse::completed(json!({ "answer": a })))
            .to_vec()
    );
}

/// The same through `Responder::respond`: the call takes the place in line.
#[tokio::test]
async fn respond_takes_its_place_in_line_when_called() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["One."]),
        Turn::text_reply(&["Two."]),
        Turn::text_reply(&["Three."]),
    ])
    .await
    .unwrap();
    let responder = responder(&server);
    let a = responder.respond(job(1, "a"));
    let b = responder.respond(job(2, "b"));
    let c = responder.respond(job(3, "c"));
    let (c, b, a) = futures::join!(c, b, a);
    assert_eq!(queries_seen(&server), ["a", "b", "c"]);
    assert_eq!(a, JobResponse::completed(json!({"answer": "One."})));
    assert_eq!(b, JobResponse::completed(json!({"answer": "Two."})));
    assert_eq!(c, JobResponse::completed(json!({"answer": "Three."})));
}

/// A queued job that is cancelled leaves the line: the job asked after it runs next, still
/// after the one asked before it.
#[tokio::test]
async fn a_cancelled_queued_job_leaves_the_line_and_the_order_holds() {
    let server = ScriptedServer::start(vec![
        Turn::text_reply(&["One."]).delayed(Duration::from_millis(200)),
        Turn::text_reply(&["Three."]),
    ])
    .await
    .unwrap();
    let responder = responder(&server);
    let a = responder.respond(job(1, "a"));
    let b = responder.respond(job(2, "b"));
    let c = responder.respond(job(3, "c"));
    let (cancelled, c, a) = futures::join!(
        async move {
            // b waits in line a little, then its requester gives up.
            tokio::time::timeout(Duration::from_millis(50), b).await
        },
        c,
        a
    );
    assert!(cancelled.is_err(), "b was still waiting in line");
    assert_eq!(queries_seen(&server), ["a", "c"]);
    assert_eq!(a, JobResponse::completed(json!({"answer": "One."})));
    assert_eq!(c, JobResponse::completed(json!({"answer": "Three."})));
    assert!(responder.current_job().is_none());
}
