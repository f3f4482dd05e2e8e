//! Experiment behind the "Load" section of docs/PERFORMANCE.md: how much resident memory an
//! idle WebSocket connection costs an axum 0.8 server, with tungstenite's default read buffer
//! (128 KiB, zero-filled to its full capacity on every read) and with a smaller one.
//!
//! ```text
//! cargo run --release -p hark-load --example ws_read_buffer -- 1000 default
//! cargo run --release -p hark-load --example ws_read_buffer -- 1000 16384
//! ```
//!
//! The server (axum, `WebSocketUpgrade`, the buffer size given) runs in a child process (this
//! binary with `serve`); the parent opens N connections, sends each one 11 KB binary message
//! (a snapshot's size), and prints the child's RSS before and after, per connection.

use std::time::Duration;

use axum::Router;
use axum::extract::WebSocketUpgrade;
use axum::extract::ws::WebSocket;
use axum::routing::get;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_tungstenite::tungstenite::Message;

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|r| r.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

async fn serve(buffer: Option<usize>) {
    let app = Router::new().route(
        "/ws",
        get(move |ws: WebSocketUpgrade| async move {
            let ws = match buffer {
                Some(size) => ws.read_buffer_size(size),
                None => ws,
            };
            ws.on_upgrade(|mut socket: WebSocket| async move {
                while let Some(Ok(_)) = socket.next().await {}
            })
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    println!("{}", listener.local_addr().expect("address"));
    axum::serve(listener, app).await.expect("serve");
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        let buffer = args.get(2).and_then(|s| s.parse().ok());
        serve(buffer).await;
        return;
    }
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let buffer = args.get(2).cloned().unwrap_or_else(|| "default".into());
    let me = std::env::current_exe().expect("own path");
    let mut child = tokio::process::Command::new(me)
        .args(["serve", &buffer])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let pid = child.id().expect("pid");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let addr = out.next_line().await.expect("read").expect("address line");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib(pid);
    let payload = vec![b'x'; 11_325];
    let mut sockets = Vec::with_capacity(n);
    for _ in 0..n {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        ws.send(Message::Binary(payload.clone().into()))
            .await
            .expect("send");
        sockets.push(ws);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss_kib(pid);
    println!(
        "read buffer {buffer}: {n} connections, server RSS {before} KiB -> {after} KiB, {:.1} KiB per connection",
        (after as f64 - before as f64) / n as f64
    );
    drop(sockets);
    let _ = child.start_kill();
}
