//! The `hark` binary itself: `--help`, startup log, and graceful shutdown on SIGTERM/SIGINT.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use futures::StreamExt;
use tokio_tungstenite::tungstenite::Message;

const HARK: &str = env!("CARGO_BIN_EXE_hark");

const SERVE_FLAGS: &[&str] = &[
    "--addr",
    "--demo",
    "--web-dir",
    "--max-frame-bytes",
    "--header-read-timeout",
    "--client-ready-timeout",
    "--ping-interval",
    "--pong-timeout",
    "--error-repeat-window",
    "--allow-origin",
    "--max-snapshot-nodes",
    "--max-snapshot-depth",
    "--max-snapshot-bytes",
    "--max-messages-per-sec",
    "--message-burst",
    "--flood-close-after",
    "--max-pending-jobs",
    "--max-ui-events",
    "--max-connections",
    "--drain-timeout",
    "--agent",
    "--log",
];

const ENV_VARS: &[&str] = &[
    "HARK_ADDR",
    "HARK_WEB_DIR",
    "HARK_MAX_FRAME_BYTES",
    "HARK_HEADER_READ_TIMEOUT",
    "HARK_CLIENT_READY_TIMEOUT",
    "HARK_PING_INTERVAL",
    "HARK_PONG_TIMEOUT",
    "HARK_ERROR_REPEAT_WINDOW",
    "HARK_ALLOW_ORIGINS",
    "HARK_MAX_SNAPSHOT_NODES",
    "HARK_MAX_SNAPSHOT_DEPTH",
    "HARK_MAX_SNAPSHOT_BYTES",
    "HARK_MAX_MESSAGES_PER_SEC",
    "HARK_MESSAGE_BURST",
    "HARK_FLOOD_CLOSE_AFTER",
    "HARK_MAX_PENDING_JOBS",
    "HARK_MAX_UI_EVENTS",
    "HARK_MAX_CONNECTIONS",
    "HARK_DRAIN_TIMEOUT",
    "HARK_AGENT",
    "RUST_LOG",
];

fn help(args: &[&str]) -> String {
    let out = Command::new(HARK).args(args).output().expect("run hark");
    assert!(out.status.success(), "hark {args:?}: {}", out.status);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `hark serve --help` and `hark serve -h` both print every flag and environment variable.
#[test]
fn serve_help_documents_every_flag_and_env_var() {
    for flag in ["--help", "-h"] {
        let text = help(&["serve", flag]);
        for needle in SERVE_FLAGS.iter().chain(ENV_VARS) {
            assert!(
                text.contains(needle),
                "`hark serve {flag}` lacks {needle}:\n{text}"
            );
        }
        assert!(text.contains("Environment"), "{text}");
    }
    assert_eq!(help(&["serve", "-h"]), help(&["serve", "--help"]));
}

/// `hark --help` lists the subcommands and names each environment variable once.
#[test]
fn top_help_lists_subcommands_and_each_env_var_once() {
    let text = help(&["--help"]);
    assert!(text.contains("serve"), "{text}");
    assert!(text.contains("--log"), "{text}");
    for env in ENV_VARS {
        assert_eq!(text.matches(env).count(), 1, "{env} in:\n{text}");
    }
}

/// Runs `hark serve` on a free port, returns the child, its `ws://…/ws` URL and its log lines.
/// Log lines before the address line are sent on again so the caller sees every line.
fn start_hark(extra: &[&str]) -> (std::process::Child, String, mpsc::Receiver<String>) {
    let mut child = Command::new(HARK)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(extra)
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
    let mut url = None;
    let mut early = Vec::new();
    while url.is_none() {
        let line = rx.recv_timeout(STEP).expect("hark logs its address");
        early.push(line.clone());
        if let Some(start) = line.find("ws://") {
            let rest = &line[start..];
            let end = rest.find("/ws").expect("URL ends in /ws") + 3;
            url = Some(rest[..end].to_owned());
        }
    }
    // Put the lines read so far in front of the rest.
    let (all_tx, all_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in early.into_iter().chain(rx.iter()) {
            if all_tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, url.unwrap(), all_rx)
}

fn signal(child: &std::process::Child, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn session(url: &str) -> Ws {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("connect to hark");
    handshake(&mut ws, "b1").await;
    ws
}

async fn close_of(ws: &mut Ws) -> (u16, String) {
    loop {
        match tokio::time::timeout(STEP, ws.next())
            .await
            .expect("close in time")
        {
            Some(Ok(Message::Close(Some(f)))) => return (u16::from(f.code), f.reason.to_string()),
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    }
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("hark did not exit after the signal");
}

#[tokio::test]
async fn sigterm_and_sigint_close_open_sessions_and_exit_cleanly() {
    for sig in ["-TERM", "-INT"] {
        let (mut child, url, logs) = start_hark(&[]);
        let mut a = session(&url).await;
        let mut b = session(&url).await;
        signal(&child, sig);
        assert_eq!(
            close_of(&mut a).await,
            (1001, "Server shutting down".to_owned())
        );
        assert_eq!(
            close_of(&mut b).await,
            (1001, "Server shutting down".to_owned())
        );
        let status = tokio::task::spawn_blocking(move || wait_exit(&mut child))
            .await
            .unwrap();
        assert!(status.success(), "{sig}: {status}");
        // The reader ends at the exit's EOF, so this collects every line.
        let log: Vec<String> = logs.iter().collect();
        let want = if sig == "-TERM" {
            "SIGTERM received"
        } else {
            "SIGINT received"
        };
        assert!(log.iter().any(|l| l.contains(want)), "{log:#?}");
        assert!(
            log.iter()
                .any(|l| l.contains("session") && l.contains("id=s")),
            "session id in logs: {log:#?}"
        );
    }
}

#[tokio::test]
async fn demo_without_a_built_page_says_how_to_build_it() {
    let missing = std::env::temp_dir().join(format!("hark-no-page-{}", std::process::id()));
    let (mut child, url, logs) = start_hark(&["--demo", "--web-dir", missing.to_str().unwrap()]);
    let addr = url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .to_owned();
    let page = {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut out = String::new();
        tokio::time::timeout(STEP, s.read_to_string(&mut out))
            .await
            .unwrap()
            .unwrap();
        out
    };
    assert!(
        page.contains("npm --prefix web ci && npm --prefix web run build"),
        "{page}"
    );
    signal(&child, "-TERM");
    let status = tokio::task::spawn_blocking(move || wait_exit(&mut child))
        .await
        .unwrap();
    assert!(status.success());
    // The reader ends at the exit's EOF, so this collects every line.
    let log: Vec<String> = logs.iter().collect();
    assert!(
        log.iter().any(|l| l.contains("has no index.html")
            && l.contains("npm --prefix web ci && npm --prefix web run build")),
        "{log:#?}"
    );
}
