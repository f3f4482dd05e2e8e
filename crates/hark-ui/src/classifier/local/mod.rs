//! The local classifier: answers the UI worker's screen questions in-process, in microseconds,
//! with no network (issue 7; spec `ui-worker.md` "Screen questions" and `classifier`; question
//! and result shapes rtvi-ui.md §5.4).
//!
//! [`LocalClassifier`] implements [`Classifier`]. Features: normalised words, a synonym and
//! paraphrase table ([`lexicon`]), role, state, ordinal, position and container words, the
//! element's place in the tree, and (issue 7 item 3) the cosine between the description's
//! content words and each element name under a sentence-embedding model run in-process
//! ([`embed`]: paraphrase-MiniLM-L3-v2 under tract). Without the model files
//! (`scripts/fetch-model.sh`, `$HARK_MODEL_DIR`) it logs one warning and answers from the
//! lexical features alone, with their own, lower, calibration ([`calibration::CHOICE`]).
//!
//! What it answers:
//! - **Choice** (`which_element`, `act`): which option a description means. The description is
//!   the state's `"utterance"` (as the worker asks) or else the question's text instructions.
//!   Options are refs; each is looked up in the screen (the state's `"screen"`, the rendered
//!   `<ui_state>` text, parsed back into a tree by [`tree::ScreenTree::parse`] and cached per
//!   screen text) and, when absent there, read from its description `role "name"`. The
//!   chosen option's probability is calibrated ([`calibration`]): "none" is a confidence
//!   below 0.5, never a forced pick. The other options share the rest in proportion to
//!   `exp(score)`.
//! - **Yes/no**: `select_elements`' per-element questions (`{criteria}: does {role} "{name}"
//!   match?`, all of one call scored together), `should_respond` (state with an `"event"` and
//!   the default criteria: a rule on the event's name, [`yes_no::should_respond`]) and
//!   `check_screen` questions of the kinds in [`yes_no`].
//! - A question it cannot read (another yes/no, a score question, a choice without a
//!   description) fails the call with a [`ClassifierError`] naming the question and what the
//!   local classifier answers, so the worker's fallback classifier (an LLM) takes it.
//!
//! A new screen's names are embedded ahead of the first question: the worker calls
//! [`Classifier::prepare`] when it accepts a snapshot, and the local classifier embeds the
//! names its cache lacks on tokio's blocking pool (issue 7 follow-up; a question that needs
//! names still being embedded waits for them, at most [`PREPARE_WAIT`]).
//!
//! The worker hands the screen as text (pipecat's interface); parsing a 255-element screen
//! takes tens of microseconds and happens once per screen text (a small cache of the last
//! [`CACHE_SCREENS`] screens). [`LocalClassifier::choose`] takes a typed
//! [`ScreenTree`] directly, for callers (the grounding benchmark) that hold one.
//!
//! ## Example
//!
//! ```
//! use hark_ui::classifier::{Answer, Classifier, Question};
//! use hark_ui::classifier::local::LocalClassifier;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let screen = "<ui_state>\n- generic [ref=e1]:\n  - link \"Cart (2)\" [ref=e2]\n  - button \"Log in\" [ref=e3]\n</ui_state>";
//! let state = json!({"utterance": "sign me in", "screen": screen});
//! let options = vec![("e2".to_string(), Some("link \"Cart (2)\"".to_string())),
//!                    ("e3".to_string(), Some("button \"Log in\"".to_string()))];
//! let questions = [("element".to_string(),
//!                   Question::choice("the element on screen the user is referring to", options))];
//! let answers = LocalClassifier::new().ask(&state, &questions).await.unwrap();
//! let Answer::Choice(c) = &answers[0].1 else { panic!("a choice") };
//! assert_eq!(c.choice, "e3");
//! assert!(c.confidence >= 0.5);
//! # }
//! ```

pub mod calibration;
pub mod choice;
pub mod embed;
pub mod lexicon;
pub mod text;
pub mod tree;
pub mod yes_no;

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_rtvi::A11ySnapshot;
use serde_json::Value;

