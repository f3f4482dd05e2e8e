//! The connection loop's unit tests: queue bounds, the rate limiter, stalled writes, the error
//! damper and the built-in handler.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::StreamExt;
use hark_rtvi::message::ServerMessage;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::config::DEFAULT_PING_INTERVAL;
use crate::messages;
use crate::sessions::{CloseCause, Counters, SessionId, Sessions};
use crate::socket::{CLOSE_UNEXPECTED, CloseInfo, RecvError, WsMessage};
use crate::wire;

use super::limits::SessionLimits;
use super::reader::*;
use super::writer::*;
use super::*;
use futures::channel::mpsc as fmpsc;
use std::sync::atomic::AtomicUsize;

fn ping_frame(n: usize) -> WsMessage {
    let json = format!(
        r#"{{"label":"rtvi-ai","type":"client-message","id":"m{n}","data":{{"t":"ping","d":{n}}}}}"#
    );
    WsMessage::Binary(hark_rtvi::frame::encode_message_json(&json).into())
}

fn setup(
    sessions: &Sessions,
    limits: SessionLimits,
    shutdown: CancellationToken,
) -> (SessionId, ConnectionSetup) {
    let id = sessions.next_id();
    let setup = ConnectionSetup {
        id,
        sessions: sessions.clone(),
        handler: Box::new(NoAgentHandler),
        limits,
        shutdown,
        raw: None,
    };
    (id, setup)
}

