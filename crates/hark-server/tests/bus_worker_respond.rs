//! `respond` jobs over Redis answered by `hark worker`'s loop ([`hark_server::bus_worker::run`])
//! with its respond LLM scripted (`hark_llm::testing::ScriptedServer`) and the reply tool on
//! (`--reply-tool`), a [`RedisBus`] playing the Pipecat voice side:
//!
//! - two `respond` jobs asked at once run one at a time (single-flight, as pipecat's
//!   `@job(name="respond", sequential=True)`): the second reaches the LLM only after the first
//!   is answered, and each turn reads only its own query (the context is cleared per job);
//! - the first turn's reply tool fills the email field: its `set_input_value` leaves as a
//!   `BusUICommandMessage` from `ui`, and the job answers `{"answer": …, "speak": true}`; the
//!   second, a plain reply, answers `{"answer": …}`.
//!
//! Needs `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it); without it the test
//! prints why it skipped, except under `CI=true`, where it fails.

use std::sync::Arc;
use std::time::Duration;

use hark_bus::redis_bus::BusEvent;
use hark_bus::test_support::redis_url;
use hark_bus::wire::UiEventMessage;
use hark_bus::{
    JobReply, JobRequest, JobResponse, JobUpdates, RedisBus, RedisBusConfig, Transport, WireMessage,
};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, RetryPolicy};
use hark_server::bus_worker::{BusWorkerConfig, Ended, run};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

async fn next_message(rx: &mut mpsc::Receiver<BusEvent>) -> WireMessage {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
            Ok(Some(BusEvent::Message(m))) => return m,
            Ok(Some(BusEvent::Connected)) => {}
            Ok(None) => panic!("the bus stopped"),
            Err(_) => panic!("nothing within 10 s"),
        }
    }
}

fn respond(voice: &RedisBus, id: &str, query: &str) -> tokio::task::JoinHandle<JobReply> {
    let voice = voice.clone();
    let job = JobRequest::new(id, "voice", "ui", "respond", json!({"query": query}));
    tokio::spawn(
        async move { Transport::request(&voice, job.clone(), JobUpdates::discard(&job)).await },
    )
}

/// The user messages of one request to the LLM.
fn user_messages(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn respond_jobs_run_one_at_a_time_and_the_reply_tool_fills_the_page_over_redis() {
    let Some(url) = redis_url("respond_jobs_run_one_at_a_time_over_redis") else {
        return;
    };
    let channel = format!("hark-test:worker:respond:{}", std::process::id());
    let llm = ScriptedServer::start(Vec::new()).await.unwrap();
    let provider = OpenAiCompatible::new(llm.base_url(), None).with_http_options(HttpOptions {
        retry: RetryPolicy::none(),
        ..HttpOptions::default()
    });
    let mut bus = RedisBusConfig::new(url.as_str(), &channel);
    bus.job_timeout = Duration::from_secs(20);
    let config = BusWorkerConfig {
        bus: bus.clone(),
        name: "ui".into(),
        runner: "hark-test-respond-runner".into(),
        classifier: None,
        respond: Some((Arc::new(provider), "worker-model".into())),
        instruction: None,
        reply_tool: true,
        idle_timeout: Duration::from_secs(600),
    };
    let (voice, mut events) = RedisBus::start(bus).unwrap();
    voice.add_own_name("voice");
    // Connected before the worker starts, so its first announcement is heard.
    match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        Ok(Some(BusEvent::Connected)) => {}
        other => panic!("connected first, got {other:?}"),
    }
    let (stop, stopped) = oneshot::channel::<()>();
    let worker = tokio::spawn(async move {
        run(config, async {
            let _ = stopped.await;
        })
        .await
        .unwrap()
    });
    assert!(matches!(
        next_message(&mut events).await,
        WireMessage::Registry(r) if r.runner == "hark-test-respond-runner"
    ));
    voice
        .publish(&WireMessage::UiEvent(UiEventMessage {
            source: "voice".into(),
            target: None,
            event_name: "__ui_snapshot".into(),
            payload: json!({"root": {"ref": "e1", "role": "generic", "children": [
                {"ref": "e2", "role": "button", "name": "Checkout"},
                {"ref": "e4", "role": "textbox", "name": "Email"}]},
                "captured_at": 1767225600000u64}),
        }))
        .await
        .unwrap();

    // The first turn calls the reply tool, and is held for a while by the LLM: long enough
    // for the second job to reach the LLM too, were the jobs not run one at a time.
    llm.push(
        Turn::stream()
            .tool_call_start(0, "reply_1", "reply")
            .tool_call_args(
                0,
                &json!({"answer": "Your email is in.",
                        "fills": [{"ref": "e4", "value": "ana@example.com"}]})
                .to_string(),
            )
            .finish("tool_calls")
            .done()
            .delayed(Duration::from_millis(1500)),
    );
    llm.push(Turn::text_reply(&[
        "The checkout button is under the cart.",
    ]));
    let first_query = "put ana@example.com in the email field";
    let second_query = "where is the checkout button?";
    // The worker's snapshot is in before the first job: the snapshot went first on the channel.
    let first = respond(&voice, "respond-1", first_query);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while llm.requests().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the first job reaches the LLM"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let second = respond(&voice, "respond-2", second_query);
    tokio::time::sleep(Duration::from_millis(300)).await;
    if !first.is_finished() {
        assert_eq!(
            llm.requests().len(),
            1,
            "the second respond job reached the LLM while the first was in flight"
        );
    }

    assert_eq!(
        first.await.unwrap(),
        JobReply::Response(JobResponse::completed(
            json!({"answer": "Your email is in.", "speak": true})
        ))
    );
    assert_eq!(
        second.await.unwrap(),
        JobReply::Response(JobResponse::completed(
            json!({"answer": "The checkout button is under the cart."})
        ))
    );
    match next_message(&mut events).await {
        WireMessage::UiCommand(cmd) => {
            assert_eq!(
                (cmd.source.as_str(), cmd.command_name.as_str()),
                ("ui", "set_input_value")
            );
            assert_eq!(cmd.target, None);
            assert_eq!(
                (&cmd.payload["ref"], &cmd.payload["value"]),
                (&json!("e4"), &json!("ana@example.com"))
            );
        }
        other => panic!("the fill's UI command, got {other:?}"),
    }

    let bodies = llm.bodies();
    assert_eq!(bodies.len(), 2, "one LLM turn per job: {bodies:#?}");
    assert_eq!(bodies[0]["model"], "worker-model");
    // The query is the turn's user message; the page's <ui_state> rides with it (the portable
    // roles carry it as marked context text, not a message of its own).
    let first_user = user_messages(&bodies[0]);
    assert_eq!(first_user.len(), 1, "{first_user:?}");
    assert!(first_user[0].starts_with(first_query), "{first_user:?}");
    assert!(
        bodies[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "reply"),
        "the respond turn is offered the reply tool"
    );
    assert!(
        first_user[0].contains("<ui_state>")
            && first_user[0].contains("textbox \"Email\" [ref=e4]"),
        "the first turn reads the page: {first_user:?}"
    );
    // The second turn reads only its own query: the context is cleared per job.
    let second_user = user_messages(&bodies[1]);
    assert_eq!(second_user.len(), 1, "{second_user:?}");
    assert!(second_user[0].starts_with(second_query), "{second_user:?}");
    assert!(
        !bodies[1].to_string().contains(first_query),
        "the second turn does not read the first: {:#}",
        bodies[1]
    );

    let _ = stop.send(());
    assert_eq!(worker.await.unwrap(), Ended::Signal);
}
