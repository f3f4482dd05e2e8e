//! Where an idle session's memory goes, part by part (the per-idle-session goal is in
//! the "Load" section of `docs/PERFORMANCE.md`).
//!
//! In one process, with the `hark` binary's allocator (jemalloc) and its exact live-byte count
//! (`stats.allocated`, after an `epoch` refresh), this example:
//!
//! 1. (part B) builds what `hark serve --agent FILE` runs (`hark_server::serve::agent_sessions` on
//!    hark-load's own agent file: a voice agent with the `screen` tool, the UI worker with the
//!    local classifier) and measures, for `N` copies each, the parts one session holds:
//!    the decoded 200-node `A11ySnapshot`, the UI session handler
//!    (`UiHandlerFactory::handler`: worker, context, bus, job routes, groups, events), the
//!    outbox, the voice agent and its registry with the forwarder task (built on the first
//!    input, `SessionInput::Ready`), and the worker's side of the first snapshot;
//! 2. (part A) serves those sessions for real (`Server::bind_with_handler`, loopback) and opens
//!    `N` WebSocket sessions from bare TCP clients (a hand-written upgrade and unmasked-key
//!    frames: the client side allocates next to nothing), measuring the whole per-session cost
//!    after the handshake and after one 200-node snapshot each — the two figures `hark-load`
//!    reads from the server's RSS — then the same with the no-agent handler (the socket and
//!    session machinery alone), and a bare tokio-tungstenite server socket with a 16 KiB and a
//!    4 KiB read buffer (the WebSocket alone, before and after one 11 KB message).
//!
//! Part A runs first so that its resident figure is not blurred by pages part B frees.
//!
//! ```text
//! cargo run -p hark-load --example session_memory -- 300
//! ```
//!
//! The agent file's LLM is never called (no turn is sent). Its key variable is set for a child
//! process: the example re-runs itself with it (no `unsafe` `set_var`).

use std::sync::Arc;
use std::time::Duration;

use hark_rtvi::message::{ClientMessage, parse_client_message};
use hark_rtvi::{A11yNode, A11ySnapshot, VersionCheck};
use hark_server::session::{Outbox, SessionHandler as _, SessionInput};
use hark_server::ui_session::DEFAULT_SCREEN_SOURCE;
use hark_server::{Server, ServerConfig, SessionId};
use tikv_jemalloc_ctl::{epoch, stats};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[path = "../src/cli.rs"]
#[allow(dead_code)]
mod cli;
#[path = "../src/server.rs"]
#[allow(dead_code)]
mod server;
#[path = "../src/snapshot.rs"]
#[allow(dead_code)]
mod snapshot;
#[path = "../src/wire.rs"]
#[allow(dead_code)]
mod wire;

/// Live bytes (jemalloc `stats.allocated`, refreshed).
fn allocated() -> usize {
    let _ = epoch::advance();
    stats::allocated::read().unwrap_or(0)
}

/// Resident bytes jemalloc maps (`stats.resident`: live bytes plus its metadata, dirty pages
/// and fragmentation).
fn resident() -> usize {
    let _ = epoch::advance();
    stats::resident::read().unwrap_or(0)
}

/// The whole process's resident set (`/proc/self/statm`, pages × 4 KiB): what `hark-load`
/// reads of `hark serve`, to compare with jemalloc's own counts; 0 where /proc is missing.
fn process_rss() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Measures `make` for `n` copies held at once: bytes per copy.
fn per_copy(before: usize, n: usize) -> f64 {
    (allocated() as f64 - before as f64) / n as f64
}

fn row(part: &str, bytes: f64, note: &str) {
    println!(
        "| {part} | {:>8.0} B | {:>6.1} KiB | {note} |",
        bytes,
        bytes / 1024.0
    );
}

/// A sink that drops every message (for measuring the parts that need one).
#[derive(Debug)]
struct NullSink;

impl hark_ui::CommandSink for NullSink {
    fn send(&self, _message: hark_rtvi::message::ServerMessage) -> Result<(), hark_ui::SinkClosed> {
        Ok(())
    }
}

