//! SIGTERM with calls in flight and background webhooks queued (the last row of the faults table
//! in `docs/RELIABILITY.md`): the real `hark serve --agent FILE` binary, 50 RTVI sessions each in
//! the middle of a slow webhook call, 1,000 background webhooks (`background = true`) queued at a
//! loopback HTTP server, then `kill -TERM`.
//!
//! Outcome asserted: every session gets close 1001 "Server shutting down"; the process exits 0
//! (within the drain limit plus the close grace: a hang guard, not a timing); each background
//! webhook either was answered (the drain let it finish) or is counted in a log line naming its
//! tool as abandoned after the drain limit — 900 + 100 = 1,000 exactly; no argument value in the
//! log; no panic.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::hooks::{Answer, HookServer};
use common::*;
use futures::StreamExt;
use hark_llm::testing::{ScriptedServer, Turn};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

const HARK: &str = env!("CARGO_BIN_EXE_hark");
const SESSIONS: usize = 50;
const BACKGROUND_PER_SESSION: usize = 20;
/// Background webhooks whose `n` is a multiple of this are never answered.
const NEVER_EVERY: u64 = 10;

fn agent_file(llm: &str, hooks: &HookServer) -> String {
    format!(
        r#"
name = "sigterm"
system_prompt = "You note every call in the CRM."

[llm]
provider = "openai-compatible"
base_url = "{llm}"
model = "m"

[ui]
worker = false

[[webhook]]
name = "notify_crm"
description = "Note the call in the CRM."
url = "{bg}"
timeout = 120
background = true
allow_private_network = true

[webhook.input.n]
type = "integer"

[[webhook]]
name = "lookup_order"
description = "Look up an order."
url = "{slow}"
timeout = 120
allow_private_network = true

[webhook.input.order]
type = "string"
"#,
        bg = hooks.url("/bg"),
        slow = hooks.url("/slow"),
    )
}

