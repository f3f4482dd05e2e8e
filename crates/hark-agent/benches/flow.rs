//! A flow's own work on a read-back turn, without the model: what Hark adds to the
//! turn around the model request.
//!
//! - `read_back`: `before_tool_call` on the closing tool — parse the arguments, every check,
//!   the precheck, and the read-back filled in the call's language (a date spoken with ICU4X).
//! - `judge_yes`: `on_user_turn` on "Yes please." — the local judge, the confirmed values saved
//!   and marked, the closing call made.
//! - `local_judge`: the local yes/no judge alone on a Spanish "no".
//!
//! The `LiveCall` (and its ICU formatters) is built once, outside the timing, as in a call.
//! Prints p50 and p99 per step over 20,000 runs.
//!
//! Run: `cargo bench -p hark-agent --bench flow`
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use hark_agent::flow::{Flow, FlowSpec, LocalJudge};
use hark_agent::{Conductor, PolicyContext};
use hark_llm::ToolCall;
use hark_tools::{
    CallInfo, CallState, FixedClock, InMemorySpeech, LiveCall, ToolError, ToolRegistry, ToolSpec,
};
use jiff::civil::Date;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    #[schemars(range(min = 1, max = 12))]
    party: u8,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booked {
    reference: String,
}

/// The call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
struct State {
    /// The day of the booking.
    #[schemars(schema_with = "hark_tools::schema::optional_date")]
    day: Option<Date>,
    /// How many people come.
    party: Option<u8>,
}

const RUNS: usize = 20_000;

fn report(name: &str, mut micros: Vec<f64>) {
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() as f64 - 1.0) * q) as usize];
    println!("flow/{name}: p50 {:.1} µs, p99 {:.1} µs", at(0.5), at(0.99));
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let book = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
        Ok::<_, ToolError>(Booked {
            reference: format!("B-{}-{}", b.party, b.day),
        })
    })
    .unwrap();
    let registry = ToolRegistry::builder(vec![book])
        .state::<State>()
        .build()
        .unwrap();
    let spec: FlowSpec = toml::from_str(
        r#"
        first = "booking"
        [[steps]]
        name = "booking"
        tools = ["book_table"]
        saves = ["day", "party"]
        closing = { tool = "book_table", confirm = ["A table for {{party}} on {{day}}. Shall I book it?"] }
        "#,
    )
    .unwrap();
    let flow = Arc::new(Flow::build(&spec, &registry).unwrap());
    let state = CallState::new(CallInfo::default(), "en-US", Some("America/New_York"));
    let clock = Arc::new(FixedClock("2026-10-15T16:00:00Z".parse().unwrap()));
    let live = LiveCall::with_clock(state, Arc::new(InMemorySpeech::new()), clock).unwrap();
    let history = [];
    let cx = PolicyContext {
        live: &live,
        history: &history,
    };
    let call = ToolCall::new("c1", "book_table", r#"{"day": "2026-10-20", "party": 4}"#);

    let mut read_back = Vec::with_capacity(RUNS);
    let mut judge_yes = Vec::with_capacity(RUNS);
    runtime.block_on(async {
        for _ in 0..RUNS {
            let conductor = flow.conductor();
            let started = Instant::now();
            black_box(conductor.before_tool_call(&call, &cx).await);
            read_back.push(started.elapsed().as_secs_f64() * 1e6);
            let started = Instant::now();
            black_box(conductor.on_user_turn("Yes please.", &cx).await);
            judge_yes.push(started.elapsed().as_secs_f64() * 1e6);
        }
    });
    report("read_back", read_back);
    report("judge_yes", judge_yes);

    let mut judge = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let _ = black_box(LocalJudge.judge_now(black_box("No, mejor para cinco."), "es"));
        judge.push(started.elapsed().as_secs_f64() * 1e6);
    }
    report("local_judge", judge);
}
