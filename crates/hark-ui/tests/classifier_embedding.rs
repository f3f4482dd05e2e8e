//! The local classifier's sentence-embedding model and the worker's default
//! classifier: loading (present, absent, broken files), the text cache, semantic matches the
//! lexical features miss, and `UiWorker::new` answering with the local classifier, an LLM
//! classifier behind it as the fallback.
//!
//! The tests that need the model run when its files are in the model directory
//! (`scripts/fetch-model.sh`, `$HARK_MODEL_DIR`; `scripts/test.sh` fetches them first) and
//! say so on stderr otherwise.

use std::sync::Arc;

use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, RetryPolicy};
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::classifier::local::embed::{self, EmbedError, Embedder, MODEL_FILE, VOCAB_FILE};
use hark_ui::classifier::local::{LocalClassifier, ScreenTree};
use hark_ui::classifier::{Answer, Classifier, LlmClassifier, Question};
use hark_ui::{UiWorker, messages};
use serde_json::json;

/// The process's model, or `None` after saying why the test is skipped.
fn model(test: &str) -> Option<Arc<Embedder>> {
    let m = Embedder::shared();
    if m.is_none() {
        eprintln!("{test}: embedding model absent (run scripts/fetch-model.sh); skipped");
    }
    m
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hark-embed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn absent_files_are_a_clear_error_naming_the_fetch_script() {
    let dir = temp_dir("absent");
    let err = Embedder::load(&dir).unwrap_err();
    assert!(matches!(err, EmbedError::Read { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(VOCAB_FILE), "{text}");
    assert!(text.contains("scripts/fetch-model.sh"), "{text}");
    let warning = embed::absent_warning(&err);
    assert!(
        warning.contains("lexical features only"),
        "the log line says what happens: {warning}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_files_are_refused_not_a_panic() {
    let dir = temp_dir("broken");
    std::fs::write(dir.join(VOCAB_FILE), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n").unwrap();
    std::fs::write(dir.join(MODEL_FILE), b"this is not an onnx file").unwrap();
    let err = Embedder::load(&dir).unwrap_err();
    assert!(matches!(err, EmbedError::Invalid { .. }), "{err:?}");
    assert!(
        err.to_string().contains("rerun scripts/fetch-model.sh"),
        "{err}"
    );
    // A vocabulary without the special tokens.
    std::fs::write(dir.join(VOCAB_FILE), "a\nb\n").unwrap();
    let err = Embedder::load(&dir).unwrap_err();
    assert!(err.to_string().contains("[CLS]"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

const SHOP: &str = "<ui_state>
- generic [ref=e1]:
  - banner [ref=e2]:
    - searchbox \"Search products\" [ref=e4]
    - link \"Cart (2)\" [ref=e6]
    - button \"Log in\" [ref=e7]
  - main [ref=e8]:
    - link \"Dairy products\" [ref=e12]
    - link \"Bakery\" [ref=e13]
    - link \"Frozen food\" [ref=e14]
    - button \"Checkout\" [ref=e15]
</ui_state>";

async fn pick(c: &LocalClassifier, description: &str) -> (String, f64) {
    let tree = ScreenTree::parse(SHOP);
    let options: Vec<(String, Option<String>)> = tree
        .nodes
        .iter()
        .filter(|n| !n.ref_.is_empty() && !n.name.is_empty())
        .map(|n| {
            (
                n.ref_.to_string(),
                Some(messages::element_option(&n.role, &n.name)),
            )
        })
        .collect();
    let state = json!({"utterance": description, "screen": SHOP});
    let q = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    let answers = c.ask(&state.clone().into(), &q).await.unwrap();
    let Answer::Choice(r) = &answers[0].1 else {
        panic!("a choice answer")
    };
    (r.choice.clone(), r.confidence)
}

#[tokio::test]
async fn without_the_model_the_classifier_still_answers_lexically() {
    let c = LocalClassifier::with_embedder(None);
    assert!(c.embedder().is_none());
    let (choice, confidence) = pick(&c, "the cart").await;
    assert_eq!(choice, "e6");
    assert!(confidence >= 0.5, "{confidence}");
    let (_, confidence) = pick(&c, "the weather forecast").await;
    assert!(confidence < 0.5, "none when nothing fits: {confidence}");
}

#[test]
fn embeddings_are_unit_length_and_cached_by_text() {
    let Some(m) = model("embeddings_are_unit_length_and_cached_by_text") else {
        return;
    };
    assert_eq!(m.dim(), 384);
    let a = m.embed("Add to cart").unwrap();
    let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "{norm}");
    let b = m.embed("Add to cart").unwrap();
    assert!(
        Arc::ptr_eq(&a, &b),
        "the second embedding comes from the cache"
    );
    // A batch: the same vectors as one at a time, in order.
    let batch = m
        .embed_all(&["a quick unique phrase 1", "Add to cart", "another phrase 2"])
        .unwrap();
    assert!(Arc::ptr_eq(&batch[1], &a));
    let alone = m.embed("another phrase 2").unwrap();
    assert!(Arc::ptr_eq(&batch[2], &alone));
    let fresh = Embedder::load(&embed::model_dir().unwrap()).unwrap();
    let again = fresh.embed("another phrase 2").unwrap();
    assert!(
        embed::cosine(&again, &alone) > 0.9999,
        "batching changes nothing"
    );
}

#[test]
fn cosines_follow_meaning() {
    let Some(m) = model("cosines_follow_meaning") else {
        return;
    };
    let cos = |a: &str, b: &str| embed::cosine(&m.embed(a).unwrap(), &m.embed(b).unwrap());
    assert!(cos("milk and cheese", "Dairy products") > cos("milk and cheese", "Bakery"));
    assert!(cos("bread", "Bakery") > cos("bread", "Frozen food"));
    assert!(cos("pay now", "Checkout") > cos("pay now", "Log in"));
}

#[tokio::test]
async fn with_the_model_paraphrases_the_lexicon_lacks_resolve() {
    let Some(m) = model("with_the_model_paraphrases_the_lexicon_lacks_resolve") else {
        return;
    };
    let semantic = LocalClassifier::with_embedder(Some(m));
    let lexical = LocalClassifier::lexical();
    // No word of "milk and cheese" is in "Dairy products", nor in the synonym table.
    let (choice, confidence) = pick(&semantic, "milk and cheese").await;
    assert_eq!(choice, "e12", "at {confidence:.2}");
    let (lex_choice, lex_confidence) = pick(&lexical, "milk and cheese").await;
    assert!(
        lex_choice != "e12" || lex_confidence < 0.5,
        "the lexical path alone does not find it ({lex_choice} at {lex_confidence:.2})"
    );
    // And "none" still holds when nothing fits.
    let (_, confidence) = pick(&semantic, "the weather forecast for tomorrow").await;
    assert!(confidence < 0.5, "{confidence}");
}

fn checkout() -> A11ySnapshot {
    A11ySnapshot::from_json(
        r#"{"root":{"ref":"e1","role":"main","children":[
        {"ref":"e2","role":"link","name":"Cart (2)"},
        {"ref":"e3","role":"button","name":"Log in"},
        {"ref":"e4","role":"checkbox","name":"Gift wrap","state":["checked"]},
        {"ref":"e5","role":"button"}]},"captured_at":1}"#,
    )
    .unwrap()
}

#[tokio::test]
async fn the_worker_asks_the_local_classifier_by_default() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    let worker = UiWorker::new("ui", Arc::new(tx));
    let classifier = worker.classifier().expect("a default classifier");
    assert!(
        format!("{classifier:?}").starts_with("LocalClassifier"),
        "{classifier:?}"
    );
    worker.on_snapshot(checkout());
    let r = worker
        .screen(&json!({"action": "click", "target": "sign me in"}))
        .await;
    assert_eq!(r.status, JobStatus::Completed);
    assert_eq!(r.response, Some(json!({"done": true, "label": "Log in"})));
    let Ok(ServerMessage::UiCommand(cmd)) = rx.try_recv() else {
        panic!("a click command")
    };
    assert_eq!(cmd.payload["ref"], "e3");
    // Nothing fits: "none", no command.
    let r = worker
        .screen(&json!({"action": "click", "target": "the settings gear"}))
        .await;
    assert!(rx.try_recv().is_err(), "no command for {:?}", r.response);
}

#[tokio::test]
async fn an_llm_classifier_stays_the_fallback() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&[
        "{\"check\": {\"probability\": 0.8}}",
    ])])
    .await
    .unwrap();
    let provider = Arc::new(
        OpenAiCompatible::new(server.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    );
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    let worker = UiWorker::new("ui", Arc::new(tx))
        .with_fallback_classifier(Arc::new(LlmClassifier::new(provider, "m")));
    worker.on_snapshot(checkout());
    // The local classifier reads this one: no request.
    let r = worker.check_screen("is anything checked?").await.unwrap();
    assert!(r.is_yes(), "{r:?}");
    assert_eq!(server.bodies().len(), 0);
    // It cannot read this one: the LLM answers.
    let r = worker
        .check_screen("would the user like this page?")
        .await
        .unwrap();
    assert_eq!(r.probability, 0.8);
    assert_eq!(server.bodies().len(), 1);
}

