//! A filler word that is an element's whole name names it: "the ok button" among [Cancel, OK]
//! is OK ("ok" is filler in "ok, click the cancel button", so it was dropped and the two buttons
//! tied, Cancel first at 0.555). Asked as Pipecat's `UIWorker.which_element` asks it (a choice
//! among refs, each described by role and name), with the lexical features alone and, when the
//! model files are present (`scripts/fetch-model.sh`), with the embedding model.

use hark_classify::local::LocalClassifier;
use hark_classify::{Answer, Classifier, Question, messages};
use serde_json::json;

const DIALOG: &str = "<ui_state>
- dialog \"Delete the file?\" [ref=e1]:
  - button \"Cancel\" [ref=e2]
  - button \"OK\" [ref=e3]
</ui_state>";

const TABS: &str = "<ui_state>
- tablist [ref=e1]:
  - tab \"Text\" [ref=e2]
  - tab \"Images\" [ref=e3]
- link \"View\" [ref=e4]
- link \"Edit\" [ref=e5]
</ui_state>";

async fn pick(
    c: &LocalClassifier,
    screen: &str,
    options: &[(&str, &str, &str)],
    words: &str,
) -> (String, f64) {
    let options = options
        .iter()
        .map(|(r, role, name)| (r.to_string(), Some(messages::element_option(role, name))))
        .collect();
    let q = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options),
    )];
    let state = json!({"utterance": words, "screen": screen});
    let answers = c.ask(&state.into(), &q).await.unwrap();
    let Answer::Choice(r) = &answers[0].1 else {
        panic!("a choice answer")
    };
    (r.choice.clone(), r.confidence)
}

const BUTTONS: [(&str, &str, &str); 2] = [("e2", "button", "Cancel"), ("e3", "button", "OK")];

async fn check(c: &LocalClassifier, which: &str) {
    for words in [
        "the ok button",
        "ok",
        "click ok",
        "press the OK button",
        "okay",
    ] {
        let (choice, confidence) = pick(c, DIALOG, &BUTTONS, words).await;
        assert_eq!(choice, "e3", "{which}: {words:?}");
        assert!(confidence > 0.6, "{which}: {words:?} at {confidence}");
    }
    // The filler word stays filler where it names nothing: "ok, the cancel button".
    let (choice, _) = pick(c, DIALOG, &BUTTONS, "ok, the cancel button").await;
    assert_eq!(choice, "e2", "{which}");
    let links = [
        ("e2", "tab", "Text"),
        ("e3", "tab", "Images"),
        ("e4", "link", "View"),
        ("e5", "link", "Edit"),
    ];
    assert_eq!(
        pick(c, TABS, &links, "the text tab").await.0,
        "e2",
        "{which}"
    );
    assert_eq!(
        pick(c, TABS, &links, "the view link").await.0,
        "e4",
        "{which}"
    );
}

#[tokio::test]
async fn the_ok_button_is_ok_with_the_lexical_features() {
    check(&LocalClassifier::lexical(), "lexical").await;
}

#[tokio::test]
async fn the_ok_button_is_ok_with_the_embedding_model() {
    let c = LocalClassifier::new();
    if c.embedder().is_none() {
        eprintln!(
            "the embedding model is absent (run scripts/fetch-model.sh); only the lexical test ran"
        );
        return;
    }
    check(&c, "semantic").await;
}

/// Names the synonym tables read alike ("Send" and "Place order" both read "submit") are told
/// apart by what the caller said: a caller who says "send" never places the order (found by a
/// new user on the demo shop, which has both buttons). Either order of the buttons.
async fn said_names(c: &LocalClassifier, which: &str) {
    for order in [["Place order", "Send"], ["Send", "Place order"]] {
        let screen = format!(
            "<ui_state>\n- form [ref=e1]:\n  - button \"{}\" [ref=e2]\n  - button \"{}\" [ref=e3]\n</ui_state>",
            order[0], order[1]
        );
        let buttons = [("e2", "button", order[0]), ("e3", "button", order[1])];
        for (words, name) in [
            ("send", "Send"),
            ("click send", "Send"),
            ("the send button", "Send"),
            ("place order", "Place order"),
            ("place my order", "Place order"),
        ] {
            let want = if order[0] == name { "e2" } else { "e3" };
            let (choice, _) = pick(c, &screen, &buttons, words).await;
            assert_eq!(choice, want, "{which}: {words:?} among {order:?}");
        }
    }
}

#[tokio::test]
async fn send_is_not_place_order_with_the_lexical_features() {
    said_names(&LocalClassifier::lexical(), "lexical").await;
}

#[tokio::test]
async fn send_is_not_place_order_with_the_embedding_model() {
    let c = LocalClassifier::new();
    if c.embedder().is_none() {
        eprintln!("the embedding model is absent (run scripts/fetch-model.sh)");
        return;
    }
    said_names(&c, "semantic").await;
}

/// A choice among plain options with no screen (Pipecat's `ChoiceQuestion(options={"Save":
/// None, "Cancel": None})`, or a description that is the option itself) reads the key or the
/// description as the option's name, so what was said picks; and no option is more probable
/// than the pick (a new user saw "cancel it" answer Save at 0.03 with Cancel at 0.97).
#[tokio::test]
async fn plain_options_are_named_by_their_key_and_the_pick_is_the_most_probable() {
    let c = LocalClassifier::lexical();
    for descriptions in [false, true] {
        for (words, want) in [
            ("save", "Save"),
            ("cancel it", "Cancel"),
            ("I want the large size", "large"),
        ] {
            let keys: &[&str] = if want == "large" {
                &["small", "medium", "large"]
            } else {
                &["Save", "Cancel"]
            };
            let options = keys
                .iter()
                .map(|k| (k.to_string(), descriptions.then(|| k.to_string())))
                .collect();
            let q = [(
                "q".to_string(),
                Question::choice("which option the user means", options),
            )];
            let state = json!({"utterance": words});
            let answers = c.ask(&state.into(), &q).await.unwrap();
            let Answer::Choice(r) = &answers[0].1 else {
                panic!("a choice answer")
            };
            assert_eq!(r.choice, want, "{words:?} (descriptions: {descriptions})");
            let top = r.probabilities.iter().map(|(_, p)| *p).fold(0.0, f64::max);
            assert!(
                (r.confidence - top).abs() < 1e-12,
                "{words:?}: the pick at {} below another option at {top}",
                r.confidence
            );
        }
    }
}
