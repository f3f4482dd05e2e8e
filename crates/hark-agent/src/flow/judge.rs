//! The caller's answer to a read-back, judged yes, no or something else.
//!
//! The caller's answer is judged yes / no / something else: locally by default, with an LLM
//! classifier as the fallback.
//!
//! - [`LocalJudge`]: a small lexicon judge for English, Spanish, French and German (the
//!   languages `hark-speak` says values in). It answers only when the words are clear, and says
//!   [`Unsure`] otherwise ("yes, but make it five", "what about Saturday?").
//! - [`ClassifierJudge`]: any [`hark_classify::Classifier`] (the LLM classifier) asked one
//!   choice question: yes, no or other.
//! - [`FallbackJudge`]: the local judge first, the fallback when it is unsure; with no fallback,
//!   an unsure answer is [`Confirmation::Other`] (the model gets the turn).

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use hark_classify::{Classifier, ClassifyState, Question, choice_answer};
use serde_json::json;

/// How the caller answered a read-back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// The caller agreed: the closing tool runs (after its precheck runs again).
    Yes,
    /// The caller disagreed ("no, make it five"): nothing runs, the model gets the turn.
    No,
    /// Something else (a question, another topic): nothing runs, the model gets the turn.
    Other,
}

/// The judge could not tell: the answer needs a better judge (or is [`Confirmation::Other`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not judge the answer: {reason}")]
pub struct Unsure {
    /// Why, in a few words (for the log; never the caller's words).
    pub reason: String,
}

impl Unsure {
    fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

/// Judges the caller's answer to a read-back.
pub trait ConfirmationJudge: Send + Sync + fmt::Debug {
    /// Judges `answer` (what the caller said after hearing `read_back`) in `language` (BCP 47).
    ///
    /// # Errors
    /// [`Unsure`] when this judge cannot tell.
    fn judge<'a>(
        &'a self,
        answer: &'a str,
        read_back: &'a str,
        language: &'a str,
    ) -> BoxFuture<'a, Result<Confirmation, Unsure>>;
}

/// Words of one language.
struct Lexicon {
    yes: &'static [&'static str],
    no: &'static [&'static str],
    /// Words that turn a "yes" into a change ("yes, but…").
    but: &'static [&'static str],
}

const EN: Lexicon = Lexicon {
    yes: &[
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "correct",
        "right",
        "ok",
        "okay",
        "perfect",
        "absolutely",
        "exactly",
        "fine",
        "great",
        "please do",
        "go ahead",
        "do it",
        "book it",
        "sounds good",
        "that's right",
        "that is right",
        "that's it",
        "that's correct",
        "confirm",
        "confirmed",
        "definitely",
        "of course",
        "alright",
        "all right",
        "no problem",
        "why not",
    ],
    no: &[
        "no",
        "nope",
        "nah",
        "not",
        "wrong",
        "incorrect",
        "don't",
        "do not",
        "wait",
        "hold on",
        "cancel",
        "change",
        "actually",
        "isn't",
        "that's not",
    ],
    but: &["but", "though", "except", "instead", "only", "rather"],
};

const ES: Lexicon = Lexicon {
    yes: &[
        "sí",
        "si",
        "claro",
        "vale",
        "correcto",
        "exacto",
        "perfecto",
        "de acuerdo",
        "adelante",
        "está bien",
        "esta bien",
        "eso es",
        "por supuesto",
        "bueno",
        "confirmo",
        "dale",
        "ok",
        "okay",
    ],
    no: &[
        "no",
        "incorrecto",
        "espera",
        "espere",
        "cambia",
        "cambie",
        "mejor",
        "tampoco",
        "nada",
        "cancela",
        "cancele",
    ],
    but: &["pero", "aunque", "excepto", "sino", "solo"],
};

const FR: Lexicon = Lexicon {
    yes: &[
        "oui",
        "ouais",
        "d'accord",
        "exact",
        "exactement",
        "parfait",
        "c'est ça",
        "c'est bon",
        "bien sûr",
        "volontiers",
        "vas-y",
        "allez-y",
        "entendu",
        "ok",
        "okay",
        "correct",
        "tout à fait",
    ],
    no: &[
        "non", "pas", "attendez", "attends", "changez", "change", "plutôt", "annulez", "annule",
        "en fait",
    ],
    but: &["mais", "sauf", "plutôt", "seulement"],
};

const DE: Lexicon = Lexicon {
    yes: &[
        "ja",
        "genau",
        "richtig",
        "stimmt",
        "passt",
        "gerne",
        "gern",
        "klar",
        "okay",
        "ok",
        "in ordnung",
        "perfekt",
        "korrekt",
        "jawohl",
        "sicher",
        "natürlich",
        "einverstanden",
    ],
    no: &[
        "nein",
        "nee",
        "nicht",
        "falsch",
        "warte",
        "warten",
        "moment",
        "ändern",
        "ändere",
        "lieber",
        "eigentlich",
        "stornieren",
    ],
    but: &["aber", "außer", "sondern", "nur", "doch"],
};