/// `(node structs, string and vector capacities)` of a tree, in bytes.
fn tree_bytes(node: &A11yNode) -> (usize, usize) {
    let mut inline = std::mem::size_of::<A11yNode>();
    let text = |s: &hark_rtvi::CompactString| {
        if s.is_heap_allocated() {
            s.capacity()
        } else {
            0
        }
    };
    let mut heap = text(&node.ref_)
        + text(&node.role)
        + node.name.as_ref().map_or(0, text)
        + node.rare().map_or(0, |r| {
            std::mem::size_of::<hark_rtvi::NodeRare>()
                + r.value.as_ref().map_or(0, String::capacity)
                + r.state.capacity() * std::mem::size_of::<String>()
                + r.state.iter().map(String::capacity).sum::<usize>()
        })
        + (node.children.capacity() - node.children.len()) * std::mem::size_of::<A11yNode>();
    for c in &node.children {
        let (i, h) = tree_bytes(c);
        inline += i;
        heap += h;
    }
    (inline, heap)
}

/// One binary WebSocket frame from a client, masked with the all-zero key (valid; the payload
/// is then unchanged).
fn client_frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    out.push(0x82);
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n <= 0xffff => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(payload);
    out
}

/// Reads until `needle` appears in what came (at most 64 KiB kept), or 30 s pass.
async fn read_until(tcp: &mut TcpStream, needle: &[u8]) -> Result<(), String> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let wait = async {
        loop {
            let n = tcp.read(&mut buf).await.map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the server closed".to_owned());
            }
            seen.extend_from_slice(&buf[..n]);
            if seen.windows(needle.len()).any(|w| w == needle) {
                return Ok(());
            }
            if seen.len() > 65536 {
                seen.drain(..32768);
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .map_err(|_| "timed out".to_owned())?
}

/// `n` connections to a bare tokio-tungstenite server with `read_buffer_size(buffer)`, each
/// read by a task that drops what it reads: live bytes before, after the upgrades, after one
/// snapshot frame each.
async fn bare_websockets(
    n: usize,
    buffer: usize,
    pages: &[snapshot::Page],
) -> Result<(usize, usize, usize), String> {
    use futures::StreamExt;
    use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let accept = tokio::spawn(async move {
        let mut tasks = Vec::new();
        while let Ok((tcp, _)) = listener.accept().await {
            let config = WebSocketConfig::default().read_buffer_size(buffer);
            tasks.push(tokio::spawn(async move {
                if let Ok(mut ws) =
                    tokio_tungstenite::accept_async_with_config(tcp, Some(config)).await
                {
                    while let Some(Ok(_)) = ws.next().await {}
                }
            }));
        }
    });
    let upgrade = |addr| {
        format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = allocated();
    let mut clients = Vec::with_capacity(n);
    for _ in 0..n {
        let mut tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        tcp.write_all(upgrade(addr).as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        read_until(&mut tcp, b"\r\n\r\n").await?;
        clients.push(tcp);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after_upgrade = allocated();
    for (i, c) in clients.iter_mut().enumerate() {
        c.write_all(&client_frame(&pages[(i + 1) % pages.len()].frame))
            .await
            .map_err(|e| e.to_string())?;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_message = allocated();
    drop(clients);
    tokio::time::sleep(Duration::from_millis(500)).await;
    accept.abort();
    Ok((before, after_upgrade, after_message))
}

/// A bare client: the upgrade by hand, `client-ready`, until `bot-ready`.
async fn open(addr: std::net::SocketAddr, n: usize) -> Result<TcpStream, String> {
    let mut tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let upgrade = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(upgrade.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    read_until(&mut tcp, b"\r\n\r\n").await?;
    let hello = hark_rtvi::frame::encode_message_json(&wire::client_ready(&format!("{n:08x}")));
    tcp.write_all(&client_frame(&hello))
        .await
        .map_err(|e| e.to_string())?;
    read_until(&mut tcp, b"bot-ready").await?;
    Ok(tcp)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    if std::env::var_os(server::KEY_ENV).is_none() {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let status = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(server::KEY_ENV, "session-memory-key")
            .status()
            .map_err(|e| e.to_string())?;
        std::process::exit(status.code().unwrap_or(1));
    }
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300)
        .max(1);

    // The agent file hark-load gives `hark serve` (its LLM at a port nobody calls here).
    let agent = server::write_agent_file("http://127.0.0.1:9/v1").map_err(|e| e.to_string())?;
    let served = hark_server::serve::agent_sessions(Some(&agent)).await?;
    assert!(served.voice, "the agent file runs a voice agent");
    let factory = served.factory.clone();
    let pages = snapshot::pages(200);
    let texts: Vec<String> = pages
        .iter()
        .map(|p| {
            let f = hark_rtvi::frame::decode_frame(&p.frame).expect("our own frame");
            f.message_json().expect("a message").to_owned()
        })
        .collect();
    let decode = |i: usize| -> Arc<A11ySnapshot> {
        match parse_client_message(&texts[i % texts.len()])
            .expect("our own snapshot")
            .message
        {
            ClientMessage::UiSnapshot(s) => Arc::from(s),
            _ => unreachable!("a ui-snapshot"),
        }
    };
    let outbound = ServerConfig::default().outbound_queue;

    // Warm up: one whole session (lazy statics, the classifier's shared caches, thread caches).
    {
        let mut h = factory.handler(SessionId(1_000_000));
        let (outbox, _rx) = Outbox::channel(SessionId(1_000_000), outbound);
        h.handle(
            SessionInput::Ready {
                version: VersionCheck::Compatible,
            },
            &outbox,
        )
        .await;
        for g in 0..pages.len() {
            h.handle(SessionInput::Snapshot(decode(g).into()), &outbox)
                .await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    println!("N = {n} sessions; jemalloc stats.allocated (live bytes), per session\n");

    // A. The whole session, served for real over loopback (first, so jemalloc's resident
    //    figure is not blurred by pages the part-by-part runs below free again).
    let config = ServerConfig {
        addr: "127.0.0.1:0".parse().expect("an address"),
        ping_interval: Duration::from_secs(3600),
        max_connections: n + 16,
        ..ServerConfig::default()
    };
    let server =
        Server::bind_with_handler(config.clone(), factory.clone()).map_err(|e| e.to_string())?;
    let addr = server.local_addr();
    tokio::spawn(server.run_until(std::future::pending()));
    // One session through the server first (its first-use allocations).
    let mut warm = open(addr, 0).await?;
    warm.write_all(&client_frame(&pages[0].frame))
        .await
        .map_err(|e| e.to_string())?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (t0, r0, p0) = (allocated(), resident(), process_rss());
    let mut clients = Vec::with_capacity(n);
    for i in 0..n {
        clients.push(open(addr, i + 1).await?);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (t1, r1, p1) = (allocated(), resident(), process_rss());
    let send_all = |clients: &mut Vec<TcpStream>, frames: Vec<Vec<u8>>| {
        let mut clients = std::mem::take(clients);
        async move {
            for (c, f) in clients.iter_mut().zip(frames) {
                c.write_all(&f).await.map_err(|e| e.to_string())?;
            }
            tokio::time::sleep(Duration::from_secs(3)).await;
            Ok::<_, String>(clients)
        }
    };
    // First a 30-node snapshot: what any first snapshot costs beside its tree.
    let small = snapshot::page(5, snapshot::MIN_NODES);
    let frames = (0..n).map(|_| client_frame(&small.frame)).collect();
    clients = send_all(&mut clients, frames).await?;
    let t_small = allocated();
    let frames = (0..n)
        .map(|i| client_frame(&pages[(i + 1) % pages.len()].frame))
        .collect();
    clients = send_all(&mut clients, frames).await?;
    let (t2, r2, p2) = (allocated(), resident(), process_rss());
    // A second 200-node snapshot (another generation) replaces the first.
    let frames = (0..n)
        .map(|i| client_frame(&pages[(i + 2) % pages.len()].frame))
        .collect();
    clients = send_all(&mut clients, frames).await?;
    let t3 = allocated();
    // The 30-node snapshot again replaces that.
    let frames = (0..n).map(|_| client_frame(&small.frame)).collect();
    clients = send_all(&mut clients, frames).await?;
    let t4 = allocated();
    let per = |a: usize, b: usize| (b as f64 - a as f64) / n as f64 / 1024.0;
    println!(
        "| served for real (bare TCP clients) | allocated | resident (jemalloc) | process RSS |"
    );
    println!("| --- | --- | --- | --- |");
    println!(
        "| after the handshake | {:.1} KiB | {:.1} KiB | {:.1} KiB |",
        per(t0, t1),
        per(r0, r1),
        per(p0, p1)
    );
    println!(
        "| the first 200-node snapshot | {:.1} KiB | {:.1} KiB | {:.1} KiB |",
        per(t1, t2),
        per(r1, r2),
        per(p1, p2)
    );
    println!(
        "|   of which a first {}-node snapshot ({} B JSON), sent before it | {:.1} KiB | | |",
        small.nodes,
        small.json_bytes,
        per(t1, t_small)
    );
    println!(
        "| idle session in all | {:.1} KiB | {:.1} KiB | {:.1} KiB |",
        per(t0, t2),
        per(r0, r2),
        per(p0, p2)
    );
    println!(
        "| a second 200-node snapshot, replacing the first | {:.1} KiB | | |",
        per(t2, t3)
    );
    println!(
        "| a {}-node snapshot ({} B JSON), replacing that | {:.1} KiB | | |",
        small.nodes,
        small.json_bytes,
        per(t3, t4)
    );
    drop(clients);
    drop(warm);
    tokio::time::sleep(Duration::from_secs(1)).await;

    // A'. The same with `hark serve`'s no-agent handler: the socket and session machinery
    //     alone (server.rs / session.rs: WebSocket, reader/session/writer, channels, registry).
    let plain = Server::bind(config).map_err(|e| e.to_string())?;
    let plain_addr = plain.local_addr();
    tokio::spawn(plain.run_until(std::future::pending()));
    let mut warm = open(plain_addr, 0).await?;
    warm.write_all(&client_frame(&pages[0].frame))
        .await
        .map_err(|e| e.to_string())?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t0 = allocated();
    let mut clients = Vec::with_capacity(n);
    for i in 0..n {
        clients.push(open(plain_addr, i + 1).await?);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let t1 = allocated();
    let frames = (0..n)
        .map(|i| client_frame(&pages[(i + 1) % pages.len()].frame))
        .collect();
    clients = send_all(&mut clients, frames).await?;
    let t2 = allocated();
    println!(
        "| no-agent handler (`hark serve` without --agent): after the handshake | {:.1} KiB | |",
        per(t0, t1)
    );
    println!(
        "| no-agent handler: the first 200-node snapshot | {:.1} KiB | |",
        per(t1, t2)
    );
    drop(clients);
    drop(warm);
    tokio::time::sleep(Duration::from_secs(1)).await;

    // A''. A bare tungstenite server socket (tokio-tungstenite, the 16 KiB read buffer
    //      `hark serve` sets), each connection read by its own task until it closes: what the
    //      WebSocket alone holds after the upgrade and after one 11 KB message.
    for buffer in [16 * 1024, 4 * 1024] {
        let (before, after_upgrade, after_message) = bare_websockets(n, buffer, &pages).await?;
        println!(
            "| bare tungstenite socket, read_buffer_size {} KiB: after the upgrade | {:.1} KiB | |",
            buffer / 1024,
            per(before, after_upgrade)
        );
        println!(
            "| the same, after one {} B message | {:.1} KiB | |",
            pages[1].frame.len(),
            per(after_upgrade, after_message)
        );
    }

    // B. Part by part, N copies of each held at once.
    println!();
    println!("| part | bytes | KiB | what |");
    println!("| --- | --- | --- | --- |");

    // 1. The decoded snapshot the session stores (and shares with the worker as one Arc).
    let t = allocated();
    let snaps: Vec<Arc<A11ySnapshot>> = (0..n).map(decode).collect();
    let snap_bytes = per_copy(t, n);
    let nodes = snaps[0].root.count();
    row(
        "decoded 200-node A11ySnapshot",
        snap_bytes,
        &format!(
            "`parse_client_message` → `Arc<A11ySnapshot>`: {:.0} B per node ({} B of JSON)",
            snap_bytes / nodes as f64,
            texts[0].len()
        ),
    );
    let (inline, heap) = tree_bytes(&snaps[0].root);
    row(
        "  of which node structs",
        inline as f64,
        &format!(
            "{nodes} × size_of::<A11yNode>() = {} B",
            std::mem::size_of::<A11yNode>()
        ),
    );
    row(
        "  of which strings + spare Vec room",
        heap as f64,
        "capacities of ref, role, name, the boxed `NodeRare` (value, state) where a node has one, and unused `children` slots (before jemalloc's size-class rounding)",
    );

    // 2. The UI session handler before any input.
    let t = allocated();
    let mut handlers: Vec<_> = (0..n)
        .map(|i| factory.handler(SessionId(i as u64 + 1)))
        .collect();
    row(
        "UI session handler",
        per_copy(t, n),
        "`UiHandlerFactory::handler`: UiWorker, WorkerContext, Bus, JobRoutes, JobLimit, JobGroups, UiEvents, the sink into the outbox",
    );

    // 2a–2f. Its parts alone, as `UiHandlerFactory::handler` makes them.
    let sink: Arc<dyn hark_ui::CommandSink> = Arc::new(NullSink);
    let t = allocated();
    let workers: Vec<_> = (0..n)
        .map(|_| {
            Arc::new(hark_ui::UiWorker::with_options(
                "ui",
                sink.clone(),
                hark_ui::UiContextOptions::default(),
            ))
        })
        .collect();
    row(
        "  of which UiWorker",
        per_copy(t, n),
        "`UiWorker::with_options`",
    );
    let t = allocated();
    let contexts: Vec<_> = (0..n)
        .map(|_| {
            Arc::new(hark_ui::WorkerContext::new(
                hark_ui::UiContextOptions::default(),
                None,
            ))
        })
        .collect();
    row(
        "  of which WorkerContext",
        per_copy(t, n),
        "`WorkerContext::new`",
    );
    let t = allocated();
    let buses: Vec<_> = (0..n).map(|_| Arc::new(hark_ui::Bus::new())).collect();
    row(
        "  of which Bus",
        per_copy(t, n),
        "`Bus::new` (no worker registered)",
    );
    let t = allocated();
    let groups: Vec<_> = buses
        .iter()
        .map(|b| hark_ui::JobGroups::new("ui", b.clone(), sink.clone()))
        .collect();
    row("  of which JobGroups", per_copy(t, n), "`JobGroups::new`");
    let t = allocated();
    let events: Vec<_> = contexts
        .iter()
        .map(|c| hark_ui::UiEvents::builder().context(c.clone()).build())
        .collect();
    row(
        "  of which UiEvents",
        per_copy(t, n),
        "`UiEvents::builder().context(..).build()`",
    );
    drop((workers, contexts, groups, events, buses));

    // 3. The outbox (the server makes one per session).
    let t = allocated();
    let outboxes: Vec<_> = (0..n)
        .map(|i| Outbox::channel(SessionId(i as u64 + 1), outbound))
        .collect();
    row(
        "outbox channel",
        per_copy(t, n),
        "`Outbox::channel(id, 128)`: a tokio mpsc allocates its first 32-slot block at once",
    );

    // 4. The first input: the voice agent and its registry, the forwarder task.
    let t = allocated();
    for (h, (outbox, _)) in handlers.iter_mut().zip(&outboxes) {
        h.handle(
            SessionInput::Ready {
                version: VersionCheck::Compatible,
            },
            outbox,
        )
        .await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    row(
        "voice agent + registry + forwarder task",
        per_copy(t, n),
        "first `handle`: `VoiceAgentConfig::agent`, `tokio::spawn` forwarder",
    );

    // 4a/4b. What 4 builds per session for its registry, alone.
    let setup = hark_agent::agent_file::AgentFile::load(&agent)
        .map_err(|e| format!("{e:?}"))?
        .build(
            &served
                .shop
                .as_ref()
                .map(|shop| shop.host.clone())
                .unwrap_or_default(),
        )
        .map_err(|e| format!("{e:?}"))?;
    let session = handlers[0].session().clone();
    let timeout = hark_ui::DEFAULT_SCREEN_TIMEOUT;
    let t = allocated();
    let mut extras = Vec::with_capacity(n);
    for _ in 0..n {
        let mut extra = session.screen_tools(timeout).map_err(|e| e.to_string())?;
        extra.push(
            hark_agent::ask_screen_tool(
                session.bus().clone(),
                DEFAULT_SCREEN_SOURCE,
                session.worker().name(),
                timeout,
            )
            .map_err(|e| e.to_string())?,
        );
        extras.push(extra);
    }
    let specs = per_copy(t, n);
    row(
        "  of which screen tools' specs",
        specs,
        &format!(
            "`UiSession::screen_tools` + `ask_screen_tool`: {} ToolSpecs, schemas built per session",
            extras[0].len()
        ),
    );
    let t = allocated();
    let clones: Vec<Vec<_>> = (0..n).map(|_| extras[0].clone()).collect();
    row(
        "  (the same specs, cloned)",
        per_copy(t, n),
        "what a session would hold if the specs were built once and cloned (`ToolSpec` shares its schemas and validator through `Arc`s)",
    );
    drop(clones);
    let t = allocated();
    let mut registries = Vec::with_capacity(n);
    for extra in extras {
        registries.push(
            setup
                .registry
                .with_tools(extra)
                .map_err(|e| e.to_string())?,
        );
    }
    row(
        "  of which ToolRegistry::with_tools",
        per_copy(t, n),
        &format!(
            "the agent's {} tools cloned + the screen tools assembled (beyond their specs above)",
            setup.registry.names().len()
        ),
    );
    drop(registries);

    // 5. The worker's side of the first snapshot (the Arc itself is counted in 1).
    let t = allocated();
    for ((h, (outbox, _)), s) in handlers.iter_mut().zip(&outboxes).zip(&snaps) {
        h.handle(SessionInput::Snapshot(s.clone().into()), outbox)
            .await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    row(
        "worker's side of the first snapshot",
        per_copy(t, n),
        "`UiWorker::on_snapshot` (Screen over the shared Arc) + the classifier's `prepare`",
    );
    drop(handlers);
    drop(outboxes);
    drop(snaps);

    println!();
    println!("| type | size_of | a tokio mpsc's first block (32 slots) |");
    println!("| --- | --- | --- |");
    for (name, size) in [
        (
            "hark_server::Outgoing",
            std::mem::size_of::<hark_server::Outgoing>(),
        ),
        (
            "hark_server::SessionInput",
            std::mem::size_of::<SessionInput>(),
        ),
        (
            "hark_rtvi::message::Inbound",
            std::mem::size_of::<hark_rtvi::message::Inbound>(),
        ),
        (
            "hark_rtvi::message::ServerMessage",
            std::mem::size_of::<hark_rtvi::message::ServerMessage>(),
        ),
        ("hark_rtvi::A11yNode", std::mem::size_of::<A11yNode>()),
        (
            "hark_rtvi::A11ySnapshot",
            std::mem::size_of::<A11ySnapshot>(),
        ),
    ] {
        println!(
            "| {name} | {size} B | {:.1} KiB |",
            (32 * size) as f64 / 1024.0
        );
    }
    Ok(())
}
