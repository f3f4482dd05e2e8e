//! The grounding benchmark: which named element a short description means.
//!
//! Scores a classifier on `bench/grounding/rows.jsonl` (see `bench/grounding/README.md`):
//! every row is a pipecat `A11ySnapshot` (client-js's walker), a description and the right
//! refs (`[]` = "none"). Each row goes through [`UiWorker::find_element`], the call behind
//! `UiWorker::which_element`: one choice question whose options are the
//! snapshot's named elements (at most 255).
//!
//! ```text
//! cargo run --release -p hark-ui --example grounding -- [--split test|dev|train|all]
//!     [--classifier local|lexical|llm|baseline] [--semantic-weight W] [--data PATH]
//!     [--limit N] [--show N]
//! ```
//!
//! `local` is `LocalClassifier::new()`: with the sentence-embedding model when its files are
//! in the model directory (`scripts/fetch-model.sh`, `$HARK_MODEL_DIR`), else lexical only;
//! `lexical` forces lexical features only. The runner prints the model's load time and the
//! process's resident memory before and after loading it.
//!
//! Prints, for the split: top-1 accuracy (a row is right when the answer — the chosen ref when
//! its confidence is at least 0.5, else "none" — is one of `refs`, or is "none" for `refs: []`),
//! "none" precision and recall, the expected calibration error (10 equal-width bins over the
//! chosen option's confidence; a choice is correct when it is one of `refs`), p50/p99 latency
//! of `find_element` over the rows, and p50/p99 over a snapshot padded to exactly 255 named
//! elements. Per-source and per-page lines follow.
//!
//! `--classifier llm` asks an OpenAI-compatible endpoint through [`LlmClassifier`]:
//! `HARK_LLM_BASE_URL` (e.g. `https://api.openai.com/v1`), `HARK_LLM_MODEL`, and optionally
//! `HARK_LLM_API_KEY`. When the first two are unset it says so and exits with status 0.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use hark_llm::OpenAiCompatible;
use hark_ui::ClassifyState;
use hark_ui::classifier::local::{Embedder, LocalClassifier, embed};
use hark_ui::classifier::{Answer, ChoiceResult, Classifier, ClassifierError, Question};
use hark_ui::{A11yNode, A11ySnapshot, LlmClassifier, UiWorker};
use serde::Deserialize;
use serde_json::Value;

/// Confidence below which an answer is "none" (pipecat's `which_element` default threshold).
const THRESHOLD: f64 = 0.5;
/// Calibration bins.
const BINS: usize = 10;
/// Timed runs of the 255-option case.
const PADDED_RUNS: usize = 200;

/// One benchmark row (`bench/grounding/README.md`).
#[derive(Debug, Deserialize)]
struct Row {
    page: String,
    split: String,
    snapshot: Value,
    description: String,
    refs: Vec<String>,
    source: String,
}

#[derive(Debug)]
struct Args {
    split: String,
    classifier: String,
    data: PathBuf,
    limit: Option<usize>,
    show: usize,
    semantic_weight: Option<f64>,
}

fn usage() -> &'static str {
    "usage: grounding [--split test|dev|train|all] [--classifier local|lexical|learned|llm|baseline] \
     [--semantic-weight W] [--data PATH] [--limit N] [--show N]"
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        split: "test".into(),
        classifier: "local".into(),
        data: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/grounding/rows.jsonl"),
        limit: None,
        show: 0,
        semantic_weight: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value; {}", usage()))
        };
        match flag.as_str() {
            "--split" => args.split = value()?,
            "--classifier" => args.classifier = value()?,
            "--data" => args.data = PathBuf::from(value()?),
            "--limit" => {
                let v = value()?;
                args.limit = Some(
                    v.parse()
                        .map_err(|_| format!("--limit {v}: not a number"))?,
                );
            }
            "--show" => {
                let v = value()?;
                args.show = v.parse().map_err(|_| format!("--show {v}: not a number"))?;
            }
            "--semantic-weight" => {
                let v = value()?;
                args.semantic_weight = Some(
                    v.parse()
                        .map_err(|_| format!("--semantic-weight {v}: not a number"))?,
                );
            }
            "-h" | "--help" => return Err(usage().to_string()),
            other => return Err(format!("unknown argument {other}; {}", usage())),
        }
    }
    if !["test", "dev", "train", "all"].contains(&args.split.as_str()) {
        return Err(format!(
            "--split {}: use test, dev, train or all",
            args.split
        ));
    }
    Ok(args)
}

