//! `hark worker`'s loop ([`hark_server::bus_worker::run`]) on a real `redis-server`, with a
//! [`RedisBus`] playing the Pipecat voice side: the registry announcement, `screen` jobs and
//! their UI commands (the local classifier's model from scripts/fetch-model.sh), cancels, a 10 MB message, an unknown class, and the end of the worker.
//!
//! They need `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it); without it
//! each test prints why it skipped, except under `CI=true`, where a missing server fails. The
//! setup is `hark_bus::test_support`'s, shared with hark-bus's own Redis tests.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use hark_bus::redis_bus::BusEvent;
use hark_bus::test_support::{self, redis_url};
use hark_bus::wire::{Shutdown, UiEventMessage};
use hark_bus::{
    BusMessage, JobCancel, JobReply, JobRequest, JobResponse, JobUpdates, RedisBus, RedisBusConfig,
    Transport, WireMessage,
};
use hark_classify::{Answer, Classifier, ClassifierError, ClassifyState, Question};
use hark_rtvi::JobStatus;
use hark_server::bus_worker::{BusWorkerConfig, Ended, run};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

/// A classifier that never answers: its `find` jobs stay held until cancelled.
#[derive(Debug)]
struct Stuck;
impl Classifier for Stuck {
    fn ask<'a>(
        &'a self,
        _state: &'a ClassifyState,
        _questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        Box::pin(std::future::pending())
    }
}

struct Harness {
    voice: RedisBus,
    events: mpsc::Receiver<BusEvent>,
    stop: Option<oneshot::Sender<()>>,
    worker: tokio::task::JoinHandle<Ended>,
    channel: String,
}

async fn start(url: &str, test: &str, classifier: Arc<dyn Classifier>) -> Harness {
    let channel = format!("hark-test:worker:{test}:{}", std::process::id());
    let mut bus = RedisBusConfig::new(url, &channel);
    bus.job_timeout = Duration::from_secs(5);
    let mut worker_bus = bus.clone();
    worker_bus.limit_setting = Some("--max-message-bytes".into());
    let config = BusWorkerConfig {
        bus: worker_bus,
        name: "ui".into(),
        runner: "hark-test-runner".into(),
        classifier: Some(classifier),
        respond: None,
        instruction: None,
        reply_tool: false,
        idle_timeout: Duration::from_secs(600),
    };
    // The voice side listens first, so it hears the worker's first announcement.
    let mut voice_config = bus;
    voice_config.max_message_bytes = 32 * 1024 * 1024;
    let (voice, mut events) = RedisBus::start(voice_config).unwrap();
    voice.add_own_name("voice");
    voice.add_own_name("runner-voice");
    assert_eq!(next(&mut events).await, None, "connected first");
    let (stop, stopped) = oneshot::channel::<()>();
    let worker = tokio::spawn(async move {
        run(config, async {
            let _ = stopped.await;
        })
        .await
        .unwrap()
    });
    Harness {
        voice,
        events,
        stop: Some(stop),
        worker,
        channel,
    }
}

/// The next message (`None` for a `Connected`).
async fn next(rx: &mut mpsc::Receiver<BusEvent>) -> Option<WireMessage> {
    match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        Ok(Some(BusEvent::Message(m))) => Some(m),
        Ok(Some(BusEvent::Connected)) => None,
        Ok(None) => panic!("the bus stopped"),
        Err(_) => panic!("nothing within 10 s"),
    }
}

async fn next_message(rx: &mut mpsc::Receiver<BusEvent>) -> WireMessage {
    loop {
        if let Some(m) = next(rx).await {
            return m;
        }
    }
}

fn snapshot() -> WireMessage {
    WireMessage::UiEvent(UiEventMessage {
        source: "voice".into(),
        target: None,
        event_name: "__ui_snapshot".into(),
        payload: json!({"root": {"ref": "e1", "role": "generic", "children": [
            {"ref": "e2", "role": "button", "name": "Checkout"},
            {"ref": "e3", "role": "checkbox", "name": "Gift wrap"}]},
            "captured_at": 1767225600000u64}),
    })
}

impl Harness {
    /// Waits for the worker's registry and sends the page's snapshot.
    async fn ready(&mut self) {
        match next_message(&mut self.events).await {
            WireMessage::Registry(r) => {
                assert_eq!(r.runner, "hark-test-runner");
                assert_eq!(r.worker_names().collect::<Vec<_>>(), ["ui"]);
            }
            other => panic!("the registry first, got {other:?}"),
        }
        self.voice.publish(&snapshot()).await.unwrap();
    }