/// A flood of garbage, driven with channels: while the socket does not accept writes, the loop
/// pulls at most what its bounded queues hold (plus one item in each stage's hands), then
/// stops reading; once the socket drains, every answer goes out, in order.
#[tokio::test]
async fn a_stalled_socket_stops_the_reader_at_the_queue_bounds() {
    const N: usize = 10_000;
    let limits = SessionLimits {
        inbound_queue: 4,
        outbound_queue: 8,
        // No client-ready here: the deadline must not end the test.
        client_ready_timeout: Duration::from_secs(3600),
        // 10,000 messages at once: the rate limit is another test's subject.
        max_messages_per_sec: 0,
        ..SessionLimits::default()
    };
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = pulled.clone();
    let stream = futures::stream::iter((0..N).map(|n| Ok(ping_frame(n)))).inspect(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    // A socket that takes one message and then stalls until its receiver reads.
    let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(0);
    let sessions = Sessions::new();
    let (id, setup) = setup(&sessions, limits, CancellationToken::new());
    let conn = tokio::spawn(run_connection(sink, stream, setup));

    let mut full = false;
    for _ in 0..100_000 {
        tokio::task::yield_now().await;
        if let Some(s) = sessions.stats(id)
            && s.inbound_len == 4
            && s.outbound_len == 8
        {
            full = true;
            break;
        }
    }
    assert!(full, "queues never filled: {:?}", sessions.stats(id));
    // Let every stage run until blocked, then count what was read.
    for _ in 0..1_000 {
        tokio::task::yield_now().await;
    }
    let read = pulled.load(Ordering::SeqCst);
    assert!(read >= 4 + 8, "read {read}");
    assert!(
        read <= 4 + 8 + 4,
        "read {read} with queues of 4 and 8: the reader did not wait"
    );

    for n in 0..N {
        let Some(WsMessage::Binary(bytes)) = socket_rx.next().await else {
            panic!("expected answer {n}");
        };
        let json = hark_rtvi::frame::decode_frame(&bytes).unwrap();
        let v: Value = serde_json::from_str(json.message_json().unwrap()).unwrap();
        assert_eq!(v["id"], format!("m{n}"));
        assert_eq!(v["data"], serde_json::json!({"t": "ping", "d": n}));
    }
    assert_eq!(conn.await.unwrap(), CloseCause::ClientGone);
    assert!(sessions.stats(id).is_none(), "unregistered at the end");
}

/// The token bucket admits the burst, then the rate; the first drop of an
/// episode is told (once), later ones are not; a new episode after a quiet second is told
/// again only after the repeat window.
#[test]
fn the_rate_limiter_admits_the_burst_then_the_rate_and_tells_once() {
    let limits = SessionLimits {
        max_messages_per_sec: 10,
        message_burst: 20,
        flood_close_after: Duration::ZERO,
        error_repeat_window: Duration::from_secs(5),
        ..SessionLimits::default()
    };
    let t0 = Instant::now();
    let mut r = RateLimiter::new(&limits, t0).expect("a rate is set");
    assert!((0..20).all(|_| r.check(t0) == Verdict::Admit), "the burst");
    assert_eq!(r.check(t0), Verdict::Drop { tell: true });
    assert_eq!(r.check(t0), Verdict::Drop { tell: false });
    // Half a second refills 5 tokens.
    let t1 = t0 + Duration::from_millis(500);
    assert!((0..5).all(|_| r.check(t1) == Verdict::Admit));
    assert_eq!(r.check(t1), Verdict::Drop { tell: false }, "same episode");
    // Quiet for 2 s: the episode ends at the next admitted message; a new one within the
    // repeat window is not told again, after it it is.
    let t2 = t1 + Duration::from_secs(2);
    assert!((0..20).all(|_| r.check(t2) == Verdict::Admit));
    assert_eq!(r.check(t2), Verdict::Drop { tell: false });
    let t3 = t2 + Duration::from_secs(10);
    assert!((0..20).all(|_| r.check(t3) == Verdict::Admit));
    assert_eq!(r.check(t3), Verdict::Drop { tell: true });
    assert!(
        RateLimiter::new(
            &SessionLimits {
                max_messages_per_sec: 0,
                ..limits
            },
            t0
        )
        .is_none(),
        "0: no limit"
    );
}

/// Over FLOOD_FACTOR × the rate in every second for `flood_close_after`: `Flood`; a quiet
/// second in between starts the count again.
#[test]
fn a_flood_for_the_whole_window_closes() {
    let limits = SessionLimits {
        max_messages_per_sec: 10,
        message_burst: 10,
        flood_close_after: Duration::from_secs(2),
        ..SessionLimits::default()
    };
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let mut r = RateLimiter::new(&limits, t0).unwrap();
    // Second 1: 101 messages (over 10 × 10): flooding, not yet closed.
    for n in 0..101u64 {
        assert_ne!(r.check(t0 + ms(n * 9)), Verdict::Flood);
    }
    // A quiet second, then a flood second: only one flooding second in a row.
    let t2 = t0 + Duration::from_secs(2);
    for n in 0..101u64 {
        assert_ne!(r.check(t2 + ms(n * 9)), Verdict::Flood);
    }
    // The next second flooding too: closed on its 101st message.
    let t3 = t0 + Duration::from_secs(3);
    for n in 0..100u64 {
        assert_ne!(r.check(t3 + ms(n * 9)), Verdict::Flood);
    }
    assert_eq!(r.check(t3 + ms(950)), Verdict::Flood);
}

/// Shutdown: the writer sends close 1001 with the shutdown reason and the loop ends.
#[tokio::test]
async fn shutdown_sends_close_1001() {
    let limits = SessionLimits {
        close_grace: Duration::from_millis(50),
        ..SessionLimits::default()
    };
    let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(8);
    let stream = futures::stream::pending::<Result<WsMessage, RecvError>>();
    let sessions = Sessions::new();
    let token = CancellationToken::new();
    let (_, setup) = setup(&sessions, limits, token.clone());
    let conn = tokio::spawn(run_connection(sink, stream, setup));
    token.cancel();
    assert_eq!(
        socket_rx.next().await,
        Some(WsMessage::Close(Some(CloseInfo {
            code: 1001,
            reason: "Server shutting down".into()
        })))
    );
    assert_eq!(conn.await.unwrap(), CloseCause::Shutdown);
}

/// The stalled-write window is `ping_interval + pong_timeout`; with
/// pings off the default interval (30 s) stands in, so turning pings off neither removes
/// the bound on a client that never reads nor makes it shorter than the default's; a zero
/// pong timeout turns it off; huge values saturate.
#[test]
fn the_stalled_write_window_keeps_the_default_interval_with_pings_off() {
    let s = Duration::from_secs;
    let window = |ping, pong| {
        SessionLimits {
            ping_interval: ping,
            pong_timeout: pong,
            ..SessionLimits::default()
        }
        .stalled_write_window()
    };
    assert_eq!(DEFAULT_PING_INTERVAL, s(30), "the help texts say 30s");
    assert_eq!(window(s(30), s(20)), Some(s(50)));
    assert_eq!(window(s(2), s(3)), Some(s(5)));
    assert_eq!(window(Duration::ZERO, s(20)), Some(s(50)));
    assert_eq!(window(Duration::ZERO, s(3)), Some(s(33)));
    assert!(
        window(Duration::ZERO, s(3)) > Some(s(3)),
        "not the pong timeout alone"
    );
    assert_eq!(window(s(30), Duration::ZERO), None);
    assert_eq!(window(Duration::ZERO, Duration::ZERO), None);
    assert_eq!(window(Duration::MAX, s(1)), Some(Duration::MAX));
}

/// The stalled-write watch looks every eighth of the window; bytes seen moving restart the
/// window from that look; with no byte moving it reports the stall at one window from the
/// last progress, not later; no window: it never looks.
#[test]
fn the_stall_watch_closes_one_window_after_the_last_byte() {
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let window = Some(ms(800));
    let mut w = StallWatch::new(window, Some(0), t0);
    assert_eq!(w.next_look(), Some(t0 + ms(100)));
    assert_eq!(w.look(Some(0), t0 + ms(100)), None);
    assert_eq!(w.next_look(), Some(t0 + ms(200)));
    // Bytes moved by the look at 300 ms: the window now runs from 300 ms.
    assert_eq!(w.look(Some(10), t0 + ms(300)), None);
    for at in [400, 500, 600, 700, 800, 900, 1000] {
        assert_eq!(w.next_look(), Some(t0 + ms(at)));
        assert_eq!(w.look(Some(10), t0 + ms(at)), None, "{at} ms");
    }
    assert_eq!(w.next_look(), Some(t0 + ms(1100)));
    assert_eq!(w.look(Some(10), t0 + ms(1100)), Some(ms(800)));
    // A late look (a busy runtime) is judged by the time, not the count of looks.
    let mut w = StallWatch::new(window, Some(0), t0);
    assert_eq!(w.look(Some(0), t0 + ms(5000)), Some(ms(800)));
    // Without a byte count (channels) the write gets one window in all.
    let mut w = StallWatch::new(window, None, t0);
    assert_eq!(w.look(None, t0 + ms(799)), None);
    assert_eq!(w.next_look(), Some(t0 + ms(800)));
    assert_eq!(w.look(None, t0 + ms(800)), Some(ms(800)));
    // No window (a zero pong timeout): never looks, never closes.
    let mut w = StallWatch::new(None, Some(0), t0);
    assert_eq!(w.next_look(), None);
    assert_eq!(w.look(Some(0), t0 + ms(100_000)), None);
    // A window too large to add: no deadline.
    assert_eq!(
        StallWatch::new(Some(Duration::MAX), Some(0), t0).next_look(),
        None
    );
}

/// A write that waits while bytes still go out (a client that reads
/// slowly) is waited for, however long; once not a byte goes out for `ping_interval +
/// pong_timeout`, the writer gives up (`stalled`) and closes with 1011.
#[tokio::test]
async fn a_slow_write_that_moves_bytes_is_waited_for_and_a_stuck_one_is_not() {
    // The window: 2 s + 3 s = 5 s of no progress (the writer sends no pings itself: the
    // reader asks for them, and there is none here). Bytes move every 50 ms while the write
    // waits for 11 s (past two windows), so the close cannot come from a late timer.
    let window = Duration::from_secs(5);
    let limits = SessionLimits {
        ping_interval: Duration::from_secs(2),
        pong_timeout: Duration::from_secs(3),
        // Only a failure guard: the close frame waits until this socket takes it.
        close_grace: Duration::from_secs(120),
        ..SessionLimits::default()
    };
    // The byte count comes from a real loopback connection, written here.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (peer, accepted) = tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
    let _peer = peer.unwrap();
    let (mut tcp, raw) = crate::socket::share(accepted.unwrap().0);
    // A socket whose every write waits until its receiver reads.
    let (sink, mut socket_rx) = fmpsc::channel::<WsMessage>(0);
    let (out_tx, out_rx) = mpsc::channel::<Outbound>(8);
    let (_close_tx, close_rx) = mpsc::channel::<Box<CloseInfo>>(1);
    let (_ping_tx, ping_rx) = mpsc::channel::<()>(1);
    let stalled = CancellationToken::new();
    let links = WriterLinks {
        out_rx,
        close_rx,
        ping_rx,
        ended: CancellationToken::new(),
        stalled: stalled.clone(),
        progress: Some(raw),
    };
    let counters = Counters::default();
    let (shutdown, done, disconnect) = (
        CancellationToken::new(),
        CancellationToken::new(),
        CancellationToken::new(),
    );
    let writer = write_loop(
        sink,
        links,
        &counters,
        &shutdown,
        &done,
        &disconnect,
        limits,
    );
    let answer = || {
        Outbound::Rtvi(Outgoing {
            id: None,
            message: Box::new(ServerMessage::BotLlmStarted),
        })
    };
    let test = async {
        // The first write waits for 11 s while bytes move.
        out_tx.send(answer()).await.unwrap();
        out_tx.send(answer()).await.unwrap();
        let slow = Instant::now() + Duration::from_secs(11);
        while Instant::now() < slow {
            tokio::io::AsyncWriteExt::write_all(&mut tcp, b"x")
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(!stalled.is_cancelled(), "closed while bytes still went out");
        }
        // The client reads: both answers arrive and the session goes on.
        for _ in 0..2 {
            assert!(matches!(socket_rx.next().await, Some(WsMessage::Binary(_))));
        }
        assert!(!stalled.is_cancelled());
        // Now nothing moves: the third write waits, and the writer gives up.
        out_tx.send(answer()).await.unwrap();
        tokio::time::timeout(Duration::from_secs(120), stalled.cancelled())
            .await
            .expect("a write with no progress ends the session");
        // The third answer, then the close frame (1011) once the socket takes it.
        assert!(matches!(socket_rx.next().await, Some(WsMessage::Binary(_))));
        assert_eq!(
            socket_rx.next().await,
            Some(WsMessage::Close(Some(CloseInfo {
                code: CLOSE_UNEXPECTED,
                reason: messages::client_not_reading(window),
            })))
        );
    };
    tokio::join!(writer, test);
    assert_eq!(counters.messages_sent.load(Ordering::Relaxed), 2);
}

/// The built-in handler: `ping` is answered, other client messages get an error-response.
#[tokio::test]
async fn no_agent_handler_answers_ping_and_refuses_the_rest() {
    let (outbox, mut rx) = Outbox::channel(SessionId(1), 8);
    let mut h = NoAgentHandler;
    h.handle(
        SessionInput::ClientMessage {
            request_id: Some("r1".into()),
            t: "ping".into(),
            d: Some(serde_json::json!(7).into()),
        },
        &outbox,
    )
    .await;
    let out = rx.recv().await.unwrap().rtvi().unwrap();
    assert_eq!(out.id.as_deref(), Some("r1"));
    assert_eq!(
        out.message.to_json(None),
        r#"{"label":"rtvi-ai","type":"server-response","data":{"t":"ping","d":7}}"#
    );
    h.handle(
        SessionInput::ClientMessage {
            request_id: Some("r2".into()),
            t: "other".into(),
            d: None,
        },
        &outbox,
    )
    .await;
    let out = rx.recv().await.unwrap().rtvi().unwrap();
    assert_eq!(out.id.as_deref(), Some("r2"));
    assert_eq!(
        *out.message,
        ServerMessage::ErrorResponse {
            error: messages::unhandled_client_message("other")
        }
    );
}

/// One session gets an identical `error` text at most once per window; the first always goes
/// out, other texts and other messages are not held back, and the text goes out again once the
/// window has passed; an `error-response` answers its request, so it always goes out. Zero
/// disables damping.
#[test]
fn identical_errors_are_sent_once_per_window() {
    let t0 = Instant::now();
    let s = Duration::from_secs(1);
    let refused = wire::error("Unsupported type foo");
    let other = wire::error("Invalid frame: x");
    let mut d = ErrorDamper::new(Duration::from_secs(5));
    assert!(d.admit(&refused, t0), "the first always goes out");
    assert!(!d.admit(&refused, t0 + s));
    assert!(!d.admit(&refused, t0 + 4 * s));
    assert!(d.admit(&other, t0 + 4 * s), "another text is not held back");
    assert!(d.admit(&ServerMessage::BotLlmStarted, t0 + 4 * s));
    assert_eq!(d.seen["Unsupported type foo"].1, 2, "held back, counted");
    assert!(d.admit(&refused, t0 + 5 * s), "again after the window");
    assert!(!d.admit(&refused, t0 + 6 * s));
    // The answer to a request always goes out, however often its text was sent.
    let answer = wire::error_response("Unsupported type foo");
    assert!((0..3).all(|_| d.admit(&answer, t0 + 6 * s)));

    let mut off = ErrorDamper::new(Duration::ZERO);
    assert!((0..3).all(|_| off.admit(&refused, t0)));

    // Many distinct texts: memory stays bounded.
    let mut d = ErrorDamper::new(Duration::from_secs(5));
    for n in 0..1000 {
        assert!(d.admit(&wire::error(&format!("Unsupported type t{n}")), t0));
    }
    assert!(d.seen.len() <= DAMPER_TEXTS);
}
