//! A newer snapshot reaching the worker between choosing the element and
//! sending the command must not drop the user's click. The worker finds the element again on
//! the latest snapshot and acts there (at most `STALE_RETRIES` more times); when the screen
//! keeps changing, the `screen` job answers a text the voice model can act on (no refs).
//!
//! The swap is injected by the classifier itself: while its answer is pending (the await
//! between find and act), it hands the worker a newer snapshot in which every ref changed.

use std::sync::{Arc, Mutex, OnceLock, Weak};

use futures::future::BoxFuture;
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::ClassifyState;
use hark_ui::classifier::{Answer, ChoiceResult, Classifier, ClassifierError, Question};
use hark_ui::screen::STALE_RETRIES;
use hark_ui::{ScreenAction, ScreenError, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

type Answers = Result<Vec<(String, Answer)>, ClassifierError>;

/// Picks the `Save` button, or the `Save as` textbox when the utterance says "field", surely; before its answer resolves, it
/// installs the next pending snapshot (if any) on the worker.
#[derive(Debug)]
struct SwapWhileAnswering {
    worker: OnceLock<Weak<UiWorker>>,
    pending: Mutex<Vec<A11ySnapshot>>,
    /// The ref chosen at each call, in order.
    chosen: Mutex<Vec<String>>,
}

impl Classifier for SwapWhileAnswering {
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Answers> {
        let state = state.to_value();
        Box::pin(async move {
            let (name, Question::Choice(c)) = &questions[0] else {
                return Err(ClassifierError::new("expected a choice"));
            };
            let utterance = state["utterance"].as_str().unwrap_or("");
            let wanted = if utterance.contains("field") {
                "textbox \"Save as\""
            } else {
                "button \"Save\""
            };
            let pick = c
                .options
                .iter()
                .find(|(_, d)| d.as_deref() == Some(wanted))
                .map(|(r, _)| r.clone())
                .ok_or_else(|| ClassifierError::new("no such option"))?;
            self.chosen.lock().unwrap().push(pick.clone());
            // The page re-renders while the classifier is thinking.
            tokio::task::yield_now().await;
            let next = {
                let mut pending = self.pending.lock().unwrap();
                (!pending.is_empty()).then(|| pending.remove(0))
            };
            if let Some(next) = next {
                let worker = self.worker.get().and_then(Weak::upgrade).expect("worker");
                worker.on_snapshot(next);
            }
            Ok(vec![(
                name.clone(),
                Answer::Choice(ChoiceResult {
                    choice: pick.clone(),
                    probabilities: vec![(pick, 1.0)],
                    confidence: 1.0,
                }),
            )])
        })
    }
}

/// A form whose every ref carries `generation` (`f{g}`, `c{g}`, `s{g}`): no ref survives a
/// newer generation.
fn form(generation: u32) -> A11ySnapshot {
    A11ySnapshot::from_json(
        &json!({"root": {"ref": format!("f{generation}"), "role": "form", "children": [
            {"ref": format!("c{generation}"), "role": "button", "name": "Cancel"},
            {"ref": format!("s{generation}"), "role": "button", "name": "Save"},
            {"ref": format!("t{generation}"), "role": "textbox", "name": "Save as"}
        ]}, "captured_at": generation})
        .to_string(),
    )
    .expect("snapshot")
}

/// A worker on generation 1 whose classifier swaps in `swaps` newer generations, one per
/// answer.
fn worker_swapping(
    swaps: u32,
) -> (
    Arc<UiWorker>,
    Arc<SwapWhileAnswering>,
    UnboundedReceiver<ServerMessage>,
) {
    let classifier = Arc::new(SwapWhileAnswering {
        worker: OnceLock::new(),
        pending: Mutex::new((2..2 + swaps).map(form).collect()),
        chosen: Mutex::new(Vec::new()),
    });
    let (tx, rx) = unbounded_channel();
    let worker = Arc::new(UiWorker::new("ui", Arc::new(tx)).with_classifier(classifier.clone()));
    classifier
        .worker
        .set(Arc::downgrade(&worker))
        .expect("set once");
    worker.on_snapshot(form(1));
    (worker, classifier, rx)
}

/// Every command sent so far: (name, payload).
fn commands(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Ok(message) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = message {
            out.push((c.command, c.payload));
        }
    }
    out
}

#[tokio::test]
async fn a_snapshot_swap_between_find_and_click_lands_the_click_on_the_new_ref() {
    let (worker, classifier, mut rx) = worker_swapping(1);

    let done = worker
        .screen(&json!({"action": "click", "target": "the save button"}))
        .await;

    assert_eq!(done.status, JobStatus::Completed, "{:?}", done.response);
    assert_eq!(done.response, Some(json!({"done": true, "label": "Save"})));
    assert_eq!(*classifier.chosen.lock().unwrap(), ["s1", "s2"]);
    let sent = commands(&mut rx);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].0, "click");
    assert_eq!(
        sent[0].1["ref"], "s2",
        "the click went to the latest snapshot's ref"
    );
}

#[tokio::test]
async fn act_retries_up_to_the_limit_and_then_lands() {
    // Swapped under the first try and under every retry but the last: still lands.
    let swaps = u32::try_from(STALE_RETRIES).unwrap();
    let (worker, classifier, mut rx) = worker_swapping(swaps);

    let acted = worker
        .act(ScreenAction::SetInputValue, "the save as field", Some("x"))
        .await;

    let last = format!("t{}", swaps + 1);
    assert_eq!(acted, Ok(Some(last.clone())));
    assert_eq!(classifier.chosen.lock().unwrap().len(), STALE_RETRIES + 1);
    let sent = commands(&mut rx);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].0, "set_input_value");
    assert_eq!(sent[0].1["ref"], last.as_str());
}

#[tokio::test]
async fn a_screen_that_keeps_changing_answers_ask_again_and_sends_nothing() {
    let swaps = u32::try_from(STALE_RETRIES).unwrap() + 1;
    let (worker, classifier, mut rx) = worker_swapping(swaps);

    let done = worker
        .screen(&json!({"action": "click", "target": "the save button"}))
        .await;

    assert_eq!(done.status, JobStatus::Error);
    let text = "The screen changed before the click; ask the screen again.";
    assert_eq!(
        done.response,
        Some(json!({ "error": text, "kind": "screen_changed" }))
    );
    assert_eq!(messages::screen_changed("click"), text);
    assert_eq!(classifier.chosen.lock().unwrap().len(), STALE_RETRIES + 1);
    assert!(commands(&mut rx).is_empty(), "no command for a stale ref");

    // `fill` names itself as the job does.
    let (worker, _, _rx) = worker_swapping(swaps);
    let refused = worker
        .act(ScreenAction::SetInputValue, "the save as field", Some("x"))
        .await;
    assert_eq!(refused, Err(ScreenError::ScreenChanged("fill".into())));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "The screen changed before the fill; ask the screen again."
    );
}