    async fn job(&self, id: &str, payload: serde_json::Value) -> JobReply {
        let job = JobRequest::new(id, "voice", "ui", "screen", payload);
        Transport::request(&self.voice, job.clone(), JobUpdates::discard(&job)).await
    }

    /// Whether a `list` of the buttons completes (the worker reads a page).
    async fn reads_a_page(&self, id: &str) -> bool {
        matches!(
            self.job(id, json!({"action": "list", "target": "button"})).await,
            JobReply::Response(r) if r.status == JobStatus::Completed
        )
    }

    async fn end(mut self) -> Ended {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.worker.await.unwrap()
    }
}

#[tokio::test]
async fn the_worker_announces_itself_answers_screen_jobs_and_sends_ui_commands() {
    let Some(url) = redis_url("the_worker_announces_itself") else {
        return;
    };
    let mut h = start(
        &url,
        "screen",
        Arc::new(hark_classify::LocalClassifier::new()),
    )
    .await;
    h.ready().await;
    assert_eq!(
        h.job("j-list", json!({"action": "list", "target": "button"}))
            .await,
        JobReply::Response(JobResponse::completed(json!({"elements": [
            {"role": "button", "name": "Checkout", "state": [], "value": null}]})))
    );
    assert_eq!(
        h.job(
            "j-click",
            json!({"action": "click", "target": "the checkout button"})
        )
        .await,
        JobReply::Response(JobResponse::completed(
            json!({"done": true, "label": "Checkout"})
        ))
    );
    match h
        .job(
            "j-find",
            json!({"action": "find", "target": "the checkout button"}),
        )
        .await
    {
        JobReply::Response(r) => {
            let r = r.response.unwrap();
            assert_eq!(r["label"], "Checkout");
            assert!(r["confidence"].as_f64().unwrap() > 0.5, "{r}");
        }
        other => panic!("an answer, got {other:?}"),
    }
    // The click went out to the page's pipeline worker as pipecat's UI command.
    match next_message(&mut h.events).await {
        WireMessage::UiCommand(cmd) => {
            assert_eq!(
                (cmd.source.as_str(), cmd.command_name.as_str()),
                ("ui", "click")
            );
            assert_eq!(cmd.payload["ref"], "e2");
        }
        other => panic!("a UI command, got {other:?}"),
    }
    // A runner it has not seen makes it announce itself again.
    h.voice
        .publish(&WireMessage::Registry(hark_bus::wire::WorkerRegistry {
            source: "runner-voice".into(),
            target: None,
            runner: "runner-voice".into(),
            workers: vec![],
        }))
        .await
        .unwrap();
    assert!(matches!(
        next_message(&mut h.events).await,
        WireMessage::Registry(r) if r.runner == "hark-test-runner"
    ));
    assert_eq!(h.end().await, Ended::Signal);
}

/// Waits for the worker's own registry (the voice side hears its own publications too).
async fn worker_answers(events: &mut mpsc::Receiver<BusEvent>) {
    loop {
        if let WireMessage::Registry(r) = next_message(events).await
            && r.runner == "hark-test-runner"
        {
            return;
        }
    }
}

fn registry_of(runner: &str, workers: &[&str]) -> WireMessage {
    WireMessage::Registry(hark_bus::wire::WorkerRegistry {
        source: runner.into(),
        target: None,
        runner: runner.into(),
        workers: workers
            .iter()
            .map(|name| {
                hark_bus::wire::RegistryEntry::Entry(hark_bus::wire::WorkerRegistryEntry {
                    name: (*name).into(),
                    parent: None,
                    active: true,
                    bridged: false,
                    started_at: None,
                })
            })
            .collect(),
    })
}

