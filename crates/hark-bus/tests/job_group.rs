//! Job groups and the bus (as pipecat PR #5221: one `job_completed` per worker).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_bus::JobResponse;
use hark_bus::bus::{Bus, JobHandler, JobReply, JobRoutes, JobUpdates};
use hark_bus::job_group::{
    CancelOutcome, GroupOutcome, JobGroupParams, JobGroups, SteppingClock, WorkerResult,
};
use hark_bus::message::{BusMessage, JobRequest};
use hark_rtvi::{JobStatus, ServerMessage, UiCancelJobGroup};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

const T0: u64 = 1_767_225_600_000;

/// Answers at once with a fixed response.
#[derive(Debug)]
struct Answers(JobResponse);

impl JobHandler for Answers {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        let r = self.0.clone();
        Box::pin(async move { JobReply::Response(r) })
    }
}

/// Answers when the test opens the gate (or never, when the gate is dropped).
#[derive(Debug, Default)]
struct Gated(Mutex<Option<oneshot::Receiver<JobResponse>>>);

impl Gated {
    fn new() -> (Arc<Self>, oneshot::Sender<JobResponse>) {
        let (tx, rx) = oneshot::channel();
        (Arc::new(Gated(Mutex::new(Some(rx)))), tx)
    }
}

impl JobHandler for Gated {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        let rx = self.0.lock().unwrap().take();
        Box::pin(async move {
            match rx {
                Some(rx) => match rx.await {
                    Ok(r) => JobReply::Response(r),
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        })
    }
}

/// Streams two updates and ends the stream.
#[derive(Debug)]
struct Streams;

impl JobHandler for Streams {
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async move {
            updates.send(json!({"text": "checking tone"}));
            updates.send(json!({"feedback": format!("Tone of {} reads as measured.", job.payload["doc"].as_str().unwrap_or("?"))}));
            JobReply::StreamEnded
        })
    }
}

#[derive(Debug)]
struct Panics;

impl JobHandler for Panics {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async { panic!("worker bug") })
    }
}

fn setup(bus: Bus) -> (Arc<JobGroups>, mpsc::UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let groups = JobGroups::new("ui", Arc::new(bus), Arc::new(tx))
        .with_clock(Arc::new(SteppingClock::new(T0)))
        .with_ids(|| "J1".to_string());
    (Arc::new(groups), rx)
}

/// Every `ui-job-group` data object sent so far, as wire JSON.
fn wire(rx: &mut mpsc::UnboundedReceiver<ServerMessage>) -> Vec<Value> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        match m {
            ServerMessage::UiJobGroup(e) => out.push(serde_json::to_value(e).unwrap()),
            other => panic!("unexpected message {other:?}"),
        }
    }
    out
}

async fn next(rx: &mut mpsc::UnboundedReceiver<ServerMessage>) -> Value {
    match rx.recv().await {
        Some(ServerMessage::UiJobGroup(e)) => serde_json::to_value(e).unwrap(),
        other => panic!("expected a job group envelope, got {other:?}"),
    }
}

fn completed(worker: &str, response: Value) -> WorkerResult {
    WorkerResult {
        worker: worker.into(),
        response: JobResponse::completed(response),
    }
}

fn cancelled(worker: &str) -> WorkerResult {
    WorkerResult {
        worker: worker.into(),
        response: JobResponse {
            status: JobStatus::Cancelled,
            response: None,
        },
    }
}

/// Response path: the exact envelopes with `at` in epoch ms.
#[tokio::test]
async fn a_group_reports_start_each_completion_and_the_end() {
    let bus = Bus::new();
    let (clarity, open_clarity) = Gated::new();
    let (tone, open_tone) = Gated::new();
    bus.register("clarity", clarity).unwrap();
    bus.register("tone", tone).unwrap();
    let (groups, mut rx) = setup(bus);
    let g = groups.clone();
    let run = tokio::spawn(async move {
        g.run(
            &["clarity", "tone"],
            JobGroupParams::new("review", json!({"doc": "e7"})).label("Reviewing ¶ e7"),
        )
        .await
    });
    assert_eq!(
        next(&mut rx).await,
        json!({"kind": "group_started", "job_id": "J1", "workers": ["clarity", "tone"], "label": "Reviewing ¶ e7", "cancellable": true, "at": T0})
    );
    assert_eq!(groups.running(), ["J1"]);
    open_tone
        .send(JobResponse::completed(
            json!({"feedback": "Tone reads as measured."}),
        ))
        .unwrap();
    assert_eq!(
        next(&mut rx).await,
        json!({"kind": "job_completed", "job_id": "J1", "worker_name": "tone", "status": "completed", "response": {"feedback": "Tone reads as measured."}, "at": T0 + 1})
    );
    open_clarity
        .send(JobResponse::completed(json!({"feedback": "Clear."})))
        .unwrap();
    let report = run.await.unwrap().unwrap();
    assert_eq!(
        wire(&mut rx),
        [
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "clarity", "status": "completed", "response": {"feedback": "Clear."}, "at": T0 + 2}),
            json!({"kind": "group_completed", "job_id": "J1", "at": T0 + 3}),
        ]
    );
    assert_eq!(report.job_id, "J1");
    assert_eq!(report.outcome, GroupOutcome::Completed);
    assert_eq!(
        report.results,
        [
            completed("clarity", json!({"feedback": "Clear."})),
            completed("tone", json!({"feedback": "Tone reads as measured."}))
        ]
    );
    assert_eq!(
        report.responses()["tone"],
        &json!({"feedback": "Tone reads as measured."})
    );
    assert!(groups.running().is_empty());
}

