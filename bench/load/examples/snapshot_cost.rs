//! Experiment behind the "Load" section of docs/PERFORMANCE.md: CPU time of the per-snapshot
//! work `hark serve` does on a `ui-snapshot` of the load generator's 200-node page, step by
//! step, in one thread, in CPU time (not wall time): protobuf frame decode, RTVI parse into the typed tree, the deep clone
//! the UI session once handed its worker, and dropping the trees; then the UI
//! worker's side today (`on_snapshot` on the shared `Arc`, `render_ui_state`, the local
//! classifier's `prepare`).
//!
//! ```text
//! cargo run --release -p hark-load --example snapshot_cost
//! ```

/// CPU time this thread has run, in ns (`/proc/thread-self/schedstat`, first field): wall
/// clock would count the time other processes of a busy machine hold the cores.
fn cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0.0)
}

/// A CPU-time stopwatch.
struct Instant(f64);

impl Instant {
    fn now() -> Self {
        Instant(cpu_ns())
    }
    fn elapsed(&self) -> Elapsed {
        Elapsed(cpu_ns() - self.0)
    }
}

struct Elapsed(f64);

impl Elapsed {
    fn as_secs_f64(&self) -> f64 {
        self.0 / 1e9
    }
}

use hark_rtvi::message::{ClientMessage, parse_client_message};

#[path = "../src/snapshot.rs"]
#[allow(dead_code)]
mod snapshot;

fn main() {
    let page = snapshot::page(7, 200);
    let rounds = 5_000u32;
    let t = Instant::now();
    let mut json_len = 0;
    for _ in 0..rounds {
        let f = hark_rtvi::frame::decode_frame(&page.frame).expect("a frame");
        json_len += f.message_json().map_or(0, str::len);
    }
    let frame_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    let f = hark_rtvi::frame::decode_frame(&page.frame).expect("a frame");
    let json = f.message_json().expect("a message").to_owned();
    let t = Instant::now();
    let mut trees = Vec::with_capacity(rounds as usize);
    for _ in 0..rounds {
        let m = parse_client_message(&json).expect("a snapshot").message;
        trees.push(m);
    }
    let parse_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    let t = Instant::now();
    let clones: Vec<_> = trees
        .iter()
        .map(|m| match m {
            ClientMessage::UiSnapshot(s) => Some(s.as_ref().clone()),
            _ => None,
        })
        .collect();
    let clone_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    let t = Instant::now();
    drop(clones);
    drop(trees);
    let drop_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    println!(
        "200-node ui-snapshot ({} B JSON, {json_len} B decoded in all): frame decode {frame_us:.1} µs, \
         parse {parse_us:.1} µs, deep clone {clone_us:.1} µs, drop of both {drop_us:.1} µs",
        page.json_bytes
    );
    worker_steps();
}

/// The UI worker's side of a snapshot today (one shared `Arc`, no clone): what
/// `UiWorker::on_snapshot` costs with no classifier, `render_ui_state` alone, and the local
/// classifier's `prepare` hook (called by `on_snapshot`) on a snapshot whose refs all changed
/// (the load generator's pages: every generation renumbers its refs).
fn worker_steps() {
    use std::sync::Arc;

    use hark_ui::classifier::{Classifier, LocalClassifier};

    let rounds = 2_000u32;
    // Distinct generations, so no cache holds a screen already (a real session's case).
    let snapshots: Vec<Arc<hark_rtvi::A11ySnapshot>> = (0..rounds)
        .map(|g| {
            let page = snapshot::page(g + 100, 200);
            let f = hark_rtvi::frame::decode_frame(&page.frame).expect("a frame");
            match parse_client_message(f.message_json().expect("json"))
                .expect("parse")
                .message
            {
                ClientMessage::UiSnapshot(s) => Arc::from(s),
                _ => unreachable!("a snapshot"),
            }
        })
        .collect();

    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let bare = hark_ui::UiWorker::new("ui", Arc::new(tx)).without_classifier();
    let t = Instant::now();
    for s in &snapshots {
        bare.on_snapshot(Arc::clone(s));
    }
    let on_snapshot_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);

    let t = Instant::now();
    let mut rendered = 0;
    for s in &snapshots {
        rendered += hark_ui::render::render_ui_state(s).len();
    }
    let render_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);

    let local = LocalClassifier::new();
    // Warm: the first call embeds the page's names (in the background).
    local.prepare(&snapshots[0]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let t = Instant::now();
    for s in &snapshots[1..] {
        local.prepare(s);
    }
    let prepare_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds - 1);
    println!(
        "UI worker per snapshot: on_snapshot without a classifier {on_snapshot_us:.2} µs, \
         render_ui_state {render_us:.1} µs ({} B), LocalClassifier::prepare {prepare_us:.1} µs \
         (this thread only)",
        rendered / rounds as usize
    );
}