/// A fixed channel serves one call after another, and Pipecat's `WorkerRunner.end()` sends no
/// `BusEndMessage`: when a new runner hosts the worker that sent the page (`voice`), that is
/// the next call, and the last caller's page (their typed email, their buttons) is forgotten
/// until the new page arrives. A new user's call B listed call A's email and clicked on A's page.
#[tokio::test]
async fn a_new_call_on_a_fixed_channel_never_reads_the_last_calls_page() {
    let Some(url) = redis_url("a_new_call_on_a_fixed_channel") else {
        return;
    };
    let mut h = start(
        &url,
        "next-call",
        Arc::new(hark_classify::LocalClassifier::new()),
    )
    .await;
    // Call A's runner announces its `voice` when it starts (as Pipecat's runner does), then its
    // page comes.
    match next_message(&mut h.events).await {
        WireMessage::Registry(r) => assert_eq!(r.runner, "hark-test-runner"),
        other => panic!("the registry first, got {other:?}"),
    }
    h.voice
        .publish(&registry_of("runner-call-a", &["voice"]))
        .await
        .unwrap();
    worker_answers(&mut h.events).await;
    h.voice.publish(&snapshot()).await.unwrap();
    assert!(h.reads_a_page("j-a").await);
    // Call B's runner joins, hosting its own `voice`.
    h.voice
        .publish(&registry_of("runner-call-b", &["voice"]))
        .await
        .unwrap();
    worker_answers(&mut h.events).await;
    match h
        .job("j-b", json!({"action": "list", "target": "button"}))
        .await
    {
        JobReply::Response(r) => {
            assert_eq!(r.status, JobStatus::Error);
            assert_eq!(r.response.unwrap()["kind"], "no_snapshot");
        }
        other => panic!("an error answer, got {other:?}"),
    }
    // Call B's own page is read.
    h.voice.publish(&snapshot()).await.unwrap();
    let mut answered = false;
    for i in 0..50 {
        if h.reads_a_page(&format!("j-b{i}")).await {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered, "call B's page is read once it arrives");
    // A runner that hosts other workers (a second process of the same call) forgets nothing.
    h.voice
        .publish(&registry_of("runner-llm", &["llm"]))
        .await
        .unwrap();
    worker_answers(&mut h.events).await;
    assert!(h.reads_a_page("j-c").await);
    assert_eq!(h.end().await, Ended::Signal);
}

/// A worker that starts (or restarts) mid-call gets the live call's page before that call's
/// runner answers its registry: the page is the live call's and is kept (a first form of the
/// fixed-channel reset forgot it, and every job read "no snapshot" until the page changed).
#[tokio::test]
async fn a_page_resent_before_its_runners_registry_is_kept() {
    let Some(url) = redis_url("a_page_resent_before_its_runners_registry") else {
        return;
    };
    let mut h = start(
        &url,
        "restarted",
        Arc::new(hark_classify::LocalClassifier::new()),
    )
    .await;
    h.ready().await;
    h.voice
        .publish(&registry_of("runner-live-call", &["voice"]))
        .await
        .unwrap();
    worker_answers(&mut h.events).await;
    assert!(h.reads_a_page("j-1").await);
    assert_eq!(h.end().await, Ended::Signal);
}

/// Two workers of one name on one channel both answer every job (each click twice): the
/// worker warns, once per other runner, naming it and the fix.
#[tokio::test]
async fn a_second_worker_of_the_same_name_on_the_channel_is_warned_of() {
    let Some(url) = redis_url("a_second_worker_of_the_same_name") else {
        return;
    };
    let (logs, _guard) = test_support::capture_logs(tracing::Level::WARN);
    let mut h = start(
        &url,
        "twin",
        Arc::new(hark_classify::LocalClassifier::new()),
    )
    .await;
    h.ready().await;
    for _ in 0..2 {
        h.voice
            .publish(&registry_of("hark-other-runner", &["ui"]))
            .await
            .unwrap();
    }
    // The worker answers the new runner once; a job after it shows both registries were read.
    worker_answers(&mut h.events).await;
    let _ = h.job("j-1", json!({"action": "list"})).await;
    let text = logs.text();
    let warning = format!(
        "another runner (hark-other-runner) hosts a worker named ui on channel {}: both answer every job sent to ui, so each click and each fill happens twice. Run one ui per channel, or give each worker its own --name.",
        h.channel
    );
    assert_eq!(text.matches(&warning).count(), 1, "{text}");
    assert_eq!(h.end().await, Ended::Signal);
}

#[tokio::test]
async fn a_cancel_answers_a_held_job_once_and_a_cancel_for_another_job_is_ignored() {
    let Some(url) = redis_url("a_cancel_answers_a_held_job_once") else {
        return;
    };
    let mut h = start(&url, "cancel", Arc::new(Stuck)).await;
    h.ready().await;
    // A find the stuck classifier never answers: held.
    let job = JobRequest::new(
        "j-held",
        "voice",
        "ui",
        "screen",
        json!({"action": "find", "target": "pay"}),
    );
    h.voice
        .publish(&BusMessage::JobRequest(job).into())
        .await
        .unwrap();
    let cancel = |id: &str| {
        WireMessage::Job(BusMessage::JobCancel(JobCancel {
            source: "voice".into(),
            target: "ui".into(),
            job_id: id.into(),
            reason: Some("timeout".into()),
        }))
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    h.voice.publish(&cancel("j-never-sent")).await.unwrap();
    h.voice.publish(&cancel("j-held")).await.unwrap();
    h.voice.publish(&cancel("j-held")).await.unwrap();
    match next_message(&mut h.events).await {
        WireMessage::Job(BusMessage::JobResult(r)) => {
            assert_eq!(
                (
                    r.job_id.as_str(),
                    r.status,
                    r.source.as_str(),
                    r.target.as_str()
                ),
                ("j-held", JobStatus::Cancelled, "ui", "voice")
            );
            assert_eq!(r.response, None);
        }
        other => panic!("the cancelled answer, got {other:?}"),
    }
    // Nothing else came: the next message is the answer to a fresh job.
    assert!(matches!(
        h.job("j-after", json!({"action": "list"})).await,
        JobReply::Response(r) if r.status == JobStatus::Completed
    ));
    // A cancel for a job the worker answered already (it holds it no more): no answer.
    h.voice.publish(&cancel("j-after")).await.unwrap();
    assert_eq!(
        tokio::time::timeout(Duration::from_millis(300), h.events.recv())
            .await
            .ok()
            .flatten(),
        None
    );
    h.end().await;
}

#[tokio::test]
async fn a_10_mb_snapshot_and_an_unknown_class_are_dropped_and_the_worker_keeps_serving() {
    let Some(url) = redis_url("a_10_mb_snapshot_and_an_unknown_class_are_dropped") else {
        return;
    };
    let (captured, _guard) = test_support::capture_logs(tracing::Level::INFO);
    let mut h = start(&url, "large", Arc::new(Stuck)).await;
    h.ready().await;
    let huge = WireMessage::UiEvent(UiEventMessage {
        source: "voice".into(),
        target: None,
        event_name: "__ui_snapshot".into(),
        payload: json!({"root": {"ref": "e1", "role": "generic", "name": "x".repeat(10 * 1024 * 1024)}}),
    });
    let size = huge.encode().len();
    h.voice.publish(&huge).await.unwrap();
    let unknown = WireMessage::Job(BusMessage::JobRequest(JobRequest::new(
        "j-x",
        "voice",
        "ui",
        "screen",
        json!({}),
    )));
    // The same request under a class pipecat has but Hark does not read: ignored.
    let text = String::from_utf8(unknown.encode())
        .unwrap()
        .replace("BusJobRequestMessage", "BusFrameMessage");
    let mut raw = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: i64 = redis::AsyncCommands::publish(&mut raw, &h.channel, text)
        .await
        .unwrap();
    // Still serving, on the snapshot from before the huge one.
    assert_eq!(
        h.job("j-list", json!({"action": "list", "target": "checkbox"}))
            .await,
        JobReply::Response(JobResponse::completed(json!({"elements": [
            {"role": "checkbox", "name": "Gift wrap", "state": [], "value": null}]})))
    );
    let log = captured.text();
    let line = format!(
        "a bus message of {size} bytes on Redis channel {} is larger than the limit of 4194304 bytes (--max-message-bytes): it was dropped; send less (a smaller snapshot or payload) or raise --max-message-bytes",
        h.channel
    );
    assert!(log.contains(&line), "log: {log}");
    h.end().await;
}

#[tokio::test]
async fn a_bus_end_message_ends_the_worker_and_held_jobs_are_answered_cancelled() {
    let Some(url) = redis_url("a_bus_end_message_ends_the_worker") else {
        return;
    };
    let mut h = start(&url, "end", Arc::new(Stuck)).await;
    h.ready().await;
    let job = JobRequest::new(
        "j-held",
        "voice",
        "ui",
        "screen",
        json!({"action": "check", "target": "paid"}),
    );
    h.voice
        .publish(&BusMessage::JobRequest(job).into())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    h.voice
        .publish(&WireMessage::End(Shutdown {
            source: "voice".into(),
            target: None,
            reason: Some("call over".into()),
        }))
        .await
        .unwrap();
    match next_message(&mut h.events).await {
        WireMessage::Job(BusMessage::JobResult(r)) => {
            assert_eq!(
                (r.job_id.as_str(), r.status),
                ("j-held", JobStatus::Cancelled)
            );
        }
        other => panic!("the held job's cancelled answer, got {other:?}"),
    }
    let worker = h.worker;
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(5), worker)
            .await
            .unwrap()
            .unwrap(),
        Ended::End {
            source: "voice".into()
        }
    );
}

