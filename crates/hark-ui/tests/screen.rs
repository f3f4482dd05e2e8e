//! The `screen` job and the worker's screen questions, with a scripted classifier: icon-only
//! controls, two items with the same name, a custom dropdown.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage, UiEvent};
use hark_ui::ClassifyState;
use hark_ui::classifier::{
    Answer, ChoiceResult, Classifier, ClassifierError, Question, YesNoResult,
};
use hark_ui::screen::{MAX_ELEMENT_OPTIONS, named_elements};
use hark_ui::{ScreenAction, ScreenError, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

type Answers = Result<Vec<(String, Answer)>, ClassifierError>;
type Call = (Value, Vec<(String, Question)>);
type Script = dyn Fn(&Value, &[(String, Question)]) -> Answers + Send + Sync;

/// A deterministic classifier: a function of the state and the questions; records each call.
struct Scripted {
    script: Box<Script>,
    calls: Mutex<Vec<Call>>,
}

impl std::fmt::Debug for Scripted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scripted")
    }
}

impl Scripted {
    fn new(
        script: impl Fn(&Value, &[(String, Question)]) -> Answers + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            script: Box::new(script),
            calls: Mutex::new(Vec::new()),
        })
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }
}

impl Classifier for Scripted {
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Answers> {
        let state = &state.to_value();
        self.calls
            .lock()
            .unwrap()
            .push((state.clone(), questions.to_vec()));
        let answer = (self.script)(state, questions);
        Box::pin(async move { answer })
    }
}

/// Chooses `pick` (a ref) with `confidence` for a choice question; the rest share what is left.
fn choose(questions: &[(String, Question)], pick: &str, confidence: f64) -> Answers {
    let (name, Question::Choice(c)) = &questions[0] else {
        return Err(ClassifierError::new("expected a choice"));
    };
    let others = (1.0 - confidence) / (c.options.len().max(2) - 1) as f64;
    let probabilities = c
        .options
        .iter()
        .map(|(o, _)| (o.clone(), if o == pick { confidence } else { others }))
        .collect();
    Ok(vec![(
        name.clone(),
        Answer::Choice(ChoiceResult {
            choice: pick.into(),
            probabilities,
            confidence,
        }),
    )])
}

/// Word-overlap choice: the option whose name (the quoted part of `role "name"`) shares most
/// words (3+ letters) with the utterance, at 0.9; 0.2 on the first option when no option shares a word.
fn keyword_choice(state: &Value, questions: &[(String, Question)]) -> Answers {
    let utterance = state["utterance"].as_str().unwrap_or("").to_lowercase();
    let words: Vec<String> = utterance
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3 && *w != "the")
        .map(str::to_string)
        .collect();
    let Question::Choice(c) = &questions[0].1 else {
        return Err(ClassifierError::new("expected a choice"));
    };
    let score = |d: &str| {
        let d = d
            .split_once(' ')
            .map_or("", |(_, name)| name)
            .to_lowercase();
        words.iter().filter(|w| d.contains(w.as_str())).count()
    };
    let best = c
        .options
        .iter()
        .map(|(o, d)| (o, score(d.as_deref().unwrap_or(""))))
        .max_by_key(|(_, s)| *s)
        .unwrap();
    if best.1 == 0 {
        choose(questions, &c.options[0].0, 0.2)
    } else {
        choose(questions, best.0, 0.9)
    }
}

fn yes_no(name: &str, p: f64) -> (String, Answer) {
    (name.into(), Answer::YesNo(YesNoResult { probability: p }))
}

fn snapshot(mut json: Value) -> A11ySnapshot {
    if json.get("captured_at").is_none() {
        json["captured_at"] = json!(1767225600000u64);
    }
    A11ySnapshot::from_json(&json.to_string()).unwrap()
}

/// A checkout page: named controls, an unnamed icon button, a text node, an input with a value.
fn checkout() -> A11ySnapshot {
    snapshot(json!({"root": {"ref": "e1", "role": "main", "children": [
        {"ref": "e2", "role": "checkbox", "name": "Gift wrap"},
        {"ref": "e3", "role": "button", "name": "Pay now", "state": ["offscreen"]},
        {"ref": "e4", "role": "textbox", "name": "Email", "value": "ana@example.com", "state": ["focused"]},
        {"ref": "e5", "role": "button"},
        {"ref": "", "role": "text", "name": "Total 12 EUR"},
        {"ref": "e6", "role": "checkbox", "name": "Newsletter", "state": ["checked"]}
    ]}, "captured_at": 1767225600000u64,
    "selection": {"ref": "e4", "text": "  ana@example.com "}}))
}

