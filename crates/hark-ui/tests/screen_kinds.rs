//! Every failed `screen` job answers `{"error": text, "kind": name}`, and the
//! offline screen mode words each failure by that kind, never by its text.
//!
//! Each failure the worker can produce is made for real (a worker, its classifier, its sink);
//! the answer's `kind` is asserted, its `error` text is the pinned one, and an offline turn
//! whose error text is rewritten to read like another failure still says the sentence of the
//! kind (so a missing `kind` fails the test: the rewritten text would decide otherwise).

use std::sync::{Arc, Mutex, OnceLock, Weak};

use futures::future::BoxFuture;
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::ClassifyState;
use hark_ui::classifier::{Answer, ChoiceResult, Classifier, ClassifierError, ErrorKind, Question};
use hark_ui::offline::{Failure, KIND_KEY, NO_SNAPSHOT_KIND, OfflineScreen};
use hark_ui::screen::{STALE_RETRIES, ScreenErrorKind};
use hark_ui::{
    CommandError, CommandSink, JobResponse, ScreenError, ScreenJobs, SinkClosed, UiWorker, messages,
};
use serde_json::{Value, json};

type Answers = Result<Vec<(String, Answer)>, ClassifierError>;

/// The kinds' wire names, pinned: they are an interface (a requester in another process reads
/// them), so a rename must fail here.
#[test]
fn every_kind_has_one_stable_name() {
    let own: Vec<&str> = ScreenErrorKind::OWN.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        own,
        [
            "unknown_action",
            "target_missing",
            "no_snapshot",
            "stale_ref",
            "empty_ref",
            "ref_not_a_string",
            "bad_offsets",
            "half_offsets",
            "session_ended",
            "screen_changed",
            "value_missing",
            "unknown_ref",
            "not_actionable",
        ]
    );
    let mut all: Vec<ScreenErrorKind> = ScreenErrorKind::OWN.to_vec();
    all.extend(ErrorKind::ALL.map(ScreenErrorKind::Classifier));
    let mut names: Vec<&str> = all.iter().map(|k| k.as_str()).collect();
    for kind in &all {
        assert_eq!(ScreenErrorKind::from_name(kind.as_str()), Some(*kind));
        assert_eq!(kind.to_string(), kind.as_str());
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "no two kinds share a name");
    assert_eq!(
        ScreenErrorKind::Classifier(ErrorKind::Timeout).as_str(),
        ErrorKind::Timeout.as_str()
    );
    assert_eq!(ScreenErrorKind::NoSnapshot.as_str(), NO_SNAPSHOT_KIND);
    assert_eq!(ScreenErrorKind::from_name("from the future"), None);
}