/// A classifier that answers nothing until released, then fails (the answer does not matter:
/// only that one comes late).
#[derive(Debug)]
struct Gate(Arc<tokio::sync::Notify>);
impl Classifier for Gate {
    fn ask<'a>(
        &'a self,
        _state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        Box::pin(async move {
            self.0.notified().await;
            Err(ClassifierError::new(format!(
                "released after {} questions",
                questions.len()
            )))
        })
    }
}

fn pattern_config(url: &str, pattern: &str, classifier: Arc<dyn Classifier>) -> BusWorkerConfig {
    let mut bus = RedisBusConfig::new(url, pattern);
    bus.backoff_max = Duration::from_millis(300);
    BusWorkerConfig {
        bus,
        name: "ui".into(),
        runner: "hark-test-runner".into(),
        classifier: Some(classifier),
        respond: None,
        instruction: None,
        reply_tool: false,
        idle_timeout: Duration::from_secs(600),
    }
}

/// A voice side on one call's channel.
async fn voice_on(url: &str, channel: &str) -> (RedisBus, mpsc::Receiver<BusEvent>) {
    let mut c = RedisBusConfig::new(url, channel);
    c.job_timeout = Duration::from_secs(5);
    let (voice, mut events) = RedisBus::start(c).unwrap();
    voice.add_own_name("voice");
    voice.add_own_name("runner-voice");
    assert_eq!(next(&mut events).await, None, "connected first");
    (voice, events)
}

