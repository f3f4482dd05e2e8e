//! Each `screen` action chooses only among the elements it can act on, and refuses, saying what
//! the element is and what to do, when the description names one it cannot (case U6: a `fill`
//! of a custom dropdown's button or listbox; a `click` on plain text or a disabled button).
//! Labels tell same-named elements apart, and state words pick among them (case U5, the real
//! TodoMVC tree `grounding-data/snapshots/todomvc-one-checked.yaml`), with the lexical local
//! classifier the guide's example uses.

use std::sync::Arc;

use futures::future::BoxFuture;
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::ClassifyState;
use hark_ui::classifier::local::LocalClassifier;
use hark_ui::classifier::{Answer, ChoiceResult, Classifier, ClassifierError, Question};
use hark_ui::screen::{ScreenErrorKind, element_labels, named_elements};
use hark_ui::{ScreenAction, ScreenError, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

fn worker() -> (UiWorker, UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = unbounded_channel();
    let w = UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::lexical()));
    (w, rx)
}

fn snap(root: Value) -> A11ySnapshot {
    A11ySnapshot::from_json(&json!({"root": root, "captured_at": 1}).to_string()).unwrap()
}

fn sent(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = m {
            out.push((c.command, c.payload));
        }
    }
    out
}

fn refused(answer: &hark_ui::JobResponse) -> (&str, &str) {
    assert_eq!(answer.status, JobStatus::Error, "{answer:?}");
    let r = answer.response.as_ref().unwrap();
    (r["kind"].as_str().unwrap(), r["error"].as_str().unwrap())
}

/// The custom dropdown of case U6, closed.
fn dropdown_closed() -> A11ySnapshot {
    snap(json!({"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "button", "name": "Size: Small"},
        {"ref": "e9", "role": "button", "name": "Add to cart"}]}))
}

/// The same dropdown, open.
fn dropdown_open() -> A11ySnapshot {
    snap(json!({"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "button", "name": "Size: Small", "state": ["expanded"]},
        {"ref": "e3", "role": "listbox", "name": "Size", "children": [
            {"ref": "e4", "role": "option", "name": "Small", "state": ["selected"]},
            {"ref": "e5", "role": "option", "name": "Medium"},
            {"ref": "e6", "role": "option", "name": "Large"}]},
        {"ref": "e9", "role": "button", "name": "Add to cart"}]}))
}

#[tokio::test]
async fn u6_fill_never_writes_into_a_dropdown_and_says_to_click_the_option() {
    let (w, mut rx) = worker();
    w.on_snapshot(dropdown_closed());
    let job = w
        .screen(&json!({"action": "fill", "target": "size", "value": "Medium"}))
        .await;
    let (kind, text) = refused(&job);
    assert_eq!(kind, "not_actionable");
    assert_eq!(
        text,
        "button \"Size: Small\" does not take text, so fill cannot write \"Medium\" into it. If \
         it opens a list (a dropdown), click it to open the list, then click the option \
         \"Medium\"; otherwise click it."
    );
    assert!(sent(&mut rx).is_empty(), "nothing written into the button");

    // As the text says: click the button, then (the listbox open) the option.
    let job = w
        .screen(&json!({"action": "click", "target": "the size dropdown"}))
        .await;
    assert_eq!(job.response.unwrap()["done"], json!(true));
    assert_eq!(sent(&mut rx)[0].1["ref"], json!("e2"));
    w.on_snapshot(dropdown_open());
    let job = w
        .screen(&json!({"action": "fill", "target": "size", "value": "Medium"}))
        .await;
    let (kind, text) = refused(&job);
    assert_eq!(kind, "not_actionable");
    assert!(
        text.contains("click the option \"Medium\""),
        "a list or its button, never written into: {text}"
    );
    assert!(sent(&mut rx).is_empty());
    let job = w
        .screen(&json!({"action": "click", "target": "Medium"}))
        .await;
    assert_eq!(job.response, Some(json!({"done": true, "label": "Medium"})));
    assert_eq!(
        sent(&mut rx),
        vec![("click".into(), json!({"ref": "e5", "target_id": null}))]
    );

    // Through `act` the refusal is the typed error.
    w.on_snapshot(dropdown_closed());
    let err = w
        .act(ScreenAction::SetInputValue, "size", Some("Large"))
        .await
        .unwrap_err();
    assert!(matches!(err, ScreenError::NotActionable { ref role, .. } if role == "button"));
    assert_eq!(err.kind(), ScreenErrorKind::NotActionable);
    assert!(sent(&mut rx).is_empty());
    assert_eq!(
        messages::screen_cannot_act("fill", "listbox", "Size", Some("Large"), false),
        "listbox \"Size\" is a list of options, not a text field, so fill cannot write \"Large\" \
         into it: click the option \"Large\" in it instead."
    );
}

