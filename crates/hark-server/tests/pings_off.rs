//! Keep-alive pings off (`--ping-interval 0`) with a pong timeout: no ping
//! is sent, yet a client that never reads is still closed with 1011 once one write moved no byte
//! for 30 s (the default ping interval, standing in) plus the pong timeout; never sooner than
//! with the default pings. A client that reads, however slowly, is not closed and gets every
//! answer. Real WebSocket clients against a real server on loopback.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::*;
use futures::{SinkExt, StreamExt};
use hark_server::{CloseCause, ServerConfig, SessionEventKind, SessionId};
use serde_json::json;
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::Message;

/// Pings the never-reading client sends, each answered with its 60 KB payload: far more than
/// the socket buffers hold.
const PINGS: usize = 400;

/// The `Closed` cause of `session`, waiting up to `guard` (a hang guard, not a timing).
async fn closed(
    events: &mut broadcast::Receiver<hark_server::SessionEvent>,
    session: SessionId,
    guard: Duration,
) -> CloseCause {
    tokio::time::timeout(guard, async {
        loop {
            match events.recv().await {
                Ok(e) if e.session == session => {
                    if let SessionEventKind::Closed(cause) = e.kind {
                        return cause;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("event channel closed"),
            }
        }
    })
    .await
    .expect("the session that never reads is closed")
}

/// Sends pings with ids `{tag}0`, `{tag}1`, … and a 60 KB payload: `limit` of them, or until
/// `stop` is set. Returns how many it sent (after `limit`, it holds the socket open instead).
fn flood(
    mut sink: impl futures::Sink<Message, Error = impl std::fmt::Debug> + Unpin + Send + 'static,
    tag: &'static str,
    limit: Option<usize>,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<(usize, impl Send)> {
    tokio::spawn(async move {
        let payload = "p".repeat(60_000);
        let mut n = 0;
        while limit.is_none_or(|l| n < l) && !stop.load(Ordering::SeqCst) {
            let json = envelope(
                "client-message",
                &format!("{tag}{n}"),
                json!({"t": "ping", "d": payload}),
            );
            if sink.send(frame(&json)).await.is_err() {
                break;
            }
            n += 1;
        }
        if limit.is_some() {
            std::future::pending::<()>().await;
        }
        (n, sink)
    })
}

/// The id of the next `server-response` on `stream`.
async fn next_answer(
    stream: &mut (impl futures::Stream<Item = Result<Message, impl std::fmt::Debug>> + Unpin),
) -> String {
    loop {
        let msg = tokio::time::timeout(STEP, stream.next())
            .await
            .expect("an answer in time")
            .expect("socket open")
            .expect("socket ok");
        let Message::Binary(bytes) = msg else {
            assert!(
                !matches!(msg, Message::Ping(_)),
                "no keep-alive ping with pings off"
            );
            continue;
        };
        let frame = hark_rtvi::frame::decode_frame(&bytes).expect("a pipecat.Frame");
        let v: serde_json::Value =
            serde_json::from_str(frame.message_json().expect("a MessageFrame")).unwrap();
        assert_eq!(v["type"], "server-response", "{v}");
        return v["id"].as_str().unwrap().to_owned();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_pings_off_a_client_that_never_reads_is_closed_and_a_slow_reader_is_not() {
    let pong_timeout = Duration::from_secs(1);
    let server = TestServer::start(ServerConfig {
        ping_interval: Duration::ZERO,
        pong_timeout,
        // The subject is the stalled-write bound, not the message rate.
        max_messages_per_sec: 0,
        ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
    });
    let mut events = server.sessions.subscribe();

    let mut slow = connect(&server).await;
    handshake(&mut slow, "s-ready").await;
    let slow_id = wait_ready(&mut events).await;
    let mut never = connect(&server).await;
    handshake(&mut never, "n-ready").await;
    let never_id = wait_ready(&mut events).await;

    // The never-reading client: sends its pings, reads nothing.
    let start = std::time::Instant::now();
    let (never_sink, _never_stream) = never.split();
    let never_writer = flood(never_sink, "n", Some(PINGS), Arc::default());
    // The slow reader: pings until the other client is closed (so it always has answers
    // waiting), and reads one answer every 100 ms, in order.
    let (slow_sink, mut slow_stream) = slow.split();
    let slow_stop = Arc::new(AtomicBool::new(false));
    let slow_writer = flood(slow_sink, "s", None, slow_stop.clone());
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let slow_reader = tokio::spawn(async move {
        let mut read = 0;
        loop {
            tokio::select! {
                _ = &mut stop_rx => return (slow_stream, read),
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
            assert_eq!(next_answer(&mut slow_stream).await, format!("s{read}"));
            read += 1;
        }
    });

    // 30 s (the default ping interval standing in) + the 1 s pong timeout; the guard leaves
    // room for filling the buffers on a loaded machine.
    let cause = closed(&mut events, never_id, Duration::from_secs(240)).await;
    assert_eq!(
        cause,
        CloseCause::PongTimeout {
            after: Duration::from_secs(31)
        }
    );
    let closed_after = start.elapsed();
    assert!(server.sessions.stats(never_id).is_none());

    // The slow reader is still served: it reads the rest at full speed, in order.
    assert!(
        server.sessions.stats(slow_id).is_some(),
        "the slow reader was closed"
    );
    slow_stop.store(true, Ordering::SeqCst);
    stop_tx.send(()).unwrap();
    let (mut slow_stream, read) = slow_reader.await.unwrap();
    assert!(read > 0, "the slow reader read during the window");
    // Its writer stops at the next ping it would send; reading lets the sends it waits on
    // through.
    let rest_at = std::time::Instant::now();
    let mut n = read;
    let mut slow_writer = slow_writer;
    let sent = loop {
        tokio::select! {
            done = &mut slow_writer => break done.unwrap().0,
            answer = next_answer(&mut slow_stream) => {
                assert_eq!(answer, format!("s{n}"));
                n += 1;
            }
        }
    };
    for n in n..sent {
        assert_eq!(next_answer(&mut slow_stream).await, format!("s{n}"));
    }
    assert!(server.sessions.stats(slow_id).is_some());
    eprintln!(
        "figure: pings off, pong timeout 1 s: the client that never reads closed ({cause:?}) \
         {:.1} s after it began sending; the slow reader read {read} answers meanwhile, then the \
         other {} in {:.1} s",
        closed_after.as_secs_f64(),
        sent - read,
        rest_at.elapsed().as_secs_f64()
    );
    never_writer.abort();
    server.stop().await;
}