fn page(button: &str) -> WireMessage {
    WireMessage::UiEvent(UiEventMessage {
        source: "voice".into(),
        target: None,
        event_name: "__ui_snapshot".into(),
        payload: json!({"root": {"ref": "e1", "role": "generic", "children": [
            {"ref": "e2", "role": "button", "name": button}]},
            "captured_at": 1767225600000u64}),
    })
}

async fn list(voice: &RedisBus, id: &str) -> JobReply {
    let job = JobRequest::new(id, "voice", "ui", "screen", json!({"action": "list"}));
    Transport::request(voice, job.clone(), JobUpdates::discard(&job)).await
}

fn listed(button: &str) -> JobReply {
    JobReply::Response(JobResponse::completed(json!({"elements": [
        {"role": "button", "name": button, "state": [], "value": null}]})))
}

fn held_find(id: &str) -> WireMessage {
    BusMessage::JobRequest(JobRequest::new(
        id,
        "voice",
        "ui",
        "screen",
        json!({"action": "find", "target": "pay"}),
    ))
    .into()
}

/// The registry the worker announced on this channel.
async fn registry(events: &mut mpsc::Receiver<BusEvent>) {
    match next_message(events).await {
        WireMessage::Registry(r) => assert_eq!(r.worker_names().collect::<Vec<_>>(), ["ui"]),
        other => panic!("the worker's registry, got {other:?}"),
    }
}

async fn cancelled(events: &mut mpsc::Receiver<BusEvent>, id: &str) {
    match next_message(events).await {
        WireMessage::Job(BusMessage::JobResult(r)) => {
            assert_eq!((r.job_id.as_str(), r.status), (id, JobStatus::Cancelled));
        }
        other => panic!("{id} answered cancelled, got {other:?}"),
    }
}

async fn quiet(events: &mut mpsc::Receiver<BusEvent>, ms: u64) {
    let got = tokio::time::timeout(Duration::from_millis(ms), events.recv()).await;
    assert!(got.is_err(), "nothing more, got {got:?}");
}