fn worker_with(
    classifier: Option<Arc<Scripted>>,
) -> (Arc<UiWorker>, UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = unbounded_channel();
    let mut w = UiWorker::new("ui", Arc::new(tx)).without_classifier();
    if let Some(c) = classifier {
        w = w.with_classifier(c);
    }
    (Arc::new(w), rx)
}

fn commands(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = m {
            out.push((c.command, c.payload));
        }
    }
    out
}

/// No answer may carry a ref of the snapshot (`e\d+` as a whole word).
fn assert_no_refs(answer: &Value, snapshot: &A11ySnapshot) {
    let text = answer.to_string();
    let mut refs = Vec::new();
    let mut stack = vec![&snapshot.root];
    while let Some(n) = stack.pop() {
        if !n.ref_.is_empty() {
            refs.push(n.ref_.to_string());
        }
        stack.extend(n.children.iter());
    }
    let bytes = text.as_bytes();
    for r in refs {
        for (i, _) in text.match_indices(&r) {
            let before = i.checked_sub(1).map(|j| bytes[j]);
            let after = bytes.get(i + r.len()).copied();
            let word = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
            assert!(
                word(before) || word(after),
                "answer {text} carries the ref {r}"
            );
        }
    }
}

#[tokio::test]
async fn find_asks_one_choice_over_named_elements_and_answers_the_label() {
    let c = Scripted::new(|_, q| choose(q, "e3", 0.9));
    let (w, _rx) = worker_with(Some(c.clone()));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "find", "target": "the pay button"}))
        .await;
    assert_eq!(r.status, JobStatus::Completed);
    let answer = r.response.unwrap();
    assert_eq!(answer, json!({"label": "Pay now", "confidence": 0.9}));
    assert_no_refs(&answer, &checkout());

    let calls = c.calls();
    assert_eq!(calls.len(), 1);
    let (state, questions) = &calls[0];
    assert_eq!(
        state,
        &json!({"utterance": "the pay button", "screen": w.render_ui_state()})
    );
    assert_eq!(questions.len(), 1);
    let Question::Choice(choice) = &questions[0].1 else {
        panic!("a choice question")
    };
    assert_eq!(
        choice.instructions,
        json!("the element on screen the user is referring to")
    );
    let opt = |r: &str, d: &str| (r.to_string(), Some(d.to_string()));
    assert_eq!(
        choice.options,
        vec![
            opt("e2", "checkbox \"Gift wrap\""),
            opt("e3", "button \"Pay now\""),
            opt("e4", "textbox \"Email\""),
            opt("e6", "checkbox \"Newsletter\""),
        ]
    );
}

#[tokio::test]
async fn find_below_the_threshold_names_nothing_and_without_a_snapshot_asks_nothing() {
    let c = Scripted::new(|_, q| choose(q, "e2", 0.49));
    let (w, _rx) = worker_with(Some(c.clone()));
    // No page yet: said so, never "not found" about a page nobody has seen.
    for action in ["find", "check", "select", "click"] {
        let r = w.screen(&json!({"action": action, "target": "x"})).await;
        assert_eq!(r.status, JobStatus::Error);
        assert_eq!(
            r.response,
            Some(json!({
                "error": format!("cannot {action} on the screen: no snapshot of the page has arrived yet, so nothing on it can be seen. The page sends one when it connects and whenever it changes; ask again once it has."),
                "kind": "no_snapshot"
            }))
        );
    }
    assert!(c.calls().is_empty(), "no snapshot: no question");
    w.on_snapshot(checkout());
    let r = w.screen(&json!({"action": "find", "target": "x"})).await;
    assert_eq!(r.response, Some(json!({"label": null, "confidence": 0.49})));
    assert_eq!(w.which_element("x", 0.5).await.unwrap(), None);
    assert_eq!(w.which_element("x", 0.4).await.unwrap(), Some("e2".into()));
}