/// A model instance of its own (its own cache and [`Embedder::computed`] count, so tests
/// running alongside do not move it), or `None` after saying the test is skipped.
fn own_model(test: &str) -> Option<Arc<Embedder>> {
    model(test)?;
    Some(Arc::new(Embedder::load_default().expect("the model loads")))
}

/// The shop screen of [`SHOP`] as a snapshot, with `extra` more named links in its main area.
fn shop_snapshot(extra: &[&str]) -> A11ySnapshot {
    let mut main = vec![
        json!({"ref": "e12", "role": "link", "name": "Dairy products"}),
        json!({"ref": "e13", "role": "link", "name": "Bakery"}),
        json!({"ref": "e14", "role": "link", "name": "Frozen food"}),
        json!({"ref": "e15", "role": "button", "name": "Checkout"}),
    ];
    for (i, name) in extra.iter().enumerate() {
        main.push(json!({"ref": format!("x{i}"), "role": "link", "name": name}));
    }
    let root = json!({"ref": "e1", "role": "generic", "children": [
        {"ref": "e2", "role": "banner", "children": [
            {"ref": "e4", "role": "searchbox", "name": "Search products"},
            {"ref": "e6", "role": "link", "name": "Cart (2)"},
            {"ref": "e7", "role": "button", "name": "Log in"}]},
        {"ref": "e8", "role": "main", "children": main}]});
    A11ySnapshot::from_json(&json!({"root": root, "captured_at": 1}).to_string()).unwrap()
}