#[tokio::test]
async fn a_channel_pattern_runs_one_worker_per_call_and_an_end_stops_only_that_call() {
    let Some(url) = redis_url("a_channel_pattern_runs_one_worker_per_call") else {
        return;
    };
    let prefix = test_support::channel("hark-test:calls", "pattern");
    let config = pattern_config(&url, &format!("{prefix}:call:*"), Arc::new(Stuck));
    let (stop, stopped) = oneshot::channel::<()>();
    let worker = tokio::spawn(run(config, async {
        let _ = stopped.await;
    }));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (a, mut a_events) = voice_on(&url, &format!("{prefix}:call:a")).await;
    let (b, mut b_events) = voice_on(&url, &format!("{prefix}:call:b")).await;

    // Each call's first message makes its worker, which announces itself on that channel.
    a.publish(&page("Pay A")).await.unwrap();
    registry(&mut a_events).await;
    b.publish(&page("Pay B")).await.unwrap();
    registry(&mut b_events).await;
    // Each worker keeps its own call's snapshot and answers on its own channel.
    assert_eq!(list(&a, "j-a1").await, listed("Pay A"));
    assert_eq!(list(&b, "j-b1").await, listed("Pay B"));

    // The end of call a: its held job answered cancelled, call b untouched.
    a.publish(&held_find("j-a-held")).await.unwrap();
    b.publish(&held_find("j-b-held")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.publish(&WireMessage::End(Shutdown {
        source: "voice".into(),
        target: None,
        reason: Some("call over".into()),
    }))
    .await
    .unwrap();
    cancelled(&mut a_events, "j-a-held").await;
    assert_eq!(list(&b, "j-b2").await, listed("Pay B"));
    quiet(&mut b_events, 200).await;

    // A later message on a makes a fresh worker: it announces itself and has no snapshot yet.
    a.publish(&page("Pay A again")).await.unwrap();
    registry(&mut a_events).await;
    assert_eq!(list(&a, "j-a2").await, listed("Pay A again"));

    // The process ends on its signal, answering b's held job cancelled.
    let _ = stop.send(());
    cancelled(&mut b_events, "j-b-held").await;
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(5), worker)
            .await
            .unwrap()
            .unwrap()
            .unwrap(),
        Ended::Signal
    );
}

#[tokio::test]
async fn an_idle_call_is_dropped_with_its_held_jobs_answered_cancelled() {
    let Some(url) = redis_url("an_idle_call_is_dropped") else {
        return;
    };
    let prefix = test_support::channel("hark-test:calls", "idle");
    let mut config = pattern_config(&url, &format!("{prefix}:call:*"), Arc::new(Stuck));
    config.idle_timeout = Duration::from_millis(800);
    let (stop, stopped) = oneshot::channel::<()>();
    let worker = tokio::spawn(run(config, async {
        let _ = stopped.await;
    }));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (a, mut a_events) = voice_on(&url, &format!("{prefix}:call:a")).await;
    a.publish(&page("Pay")).await.unwrap();
    registry(&mut a_events).await;
    a.publish(&held_find("j-idle")).await.unwrap();
    // Silent from here: dropped after the timeout, its held job answered cancelled.
    cancelled(&mut a_events, "j-idle").await;
    // Its snapshot went with it: a new worker on the next message has none.
    a.publish(&WireMessage::Registry(hark_bus::wire::WorkerRegistry {
        source: "runner-voice".into(),
        target: None,
        runner: "runner-voice".into(),
        workers: vec![],
    }))
    .await
    .unwrap();
    registry(&mut a_events).await;
    assert_ne!(list(&a, "j-after").await, listed("Pay"));
    let _ = stop.send(());
    worker.await.unwrap().unwrap();
}