use crate::classifier::{
    Answer, ChoiceQuestion, ChoiceResult, Classifier, ClassifierError, ErrorKind, Question,
    YesNoQuestion, YesNoResult,
};
use crate::messages;
use crate::screen::{MAX_ELEMENT_OPTIONS, named_elements};

pub use choice::{Query, Scored};
pub use embed::Embedder;
pub use tree::ScreenTree;

/// How many parsed screens the classifier keeps (most recent first).
pub const CACHE_SCREENS: usize = 4;

/// Score points per unit of cosine between a description and an element name (chosen on the
/// benchmark's train and dev splits).
pub const SEMANTIC_WEIGHT: f64 = 2.0;

/// Longest a question waits for the background embedding of a snapshot's names
/// ([`Classifier::prepare`]) before embedding what is still missing itself: a guard, the
/// background job takes about 0.4 s for 255 new names on 2 cores.
pub const PREPARE_WAIT: Duration = Duration::from_secs(10);

/// The local classifier (lexical and semantic features, calibrated probabilities). Cheap to
/// build once the process's model is loaded ([`Embedder::shared`], about 0.2 s the first
/// time). Thread-safe: the caches sit behind mutexes held only to look up or insert.
#[derive(Debug)]
pub struct LocalClassifier {
    cache: Mutex<Vec<(String, Arc<ScreenTree>)>>,
    embedder: Option<Arc<Embedder>>,
    semantic_weight: f64,
    prefetch: Arc<Prefetch>,
    /// The `(role, name)` list of the snapshot [`Classifier::prepare`] last looked at.
    last_prepared: Mutex<Vec<(String, String)>>,
}

/// The background embedding of element names ([`Classifier::prepare`]): at most one job runs;
/// a newer snapshot's names replace an older snapshot's that have not started, and a running
/// job stops between batches when newer names wait.
#[derive(Debug, Default)]
struct Prefetch {
    state: Mutex<PrefetchState>,
    idle: Condvar,
}

#[derive(Debug, Default)]
struct PrefetchState {
    /// Names waiting for the job (the newest snapshot's not yet cached).
    pending: Option<Vec<String>>,
    /// Whether a job is running (or spawned).
    running: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks the job stopped if it ends by a panic in the model, so a question never waits for a
/// job that is gone (a normal end marks it stopped under the same lock that finds nothing
/// pending, so no newer names are dropped in between).
struct Stopped<'a> {
    prefetch: &'a Prefetch,
    finished: bool,
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let mut st = lock(&self.prefetch.state);
            st.running = false;
            self.prefetch.idle.notify_all();
        }
    }
}

impl Prefetch {
    /// The job: embeds pending names batch by batch until none are pending.
    fn run(&self, embedder: &Embedder) {
        let mut stopped = Stopped {
            prefetch: self,
            finished: false,
        };
        loop {
            let names = {
                let mut st = lock(&self.state);
                match st.pending.take() {
                    Some(names) => names,
                    None => {
                        st.running = false;
                        stopped.finished = true;
                        self.idle.notify_all();
                        return;
                    }
                }
            };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            for chunk in names.chunks(embed::BATCH) {
                if lock(&self.state).pending.is_some() {
                    break; // a newer snapshot's names supersede these
                }
                if let Err(e) = embedder.embed_all(chunk) {
                    tracing::warn!("local classifier: preparing a snapshot: {e}");
                    break;
                }
            }
        }
    }

    /// Waits until no job runs (`true`) or `timeout` passes (`false`).
    fn wait_idle(&self, timeout: Duration) -> bool {
        let st = lock(&self.state);
        let (st, _) = self
            .idle
            .wait_timeout_while(st, timeout, |s| s.running)
            .unwrap_or_else(|e| e.into_inner());
        !st.running
    }

    fn running(&self) -> bool {
        lock(&self.state).running
    }
}