#[tokio::test]
async fn check_answers_yes_and_probability() {
    let c = Scripted::new(|_, q| Ok(vec![yes_no(&q[0].0, 0.8)]));
    let (w, _rx) = worker_with(Some(c.clone()));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "check", "target": "is gift wrap on?"}))
        .await;
    assert_eq!(r.status, JobStatus::Completed);
    assert_eq!(r.response, Some(json!({"yes": true, "probability": 0.8})));
    let (state, questions) = &c.calls()[0];
    assert_eq!(state, &json!({"screen": w.render_ui_state()}));
    assert_eq!(questions[0].1, Question::yes_no("is gift wrap on?"));
}

#[tokio::test]
async fn select_asks_one_question_per_element_in_one_call_most_likely_first() {
    let c = Scripted::new(|_, q| {
        Ok(q.iter()
            .map(|(name, _)| {
                let p = match name.as_str() {
                    "e2" => 0.7,
                    "e6" => 0.95,
                    "e3" => 0.5,
                    _ => 0.1,
                };
                yes_no(name, p)
            })
            .collect())
    });
    let (w, _rx) = worker_with(Some(c.clone()));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "select", "target": "options I can tick"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(
        answer,
        json!({"matches": [
            {"label": "Newsletter", "probability": 0.95},
            {"label": "Gift wrap", "probability": 0.7},
            {"label": "Pay now", "probability": 0.5}
        ]})
    );
    assert_no_refs(&answer, &checkout());
    let calls = c.calls();
    assert_eq!(calls.len(), 1, "all elements in one call");
    let (state, questions) = &calls[0];
    assert_eq!(
        state,
        &json!({"criteria": "options I can tick", "screen": w.render_ui_state()})
    );
    let names: Vec<&str> = questions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["e2", "e3", "e4", "e6"]);
    assert_eq!(
        questions[0].1,
        Question::yes_no("options I can tick: does checkbox \"Gift wrap\" match?")
    );
    // The method keeps the refs for the worker's own use.
    let m = w.select_elements("options I can tick").await.unwrap();
    assert_eq!(m[0].ref_, "e6");
}

#[tokio::test]
async fn list_reads_named_elements_with_a_role_filter_and_no_refs() {
    let (w, _rx) = worker_with(None);
    let r = w.screen(&json!({"action": "list"})).await;
    assert_eq!(r.status, JobStatus::Error);
    assert_eq!(r.response.unwrap()["kind"], "no_snapshot");
    // "selection" needs no page: no page, no selection.
    let r = w.screen(&json!({"action": "selection"})).await;
    assert_eq!(r.response, Some(json!({"text": null})));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "list", "target": "checkbox"}))
        .await;
    assert_eq!(r.status, JobStatus::Completed);
    let answer = r.response.unwrap();
    assert_eq!(
        answer,
        json!({"elements": [
            {"role": "checkbox", "name": "Gift wrap", "state": [], "value": null},
            {"role": "checkbox", "name": "Newsletter", "state": ["checked"], "value": null}
        ]})
    );
    let all = w.screen(&json!({"action": "list", "target": 7})).await;
    let all = all.response.unwrap();
    assert_eq!(all["elements"].as_array().unwrap().len(), 4);
    assert_eq!(
        all["elements"][2],
        json!({"role": "textbox", "name": "Email", "state": ["focused"], "value": "ana@example.com"})
    );
    assert_no_refs(&all, &checkout());
}

#[tokio::test]
async fn selection_answers_the_trimmed_text_or_null() {
    let (w, _rx) = worker_with(None);
    let r = w.screen(&json!({"action": "selection"})).await;
    assert_eq!(r.response, Some(json!({"text": null})));
    w.on_snapshot(checkout());
    let r = w.screen(&json!({"action": "selection"})).await;
    assert_eq!(r.status, JobStatus::Completed);
    assert_eq!(r.response, Some(json!({"text": "ana@example.com"})));
}

