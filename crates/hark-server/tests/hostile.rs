//! Hostile input against a real server on loopback, with tokio-tungstenite
//! clients and raw TCP: a client sending 10,000 messages a second, one flooding for long, one
//! that never reads, one opening 10,000 connections, and the per-session limits (snapshot size,
//! depth and node count) end to end. Each test asserts the behaviour; the figures it prints
//! (`eprintln!`, run with `--nocapture`) are recorded in docs/RELIABILITY.md, not asserted.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;
use futures::{SinkExt, StreamExt};
use hark_rtvi::frame::decode_frame;
use hark_server::{
    CloseCause, ServerConfig, SessionEventKind, SessionId, UiHandlerFactory, UiSessionConfig,
    messages,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// The load tests below run one at a time: each measures a figure, and on a 2-core machine
/// running them side by side starves every server's tasks (a 1 s header timeout then drops
/// complete requests that were not read in time).
static HEAVY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn local_config() -> ServerConfig {
    ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
}

/// The process's resident set size, in KiB (Linux `/proc/self/status`).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// p50 and p99 of `samples`, in ms.
fn percentiles(samples: &mut [Duration]) -> (f64, f64) {
    if samples.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
}

/// A `client-message` ping with id `id`.
fn ping(id: &str) -> Message {
    frame(&envelope(
        "client-message",
        id,
        json!({"t": "ping", "d": 1}),
    ))
}

/// One ping round trip on a well-behaved session: the `server-response` with the same id.
async fn round_trip(ws: &mut Ws, id: &str) -> Duration {
    let start = Instant::now();
    ws.send(ping(id)).await.expect("send");
    let reply = recv_json(ws).await;
    assert_eq!(
        (reply["type"].as_str(), reply["id"].as_str()),
        (Some("server-response"), Some(id)),
        "{reply}"
    );
    start.elapsed()
}

/// Round trips every 20 ms (50 a second, well under the rate limit) while `running` holds, at
/// least `min` of them.
async fn round_trips(ws: &mut Ws, tag: &str, min: usize, running: &AtomicBool) -> Vec<Duration> {
    let mut tick = tokio::time::interval(Duration::from_millis(20));
    let mut out = Vec::new();
    let mut n = 0;
    while out.len() < min || running.load(Ordering::Relaxed) {
        tick.tick().await;
        out.push(round_trip(ws, &format!("{tag}{n}")).await);
        n += 1;
    }
    out
}

/// The RTVI JSON of a binary server message, or `None` for other frames.
fn json_of(msg: &Message) -> Option<Value> {
    let Message::Binary(bytes) = msg else {
        return None;
    };
    let frame = decode_frame(bytes).ok()?;
    serde_json::from_str(frame.message_json()?).ok()
}

/// A client sending 10,000 messages a second for 3 s: messages over the rate (200 a second,
/// bursts of 400) are dropped and counted, the client gets the rate error once, every message
/// is either answered or counted as dropped, the session stays open (the flood close is off
/// here), and a well-behaved session's round trips keep completing. Figures: the flood's rate,
/// the drops, and the other session's round trip p50/p99 without and during the flood.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_10000_messages_a_second_is_throttled_and_others_stay_responsive() {
    let _one_at_a_time = HEAVY.lock().await;
    const BATCHES: usize = 300;
    const PER_BATCH: usize = 100; // every 10 ms: 10,000 a second for 3 s
    let server = TestServer::start(ServerConfig {
        flood_close_after: Duration::ZERO,
        // One rate error for the whole test, even on a slow machine.
        error_repeat_window: Duration::from_secs(3600),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut good = connect(&server).await;
    handshake(&mut good, "g0").await;
    wait_ready(&mut events).await;
    let idle = AtomicBool::new(false);
    let mut base = round_trips(&mut good, "base", 100, &idle).await;

    let mut flood = connect(&server).await;
    handshake(&mut flood, "f0").await;
    let flood_id = wait_ready(&mut events).await;
    let (mut sink, mut stream) = flood.split();
    // The flooding client reads everything: rate errors and answers, until it gets the answer
    // to one of the "after" pings sent once the flood is over.
    let reader = tokio::spawn(async move {
        let (mut errors, mut answers) = (Vec::new(), 0u64);
        while let Some(Ok(msg)) = stream.next().await {
            let Some(json) = json_of(&msg) else { continue };
            match json["type"].as_str() {
                Some("error") => errors.push(json["data"]["error"].as_str().unwrap().to_owned()),
                Some("server-response") => {
                    if json["id"].as_str().unwrap().starts_with("after") {
                        return (errors, answers, stream);
                    }
                    answers += 1;
                }
                _ => {}
            }
        }
        panic!("the flooding session ended: errors {errors:?}, answers {answers}");
    });
    let flooding = Arc::new(AtomicBool::new(true));
    let flag = flooding.clone();
    let start = Instant::now();
    let writer = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        for b in 0..BATCHES {
            tick.tick().await;
            for i in 0..PER_BATCH {
                sink.feed(ping(&format!("f{b}-{i}")))
                    .await
                    .expect("flood send");
            }
            sink.flush().await.expect("flood flush");
        }
        flag.store(false, Ordering::Relaxed);
        sink
    });
    let mut during = round_trips(&mut good, "during", 20, &flooding).await;
    let mut sink = writer.await.unwrap();
    let flood_time = start.elapsed();
    // The flood is over. The bucket refills at 200 a second: after 2.5 s it is full again (a
    // time the limiter defines, not a wait for an event), so the next message gets through.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    sink.send(ping("after")).await.expect("send");
    let (errors, answers, stream) = tokio::time::timeout(STEP, reader)
        .await
        .expect("the flooding session answers again after the flood")
        .unwrap();
    let dropped = server
        .sessions
        .stats(flood_id)
        .expect("still open")
        .messages_rate_limited;
    let sent = (BATCHES * PER_BATCH) as u64;

    assert_eq!(
        errors,
        [messages::message_rate_exceeded(200, 400)],
        "one rate error, naming the limit"
    );
    assert!(dropped > 0, "messages over the rate are dropped");
    // Nothing lost silently: each flood message was answered or counted as dropped.
    assert_eq!(
        answers + dropped,
        sent,
        "answers {answers} + dropped {dropped}"
    );
    let mut ws = sink.reunite(stream).unwrap();
    assert_alive(&mut ws, "alive").await;

    let (b50, b99) = percentiles(&mut base);
    let (d50, d99) = percentiles(&mut during);
    eprintln!(
        "FIGURE flood: {sent} messages in {:.2} s ({:.0}/s); answered {answers}, dropped {dropped}; \
         other session round trip p50/p99 idle {b50:.2}/{b99:.2} ms ({} samples), during the \
         flood {d50:.2}/{d99:.2} ms ({} samples)",
        flood_time.as_secs_f64(),
        sent as f64 / flood_time.as_secs_f64(),
        base.len(),
        during.len()
    );
    server.stop().await;
}