/// A classifier that picks the ref named in the utterance (`"pick e3"`), surely.
#[derive(Debug)]
struct Picks;

impl Classifier for Picks {
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        let state = &state.to_value();
        let pick = state["utterance"]
            .as_str()
            .unwrap_or("")
            .trim_start_matches("pick ");
        let answer = Answer::Choice(ChoiceResult {
            choice: pick.to_string(),
            probabilities: vec![(pick.to_string(), 0.9)],
            confidence: 0.9,
        });
        let name = questions[0].0.clone();
        Box::pin(async move { Ok(vec![(name, answer)]) })
    }
}

/// Whatever a classifier picks, each action's command goes only to an element it can act on.
#[tokio::test]
async fn each_action_sends_only_to_elements_it_can_act_on() {
    let (tx, mut rx) = unbounded_channel();
    let w = UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(Picks));
    w.on_snapshot(snap(json!({"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "button", "name": "Size: Small"},
        {"ref": "e3", "role": "paragraph", "name": "Free returns"},
        {"ref": "e4", "role": "checkbox", "name": "Gift wrap"},
        {"ref": "e5", "role": "textbox", "name": "Email"},
        {"ref": "e6", "role": "spinbutton", "name": "Quantity"},
        {"ref": "e7", "role": "textbox", "name": "Coupon", "state": ["disabled"]},
        {"ref": "e8", "role": "button", "name": "Pay now", "state": ["disabled"]},
        {"ref": "e9", "role": "combobox", "name": "Country"},
        {"ref": "e10", "role": "searchbox", "name": "Search"},
        {"ref": "e11", "role": "generic", "name": "Phone"},
        {"ref": "e12", "role": "textbox", "name": "Phone"}]})));
    let all = [
        "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e11", "e12",
    ];
    for (action, acts) in [
        ("fill", vec!["e5", "e6", "e9", "e10", "e12"]),
        (
            "click",
            vec!["e2", "e4", "e5", "e6", "e9", "e10", "e11", "e12"],
        ),
        ("highlight", all.to_vec()),
    ] {
        for r in all {
            let job = w
                .screen(&json!({"action": action, "target": format!("pick {r}"), "value": "x"}))
                .await;
            let commands = sent(&mut rx);
            // A label's text names its field: the fill goes to the field of that name.
            let to = if action == "fill" && r == "e11" {
                "e12"
            } else {
                r
            };
            if acts.contains(&r) || to != r {
                assert_eq!(job.status, JobStatus::Completed, "{action} {r}: {job:?}");
                assert_eq!(commands.len(), 1, "{action} {r}");
                assert_eq!(commands[0].1["ref"], json!(to), "{action} {r}");
            } else {
                assert_eq!(refused(&job).0, "not_actionable", "{action} {r}");
                assert!(commands.is_empty(), "{action} {r}: {commands:?}");
            }
        }
    }
}

