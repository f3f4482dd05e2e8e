//! The Redis bus against a real `redis-server`: the envelope both ways, echoes, unknown and
//! oversized messages, jobs with updates, and a Redis restart mid-job.
//!
//! They need `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it); without it
//! each test prints why it skipped, except under `CI=true`, where a missing server fails.
//! The restart test starts its own `redis-server` (from `PATH`) so it restarts nobody else's.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hark_bus::redis_bus::BusEvent;
use hark_bus::wire::{UiEventMessage, WireMessage};
use hark_bus::{
    BusMessage, JobReply, JobRequest, JobResponse, JobUpdates, RedisBus, RedisBusConfig, Transport,
};
use hark_rtvi::JobStatus;
use redis::AsyncCommands;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The test server's URL, or `None` (with the reason printed) when a developer runs without
/// one. Under CI a missing server is a failure.
fn redis_url(test: &str) -> Option<String> {
    match std::env::var("HARK_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "HARK_TEST_REDIS_URL is not set under CI: scripts/test.sh starts redis-server and sets it"
            );
            eprintln!(
                "skipping {test}: HARK_TEST_REDIS_URL is not set (scripts/test.sh starts a redis-server and sets it)"
            );
            None
        }
    }
}

/// A channel no other test uses.
fn channel(test: &str) -> String {
    format!("hark-test:{test}:{}", std::process::id())
}

fn config(url: &str, channel: &str) -> RedisBusConfig {
    let mut c = RedisBusConfig::new(url, channel);
    c.job_timeout = Duration::from_secs(5);
    c
}

/// Waits for the next event that is not `Connected`.
async fn next_message(rx: &mut mpsc::Receiver<BusEvent>) -> WireMessage {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            Ok(Some(BusEvent::Message(m))) => return m,
            Ok(Some(BusEvent::Connected)) => continue,
            Ok(None) => panic!("the bus stopped"),
            Err(_) => panic!("no message within 5 s"),
        }
    }
}

async fn connected(rx: &mut mpsc::Receiver<BusEvent>) {
    match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        Ok(Some(BusEvent::Connected)) => {}
        other => panic!("expected Connected, got {other:?}"),
    }
}

/// A raw Redis connection that publishes bytes as a Python peer would.
async fn raw(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

fn snapshot_event(source: &str, note: &str) -> WireMessage {
    WireMessage::UiEvent(UiEventMessage {
        source: source.into(),
        target: None,
        event_name: "__ui_snapshot".into(),
        payload: json!({"root": {"role": "document", "ref": "e1", "name": note}}),
    })
}

#[tokio::test]
async fn the_envelope_travels_both_ways_as_pipecat_writes_it() {
    let Some(url) = redis_url("the_envelope_travels_both_ways_as_pipecat_writes_it") else {
        return;
    };
    let ch = channel("envelope");
    let (bus, mut rx) = RedisBus::start(config(&url, &ch)).unwrap();
    connected(&mut rx).await;

    // In: pipecat's own bytes (with its per-process id and name), decoded.
    let mut conn = raw(&url).await;
    let pipecat = r#"{"__type__":"pipecat.bus.messages.BusJobRequestMessage","__data__":{"id":0,"name":"BusJobRequestMessage#0","source":"voice","target":"ui","job_id":"6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22","job_name":"screen","payload":{"action":"find","target":"the checkout button"}}}"#;
    let _: i64 = conn.publish(&ch, pipecat).await.unwrap();
    assert_eq!(
        next_message(&mut rx).await,
        WireMessage::Job(BusMessage::JobRequest(JobRequest::new(
            "6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22",
            "voice",
            "ui",
            "screen",
            json!({"action": "find", "target": "the checkout button"}),
        )))
    );

    // Out: the exact bytes a pipecat peer reads.
    let mut sub = redis::Client::open(url.as_str())
        .unwrap()
        .get_async_pubsub()
        .await
        .unwrap();
    sub.subscribe(&ch).await.unwrap();
    let mut stream = sub.into_on_message();
    let answer = WireMessage::Job(BusMessage::JobResult(hark_bus::JobResult {
        source: "ui".into(),
        target: "voice".into(),
        job_id: "6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22".into(),
        status: JobStatus::Completed,
        response: Some(json!({"label": "Checkout", "confidence": 0.93})),
    }));
    bus.publish(&answer).await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        std::str::from_utf8(got.get_payload_bytes()).unwrap(),
        r#"{"__type__":"pipecat.bus.messages.BusJobResponseMessage","__data__":{"source":"ui","target":"voice","job_id":"6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22","status":"completed","response":{"label":"Checkout","confidence":0.93}}}"#
    );
}