/// A client that keeps flooding (over 10 × the rate every second) for `flood_close_after` is
/// closed with 1008 and a reason naming the flood, and reads that close frame (the server
/// drains its input first); another session is not affected. Figure: time to the close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_flooding_for_long_is_closed_with_1008() {
    let _one_at_a_time = HEAVY.lock().await;
    let server = TestServer::start(ServerConfig {
        flood_close_after: Duration::from_secs(2),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut good = connect(&server).await;
    handshake(&mut good, "g0").await;
    let mut flood = connect(&server).await;
    handshake(&mut flood, "f0").await;
    let (mut sink, mut stream) = flood.split();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let start = Instant::now();
    let writer = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        let mut b = 0;
        while !flag.load(Ordering::Relaxed) {
            tick.tick().await;
            for i in 0..100 {
                if sink.feed(ping(&format!("f{b}-{i}"))).await.is_err() {
                    return;
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
            b += 1;
        }
    });
    let close = tokio::time::timeout(STEP, async {
        while let Some(msg) = stream.next().await {
            match msg {
                Ok(Message::Close(Some(f))) => return (u16::from(f.code), f.reason.to_string()),
                Ok(_) => continue,
                Err(e) => panic!("socket failed before the close frame: {e}"),
            }
        }
        panic!("no close frame")
    })
    .await
    .expect("closed in time");
    let after = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(
        close,
        (
            1008,
            messages::message_flood(200, 10, Duration::from_secs(2))
        )
    );
    let _ = tokio::time::timeout(STEP, writer).await;
    // Only the flooding session closes, so the first close event is its.
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(cause) => Some(cause.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        cause,
        CloseCause::MessageFlood {
            per_sec: 200,
            after: Duration::from_secs(2),
        }
    );
    assert_alive(&mut good, "alive").await;
    eprintln!(
        "FIGURE flood close: closed with 1008 {:.2} s after the flood began (limit 2 s of over 2,000 a second)",
        after.as_secs_f64()
    );
    server.stop().await;
}

/// A client that never reads while the server has much to send (400 pings with 60 KB
/// payloads: 24 MB of answers): the session's queues stay at their bounds, the session is
/// closed by the keep-alive (no pong) or the write timeout, and another session is served
/// throughout. Figures: time to close, the test process's RSS before, at its peak and after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_closed_and_its_memory_bounded() {
    let _one_at_a_time = HEAVY.lock().await;
    let server = TestServer::start(ServerConfig {
        ping_interval: Duration::from_millis(500),
        pong_timeout: Duration::from_secs(1),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut good = connect(&server).await;
    handshake(&mut good, "g0").await;
    let good_id = wait_ready(&mut events).await;
    let rss_before = rss_kib();

    let mut bad = connect(&server).await;
    handshake(&mut bad, "b0").await;
    let bad_id = wait_ready(&mut events).await;
    let start = Instant::now();
    let payload = "p".repeat(60_000);
    let writer = tokio::spawn(async move {
        for n in 0..400 {
            let json = envelope(
                "client-message",
                &format!("b{n}"),
                json!({"t": "ping", "d": payload}),
            );
            if bad.send(frame(&json)).await.is_err() {
                break;
            }
        }
        // Hold the socket open without reading.
        std::future::pending::<()>().await;
    });

    let mut peak = rss_before;
    let mut high_water = 0;
    let mut during = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    let cause = tokio::time::timeout(STEP, async {
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(e) if e.session == bad_id => {
                        if let SessionEventKind::Closed(cause) = e.kind {
                            return cause;
                        }
                    }
                    _ => {}
                },
                _ = tick.tick() => {
                    // The other session is served meanwhile (reading also answers the
                    // server's keep-alive pings, as a browser does).
                    let rtt = round_trip(&mut good, &format!("g{}", during.len())).await;
                    during.push(rtt);
                    peak = peak.max(rss_kib());
                    if let Some(s) = server.sessions.stats(bad_id) {
                        assert!(s.outbound_len <= s.outbound_capacity, "{s:?}");
                        assert!(s.inbound_len <= s.inbound_capacity, "{s:?}");
                        high_water = high_water.max(s.outbound_high_water);
                    }
                }
            }
        }
    })
    .await
    .expect("the session that does not read is closed");
    let closed_after = start.elapsed();
    assert!(
        matches!(cause, CloseCause::PongTimeout { .. }),
        "closed for not reading: {cause:?}"
    );
    assert!(server.sessions.stats(bad_id).is_none());
    assert!(server.sessions.stats(good_id).is_some());
    assert_alive(&mut good, "alive").await;
    writer.abort();
    let rss_after = rss_kib();
    let (d50, d99) = percentiles(&mut during);
    eprintln!(
        "FIGURE never reads: closed ({cause:?}) {:.2} s after it stopped reading; outbound high \
         water {high_water} of {}; test process RSS before {} KiB, peak {} KiB, after {} KiB; \
         other session round trip meanwhile p50/p99 {d50:.2}/{d99:.2} ms",
        closed_after.as_secs_f64(),
        hark_server::config::DEFAULT_OUTBOUND_QUEUE,
        rss_before,
        peak,
        rss_after
    );
    server.stop().await;
}