/// A worker asking `classifier`, on `snapshot`.
fn worker_with(classifier: Arc<LocalClassifier>, snapshot: A11ySnapshot) -> UiWorker {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    let worker = UiWorker::new("ui", Arc::new(tx)).with_classifier(classifier);
    worker.on_snapshot(snapshot);
    worker
}

/// A guard against a hung background job, never a pace.
const WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// `prepare` embeds a new screen's names in the background, so the first
/// question embeds only its description (counted, not timed).
#[tokio::test]
async fn after_prepare_the_first_question_embeds_only_its_description() {
    let Some(m) = own_model("after_prepare_the_first_question_embeds_only_its_description") else {
        return;
    };
    let snapshot = shop_snapshot(&[]);
    let names = hark_ui::screen::named_elements(&snapshot.root).len() as u64;
    let c = Arc::new(LocalClassifier::with_embedder(Some(m.clone())));
    let worker = worker_with(c.clone(), snapshot.clone());
    c.prepare(&snapshot);
    assert!(c.wait_prepared(WAIT), "the background embedding ends");
    assert_eq!(
        m.computed(),
        names,
        "every name embedded once, in the background"
    );

    let found = worker
        .find_element("milk and cheese")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.label, "Dairy products", "the model scored this one");
    assert_eq!(
        m.computed(),
        names + 1,
        "the question embedded only its description"
    );

    // The same screen again: nothing new to embed.
    c.prepare(&snapshot);
    assert!(c.wait_prepared(WAIT));
    assert_eq!(m.computed(), names + 1);
}

