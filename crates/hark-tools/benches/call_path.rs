//! The whole call path: raw arguments text → checked → decoded → run (a no-op) → result checked
//! against its output → the JSON text the model reads. Beside it: `bench/python_call_path.py`.
//!
//! Run: `cargo bench -p hark-tools --bench call_path -- --measurement-time 3 --warm-up-time 1`
//!
//! Instructions per call (stable on a loaded machine): with `HARK_BENCH_CALLS=N` set, the binary
//! makes N calls of `book_table` and exits without criterion; run it under
//! `valgrind --tool=callgrind` for two values of N and divide the difference in instructions by
//! the difference in calls (setup cancels out):
//!
//! ```sh
//! bin=$(cargo bench -p hark-tools --bench call_path --no-run 2>&1 | grep -o 'target/[^)]*')
//! for n in 1000 11000; do
//!   HARK_BENCH_CALLS=$n valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n $bin 2>&1 | grep refs
//! done
//! ```
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group};
use hark_tools::{ToolContext, ToolError, ToolRegistry, tool};
use jiff::civil::Date;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booking {
    reference: String,
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    party: u8,
    seating: Seating,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

/// Book a table.
///
/// # Arguments
/// * `day` - The day the caller wants.
/// * `party` - How many people come.
/// * `seating` - Where they sit.
/// * `name` - The name for the booking.
#[tool]
async fn book_table(
    day: Date,
    #[arg(range(min = 1, max = 12), default = 2)] party: u8,
    #[arg(default = Seating::Inside)] seating: Seating,
    #[arg(length(min = 1, max = 40))] name: String,
) -> Result<Booking, ToolError> {
    let _ = name;
    Ok(Booking {
        reference: "B-12".into(),
        day,
        party,
        seating,
    })
}

const RAW: &str =
    r#"{"day": "2026-10-16", "party": 4, "seating": "terrace", "name": "Ada Lovelace"}"#;

/// `HARK_BENCH_CALLS=N`: N calls of `book_table`, no criterion (for instruction counts).
fn calls_only(n: u64) {
    let registry = ToolRegistry::new(vec![book_table_tool().unwrap()]).unwrap();
    let context = ToolContext::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        for _ in 0..n {
            let outcome = registry
                .call("book_table", std::hint::black_box(RAW), &context)
                .await;
            std::hint::black_box(outcome.model_text());
        }
    });
}

fn call_path(c: &mut Criterion) {
    let registry = ToolRegistry::new(vec![book_table_tool().unwrap()]).unwrap();
    let context = ToolContext::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let text = runtime.block_on(async {
        registry
            .call("book_table", RAW, &context)
            .await
            .model_text()
    });
    assert_eq!(
        text,
        r#"{"reference":"B-12","day":"2026-10-16","party":4,"seating":"terrace"}"#
    );
    c.bench_function("call_path/book_table", |b| {
        b.to_async(&runtime).iter(|| async {
            let outcome = registry
                .call("book_table", std::hint::black_box(RAW), &context)
                .await;
            std::hint::black_box(outcome.model_text())
        })
    });
    c.bench_function("call_path/refused_limit", |b| {
        let raw = r#"{"day": "2026-10-16", "party": 40, "name": "Ada"}"#;
        b.to_async(&runtime).iter(|| async {
            let outcome = registry
                .call("book_table", std::hint::black_box(raw), &context)
                .await;
            std::hint::black_box(outcome.model_text())
        })
    });
}

criterion_group!(benches, call_path);

fn main() {
    if let Some(n) = std::env::var("HARK_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        calls_only(n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