/// Every [`ScreenError`] (each [`CommandError`] too) has its kind and answers it beside the
/// unchanged text, with status `error`.
#[test]
fn each_screen_error_answers_its_kind_beside_its_text() {
    let command = |e: CommandError| ScreenError::Command(e);
    let cases = [
        (
            ScreenError::UnknownAction("dance".into()),
            ScreenErrorKind::UnknownAction,
        ),
        (
            ScreenError::TargetMissing("click".into()),
            ScreenErrorKind::TargetMissing,
        ),
        (
            ScreenError::ScreenChanged("click".into()),
            ScreenErrorKind::ScreenChanged,
        ),
        (
            ScreenError::ValueMissing("fill".into()),
            ScreenErrorKind::ValueMissing,
        ),
        (
            command(CommandError::UnknownRef {
                command: "click".into(),
                ref_: "e999".into(),
            }),
            ScreenErrorKind::UnknownRef,
        ),
        (
            ScreenError::Classifier(ClassifierError::of_kind(ErrorKind::Timeout, "slow")),
            ScreenErrorKind::Classifier(ErrorKind::Timeout),
        ),
        (
            command(CommandError::NoSnapshot {
                command: "click".into(),
                ref_: "e2".into(),
            }),
            ScreenErrorKind::NoSnapshot,
        ),
        (
            command(CommandError::StaleRef {
                command: "click".into(),
                ref_: "e2".into(),
            }),
            ScreenErrorKind::StaleRef,
        ),
        (
            command(CommandError::EmptyRef {
                command: "click".into(),
            }),
            ScreenErrorKind::EmptyRef,
        ),
        (
            command(CommandError::RefNotAString {
                command: "click".into(),
            }),
            ScreenErrorKind::RefNotAString,
        ),
        (
            command(CommandError::BadOffsets { start: 3, end: 1 }),
            ScreenErrorKind::BadOffsets,
        ),
        (
            command(CommandError::HalfOffsets),
            ScreenErrorKind::HalfOffsets,
        ),
        (
            command(CommandError::Closed {
                command: "click".into(),
            }),
            ScreenErrorKind::SessionEnded,
        ),
    ];
    for (error, kind) in cases {
        assert_eq!(error.kind(), kind, "{error:?}");
        assert_eq!(
            error.response(),
            JobResponse {
                status: JobStatus::Error,
                response: Some(json!({"error": error.to_string(), KIND_KEY: kind.as_str()})),
            }
        );
    }
    // The texts are the ones the model and callers read (pinned in messages.rs too).
    assert_eq!(
        ScreenError::ScreenChanged("fill".into()).to_string(),
        messages::screen_changed("fill")
    );
    assert_eq!(
        command(CommandError::NoSnapshot {
            command: "click".into(),
            ref_: "e2".into()
        })
        .to_string(),
        messages::no_snapshot("click", "e2")
    );
}

/// The offline sentence of every kind: a classifier's as its [`ErrorKind`], no snapshot, an
/// ended session, and the rest as "other".
#[test]
fn offline_words_every_kind() {
    for kind in ErrorKind::ALL {
        assert_eq!(
            Failure::from_screen_kind(ScreenErrorKind::Classifier(kind)),
            Failure::from_kind(kind)
        );
        assert_eq!(
            Failure::from_name(kind.as_str()),
            Some(Failure::from_kind(kind))
        );
    }
    for kind in ScreenErrorKind::OWN {
        let expected = match kind {
            ScreenErrorKind::NoSnapshot => Failure::NoScreen,
            ScreenErrorKind::SessionEnded => Failure::Unreachable,
            _ => Failure::Other,
        };
        assert_eq!(Failure::from_screen_kind(kind), expected, "{kind}");
        assert_eq!(Failure::from_name(kind.as_str()), Some(expected), "{kind}");
    }
}

/// A classifier that answers every choice with its `pick` option (by description; the first
/// option when `pick` is empty), surely, or fails with `fail`; when `swap_to` holds snapshots,
/// it installs the next one on the worker while answering (the screen changes under it).
#[derive(Debug, Default)]
struct Scripted {
    fail: Option<ClassifierError>,
    /// Answer a ref that is not an option.
    off_menu: bool,
    worker: OnceLock<Weak<UiWorker>>,
    swap_to: Mutex<Vec<A11ySnapshot>>,
}