/// Runs `job` off the caller's thread: on the tokio blocking pool when called inside a
/// runtime, else on a new thread. `false` when neither could start it.
fn spawn_blocking(job: impl FnOnce() + Send + 'static) -> bool {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            drop(handle.spawn_blocking(job));
            true
        }
        Err(_) => std::thread::Builder::new()
            .name("hark-prepare".into())
            .spawn(job)
            .is_ok(),
    }
}

impl Default for LocalClassifier {
    /// [`LocalClassifier::new`].
    fn default() -> Self {
        Self::new()
    }
}

/// One choice answered by [`LocalClassifier::choose`].
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    /// Index of the chosen option.
    pub best: usize,
    /// Calibrated probability that it is the element meant, in `(0, 1)`.
    pub confidence: f64,
    /// Each option's probability, in the options' order (they sum to 1).
    pub probabilities: Vec<f64>,
    /// The scorer's raw output (scores and calibration features).
    pub scored: Scored,
    /// Whether the embedding model scored the options (then [`calibration::CHOICE_SEMANTIC`]
    /// gave the confidence, else [`calibration::CHOICE`]).
    pub semantic: bool,
}

impl LocalClassifier {
    /// A local classifier with the process's sentence-embedding model when its files are
    /// present ([`Embedder::shared`]; else lexical only, said once in the log) and the
    /// committed calibrations ([`calibration::CHOICE_SEMANTIC`], [`calibration::CHOICE`]).
    pub fn new() -> Self {
        Self::with_embedder(Embedder::shared())
    }

    /// A local classifier with lexical features only (no model), whatever is installed.
    pub fn lexical() -> Self {
        Self::with_embedder(None)
    }

    /// A local classifier using `embedder` (or lexical features only with `None`).
    pub fn with_embedder(embedder: Option<Arc<Embedder>>) -> Self {
        LocalClassifier {
            cache: Mutex::new(Vec::new()),
            embedder,
            semantic_weight: SEMANTIC_WEIGHT,
            prefetch: Arc::default(),
            last_prepared: Mutex::new(Vec::new()),
        }
    }

    /// Blocks until no background embedding started by [`Classifier::prepare`] is running
    /// (`true`) or `timeout` passes (`false`). For tests and benchmarks: questions wait by
    /// themselves when they need names still being embedded.
    pub fn wait_prepared(&self, timeout: Duration) -> bool {
        self.prefetch.wait_idle(timeout)
    }

    /// Sets the score weight of the semantic feature (default [`SEMANTIC_WEIGHT`]); for
    /// tuning on the benchmark's train and dev splits (the calibration was fitted with the
    /// default).
    pub fn with_semantic_weight(mut self, weight: f64) -> Self {
        self.semantic_weight = weight;
        self
    }

    /// The sentence-embedding model, when loaded.
    pub fn embedder(&self) -> Option<&Arc<Embedder>> {
        self.embedder.as_ref()
    }

    /// Cosines of the description's content words with each candidate's name, or `None`
    /// without a model, without content words, or when the model fails (logged).
    fn cosines(&self, query: &Query, candidates: &[choice::Candidate<'_>]) -> Option<Vec<f64>> {
        let embedder = self.embedder.as_ref()?;
        let text = query.semantic_text();
        if text.is_empty() {
            return None;
        }
        let names: Vec<&str> = candidates.iter().map(|c| c.node.name.as_str()).collect();
        // Names still being embedded in the background (`prepare`): wait for them rather
        // than embed them twice on two cores.
        if self.prefetch.running() && !embedder.uncached(&names).is_empty() {
            self.prefetch.wait_idle(PREPARE_WAIT);
        }
        let run = || -> Result<Vec<f64>, embed::EmbedError> {
            let q = embedder.embed_uncached(&text)?;
            let es = embedder.embed_all(&names)?;
            Ok(es.iter().map(|e| embed::cosine(&q, e)).collect())
        };
        match run() {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!("local classifier: {e}; answering from lexical features");
                None
            }
        }
    }

