//! The JSON the Python layer (`hark.pipecat.LocalClassifier`) and `hark._core.LocalClassifier`
//! exchange, read into hark-classify's types and written back.
//!
//! - **State**: any JSON value. A string holding a `<ui_state>` block is the screen
//!   ([`ClassifyState::from_ui_state_text`]); anything else is read by
//!   [`ClassifyState::from_value`] (`{"utterance"?, "screen"?, …other fields}`).
//! - **Questions**: an object of questions by name, in order, each
//!   `{"kind": "yes_no", "instructions", "yes"?, "no"?}`,
//!   `{"kind": "choice", "instructions", "options": [[option, description|null], …]}` or
//!   `{"kind": "score", "instructions", "levels": [level, …]}`. A description, `yes`, `no` or
//!   level that is not a string is taken as its JSON text.
//! - **Answers**: an object of answers by name, in the questions' order, each
//!   `{"kind": "yes_no", "probability"}`,
//!   `{"kind": "choice", "choice", "probabilities": [[option, p], …], "confidence"}` or
//!   `{"kind": "score", "score": level index, "probabilities": [p, …], "confidence"}`.

use hark_classify::{
    Answer, ChoiceQuestion, ClassifyState, Question, ScoreQuestion, YesNoQuestion,
};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::classify::Failure;

/// One question as the Python layer writes it.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum QuestionShape {
    YesNo {
        instructions: Value,
        #[serde(default)]
        yes: Option<Value>,
        #[serde(default)]
        no: Option<Value>,
    },
    Choice {
        instructions: Value,
        options: Vec<(String, Option<Value>)>,
    },
    Score {
        instructions: Value,
        levels: Vec<Value>,
    },
}

/// A string as itself, any other value as its JSON text.
fn text_of(value: Value) -> String {
    match value {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

impl From<QuestionShape> for Question {
    fn from(shape: QuestionShape) -> Self {
        match shape {
            QuestionShape::YesNo {
                instructions,
                yes,
                no,
            } => Question::YesNo(YesNoQuestion {
                instructions,
                yes: yes.map(text_of),
                no: no.map(text_of),
            }),
            QuestionShape::Choice {
                instructions,
                options,
            } => Question::Choice(ChoiceQuestion {
                instructions,
                options: options
                    .into_iter()
                    .map(|(o, d)| (o, d.filter(|d| !d.is_null()).map(text_of)))
                    .collect(),
            }),
            QuestionShape::Score {
                instructions,
                levels,
            } => Question::Score(ScoreQuestion {
                instructions,
                levels: levels.into_iter().map(text_of).collect(),
            }),
        }
    }
}

/// The state read from its JSON text.
///
/// # Errors
/// `bad_input` when the text is not JSON.
pub(crate) fn state(json: &str) -> Result<ClassifyState, Failure> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        Failure::bad_input(format!(
            "the state is not JSON ({e}): pass what the questions are about as a string, a dict \
             or a list"
        ))
    })?;
    Ok(match value {
        Value::String(text) if text.trim_start().starts_with("<ui_state>") => {
            ClassifyState::from_ui_state_text(text)
        }
        other => ClassifyState::from_value(other),
    })
}

/// The questions read from their JSON text, in order.
///
/// # Errors
/// `bad_input` when the text is not an object of questions, or a question is not of a shape
/// above (the error names the question).
pub(crate) fn questions(json: &str) -> Result<Vec<(String, Question)>, Failure> {
    let map: Map<String, Value> = serde_json::from_str(json).map_err(|e| {
        Failure::bad_input(format!(
            "the questions are not a JSON object of questions by name ({e})"
        ))
    })?;
    map.into_iter()
        .map(|(name, value)| {
            let shape = QuestionShape::deserialize(value).map_err(|e| {
                Failure::bad_input(format!(
                    "the question \"{name}\" is not a yes/no, choice or score question hark \
                     reads ({e})"
                ))
            })?;
            Ok((name, Question::from(shape)))
        })
        .collect()
}

/// The answers as JSON text, by question name in order.
pub(crate) fn answers(answers: &[(String, Answer)]) -> String {
    let map: Map<String, Value> = answers
        .iter()
        .map(|(name, answer)| {
            let value = serde_json::to_value(answer).unwrap_or(Value::Null);
            (name.clone(), value)
        })
        .collect();
    Value::Object(map).to_string()
}