/// The trivial baseline: the option whose name appears, word for word, in the description
/// (the longest such name wins); confidence 0.9 shared among equally good options, 0.1 (so
/// "none") when no name appears.
#[derive(Debug, Default)]
struct Baseline;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The name inside an option description `role "name"`.
fn option_name(description: &str) -> &str {
    match description.split_once(" \"") {
        Some((_, rest)) => rest.strip_suffix('"').unwrap_or(rest),
        None => description,
    }
}

impl Baseline {
    fn choose(utterance: &str, options: &[(String, Option<String>)]) -> ChoiceResult {
        let said = words(utterance);
        let score = |name: &str| {
            let w = words(name);
            let hit = !w.is_empty() && said.windows(w.len()).any(|win| win == w.as_slice());
            if hit { w.len() } else { 0 }
        };
        let scores: Vec<usize> = options
            .iter()
            .map(|(o, d)| score(option_name(d.as_deref().unwrap_or(o))))
            .collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        let ties = scores.iter().filter(|&&s| s == best).count().max(1);
        let top = scores.iter().position(|&s| s == best).unwrap_or(0);
        let mass = if best > 0 { 0.9 } else { 0.1 };
        let n = options.len().max(1) as f64;
        let probabilities: Vec<(String, f64)> = options
            .iter()
            .zip(&scores)
            .map(|((o, _), &s)| {
                let p = if best > 0 {
                    if s == best {
                        mass / ties as f64
                    } else {
                        (1.0 - mass) / (n - ties as f64).max(1.0)
                    }
                } else {
                    1.0 / n
                };
                (o.clone(), p)
            })
            .collect();
        let confidence = if best > 0 { mass / ties as f64 } else { mass };
        ChoiceResult {
            choice: options[top].0.clone(),
            probabilities,
            confidence,
        }
    }
}

impl Classifier for Baseline {
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        let state = &state.to_value();
        let utterance = state.get("utterance").and_then(Value::as_str).unwrap_or("");
        let answers = questions
            .iter()
            .map(|(name, q)| match q {
                Question::Choice(c) if !c.options.is_empty() => Ok((
                    name.clone(),
                    Answer::Choice(Self::choose(utterance, &c.options)),
                )),
                _ => Err(ClassifierError::new(
                    "the baseline answers choice questions with options only",
                )),
            })
            .collect();
        Box::pin(async move { answers })
    }
}

/// Resident memory of this process in MiB (Linux `/proc/self/status`), if readable.
fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn local(args: &Args, model: bool) -> LocalClassifier {
    let c = if model {
        let before = rss_mib();
        let start = Instant::now();
        let embedder = Embedder::shared();
        let took = start.elapsed();
        match &embedder {
            Some(e) => println!(
                "model: paraphrase-MiniLM-L3-v2 ({} dimensions) loaded in {} from {}; RSS {:.0} → {:.0} MiB",
                e.dim(),
                ms(took),
                embed::model_dir().map_or("?".into(), |d| d.display().to_string()),
                before.unwrap_or(f64::NAN),
                rss_mib().unwrap_or(f64::NAN)
            ),
            None => println!(
                "model: {}",
                Embedder::load_default().map_or_else(
                    |e| embed::absent_warning(&e),
                    |_| "loaded on a second try".into()
                )
            ),
        }
        LocalClassifier::with_embedder(embedder)
    } else {
        println!("model: not used (--classifier lexical)");
        LocalClassifier::lexical()
    };
    match args.semantic_weight {
        Some(w) => c.with_semantic_weight(w),
        None => c,
    }
}

/// The learned classifier, when it runs: the runner waits for each new page's texts to be
/// embedded (what `prepare` does when the snapshot arrives) before timing the question.
static LEARNED: std::sync::OnceLock<Arc<LocalClassifier>> = std::sync::OnceLock::new();