/// Stream-end path: updates become `job_update`s; the last one is the final response.
#[tokio::test]
async fn a_streamed_job_completes_with_its_last_update() {
    let bus = Bus::new();
    bus.register("tone", Arc::new(Streams)).unwrap();
    let (groups, mut rx) = setup(bus);
    let params = JobGroupParams::new("review", json!({"doc": "e7"})).cancellable(false);
    let report = groups.run(&["tone"], params).await.unwrap();
    assert_eq!(
        wire(&mut rx),
        [
            json!({"kind": "group_started", "job_id": "J1", "workers": ["tone"], "cancellable": false, "at": T0}),
            json!({"kind": "job_update", "job_id": "J1", "worker_name": "tone", "data": {"text": "checking tone"}, "at": T0 + 1}),
            json!({"kind": "job_update", "job_id": "J1", "worker_name": "tone", "data": {"feedback": "Tone of e7 reads as measured."}, "at": T0 + 2}),
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "tone", "status": "completed", "response": {"feedback": "Tone of e7 reads as measured."}, "at": T0 + 3}),
            json!({"kind": "group_completed", "job_id": "J1", "at": T0 + 4}),
        ]
    );
    assert_eq!(
        report.results,
        [completed(
            "tone",
            json!({"feedback": "Tone of e7 reads as measured."})
        )]
    );
}

/// cancel_on_error path: a failing worker cancels the unfinished ones.
#[tokio::test]
async fn an_error_cancels_the_other_workers() {
    let bus = Bus::new();
    bus.register("a", Arc::new(Answers(JobResponse::error("no access"))))
        .unwrap();
    let (b, _keep_b_waiting) = Gated::new();
    bus.register("b", b).unwrap();
    let (groups, mut rx) = setup(bus);
    let report = groups
        .run(&["a", "b"], JobGroupParams::new("j", Value::Null))
        .await
        .unwrap();
    let sent = wire(&mut rx);
    assert_eq!(
        sent[1..],
        [
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "a", "status": "error", "response": {"error": "no access"}, "at": T0 + 1}),
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "b", "status": "cancelled", "at": T0 + 2}),
            json!({"kind": "group_completed", "job_id": "J1", "at": T0 + 3}),
        ]
    );
    assert_eq!(
        report.outcome,
        GroupOutcome::CancelledOnError { worker: "a".into() }
    );
    assert_eq!(report.results[1], cancelled("b"));
}

/// With cancel_on_error off, the others run to their own end.
#[tokio::test]
async fn without_cancel_on_error_the_others_finish() {
    let bus = Bus::new();
    bus.register(
        "a",
        Arc::new(Answers(JobResponse {
            status: JobStatus::Failed,
            response: None,
        })),
    )
    .unwrap();
    let (b, open_b) = Gated::new();
    bus.register("b", b).unwrap();
    let (groups, mut rx) = setup(bus);
    let g = groups.clone();
    let run = tokio::spawn(async move {
        g.run(
            &["a", "b"],
            JobGroupParams::new("j", Value::Null).cancel_on_error(false),
        )
        .await
    });
    next(&mut rx).await;
    assert_eq!(next(&mut rx).await["status"], "failed");
    open_b.send(JobResponse::completed(json!("ok"))).unwrap();
    let report = run.await.unwrap().unwrap();
    assert_eq!(report.outcome, GroupOutcome::Completed);
    assert_eq!(report.results[1], completed("b", json!("ok")));
    let rest = wire(&mut rx);
    assert_eq!(rest.len(), 2);
    assert_eq!(rest[0]["status"], "completed");
    assert_eq!(rest[1]["kind"], "group_completed");
}