#[tokio::test]
async fn click_refuses_plain_text_and_disabled_buttons() {
    let (w, mut rx) = worker();
    w.on_snapshot(snap(json!({"ref": "e1", "role": "main", "children": [
        {"ref": "e2", "role": "paragraph", "name": "Free returns within 30 days"},
        {"ref": "e3", "role": "button", "name": "Pay now", "state": ["disabled"]},
        {"ref": "e4", "role": "link", "name": "Help"}]})));
    let job = w
        .screen(&json!({"action": "click", "target": "free returns within 30 days"}))
        .await;
    assert_eq!(
        refused(&job),
        (
            "not_actionable",
            "paragraph \"Free returns within 30 days\" is plain text, not a control, so a click \
             on it does nothing: click the button or link the user means, or use find or \
             highlight to point at the text."
        )
    );
    let job = w
        .screen(&json!({"action": "click", "target": "the pay now button"}))
        .await;
    assert_eq!(
        refused(&job),
        (
            "not_actionable",
            "button \"Pay now\" is disabled, so click would do nothing: tell the user what it \
             waits for (a field still to fill, an option to choose), or act on another element."
        )
    );
    assert!(sent(&mut rx).is_empty(), "nothing sent");
    // Pointing at text still works, and nothing that fits is not a refusal.
    let job = w
        .screen(&json!({"action": "highlight", "target": "free returns within 30 days"}))
        .await;
    assert_eq!(job.response.unwrap()["done"], json!(true));
    let job = w
        .screen(&json!({"action": "click", "target": "the newsletter signup"}))
        .await;
    assert_eq!(job.response, Some(json!({"done": false, "label": null})));
}

#[tokio::test]
async fn fill_of_a_checkbox_says_to_click_it() {
    let (w, mut rx) = worker();
    w.on_snapshot(snap(json!({"ref": "e1", "role": "form", "children": [
        {"ref": "e2", "role": "checkbox", "name": "Gift wrap"},
        {"ref": "e3", "role": "button", "name": "Pay"}]})));
    let job = w
        .screen(&json!({"action": "fill", "target": "gift wrap", "value": "yes"}))
        .await;
    assert_eq!(
        refused(&job),
        (
            "not_actionable",
            "checkbox \"Gift wrap\" is turned on or off by a click, not filled: click it to \
             change it."
        )
    );
    assert!(sent(&mut rx).is_empty());
}

/// `grounding-data/snapshots/todomvc-one-checked.yaml`, as client-js sends it: three todos,
/// two named "travel to Paris", the second of them checked.
fn todomvc() -> A11ySnapshot {
    let item = |li: u32, cb: u32, text: &str, checked: bool| {
        let mut checkbox =
            json!({"ref": format!("e{cb}"), "role": "checkbox", "name": "Toggle Todo"});
        let mut row = vec![
            checkbox.clone(),
            json!({"ref": format!("e{}", cb + 1), "role": "generic", "children": [
                {"ref": "", "role": "text", "name": text}]}),
        ];
        if checked {
            checkbox["state"] = json!(["checked"]);
            row[0] = checkbox;
            row.push(json!({"ref": format!("e{}", cb + 2), "role": "button", "name": "Delete"}));
        }
        json!({"ref": format!("e{li}"), "role": "listitem", "children": [
            {"ref": format!("e{}", li + 1), "role": "generic", "children": row}]})
    };
    snap(json!({"ref": "e1", "role": "generic", "children": [
        {"ref": "e5", "role": "generic", "children": [
            {"ref": "e6", "role": "generic", "children": [
                {"ref": "e7", "role": "heading", "name": "todos", "level": 1},
                {"ref": "e8", "role": "textbox", "name": "What needs to be done?"}]},
            {"ref": "e42", "role": "generic", "children": [
                {"ref": "e43", "role": "checkbox", "name": "❯Mark all as complete"},
                {"ref": "e44", "role": "generic", "children": [
                    {"ref": "", "role": "text", "name": "❯Mark all as complete"}]},
                {"ref": "e45", "role": "list", "children": [
                    item(46, 48, "travel to Paris", false),
                    item(60, 62, "learn how to play piano", false),
                    item(64, 66, "travel to Paris", true)]}]},
            {"ref": "e50", "role": "generic", "children": [
                {"ref": "e69", "role": "button", "name": "Clear completed"}]}]}]}))
}