fn lexicon(language: &str) -> &'static Lexicon {
    let primary = language
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match primary.as_str() {
        "es" => &ES,
        "fr" => &FR,
        "de" => &DE,
        _ => &EN,
    }
}

/// Lower-cased words of `text`: letters, digits and apostrophes (curly ones made straight).
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where each phrase of `list` (one or more words) is found in `words`: `(start, length)`,
/// sorted by start.
fn spans(words: &[String], list: &[&str]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for phrase in list {
        let parts: Vec<&str> = phrase.split(' ').collect();
        if parts.len() > words.len() {
            continue;
        }
        for i in 0..=words.len() - parts.len() {
            if parts.iter().enumerate().all(|(j, p)| words[i + j] == *p) {
                found.push((i, parts.len()));
            }
        }
    }
    found.sort_unstable();
    found
}

fn inside((start, len): (usize, usize), spans: &[(usize, usize)]) -> bool {
    spans
        .iter()
        .any(|&(s, l)| (s, l) != (start, len) && s <= start && start + len <= s + l)
}

/// Words that negate the yes word before them ("stimmt nicht", "ça va pas").
const AFTER_NEGATORS: &[&str] = &["nicht", "pas"];

/// The local yes/no judge: English, Spanish, French and German words (other languages use the
/// English words). It is sure only when the answer says yes without a "but", or says no; an
/// answer with both is judged by a first word of no ("no, make it five"), else left unsure. A
/// negated yes ("not right", "stimmt nicht", "c'est pas correct") is a no.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalJudge;

impl LocalJudge {
    /// Judges `answer` in `language` without waiting.
    ///
    /// # Errors
    /// [`Unsure`] for an empty answer, one with neither kind of word, one with both that does
    /// not start with a no, and a yes followed by a "but".
    pub fn judge_now(&self, answer: &str, language: &str) -> Result<Confirmation, Unsure> {
        let lexicon = lexicon(language);
        let words = words(answer);
        if words.is_empty() {
            return Err(Unsure::new("an empty answer"));
        }
        let yes_all = spans(&words, lexicon.yes);
        let no_all = spans(&words, lexicon.no);
        // A no word inside a yes phrase ("no problem") is part of the yes, and the other way.
        let mut yes: Vec<(usize, usize)> = yes_all
            .iter()
            .copied()
            .filter(|&s| !inside(s, &no_all) && !inside(s, &yes_all))
            .collect();
        let mut no: Vec<(usize, usize)> = no_all
            .iter()
            .copied()
            .filter(|&s| !inside(s, &yes_all) && !inside(s, &no_all))
            .collect();
        // A negated yes is a no.
        let negated = |&(start, len): &(usize, usize)| {
            let before = no.iter().any(|&(s, l)| s + l == start);
            let after = words
                .get(start + len)
                .is_some_and(|w| AFTER_NEGATORS.contains(&w.as_str()));
            before || after
        };
        let (negated_yes, kept): (Vec<_>, Vec<_>) = yes.iter().partition(|s| negated(s));
        yes = kept;
        no.extend(negated_yes);
        no.sort_unstable();
        let but = spans(&words, lexicon.but);
        match (yes.is_empty(), no.is_empty()) {
            (true, true) => Err(Unsure::new("neither a yes nor a no word")),
            (false, true) if but.is_empty() => Ok(Confirmation::Yes),
            (false, true) => Err(Unsure::new("a yes with a change")),
            (true, false) => Ok(Confirmation::No),
            (false, false) if no[0].0 == 0 => Ok(Confirmation::No),
            (false, false) => Err(Unsure::new("a yes and a no")),
        }
    }
}

impl ConfirmationJudge for LocalJudge {
    fn judge<'a>(
        &'a self,
        answer: &'a str,
        _read_back: &'a str,
        language: &'a str,
    ) -> BoxFuture<'a, Result<Confirmation, Unsure>> {
        Box::pin(async move { self.judge_now(answer, language) })
    }
}

/// A judge over any [`Classifier`] (the LLM classifier): one choice question, `yes`, `no` or
/// `other`, about `{"read_back": …, "answer": …}`.
#[derive(Debug, Clone)]
pub struct ClassifierJudge {
    classifier: Arc<dyn Classifier>,
}

impl ClassifierJudge {
    /// A judge that asks `classifier`.
    pub fn new(classifier: Arc<dyn Classifier>) -> Self {
        Self { classifier }
    }
}

impl ConfirmationJudge for ClassifierJudge {
    fn judge<'a>(
        &'a self,
        answer: &'a str,
        read_back: &'a str,
        language: &'a str,
    ) -> BoxFuture<'a, Result<Confirmation, Unsure>> {
        Box::pin(async move {
            let state = ClassifyState::from_value(
                json!({"read_back": read_back, "answer": answer, "language": language}),
            );
            let question = Question::choice(
                "The agent read back the values of a booking or order and asked the caller to \
                 confirm. How did the caller answer?",
                vec![
                    (
                        "yes".into(),
                        Some("The caller agrees, with no change.".into()),
                    ),
                    (
                        "no".into(),
                        Some("The caller disagrees or changes a value.".into()),
                    ),
                    (
                        "other".into(),
                        Some("The caller says something else, like a question.".into()),
                    ),
                ],
            );
            let questions = [("confirmation".to_string(), question)];
            let answers = self
                .classifier
                .ask(&state, &questions)
                .await
                .map_err(|e| Unsure::new(format!("the classifier failed: {e}")))?;
            let choice =
                choice_answer(&answers, "confirmation").map_err(|e| Unsure::new(e.to_string()))?;
            Ok(match choice.choice.as_str() {
                "yes" => Confirmation::Yes,
                "no" => Confirmation::No,
                _ => Confirmation::Other,
            })
        })
    }
}

