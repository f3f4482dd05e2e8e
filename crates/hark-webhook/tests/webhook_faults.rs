//! Webhook faults against raw loopback HTTP servers (a `TcpListener` that
//! writes exactly the bytes each test needs): a webhook that hangs past its deadline, one that
//! answers byte by byte (slow loris), and ones that close the connection early. Outcome each
//! time: one result per call that says what happened and names the tool (never an argument
//! value), exactly one terminal event per call, the connection dropped at the deadline, no
//! panic.
//!
//! Already covered in `tests/webhook.rs` and not repeated here: slow headers from an axum
//! handler (`slow_headers_hit_the_one_deadline`), a body that trickles past the deadline after
//! prompt headers (`a_body_that_trickles_past_the_deadline_fails`), a close after a
//! `Content-Length` promise (`a_connection_closed_early_fails_as_unreachable`), answers over
//! the cap, and the deadline covering DNS (`the_deadline_covers_dns`).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::test_client;
use futures::future::{BoxFuture, join_all};
use hark_tools::{CallStatus, ToolContext, ToolEvent, ToolRegistry};
use hark_webhook::{messages, webhook_tool};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// A value that must never show in a result or an event.
const SECRET: &str = "4111-1111-SECRET";

/// What a raw server does with one connection once it read the request head.
type Script = Arc<dyn Fn(TcpStream) -> BoxFuture<'static, Ending> + Send + Sync>;

/// How a scripted connection ended, as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ending {
    /// The server closed it as scripted.
    ClosedByServer,
    /// The client went away (read gave EOF or a write failed) after this many bytes were
    /// written.
    ClientLeft { written: usize },
}

/// A raw HTTP server on 127.0.0.1: reads each request's head, then runs `script`; every
/// connection's ending goes to the returned receiver.
async fn raw_server(script: Script) -> (u16, mpsc::UnboundedReceiver<Ending>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (script, tx) = (script.clone(), tx.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = tx.send(script(socket).await);
            });
        }
    });
    (port, rx)
}

/// Sends nothing and waits until the client goes away.
fn hang() -> Script {
    Arc::new(|mut socket| {
        Box::pin(async move {
            let mut buf = [0u8; 1024];
            loop {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return Ending::ClientLeft { written: 0 },
                    Ok(_) => {}
                }
            }
        })
    })
}

/// A complete-looking answer (head and a 2,023-byte JSON body) written one byte every 20 ms
/// (about 40 s for the whole), the head at once when `head_at_once`, until the client goes
/// away.
fn slow_loris(head_at_once: bool) -> Script {
    Arc::new(move |mut socket| {
        Box::pin(async move {
            let body = format!("{{\"ok\": true, \"pad\": \"{}\"}}", "x".repeat(2_000));
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let at_once = if head_at_once { head.len() } else { 0 };
            let answer = format!("{head}{body}").into_bytes();
            if socket.write_all(&answer[..at_once]).await.is_err() {
                return Ending::ClientLeft { written: 0 };
            }
            for (sent, byte) in answer[at_once..].iter().enumerate() {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if socket.write_all(&[*byte]).await.is_err() || socket.flush().await.is_err() {
                    return Ending::ClientLeft {
                        written: at_once + sent,
                    };
                }
            }
            Ending::ClosedByServer
        })
    })
}

/// Writes `bytes`, then closes the connection.
fn close_after(bytes: &'static [u8]) -> Script {
    Arc::new(move |mut socket| {
        Box::pin(async move {
            let _ = socket.write_all(bytes).await;
            let _ = socket.flush().await;
            drop(socket);
            Ending::ClosedByServer
        })
    })
}

/// A registry with one POST webhook `book_table` at `port` (deadline `timeout`), and every
/// event it emits (`stage tool error`).
fn registry(port: u16, timeout: Duration) -> (ToolRegistry, Arc<Mutex<Vec<String>>>) {
    let tool = webhook_tool(
        "book_table",
        "Books a table.",
        format!("http://public.test:{port}/book"),
    )
    .parameters(json!({"type": "object", "properties": {"card": {"type": "string"}}}))
    .output_done()
    .timeout(timeout)
    .client(test_client())
    .build()
    .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let store = events.clone();
    registry.listen(Arc::new(move |e: &ToolEvent| {
        store.lock().unwrap().push(format!(
            "{} {} {}",
            e.stage.as_str(),
            e.tool,
            e.error.clone().unwrap_or_default()
        ));
        Ok(())
    }));
    (registry, events)
}

fn arguments() -> String {
    json!({"card": SECRET}).to_string()
}

/// Waits (at most 30 s, a failure guard) for the server to see how the connection ended.
async fn ending(rx: &mut mpsc::UnboundedReceiver<Ending>) -> Ending {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("the server saw the connection end")
        .expect("the server is running")
}

/// One call's outcome and events: it failed with `model` as its only text, one started and one
/// failed event with `event` as the error, and the secret argument nowhere.
fn assert_one_failure(
    outcome: &hark_tools::ToolOutcome,
    events: &[String],
    model: &str,
    event: &str,
) {
    assert_eq!(outcome.status, CallStatus::Failed);
    assert_eq!(outcome.model_result, json!({"error": model}));
    assert!(
        !outcome.model_text().contains(SECRET),
        "{}",
        outcome.model_text()
    );
    assert_eq!(
        events,
        [
            "tool.started book_table ".to_string(),
            format!("tool.failed book_table {event}")
        ]
    );
    assert!(!events.iter().any(|e| e.contains(SECRET)));
}