fn make_classifier(args: &Args) -> Result<Option<Arc<dyn Classifier>>, String> {
    let name = args.classifier.as_str();
    Ok(Some(match name {
        "baseline" => Arc::new(Baseline),
        "local" => Arc::new(local(args, true)),
        "lexical" => Arc::new(local(args, false)),
        "learned" => {
            let started = Instant::now();
            let c = LocalClassifier::learned().ok_or(
                "--classifier learned: the multilingual model is absent (run scripts/fetch-model.sh)",
            )?;
            println!(
                "model: multilingual-e5-small (4-bit) and the learned ranker, loaded in {}",
                ms(started.elapsed())
            );
            let c = Arc::new(c);
            LEARNED.set(c.clone()).ok();
            c
        }
        "llm" => {
            let base = std::env::var("HARK_LLM_BASE_URL")
                .ok()
                .filter(|s| !s.is_empty());
            let model = std::env::var("HARK_LLM_MODEL")
                .ok()
                .filter(|s| !s.is_empty());
            let (Some(base), Some(model)) = (base, model) else {
                println!(
                    "skipped: --classifier llm needs HARK_LLM_BASE_URL (an OpenAI-compatible API \
                     root, e.g. https://api.openai.com/v1) and HARK_LLM_MODEL; \
                     HARK_LLM_API_KEY is optional"
                );
                return Ok(None);
            };
            let key = std::env::var("HARK_LLM_API_KEY")
                .ok()
                .filter(|s| !s.is_empty());
            let provider = Arc::new(OpenAiCompatible::new(base, key));
            Arc::new(LlmClassifier::new(provider, model))
        }
        other => {
            return Err(format!(
                "--classifier {other}: use local, lexical, learned, llm or baseline"
            ));
        }
    }))
}

/// The field data (`bench/grounding/field`: `pages.jsonl` with a snapshot per page,
/// `rows.jsonl` naming their page) as benchmark rows; `source` is `field-LANG:KIND`.
fn load_field(args: &Args) -> Result<Vec<Row>, String> {
    let read = |name: &str| -> Result<Vec<Value>, String> {
        let path = args.data.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", path.display())))
            .collect()
    };
    let mut pages: std::collections::HashMap<String, (String, Value)> = Default::default();
    for p in read("pages.jsonl")? {
        let key = p["page"].as_str().unwrap_or_default().to_string();
        let split = p["split"].as_str().unwrap_or_default().to_string();
        pages.insert(key, (split, p["snapshot"].clone()));
    }
    let mut rows = Vec::new();
    for r in read("rows.jsonl")? {
        let page = r["page"].as_str().unwrap_or_default().to_string();
        let (split, snapshot) = pages
            .get(&page)
            .ok_or_else(|| format!("a row names the unknown page {page}"))?;
        if args.split != "all" && *split != args.split {
            continue;
        }
        rows.push(Row {
            page,
            split: split.clone(),
            snapshot: snapshot.clone(),
            description: r["description"].as_str().unwrap_or_default().to_string(),
            refs: serde_json::from_value(r["refs"].clone()).unwrap_or_default(),
            source: format!(
                "field-{}:{}",
                r["lang"].as_str().unwrap_or("?"),
                r["desc_kind"].as_str().unwrap_or("?")
            ),
        });
    }
    if let Some(limit) = args.limit {
        rows.truncate(limit);
    }
    Ok(rows)
}

