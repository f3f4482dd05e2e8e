//! Job groups are capped per session. Real WebSocket clients against a real
//! server on loopback: each `ui-event` named `research` makes the app (its event handler, as
//! an app's would) run a job group to a peer that never answers. With a cap of 2, the third
//! group is refused with the clear text before anything reaches the client; the session keeps
//! working (pings, a client cancel, a new group once one ended), and another session opens its
//! own groups meanwhile.

mod common;

use std::sync::{Arc, OnceLock, Weak};

use common::*;
use futures::future::BoxFuture;
use hark_server::{ServerConfig, SessionId, UiHandlerFactory, UiSessionConfig};
use hark_ui::job_group::{GroupOutcome, JobGroupError, JobGroupParams, JobGroupReport};
use hark_ui::{JobGroups, JobHandler, JobReply, JobRequest, JobUpdates, UiWorker};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A peer worker that never answers.
#[derive(Debug)]
struct Stuck;

impl JobHandler for Stuck {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(std::future::pending())
    }
}

/// What the app's handler got back from `JobGroups::run`, with its session.
type Outcome = (SessionId, Result<JobGroupReport, JobGroupError>);

/// The job groups and id of the session whose worker is `worker`.
fn session_of(
    factory: &UiHandlerFactory,
    worker: &Arc<UiWorker>,
) -> Option<(SessionId, Arc<JobGroups>)> {
    factory
        .session_ids()
        .into_iter()
        .filter_map(|id| factory.session(id))
        .find(|s| Arc::ptr_eq(s.worker(), worker))
        .map(|s| (s.id(), s.job_groups().clone()))
}

/// A server whose sessions run at most `cap` job groups; every group's end (or refusal) goes
/// to the returned receiver.
fn server(cap: usize) -> (TestServer, mpsc::UnboundedReceiver<Outcome>) {
    let (tx, rx) = mpsc::unbounded_channel::<Outcome>();
    let slot: Arc<OnceLock<Weak<UiHandlerFactory>>> = Arc::default();
    let found = slot.clone();
    let config = UiSessionConfig::new()
        .max_job_groups(cap)
        .peer_worker("stuck", Arc::new(Stuck))
        .on_event("research", move |worker: Arc<UiWorker>, _event| {
            let session = found
                .get()
                .and_then(Weak::upgrade)
                .and_then(|f| session_of(&f, &worker));
            let tx = tx.clone();
            async move {
                let (id, groups) = session.expect("the event's session is running");
                let params = JobGroupParams::new("research", json!({"q": "mugs"}));
                let _ = tx.send((id, groups.run(&["stuck"], params).await));
            }
        });
    let factory = Arc::new(UiHandlerFactory::new(config).unwrap());
    slot.set(Arc::downgrade(&factory)).unwrap();
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(factory),
    );
    (server, rx)
}

async fn research(ws: &mut Ws, id: &str) {
    send_json(
        ws,
        &envelope("ui-event", id, json!({"event": "research", "payload": {}})),
    )
    .await;
}

/// The next `ui-job-group` message's data (other messages are skipped).
async fn next_group_message(ws: &mut Ws) -> Value {
    loop {
        let m = recv_json(ws).await;
        if m["type"] == "ui-job-group" {
            return m["data"].clone();
        }
    }
}

async fn next_outcome(rx: &mut mpsc::UnboundedReceiver<Outcome>) -> Outcome {
    tokio::time::timeout(STEP, rx.recv())
        .await
        .expect("a group ended or was refused in time")
        .expect("the handlers' channel is open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_over_its_job_group_cap_is_refused_and_keeps_working() {
    let (server, mut outcomes) = server(2);
    let mut events = server.sessions.subscribe();
    let mut a = connect(&server).await;
    handshake(&mut a, "a0").await;
    let a_id = wait_ready(&mut events).await;

    // Two groups start; the client sees both.
    research(&mut a, "e1").await;
    research(&mut a, "e2").await;
    let mut running = Vec::new();
    for _ in 0..2 {
        let started = next_group_message(&mut a).await;
        assert_eq!(started["kind"], "group_started", "{started}");
        assert_eq!(started["workers"], json!(["stuck"]));
        running.push(started["job_id"].as_str().unwrap().to_string());
    }

    // The third is refused: the app reads the clear text, the client is sent nothing for it.
    research(&mut a, "e3").await;
    let (id, refused) = next_outcome(&mut outcomes).await;
    assert_eq!(id, a_id);
    assert_eq!(
        refused.unwrap_err().problems,
        vec![hark_ui::messages::too_many_job_groups(2)]
    );
    assert_eq!(
        hark_ui::messages::too_many_job_groups(2),
        "2 job groups are running already, the most one session may run at once: wait for \
         one to finish or cancel one, then start this group again"
    );
    // The session answers (and nothing about the refused group came before the answer).
    send_json(
        &mut a,
        &envelope("client-message", "p1", json!({"t": "ping", "d": 1})),
    )
    .await;
    let reply = recv_json(&mut a).await;
    assert_eq!(
        (reply["type"].as_str(), reply["id"].as_str()),
        (Some("server-response"), Some("p1")),
        "{reply}"
    );

    // Another session is not affected: it opens its own two groups meanwhile.
    let mut b = connect(&server).await;
    handshake(&mut b, "b0").await;
    let b_id = wait_ready(&mut events).await;
    research(&mut b, "f1").await;
    research(&mut b, "f2").await;
    for _ in 0..2 {
        let started = next_group_message(&mut b).await;
        assert_eq!(started["kind"], "group_started", "{started}");
    }
    assert_alive(&mut b, "bp").await;

    // The client cancels one of its groups; once it ended, a new one is taken.
    send_json(
        &mut a,
        &envelope("ui-cancel-job-group", "k1", json!({"job_id": running[0]})),
    )
    .await;
    let done = next_group_message(&mut a).await;
    assert_eq!(
        (done["kind"].as_str(), done["status"].as_str()),
        (Some("job_completed"), Some("cancelled")),
        "{done}"
    );
    let closed = next_group_message(&mut a).await;
    assert_eq!(
        (closed["kind"].as_str(), closed["job_id"].as_str()),
        (Some("group_completed"), Some(running[0].as_str()))
    );
    let (id, cancelled) = next_outcome(&mut outcomes).await;
    assert_eq!(id, a_id, "nothing of session {b_id} was refused");
    assert!(
        matches!(
            cancelled.unwrap().outcome,
            GroupOutcome::CancelledByClient { .. }
        ),
        "the cancelled group's run ended"
    );
    research(&mut a, "e4").await;
    let started = next_group_message(&mut a).await;
    assert_eq!(started["kind"], "group_started", "{started}");
    assert_alive(&mut a, "p2").await;
    assert!(
        outcomes.try_recv().is_err(),
        "no other group ended or was refused"
    );
    server.stop().await;
}