/// A webhook that never answers: the one deadline ends the call with a result that says it
/// timed out and names the tool, not the arguments; the connection is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_webhook_times_out_naming_the_tool_and_the_connection_is_dropped() {
    let (port, mut endings) = raw_server(hang()).await;
    let (registry, events) = registry(port, Duration::from_millis(500));
    let outcome = registry
        .call("book_table", arguments().as_str(), &ToolContext::default())
        .await;
    assert_one_failure(
        &outcome,
        &events.lock().unwrap(),
        &messages::timed_out("book_table", 0.5),
        messages::EVENT_TIMEOUT,
    );
    assert_eq!(
        ending(&mut endings).await,
        Ending::ClientLeft { written: 0 },
        "the client hung up at the deadline"
    );
}

/// Twenty calls at once to a hanging webhook: twenty results, each a timeout, exactly one
/// terminal event per call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_to_a_hanging_webhook_each_get_exactly_one_result() {
    let (port, mut endings) = raw_server(hang()).await;
    let (registry, events) = registry(port, Duration::from_millis(500));
    let context = ToolContext::default();
    let args = arguments();
    let calls = (0..20).map(|_| registry.call("book_table", args.as_str(), &context));
    let outcomes = join_all(calls).await;
    assert_eq!(outcomes.len(), 20);
    for outcome in &outcomes {
        assert_eq!(
            outcome.model_result,
            json!({"error": messages::timed_out("book_table", 0.5)})
        );
    }
    let events = events.lock().unwrap().clone();
    let count = |stage: &str| events.iter().filter(|e| e.starts_with(stage)).count();
    assert_eq!(count("tool.started "), 20, "{events:?}");
    assert_eq!(count("tool.failed "), 20, "{events:?}");
    assert_eq!(events.len(), 40, "{events:?}");
    for _ in 0..20 {
        assert!(matches!(
            ending(&mut endings).await,
            Ending::ClientLeft { .. }
        ));
    }
}

/// A slow-loris answer, one byte every 20 ms from the status line on (a whole answer would
/// take about 40 s): the one deadline still holds; the call times out and the client cuts the
/// connection part way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_loris_answer_from_the_first_byte_is_cut_at_the_deadline() {
    let (port, mut endings) = raw_server(slow_loris(false)).await;
    let (registry, events) = registry(port, Duration::from_millis(600));
    let outcome = registry
        .call("book_table", arguments().as_str(), &ToolContext::default())
        .await;
    assert_one_failure(
        &outcome,
        &events.lock().unwrap(),
        &messages::timed_out("book_table", 0.6),
        messages::EVENT_TIMEOUT,
    );
    match ending(&mut endings).await {
        Ending::ClientLeft { written } => assert!(written < 2_000, "{written} bytes"),
        other => panic!("the client must cut the answer: {other:?}"),
    }
}

/// The same with the headers sent at once and the body byte by byte (raw bytes; the axum
/// variant is `a_body_that_trickles_past_the_deadline_fails` in `tests/webhook.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_loris_body_after_prompt_headers_is_cut_at_the_deadline() {
    let (port, mut endings) = raw_server(slow_loris(true)).await;
    let (registry, events) = registry(port, Duration::from_millis(600));
    let outcome = registry
        .call("book_table", arguments().as_str(), &ToolContext::default())
        .await;
    assert_one_failure(
        &outcome,
        &events.lock().unwrap(),
        &messages::timed_out("book_table", 0.6),
        messages::EVENT_TIMEOUT,
    );
    match ending(&mut endings).await {
        Ending::ClientLeft { written } => {
            assert!(written < 2_000, "{written} bytes")
        }
        other => panic!("the client must cut the answer: {other:?}"),
    }
}

/// Connections closed early, at each place: before any byte, mid status line, mid headers,
/// mid chunked body, and mid chunk-size line. Each call gets one clear "closed early" result
/// naming the tool and one terminal event; nothing panics. (A close after a `Content-Length`
/// promise: `a_connection_closed_early_fails_as_unreachable` in `tests/webhook.rs`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_closed_early_anywhere_gives_one_clear_result() {
    let cases: [(&str, &'static [u8]); 5] = [
        ("before any byte", b""),
        ("mid status line", b"HTTP/1.1 20"),
        ("mid headers", b"HTTP/1.1 200 OK\r\nContent-Type: applica"),
        (
            "mid chunked body",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{\"ok\": tr",
        ),
        (
            "mid chunk size",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ok\"\r\n1",
        ),
    ];
    for (place, bytes) in cases {
        let (port, mut endings) = raw_server(close_after(bytes)).await;
        let (registry, events) = registry(port, Duration::from_secs(20));
        let outcome = registry
            .call("book_table", arguments().as_str(), &ToolContext::default())
            .await;
        assert_eq!(
            outcome.model_result,
            json!({"error": messages::unreachable("book_table")}),
            "closed {place}"
        );
        assert_one_failure(
            &outcome,
            &events.lock().unwrap(),
            &messages::unreachable("book_table"),
            messages::EVENT_UNREACHABLE,
        );
        assert_eq!(ending(&mut endings).await, Ending::ClosedByServer);
    }
}

/// A complete answer with a trailing close works (the baseline the faults above break).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_answer_then_close_succeeds() {
    let (port, _endings) = raw_server(close_after(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}",
    ))
    .await;
    let (registry, events) = registry(port, Duration::from_secs(20));
    let outcome = registry
        .call("book_table", arguments().as_str(), &ToolContext::default())
        .await;
    assert_eq!(outcome.status, CallStatus::Succeeded, "{outcome:?}");
    assert_eq!(outcome.model_result, json!({"ok": true}));
    assert_eq!(
        *events.lock().unwrap(),
        ["tool.started book_table ", "tool.succeeded book_table "]
    );
}