#[tokio::test]
async fn redis_restarted_mid_job_the_requester_errors_by_its_timeout_once_and_the_worker_rejoins() {
    let Some(mut server) = test_support::OwnRedis::start("redis_restarted_mid_job") else {
        return;
    };
    let url = server.url();
    let gate = Arc::new(tokio::sync::Notify::new());
    let channel = test_support::channel("hark-test:worker", "restart");
    let mut config = pattern_config(&url, &channel, Arc::new(Gate(gate.clone())));
    config.bus.channel = channel.clone();
    let (stop, stopped) = oneshot::channel::<()>();
    let mut c = RedisBusConfig::new(&url, &channel);
    c.job_timeout = Duration::from_millis(1500);
    c.backoff_max = Duration::from_millis(300);
    let (voice, mut events) = RedisBus::start(c).unwrap();
    voice.add_own_name("voice");
    assert_eq!(next(&mut events).await, None, "connected first");
    let worker = tokio::spawn(run(config, async {
        let _ = stopped.await;
    }));
    registry(&mut events).await;
    voice.publish(&snapshot()).await.unwrap();

    // A find the gated classifier holds; Redis dies while the worker holds it.
    let job = JobRequest::new(
        "j-mid",
        "voice",
        "ui",
        "screen",
        json!({"action": "find", "target": "the checkout button"}),
    );
    let pending = {
        let voice = voice.clone();
        let job = job.clone();
        tokio::spawn(async move {
            Transport::request(&voice, job.clone(), JobUpdates::discard(&job)).await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.kill();
    // The requester's answer: its timeout's error, and only that.
    let reply = pending.await.unwrap();
    let JobReply::Response(r) = reply else {
        panic!("an answer")
    };
    assert_eq!(r.status, JobStatus::Error);
    assert_eq!(
        r.response.unwrap()["error"],
        format!(
            "the worker ui did not answer the screen job within 1.5 s on Redis channel {channel}: \
             check that Redis runs and that a worker named ui is on the channel"
        )
    );

    // Redis is back: the worker rejoins and announces itself again.
    server.restart();
    assert_eq!(next(&mut events).await, None, "the voice side reconnected");
    registry(&mut events).await;
    // The held job's answer now comes late (the classifier is released): it reaches nobody as
    // a reply; the requester was answered once, by its timeout.
    gate.notify_waiters();
    voice.publish(&snapshot()).await.unwrap();
    let reply = list(&voice, "j-next").await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::completed(json!({"elements": [
            {"role": "button", "name": "Checkout", "state": [], "value": null},
            {"role": "checkbox", "name": "Gift wrap", "state": [], "value": null}]})))
    );
    // At most the one late answer for j-mid, never two.
    let mut late = 0;
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(500), events.recv()).await
    {
        if let BusEvent::Message(WireMessage::Job(BusMessage::JobResult(r))) = event {
            assert_eq!(r.job_id, "j-mid");
            late += 1;
        }
    }
    assert!(late <= 1, "{late} late answers");
    let _ = stop.send(());
    worker.await.unwrap().unwrap();
}

/// `--respond-model` without `OPENAI_API_KEY` is said when the worker starts (a new user's first
/// respond job failed with OpenAI's HTTP 401, the worker silent until then). Needs no Redis.
#[tokio::test]
async fn a_respond_model_without_a_key_is_warned_of_at_start() {
    // SAFETY of the test: no other test of this binary reads OPENAI_API_KEY.
    if std::env::var_os("OPENAI_API_KEY").is_some() {
        eprintln!("skipped: OPENAI_API_KEY is set in this environment");
        return;
    }
    let (logs, _guard) = test_support::capture_logs(tracing::Level::WARN);
    let cli = hark_server::cli::parse_from([
        "hark",
        "worker",
        "--bus",
        "redis://127.0.0.1:1",
        "--respond-model",
        "gpt-4.1-mini",
        "--no-classifier",
    ])
    .unwrap();
    let hark_server::cli::Command::Worker(args) = cli.command else {
        panic!("the worker command")
    };
    let config = hark_server::bus_worker::cli::config(&args).await;
    assert!(config.respond.is_some());
    assert!(
        logs.text().contains(
            "--respond-model gpt-4.1-mini: OPENAI_API_KEY is not set, so respond jobs go to https://api.openai.com/v1 without a key, which OpenAI refuses (HTTP 401). Set OPENAI_API_KEY, or point --llm-base-url at a server that needs none."
        ),
        "{}",
        logs.text()
    );
}

/// A `respond` job to a worker started without `--respond-model` says which flag serves it.
#[tokio::test]
async fn a_respond_job_without_a_respond_model_names_the_flag() {
    let Some(url) = redis_url("a_respond_job_without_a_respond_model") else {
        return;
    };
    let mut h = start(
        &url,
        "no-respond",
        Arc::new(hark_classify::LocalClassifier::new()),
    )
    .await;
    h.ready().await;
    let job = JobRequest::new("j-r", "voice", "ui", "respond", json!({"query": "hi"}));
    let reply = Transport::request(&h.voice, job.clone(), JobUpdates::discard(&job)).await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::error(
            "this worker answers respond jobs only when started with --respond-model MODEL (an OpenAI-compatible model; key from OPENAI_API_KEY); it serves screen jobs."
        ))
    );
    assert_eq!(h.end().await, Ended::Signal);
}