/// Three workers, one done; the client cancels: `cancelled` for each unfinished worker,
/// then `group_completed`; a late answer is not sent.
#[tokio::test]
async fn u10_the_client_cancels_a_group() {
    let bus = Bus::new();
    bus.register(
        "done",
        Arc::new(Answers(JobResponse::completed(json!({"n": 1})))),
    )
    .unwrap();
    let (slow, open_slow) = Gated::new();
    let (slower, _never) = Gated::new();
    bus.register("slow", slow).unwrap();
    bus.register("slower", slower).unwrap();
    let (groups, mut rx) = setup(bus);
    let g = groups.clone();
    let run = tokio::spawn(async move {
        g.run(
            &["done", "slow", "slower"],
            JobGroupParams::new("j", Value::Null),
        )
        .await
    });
    assert_eq!(next(&mut rx).await["kind"], "group_started");
    assert_eq!(next(&mut rx).await["worker_name"], "done");

    let cancel = UiCancelJobGroup {
        job_id: "J1".into(),
        reason: None,
    };
    assert_eq!(groups.cancel(&cancel), CancelOutcome::Cancelled);
    let report = run.await.unwrap().unwrap();
    // The late answer: the worker's task is gone, nothing reaches the client.
    let _ = open_slow.send(JobResponse::completed(json!("late")));
    tokio::task::yield_now().await;
    assert_eq!(
        wire(&mut rx),
        [
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "slow", "status": "cancelled", "at": T0 + 2}),
            json!({"kind": "job_completed", "job_id": "J1", "worker_name": "slower", "status": "cancelled", "at": T0 + 3}),
            json!({"kind": "group_completed", "job_id": "J1", "at": T0 + 4}),
        ]
    );
    assert_eq!(
        report.outcome,
        GroupOutcome::CancelledByClient {
            reason: "cancelled by user".into()
        }
    );
    assert_eq!(
        report.results,
        [
            completed("done", json!({"n": 1})),
            cancelled("slow"),
            cancelled("slower")
        ]
    );
    assert_eq!(
        groups.cancel(&cancel),
        CancelOutcome::UnknownGroup,
        "already closed"
    );
}

#[tokio::test]
async fn a_group_not_cancellable_ignores_the_client() {
    let bus = Bus::new();
    let (w, open_w) = Gated::new();
    bus.register("w", w).unwrap();
    let (groups, mut rx) = setup(bus);
    let g = groups.clone();
    let run = tokio::spawn(async move {
        g.run(
            &["w"],
            JobGroupParams::new("j", Value::Null).cancellable(false),
        )
        .await
    });
    next(&mut rx).await;
    let cancel = UiCancelJobGroup {
        job_id: "J1".into(),
        reason: Some("user closed card".into()),
    };
    assert_eq!(groups.cancel(&cancel), CancelOutcome::NotCancellable);
    open_w.send(JobResponse::completed(json!(1))).unwrap();
    assert_eq!(run.await.unwrap().unwrap().outcome, GroupOutcome::Completed);
}

/// Timeout path: unfinished workers get `cancelled`, then the group completes.
#[tokio::test]
async fn a_timeout_closes_the_group() {
    let bus = Bus::new();
    bus.register("quick", Arc::new(Answers(JobResponse::completed(json!(1)))))
        .unwrap();
    let (stuck, _never) = Gated::new();
    bus.register("stuck", stuck).unwrap();
    let (groups, mut rx) = setup(bus);
    let params = JobGroupParams::new("j", Value::Null).timeout(Duration::from_secs(1));
    let report = groups.run(&["quick", "stuck"], params).await.unwrap();
    assert_eq!(report.outcome, GroupOutcome::TimedOut);
    assert_eq!(
        report.results,
        [completed("quick", json!(1)), cancelled("stuck")]
    );
    let sent = wire(&mut rx);
    let kinds: Vec<(&str, Option<&str>)> = sent
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["status"].as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("group_started", None),
            ("job_completed", Some("completed")),
            ("job_completed", Some("cancelled")),
            ("group_completed", None)
        ]
    );
}

