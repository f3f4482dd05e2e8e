//! # hark-classify
//!
//! Questions about a state and the classifiers that answer them: yes/no, choice and score
//! questions, several about one state in one call, each answered with probabilities (and a
//! choice or a score with its confidence), as pipecat 1.14's classifiers.
//!
//! - [`Classifier`]: answers named [`Question`]s about a [`ClassifyState`] ([`state`]: the
//!   user's words, the screen as the snapshot's tree, any other fields) with [`Answer`]s, or
//!   fails the call with a [`ClassifierError`] of an [`ErrorKind`].
//! - [`local`]: the [`LocalClassifier`], in-process and in microseconds: lexical features and,
//!   with the cargo feature `embeddings` (off by default), a sentence-embedding model run by
//!   tract. Without the feature it answers from its lexical features alone, with their own
//!   calibration, exactly as it does when the model files are absent.
//! - [`llm`]: the [`LlmClassifier`] over any `hark_llm::Provider`.
//! - [`elements`]: the named elements of a tree, the options a question chooses among.
//! - [`messages`]: every text hark-classify says, the questions' own words included.

pub mod elements;
pub mod llm;
pub mod local;
pub mod messages;
pub mod state;

use std::fmt;

use futures::future::BoxFuture;
use hark_rtvi::A11ySnapshot;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use llm::LlmClassifier;
pub use local::LocalClassifier;
pub use state::{ClassifyState, RenderUiState, ScreenState};

/// A yes/no question: `instructions` says what to decide; `yes` and `no` optionally describe
/// what each answer means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YesNoQuestion {
    /// What to decide, as text or JSON data.
    pub instructions: Value,
    /// What "yes" means, when it needs saying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yes: Option<String>,
    /// What "no" means, when it needs saying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no: Option<String>,
}

/// A choice among named options (at most 255), each with an optional description, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceQuestion {
    /// What to choose, as text or JSON data.
    pub instructions: Value,
    /// The options in order: `(option, description)`. Option names are unique.
    pub options: Vec<(String, Option<String>)>,
}

/// A score on an ordered scale of at least two levels (level 0 first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreQuestion {
    /// What to score, as text or JSON data.
    pub instructions: Value,
    /// The levels, lowest first (at least two).
    pub levels: Vec<String>,
}

/// One question for a classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A yes/no question.
    YesNo(YesNoQuestion),
    /// A choice among options.
    Choice(ChoiceQuestion),
    /// A score on a scale.
    Score(ScoreQuestion),
}

/// The answer to a yes/no question: the probability of "yes", in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct YesNoResult {
    /// P(yes), in `[0, 1]`.
    pub probability: f64,
}

impl YesNoResult {
    /// `probability >= 0.5`.
    pub fn is_yes(&self) -> bool {
        self.probability >= 0.5
    }
}

/// The answer to a choice question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceResult {
    /// The chosen option (one of the question's options).
    pub choice: String,
    /// Each option's probability, in the question's order; each in `[0, 1]`.
    pub probabilities: Vec<(String, f64)>,
    /// The chosen option's probability, in `[0, 1]`.
    pub confidence: f64,
}

/// The answer to a score question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreResult {
    /// The chosen level's index (0 = lowest).
    pub score: usize,
    /// Each level's probability, lowest level first.
    pub probabilities: Vec<f64>,
    /// The chosen level's probability, in `[0, 1]`.
    pub confidence: f64,
}

/// One answer, of the kind of its question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// Answer to a [`Question::YesNo`].
    YesNo(YesNoResult),
    /// Answer to a [`Question::Choice`].
    Choice(ChoiceResult),
    /// Answer to a [`Question::Score`].
    Score(ScoreResult),
}

