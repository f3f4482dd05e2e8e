//! A fixed number of `A11ySnapshot::from_json` decodes of hark-ui's bench snapshot (200 nodes),
//! for counting instructions with callgrind (docs/PERFORMANCE.md, "Issue 17: decode + render").
//!
//! ```text
//! cargo build --release -p hark-rtvi --example decode_count
//! valgrind --tool=callgrind target/release/examples/decode_count 1000
//! ```
//!
//! Run it for two counts (0 and 1000) and divide the difference of the totals by 1000: one
//! decode (and drop) without the start-up. `bench/pipecat_render.py --iterations N` counts
//! pipecat-ai 1.14.0 the same way.

use std::hint::black_box;

use hark_rtvi::A11ySnapshot;

const SNAPSHOT_200: &str = include_str!("../../hark-ui/benches/data/snapshot_200.json");

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let mut n = 0usize;
    for _ in 0..rounds {
        let s = A11ySnapshot::from_json(black_box(SNAPSHOT_200)).expect("decodes");
        n += black_box(&s).root.count();
    }
    println!("{rounds} decodes ({n} nodes)");
}
