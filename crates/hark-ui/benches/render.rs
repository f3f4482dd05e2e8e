//! Decode a snapshot JSON and render `<ui_state>`.
//!
//! - `decode_render/200`: `benches/data/snapshot_200.json` (200 nodes, a shop page) decoded with
//!   `hark_ui::snapshot_from_json` and rendered with `render_ui_state`. The same file is
//!   timed through pipecat-ai 1.14.0 by `bench/pipecat_render.py` (json.loads + pydantic
//!   validation + model_dump(exclude_none=True) + render_ui_state).
//! - `render_only/200`: the rendering alone.
//! - `decode_render_scaling/N`: generated trees of N = 1 000 … 100 000 nodes (lists of items,
//!   depth ≤ 5): time per node should stay flat (linear time).
//!
//! - `worker_on_snapshot/200`: `UiWorker::on_snapshot` with no classifier (what the worker
//!   itself does per snapshot: the shared `Screen`, the refs remembered for stale-vs-unknown
//!   refusals, the swap of the latest snapshot), the same 200-node page.
//!
//! Run: `cargo bench -p hark-ui --bench render`, then `python3 bench/pipecat_render.py` for
//! pipecat's side of `decode_render/200` and `render_only/200`.
//!
//! Figures (2026-11-30, the shared 2-core dev box under load average ~5, so wall times are
//! inflated about 2x and noisy): decode_render/200 200 us (pipecat 817 us), render_only/200
//! 8.7 us (pipecat 280 us), decode_only/200 138 us (hark-rtvi's from_json 303 us, a
//! serde_json::Value parse alone 317 us); scaling 1k 0.61 ms, 10k 13 ms, 100k 406 ms.

#![allow(missing_docs)] // criterion_group! generates an undocumented fn

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hark_rtvi::SnapshotLimits;
use hark_ui::{A11ySnapshot, render_ui_state, snapshot_from_json};
use serde_json::{Value, json};

const SNAPSHOT_200: &str = include_str!("data/snapshot_200.json");

/// A page of `n` nodes: sections of lists whose items hold a heading, a price text, a checkbox
/// and a button (5 nodes per item), the walker's shapes at any size.
fn generated(n: usize) -> String {
    let mut next = 1usize;
    let mut count = 1usize;
    let mut sections = Vec::new();
    'outer: for s in 0.. {
        let mut items = Vec::new();
        count += 2; // region + list
        for i in 0..100 {
            if count + 5 > n {
                sections.push(json!({"ref": format!("e{next}"), "role": "region",
                    "name": format!("Section {s}"), "children": [{"ref": format!("e{}", next + 1),
                    "role": "list", "children": items}]}));
                break 'outer;
            }
            next += 5;
            count += 5;
            items.push(json!({"ref": format!("e{next}"), "role": "listitem", "name": format!("Item {s}.{i}"),
                "children": [
                    {"ref": format!("e{}", next + 1), "role": "heading", "name": format!("Crème {i}"), "level": 3},
                    {"ref": "", "role": "text", "name": format!("{i}.99 EUR")},
                    {"ref": format!("e{}", next + 2), "role": "checkbox", "name": "Compare",
                     "state": if i % 3 == 0 { json!(["checked"]) } else { json!([]) }},
                    {"ref": format!("e{}", next + 3), "role": "button", "name": "Add to cart \"now\"",
                     "state": ["offscreen"]}]}));
        }
        next += 2;
        sections.push(
            json!({"ref": format!("e{next}"), "role": "region", "name": format!("Section {s}"),
            "children": [{"ref": format!("e{}", next + 1), "role": "list", "children": items}]}),
        );
    }
    let snap = json!({"root": {"ref": "e0", "role": "generic", "children": [
        {"ref": "em", "role": "main", "children": sections}]}, "captured_at": 1767225600000_i64});
    let text = serde_json::to_string(&snap).expect("serialises");
    drop::<Value>(snap);
    text
}

fn nodes(s: &A11ySnapshot) -> usize {
    s.root.count()
}

fn bench(c: &mut Criterion) {
    let snap = A11ySnapshot::from_json(SNAPSHOT_200).expect("bench input decodes");
    assert_eq!(nodes(&snap), 200);

    let mut g = c.benchmark_group("decode_render");
    g.throughput(Throughput::Elements(200));
    g.bench_function("200", |b| {
        b.iter(|| {
            let s = snapshot_from_json(black_box(SNAPSHOT_200)).expect("decodes");
            black_box(render_ui_state(&s))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("decode_only");
    g.throughput(Throughput::Elements(200));
    g.bench_function("200/value", |b| {
        b.iter(|| {
            black_box(serde_json::from_str::<Value>(black_box(SNAPSHOT_200)).expect("parses"))
        })
    });
    g.bench_function("200/snapshot_from_json", |b| {
        b.iter(|| black_box(snapshot_from_json(black_box(SNAPSHOT_200)).expect("decodes")))
    });
    g.bench_function("200/hark_rtvi_from_json", |b| {
        b.iter(|| black_box(A11ySnapshot::from_json(black_box(SNAPSHOT_200)).expect("decodes")))
    });
    g.finish();

    let mut g = c.benchmark_group("render_only");
    g.throughput(Throughput::Elements(200));
    g.bench_function("200", |b| {
        b.iter(|| black_box(render_ui_state(black_box(&snap))))
    });
    g.finish();

    let mut g = c.benchmark_group("decode_render_scaling");
    g.sample_size(10);
    // The server refuses snapshots over 5,000 nodes by default; scaling is measured past that.
    let unlimited = SnapshotLimits {
        max_nodes: usize::MAX,
        ..SnapshotLimits::default()
    };
    for n in [1_000usize, 10_000, 100_000] {
        let text = generated(n);
        let s = A11ySnapshot::from_json_with(&text, &unlimited).expect("generated tree decodes");
        let real = nodes(&s);
        g.throughput(Throughput::Elements(real as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let s = A11ySnapshot::from_json_with(black_box(text), &unlimited).expect("decodes");
                black_box(render_ui_state(&s))
            })
        });
    }
    g.finish();
}

fn bench_worker(c: &mut Criterion) {
    let snap = std::sync::Arc::new(A11ySnapshot::from_json(SNAPSHOT_200).expect("bench input"));
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = hark_ui::UiWorker::new("bench", std::sync::Arc::new(tx)).without_classifier();
    let mut g = c.benchmark_group("worker_on_snapshot");
    g.throughput(Throughput::Elements(200));
    g.bench_function("200", |b| {
        b.iter(|| worker.on_snapshot(std::sync::Arc::clone(black_box(&snap))))
    });
    g.finish();
}

criterion_group!(benches, bench, bench_worker);
criterion_main!(benches);