/// What kind of failure a [`ClassifierError`] is, so callers (the offline screen mode, a
/// fallback policy) decide by kind, never by matching its text.
/// [`ErrorKind::as_str`] is its wire name (`snake_case`), carried beside the text where an
/// error crosses a job boundary (`{"error": text, "kind": name}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The worker has no classifier to ask ([`messages::no_classifier`]).
    NoClassifier,
    /// The classifier cannot read this question: a kind it does not answer (the local
    /// classifier and score questions), text it cannot parse, no description or no options.
    NotUnderstood,
    /// The question has more options than a classifier takes (255).
    TooManyOptions,
    /// A remote classifier did not answer in time.
    Timeout,
    /// A remote classifier could not be reached or refused the request.
    Unreachable,
    /// A classifier answered, but not in the shape asked (no JSON, a missing or wrong-kind
    /// answer, a choice that is not an option).
    BadAnswer,
    /// Anything else.
    #[default]
    Other,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::NoClassifier,
        ErrorKind::NotUnderstood,
        ErrorKind::TooManyOptions,
        ErrorKind::Timeout,
        ErrorKind::Unreachable,
        ErrorKind::BadAnswer,
        ErrorKind::Other,
    ];

    /// The kind's wire name: `no_classifier`, `not_understood`, `too_many_options`,
    /// `timeout`, `unreachable`, `bad_answer`, `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NoClassifier => "no_classifier",
            ErrorKind::NotUnderstood => "not_understood",
            ErrorKind::TooManyOptions => "too_many_options",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::BadAnswer => "bad_answer",
            ErrorKind::Other => "other",
        }
    }

    /// The kind named `name` ([`ErrorKind::as_str`]); `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a classifier could not answer. Its text says what was wrong; the worker answers the job
/// with `{"error": text}` and status `error`, or falls back to another classifier. Its
/// [`ErrorKind`] ([`ClassifierError::kind`]) says what kind of failure it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ClassifierError {
    /// What went wrong, in a sentence.
    pub message: String,
    /// What kind of failure it is ([`ErrorKind::Other`] from [`ClassifierError::new`]).
    pub kind: ErrorKind,
}

impl ClassifierError {
    /// A classifier error with this text, of kind [`ErrorKind::Other`].
    pub fn new(message: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Other, message)
    }

    /// A classifier error of `kind` with this text.
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind,
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// Answers questions about a state. Implementations must answer every question asked, with an
/// answer of the question's kind, or fail the whole call with a [`ClassifierError`].
pub trait Classifier: Send + Sync + fmt::Debug + 'static {
    /// Answers `questions` (name → question, in order) about `state` in one call; the result
    /// holds one `(name, answer)` per question, in the same order.
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>>;

    /// Called when the worker accepts a new snapshot, before any question about it: a
    /// classifier may start work a first question would otherwise wait for (the local
    /// classifier embeds the element names it has not seen, in the background). Must return
    /// at once and never fail; the default does nothing.
    fn prepare(&self, snapshot: &A11ySnapshot) {
        let _ = snapshot;
    }
}

/// The answer named `name` in `answers`, if it is a yes/no answer.
///
/// # Errors
/// [`ClassifierError`] when the answer is missing or of another kind (a classifier that broke
/// the [`Classifier`] contract).
pub fn yes_no_answer(
    answers: &[(String, Answer)],
    name: &str,
) -> Result<YesNoResult, ClassifierError> {
    match answers.iter().find(|(n, _)| n == name) {
        Some((_, Answer::YesNo(r))) => Ok(*r),
        _ => Err(ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_wrong_kind(name, "yes/no"),
        )),
    }
}

/// The answer named `name` in `answers`, if it is a choice answer.
///
/// # Errors
/// As [`yes_no_answer`].
pub fn choice_answer(
    answers: &[(String, Answer)],
    name: &str,
) -> Result<ChoiceResult, ClassifierError> {
    match answers.iter().find(|(n, _)| n == name) {
        Some((_, Answer::Choice(r))) => Ok(r.clone()),
        _ => Err(ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_wrong_kind(name, "choice"),
        )),
    }
}

impl Question {
    /// A yes/no question with text instructions and no `yes`/`no` descriptions.
    pub fn yes_no(instructions: impl Into<String>) -> Self {
        Question::YesNo(YesNoQuestion {
            instructions: Value::String(instructions.into()),
            yes: None,
            no: None,
        })
    }

    /// A choice among `options` (`(option, description)`, in order) with text instructions.
    pub fn choice(instructions: impl Into<String>, options: Vec<(String, Option<String>)>) -> Self {
        Question::Choice(ChoiceQuestion {
            instructions: Value::String(instructions.into()),
            options,
        })
    }
}