#[tokio::test]
async fn each_action_sends_its_command_and_answers_done_and_label() {
    let cases = [
        ("click", "e2", json!({"ref": "e2", "target_id": null})),
        (
            "scroll_to",
            "e3",
            json!({"ref": "e3", "target_id": null, "behavior": null}),
        ),
        (
            "highlight",
            "e6",
            json!({"ref": "e6", "target_id": null, "duration_ms": null}),
        ),
        (
            "select_text",
            "e4",
            json!({"ref": "e4", "target_id": null, "start_offset": null, "end_offset": null}),
        ),
    ];
    for (action, pick, payload) in cases {
        let pick_owned = pick.to_string();
        let c = Scripted::new(move |_, q| choose(q, &pick_owned, 0.5));
        let (w, mut rx) = worker_with(Some(c));
        w.on_snapshot(checkout());
        let r = w
            .screen(&json!({"action": action, "target": "that one"}))
            .await;
        assert_eq!(r.status, JobStatus::Completed, "{action}");
        let answer = r.response.unwrap();
        assert_eq!(answer["done"], json!(true), "{action}");
        assert_no_refs(&answer, &checkout());
        assert_eq!(commands(&mut rx), vec![(action.to_string(), payload)]);
    }
    // fill writes value into the element found (set_input_value, replace).
    let c = Scripted::new(|_, q| choose(q, "e4", 0.93));
    let (w, mut rx) = worker_with(Some(c));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "fill", "target": "the email field", "value": "bo@example.com"}))
        .await;
    assert_eq!(r.response, Some(json!({"done": true, "label": "Email"})));
    assert_eq!(
        commands(&mut rx),
        vec![(
            "set_input_value".into(),
            json!({"value": "bo@example.com", "ref": "e4", "target_id": null, "replace": true})
        )]
    );
    // An explicit "" clears the field: it is a value.
    let r = w
        .screen(&json!({"action": "fill", "target": "the email field", "value": ""}))
        .await;
    assert_eq!(r.response, Some(json!({"done": true, "label": "Email"})));
    assert_eq!(
        commands(&mut rx),
        vec![(
            "set_input_value".into(),
            json!({"value": "", "ref": "e4", "target_id": null, "replace": true})
        )]
    );
}

/// A `fill` without a value (missing, `null`, a list, an object) is refused naming the action
/// and what to send, before the classifier is asked: it never wipes the field (the trial's
/// search box holding "mugs"). The same holds for every action that writes a value, and for
/// `act` from Rust.
#[tokio::test]
async fn an_action_that_writes_a_value_refuses_a_missing_one() {
    let c = Scripted::new(|_, q| choose(q, "e4", 0.93));
    let (w, mut rx) = worker_with(Some(c.clone()));
    w.on_snapshot(checkout());
    assert_eq!(
        messages::screen_value_missing("fill"),
        "the screen action \"fill\" needs a value: send the text to write as \"value\", \
         e.g. \"ana@example.com\", or \"value\": \"\" to clear the field."
    );
    for payload in [
        json!({"action": "fill", "target": "the search field"}),
        json!({"action": "fill", "target": "the search field", "value": null}),
        json!({"action": "fill", "target": "the search field", "value": ["mugs"]}),
        json!({"action": "fill", "target": "the search field", "value": {"text": "mugs"}}),
    ] {
        let r = w.screen(&payload).await;
        assert_eq!(r.status, JobStatus::Error, "{payload}");
        assert_eq!(
            r.response,
            Some(json!({"error": messages::screen_value_missing("fill"), "kind": "value_missing"})),
            "{payload}"
        );
    }
    // Numbers and booleans are text to write, as before.
    let r = w
        .screen(&json!({"action": "fill", "target": "the email field", "value": 5}))
        .await;
    assert_eq!(r.response, Some(json!({"done": true, "label": "Email"})));
    assert_eq!(commands(&mut rx)[0].1["value"], json!("5"));
    // Every action that writes a value, through `act` too.
    for action in [
        ScreenAction::Click,
        ScreenAction::ScrollTo,
        ScreenAction::Highlight,
        ScreenAction::SelectText,
        ScreenAction::SetInputValue,
    ] {
        assert_eq!(
            action.needs_value(),
            action == ScreenAction::SetInputValue,
            "{action:?}"
        );
        if action.needs_value() {
            assert_eq!(
                w.act(action, "the email field", None).await,
                Err(ScreenError::ValueMissing(action.job_name().into()))
            );
        }
    }
    // The missing target is named first; the actions that write nothing ignore "value".
    let r = w.screen(&json!({"action": "fill"})).await;
    assert_eq!(
        r.response.unwrap()["error"],
        json!(messages::screen_target_missing("fill"))
    );
    let asked = c.calls().len();
    assert_eq!(asked, 1, "only the fill of 5 asked the classifier");
    assert!(commands(&mut rx).is_empty(), "nothing was wiped");
}

