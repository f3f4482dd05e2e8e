//! Writes the learned ranker's features for the grounding rows, for
//! `bench/grounding/train_ranker.py` (the training command is in `bench/grounding/README.md`).
//!
//! ```text
//! cargo run --release -p hark-classify --features embeddings --example ranker_features -- \
//!     --field bench/grounding/field --rows bench/grounding/rows.jsonl --out /tmp/ranker
//! ```
//!
//! Reads the field data (`pages.jsonl` + `rows.jsonl` in `--field`: a page's snapshot once, rows
//! naming their page) and the older benchmark rows (`--rows`: a snapshot per row). For every row
//! the options are the snapshot's named elements (as `which_element` asks), and the features
//! are what the ranker computes at run time ([`features::compute`]), with the same encoder.
//! Writes `OUT.options.f32` (every option's row, little-endian f32, [`FEATURES`] a row),
//! `OUT.none.f32` ([`NONE_FEATURES`] a question) and `OUT.jsonl` (per question: page, split,
//! language, description kind, option count, offset, the right options' indices).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use hark_classify::elements::named_elements;
use hark_classify::local::Embedder;
use hark_classify::local::ScreenTree;
use hark_classify::local::choice::Candidate;
use hark_classify::local::embed::e5::E5;
use hark_classify::local::lexical_probabilities;
use hark_classify::local::ranker::features::{self, FEATURES, NONE_FEATURES, OptionTexts};
use hark_classify::local::ranker::{CachedEncoder, Embed};
use hark_rtvi::A11ySnapshot;
use serde_json::{Value, json};

struct Model(E5);

impl Embed for Model {
    fn query(&self, text: &str) -> Result<Vec<f32>, String> {
        Ok(self.0.embed_query(text))
    }
    fn passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Ok(self.0.embed_passages(texts))
    }
}

/// The older English model, to compare (`--model minilm`).
struct MiniLm(Arc<Embedder>);

impl Embed for MiniLm {
    fn query(&self, text: &str) -> Result<Vec<f32>, String> {
        self.0
            .embed_uncached(text)
            .map(|e| e.to_vec())
            .map_err(|e| e.to_string())
    }
    fn passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.0
            .embed_all(texts)
            .map(|es| es.iter().map(|e| e.to_vec()).collect())
            .map_err(|e| e.to_string())
    }
}

struct Question {
    page: String,
    split: String,
    lang: String,
    kind: String,
    description: String,
    refs: Vec<String>,
}