/// The `which_element` question on `snapshot`, asked of `c` directly (as
/// `UiWorker::find_element` asks it, without the worker's `prepare` call): the chosen name.
async fn ask_directly(c: &LocalClassifier, snapshot: &A11ySnapshot, description: &str) -> String {
    let named = hark_ui::screen::named_elements(&snapshot.root);
    let options: Vec<(String, Option<String>)> = named
        .iter()
        .map(|n| {
            let name = n.name.as_deref().unwrap_or("");
            (
                n.ref_.to_string(),
                Some(messages::element_option(&n.role, name)),
            )
        })
        .collect();
    let state = json!({"utterance": description, "screen": hark_ui::render_ui_state(snapshot)});
    let q = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    let answers = c.ask(&state.clone().into(), &q).await.unwrap();
    let Answer::Choice(r) = &answers[0].1 else {
        panic!("a choice answer")
    };
    let chosen = named.iter().find(|n| n.ref_ == r.choice).unwrap();
    chosen.name.as_deref().unwrap_or_default().to_owned()
}

/// Without `prepare` the first question embeds every name itself (what `prepare` saves).
#[tokio::test]
async fn without_prepare_the_first_question_embeds_every_name() {
    let Some(m) = own_model("without_prepare_the_first_question_embeds_every_name") else {
        return;
    };
    let snapshot = shop_snapshot(&[]);
    let names = hark_ui::screen::named_elements(&snapshot.root).len() as u64;
    let c = LocalClassifier::with_embedder(Some(m.clone()));
    let chosen = ask_directly(&c, &snapshot, "milk and cheese").await;
    assert_eq!(chosen, "Dairy products");
    assert_eq!(m.computed(), names + 1);
}

/// The worker calls `prepare` when it accepts a snapshot: its first question embeds only
/// its description.
#[tokio::test]
async fn the_worker_prepares_each_snapshot_it_accepts() {
    let Some(m) = own_model("the_worker_prepares_each_snapshot_it_accepts") else {
        return;
    };
    let snapshot = shop_snapshot(&[]);
    let names = hark_ui::screen::named_elements(&snapshot.root).len() as u64;
    let c = Arc::new(LocalClassifier::with_embedder(Some(m.clone())));
    let worker = worker_with(c.clone(), snapshot);
    assert!(c.wait_prepared(WAIT));
    assert_eq!(m.computed(), names, "on_snapshot started the embedding");
    let found = worker
        .find_element("milk and cheese")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.label, "Dairy products");
    assert_eq!(m.computed(), names + 1);
}

/// Names unchanged across snapshots are never embedded again; a newer snapshot's names win
/// over an older one's still waiting.
#[tokio::test]
async fn a_new_snapshot_embeds_only_its_new_names() {
    let Some(m) = own_model("a_new_snapshot_embeds_only_its_new_names") else {
        return;
    };
    let c = LocalClassifier::with_embedder(Some(m.clone()));
    let first = shop_snapshot(&[]);
    let names = hark_ui::screen::named_elements(&first.root).len() as u64;
    c.prepare(&first);
    assert!(c.wait_prepared(WAIT));
    assert_eq!(m.computed(), names);
    c.prepare(&shop_snapshot(&["Organic bananas", "Sourdough loaf"]));
    assert!(c.wait_prepared(WAIT));
    assert_eq!(m.computed(), names + 2, "only the two new names");

    // Two snapshots in a row: whatever of the older one ran, the newer one's names all end
    // up cached, and no name is embedded twice.
    let older: Vec<String> = (0..40).map(|i| format!("Older product {i}")).collect();
    let newer: Vec<String> = (0..40).map(|i| format!("Newer product {i}")).collect();
    let before = m.computed();
    c.prepare(&shop_snapshot(
        &older.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    c.prepare(&shop_snapshot(
        &newer.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert!(c.wait_prepared(WAIT));
    let newer_refs: Vec<&str> = newer.iter().map(String::as_str).collect();
    assert!(
        m.uncached(&newer_refs).is_empty(),
        "the newer names are cached"
    );
    assert!(
        m.computed() - before <= 80,
        "{} embedded",
        m.computed() - before
    );
}

/// Without the model `prepare` does nothing to wait for, and answers stay lexical.
#[tokio::test]
async fn prepare_without_the_model_is_harmless() {
    let c = Arc::new(LocalClassifier::lexical());
    let snapshot = shop_snapshot(&[]);
    c.prepare(&snapshot);
    assert!(
        c.wait_prepared(std::time::Duration::ZERO),
        "no background job"
    );
    let worker = worker_with(c, snapshot);
    let found = worker.find_element("the cart").await.unwrap().unwrap();
    assert_eq!(found.label, "Cart (2)");
}
