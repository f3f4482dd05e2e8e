//! The Redis bus against a real `redis-server`: the envelope both ways, echoes, unknown and
//! oversized messages, jobs with updates, one job id on two channels of a pattern bus, and a
//! Redis restart mid-job.
//!
//! They need `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it); without it
//! each test prints why it skipped, except under `CI=true`, where a missing server fails.
//! The restart test starts its own `redis-server` (from `PATH`) so it restarts nobody else's.
//! The setup is `hark_bus::test_support`'s, shared with hark-server's bus worker tests.

use std::time::Duration;

use futures::StreamExt;
use hark_bus::redis_bus::{BusEvent, ChannelEvent};
use hark_bus::test_support::{self, OwnRedis, redis_url};
use hark_bus::wire::{UiEventMessage, WireMessage};
use hark_bus::{
    BusMessage, JobReply, JobRequest, JobResponse, JobUpdates, RedisBus, RedisBusConfig, Transport,
};
use hark_rtvi::JobStatus;
use redis::AsyncCommands;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A channel no other test uses.
fn channel(test: &str) -> String {
    test_support::channel("hark-test", test)
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

#[tokio::test]
async fn a_10_mb_message_is_dropped_with_a_log_line_and_the_bus_keeps_reading() {
    let Some(url) =
        redis_url("a_10_mb_message_is_dropped_with_a_log_line_and_the_bus_keeps_reading")
    else {
        return;
    };
    let (captured, _guard) = test_support::capture_logs(tracing::Level::INFO);

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

    let log = captured.text();
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

#[tokio::test]
async fn a_redis_restart_fails_the_job_by_its_timeout_and_the_bus_rejoins() {
    let Some(mut server) =
        OwnRedis::start("a_redis_restart_fails_the_job_by_its_timeout_and_the_bus_rejoins")
    else {
        return;
    };
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
        JobReply::Response(JobResponse::error_of_kind(
            "the worker ui did not answer the screen job within 1.5 s on Redis channel \
             hark-test:restart:"
                .to_owned()
                + &std::process::id().to_string()
                + ": check that Redis runs and that a worker named ui is on the channel",
            "timeout"
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
    let away = away.response.unwrap();
    assert_eq!(away["kind"], "unreachable");
    let text = away["error"].as_str().unwrap().to_owned();
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

#[tokio::test]
async fn a_pattern_bus_reads_every_matching_channel_on_one_connection_and_answers_on_each() {
    let Some(url) = redis_url("a_pattern_bus_reads_every_matching_channel") else {
        return;
    };
    let prefix = channel("pattern");
    let cfg = config(&url, &format!("{prefix}:call:*"));
    let (bus, mut rx) = RedisBus::start_pattern(cfg).unwrap();
    bus.add_own_name("ui");
    match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        Ok(Some(ChannelEvent::Connected)) => {}
        other => panic!("expected Connected, got {other:?}"),
    }
    let (a, b) = (format!("{prefix}:call:a"), format!("{prefix}:call:b"));
    let mut conn = raw(&url).await;
    let _: i64 = conn
        .publish(&a, snapshot_event("voice", "page a").encode())
        .await
        .unwrap();
    let _: i64 = conn
        .publish(&b, snapshot_event("voice", "page b").encode())
        .await
        .unwrap();
    // A channel outside the pattern is not read.
    let _: i64 = conn
        .publish(
            format!("{prefix}:other"),
            snapshot_event("voice", "x").encode(),
        )
        .await
        .unwrap();
    let mut got = Vec::new();
    for _ in 0..2 {
        match tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            Ok(Some(ChannelEvent::Message { channel, message })) => got.push((channel, *message)),
            other => panic!("a message, got {other:?}"),
        }
    }
    assert_eq!(
        got,
        [
            (a.clone(), snapshot_event("voice", "page a")),
            (b.clone(), snapshot_event("voice", "page b"))
        ]
    );

    // Each channel's registry is its own: a worker known on b is not known on a.
    let registry = hark_bus::wire::WorkerRegistry {
        source: "runner-b".into(),
        target: None,
        runner: "runner-b".into(),
        workers: vec![hark_bus::wire::RegistryEntry::Entry(
            hark_bus::wire::WorkerRegistryEntry {
                name: "helper".into(),
                parent: None,
                active: true,
                bridged: false,
                started_at: None,
            },
        )],
    };
    let _: i64 = conn
        .publish(&b, WireMessage::Registry(registry).encode())
        .await
        .unwrap();
    assert!(matches!(
        tokio::time::timeout(Duration::from_secs(5), rx.recv()).await,
        Ok(Some(ChannelEvent::Message { channel, .. })) if channel == b
    ));
    assert!(bus.has_worker_on(&b, "helper"));
    assert!(!bus.has_worker_on(&a, "helper"));
    assert!(Transport::has_worker(&bus.on_channel(b.clone()), "helper"));
    bus.forget_channel(&b);
    assert!(!bus.has_worker_on(&b, "helper"));

    // A job on channel a through the channel's transport: sent on a, answered on a.
    let (peer, mut peer_rx) = RedisBus::start(config(&url, &a)).unwrap();
    peer.add_own_name("helper");
    connected(&mut peer_rx).await;
    spawn_echo_worker(peer, peer_rx, 1);
    let job = JobRequest::new("j-a", "ui", "helper", "screen", json!({"on": "a"}));
    let reply = Transport::request(
        &bus.on_channel(a.clone()),
        job.clone(),
        JobUpdates::discard(&job),
    )
    .await;
    assert_eq!(
        reply,
        JobReply::Response(JobResponse::completed(json!({"echo": {"on": "a"}})))
    );
}

#[tokio::test]
async fn one_job_id_running_on_two_channels_of_a_pattern_bus_gets_each_channels_answer() {
    let Some(url) = redis_url("one_job_id_running_on_two_channels_of_a_pattern_bus") else {
        return;
    };
    let prefix = channel("same-id");
    let (bus, mut rx) = RedisBus::start_pattern(config(&url, &format!("{prefix}:*"))).unwrap();
    match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        Ok(Some(ChannelEvent::Connected)) => {}
        other => panic!("expected Connected, got {other:?}"),
    }
    // A worker on each channel, each echoing what it was asked.
    let (a, b) = (format!("{prefix}:a"), format!("{prefix}:b"));
    for ch in [&a, &b] {
        let (peer, mut peer_rx) = RedisBus::start(config(&url, ch)).unwrap();
        peer.add_own_name("ui");
        connected(&mut peer_rx).await;
        spawn_echo_worker(peer, peer_rx, 1);
    }
    // Two sessions' requesters may both call their first job "voice-respond-1".
    let ask = |ch: String, page: &'static str| {
        let bus = bus.clone();
        async move {
            let job = JobRequest::new(
                "voice-respond-1",
                "voice",
                "ui",
                "respond",
                json!({"page": page}),
            );
            Transport::request(&bus.on_channel(ch), job.clone(), JobUpdates::discard(&job)).await
        }
    };
    let (on_a, on_b) = tokio::join!(ask(a, "a"), ask(b, "b"));
    assert_eq!(
        on_a,
        JobReply::Response(JobResponse::completed(json!({"echo": {"page": "a"}})))
    );
    assert_eq!(
        on_b,
        JobReply::Response(JobResponse::completed(json!({"echo": {"page": "b"}})))
    );
}

#[tokio::test]
async fn an_unknown_class_is_logged_once_by_its_class_without_its_payload() {
    let Some(url) = redis_url("an_unknown_class_is_logged_once") else {
        return;
    };
    let (captured, _guard) = test_support::capture_logs(tracing::Level::DEBUG);
    let ch = channel("unknown-once");
    let (bus, mut rx) = RedisBus::start(config(&url, &ch)).unwrap();
    connected(&mut rx).await;
    let mut conn = raw(&url).await;
    for n in 0..3 {
        let text = format!(
            r#"{{"__type__":"pipecat.bus.messages.BusFrameMessage","__data__":{{"source":"voice","frame":"secret-payload-{n}"}}}}"#
        );
        let _: i64 = conn.publish(&ch, text).await.unwrap();
    }
    bus.publish(&snapshot_event("voice", "after"))
        .await
        .unwrap();
    assert_eq!(
        next_message(&mut rx).await,
        snapshot_event("voice", "after")
    );
    let log = captured.text();
    let line = "ignored a bus message of class pipecat.bus.messages.BusFrameMessage, which Hark does not read (said once per class; later ones are ignored quietly)";
    assert_eq!(log.matches(line).count(), 1, "log: {log}");
    assert!(!log.contains("secret-payload"), "log: {log}");
}