    /// The parsed tree of a `<ui_state>` text, from the cache when this text was seen lately.
    pub fn screen(&self, text: &str) -> Arc<ScreenTree> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = cache.iter().position(|(t, _)| t == text) {
            let entry = cache.remove(pos);
            let tree = entry.1.clone();
            cache.insert(0, entry);
            return tree;
        }
        drop(cache);
        let tree = Arc::new(ScreenTree::parse(text));
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.insert(0, (text.to_string(), tree.clone()));
        cache.truncate(CACHE_SCREENS);
        tree
    }

    /// Which of `options` (`(ref, description 'role "name"')`) `description` means on `tree`.
    /// `None` when there are no options.
    pub fn choose(
        &self,
        description: &str,
        tree: &ScreenTree,
        options: &[(String, Option<String>)],
    ) -> Option<Chosen> {
        if options.is_empty() {
            return None;
        }
        let fallback: Vec<Option<tree::Node>> = options
            .iter()
            .map(|(r, desc)| {
                if tree.by_ref.contains_key(r) {
                    None
                } else {
                    Some(option_node(r, desc.as_deref()))
                }
            })
            .collect();
        let candidates: Vec<choice::Candidate<'_>> = options
            .iter()
            .zip(&fallback)
            .map(|((r, _), fb)| match fb {
                Some(node) => choice::Candidate { node, index: None },
                None => {
                    let i = tree.by_ref[r];
                    choice::Candidate {
                        node: &tree.nodes[i],
                        index: Some(i),
                    }
                }
            })
            .collect();
        let query = Query::parse(description);
        let cosines = || self.cosines(&query, &candidates);
        let semantic = self.embedder.is_some().then_some(choice::Semantic {
            cosines: &cosines,
            weight: self.semantic_weight,
        });
        let scored = choice::score(&query, tree, &candidates, semantic);
        let calibration = if scored.semantic {
            calibration::CHOICE_SEMANTIC
        } else {
            calibration::CHOICE
        };
        let confidence = calibration.probability(&scored.features);
        let best = scored.best;
        let rest: f64 = scored
            .scores
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != best)
            .map(|(_, s)| (s - scored.scores[best]).exp())
            .sum();
        let probabilities = scored
            .scores
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if i == best {
                    confidence
                } else {
                    (1.0 - confidence) * (s - scored.scores[best]).exp() / rest
                }
            })
            .collect();
        Some(Chosen {
            best,
            confidence,
            probabilities,
            semantic: scored.semantic,
            scored,
        })
    }

    fn tree_of(&self, state: &Value) -> Arc<ScreenTree> {
        match state.get("screen") {
            Some(Value::String(text)) => self.screen(text),
            _ => Arc::new(ScreenTree::default()),
        }
    }

    fn answer_choice(
        &self,
        name: &str,
        q: &ChoiceQuestion,
        state: &Value,
        tree: &ScreenTree,
    ) -> Result<Answer, ClassifierError> {
        if q.options.is_empty() {
            return Err(ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::local_no_options(name),
            ));
        }
        if q.options.len() > MAX_ELEMENT_OPTIONS {
            return Err(ClassifierError::of_kind(
                ErrorKind::TooManyOptions,
                messages::local_too_many_options(name, q.options.len(), MAX_ELEMENT_OPTIONS),
            ));
        }
        let description = match (state.get("utterance"), &q.instructions) {
            (Some(Value::String(u)), _) if !u.trim().is_empty() => u.as_str(),
            (_, Value::String(i)) if i != messages::find_instructions() && !i.trim().is_empty() => {
                i.as_str()
            }
            _ => {
                return Err(ClassifierError::of_kind(
                    ErrorKind::NotUnderstood,
                    messages::local_no_description(name),
                ));
            }
        };
        let Some(chosen) = self.choose(description, tree, &q.options) else {
            return Err(ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::local_no_options(name),
            ));
        };
        Ok(Answer::Choice(ChoiceResult {
            choice: q.options[chosen.best].0.clone(),
            probabilities: q
                .options
                .iter()
                .zip(&chosen.probabilities)
                .map(|((o, _), p)| (o.clone(), *p))
                .collect(),
            confidence: chosen.confidence,
        }))
    }

    fn answer_yes_no(
        name: &str,
        q: &YesNoQuestion,
        state: &Value,
        tree: &ScreenTree,
    ) -> Result<f64, ClassifierError> {
        let Value::String(text) = &q.instructions else {
            return Err(ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::local_cannot_read(name, &q.instructions.to_string()),
            ));
        };
        if let Some(event) = state.get("event") {
            if text != messages::should_respond_criteria() {
                return Err(ClassifierError::of_kind(
                    ErrorKind::NotUnderstood,
                    messages::local_cannot_read(name, text),
                ));
            }
            let event_name = event.get("name").and_then(Value::as_str).unwrap_or("");
            let keys: Vec<&str> = event
                .get("payload")
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Ok(yes_no::should_respond(event_name, &keys));
        }
        yes_no::read_check(text, tree).map_err(|_| {
            ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::local_cannot_read(name, text),
            )
        })
    }
}

