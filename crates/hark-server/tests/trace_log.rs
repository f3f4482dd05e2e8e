//! With `--log trace`, what the caller types reaches no log line (the real
//! `hark` binary, a real WebSocket client); the WebSocket library's own frame logs, which carry
//! it, come back only when named (`--log trace,tungstenite=trace`).

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::json;

const HARK: &str = env!("CARGO_BIN_EXE_hark");

/// A text nobody else writes, as sent and as the hex tungstenite prints payloads in.
const MARKER: &str = "zq-MARKER-7f3a9c-secret";

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Runs `hark serve --log <log>`, sends the marker as typed text and in a ui-event, waits for
/// the answer, stops hark and returns every log line.
async fn log_of_a_session(log: &str) -> Vec<String> {
    let mut child = Command::new(HARK)
        .args(["serve", "--addr", "127.0.0.1:0", "--log", log])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hark");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    let url = loop {
        let line = rx.recv_timeout(STEP).expect("hark logs its address");
        lines.push(line.clone());
        if let Some(start) = line.find("ws://") {
            let rest = &line[start..];
            break rest[..rest.find("/ws").expect("URL ends in /ws") + 3].to_owned();
        }
    };
    let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .expect("connect to hark");
    handshake(&mut ws, "t1").await;
    send_json(
        &mut ws,
        &envelope(
            "send-text",
            "t2",
            json!({"content": format!("my PIN is {MARKER}")}),
        ),
    )
    .await;
    // The built-in handler answers the turn; the frames were read and written by then.
    let mut answered = false;
    for _ in 0..8 {
        if recv_json(&mut ws).await["type"] == "bot-llm-stopped" {
            answered = true;
            break;
        }
    }
    assert!(answered, "the turn is answered");
    send_json(
        &mut ws,
        &envelope(
            "ui-event",
            "t3",
            json!({"event": "typed", "payload": {"text": MARKER}}),
        ),
    )
    .await;
    assert_alive(&mut ws, "t4").await;
    drop(ws);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for _ in 0..300 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    lines
}

fn lines_with_marker(lines: &[String]) -> Vec<&String> {
    let hex = hex(MARKER);
    lines
        .iter()
        .filter(|l| l.contains(MARKER) || l.contains(&hex))
        .collect()
}

#[tokio::test]
async fn trace_logs_do_not_carry_what_the_caller_typed() {
    let lines = log_of_a_session("trace").await;
    assert!(
        lines.iter().any(|l| l.contains(" DEBUG ")),
        "hark's own debug lines are on: {lines:#?}"
    );
    let leaks = lines_with_marker(&lines);
    assert!(leaks.is_empty(), "the typed text is in the log: {leaks:#?}");
}

#[tokio::test]
async fn naming_the_websocket_library_turns_its_frame_logs_on() {
    let lines = log_of_a_session("trace,tungstenite=trace").await;
    assert!(
        !lines_with_marker(&lines).is_empty(),
        "tungstenite=trace logs frames with their payload: {:#?}",
        lines
            .iter()
            .filter(|l| l.contains("tungstenite"))
            .collect::<Vec<_>>()
    );
}
