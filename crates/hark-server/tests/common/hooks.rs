//! Fault-test helpers: a loopback HTTP server standing in for webhooks,
//! that counts what arrives and answers at once, after a release, or never; and the process's
//! resident memory.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::STEP;

/// How the server answers one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `200 {"ok": true}` at once.
    Now,
    /// `200 {"ok": true}` once [`HookServer::release`] was called.
    AfterRelease,
    /// Never: the connection is held open, unanswered.
    Never,
}

type Policy = dyn Fn(&str, &Value) -> Answer + Send + Sync;

struct State {
    policy: Box<Policy>,
    /// Requests that arrived (head and body read), per path.
    arrived: Mutex<HashMap<String, usize>>,
    /// Answers written, per path.
    answered: Mutex<HashMap<String, usize>>,
    /// Bumped on every arrival and answer.
    changed: watch::Sender<u64>,
    release: watch::Sender<bool>,
}

/// A webhook receiver on 127.0.0.1: reads `POST`/`GET` requests (head + `Content-Length`
/// body), counts them per path, and answers each as `policy(path, body)` says, with
/// `Connection: close`.
#[derive(Clone)]
pub struct HookServer {
    pub addr: SocketAddr,
    state: Arc<State>,
}

impl HookServer {
    pub async fn start(policy: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State {
            policy: Box::new(policy),
            arrived: Mutex::default(),
            answered: Mutex::default(),
            changed: watch::channel(0).0,
            release: watch::channel(false).0,
        });
        let st = state.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                tokio::spawn(serve(tcp, st.clone()));
            }
        });
        HookServer { addr, state }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn arrived(&self, path: &str) -> usize {
        *self.state.arrived.lock().unwrap().get(path).unwrap_or(&0)
    }

    pub fn answered(&self, path: &str) -> usize {
        *self.state.answered.lock().unwrap().get(path).unwrap_or(&0)
    }

    /// Answers every request held with [`Answer::AfterRelease`], and those to come.
    pub fn release(&self) {
        self.state.release.send_replace(true);
    }

    /// Waits (guarded by `guard`) until `done(self)` holds; re-checked on every arrival/answer.
    pub async fn wait_until(
        &self,
        what: &str,
        guard: std::time::Duration,
        done: impl Fn(&Self) -> bool,
    ) {
        let mut changed = self.state.changed.subscribe();
        tokio::time::timeout(guard, async {
            while !done(self) {
                let _ = changed.changed().await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("webhook server: {what} in time"));
    }

    /// [`wait_until`](Self::wait_until) with the [`STEP`] guard.
    pub async fn wait_for(&self, what: &str, done: impl Fn(&Self) -> bool) {
        self.wait_until(what, STEP, done).await;
    }
}

fn bump(state: &State, map: &Mutex<HashMap<String, usize>>, path: &str) {
    *map.lock().unwrap().entry(path.to_string()).or_insert(0) += 1;
    state.changed.send_modify(|n| *n += 1);
}

async fn serve(mut tcp: TcpStream, state: Arc<State>) {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match tcp.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .split('?')
        .next()
        .unwrap_or("/")
        .to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())
                .flatten()
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match tcp.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body: Value =
        serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    let answer = (state.policy)(&path, &body);
    bump(&state, &state.arrived, &path);
    match answer {
        Answer::Now => {}
        Answer::AfterRelease => {
            let mut release = state.release.subscribe();
            if release.wait_for(|r| *r).await.is_err() {
                return;
            }
        }
        Answer::Never => {
            // Hold the connection until the client goes away.
            while let Ok(n) = tcp.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
            }
            return;
        }
    }
    let body = r#"{"ok":true}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if tcp.write_all(response.as_bytes()).await.is_ok() {
        let _ = tcp.flush().await;
        bump(&state, &state.answered, &path);
    }
}

/// This process's resident set size, in KiB (`VmRSS` of /proc/self/status).
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}