#[test]
fn labels_tell_same_named_elements_apart() {
    let page = todomvc();
    let root = &page.root;
    let elements = named_elements(root);
    let labels: Vec<(String, String)> = elements
        .iter()
        .map(|n| n.ref_.to_string())
        .zip(element_labels(root, &elements))
        .filter(|(r, _)| ["e43", "e48", "e62", "e66", "e68"].contains(&r.as_str()))
        .collect();
    let want = [
        ("e43", "❯Mark all as complete"),
        ("e48", "Toggle Todo (travel to Paris, unchecked)"),
        ("e62", "Toggle Todo (learn how to play piano)"),
        ("e66", "Toggle Todo (travel to Paris, checked)"),
        ("e68", "Delete"),
    ];
    let mut got = labels.clone();
    got.sort();
    assert_eq!(
        got,
        want.map(|(r, l)| (r.to_string(), l.to_string())).to_vec()
    );

    // Alike in item and state too: their place.
    let twins = snap(json!({"ref": "e1", "role": "list", "children": [
        {"ref": "e2", "role": "button", "name": "Add to cart"},
        {"ref": "e3", "role": "button", "name": "Add to cart"},
        {"ref": "e4", "role": "link", "name": "Add to cart"}]}));
    let elements = named_elements(&twins.root);
    assert_eq!(
        element_labels(&twins.root, &elements),
        ["Add to cart (first)", "Add to cart (second)", "Add to cart"]
    );
}

#[tokio::test]
async fn u5_state_words_pick_by_state_and_labels_tell_the_todos_apart() {
    let (w, mut rx) = worker();
    let page = todomvc();
    w.on_snapshot(page);

    let job = w
        .screen(&json!({"action": "check", "target": "is anything on the list still unchecked?"}))
        .await;
    assert_eq!(job.response.unwrap()["yes"], json!(true));

    // Two todos are unchecked: never the toggle-all box, and no confident pick of one.
    let found = w.find_element("the unchecked one").await.unwrap().unwrap();
    assert!(
        found.label.starts_with("Toggle Todo") || found.confidence < 0.5,
        "{found:?}"
    );
    assert!(found.ref_ != "e66", "the checked one is not it: {found:?}");
    let job = w
        .screen(&json!({"action": "find", "target": "the unchecked one"}))
        .await;
    let answer = job.response.unwrap();
    assert_ne!(answer["label"], json!("❯Mark all as complete"), "{answer}");
    assert!(answer["confidence"].as_f64().unwrap() < 0.5, "{answer}");

    let job = w
        .screen(&json!({"action": "select", "target": "unchecked todos"}))
        .await;
    let labels: Vec<String> = job.response.unwrap()["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["label"].as_str().unwrap().to_string())
        .collect();
    assert!(
        labels.contains(&"Toggle Todo (travel to Paris, unchecked)".to_string())
            && labels.contains(&"Toggle Todo (learn how to play piano)".to_string())
            && !labels.iter().any(|l| l.ends_with(", checked)")),
        "{labels:?}"
    );

    // A label read back as a description names its own element.
    for (label, r) in [("Toggle Todo (travel to Paris, checked)", "e66")] {
        let job = w.screen(&json!({"action": "click", "target": label})).await;
        assert_eq!(
            job.response,
            Some(json!({"done": true, "label": label})),
            "{label}"
        );
        assert_eq!(sent(&mut rx)[0].1["ref"], json!(r), "{label}");
    }
}

#[test]
fn the_refusal_texts() {
    assert_eq!(
        messages::screen_cannot_act("fill", "option", "Medium", Some("x"), false),
        "option \"Medium\" is a choice, not a text field, so fill cannot write into it: click it \
         to choose it."
    );
    assert_eq!(
        messages::screen_cannot_act("fill", "link", "Help", Some("x"), false),
        "link \"Help\" does not take text, so fill cannot write into it: describe the text field \
         to fill (a textbox, search box, combobox or number field)."
    );
    assert_eq!(
        messages::screen_cannot_act("fill", "textbox", "Coupon", Some("x"), true),
        "textbox \"Coupon\" is disabled, so fill would do nothing: tell the user what it waits \
         for (a field still to fill, an option to choose), or act on another element."
    );
}