/// One model turn: 20 background webhook calls (n = base..base+20) and one slow lookup.
fn turn(session: usize) -> Turn {
    let mut t = Turn::stream().text("One moment.");
    for k in 0..BACKGROUND_PER_SESSION {
        let n = session * BACKGROUND_PER_SESSION + k;
        t = t
            .tool_call_start(k as u32, &format!("bg_{n}"), "notify_crm")
            .tool_call_args(k as u32, &json!({"n": n}).to_string());
    }
    let k = BACKGROUND_PER_SESSION as u32;
    t.tool_call_start(k, &format!("slow_{session}"), "lookup_order")
        .tool_call_args(k, r#"{"order":"SECRET-ORDER-4711"}"#)
        .finish("tool_calls")
        .done()
}

/// Starts `hark serve --agent FILE` on a free port: the child, its ws URL, its stderr lines.
fn start_hark(file: &std::path::Path) -> (std::process::Child, String, mpsc::Receiver<String>) {
    let mut child = Command::new(HARK)
        .args(["serve", "--addr", "127.0.0.1:0", "--agent"])
        .arg(file)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hark");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut early = Vec::new();
    let url = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("hark logs its address");
        early.push(line.clone());
        if let Some(start) = line.find("ws://") {
            let rest = &line[start..];
            let end = rest.find("/ws").expect("URL ends in /ws") + 3;
            break rest[..end].to_owned();
        }
    };
    let (all_tx, all_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in early.into_iter().chain(rx.iter()) {
            if all_tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, url, all_rx)
}

/// The value of `key=` in a tracing line (up to the next space).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!(" {key}="))? + key.len() + 2;
    line[start..].split_whitespace().next()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_background_webhooks_and_closes_every_session() {
    let hooks = HookServer::start(|path, body| match path {
        "/bg" if body["n"].as_u64().unwrap_or(1) % NEVER_EVERY == 0 => Answer::Never,
        "/bg" => Answer::AfterRelease,
        _ => Answer::Never,
    })
    .await;
    let llm = ScriptedServer::start((0..SESSIONS).map(turn).collect())
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("hark-sigterm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sigterm.toml");
    std::fs::write(&path, agent_file(&llm.base_url(), &hooks)).unwrap();

    let (mut child, url, logs) = start_hark(&path);
    let mut clients = Vec::new();
    for i in 0..SESSIONS {
        let (mut ws, _) = tokio::time::timeout(STEP, tokio_tungstenite::connect_async(&url))
            .await
            .expect("connect in time")
            .expect("connect to hark");
        handshake(&mut ws, &format!("r{i}")).await;
        send_json(
            &mut ws,
            &envelope("send-text", &format!("t{i}"), json!({"content": "hello"})),
        )
        .await;
        clients.push(ws);
    }
    let total = SESSIONS * BACKGROUND_PER_SESSION;
    // Every session is in the middle of its slow call, and every background webhook is
    // queued (arrived, unanswered).
    hooks
        .wait_until("every call in flight", Duration::from_secs(120), |h| {
            h.arrived("/slow") == SESSIONS && h.arrived("/bg") == total
        })
        .await;
    assert_eq!(hooks.answered("/bg"), 0);

    let term_at = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());

    // Each session reads the shutdown close (reading concurrently: the server closes them all
    // at once).
    let closes = futures::future::join_all(clients.iter_mut().map(|ws| async move {
        loop {
            match tokio::time::timeout(STEP, ws.next())
                .await
                .expect("close in time")
            {
                Some(Ok(Message::Close(Some(f)))) => {
                    return (u16::from(f.code), f.reason.to_string());
                }
                Some(Ok(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }))
    .await;
    for close in &closes {
        assert_eq!(close, &(1001, "Server shutting down".to_owned()));
    }

    // Release the answerable webhooks once the drain has started: they finish only because
    // the drain waits for them.
    let mut log = Vec::new();
    let drain_started = loop {
        let line = logs
            .recv_timeout(Duration::from_secs(60))
            .expect("hark says it lets background webhooks finish");
        let started = line.contains("letting background webhooks finish");
        log.push(line.clone());
        if started {
            break line;
        }
    };
    assert_eq!(
        field(&drain_started, "running"),
        Some(total.to_string().as_str()),
        "{drain_started}"
    );
    hooks.release();
    let released_at = Instant::now();
    let never = (0..total as u64).filter(|n| n % NEVER_EVERY == 0).count();
    hooks
        .wait_until(
            "the answerable webhooks answered",
            Duration::from_secs(60),
            |h| h.answered("/bg") == total - never,
        )
        .await;
    let answered_in = released_at.elapsed();

    let exit = tokio::task::spawn_blocking(move || {
        // Hang guard: drain limit (10 s) + close grace, with a wide margin for a loaded machine.
        for _ in 0..1200 {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        panic!("hark did not exit after SIGTERM");
    })
    .await
    .unwrap();
    let exited_after = term_at.elapsed();
    assert!(exit.success(), "exit status {exit}");
    log.extend(logs.iter());

    // Every answerable webhook finished during the drain.
    assert_eq!(hooks.answered("/bg"), total - never);
    // Every other one is named (tool and count) in one warn line per session and tool: here
    // every session left exactly its two never-answered `notify_crm` calls (n % 10 == 0).
    let abandoned: Vec<&String> = log
        .iter()
        .filter(|l| l.contains(hark_agent::agent::BACKGROUND_ABANDONED))
        .collect();
    let mut counted = 0;
    let mut sessions = std::collections::BTreeSet::new();
    for line in &abandoned {
        assert!(line.contains("WARN"), "{line}");
        assert_eq!(field(line, "tool"), Some("notify_crm"), "{line}");
        let unfinished = field(line, "unfinished")
            .and_then(|n| n.parse::<usize>().ok())
            .expect("unfinished=N");
        assert_eq!(
            unfinished,
            BACKGROUND_PER_SESSION / NEVER_EVERY as usize,
            "{line}"
        );
        counted += unfinished;
        let session = field(line, "session").expect("session=ID");
        assert!(
            sessions.insert(session.to_owned()),
            "one line per session and tool: {line}"
        );
    }
    assert_eq!(abandoned.len(), SESSIONS, "{abandoned:#?}");
    assert_eq!(counted, never, "{abandoned:#?}");
    assert_eq!(hooks.answered("/bg") + counted, total);
    let summary = log
        .iter()
        .find(|l| l.contains("background webhooks drained"))
        .expect("the drain's summary line");
    assert_eq!(
        field(summary, "abandoned"),
        Some(never.to_string().as_str())
    );
    let took_ms = field(summary, "took_ms").unwrap_or("?");
    // No argument value reaches the log, and nothing panicked.
    for line in &log {
        assert!(!line.contains("SECRET-ORDER-4711"), "{line}");
        assert!(!line.contains("panicked"), "{line}");
    }
    eprintln!(
        "figure: SIGTERM with {SESSIONS} calls in flight and {total} background webhooks queued: \
         exit 0 after {:.1} s; drain took {took_ms} ms; {} answered during the drain (all within \
         {} ms of their release), {counted} abandoned and logged in {} lines",
        exited_after.as_secs_f64(),
        hooks.answered("/bg"),
        answered_in.as_millis(),
        abandoned.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
