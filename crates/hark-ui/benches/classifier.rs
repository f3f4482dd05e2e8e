//! The local classifier's first question on a new screen, with and without
//! `Classifier::prepare` (issue 7 follow-up).
//!
//! A new screen of 255 named elements whose names the model has never seen (the 200-node shop
//! page of `benches/data/snapshot_200.json` padded with generated product names, fresh every
//! round), and a description with a word no name has ("milk and cheese"), so the
//! sentence-embedding model scores the options:
//!
//! - `cold`: the question is asked as soon as the snapshot is there; it embeds every name
//!   first (what the worker did before `prepare`).
//! - `prepared`: `prepare(&snapshot)` runs when the snapshot arrives, the background
//!   embedding finishes (timed separately: `prepare_background`), then the question.
//! - `warm`: the same question again on the same screen (names cached).
//!
//! Run: `scripts/fetch-model.sh` once, then `cargo bench -p hark-ui --bench classifier`.
//! Without the model files it says so and measures nothing. Prints p50 / max over
//! [`ROUNDS`] rounds.

use std::time::{Duration, Instant};

use hark_ui::classifier::local::{Embedder, LocalClassifier};
use hark_ui::classifier::{Classifier, Question};
use hark_ui::{A11yNode, A11ySnapshot, messages, render_ui_state};
use serde_json::json;

const SNAPSHOT_200: &str = include_str!("data/snapshot_200.json");

/// Rounds per case (each embeds 255 new names when cold: about 0.4 s on 2 cores).
const ROUNDS: usize = 12;

/// The description asked: no name has its words, so the model runs.
const DESCRIPTION: &str = "milk and cheese";

/// The shop page padded to 255 named elements with names unique to `round`.
fn screen(round: usize) -> A11ySnapshot {
    let mut snapshot = A11ySnapshot::from_json(SNAPSHOT_200).expect("the bench snapshot");
    let named = hark_ui::screen::named_elements(&snapshot.root).len();
    const ADJ: [&str; 8] = [
        "Organic",
        "Smoked",
        "Fresh",
        "Roasted",
        "Frozen",
        "Sparkling",
        "Aged",
        "Spiced",
    ];
    const NOUN: [&str; 8] = [
        "almonds", "salmon", "basil", "coffee", "peas", "water", "gouda", "rum",
    ];
    for i in 0..hark_ui::screen::MAX_ELEMENT_OPTIONS.saturating_sub(named) {
        snapshot.root.children.push(A11yNode {
            ref_: format!("p{i}"),
            role: "link".into(),
            name: Some(format!(
                "{} {} batch {round}-{i}",
                ADJ[i % 8],
                NOUN[(i / 8) % 8]
            )),
            ..A11yNode::default()
        });
    }
    snapshot
}

/// Asks the `which_element` question on `snapshot` as `UiWorker::find_element` does.
async fn ask(c: &LocalClassifier, snapshot: &A11ySnapshot) -> Duration {
    let options: Vec<(String, Option<String>)> = hark_ui::screen::named_elements(&snapshot.root)
        .iter()
        .map(|n| {
            let name = n.name.as_deref().unwrap_or("");
            (
                n.ref_.clone(),
                Some(messages::element_option(&n.role, name)),
            )
        })
        .collect();
    let state = json!({"utterance": DESCRIPTION, "screen": render_ui_state(snapshot)});
    let questions = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    let start = Instant::now();
    c.ask(&state, &questions).await.expect("an answer");
    start.elapsed()
}

fn report(case: &str, mut times: Vec<Duration>) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{case:<20} p50 {:8.2} ms   max {:8.2} ms   ({} rounds, 255 options)",
        ms(times[times.len() / 2]),
        ms(*times.last().unwrap_or(&Duration::ZERO)),
        times.len()
    );
}

async fn run() {
    let Some(model) = Embedder::shared() else {
        println!("classifier bench: embedding model absent (run scripts/fetch-model.sh); skipped");
        return;
    };
    let c = LocalClassifier::with_embedder(Some(model.clone()));
    let (mut cold, mut prepared, mut background, mut warm) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let snapshot = screen(2 * round);
        cold.push(ask(&c, &snapshot).await);
        warm.push(ask(&c, &snapshot).await);

        let snapshot = screen(2 * round + 1);
        let start = Instant::now();
        c.prepare(&snapshot);
        assert!(c.wait_prepared(Duration::from_secs(60)), "prepare ends");
        background.push(start.elapsed());
        let before = model.computed();
        prepared.push(ask(&c, &snapshot).await);
        assert_eq!(
            model.computed() - before,
            1,
            "only the description embedded"
        );
    }
    report("cold", cold);
    report("prepared", prepared);
    report("prepare_background", background);
    report("warm", warm);
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(run());
}
