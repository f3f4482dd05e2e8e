//! The local classifier's first question on a new screen, with and without
//! `Classifier::prepare`.
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
//! Without the model files it says so and skips those cases. Prints p50 / max over
//! [`ROUNDS`] rounds.
//!
//! The per-session costs come first (they need no model, except `prepare`):
//!
//! - `question/tree`: a click turn ("click Add Oat milk to cart", 59 options) asked with
//!   `Classifier::ask` on the snapshot's tree of the 200-node page whose refs all changed since
//!   the last question (what a live session sends), lexical classifier: what the UI worker
//!   asks now (nothing rendered, nothing parsed).
//! - `question/new-refs`: the same question on the rendered `<ui_state>` text (the text way
//!   in, and the worker's earlier path); `render`: the rendering the worker did for
//!   it before each such question.
//! - `question/parse+choose`: the same question answered from a fresh parse of the text
//!   (`ScreenTree::parse` + `LocalClassifier::choose`), what every such question cost before
//!   the classifier cached screens by skeleton.
//! - `question/same-text`: the same question on a text the classifier has just seen.
//! - `prepare/same-page`, `prepare/two-pages`: `Classifier::prepare` on a snapshot whose
//!   names are all cached and whose refs are new (one page again and again; two pages in
//!   turn, as two sessions sharing the classifier), with the model.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_ui::classifier::local::{Embedder, LocalClassifier};
use hark_ui::classifier::{Answer, Classifier, ClassifyState, Question, ScreenState};
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
            ref_: format!("p{i}").into(),
            role: "link".into(),
            name: Some(format!("{} {} batch {round}-{i}", ADJ[i % 8], NOUN[(i / 8) % 8]).into()),
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
                n.ref_.to_string(),
                Some(messages::element_option(&n.role, name)),
            )
        })
        .collect();
    let state = ClassifyState::new()
        .with_utterance(DESCRIPTION)
        .with_screen(ScreenState::tree(snapshot.clone(), render_ui_state));
    let questions = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    let start = Instant::now();
    c.ask(&state, &questions).await.expect("an answer");
    start.elapsed()
}

/// The bench page with every ref renamed for `round` (a live session's next snapshot: same
/// page, new refs).
fn renumbered(base: &A11ySnapshot, round: usize) -> A11ySnapshot {
    fn walk(n: &mut A11yNode, round: usize, k: &mut usize) {
        if !n.ref_.is_empty() {
            n.ref_ = format!("s{round}e{k}").into();
            *k += 1;
        }
        for c in &mut n.children {
            walk(c, round, k);
        }
    }
    let mut s = base.clone();
    walk(&mut s.root, round, &mut 0);
    s
}

/// Per-call time in µs: p50 and mean of `times`.
fn report_us(case: &str, mut times: Vec<Duration>) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = times.iter().map(|d| us(*d)).sum::<f64>() / times.len().max(1) as f64;
    println!(
        "{case:<20} p50 {:8.2} µs   mean {:8.2} µs   p99 {:8.2} µs   ({} calls)",
        us(times[times.len() / 2]),
        mean,
        us(times[times.len() * 99 / 100]),
        times.len()
    );
}

/// The click-turn question's cost per call on new refs, and `prepare`'s per snapshot.
async fn per_session() {
    const CALLS: usize = 2000;
    let base = A11ySnapshot::from_json(SNAPSHOT_200).expect("the bench snapshot");
    let c = LocalClassifier::lexical();
    let (mut fresh, mut same, mut before) = (Vec::new(), Vec::new(), Vec::new());
    let (mut tree_times, mut render_times) = (Vec::new(), Vec::new());
    for round in 0..CALLS {
        let snapshot = renumbered(&base, round);
        let (state, questions) = click_question(&snapshot, "click Add Oat milk to cart");
        // What a question on a new text cost before the skeleton cache: a parse of
        // the text, then the choice.
        let text = state["screen"].as_str().expect("a screen");
        let Question::Choice(q) = &questions[0].1 else {
            unreachable!("a choice")
        };
        let start = Instant::now();
        let tree = hark_ui::classifier::local::ScreenTree::parse(text);
        let old = c.choose("click Add Oat milk to cart", &tree, &q.options);
        before.push(start.elapsed());
        let start = Instant::now();
        let rendered = render_ui_state(&snapshot);
        render_times.push(start.elapsed());
        assert_eq!(rendered, text);
        let text_state = ClassifyState::from_value(state.clone());
        let start = Instant::now();
        let a = c.ask(&text_state, &questions).await.expect("an answer");
        fresh.push(start.elapsed());
        let tree_state = ClassifyState::new()
            .with_utterance("click Add Oat milk to cart")
            .with_screen(ScreenState::tree(
                Arc::new(snapshot.clone()),
                render_ui_state,
            ));
        let start = Instant::now();
        let t = c.ask(&tree_state, &questions).await.expect("an answer");
        tree_times.push(start.elapsed());
        assert_eq!(t, a, "the tree answers as the text");
        let Answer::Choice(answer) = &a[0].1 else {
            unreachable!("a choice")
        };
        assert_eq!(
            old.map(|o| o.confidence),
            Some(answer.confidence),
            "the same answer"
        );
        let start = Instant::now();
        let b = c.ask(&text_state, &questions).await.expect("an answer");
        same.push(start.elapsed());
        assert_eq!(a, b, "the same answer from the cache");
    }
    report_us("question/parse+choose", before);
    report_us("render", render_times);
    report_us("question/new-refs", fresh);
    report_us("question/tree", tree_times);
    report_us("question/same-text", same);

    let Some(model) = Embedder::shared() else {
        println!("prepare: embedding model absent (run scripts/fetch-model.sh); skipped");
        return;
    };
    let c = LocalClassifier::with_embedder(Some(model.clone()));
    let other = screen(usize::MAX);
    let pages = [base, other];
    for page in &pages {
        c.prepare(page);
        assert!(c.wait_prepared(Duration::from_secs(120)), "prepare ends");
    }
    // Each snapshot is made just before its call (as the server decodes it just before):
    // its tree is in the CPU's cache, as in a session.
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for r in 0..CALLS {
        let s = renumbered(&pages[0], r);
        let start = Instant::now();
        c.prepare(&s);
        one.push(start.elapsed());
    }
    for r in 0..CALLS {
        for page in &pages {
            let s = renumbered(page, r);
            let start = Instant::now();
            c.prepare(&s);
            two.push(start.elapsed());
        }
    }
    report_us("prepare/same-page", one);
    report_us("prepare/two-pages", two);
}

/// The state and `which_element` question `UiWorker::find_element` asks about `snapshot`.
fn click_question(
    snapshot: &A11ySnapshot,
    utterance: &str,
) -> (serde_json::Value, [(String, Question); 1]) {
    let options: Vec<(String, Option<String>)> = hark_ui::screen::named_elements(&snapshot.root)
        .iter()
        .map(|n| {
            let name = n.name.as_deref().unwrap_or("");
            (
                n.ref_.to_string(),
                Some(messages::element_option(&n.role, name)),
            )
        })
        .collect();
    let state = json!({"utterance": utterance, "screen": render_ui_state(snapshot)});
    let questions = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    (state, questions)
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
    per_session().await;
    if std::env::var_os("HARK_BENCH_PER_SESSION_ONLY").is_some() {
        return;
    }
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
