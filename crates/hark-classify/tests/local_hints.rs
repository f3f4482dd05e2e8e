//! The local classifier's error texts name their fix: the Rust UI worker's by default, another
//! API's when swapped ([`LocalClassifier::with_fallback_hint`],
//! [`EmbedError::text_with_fetch_command`]).

use hark_classify::local::embed::{EmbedError, FETCH_COMMAND};
use hark_classify::{
    Classifier, ClassifyState, ErrorKind, LocalClassifier, Question, ScoreQuestion, messages,
};
use serde_json::json;

const PY_HINT: &str = "LocalClassifier(fallback=LLMClassifier(llm=llm))";

fn screen() -> ClassifyState {
    ClassifyState::from_value(
        json!({"screen": "<ui_state>\n- button \"Ok\" [ref=e1]\n</ui_state>"}),
    )
}

#[tokio::test]
async fn an_unreadable_question_names_the_swapped_fallback() {
    let q = [(
        "check".to_string(),
        Question::yes_no("would the user like this page?"),
    )];
    let default = LocalClassifier::lexical()
        .ask(&screen(), &q)
        .await
        .unwrap_err();
    assert_eq!(
        default.message,
        messages::local_cannot_read("check", "would the user like this page?")
    );
    assert!(default.message.ends_with(
        "Give the worker an LLM classifier as fallback (UiWorker::with_fallback_classifier) for \
         other questions."
    ));
    let swapped = LocalClassifier::lexical()
        .with_fallback_hint(PY_HINT)
        .ask(&screen(), &q)
        .await
        .unwrap_err();
    assert_eq!(swapped.kind(), ErrorKind::NotUnderstood);
    assert_eq!(
        swapped.message,
        "the local classifier cannot read the question \"check\" (\"would the user like this \
         page?\"): it answers which element a description means; whether anything is checked, \
         selected, disabled, empty or expanded; whether something is on screen or shows a value; \
         per-element matches; and whether a UI event needs a reply. Give the worker an LLM \
         classifier as fallback (LocalClassifier(fallback=LLMClassifier(llm=llm))) for other \
         questions."
    );
}

#[tokio::test]
async fn a_score_question_and_too_many_options_name_the_swapped_fallback() {
    let c = LocalClassifier::lexical().with_fallback_hint(PY_HINT);
    let score = [(
        "mood".to_string(),
        Question::Score(ScoreQuestion {
            instructions: json!("how happy"),
            levels: vec!["low".into(), "high".into()],
        }),
    )];
    let err = c.ask(&screen(), &score).await.unwrap_err();
    assert_eq!(
        err.message,
        "the local classifier does not answer score questions (\"mood\"): ask an LLM classifier \
         (LocalClassifier(fallback=LLMClassifier(llm=llm)))."
    );
    let many: Vec<(String, Option<String>)> = (0..300)
        .map(|i| (format!("e{i}"), Some(format!("button \"B{i}\""))))
        .collect();
    let state = ClassifyState::new().with_utterance("b3");
    let err = c
        .ask(
            &state,
            &[("element".into(), Question::choice("x", many.clone()))],
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooManyOptions);
    assert_eq!(
        err.message,
        "the choice question \"element\" has 300 options; the local classifier takes at most 255: \
         narrow the options first, or give it a fallback classifier for such questions \
         (LocalClassifier(fallback=LLMClassifier(llm=llm)))."
    );
    // Without a swapped hint the text stays the Rust one.
    let err = LocalClassifier::lexical()
        .ask(&state, &[("element".into(), Question::choice("x", many))])
        .await
        .unwrap_err();
    assert_eq!(
        err.message,
        messages::local_too_many_options("element", 300, 255)
    );
}

#[test]
fn a_missing_model_names_the_swapped_fetch_command() {
    let err = EmbedError::Read {
        path: "/m/vocab.txt".into(),
        reason: "No such file or directory (os error 2)".into(),
    };
    assert_eq!(FETCH_COMMAND, "scripts/fetch-model.sh");
    assert_eq!(
        err.to_string(),
        "cannot read /m/vocab.txt: No such file or directory (os error 2) (run \
         scripts/fetch-model.sh to fetch the model)"
    );
    assert_eq!(
        err.text_with_fetch_command("python -m hark.models fetch"),
        "cannot read /m/vocab.txt: No such file or directory (os error 2) (run python -m \
         hark.models fetch to fetch the model)"
    );
    assert_eq!(
        EmbedError::NoDirectory.text_with_fetch_command("python -m hark.models fetch"),
        "no model directory: set HARK_MODEL_DIR or HOME (run python -m hark.models fetch to fetch \
         the model)"
    );
    let invalid = EmbedError::Invalid {
        dir: "/m".into(),
        reason: "truncated".into(),
    };
    assert_eq!(
        invalid.to_string(),
        "the model in /m does not load: truncated (rerun scripts/fetch-model.sh)"
    );
    assert_eq!(
        invalid.text_with_fetch_command("python -m hark.models fetch"),
        "the model in /m does not load: truncated (rerun python -m hark.models fetch)"
    );
}