/// A node read from an option's description `role "name"` (an option not on the screen).
fn option_node(ref_: &str, description: Option<&str>) -> tree::Node {
    let desc = description.unwrap_or("");
    let (role, name) = match desc.split_once(" \"") {
        Some((role, rest)) => (role, rest.strip_suffix('"').unwrap_or(rest)),
        None => (desc, ""),
    };
    tree::Node {
        role: role.to_string(),
        name: name.to_string(),
        ref_: ref_.to_string(),
        name_tokens: text::tokenize(name),
        ..tree::Node::default()
    }
}

impl LocalClassifier {
    fn ask_now(
        &self,
        state: &Value,
        questions: &[(String, Question)],
    ) -> Result<Vec<(String, Answer)>, ClassifierError> {
        let tree = self.tree_of(state);
        let mut answers: Vec<Option<Answer>> = vec![None; questions.len()];

        // select_elements' per-element questions: grouped by criteria, scored together.
        // (criteria, [(question index, role, element name)]).
        type Group<'q> = (&'q str, Vec<(usize, &'q str, &'q str)>);
        let mut groups: Vec<Group<'_>> = Vec::new();
        for (i, (_, q)) in questions.iter().enumerate() {
            if let Question::YesNo(YesNoQuestion {
                instructions: Value::String(text),
                ..
            }) = q
                && state.get("event").is_none()
                && let Some((criteria, role, el_name)) = yes_no::parse_select_question(text)
            {
                match groups.iter_mut().find(|(c, _)| *c == criteria) {
                    Some((_, items)) => items.push((i, role, el_name)),
                    None => groups.push((criteria, vec![(i, role, el_name)])),
                }
            }
        }
        for (criteria, items) in &groups {
            let fallback: Vec<Option<tree::Node>> = items
                .iter()
                .map(|(i, role, el_name)| {
                    let r = &questions[*i].0;
                    if tree.by_ref.contains_key(r) {
                        None
                    } else {
                        Some(option_node(
                            r,
                            Some(&messages::element_option(role, el_name)),
                        ))
                    }
                })
                .collect();
            let candidates: Vec<choice::Candidate<'_>> = items
                .iter()
                .zip(&fallback)
                .map(|((i, _, _), fb)| match fb {
                    Some(node) => choice::Candidate { node, index: None },
                    None => {
                        let at = tree.by_ref[&questions[*i].0];
                        choice::Candidate {
                            node: &tree.nodes[at],
                            index: Some(at),
                        }
                    }
                })
                .collect();
            let probabilities = yes_no::select_probabilities(criteria, &tree, &candidates)
                .map_err(|_| {
                    ClassifierError::of_kind(
                        ErrorKind::NotUnderstood,
                        messages::local_cannot_read(&questions[items[0].0].0, criteria),
                    )
                })?;
            for ((i, _, _), p) in items.iter().zip(probabilities) {
                answers[*i] = Some(Answer::YesNo(YesNoResult { probability: p }));
            }
        }