fn load_rows(args: &Args) -> Result<Vec<Row>, String> {
    if args.data.is_dir() {
        return load_field(args);
    }
    let text = std::fs::read_to_string(&args.data).map_err(|e| {
        format!(
            "cannot read {}: {e} (regenerate with bench/grounding/generate.sh)",
            args.data.display()
        )
    })?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Row = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: {e}", args.data.display(), i + 1))?;
        if args.split == "all" || row.split == args.split {
            rows.push(row);
        }
    }
    if let Some(limit) = args.limit {
        rows.truncate(limit);
    }
    Ok(rows)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[i.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// One row's outcome.
#[derive(Debug)]
struct Outcome {
    /// The chosen option is one of `refs` (whatever its confidence).
    chosen_right: bool,
    /// The chosen option's confidence.
    confidence: f64,
    /// The answer after the threshold: `None` = "none".
    answer: Option<String>,
    /// The row's expected answer is "none".
    expect_none: bool,
    /// Time of `find_element`.
    latency: Duration,
}

impl Outcome {
    fn right(&self) -> bool {
        match &self.answer {
            None => self.expect_none,
            Some(_) => self.chosen_right,
        }
    }
}

#[derive(Debug, Default)]
struct Tally {
    n: usize,
    right: usize,
}

impl Tally {
    fn add(&mut self, right: bool) {
        self.n += 1;
        self.right += usize::from(right);
    }
    fn pct(&self) -> String {
        if self.n == 0 {
            "   n/a".into()
        } else {
            format!("{:5.1}%", 100.0 * self.right as f64 / self.n as f64)
        }
    }
}

fn ece(outcomes: &[Outcome]) -> f64 {
    let mut bins = [(0usize, 0.0f64, 0.0f64); BINS];
    for o in outcomes {
        let b = ((o.confidence * BINS as f64) as usize).min(BINS - 1);
        bins[b].0 += 1;
        bins[b].1 += o.confidence;
        bins[b].2 += f64::from(u8::from(o.chosen_right));
    }
    let n = outcomes.len().max(1) as f64;
    bins.iter()
        .filter(|b| b.0 > 0)
        .map(|&(k, conf, acc)| (k as f64 / n) * ((acc - conf) / k as f64).abs())
        .sum()
}

/// Pads `snapshot` with extra named buttons and links under its root until it has exactly 255
/// named elements (the option limit).
fn pad_to_255(mut snapshot: A11ySnapshot) -> A11ySnapshot {
    const WORDS: [&str; 16] = [
        "Save", "Open", "Archive", "Share", "Export", "Print", "Rename", "Move", "Copy", "Pin",
        "Star", "Label", "Filter", "Sort", "Refresh", "Help",
    ];
    let named = hark_ui::screen::named_elements(&snapshot.root).len();
    for i in 0..hark_ui::screen::MAX_ELEMENT_OPTIONS.saturating_sub(named) {
        let role = if i % 3 == 0 { "link" } else { "button" };
        let name = format!("{} {} {}", WORDS[i % 16], WORDS[(i / 16) % 16], i);
        snapshot.root.children.push(A11yNode {
            ref_: format!("p{i}").into(),
            role: role.into(),
            name: Some(name.into()),
            ..A11yNode::default()
        });
    }
    snapshot
}

async fn run(args: Args) -> Result<(), String> {
    let Some(classifier) = make_classifier(&args)? else {
        return Ok(());
    };
    let rows = load_rows(&args)?;
    if rows.is_empty() {
        return Err(format!(
            "no rows in split {:?} of {}",
            args.split,
            args.data.display()
        ));
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::new("ui", Arc::new(tx)).with_classifier(classifier);

    let mut outcomes = Vec::with_capacity(rows.len());
    let mut errors = 0usize;
    let mut options_total = 0usize;
    let mut by_source: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_page: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
    let mut shown = 0usize;
    for row in &rows {
        let snapshot = A11ySnapshot::from_value(row.snapshot.clone(), "snapshot")
            .map_err(|e| format!("row of page {}: bad snapshot: {e}", row.page))?;
        options_total += hark_ui::screen::named_elements(&snapshot.root).len();
        worker.on_snapshot(snapshot);
        if let Some(c) = LEARNED.get() {
            c.wait_prepared(Duration::from_secs(30));
        }
        let start = Instant::now();
        let found = worker.find_element(&row.description).await;
        let latency = start.elapsed();
        let outcome = match found {
            Ok(Some(f)) => Outcome {
                chosen_right: row.refs.contains(&f.ref_),
                confidence: f.confidence,
                answer: (f.confidence >= THRESHOLD).then_some(f.ref_),
                expect_none: row.refs.is_empty(),
                latency,
            },
            Ok(None) => Outcome {
                chosen_right: false,
                confidence: 0.0,
                answer: None,
                expect_none: row.refs.is_empty(),
                latency,
            },
            Err(e) => {
                errors += 1;
                if errors <= 3 {
                    eprintln!("classifier error on {:?}: {e}", row.description);
                }
                // Counted as a confident wrong answer: the caller got no element.
                Outcome {
                    chosen_right: false,
                    confidence: 1.0,
                    answer: Some(String::new()),
                    expect_none: row.refs.is_empty(),
                    latency,
                }
            }
        };
        let right = outcome.right();
        if !right && shown < args.show {
            shown += 1;
            println!(
                "  miss [{}] {:?}: answered {:?} ({:.2}), expected {:?}",
                row.page, row.description, outcome.answer, outcome.confidence, row.refs
            );
        }
        let family = row.source.split(':').next().unwrap_or("").to_string();
        if let Some(kind) = row
            .source
            .strip_prefix("field-")
            .and_then(|s| s.split(':').nth(1))
        {
            by_kind.entry(kind.to_string()).or_default().add(right);
        }
        by_source.entry(family).or_default().add(right);
        by_page.entry(row.page.clone()).or_default().add(right);
        outcomes.push(outcome);
    }

    let n = outcomes.len();
    let right = outcomes.iter().filter(|o| o.right()).count();
    let said_none = outcomes.iter().filter(|o| o.answer.is_none()).count();
    let true_none = outcomes
        .iter()
        .filter(|o| o.answer.is_none() && o.expect_none)
        .count();
    let expect_none = outcomes.iter().filter(|o| o.expect_none).count();
    let with_target: Vec<&Outcome> = outcomes.iter().filter(|o| !o.expect_none).collect();
    let argmax_right = with_target.iter().filter(|o| o.chosen_right).count();
    let mut lat: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
    lat.sort();

    println!(
        "grounding benchmark: classifier {}, split {}, {} rows ({} with a target, {} \"none\"), \
         {:.1} options per row on average, data {}",
        args.classifier,
        args.split,
        n,
        with_target.len(),
        expect_none,
        options_total as f64 / n as f64,
        args.data.display()
    );
    println!(
        "  top-1 accuracy            {:5.1}%  ({right}/{n}; answer = choice if confidence >= {THRESHOLD}, else none)",
        100.0 * right as f64 / n as f64
    );
    println!(
        "  top-1 on target rows      {:5.1}%  (argmax in refs, threshold ignored; {argmax_right}/{})",
        100.0 * argmax_right as f64 / with_target.len().max(1) as f64,
        with_target.len()
    );
    println!(
        "  none precision            {:5.1}%  ({true_none}/{said_none} \"none\" answers were right)",
        100.0 * true_none as f64 / said_none.max(1) as f64
    );
    println!(
        "  none recall               {:5.1}%  ({true_none}/{expect_none} \"none\" rows answered none)",
        100.0 * true_none as f64 / expect_none.max(1) as f64
    );
    println!(
        "  expected calibration err  {:.3}   ({BINS} bins over the chosen option's confidence)",
        ece(&outcomes)
    );
    println!(
        "  latency find_element      p50 {}  p99 {}  max {}  (per row, {} options on average)",
        ms(percentile(&lat, 50.0)),
        ms(percentile(&lat, 99.0)),
        ms(*lat.last().unwrap_or(&Duration::ZERO)),
        (options_total as f64 / n as f64).round()
    );
    if errors > 0 {
        println!("  classifier errors         {errors} (counted wrong)");
    }

    // The 255-option case: the largest row snapshot padded to exactly 255 named elements.
    let base = rows
        .iter()
        .max_by_key(|r| r.snapshot.to_string().len())
        .map(|r| A11ySnapshot::from_value(r.snapshot.clone(), "snapshot"))
        .transpose()
        .map_err(|e| format!("bad snapshot: {e}"))?;
    if let Some(base) = base {
        let padded = pad_to_255(base);
        let options = hark_ui::screen::named_elements(&padded.root).len();
        worker.on_snapshot(padded);
        let runs = if args.classifier == "llm" {
            5
        } else {
            PADDED_RUNS
        };
        let descriptions: Vec<&str> = rows.iter().map(|r| r.description.as_str()).collect();
        // The first question on a new screen embeds its names not seen before (cold).
        let start = Instant::now();
        let _ = worker.find_element(descriptions[0]).await;
        println!(
            "  first question at {options} options: {} (names not seen before are embedded)",
            ms(start.elapsed())
        );
        let mut times = Vec::with_capacity(runs);
        for i in 0..runs {
            let start = Instant::now();
            let _ = worker
                .find_element(descriptions[i % descriptions.len()])
                .await;
            times.push(start.elapsed());
        }
        times.sort();
        println!(
            "  latency at {options} options    p50 {}  p99 {}  ({runs} runs, padded snapshot)",
            ms(percentile(&times, 50.0)),
            ms(percentile(&times, 99.0))
        );
    }

    println!("  by source:");
    for (source, t) in &by_source {
        println!("    {:<24} {} of {}", source, t.pct(), t.n);
    }
    if !by_kind.is_empty() {
        println!("  by description kind:");
        for (kind, t) in &by_kind {
            println!("    {:<24} {} of {}", kind, t.pct(), t.n);
        }
    }
    println!("  by page:");
    for (page, t) in &by_page {
        println!("    {:<40} {} of {}", page, t.pct(), t.n);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
