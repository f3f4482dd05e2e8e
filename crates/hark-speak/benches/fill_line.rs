//! Filling a reply line with two values and a spoken date (goal: under 20 µs).
//! The `Speaker` and the `Template` are built once, outside the timing, as in a call.
//!
//! Run: `cargo bench -p hark-speak --bench fill_line`.

// `criterion_group!` generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use hark_speak::{FixedClock, Placeholder, Resolve, SayAs, Scope, Speaker, SpokenValue, Template};
use serde_json::{Value, json};

struct Values {
    state: Value,
    result: Value,
}

impl Resolve for Values {
    fn resolve(&self, p: &Placeholder) -> Option<SpokenValue<'_>> {
        let root = match p.scope {
            Scope::Result => &self.result,
            _ => &self.state,
        };
        let value = p.path.iter().try_fold(root, |v, name| v.get(name))?;
        let say_as = if p.path[0] == "arrives" {
            SayAs::Date
        } else {
            SayAs::Plain
        };
        Some(SpokenValue::new(value, say_as))
    }
}

fn bench(c: &mut Criterion) {
    let now = "2026-10-15T16:00:00Z".parse().unwrap();
    let line =
        Template::parse("{{name}}, order {{result.order_id}} arrives {{result.arrives}}.").unwrap();
    let values = Values {
        state: json!({"name": "Ana"}),
        result: json!({"order_id": "A-17", "arrives": "2026-10-16"}),
    };
    let far = Values {
        state: json!({"name": "Ana"}),
        result: json!({"order_id": "A-17", "arrives": "2026-10-20"}),
    };
    for lang in ["en-US", "de-DE"] {
        let speaker =
            Speaker::with_clock(lang, Some("America/New_York"), Arc::new(FixedClock(now))).unwrap();
        c.bench_function(&format!("fill_line/relative_date/{lang}"), |b| {
            b.iter(|| black_box(line.fill(black_box(&values), &speaker).unwrap()))
        });
        c.bench_function(&format!("fill_line/full_date/{lang}"), |b| {
            b.iter(|| black_box(line.fill(black_box(&far), &speaker).unwrap()))
        });
    }
    c.bench_function("speaker_new/en-US", |b| {
        b.iter(|| black_box(Speaker::new("en-US", Some("America/New_York")).unwrap()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
