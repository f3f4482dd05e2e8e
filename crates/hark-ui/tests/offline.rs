//! The offline screen mode: whole turns — text → `screen` jobs → UI commands
//! → one sentence — over real snapshots of the demo shop, with the local classifier.
//!
//! The snapshots are the demo page's own, taken by client-js's snapshot walker in Chromium
//! (`bench/grounding/rows.jsonl`, pages `demo/home` and `demo/checkout`; see
//! `bench/grounding/README.md`).

use std::sync::Arc;

use hark_rtvi::{A11yNode, A11ySnapshot, ServerMessage};
use hark_ui::classifier::LocalClassifier;
use hark_ui::offline::{Failure, Intent, OfflineScreen, mode_message};
use hark_ui::{Bus, BusScreenJobs, JobRoutes, ScreenJobHandler, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

const ROWS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../bench/grounding/rows.jsonl"
);

/// The first stored snapshot of the demo page in state `page` (`demo/home`, `demo/checkout`).
fn demo_snapshot(page: &str) -> A11ySnapshot {
    let text = std::fs::read_to_string(ROWS)
        .unwrap_or_else(|e| panic!("cannot read {ROWS}: {e} (see bench/grounding/README.md)"));
    let row: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON row"))
        .find(|r| r["page"] == page)
        .unwrap_or_else(|| panic!("no row of {page} in {ROWS}"));
    A11ySnapshot::from_json(&row["snapshot"].to_string()).expect("a snapshot")
}

/// A worker with the local classifier on `snapshot`, the offline turns over it, and the
/// worker's outbound commands.
fn offline_on(
    snapshot: A11ySnapshot,
) -> (
    OfflineScreen,
    Arc<UiWorker>,
    UnboundedReceiver<ServerMessage>,
) {
    let (tx, rx) = unbounded_channel();
    let worker = Arc::new(
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new())),
    );
    worker.on_snapshot(snapshot);
    (OfflineScreen::new(worker.clone()), worker, rx)
}

/// Every command sent so far, as `(command, payload)`.
fn commands(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = m {
            out.push((c.command, c.payload));
        }
    }
    out
}

fn find<'a>(node: &'a A11yNode, role: &str, name: &str) -> Option<&'a A11yNode> {
    if node.role == role && node.name.as_deref() == Some(name) {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, role, name))
}

fn ref_of(worker: &UiWorker, role: &str, name: &str) -> String {
    let screen = worker.snapshot().expect("a snapshot");
    find(&screen.snapshot().root, role, name)
        .unwrap_or_else(|| panic!("no {role} {name:?} on the page"))
        .ref_
        .to_string()
}

/// The "Add to cart" button inside the product row named `row`.
fn add_button_of(worker: &UiWorker, row: &str) -> String {
    let screen = worker.snapshot().expect("a snapshot");
    let item = find(&screen.snapshot().root, "listitem", row).expect("the product row");
    find(item, "button", "Add to cart")
        .expect("its Add to cart button")
        .ref_
        .to_string()
}