fn read_lines(path: &PathBuf) -> Result<Vec<Value>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    BufReader::new(f)
        .lines()
        .filter(|l| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(|l| {
            let l = l.map_err(|e| e.to_string())?;
            serde_json::from_str(&l).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

fn s(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

fn main() -> ExitCode {
    let mut field = None;
    let mut rows = None;
    let mut out = None;
    let mut model = "e5".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--field" => field = args.next().map(PathBuf::from),
            "--rows" => rows = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "--model" => model = args.next().unwrap_or_default(),
            _ => {
                eprintln!(
                    "usage: ranker_features [--field DIR] [--rows PATH] [--model e5|minilm] --out PREFIX"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out else {
        eprintln!("--out PREFIX is required");
        return ExitCode::from(2);
    };
    match run(field, rows, out, &model) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ranker_features: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    field: Option<PathBuf>,
    rows: Option<PathBuf>,
    out: PathBuf,
    model: &str,
) -> Result<(), String> {
    let dir = hark_classify::local::embed::model_dir().ok_or("no model directory")?;
    let embed: Arc<dyn Embed> = match model {
        "e5" => Arc::new(Model(
            E5::load(&dir.join(hark_classify::local::embed::e5::E5_FILE))
                .map_err(|e| e.to_string())?,
        )),
        "minilm" => Arc::new(MiniLm(Arc::new(
            Embedder::load(&dir).map_err(|e| e.to_string())?,
        ))),
        other => return Err(format!("unknown model {other:?} (e5 or minilm)")),
    };
    let encoder = CachedEncoder::new(embed);

    let mut snapshots: HashMap<String, (A11ySnapshot, String)> = HashMap::new();
    let mut questions: Vec<Question> = Vec::new();
    if let Some(dir) = field {
        for p in read_lines(&dir.join("pages.jsonl"))? {
            let snap: A11ySnapshot =
                serde_json::from_value(p["snapshot"].clone()).map_err(|e| e.to_string())?;
            snapshots.insert(s(&p, "page"), (snap, s(&p, "split")));
        }
        for r in read_lines(&dir.join("rows.jsonl"))? {
            let page = s(&r, "page");
            let split = snapshots
                .get(&page)
                .map(|(_, sp)| sp.clone())
                .ok_or_else(|| format!("row names an unknown page {page}"))?;
            questions.push(Question {
                page,
                split,
                lang: s(&r, "lang"),
                kind: s(&r, "desc_kind"),
                description: s(&r, "description"),
                refs: serde_json::from_value(r["refs"].clone()).unwrap_or_default(),
            });
        }
    }
    if let Some(path) = rows {
        for (i, r) in read_lines(&path)?.into_iter().enumerate() {
            let snap: A11ySnapshot =
                serde_json::from_value(r["snapshot"].clone()).map_err(|e| e.to_string())?;
            let key = format!("bench:{i}");
            snapshots.insert(key.clone(), (snap, s(&r, "split")));
            questions.push(Question {
                page: key,
                split: s(&r, "split"),
                lang: "en".into(),
                kind: format!("bench:{}", s(&r, "page")),
                description: s(&r, "description"),
                refs: serde_json::from_value(r["refs"].clone()).unwrap_or_default(),
            });
        }
    }
    // Questions grouped by page, so a page's options are embedded once.
    questions.sort_by(|a, b| a.page.cmp(&b.page));

    let file = |ext: &str| -> Result<BufWriter<std::fs::File>, String> {
        let p = PathBuf::from(format!("{}.{ext}", out.display()));
        std::fs::File::create(&p)
            .map(BufWriter::new)
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let (mut opt_out, mut none_out, mut index) =
        (file("options.f32")?, file("none.f32")?, file("jsonl")?);
    let started = Instant::now();
    let mut offset = 0usize;
    let mut page_cache: Option<(String, ScreenTree, Vec<usize>, Vec<OptionTexts>)> = None;
    for (qi, q) in questions.iter().enumerate() {
        if page_cache.as_ref().is_none_or(|(p, ..)| *p != q.page) {
            let (snap, _) = &snapshots[&q.page];
            let tree = ScreenTree::from_snapshot(snap);
            let children = tree.children();
            let at: Vec<usize> = named_elements(&snap.root)
                .iter()
                .filter_map(|n| tree.by_ref.get(n.ref_.as_str()).copied())
                .collect();
            let texts: Vec<OptionTexts> = at
                .iter()
                .map(|&i| OptionTexts::of(&tree, &children, i))
                .collect();
            page_cache = Some((q.page.clone(), tree, at, texts));
        }
        let (_, tree, at, texts) = page_cache.as_ref().expect("set above");
        if at.is_empty() {
            continue;
        }
        let candidates: Vec<Candidate<'_>> = at
            .iter()
            .map(|&i| Candidate {
                node: &tree.nodes[i],
                index: Some(i),
            })
            .collect();
        let text_refs: Vec<&OptionTexts> = texts.iter().collect();
        let lexical = lexical_probabilities(&q.description, tree, &candidates);
        let f = features::compute(
            &q.description,
            tree,
            &candidates,
            &text_refs,
            &lexical,
            &encoder,
        )?;
        for row in &f.options {
            for v in row {
                opt_out
                    .write_all(&v.to_le_bytes())
                    .map_err(|e| e.to_string())?;
            }
        }
        for v in &f.none {
            none_out
                .write_all(&v.to_le_bytes())
                .map_err(|e| e.to_string())?;
        }
        let targets: Vec<usize> = at
            .iter()
            .enumerate()
            .filter(|(_, i)| q.refs.contains(&tree.nodes[**i].ref_))
            .map(|(k, _)| k)
            .collect();
        let line = json!({
            "page": q.page, "split": q.split, "lang": q.lang, "kind": q.kind,
            "description": q.description, "n": at.len(), "offset": offset,
            "targets": targets, "none": q.refs.is_empty(),
        });
        writeln!(index, "{line}").map_err(|e| e.to_string())?;
        offset += at.len();
        if qi % 500 == 0 {
            eprintln!(
                "{qi}/{} questions, {:.0?}",
                questions.len(),
                started.elapsed()
            );
        }
    }
    for w in [&mut opt_out, &mut none_out, &mut index] {
        w.flush().map_err(|e| e.to_string())?;
    }
    eprintln!(
        "{} questions, {offset} options, {FEATURES}+{NONE_FEATURES} features, {:.1?}",
        questions.len(),
        started.elapsed()
    );
    Ok(())
}