/// The request head of a WebSocket upgrade to `/ws`.
fn upgrade_request(addr: std::net::SocketAddr) -> String {
    format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
}

/// Reads from `tcp` until `done(bytes so far)` or the server ends the connection (then also
/// how: `None` for an orderly end, else the error).
async fn read_until(
    tcp: &mut TcpStream,
    done: impl Fn(&[u8]) -> bool,
) -> (Vec<u8>, Option<Option<std::io::ErrorKind>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if done(&buf) {
            return (buf, None);
        }
        match tcp.read(&mut chunk).await {
            Ok(0) => return (buf, Some(None)),
            Err(e) => return (buf, Some(Some(e.kind()))),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// What one attacking connection did.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Silent or half-sent request head: the server ended the connection, having sent nothing.
    Dropped,
    /// Full upgrade refused: HTTP 503 with Retry-After and the server-full text.
    Refused,
}

/// A client opening 10,000 connections against a server capped at 256 sessions: 255 sessions
/// take the places left beside a normal session, then 9,745 more connections, a third each
/// raw TCP that never sends, half-sent upgrade requests, and full upgrades. The full ones are
/// refused with 503 + Retry-After + the server-full text, the silent and half ones are dropped
/// by the header timeout, and the normal session keeps working during the attack; after the
/// attackers leave, a new session connects and works. At most 1,000 connections are open at once
/// on the client side (client and server share this process's file descriptors). Figures: the
/// attack's duration and the normal session's round trip p50/p99 during it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_connections_are_capped_and_a_normal_session_still_works() {
    let _one_at_a_time = HEAVY.lock().await;
    const CAP: usize = 256;
    const TOTAL: usize = 10_000;
    const CONCURRENT: usize = 1000;
    let server = TestServer::start(ServerConfig {
        max_connections: CAP,
        header_read_timeout: Duration::from_secs(1),
        client_ready_timeout: Duration::from_secs(300),
        ..local_config()
    });
    let addr = server.addr;
    let mut events = server.sessions.subscribe();
    let mut normal = connect(&server).await;
    handshake(&mut normal, "n0").await;
    wait_ready(&mut events).await;

    // 255 sessions fill the cap (upgraded, never sending client-ready).
    let mut holders = Vec::new();
    for _ in 0..CAP - 1 {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        tcp.write_all(upgrade_request(addr).as_bytes())
            .await
            .unwrap();
        let (head, _) = tokio::time::timeout(
            STEP,
            read_until(&mut tcp, |b| b.windows(4).any(|w| w == b"\r\n\r\n")),
        )
        .await
        .expect("an answer in time");
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        holders.push(tcp);
    }
    assert_eq!(server.sessions.ids().len(), CAP);

    // A real client sees the 503 too.
    match tokio_tungstenite::connect_async(server.ws_url()).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 503);
            assert_eq!(response.headers()["retry-after"], "5");
            let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default())
                .into_owned();
            assert_eq!(body, messages::server_full(CAP, 5));
        }
        other => panic!("expected a 503, got {other:?}"),
    }

    let attacking = Arc::new(AtomicBool::new(true));
    let flag = attacking.clone();
    let start = Instant::now();
    let attack = tokio::spawn(async move {
        // Ends the normal session's round trips even if an attempt panics.
        struct Done(Arc<AtomicBool>);
        impl Drop for Done {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Relaxed);
            }
        }
        let _done = Done(flag);
        let attempts = TOTAL - CAP;
        let outcomes: Vec<(usize, Outcome)> = futures::stream::iter(0..attempts)
            .map(|n| async move {
                // Each connection is its own task, so a slow poll of the others cannot hold
                // its request back past the header timeout.
                let attempt = async move {
                    let mut tcp = TcpStream::connect(addr).await.expect("connect");
                    let outcome = match n % 3 {
                        0 => {
                            let (got, ended) = read_until(&mut tcp, |_| false).await;
                            let got = String::from_utf8_lossy(&got);
                            assert!(ended.is_some() && !got.contains("101"), "silent: {got}");
                            Outcome::Dropped
                        }
                        1 => {
                            let head = upgrade_request(addr);
                            tcp.write_all(&head.as_bytes()[..head.len() / 2])
                                .await
                                .unwrap();
                            let (got, ended) = read_until(&mut tcp, |_| false).await;
                            let got = String::from_utf8_lossy(&got);
                            assert!(ended.is_some() && !got.contains("101"), "half: {got}");
                            Outcome::Dropped
                        }
                        _ => {
                            tcp.write_all(upgrade_request(addr).as_bytes())
                                .await
                                .unwrap();
                            let body = messages::server_full(CAP, 5);
                            let (got, end) = read_until(&mut tcp, |b| {
                                b.windows(body.len()).any(|w| w == body.as_bytes())
                            })
                            .await;
                            let text = String::from_utf8_lossy(&got).to_lowercase();
                            assert!(text.starts_with("http/1.1 503"), "{text} (ended: {end:?})");
                            assert!(text.contains("retry-after: 5\r\n"), "{text}");
                            Outcome::Refused
                        }
                    };
                    (n, outcome)
                };
                tokio::spawn(tokio::time::timeout(STEP, attempt))
                    .await
                    .expect("the attempt's checks hold")
                    .unwrap_or_else(|_| panic!("connection {n} (kind {}) hung", n % 3))
            })
            .buffer_unordered(CONCURRENT)
            .collect()
            .await;
        outcomes
    });
    let mut during = round_trips(&mut normal, "during", 20, &attacking).await;
    let outcomes = tokio::time::timeout(Duration::from_secs(120), attack)
        .await
        .expect("the attack ends")
        .unwrap();
    let attack_time = start.elapsed();
    let refused = outcomes
        .iter()
        .filter(|(_, o)| *o == Outcome::Refused)
        .count();
    let dropped = outcomes.len() - refused;
    assert_eq!(outcomes.len() + CAP - 1, TOTAL - 1);
    assert_eq!(refused, (TOTAL - CAP) / 3);
    assert_eq!(server.sessions.ids().len(), CAP, "open sessions unaffected");
    assert_alive(&mut normal, "still").await;

    // The holders leave; their places free up; a new session connects and works.
    let holder_ids: Vec<SessionId> = server.sessions.ids();
    drop(holders);
    let mut closed = 0;
    while closed < CAP - 1 {
        closed += wait_for(&mut events, |e| {
            (matches!(e.kind, SessionEventKind::Closed(_)) && holder_ids.contains(&e.session))
                .then_some(1)
        })
        .await;
    }
    // A place is freed just after the session's Closed event; a client told "full" retries.
    let mut fresh = None;
    for _ in 0..100 {
        match tokio_tungstenite::connect_async(server.ws_url()).await {
            Ok((ws, _)) => {
                fresh = Some(ws);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let mut fresh = fresh.expect("a new session connects after the attack");
    handshake(&mut fresh, "f0").await;
    assert_alive(&mut fresh, "f1").await;
    assert_alive(&mut normal, "after").await;

    let (d50, d99) = percentiles(&mut during);
    eprintln!(
        "FIGURE connections: {TOTAL} connections ({CAP} sessions incl. the normal one, {refused} \
         refused with 503, {dropped} silent/half dropped by the 1 s header timeout) in {:.2} s; \
         normal session round trip during the attack p50/p99 {d50:.2}/{d99:.2} ms ({} samples)",
        attack_time.as_secs_f64(),
        during.len()
    );
    server.stop().await;
}

/// The snapshot limits end to end: a `ui-snapshot` over the byte limit, one over the node
/// limit and one deeper than the depth limit each get an `error-response` with the request's
/// id naming the limit, nothing is stored, and the session stays up and takes a good snapshot.
#[tokio::test]
async fn oversize_snapshots_are_refused_with_the_limit_named() {
    let server = TestServer::start(ServerConfig {
        max_snapshot_bytes: 4096,
        max_snapshot_nodes: 10,
        max_snapshot_depth: 3,
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    let leaf = |n: usize| json!({"ref": format!("e{n}"), "role": "button", "name": "x".repeat(90)});
    let snapshot = |root: Value| json!({"tree": {"root": root, "captured_at": 1}});

    let wide = snapshot(
        json!({"ref": "e1", "role": "main", "children": (2..60).map(leaf).collect::<Vec<_>>()}),
    );
    let text = envelope("ui-snapshot", "big", wide);
    send_json(&mut ws, &text).await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(reply["id"], "big");
    assert_eq!(
        reply["data"]["error"],
        messages::snapshot_too_large(text.len(), 4096)
    );

    let many = snapshot(
        json!({"ref": "e1", "role": "main", "children": (2..14).map(|n| json!({"ref": format!("e{n}"), "role": "button"})).collect::<Vec<_>>()}),
    );
    send_json(&mut ws, &envelope("ui-snapshot", "many", many)).await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(
        (reply["type"].as_str(), reply["id"].as_str()),
        (Some("error-response"), Some("many"))
    );
    let error = reply["data"]["error"].as_str().unwrap();
    assert!(error.contains("10"), "names the node limit: {error}");

    let deep = snapshot(json!({"ref": "e1", "role": "main", "children": [
        {"ref": "e2", "role": "list", "children": [
            {"ref": "e3", "role": "listitem", "children": [{"ref": "e4", "role": "button"}]}]}]}));
    send_json(&mut ws, &envelope("ui-snapshot", "deep", deep)).await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(
        (reply["type"].as_str(), reply["id"].as_str()),
        (Some("error-response"), Some("deep"))
    );
    let error = reply["data"]["error"].as_str().unwrap();
    assert!(error.contains('3'), "names the depth limit: {error}");
    assert!(server.sessions.latest_snapshot(id).is_none(), "none stored");

    let good = snapshot(
        json!({"ref": "e1", "role": "main", "children": [{"ref": "e2", "role": "button", "name": "Save"}]}),
    );
    send_json(&mut ws, &envelope("ui-snapshot", "ok", good)).await;
    assert_alive(&mut ws, "alive").await;
    assert_eq!(
        server.sessions.latest_snapshot(id).map(|s| s.root.count()),
        Some(2)
    );
    server.stop().await;
}

/// A stale ref over the socket: the client sends snapshot A (Save is `e7`), then the re-rendered
/// snapshot B (Save is `e19`, no `e7`). A command for `e7` is refused as not on screen and
/// never reaches the client; one for `e19` does.
#[tokio::test]
async fn u1_a_stale_ref_is_refused_and_not_sent_over_the_socket() {
    let factory = Arc::new(UiHandlerFactory::new(UiSessionConfig::new()).unwrap());
    let server = TestServer::start_with(local_config(), Some(factory.clone()));
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    let save = |r: &str, at: i64| {
        json!({"tree": {"root": {"ref": "e1", "role": "main", "children": [
            {"ref": r, "role": "button", "name": "Save"}]}, "captured_at": at}})
    };
    send_json(&mut ws, &envelope("ui-snapshot", "a", save("e7", 1))).await;
    send_json(&mut ws, &envelope("ui-snapshot", "b", save("e19", 2))).await;
    // The session handles inputs in order: once the ping is answered, B is the worker's.
    assert_alive(&mut ws, "p1").await;
    let session = factory.session(id).expect("a UI session");
    assert_eq!(
        session.worker().click("e7").unwrap_err(),
        hark_ui::CommandError::StaleRef {
            command: "click".into(),
            ref_: "e7".into()
        }
    );
    session.worker().click("e19").unwrap();
    let command = recv_json(&mut ws).await;
    assert_eq!(command["type"], "ui-command", "{command}");
    assert_eq!(
        command["data"],
        json!({"command": "click", "payload": {"ref": "e19", "target_id": null}})
    );
    server.stop().await;
}