/// The local judge first; when it is unsure, the fallback (the LLM classifier); when that is
/// unsure too, or there is none, [`Confirmation::Other`].
#[derive(Debug, Clone, Default)]
pub struct FallbackJudge {
    fallback: Option<Arc<dyn ConfirmationJudge>>,
}

impl FallbackJudge {
    /// The local judge alone.
    pub fn local() -> Self {
        Self::default()
    }

    /// The local judge, then `fallback` when it is unsure.
    pub fn with_fallback(fallback: Arc<dyn ConfirmationJudge>) -> Self {
        Self {
            fallback: Some(fallback),
        }
    }

    /// Judges `answer`, never failing: unsure is [`Confirmation::Other`].
    pub async fn decide(&self, answer: &str, read_back: &str, language: &str) -> Confirmation {
        match LocalJudge.judge_now(answer, language) {
            Ok(found) => found,
            Err(unsure) => {
                tracing::debug!(reason = %unsure.reason, "the local judge is unsure");
                match &self.fallback {
                    Some(fallback) => fallback
                        .judge(answer, read_back, language)
                        .await
                        .unwrap_or_else(|unsure| {
                            tracing::info!(reason = %unsure.reason, "the fallback judge is unsure");
                            Confirmation::Other
                        }),
                    None => Confirmation::Other,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(answer: &str, language: &str) -> Result<Confirmation, Unsure> {
        LocalJudge.judge_now(answer, language)
    }

    #[test]
    fn clear_answers_in_four_languages() {
        use Confirmation::{No, Yes};
        for (answer, language, expected) in [
            ("Yes please.", "en-US", Yes),
            ("yeah that's right", "en", Yes),
            ("Sure, go ahead!", "en", Yes),
            ("No, make it five.", "en", No),
            ("nope", "en", No),
            ("that's not right", "en", No),
            ("yes, no problem", "en", Yes),
            ("Sí, perfecto.", "es", Yes),
            ("vale", "es-ES", Yes),
            ("No, mejor para cinco.", "es", No),
            ("Oui, c'est ça.", "fr", Yes),
            ("Non, plutôt cinq.", "fr-FR", No),
            ("Ja, genau.", "de", Yes),
            ("Nein, lieber fünf.", "de-DE", No),
            ("Das stimmt nicht.", "de", No),
        ] {
            assert_eq!(
                judge(answer, language).ok(),
                Some(expected),
                "{answer} ({language})"
            );
        }
    }

    #[test]
    fn unclear_answers_are_left_to_the_fallback() {
        for (answer, language) in [
            ("", "en"),
            ("What time is it?", "en"),
            ("yes, but make it five", "en"),
            ("sí, pero a las nueve", "es"),
            ("hmm", "de"),
        ] {
            assert!(judge(answer, language).is_err(), "{answer} ({language})");
        }
    }

    /// A classifier that always picks `choice` (the LLM classifier's place in tests).
    #[derive(Debug)]
    struct Picks(&'static str);

    impl Classifier for Picks {
        fn ask<'a>(
            &'a self,
            state: &'a hark_classify::ClassifyState,
            questions: &'a [(String, Question)],
        ) -> BoxFuture<
            'a,
            Result<Vec<(String, hark_classify::Answer)>, hark_classify::ClassifierError>,
        > {
            let state = &state.to_value();
            assert_eq!(state["answer"], "yes, but make it five");
            let choice = hark_classify::ChoiceResult {
                choice: self.0.to_string(),
                probabilities: vec![(self.0.to_string(), 0.9)],
                confidence: 0.9,
            };
            let name = questions[0].0.clone();
            Box::pin(async move { Ok(vec![(name, hark_classify::Answer::Choice(choice))]) })
        }
    }

    #[tokio::test]
    async fn the_fallback_judges_what_the_local_judge_cannot() {
        let judge =
            FallbackJudge::with_fallback(Arc::new(ClassifierJudge::new(Arc::new(Picks("no")))));
        assert_eq!(
            judge
                .decide("yes, but make it five", "A table for 4.", "en")
                .await,
            Confirmation::No
        );
    }

    #[tokio::test]
    async fn without_a_fallback_unsure_is_something_else() {
        let judge = FallbackJudge::local();
        assert_eq!(
            judge
                .decide("what about the terrace?", "A table…", "en")
                .await,
            Confirmation::Other
        );
        assert_eq!(
            judge.decide("yes", "A table…", "en").await,
            Confirmation::Yes
        );
    }
}
