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