#[tokio::test]
async fn own_echoes_unknown_classes_and_garbage_are_dropped() {
    let Some(url) = redis_url("own_echoes_unknown_classes_and_garbage_are_dropped") else {
        return;
    };
    let ch = channel("drops");
    let (bus, mut rx) = RedisBus::start(config(&url, &ch)).unwrap();
    bus.add_own_name("ui");
    connected(&mut rx).await;
    let mut conn = raw(&url).await;

    // Our own publish comes back from Redis and is dropped.
    bus.publish(&snapshot_event("ui", "echo")).await.unwrap();
    // Pipecat's bridged frames, a made-up class and bytes that are not JSON: ignored.
    for other in [
        r#"{"__type__":"pipecat.bus.messages.BusFrameMessage","__data__":{"source":"voice","frame":{"__type__":"pipecat.frames.frames.TextFrame","__data__":{"text":"hi"}}}}"#,
        r#"{"__type__":"hark.Foo","__data__":{"source":"voice"}}"#,
        "not json at all",
        r#"{"__type__":"pipecat.bus.messages.BusJobRequestMessage","__data__":{"source":3}}"#,
    ] {
        let _: i64 = conn.publish(&ch, other).await.unwrap();
    }
    // The first message that passes is the peer's.
    bus.publish(&snapshot_event("voice", "peer")).await.unwrap();
    assert_eq!(next_message(&mut rx).await, snapshot_event("voice", "peer"));
}

/// Log lines written while a test runs, to pin what a dropped message logs.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_10_mb_message_is_dropped_with_a_log_line_and_the_bus_keeps_reading() {
    let Some(url) =
        redis_url("a_10_mb_message_is_dropped_with_a_log_line_and_the_bus_keeps_reading")
    else {
        return;
    };
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let ch = channel("large");
    let (bus, mut rx) = RedisBus::start(config(&url, &ch)).unwrap();
    connected(&mut rx).await;
    let big = snapshot_event("voice", &"x".repeat(10 * 1024 * 1024));
    let bytes = big.encode();
    let mut conn = raw(&url).await;
    let _: i64 = conn.publish(&ch, bytes.as_slice()).await.unwrap();
    bus.publish(&snapshot_event("voice", "small"))
        .await
        .unwrap();
    assert_eq!(
        next_message(&mut rx).await,
        snapshot_event("voice", "small")
    );

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = format!(
        "a bus message of {} bytes on Redis channel {ch} is larger than the limit of 4194304 bytes: it was dropped; send less (a smaller snapshot or payload) or raise the limit",
        bytes.len()
    );
    assert!(log.contains(&line), "log: {log}");

    // Out: refused before it reaches Redis, with the same text.
    let err = bus.publish(&big).await.unwrap_err();
    assert_eq!(err.to_string(), line);
}

/// A worker that answers `{"echo": payload}` after one update, over its own bus.
fn spawn_echo_worker(bus: RedisBus, mut rx: mpsc::Receiver<BusEvent>, answers: usize) {
    tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            let BusEvent::Message(WireMessage::Job(BusMessage::JobRequest(job))) = event else {
                continue;
            };
            let update = BusMessage::JobUpdate(hark_bus::JobUpdate {
                source: job.target.clone(),
                target: job.source.clone(),
                job_id: job.job_id.clone(),
                data: json!({"step": 1}),
            });
            bus.publish(&update.into()).await.unwrap();
            for _ in 0..answers {
                let answer = BusMessage::JobResult(hark_bus::JobResult {
                    source: job.target.clone(),
                    target: job.source.clone(),
                    job_id: job.job_id.clone(),
                    status: JobStatus::Completed,
                    response: Some(json!({"echo": job.payload})),
                });
                bus.publish(&answer.into()).await.unwrap();
            }
        }
    });
}