#[tokio::test]
async fn actions_below_confidence_do_nothing() {
    let c = Scripted::new(|_, q| choose(q, "e2", 0.4));
    let (w, mut rx) = worker_with(Some(c));
    w.on_snapshot(checkout());
    for action in ["click", "scroll_to", "highlight", "select_text", "fill"] {
        let r = w
            .screen(&json!({"action": action, "target": "something", "value": "x"}))
            .await;
        assert_eq!(r.status, JobStatus::Completed);
        assert_eq!(r.response, Some(json!({"done": false, "label": null})));
    }
    assert!(commands(&mut rx).is_empty());
    assert_eq!(
        w.act(ScreenAction::Click, "something", None).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn unknown_or_missing_actions_and_targets_answer_errors() {
    let c = Scripted::new(|_, q| choose(q, "e2", 0.9));
    let (w, mut rx) = worker_with(Some(c.clone()));
    w.on_snapshot(checkout());
    for (payload, text) in [
        (
            json!({"action": "dance", "target": "x"}),
            messages::unknown_screen_action("dance"),
        ),
        (json!({"target": "x"}), messages::unknown_screen_action("")),
        (json!({"action": 3}), messages::unknown_screen_action("")),
        (json!(null), messages::unknown_screen_action("")),
        (
            json!({"action": "set_input_value", "target": "x"}),
            messages::unknown_screen_action("set_input_value"),
        ),
        (
            json!({"action": "click", "target": ["x"]}),
            messages::screen_target_missing("click"),
        ),
        (
            json!({"action": "find"}),
            messages::screen_target_missing("find"),
        ),
    ] {
        let r = w.screen(&payload).await;
        assert_eq!(r.status, JobStatus::Error, "{payload}");
        // The kind beside the text is pinned in tests/screen_kinds.rs.
        assert_eq!(
            r.response.as_ref().unwrap()["error"],
            json!(text),
            "{payload}"
        );
    }
    assert_eq!(
        messages::unknown_screen_action("dance"),
        "unknown screen action \"dance\": use one of find, check, select, list, selection, \
         click, scroll_to, highlight, select_text or fill."
    );
    assert!(c.calls().is_empty() && commands(&mut rx).is_empty());
    assert!(ScreenAction::from_name("dance").is_err());
    assert_eq!(
        ScreenAction::from_name("fill").unwrap(),
        ScreenAction::SetInputValue
    );
}

#[tokio::test]
async fn a_classifier_failure_answers_an_error_and_the_fallback_is_asked() {
    let failing = Scripted::new(|_, _| Err(ClassifierError::new("model unreachable")));
    let (w, _rx) = worker_with(Some(failing.clone()));
    w.on_snapshot(checkout());
    for action in ["find", "check", "select", "click"] {
        let r = w.screen(&json!({"action": action, "target": "x"})).await;
        assert_eq!(r.status, JobStatus::Error);
        assert_eq!(
            r.response,
            Some(json!({"error": "model unreachable", "kind": "other"}))
        );
    }

    let (tx, _rx2) = unbounded_channel();
    let backup = Scripted::new(|_, q| Ok(vec![yes_no(&q[0].0, 0.2)]));
    let w = UiWorker::new("ui", Arc::new(tx))
        .with_classifier(failing.clone())
        .with_fallback_classifier(backup.clone());
    w.on_snapshot(checkout());
    let r = w.screen(&json!({"action": "check", "target": "x?"})).await;
    assert_eq!(r.response, Some(json!({"yes": false, "probability": 0.2})));
    assert_eq!(backup.calls().len(), 1);

    let (tx, _rx3) = unbounded_channel();
    let w = UiWorker::new("ui", Arc::new(tx))
        .with_classifier(failing.clone())
        .with_fallback_classifier(failing);
    w.on_snapshot(checkout());
    let r = w.screen(&json!({"action": "check", "target": "x?"})).await;
    assert_eq!(
        r.response,
        Some(
            json!({"error": "the classifier failed (model unreachable) and so did its fallback (model unreachable).", "kind": "other"})
        )
    );
}

#[tokio::test]
async fn without_a_classifier_questions_fail_clearly_and_plain_reads_work() {
    let (w, _rx) = worker_with(None);
    w.on_snapshot(checkout());
    let r = w.screen(&json!({"action": "find", "target": "x"})).await;
    assert_eq!(r.status, JobStatus::Error);
    assert_eq!(
        r.response,
        Some(json!({"error": messages::no_classifier(), "kind": "no_classifier"}))
    );
    assert!(messages::no_classifier().contains("UiWorker::with_classifier"));
    let r = w.screen(&json!({"action": "list"})).await;
    assert_eq!(r.status, JobStatus::Completed);
}

#[tokio::test]
async fn a_classifier_answer_outside_the_options_is_an_error_not_a_click() {
    let c = Scripted::new(|_, q| choose(q, "e5", 0.99));
    let (w, mut rx) = worker_with(Some(c));
    w.on_snapshot(checkout());
    let r = w
        .screen(&json!({"action": "click", "target": "the icon"}))
        .await;
    assert_eq!(r.status, JobStatus::Error);
    assert!(commands(&mut rx).is_empty());
}

#[tokio::test]
async fn should_respond_asks_the_pinned_question_on_the_event_and_screen() {
    let c = Scripted::new(|_, q| Ok(vec![yes_no(&q[0].0, 0.6)]));
    let (w, _rx) = worker_with(Some(c.clone()));
    let event = UiEvent {
        event: "nav_click".into(),
        payload: Some(json!({"view": "cart"}).into()),
    };
    assert!(w.should_respond(&event, None).await.unwrap());
    w.on_snapshot(checkout());
    w.should_respond(&event, Some("the user asked for help"))
        .await
        .unwrap();
    let calls = c.calls();
    assert_eq!(
        calls[0].0,
        json!({"event": {"name": "nav_click", "payload": {"view": "cart"}}})
    );
    assert_eq!(
        calls[1].0,
        json!({"event": {"name": "nav_click", "payload": {"view": "cart"}}, "screen": w.render_ui_state()})
    );
    let Question::YesNo(q) = &calls[0].1[0].1 else {
        panic!("yes/no")
    };
    assert_eq!(
        q.instructions,
        json!("the assistant should say something about what the user just did")
    );
    assert_eq!(
        q.yes.as_deref(),
        Some("the event changes what the user is doing or asks for the assistant's attention")
    );
    assert_eq!(
        q.no.as_deref(),
        Some("a routine click, scroll, hover or edit that needs no comment")
    );
    let Question::YesNo(q) = &calls[1].1[0].1 else {
        panic!("yes/no")
    };
    assert_eq!(q.instructions, json!("the user asked for help"));
}

#[test]
fn named_elements_walk_breadth_first_and_stop_at_255() {
    let tree = snapshot(
        json!({"root": {"ref": "e1", "role": "main", "name": "Main", "children": [
            {"ref": "e2", "role": "group", "children": [{"ref": "e4", "role": "button", "name": "Deep"}]},
            {"ref": "e3", "role": "button", "name": "Shallow"},
            {"ref": "e5", "role": "button", "name": ""}
        ]}}),
    );
    let refs: Vec<&str> = named_elements(&tree.root)
        .iter()
        .map(|n| n.ref_.as_str())
        .collect();
    assert_eq!(refs, ["e1", "e3", "e4"]);

    let children: Vec<Value> = (0..300)
        .map(|i| json!({"ref": format!("e{}", i + 2), "role": "option", "name": format!("Item {i}")}))
        .collect();
    let wide = snapshot(json!({"root": {"ref": "e1", "role": "listbox", "children": children}}));
    let named = named_elements(&wide.root);
    assert_eq!(named.len(), MAX_ELEMENT_OPTIONS);
    assert_eq!(named.len(), 255);
    assert_eq!(named[254].ref_, "e256");
}

#[test]
fn question_texts_are_pipecats_words() {
    assert_eq!(
        messages::find_instructions(),
        "the element on screen the user is referring to"
    );
    assert_eq!(
        messages::element_option("button", "Pay \"now\""),
        "button \"Pay \"now\"\""
    );
    assert_eq!(
        messages::select_element_question("dairy products", "checkbox", "Milk"),
        "dairy products: does checkbox \"Milk\" match?"
    );
}

/// Icon-only controls. Unnamed buttons are never options, so never chosen; a link named
/// only by its title resolves.
#[tokio::test]
async fn u2_icon_only_controls_are_never_chosen() {
    let page = snapshot(
        json!({"root": {"ref": "e1", "role": "table", "name": "Orders", "children": [
            {"ref": "e2", "role": "row", "name": "Order 1001 Shipped", "children": [
                {"ref": "e3", "role": "cell", "name": "1001"},
                {"ref": "e4", "role": "button"}]},
            {"ref": "e5", "role": "row", "name": "Order 1002 Pending", "children": [
                {"ref": "e6", "role": "cell", "name": "1002"},
                {"ref": "e7", "role": "button", "name": ""}]},
            {"ref": "e8", "role": "link", "name": "Copy link"}
        ]}}),
    );
    let c = Scripted::new(keyword_choice);
    let (w, mut rx) = worker_with(Some(c.clone()));
    w.on_snapshot(page.clone());

    let r = w
        .screen(&json!({"action": "click", "target": "the actions button in the last row"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(answer, json!({"done": false, "label": null}));
    let options: Vec<String> = match &c.calls()[0].1[0].1 {
        Question::Choice(q) => q.options.iter().map(|(o, _)| o.clone()).collect(),
        _ => panic!("choice"),
    };
    assert!(!options.contains(&"e4".into()) && !options.contains(&"e7".into()));
    assert!(commands(&mut rx).is_empty(), "never a wrong element");

    let r = w
        .screen(&json!({"action": "click", "target": "the copy link icon"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(answer, json!({"done": true, "label": "Copy link"}));
    assert_no_refs(&answer, &page);
    assert_eq!(commands(&mut rx)[0].1["ref"], json!("e8"));
}

/// A TodoMVC list with two items of the same name, one checked
/// (`grounding-data/snapshots/todomvc-one-checked.yaml`, as client-js would send it).
fn todomvc() -> A11ySnapshot {
    let item = |li: u32, cb: u32, label: u32, text: &str, checked: bool| {
        let mut checkbox =
            json!({"ref": format!("e{cb}"), "role": "checkbox", "name": "Toggle Todo"});
        if checked {
            checkbox["state"] = json!(["checked"]);
        }
        json!({"ref": format!("e{li}"), "role": "listitem", "children": [
            {"ref": format!("e{}", li + 1), "role": "generic", "children": [
                checkbox,
                {"ref": format!("e{label}"), "role": "generic", "children": [
                    {"ref": "", "role": "text", "name": text}]}]}]})
    };
    snapshot(
        json!({"root": {"ref": "e1", "role": "generic", "children": [
            {"ref": "e7", "role": "heading", "name": "todos", "level": 1},
            {"ref": "e8", "role": "textbox", "name": "What needs to be done?"},
            {"ref": "e43", "role": "checkbox", "name": "❯Mark all as complete"},
            {"ref": "e45", "role": "list", "children": [
                item(46, 48, 49, "travel to Paris", false),
                item(64, 66, 67, "travel to Paris", true)
            ]},
            {"ref": "e69", "role": "button", "name": "Clear completed"}
        ]}}),
    )
}

/// Reads the rendered screen like a model would: the unchecked "Toggle Todo" checkboxes.
fn unchecked_todos(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|l| l.contains("checkbox \"Toggle Todo\"") && !l.contains("[checked]"))
        .filter_map(|l| {
            l.split("[ref=")
                .nth(1)
                .map(|r| r.trim_end_matches(']').to_string())
        })
        .collect()
}

/// "Is anything on the list still unchecked?" is a `check`; "the unchecked one" is a
/// `find` that tells the two same-named items apart by ref, and the click goes to it.
#[tokio::test]
async fn u5_same_named_items_check_and_find() {
    let c = Scripted::new(|state, q| {
        let screen = state["screen"].as_str().unwrap_or("");
        let unchecked = unchecked_todos(screen);
        match &q[0].1 {
            Question::YesNo(_) => Ok(vec![yes_no(
                &q[0].0,
                if unchecked.is_empty() { 0.05 } else { 0.95 },
            )]),
            Question::Choice(_) => match unchecked.as_slice() {
                [one] => choose(q, one, 0.9),
                _ => choose(q, "e43", 0.1),
            },
            Question::Score(_) => Err(ClassifierError::new("no scores here")),
        }
    });
    let (w, mut rx) = worker_with(Some(c));
    let page = todomvc();
    w.on_snapshot(page.clone());

    let r = w
        .screen(&json!({"action": "check", "target": "is anything on the list still unchecked?"}))
        .await;
    assert_eq!(r.response, Some(json!({"yes": true, "probability": 0.95})));

    let r = w
        .screen(&json!({"action": "find", "target": "the unchecked one"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(
        answer,
        json!({"label": "Toggle Todo (travel to Paris, unchecked)", "confidence": 0.9})
    );
    assert_no_refs(&answer, &page);
    assert_eq!(
        w.which_element("the unchecked one", 0.5).await.unwrap(),
        Some("e48".into())
    );

    let r = w
        .screen(&json!({"action": "click", "target": "the unchecked one"}))
        .await;
    assert_eq!(
        r.response,
        Some(json!({"done": true, "label": "Toggle Todo (travel to Paris, unchecked)"}))
    );
    assert_eq!(commands(&mut rx)[0].1["ref"], json!("e48"), "not e66");

    let r = w
        .screen(&json!({"action": "list", "target": "checkbox"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(
        answer["elements"],
        json!([
            {"role": "checkbox", "name": "❯Mark all as complete", "state": [], "value": null},
            {"role": "checkbox", "name": "Toggle Todo", "state": [], "value": null},
            {"role": "checkbox", "name": "Toggle Todo", "state": ["checked"], "value": null}
        ])
    );
    assert_no_refs(&answer, &page);
}

/// A custom dropdown. "Medium" is not an option until the listbox is open; after the
/// click on the button and the next snapshot, the click goes to the option, and nothing is
/// ever written into the button.
#[tokio::test]
async fn u6_custom_dropdown_clicks_the_option_after_it_opens() {
    let closed = snapshot(json!({"root": {"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "button", "name": "Size: Small"},
        {"ref": "e3", "role": "button", "name": "Add to cart"}
    ]}}));
    let open = snapshot(json!({"root": {"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "button", "name": "Size: Small", "state": ["expanded"]},
        {"ref": "e4", "role": "listbox", "name": "Size", "children": [
            {"ref": "e5", "role": "option", "name": "Small", "state": ["selected"]},
            {"ref": "e6", "role": "option", "name": "Medium"},
            {"ref": "e7", "role": "option", "name": "Large"}]},
        {"ref": "e3", "role": "button", "name": "Add to cart"}
    ]}}));
    let c = Scripted::new(keyword_choice);
    let (w, mut rx) = worker_with(Some(c));
    w.on_snapshot(closed);

    let r = w
        .screen(&json!({"action": "click", "target": "Medium"}))
        .await;
    assert_eq!(r.response, Some(json!({"done": false, "label": null})));
    assert!(commands(&mut rx).is_empty());

    let r = w
        .screen(&json!({"action": "click", "target": "the size dropdown"}))
        .await;
    assert_eq!(
        r.response,
        Some(json!({"done": true, "label": "Size: Small"}))
    );
    assert_eq!(commands(&mut rx)[0].1["ref"], json!("e2"));

    w.on_snapshot(open.clone());
    let r = w
        .screen(&json!({"action": "click", "target": "Medium"}))
        .await;
    let answer = r.response.unwrap();
    assert_eq!(answer, json!({"done": true, "label": "Medium"}));
    assert_no_refs(&answer, &open);
    let sent = commands(&mut rx);
    assert_eq!(
        sent,
        vec![("click".into(), json!({"ref": "e6", "target_id": null}))]
    );
    assert!(sent.iter().all(|(c, _)| c != "set_input_value"));
}
