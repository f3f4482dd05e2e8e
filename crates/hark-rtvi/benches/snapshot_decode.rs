//! Decoding cost of a `ui-snapshot` (a load goal): the load generator's 200-node shop
//! page (bench/load/src/snapshot.rs, rebuilt here with the same shape and texts) through
//! `parse_client_message`, as `hark serve` reads it, with and without dropping the tree.
//!
//! ```text
//! cargo bench -p hark-rtvi --bench snapshot_decode
//! ```
//!
//! - `parse_client_message/200_nodes`: envelope + typed tree; the tree's drop is not timed.
//! - `parse_and_drop/200_nodes`: the same, dropped inside the timed loop (a session's real
//!   cost: every new snapshot replaces, and drops, the previous one).
//! - `drop/200_nodes`: dropping a decoded tree alone.
//! - `from_json/200_nodes`: `A11ySnapshot::from_json` on the `tree` text alone (no envelope).
//!
//! Figures (2026-11-30, the shared 2-core box under load average 4–5, so wall times are noisy;
//! 11,589 B of JSON): before the decoder work, parse_client_message 207 µs,
//! parse_and_drop 250 µs, drop 21 µs, from_json 113 µs; after it 83 µs, 87 µs, 14 µs, 70 µs.
//! The work: `data` decoded in the envelope's own pass (it was skipped as a `RawValue`, then
//! parsed again), nodes built once and moved only into exactly sized `children`, keys matched
//! as borrowed text into per-object enums, memchr for the lone-surrogate scan.
//!
//! The node split (`A11yNode` 264 → 104 B, the rare fields boxed in one `NodeRare`, made
//! only for the 28 of 200 nodes that have one), the two builds run alternately, twice, on the
//! same loaded box (`--warm-up-time 1 --measurement-time 4`), before → after:
//! parse_client_message 78/57 → 51/58 µs, parse_and_drop 120/87 → 79/72 µs, drop 11/13 →
//! 13/18 µs, from_json 77/82 → 57/88 µs; again at load average 1.3–1.8: parse_and_drop 84/60 →
//! 48/66 µs, drop 11.1/9.7 → 10.0/11.2 µs, from_json 54/78 → 44/48 µs. No slower beyond this
//! machine's noise (decoding writes 104-B nodes instead of 264-B ones).

#![allow(missing_docs)] // criterion_group! generates an undocumented fn

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hark_rtvi::{A11ySnapshot, ClientMessage, parse_client_message};
use serde_json::Value;

#[path = "../tests/support/shop_page.rs"]
mod shop_page;

use shop_page::page;

fn parse(json: &str) -> ClientMessage {
    parse_client_message(json).expect("a snapshot").message
}

fn bench(c: &mut Criterion) {
    let json = page(7, 200);
    let ClientMessage::UiSnapshot(snap) = parse(&json) else {
        panic!("a ui-snapshot");
    };
    assert_eq!(snap.root.count(), 200);
    let tree =
        serde_json::to_string(&serde_json::from_str::<Value>(&json).unwrap()["data"]["tree"])
            .unwrap();
    eprintln!("200-node ui-snapshot: {} B of JSON", json.len());

    c.bench_function("parse_client_message/200_nodes", |b| {
        b.iter_with_large_drop(|| parse(black_box(&json)))
    });
    c.bench_function("parse_and_drop/200_nodes", |b| {
        b.iter(|| drop(parse(black_box(&json))))
    });
    c.bench_function("drop/200_nodes", |b| {
        b.iter_batched(|| parse(&json), drop, BatchSize::SmallInput)
    });
    c.bench_function("from_json/200_nodes", |b| {
        b.iter_with_large_drop(|| A11ySnapshot::from_json(black_box(&tree)).expect("a tree"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
