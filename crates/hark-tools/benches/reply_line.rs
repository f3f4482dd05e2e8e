//! Filling a reply line with two values and a spoken date through the tool layer (goal
//! under 20 µs): `{{name}}, order {{result.order_id}} arrives {{result.arrives}}.`
//! The `LiveCall` (and its ICU formatters) is built once, outside the timing, as in a call.
//!
//! - `reply_line/reply_for`: pick the reply (conditions, alternatives) and fill it: State and
//!   result lookups, each value's JSON Schema format, the date spoken with ICU4X.
//! - `reply_line/call_live`: the whole live call around it: argument checks, the tool (a no-op),
//!   output check, the reply said through a speech that drops lines, sinks.
//!
//! Run: `cargo bench -p hark-tools --bench reply_line -- --measurement-time 3 --warm-up-time 1`
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;
use hark_tools::{
    CallInfo, CallState, FixedClock, LiveCall, Speech, ToolError, ToolRegistry, ToolReply, ToolSpec,
};
use jiff::civil::Date;
use serde_json::json;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Order {
    order_id: String,
    #[schemars(schema_with = "hark_tools::schema::date")]
    arrives: Date,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    order_id: String,
}

/// The call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
struct State {
    /// The caller's first name.
    name: Option<String>,
}

#[derive(Debug)]
struct Silent;

impl Speech for Silent {
    fn say<'a>(&'a self, _line: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn wait_playout(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn reply_spoke(&self) -> bool {
        false
    }
}

fn bench(c: &mut Criterion) {
    let tool = ToolSpec::local("find_order", "Find an order.", |q: Query| async move {
        Ok::<_, ToolError>(Order {
            order_id: q.order_id,
            arrives: Date::constant(2026, 10, 16),
        })
    })
    .unwrap();
    let registry = ToolRegistry::builder(vec![tool])
        .state::<State>()
        .replies([ToolReply::say([
            "{{name}}, order {{result.order_id}} arrives {{result.arrives}}.",
        ])
        .tool("find_order")])
        .build()
        .unwrap();
    let now = "2026-10-15T16:00:00Z".parse().unwrap();
    for lang in ["en-US", "de-DE"] {
        let state = CallState::new(CallInfo::default(), lang, Some("America/New_York"))
            .with_values(&State {
                name: Some("Ana".into()),
            })
            .unwrap();
        let live =
            LiveCall::with_clock(state, Arc::new(Silent), Arc::new(FixedClock(now))).unwrap();
        let result = json!({"order_id": "A-17", "arrives": "2026-10-16"});
        c.bench_function(&format!("reply_line/reply_for/{lang}"), |b| {
            b.iter(|| black_box(registry.reply_for("find_order", black_box(&result), &live)))
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        c.bench_function(&format!("reply_line/call_live/{lang}"), |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let generation = live.generation();
                    black_box(
                        registry
                            .call_live("find_order", r#"{"order_id": "A-17"}"#, &live, &generation)
                            .await
                            .unwrap(),
                    )
                })
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