#[tokio::test]
async fn click_add_to_cart_for_a_product_clicks_that_rows_button() {
    let (offline, worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    for text in [
        "click add to cart for the travel mug",
        "add the travel mug to my cart",
        "please press add to cart for the travel mug",
        "put the travel mug in my cart",
    ] {
        let turn = offline.turn(text).await;
        assert_eq!(
            turn.sentence, "I clicked \"Add to cart (Travel mug)\".",
            "{text}"
        );
        assert_eq!(
            commands(&mut rx),
            vec![(
                "click".to_string(),
                json!({"ref": add_button_of(&worker, "Travel mug €19.00"), "target_id": null})
            )],
            "{text}"
        );
    }
    let turn = offline.turn("click add to cart for the milk frother").await;
    // A read-only `list` (to word a checkbox's click "ticked"), then the one click.
    assert_eq!(turn.calls.len(), 2);
    assert_eq!(
        turn.calls[0].payload,
        json!({"action": "list", "target": ""})
    );
    assert_eq!(
        turn.calls[1].payload,
        json!({"action": "click", "target": "add to cart for the milk frother"})
    );
    assert_eq!(
        turn.calls[1].answer,
        Ok(json!({"done": true, "label": "Add to cart (Milk frother)"}))
    );
    assert_eq!(
        commands(&mut rx)[0].1["ref"],
        json!(add_button_of(&worker, "Milk frother €28.00"))
    );
}

#[tokio::test]
async fn fill_writes_the_value_as_written_into_the_field() {
    let (offline, worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    for (text, field, value) in [
        (
            "type ana@example.com into the email field",
            "Email",
            "ana@example.com",
        ),
        ("fill the name field with Ana María", "Name", "Ana María"),
        (
            "Please enter \"O'Brien & Sons, Ltd.\" in the name box.",
            "Name",
            "O'Brien & Sons, Ltd.",
        ),
        ("search for mug", "Search", "mug"),
    ] {
        let turn = offline.turn(text).await;
        assert_eq!(
            turn.sentence,
            messages::offline_filled(value, field),
            "{text}"
        );
        assert_eq!(
            commands(&mut rx),
            vec![(
                "set_input_value".to_string(),
                json!({"value": value, "ref": ref_of(&worker, "textbox", field),
                       "target_id": null, "replace": true})
            )],
            "{text}"
        );
    }
}

#[tokio::test]
async fn show_scrolls_to_the_element_then_highlights_it() {
    let (offline, worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    let turn = offline.turn("where is the send button?").await;
    assert_eq!(
        turn.intent,
        Some(Intent::Show {
            target: "the send button".into()
        })
    );
    assert_eq!(turn.sentence, messages::offline_shown("Send"));
    let send = ref_of(&worker, "button", "Send");
    let sent = commands(&mut rx);
    let names: Vec<&str> = sent.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(names, ["scroll_to", "highlight"]);
    assert!(
        sent.iter().all(|(_, p)| p["ref"] == json!(send)),
        "{sent:?}"
    );
}

#[tokio::test]
async fn check_list_and_read_answer_from_the_screen() {
    let (offline, _worker, mut rx) = offline_on(demo_snapshot("demo/checkout"));
    let turn = offline.turn("is gift wrap checked?").await;
    assert!(
        turn.sentence.starts_with("Yes, I think so ("),
        "{}",
        turn.sentence
    );
    assert_eq!(
        turn.calls[0].payload,
        json!({"action": "check", "target": "is gift wrap checked?"})
    );

    let turn = offline.turn("list the checkboxes").await;
    assert_eq!(turn.sentence, "I see 1 checkbox: Gift wrap (checked).");

    let turn = offline.turn("what's in the email field?").await;
    assert_eq!(turn.sentence, "\"Email\" holds \"ana@example.com\".");

    let turn = offline.turn("what products are there?").await;
    assert!(
        turn.sentence.starts_with(
            "I see 8 products: Espresso cup €9.50, French press €34.00, Coffee grinder €59.00"
        ),
        "{}",
        turn.sentence
    );
    assert!(commands(&mut rx).is_empty(), "questions send no commands");

    let (offline, _worker, _rx) = offline_on(demo_snapshot("demo/home"));
    let turn = offline.turn("is gift wrap checked?").await;
    assert!(
        turn.sentence.starts_with("No, I don't think so ("),
        "{}",
        turn.sentence
    );
}

#[tokio::test]
async fn unreadable_text_gets_the_help_and_nothing_happens() {
    let (offline, _worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    let help = offline.turn("help").await.sentence;
    assert!(help.starts_with("I am in offline screen mode"), "{help}");
    for text in ["the weather is nice today", "help", "", "click"] {
        let turn = offline.turn(text).await;
        assert_eq!(turn.sentence, help, "{text:?}");
        // Only read-only jobs: what the text names is looked for, the page listed.
        for call in &turn.calls {
            let action = call.payload["action"].as_str().unwrap();
            assert!(["find", "list"].contains(&action), "{text:?}: {action}");
        }
    }
    assert!(commands(&mut rx).is_empty());
}

#[tokio::test]
async fn nothing_fits_or_no_classifier_is_said_in_one_sentence() {
    let (offline, _worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    let turn = offline.turn("click the purple unicorn").await;
    assert!(
        turn.sentence
            .starts_with("I could not find \"the purple unicorn\"; on screen I see "),
        "{}",
        turn.sentence
    );
    assert!(turn.sentence.contains("\"Send\""), "{}", turn.sentence);
    assert!(
        !turn.sentence.contains("Place order"),
        "offscreen elements are not named: {}",
        turn.sentence
    );
    assert!(commands(&mut rx).is_empty(), "never a wrong element");

    // A worker without a classifier: the job's error becomes the sentence.
    let (tx, _rx) = unbounded_channel();
    let bare = Arc::new(UiWorker::new("ui", Arc::new(tx)).without_classifier());
    bare.on_snapshot(demo_snapshot("demo/home"));
    let turn = OfflineScreen::new(bare).turn("click send").await;
    // The click is the last job (a read-only `list` comes first, to word a checkbox's click).
    let Err(error) = &turn.calls.last().expect("a job").answer else {
        panic!("the job failed: {turn:?}")
    };
    assert_eq!(Failure::of(error), Failure::NoClassifier);
    assert_eq!(
        turn.sentence,
        messages::offline_failed(Failure::NoClassifier)
    );
    assert_no_developer_text(&turn.sentence);
}

/// The shopper's sentence never carries the developer's instructions or Rust names.
fn assert_no_developer_text(sentence: &str) {
    for word in [
        "::",
        "UiWorker",
        "classifier",
        "with_",
        "LLM classifier",
        "fallback",
        "(\"",
    ] {
        assert!(!sentence.contains(word), "{word:?} in {sentence:?}");
    }
}

/// Every kind of job failure is a short user sentence, never the error text (fault 1).
#[tokio::test]
async fn failures_are_user_sentences_without_developer_text() {
    for error in [
        messages::screen_timeout("ui", 30.0),
        messages::screen_worker_unreachable("ui", "the bus is closed"),
        messages::screen_job_failed("ui", "error"),
        messages::no_classifier().to_string(),
        messages::local_cannot_read("check", "is it nice?"),
        messages::no_snapshot("click", "e3"),
    ] {
        let kind = Failure::of(&error);
        let sentence = messages::offline_failed(kind);
        assert_no_developer_text(sentence);
        assert!(sentence.len() < 120, "{sentence}");
    }
    assert_eq!(
        Failure::of(&messages::screen_timeout("ui", 1.0)),
        Failure::Timeout
    );
    assert_eq!(
        Failure::of(&messages::local_cannot_read("check", "x")),
        Failure::NotUnderstood
    );
    // Questions the local classifier cannot read: a sentence for the shopper.
    let (offline, _worker, _rx) = offline_on(demo_snapshot("demo/checkout"));
    let turn = offline.turn("is the weather nice in the shop?").await;
    if turn.calls.iter().any(|c| c.answer.is_err()) {
        assert_eq!(
            turn.sentence,
            messages::offline_failed(Failure::NotUnderstood)
        );
    }
    assert_no_developer_text(&turn.sentence);
}

/// Fault 2: questions routed so the local classifier can answer them, over the demo page.
#[tokio::test]
async fn switch_total_and_cart_questions_are_answered_from_the_screen() {
    let (offline, _worker, mut rx) = offline_on(demo_snapshot("demo/checkout"));
    for text in [
        "is gift wrap on?",
        "is gift wrap ticked?",
        "is gift wrap turned on?",
    ] {
        let turn = offline.turn(text).await;
        assert!(
            turn.sentence.starts_with("Yes, I think so ("),
            "{text}: {}",
            turn.sentence
        );
    }
    let turn = offline.turn("is gift wrap off?").await;
    assert!(
        turn.sentence.starts_with("No, I don't think so ("),
        "{}",
        turn.sentence
    );

    for text in [
        "how much is the total?",
        "what's the total",
        "what is the total?",
    ] {
        let turn = offline.turn(text).await;
        assert!(
            turn.sentence.contains("€59.00"),
            "{text}: {}",
            turn.sentence
        );
        assert_no_developer_text(&turn.sentence);
    }
    let turn = offline.turn("what's in my cart").await;
    assert_eq!(
        turn.sentence,
        "In your cart: 1 × Coffee grinder. Total €59.00."
    );
    assert!(commands(&mut rx).is_empty(), "questions send no commands");

    // The home page shows the cart's count only.
    let (offline, _worker, _rx) = offline_on(demo_snapshot("demo/home"));
    let turn = offline.turn("what's in my cart?").await;
    assert!(
        turn.sentence == "Your cart is empty." || turn.sentence == messages::offline_cart_count(0),
        "{}",
        turn.sentence
    );
    let turn = offline.turn("is gift wrap on?").await;
    assert!(
        turn.sentence.starts_with("No, I don't think so ("),
        "{}",
        turn.sentence
    );
}

/// Fault 3: every example the help sentence offers works on the demo's home page.
#[tokio::test]
async fn every_help_example_works_on_the_demo_page() {
    let (offline, _worker, _rx) = offline_on(demo_snapshot("demo/home"));
    let help = offline.turn("help").await.sentence;
    let examples: Vec<&str> = help.split('"').skip(1).step_by(2).collect();
    assert!(examples.len() >= 5, "{examples:?}");
    for example in examples {
        let (offline, _worker, _rx) = offline_on(demo_snapshot("demo/home"));
        let turn = offline.turn(example).await;
        assert!(turn.intent.is_some(), "{example}");
        assert!(
            !turn.sentence.starts_with("I could not")
                && !turn.sentence.starts_with("I cannot")
                && !turn.sentence.starts_with("Sorry")
                && turn.sentence != help
                && turn.intent
                    != Some(Intent::Act {
                        target: example.to_string()
                    }),
            "{example}: {}",
            turn.sentence
        );
    }
}

/// Fault 4: a dropdown's value is "selected", not "typed".
#[tokio::test]
async fn a_dropdown_is_selected_not_typed() {
    let (offline, worker, mut rx) = offline_on(demo_snapshot("demo/home"));
    for text in [
        "select Spain from the country list",
        "set the country to Spain",
    ] {
        let turn = offline.turn(text).await;
        assert_eq!(
            turn.sentence, "I selected \"Spain\" in \"Country\".",
            "{text}"
        );
        let sent = commands(&mut rx);
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(
            sent[0].1["ref"],
            json!(ref_of(&worker, "combobox", "Country"))
        );
    }
    let turn = offline
        .turn("type ana@example.com into the email field")
        .await;
    assert_eq!(turn.sentence, "I typed \"ana@example.com\" into \"Email\".");
}

/// Through a bus, as the server runs it: the turn's jobs reach the worker as `screen` jobs.
#[tokio::test]
async fn turns_reach_the_worker_over_the_bus() {
    let (tx, mut rx) = unbounded_channel();
    let worker = Arc::new(
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new())),
    );
    worker.on_snapshot(demo_snapshot("demo/home"));
    let bus = Arc::new(Bus::new());
    let routes = JobRoutes::new("ui")
        .route("screen", Arc::new(ScreenJobHandler::new(worker.clone())))
        .unwrap();
    bus.register("ui", Arc::new(routes)).unwrap();
    let offline = OfflineScreen::new(Arc::new(BusScreenJobs::new(bus, "voice", "ui")));
    let turn = offline
        .turn("type ana@example.com into the email field")
        .await;
    assert_eq!(turn.sentence, "I typed \"ana@example.com\" into \"Email\".");
    assert_eq!(commands(&mut rx)[0].0, "set_input_value");
}

#[test]
fn the_mode_message_names_the_mode_and_carries_the_notice() {
    assert_eq!(
        mode_message(),
        json!({"kind": "hark-mode", "mode": "offline-screen",
               "text": messages::offline_mode_notice()})
    );
}

/// Measures whole offline turns (parse, `screen` jobs with the local classifier, command sent,
/// sentence) on the demo page's snapshot; prints p50/p99 per phrase. Not a test of speed:
/// run `cargo test -p hark-ui --release --test offline -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement; run it by hand"]
async fn measure_offline_turns() {
    let (offline, _worker, mut rx) = offline_on(demo_snapshot("demo/checkout"));
    for text in [
        "click add to cart for the travel mug",
        "type ana@example.com into the email field",
        "where is the send button?",
        "is gift wrap checked?",
        "list the buttons",
        "the weather is nice today",
    ] {
        let mut times = Vec::new();
        for _ in 0..300 {
            let start = std::time::Instant::now();
            let turn = offline.turn(text).await;
            times.push(start.elapsed());
            std::hint::black_box(turn);
            while rx.try_recv().is_ok() {}
        }
        times.sort_unstable();
        let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!("{text:45} p50 {:>9.1?}  p99 {:>9.1?}", p(0.5), p(0.99));
    }
}

/// A failed job's kind is read from its answer's `kind`, never from its
/// text, when the answer has one; the text is only the fallback for workers that send none.
#[test]
fn failure_kinds_come_from_the_answer_kind_first() {
    use hark_ui::classifier::ErrorKind;
    use hark_ui::offline::{KIND_KEY, NO_SNAPSHOT_KIND};
    for kind in ErrorKind::ALL {
        assert_eq!(
            Failure::from_name(kind.as_str()),
            Some(Failure::from_kind(kind))
        );
        assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
    }
    assert_eq!(
        Failure::from_name(NO_SNAPSHOT_KIND),
        Some(Failure::NoScreen)
    );
    assert_eq!(Failure::from_name("no such kind"), None);
    assert_eq!(
        Failure::from_kind(ErrorKind::NotUnderstood),
        Failure::NotUnderstood
    );
    assert_eq!(Failure::from_kind(ErrorKind::Timeout), Failure::Timeout);
    // The kind wins over a text that reads like another failure.
    let text = messages::local_cannot_read("check", "x");
    let answer = json!({"error": text, KIND_KEY: "timeout"});
    assert_eq!(Failure::of_response(Some(&answer), &text), Failure::Timeout);
    // No kind (or an unknown one): the text decides.
    let answer = json!({"error": text});
    assert_eq!(
        Failure::of_response(Some(&answer), &text),
        Failure::NotUnderstood
    );
    let answer = json!({"error": text, KIND_KEY: "from the future"});
    assert_eq!(
        Failure::of_response(Some(&answer), &text),
        Failure::NotUnderstood
    );
    // A job on the Redis bus nobody answered, or one Redis never took: the bus's own answers
    // carry their kind, so the shopper hears "did not answer in time", not "say help" (a new
    // user waited 30 s for 'Sorry, I could not do that on the page; say "help"…').
    let bus = hark_bus::JobResponse::error_of_kind(
        "the worker ui did not answer the screen job within 30 s on Redis channel hark:s1",
        "timeout",
    );
    let text = bus.response.as_ref().unwrap()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    let failure = Failure::of_response(bus.response.as_ref(), &text);
    assert_eq!(failure, Failure::Timeout);
    assert_eq!(
        messages::offline_failed(failure),
        "The page did not answer in time; please try again."
    );
    let bus = hark_bus::JobResponse::error_of_kind("the screen job was not sent", "unreachable");
    let failure = Failure::of_response(bus.response.as_ref(), "the screen job was not sent");
    assert_eq!(failure, Failure::Unreachable);
    assert_eq!(
        messages::offline_failed(failure),
        "I cannot reach the page right now; please try again in a moment."
    );
}

/// A worker whose every `screen` job fails with `{"error": text, "kind": kind}`.
#[derive(Debug)]
struct FailingWorker {
    text: &'static str,
    kind: &'static str,
}

impl hark_ui::ScreenJobs for FailingWorker {
    fn worker_name(&self) -> &str {
        "ui"
    }

    fn screen_job(
        &self,
        _payload: Value,
    ) -> futures::future::BoxFuture<'_, Result<hark_ui::JobResponse, String>> {
        let mut response = hark_ui::JobResponse::error(self.text);
        if let Some(r) = response.response.as_mut() {
            r["kind"] = json!(self.kind);
        }
        Box::pin(async move { Ok(response) })
    }
}

/// A turn says the sentence of the answer's kind, whatever its error text says.
#[tokio::test]
async fn a_turn_words_a_failure_by_its_kind() {
    let offline = OfflineScreen::new(Arc::new(FailingWorker {
        text: "an error text that names no known failure",
        kind: "not_understood",
    }));
    let turn = offline.turn("click send").await;
    assert_eq!(turn.calls[0].failure, Some(Failure::NotUnderstood));
    assert_eq!(
        turn.sentence,
        messages::offline_failed(Failure::NotUnderstood)
    );
    let offline = OfflineScreen::new(Arc::new(FailingWorker {
        text: "cannot read the question (but the kind says otherwise)",
        kind: "no_classifier",
    }));
    let turn = offline.turn("click send").await;
    assert_eq!(turn.calls[0].failure, Some(Failure::NoClassifier));
    assert_eq!(
        turn.sentence,
        messages::offline_failed(Failure::NoClassifier)
    );
}
