//! Latency of the multilingual embedding model (`local::embed::e5`) on one thread:
//! `embed_query` of five typical spoken descriptions (p50/p99), and `embed_passages` of 255
//! short element names in one call (wall time).
//!
//!     cargo run --release -p hark-classify --features embeddings --example e5_bench
//!
//! Needs `e5-small-q4.bin` in the model directory (scripts/fetch-model.sh).
use std::time::Instant;

use hark_classify::local::embed::e5::{E5, Role};

const QUERIES: [&str; 5] = [
    "the second message from Sarah",
    "marca la casilla del desayuno",
    "le bouton pour s'abonner à la newsletter",
    "den Warenkorb öffnen",
    "reply",
];

fn main() {
    let t0 = Instant::now();
    let m = E5::load_default().unwrap_or_else(|e| panic!("{e}"));
    println!(
        "load {:.0} ms, kernels {}",
        t0.elapsed().as_secs_f64() * 1e3,
        m.kernel()
    );
    for q in QUERIES {
        for _ in 0..20 {
            std::hint::black_box(m.embed_query(q));
        }
        let mut ts: Vec<f64> = (0..300)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(m.embed_query(q));
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        println!(
            "Rust embed_query {q:<45} tokens {:3}  min {:.3}  p50 {:.3}  p99 {:.3} ms",
            m.token_count(q, Role::Query),
            ts[0],
            ts[ts.len() / 2],
            ts[ts.len() * 99 / 100]
        );
    }
    let names: Vec<&str> = include_str!("../tests/fixtures/e5_bench_names.txt")
        .lines()
        .collect();
    let tokens: usize = names.iter().map(|n| m.token_count(n, Role::Passage)).sum();
    let best = (0..5)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(m.embed_passages(&names));
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min);
    println!(
        "Rust embed_passages {} names ({tokens} tokens): best of 5 {best:.1} ms",
        names.len()
    );
}