impl Classifier for Scripted {
    fn ask<'a>(
        &'a self,
        _state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Answers> {
        Box::pin(async move {
            if let Some(e) = &self.fail {
                return Err(e.clone());
            }
            let (name, Question::Choice(c)) = &questions[0] else {
                return Err(ClassifierError::new("this test asks choices only"));
            };
            let pick = if self.off_menu {
                "e999".to_string()
            } else {
                c.options[0].0.clone()
            };
            let next = {
                let mut pending = self.swap_to.lock().unwrap();
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

/// A client session that takes every command (and drops it).
#[derive(Debug)]
struct Open;

impl CommandSink for Open {
    fn send(&self, _message: ServerMessage) -> Result<(), SinkClosed> {
        Ok(())
    }
}

/// A client session that has ended.
#[derive(Debug)]
struct Ended;

impl CommandSink for Ended {
    fn send(&self, _message: ServerMessage) -> Result<(), SinkClosed> {
        Err(SinkClosed)
    }
}

/// A page with one button whose ref carries `generation`: no ref survives a newer one.
fn page(generation: u32) -> A11ySnapshot {
    A11ySnapshot::from_json(
        &json!({"root": {"ref": format!("r{generation}"), "role": "main", "children": [
            {"ref": format!("b{generation}"), "role": "button", "name": "Send"}
        ]}, "captured_at": generation})
        .to_string(),
    )
    .expect("snapshot")
}

/// A worker on `page(1)` with `classifier` (`None`: no classifier); `closed`: its client
/// session has ended (the sink refuses every command).
fn worker(classifier: Option<Scripted>, closed: bool) -> Arc<UiWorker> {
    let sink: Arc<dyn CommandSink> = if closed {
        Arc::new(Ended)
    } else {
        Arc::new(Open)
    };
    let mut w = UiWorker::new("ui", sink).without_classifier();
    let classifier = classifier.map(Arc::new);
    if let Some(c) = &classifier {
        w = w.with_classifier(c.clone());
    }
    let w = Arc::new(w);
    if let Some(c) = &classifier {
        c.worker.set(Arc::downgrade(&w)).expect("set once");
    }
    w.on_snapshot(page(1));
    w
}

/// The worker's answers with the error text rewritten to read like another failure than
/// `unlike`: were the kind missing, the offline mode would read the rewritten text.
#[derive(Debug)]
struct RewordedErrors {
    worker: Arc<UiWorker>,
    unlike: Failure,
}

impl RewordedErrors {
    fn misleading_text(&self) -> &'static str {
        if self.unlike == Failure::Timeout {
            "the page cannot be reached"
        } else {
            "the request timed out"
        }
    }
}

impl ScreenJobs for RewordedErrors {
    fn worker_name(&self) -> &str {
        self.worker.name()
    }

    fn screen_job(&self, payload: Value) -> BoxFuture<'_, Result<JobResponse, String>> {
        Box::pin(async move {
            let mut answer = self.worker.screen(&payload).await;
            if let Some(r) = answer
                .response
                .as_mut()
                .filter(|r| r.get("error").is_some())
            {
                r["error"] = json!(self.misleading_text());
            }
            Ok(answer)
        })
    }
}

/// One failure the worker produces: a fresh worker from `make` (twice: the job, then an
/// offline turn), the job's payload, the kind and text its answer must carry, and the offline
/// sentence's kind.
async fn assert_failure(
    make: impl Fn() -> Arc<UiWorker>,
    payload: Value,
    kind: ScreenErrorKind,
    text: &str,
    failure: Failure,
) {
    let answer = make().screen(&payload).await;
    assert_eq!(answer.status, JobStatus::Error, "{payload}");
    assert_eq!(
        answer.response,
        Some(json!({"error": text, "kind": kind.as_str()})),
        "{payload}"
    );
    let offline = OfflineScreen::new(Arc::new(RewordedErrors {
        worker: make(),
        unlike: failure,
    }));
    // The misleading text alone would give another sentence.
    let reworded = RewordedErrors {
        worker: make(),
        unlike: failure,
    };
    assert_ne!(Failure::of(reworded.misleading_text()), failure);
    let turn = offline.turn("click send").await;
    // The click is the last job (a read-only `list` comes first, to word a checkbox's click).
    let click = turn.calls.last().expect("a job");
    assert_eq!(click.failure, Some(failure), "{kind}: {turn:?}");
    assert_eq!(click.answer, Err(reworded.misleading_text().to_string()));
    assert_eq!(turn.sentence, messages::offline_failed(failure), "{kind}");
}

#[tokio::test]
async fn no_classifier_is_answered_and_worded_by_its_kind() {
    assert_failure(
        || worker(None, false),
        json!({"action": "click", "target": "send"}),
        ScreenErrorKind::Classifier(ErrorKind::NoClassifier),
        messages::no_classifier(),
        Failure::NoClassifier,
    )
    .await;
}

#[tokio::test]
async fn each_classifier_failure_is_answered_and_worded_by_its_kind() {
    for kind in ErrorKind::ALL {
        let text = format!("the classifier failed ({kind})");
        let classifier = || Scripted {
            fail: Some(ClassifierError::of_kind(kind, text.clone())),
            ..Scripted::default()
        };
        assert_failure(
            || worker(Some(classifier()), false),
            json!({"action": "click", "target": "send"}),
            ScreenErrorKind::Classifier(kind),
            &text,
            Failure::from_kind(kind),
        )
        .await;
    }
}

/// A choice that is not an option is a bad answer; with a fallback that fails too, the kind is
/// the fallback's (the last try's).
#[tokio::test]
async fn a_choice_off_the_menu_and_two_failed_classifiers_have_their_kinds() {
    let off_menu = || Scripted {
        off_menu: true,
        ..Scripted::default()
    };
    let text = messages::classifier_choice_not_an_option("element", "e999");
    assert_failure(
        || worker(Some(off_menu()), false),
        json!({"action": "find", "target": "send"}),
        ScreenErrorKind::Classifier(ErrorKind::BadAnswer),
        &text,
        Failure::Other,
    )
    .await;

    let two_failing = || {
        let first = ClassifierError::of_kind(ErrorKind::Timeout, "slow");
        let second = ClassifierError::of_kind(ErrorKind::NotUnderstood, "cannot read it");
        let w = UiWorker::new("ui", Arc::new(Open))
            .with_classifier(Arc::new(Scripted {
                fail: Some(first),
                ..Scripted::default()
            }))
            .with_fallback_classifier(Arc::new(Scripted {
                fail: Some(second),
                ..Scripted::default()
            }));
        w.on_snapshot(page(1));
        Arc::new(w)
    };
    let text = messages::both_classifiers_failed("slow", "cannot read it");
    assert_failure(
        two_failing,
        json!({"action": "click", "target": "send"}),
        ScreenErrorKind::Classifier(ErrorKind::NotUnderstood),
        &text,
        Failure::NotUnderstood,
    )
    .await;
}

#[tokio::test]
async fn an_unknown_action_and_a_missing_target_have_their_kinds() {
    let w = worker(Some(Scripted::default()), false);
    let answer = w.screen(&json!({"action": "dance", "target": "x"})).await;
    assert_eq!(
        answer.response,
        Some(json!({"error": messages::unknown_screen_action("dance"), "kind": "unknown_action"}))
    );
    let answer = w.screen(&json!({"action": "click"})).await;
    assert_eq!(
        answer.response,
        Some(json!({"error": messages::screen_target_missing("click"), "kind": "target_missing"}))
    );
    // The offline mode never sends either (its parser gives a target or answers with help),
    // but a kind it reads words them as "other", whatever the text.
    let reworded = json!({"error": "the request timed out", "kind": "target_missing"});
    assert_eq!(
        Failure::of_response(Some(&reworded), "the request timed out"),
        Failure::Other
    );
}

#[tokio::test]
async fn a_screen_that_keeps_changing_has_its_kind() {
    let swaps = u32::try_from(STALE_RETRIES).unwrap() + 1;
    let classifier = || Scripted {
        swap_to: Mutex::new((2..2 + swaps).map(page).collect()),
        ..Scripted::default()
    };
    assert_failure(
        || worker(Some(classifier()), false),
        json!({"action": "click", "target": "send"}),
        ScreenErrorKind::ScreenChanged,
        &messages::screen_changed("click"),
        Failure::Other,
    )
    .await;
}

#[tokio::test]
async fn a_command_after_the_session_ended_has_its_kind() {
    assert_failure(
        || worker(Some(Scripted::default()), true),
        json!({"action": "click", "target": "send"}),
        ScreenErrorKind::SessionEnded,
        &messages::channel_closed("click"),
        Failure::Unreachable,
    )
    .await;
}