/// A worker that panics still gets exactly one `job_completed` (status `error`).
#[tokio::test]
async fn a_panicking_worker_ends_with_an_error() {
    let bus = Bus::new();
    bus.register("bug", Arc::new(Panics)).unwrap();
    bus.register("ok", Arc::new(Answers(JobResponse::completed(json!(2)))))
        .unwrap();
    let (groups, mut rx) = setup(bus);
    let params = JobGroupParams::new("j", Value::Null).cancel_on_error(false);
    let report = groups.run(&["bug", "ok"], params).await.unwrap();
    assert_eq!(
        report.results[0].response,
        JobResponse::error("the worker bug failed before answering")
    );
    let completions = wire(&mut rx)
        .into_iter()
        .filter(|e| e["kind"] == "job_completed")
        .count();
    assert_eq!(completions, 2);
}

#[tokio::test]
async fn a_group_that_cannot_be_dispatched_sends_nothing() {
    let bus = Bus::new();
    bus.register("a", Arc::new(Answers(JobResponse::completed(json!(1)))))
        .unwrap();
    let (groups, mut rx) = setup(bus);
    let err = groups
        .run(&["a", "ghost", "a"], JobGroupParams::new("j", Value::Null))
        .await
        .unwrap_err();
    assert_eq!(
        err.problems,
        [
            "no worker named ghost is on the bus: register it first, or check the name",
            "the worker a is named twice in the job group: name each worker once",
        ]
    );
    let err = groups
        .run(&[], JobGroupParams::new("j", Value::Null))
        .await
        .unwrap_err();
    assert_eq!(err.problems, ["a job group needs at least one worker"]);
    assert!(wire(&mut rx).is_empty());
}

#[tokio::test]
async fn the_bus_registers_names_once_and_routes_jobs() {
    let bus = Bus::new();
    bus.register("w", Arc::new(Answers(JobResponse::completed(json!(1)))))
        .unwrap();
    let err = bus.register("w", Arc::new(Panics)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a worker named w is already on the bus: give each worker its own name"
    );

    let job = JobRequest::new("J9", "voice", "nobody", "respond", Value::Null);
    assert_eq!(
        bus.request(job.clone(), JobUpdates::discard(&job)).await,
        JobReply::Response(JobResponse::error(
            "no worker named nobody is on the bus: register it first, or check the name"
        ))
    );

    let routes = JobRoutes::new("ui")
        .route(
            "respond",
            Arc::new(Answers(JobResponse::completed(json!("r")))),
        )
        .unwrap()
        .route(
            "screen",
            Arc::new(Answers(JobResponse::completed(json!("s")))),
        )
        .unwrap();
    bus.register("ui", Arc::new(routes)).unwrap();
    let screen = JobRequest::new("J2", "voice", "ui", "screen", Value::Null);
    assert_eq!(
        bus.request(screen.clone(), JobUpdates::discard(&screen))
            .await,
        JobReply::Response(JobResponse::completed(json!("s")))
    );
    let other = JobRequest::new("J3", "voice", "ui", "dance", Value::Null);
    assert_eq!(
        bus.request(other.clone(), JobUpdates::discard(&other))
            .await,
        JobReply::Response(JobResponse::error("the worker ui has no job named dance"))
    );
    let taken = JobRoutes::new("ui")
        .route("respond", Arc::new(Panics))
        .unwrap()
        .route("respond", Arc::new(Panics))
        .unwrap_err();
    assert_eq!(
        taken.to_string(),
        "the worker ui already has a handler for the job respond: route each job once"
    );
}

/// Every bus message is a plain serialisable value with a job id, a source and a target.
#[test]
fn bus_messages_are_plain_values() {
    let request = BusMessage::JobRequest(JobRequest::new(
        "J1",
        "voice",
        "ui",
        "respond",
        json!({"query": "q"}),
    ));
    let text = serde_json::to_value(&request).unwrap();
    assert_eq!(
        text,
        json!({"__type__": "pipecat.bus.messages.BusJobRequestMessage",
               "__data__": {"source": "voice", "target": "ui", "job_id": "J1", "job_name": "respond", "payload": {"query": "q"}}})
    );
    assert_eq!(serde_json::from_value::<BusMessage>(text).unwrap(), request);

    let (tx, mut rx) = mpsc::unbounded_channel();
    let job = JobRequest::new("J1", "voice", "ui", "respond", Value::Null);
    assert!(JobUpdates::new(&job, tx).send(json!({"step": 1})));
    assert_eq!(
        serde_json::to_value(rx.try_recv().unwrap()).unwrap(),
        json!({"__type__": "pipecat.bus.messages.BusJobUpdateMessage",
               "__data__": {"source": "ui", "target": "voice", "job_id": "J1", "update": {"step": 1}}})
    );
    assert!(!JobUpdates::discard(&job).send(json!(1)));
}