#[tokio::test]
async fn a_job_over_redis_gets_its_update_and_one_answer() {
    let Some(url) = redis_url("a_job_over_redis_gets_its_update_and_one_answer") else {
        return;
    };
    let ch = channel("job");
    let (worker_bus, mut worker_rx) = RedisBus::start(config(&url, &ch)).unwrap();
    worker_bus.add_own_name("ui");
    connected(&mut worker_rx).await;
    // The worker answers twice; the requester takes the first and forgets the job.
    spawn_echo_worker(worker_bus, worker_rx, 2);

    let (requester, mut events) = RedisBus::start(config(&url, &ch)).unwrap();
    connected(&mut events).await;
    let job = JobRequest::new("j-1", "voice", "ui", "screen", json!({"action": "list"}));
    let (tx, mut updates) = mpsc::unbounded_channel();
    let reply = Transport::request(&requester, job.clone(), JobUpdates::new(&job, tx)).await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::completed(json!({"echo": {"action": "list"}})))
    );
    match updates.try_recv().unwrap() {
        BusMessage::JobUpdate(u) => assert_eq!(u.data, json!({"step": 1})),
        other => panic!("an update, got {other:?}"),
    }
    // The second answer reaches the requester's reader as a plain message, not a reply.
    match next_message(&mut events).await {
        WireMessage::Job(BusMessage::JobResult(r)) => assert_eq!(r.job_id, "j-1"),
        other => panic!("the late answer, got {other:?}"),
    }
}

/// A `redis-server` of this test's own on a free port, restartable.
struct OwnRedis {
    port: u16,
    child: Option<Child>,
}

impl OwnRedis {
    fn start(port: u16) -> OwnRedis {
        let mut r = OwnRedis { port, child: None };
        r.restart();
        r
    }

    fn restart(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on PATH (scripts/test.sh installs it)");
        self.child = Some(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not listen on {}", self.port);
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test]
async fn a_redis_restart_fails_the_job_by_its_timeout_and_the_bus_rejoins() {
    if redis_url("a_redis_restart_fails_the_job_by_its_timeout_and_the_bus_rejoins").is_none() {
        return;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = OwnRedis::start(port);
    let ch = channel("restart");
    let mut cfg = config(&server.url(), &ch);
    cfg.job_timeout = Duration::from_millis(1500);
    cfg.backoff_max = Duration::from_millis(400);
    let (worker_bus, mut worker_rx) = RedisBus::start(cfg.clone()).unwrap();
    worker_bus.add_own_name("ui");
    connected(&mut worker_rx).await;
    let (requester, mut req_events) = RedisBus::start(cfg.clone()).unwrap();
    connected(&mut req_events).await;

    // A job whose worker never hears it: Redis goes away right after the request.
    let (seen_tx, mut seen) = mpsc::unbounded_channel::<Value>();
    let job = JobRequest::new("j-lost", "voice", "ui", "screen", json!({"action": "list"}));
    let started = tokio::time::Instant::now();
    let pending = {
        let requester = requester.clone();
        let job = job.clone();
        tokio::spawn(async move {
            Transport::request(&requester, job.clone(), JobUpdates::discard(&job)).await
        })
    };
    // Let the request out, then kill Redis before anyone answers.
    match tokio::time::timeout(Duration::from_secs(5), worker_rx.recv()).await {
        Ok(Some(BusEvent::Message(WireMessage::Job(BusMessage::JobRequest(j))))) => {
            let _ = seen_tx.send(j.payload);
        }
        other => panic!("the worker sees the request first, got {other:?}"),
    }
    server.kill();
    let reply = pending.await.unwrap();
    let waited = started.elapsed();
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::error(
            "the worker ui did not answer the screen job within 1.5 s on Redis channel \
             hark-test:restart:"
                .to_owned()
                + &std::process::id().to_string()
                + ": check that Redis runs and that a worker named ui is on the channel"
        ))
    );
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_secs(4),
        "{waited:?}"
    );
    assert_eq!(seen.try_recv().unwrap(), json!({"action": "list"}));
    // While Redis is away a new job fails at once, saying so.
    let job2 = JobRequest::new("j-away", "voice", "ui", "screen", json!({}));
    let JobReply::Response(away) =
        Transport::request(&requester, job2.clone(), JobUpdates::discard(&job2)).await
    else {
        panic!("an answer")
    };
    assert_eq!(away.status, JobStatus::Error);
    let text = away.response.unwrap()["error"].as_str().unwrap().to_owned();
    assert!(
        text.starts_with(
            "the screen job for the worker ui was not sent: the bus is not connected to Redis at "
        ),
        "{text}"
    );

    // Redis is back: both buses reconnect and a job goes through.
    server.restart();
    connected(&mut worker_rx).await;
    connected(&mut req_events).await;
    spawn_echo_worker(worker_bus, worker_rx, 1);
    let job3 = JobRequest::new("j-back", "voice", "ui", "screen", json!({"n": 3}));
    let reply = Transport::request(&requester, job3.clone(), JobUpdates::discard(&job3)).await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::completed(json!({"echo": {"n": 3}})))
    );
}