        for (i, (name, q)) in questions.iter().enumerate() {
            if answers[i].is_some() {
                continue;
            }
            answers[i] = Some(match q {
                Question::Choice(c) => self.answer_choice(name, c, state, &tree)?,
                Question::YesNo(y) => Answer::YesNo(YesNoResult {
                    probability: Self::answer_yes_no(name, y, state, &tree)?,
                }),
                Question::Score(_) => {
                    return Err(ClassifierError::of_kind(
                        ErrorKind::NotUnderstood,
                        messages::local_no_score(name),
                    ));
                }
            });
        }
        Ok(questions
            .iter()
            .zip(answers)
            .filter_map(|((name, _), a)| a.map(|a| (name.clone(), a)))
            .collect())
    }
}

impl Classifier for LocalClassifier {
    /// Answers at once (no I/O): see the module docs for what it reads.
    ///
    /// # Errors
    /// [`ClassifierError`] for a question it cannot read, a score question, a choice without
    /// a description or options, or more than 255 options.
    fn ask<'a>(
        &'a self,
        state: &'a Value,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        let result = self.ask_now(state, questions);
        Box::pin(async move { result })
    }

    /// Starts embedding, in the background, the names of `snapshot`'s named elements (the
    /// options `UiWorker::find_element` will offer) that the model's cache does not hold, so
    /// the first question on a new screen finds them cached (issue 7 follow-up). Called by
    /// `UiWorker::on_snapshot` on the session task for every snapshot, so only the cheap part
    /// runs here: the `(role, name)` list of [`named_elements`] (at most
    /// [`MAX_ELEMENT_OPTIONS`]), compared with the previous snapshot's (equal: nothing to do),
    /// and a look-up of the names in the model's cache. Nothing is rendered or parsed: a
    /// question parses its screen text on demand ([`LocalClassifier::screen`], cached).
    /// Returns at once: the embedding runs on tokio's blocking pool (or a thread outside a
    /// runtime); a newer snapshot supersedes an older one's pending names; names seen before
    /// are never embedded again (the cache is keyed by text, [`embed::CACHE_TEXTS`] per
    /// generation). Without the model it does nothing. The names are the snapshot's own; a
    /// name the `<ui_state>` text cannot carry intact (one with a newline or `" = "`) is
    /// parsed differently by [`ScreenTree::parse`] and embedded by its question instead.
    fn prepare(&self, snapshot: &A11ySnapshot) {
        let Some(embedder) = &self.embedder else {
            return;
        };
        let named = named_elements(&snapshot.root);
        fn name_of(n: &hark_rtvi::A11yNode) -> &str {
            n.name.as_deref().unwrap_or("")
        }
        {
            let mut last = lock(&self.last_prepared);
            let same = last.len() == named.len()
                && last
                    .iter()
                    .zip(&named)
                    .all(|((role, name), n)| *role == n.role && name == name_of(n));
            if same {
                // The same names as the previous snapshot (a re-render, renumbered refs):
                // already cached or pending.
                return;
            }
            *last = named
                .iter()
                .map(|n| (n.role.clone(), name_of(n).to_string()))
                .collect();
        }
        let names: Vec<&str> = named.iter().map(|n| name_of(n)).collect();
        let missing: Vec<String> = embedder
            .uncached(&names)
            .into_iter()
            .map(str::to_string)
            .collect();
        let mut st = lock(&self.prefetch.state);
        if missing.is_empty() {
            // Nothing new: an older snapshot's pending names are stale now.
            st.pending = None;
            return;
        }
        st.pending = Some(missing);
        if !st.running {
            st.running = true;
            let prefetch = self.prefetch.clone();
            let embedder = embedder.clone();
            if !spawn_blocking(move || prefetch.run(&embedder)) {
                st.running = false;
                st.pending = None;
                drop(st);
                // Not started: the same names again should try again.
                lock(&self.last_prepared).clear();
            }
        }
    }
}
