//! The local classifier: answers the UI worker's screen questions in-process, in microseconds,
//! with no network (question and result shapes as pipecat 1.14's classifiers).
//!
//! [`LocalClassifier`] implements [`Classifier`]. Features: normalised words, a synonym and
//! paraphrase table ([`lexicon`]), role, state, ordinal, position and container words, the
//! element's place in the tree, and the cosine between the description's
//! content words and each element name under a sentence-embedding model run in-process
//! ([`embed`]: paraphrase-MiniLM-L3-v2 under tract, with the crate's `embeddings` feature).
//! Without the model files (`scripts/fetch-model.sh`, `$HARK_MODEL_DIR`) it logs one warning
//! and answers from the lexical features alone, with their own, lower, calibration
//! ([`calibration::CHOICE`]); so it does, without a word, in a build without the feature.
//!
//! What it answers:
//! - **Choice** (`which_element`, `act`): which option a description means. The description is
//!   the state's utterance (as the worker asks) or else the question's text instructions.
//!   Options are refs; each is looked up in the screen (the state's screen: the snapshot's
//!   tree, or `<ui_state>` text read into one, see below) and, when absent there, read from
//!   its description `role "name"`. The
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
//! names its cache lacks on tokio's blocking pool (a question that needs names still being
//! embedded waits for them, at most [`PREPARE_WAIT`]).
//!
//! The UI worker hands the screen as the snapshot's tree ([`crate::ScreenState::tree`]): the
//! classifier flattens it ([`ScreenTree::from_snapshot`]), nothing rendered or parsed. A live
//! session's snapshots keep their page and renumber every ref, and flattening a 200-node page
//! costs hundreds of microseconds, most of it the names' words. So a question walks the tree
//! once for its refs and a hash of everything else (its skeleton), and takes the flattened
//! tree of that skeleton from a cache of the last [`CACHE_SCREENS`] (shared by every session
//! the classifier serves); refs are looked up in the snapshot's own ref index.
//!
//! A caller that only has `<ui_state>` text (pipecat's `UIWorker` hands its classifier the
//! rendered text; [`crate::ClassifyState::from_ui_state_text`]) is read the same way: the
//! text's [`tree::skeleton`] (the text without its ref values) and its refs in one pass, the
//! tree of that skeleton from a cache, parsed by [`tree::ScreenTree::parse`] only when new.
//! The answers are those of a fresh parse, bit for bit
//! (`cached_screens_answer_as_a_fresh_parse` in hark-ui's tests).
//! [`LocalClassifier::choose`] takes a typed [`ScreenTree`] directly, for callers (the
//! grounding benchmark) that hold one.
//!
//! ## Example
//!
//! ```
//! use hark_classify::{Answer, Classifier, ClassifyState, Question};
//! use hark_classify::local::LocalClassifier;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let screen = "<ui_state>\n- generic [ref=e1]:\n  - link \"Cart (2)\" [ref=e2]\n  - button \"Log in\" [ref=e3]\n</ui_state>";
//! let state = ClassifyState::from_ui_state_text(screen).with_utterance("sign me in");
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
#[cfg(feature = "embeddings")]
pub mod ranker;
pub mod text;
pub mod tree;
pub mod yes_no;

use std::hash::Hasher;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_rtvi::{A11yNode, A11ySnapshot};
use rustc_hash::{FxHashMap, FxHasher};
use serde_json::Value;

use crate::elements::{MAX_ELEMENT_OPTIONS, named_elements};
use crate::messages;
use crate::{
    Answer, ChoiceQuestion, ChoiceResult, Classifier, ClassifierError, ClassifyState, ErrorKind,
    Question, YesNoQuestion, YesNoResult,
};

pub use choice::{Query, Scored};
pub use embed::Embedder;
pub use tree::ScreenTree;

/// How many parsed screens the classifier keeps (most recent first), each under its
/// [`tree::skeleton`]: one classifier serves every session of a server, and a
/// session's next snapshot of the same page, refs renumbered, finds its page here.
pub const CACHE_SCREENS: usize = 16;

/// How many `(role, name)` lists of snapshots whose names were all cached
/// [`Classifier::prepare`] remembers (by a 64-bit hash), so a snapshot of a page it has seen
/// lately costs a walk of the tree and no allocation (one classifier, many sessions on
/// different pages).
pub const PREPARED_PAGES: usize = 64;

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
    /// Parsed screens by skeleton, most recent first (at most [`CACHE_SCREENS`]).
    cache: Mutex<Vec<CachedScreen>>,
    /// Flattened snapshot trees by [`tree_skeleton`] hash, most recent first (at most
    /// [`CACHE_SCREENS`]).
    trees: Mutex<Vec<(u64, Arc<ScreenTree>)>>,
    embedder: Option<Arc<Embedder>>,
    /// The learned multilingual ranker (issue 22), which answers choices when present.
    #[cfg(feature = "embeddings")]
    ranker: Option<Arc<ranker::Ranker>>,
    /// The ranker's texts of a screen's nodes ([`ranker::TreeTexts`]), by the screen's tree
    /// (the `Arc` the caches above hand out), most recent first (at most [`CACHE_SCREENS`]):
    /// read once per screen, not once per question.
    #[cfg(feature = "embeddings")]
    ranker_texts: Mutex<Vec<(Arc<ScreenTree>, Arc<ranker::TreeTexts>)>>,
    semantic_weight: f64,
    /// How error texts name a fallback classifier ([`LocalClassifier::with_fallback_hint`]);
    /// `None`: the Rust UI worker's texts ([`messages::FALLBACK_HINT`]).
    fallback_hint: Option<String>,
    prefetch: Arc<Prefetch>,
    /// What [`Classifier::prepare`] has seen lately.
    prepared: Mutex<Prepared>,
}

/// A parsed screen under its [`tree::skeleton`]; the tree's refs are those of the text that
/// was parsed.
#[derive(Debug)]
struct CachedScreen {
    skeleton: String,
    tree: Arc<ScreenTree>,
}

/// A screen text read for a question: the tree of its skeleton (refs possibly another
/// text's) and its own refs.
struct View<'t> {
    tree: Arc<ScreenTree>,
    /// One ref per node, from the text.
    refs: Vec<&'t str>,
    /// Ref → node index (the first node with it), as [`ScreenTree::by_ref`] for the text.
    index: FxHashMap<&'t str, usize>,
}

impl View<'_> {
    fn find(&self, ref_: &str) -> Option<usize> {
        self.index.get(ref_).copied()
    }
}

/// What [`Classifier::prepare`] remembers: hashes of `(role, name)` lists.
#[derive(Debug, Default)]
struct Prepared {
    /// The list of the snapshot last handed to the background job (its names may still be
    /// embedding).
    last: Option<u64>,
    /// Lists whose names were all cached when seen, with [`Embedder::computed`] then (a
    /// list is trusted while fewer than [`embed::CACHE_TEXTS`] texts were embedded since:
    /// older names may have left the cache). A ring of [`PREPARED_PAGES`].
    cached: Vec<(u64, u64)>,
    /// Where the next entry of `cached` goes once it is full.
    next: usize,
}

impl Prepared {
    fn knows(&self, hash: u64, computed: u64) -> bool {
        self.last == Some(hash)
            || self.cached.iter().any(|&(h, at)| {
                h == hash && computed.saturating_sub(at) < embed::CACHE_TEXTS as u64
            })
    }

    fn remember_cached(&mut self, hash: u64, computed: u64) {
        if let Some(e) = self.cached.iter_mut().find(|(h, _)| *h == hash) {
            e.1 = computed;
        } else if self.cached.len() < PREPARED_PAGES {
            self.cached.push((hash, computed));
        } else {
            self.cached[self.next] = (hash, computed);
            self.next = (self.next + 1) % PREPARED_PAGES;
        }
    }
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
    fn run(&self, embed: impl Fn(&[&str]) -> Result<(), String>) {
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
                if let Err(e) = embed(chunk) {
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
    /// Each option's probability, in the options' order (they sum to 1, or, from the learned
    /// ranker, to 1 less the probability that nothing fits).
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

    /// A local classifier whose choices the learned multilingual ranker answers
    /// ([`ranker::Ranker::shared`]), or `None` when its model file is absent (run
    /// `scripts/fetch-model.sh`). Yes/no questions are read from the tree as always. Not yet
    /// the default: see `docs/PERFORMANCE.md` ("Grounding in four languages").
    #[cfg(feature = "embeddings")]
    pub fn learned() -> Option<Self> {
        ranker::Ranker::shared().map(Self::with_ranker)
    }

    /// A local classifier whose choices `ranker` answers.
    #[cfg(feature = "embeddings")]
    pub fn with_ranker(ranker: Arc<ranker::Ranker>) -> Self {
        let mut c = Self::with_embedder(None);
        c.ranker = Some(ranker);
        c
    }

    /// The learned ranker, when it answers this classifier's choices.
    #[cfg(feature = "embeddings")]
    pub fn ranker(&self) -> Option<&Arc<ranker::Ranker>> {
        self.ranker.as_ref()
    }

    /// A local classifier with lexical features only (no model), whatever is installed.
    pub fn lexical() -> Self {
        Self::with_embedder(None)
    }

    /// A local classifier using `embedder` (or lexical features only with `None`).
    pub fn with_embedder(embedder: Option<Arc<Embedder>>) -> Self {
        LocalClassifier {
            cache: Mutex::new(Vec::new()),
            trees: Mutex::new(Vec::new()),
            embedder,
            #[cfg(feature = "embeddings")]
            ranker: None,
            #[cfg(feature = "embeddings")]
            ranker_texts: Mutex::new(Vec::new()),
            semantic_weight: SEMANTIC_WEIGHT,
            fallback_hint: None,
            prefetch: Arc::default(),
            prepared: Mutex::default(),
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

    /// Names `hint` as the way to give this classifier a fallback in its error texts (a
    /// question it cannot read, a score question, too many options), in place of the Rust UI
    /// worker's [`messages::FALLBACK_HINT`]: a caller from another API (Python, where the
    /// fallback is a constructor argument) swaps in its own words.
    pub fn with_fallback_hint(mut self, hint: impl Into<String>) -> Self {
        self.fallback_hint = Some(hint.into());
        self
    }

    fn cannot_read(&self, name: &str, question: &str) -> ClassifierError {
        let hint = self
            .fallback_hint
            .as_deref()
            .unwrap_or(messages::FALLBACK_HINT);
        ClassifierError::of_kind(
            ErrorKind::NotUnderstood,
            messages::local_cannot_read_with(name, question, hint),
        )
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

    /// The parsed tree of a `<ui_state>` text (what [`ScreenTree::parse`] gives), from the
    /// cache when a text of the same [`tree::skeleton`] was seen lately (then a copy with
    /// this text's refs when they differ).
    pub fn screen(&self, text: &str) -> Arc<ScreenTree> {
        let view = self.view(text);
        let same_refs = view.tree.nodes.len() == view.refs.len()
            && view
                .tree
                .nodes
                .iter()
                .zip(&view.refs)
                .all(|(n, r)| n.ref_ == *r);
        if same_refs {
            view.tree
        } else {
            Arc::new(view.tree.with_refs(&view.refs))
        }
    }

    /// Reads a `<ui_state>` text for a question: its skeleton and refs (one pass over the
    /// text), and the tree of that skeleton from the cache, or parsed now and cached (issue
    /// 9: a session's snapshots renumber their refs, so the text itself is never seen twice).
    fn view<'t>(&self, text: &'t str) -> View<'t> {
        let mut skeleton = String::with_capacity(text.len() + text.len() / 4 + 64);
        let mut refs = Vec::new();
        tree::skeleton(text, &mut skeleton, &mut refs);
        let cached = {
            let mut cache = lock(&self.cache);
            cache
                .iter()
                .position(|c| c.skeleton == skeleton)
                .map(|pos| {
                    let entry = cache.remove(pos);
                    let tree = entry.tree.clone();
                    cache.insert(0, entry);
                    tree
                })
        };
        let tree = match cached {
            Some(tree) => tree,
            None => {
                let tree = Arc::new(ScreenTree::parse(text));
                let mut cache = lock(&self.cache);
                // Another question may have parsed the same skeleton meanwhile.
                if !cache.iter().any(|c| c.skeleton == skeleton) {
                    cache.insert(
                        0,
                        CachedScreen {
                            skeleton,
                            tree: tree.clone(),
                        },
                    );
                    cache.truncate(CACHE_SCREENS);
                }
                tree
            }
        };
        let mut index = FxHashMap::with_capacity_and_hasher(refs.len(), Default::default());
        // One ref per node of a tree of this skeleton; the bound is a guard.
        for (i, r) in refs.iter().enumerate() {
            if !r.is_empty() && i < tree.nodes.len() {
                index.entry(*r).or_insert(i);
            }
        }
        View { tree, refs, index }
    }

    /// Which of `options` (`(ref, description 'role "name"')`) `description` means on `tree`.
    /// `None` when there are no options.
    pub fn choose(
        &self,
        description: &str,
        tree: &ScreenTree,
        options: &[(String, Option<String>)],
    ) -> Option<Chosen> {
        self.choose_in(
            description,
            tree,
            None,
            |r| tree.by_ref.get(r).copied(),
            options,
        )
    }

    /// [`LocalClassifier::choose`] with the refs looked up by `find` (ref → node index of
    /// `tree`) rather than in `tree`'s own.
    fn choose_in(
        &self,
        description: &str,
        tree: &ScreenTree,
        shared: Option<&Arc<ScreenTree>>,
        find: impl Fn(&str) -> Option<usize>,
        options: &[(String, Option<String>)],
    ) -> Option<Chosen> {
        if options.is_empty() {
            return None;
        }
        let at: Vec<Option<usize>> = options.iter().map(|(r, _)| find(r)).collect();
        // Options not on the screen, read from their descriptions (an empty node, which
        // allocates nothing, for the others).
        let fallback: Vec<tree::Node> = options
            .iter()
            .zip(&at)
            .map(|((r, desc), i)| match i {
                Some(_) => tree::Node::default(),
                None => option_node(r, desc.as_deref()),
            })
            .collect();
        let candidates: Vec<choice::Candidate<'_>> = at
            .iter()
            .zip(&fallback)
            .map(|(i, fb)| match i {
                Some(i) => choice::Candidate {
                    node: &tree.nodes[*i],
                    index: Some(*i),
                },
                None => choice::Candidate {
                    node: fb,
                    index: None,
                },
            })
            .collect();
        #[cfg(feature = "embeddings")]
        if let Some(r) = &self.ranker {
            match self.rank(r, description, tree, shared, &at, &candidates) {
                Ok(chosen) => return Some(chosen),
                Err(e) => {
                    tracing::warn!(
                        "local classifier: the learned ranker failed: {e}; answering from lexical features"
                    );
                }
            }
        }
        let cosines = |query: &Query| self.cosines(query, &candidates);
        let semantic = self
            .embedder
            .is_some()
            .then_some((&cosines as &Cosines<'_>, self.semantic_weight));
        Some(choose_lexically(
            description,
            tree,
            &candidates,
            semantic,
            &calibration::CHOICE,
        ))
    }

    /// A choice answered by the learned ranker: the best option and every option's
    /// probability (with "nothing fits" as a class of its own, so they sum to less than 1
    /// when nothing fits well).
    #[cfg(feature = "embeddings")]
    fn rank(
        &self,
        ranker: &ranker::Ranker,
        description: &str,
        tree: &ScreenTree,
        shared: Option<&Arc<ScreenTree>>,
        at: &[Option<usize>],
        candidates: &[choice::Candidate<'_>],
    ) -> Result<Chosen, String> {
        // The screen's texts from the cache when the tree is one the caches hand out; an
        // option off the screen (or a tree of the caller's own) is read now.
        let cached = shared.map(|t| self.tree_texts(t));
        let cached_at = |i: &Option<usize>| {
            cached
                .as_ref()
                .zip(*i)
                .and_then(|(texts, i)| texts.get(i)?.as_ref())
        };
        let mut children = None;
        let own: Vec<ranker::OptionTexts> = at
            .iter()
            .zip(candidates)
            .filter(|(i, _)| cached_at(i).is_none())
            .map(|(i, c)| match i {
                Some(i) => {
                    let children = children.get_or_insert_with(|| tree.children());
                    ranker::OptionTexts::of(tree, children, *i)
                }
                None => ranker::OptionTexts::named(&c.node.name),
            })
            .collect();
        let mut own_iter = own.iter();
        let refs: Vec<&ranker::OptionTexts> = at
            .iter()
            .map(|i| match cached_at(i) {
                Some(t) => Some(t),
                None => own_iter.next(),
            })
            .collect::<Option<_>>()
            .ok_or("the screen's texts and its options differ")?;
        // Texts still being embedded in the background (`prepare`): wait for them rather
        // than embed them twice on two cores.
        if self.prefetch.running() {
            let all: Vec<&str> = refs
                .iter()
                .flat_map(|t| [t.name.as_str(), t.with_context.as_str()])
                .collect();
            if ranker.encoder().uncached(&all) > 0 {
                self.prefetch.wait_idle(PREPARE_WAIT);
            }
        }
        let lexical = lexical_probabilities(description, tree, candidates);
        let ranked = ranker.rank(description, tree, candidates, &refs, &lexical)?;
        let best = ranked
            .probabilities
            .iter()
            .enumerate()
            .fold(
                0,
                |b, (i, p)| if *p > ranked.probabilities[b] { i } else { b },
            );
        Ok(Chosen {
            best,
            confidence: ranked.probabilities[best],
            probabilities: ranked.probabilities,
            scored: Scored {
                scores: Vec::new(),
                best,
                features: [0.0; 4],
                ok: Vec::new(),
                semantic: true,
            },
            semantic: true,
        })
    }

    /// The texts the learned ranker embeds for `snapshot`'s named elements (each name, and
    /// each name with its row's text) that its cache does not hold, each once.
    #[cfg(feature = "embeddings")]
    fn ranker_missing(
        &self,
        ranker: &ranker::Ranker,
        snapshot: &A11ySnapshot,
        named: &[&A11yNode],
    ) -> Vec<String> {
        // The tree and its texts as the page's questions will find them in the caches.
        let view = self.view_tree(snapshot);
        let texts = self.tree_texts(&view.tree);
        let all: Vec<&str> = named
            .iter()
            .filter_map(|n| view.find(&n.ref_))
            .filter_map(|i| texts.get(i)?.as_ref())
            .flat_map(|t| [t.name.as_str(), t.with_context.as_str()])
            .collect();
        ranker
            .encoder()
            .uncached_texts(&all)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The ranker's texts of `tree`'s nodes, from the cache or read now and cached.
    #[cfg(feature = "embeddings")]
    fn tree_texts(&self, tree: &Arc<ScreenTree>) -> Arc<ranker::TreeTexts> {
        if let Some((_, texts)) = lock(&self.ranker_texts)
            .iter()
            .find(|(t, _)| Arc::ptr_eq(t, tree))
        {
            return texts.clone();
        }
        let texts = Arc::new(ranker::tree_texts(tree));
        let mut cache = lock(&self.ranker_texts);
        cache.retain(|(t, _)| !Arc::ptr_eq(t, tree));
        cache.insert(0, (tree.clone(), texts.clone()));
        cache.truncate(CACHE_SCREENS);
        texts
    }

    /// What [`Classifier::prepare`] does whichever model embeds: when the snapshot's
    /// `(role, name)` list is one it knows (with `computed` texts embedded so far), nothing;
    /// else `missing` gives the texts of its named elements not cached, and `embed` embeds
    /// them on a background job (superseding an older snapshot's pending texts).
    fn prepare_texts(
        &self,
        snapshot: &A11ySnapshot,
        computed: u64,
        missing: impl FnOnce(&[&A11yNode]) -> Vec<String>,
        embed: impl Fn(&[&str]) -> Result<(), String> + Send + 'static,
    ) {
        // The common case: a page seen lately (refs renumbered), all its texts cached.
        // Hashing its (role, name) list walks the tree and allocates nothing.
        let quick = names_hash(&snapshot.root);
        if let Some(hash) = quick
            && lock(&self.prepared).knows(hash, computed)
        {
            return;
        }
        let named = named_elements(&snapshot.root);
        // More named elements than the options a question offers, or a tree too deep to
        // walk: the hash of the list itself.
        let hash = quick.unwrap_or_else(|| {
            let mut h = FxHasher::default();
            for n in &named {
                hash_name(&mut h, n);
            }
            h.finish()
        });
        if quick.is_none() && lock(&self.prepared).knows(hash, computed) {
            return;
        }
        let missing = missing(&named);
        if missing.is_empty() {
            // Nothing new: an older snapshot's pending texts are stale now.
            lock(&self.prefetch.state).pending = None;
            let mut prepared = lock(&self.prepared);
            prepared.last = Some(hash);
            prepared.remember_cached(hash, computed);
            return;
        }
        lock(&self.prepared).last = Some(hash);
        let mut st = lock(&self.prefetch.state);
        st.pending = Some(missing);
        if !st.running {
            st.running = true;
            let prefetch = self.prefetch.clone();
            if !spawn_blocking(move || prefetch.run(embed)) {
                st.running = false;
                st.pending = None;
                drop(st);
                // Not started: the same texts again should try again.
                lock(&self.prepared).last = None;
            }
        }
    }

    fn view_of<'t>(&self, state: &'t ClassifyState) -> View<'t> {
        match &state.screen {
            Some(screen) => match screen.snapshot() {
                Some(snapshot) => self.view_tree(snapshot),
                None => self.view(screen.ui_state()),
            },
            None => View {
                tree: Arc::new(ScreenTree::default()),
                refs: Vec::new(),
                index: FxHashMap::default(),
            },
        }
    }

    /// Reads a snapshot's tree for a question: its refs and skeleton hash (one walk, nothing
    /// rendered or parsed), and the flattened tree of that skeleton from the cache, or
    /// flattened now ([`ScreenTree::from_snapshot`]) and cached. A session's next snapshot of
    /// the same page renumbers its refs and finds its tree here.
    fn view_tree<'t>(&self, snapshot: &'t A11ySnapshot) -> View<'t> {
        let mut refs = Vec::new();
        let hash = tree_skeleton(&snapshot.root, &mut refs);
        let cached = {
            let mut trees = lock(&self.trees);
            trees.iter().position(|(h, _)| *h == hash).map(|pos| {
                let entry = trees.remove(pos);
                let tree = entry.1.clone();
                trees.insert(0, entry);
                tree
            })
        };
        let tree = match cached {
            Some(tree) if tree.nodes.len() == refs.len() => tree,
            _ => {
                let tree = Arc::new(ScreenTree::from_snapshot(snapshot));
                let mut trees = lock(&self.trees);
                trees.retain(|(h, _)| *h != hash);
                trees.insert(0, (hash, tree.clone()));
                trees.truncate(CACHE_SCREENS);
                tree
            }
        };
        let mut index = FxHashMap::with_capacity_and_hasher(refs.len(), Default::default());
        for (i, r) in refs.iter().enumerate() {
            if !r.is_empty() {
                index.entry(*r).or_insert(i);
            }
        }
        View { tree, refs, index }
    }

    fn answer_choice(
        &self,
        name: &str,
        q: &ChoiceQuestion,
        state: &ClassifyState,
        view: &View<'_>,
    ) -> Result<Answer, ClassifierError> {
        if q.options.is_empty() {
            return Err(ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::local_no_options(name),
            ));
        }
        if q.options.len() > MAX_ELEMENT_OPTIONS {
            let (count, max) = (q.options.len(), MAX_ELEMENT_OPTIONS);
            return Err(ClassifierError::of_kind(
                ErrorKind::TooManyOptions,
                match &self.fallback_hint {
                    None => messages::local_too_many_options(name, count, max),
                    Some(h) => messages::local_too_many_options_with(name, count, max, h),
                },
            ));
        }
        let description = match (&state.utterance, &q.instructions) {
            (Some(u), _) if !u.trim().is_empty() => u.as_str(),
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
        let Some(chosen) = self.choose_in(
            description,
            &view.tree,
            Some(&view.tree),
            |r| view.find(r),
            &q.options,
        ) else {
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
        &self,
        name: &str,
        q: &YesNoQuestion,
        state: &ClassifyState,
        tree: &ScreenTree,
    ) -> Result<f64, ClassifierError> {
        let Value::String(text) = &q.instructions else {
            return Err(self.cannot_read(name, &q.instructions.to_string()));
        };
        if let Some(event) = state.field("event") {
            if text != messages::should_respond_criteria() {
                return Err(self.cannot_read(name, text));
            }
            let event_name = event.get("name").and_then(Value::as_str).unwrap_or("");
            let keys: Vec<&str> = event
                .get("payload")
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Ok(yes_no::should_respond(event_name, &keys));
        }
        yes_no::read_check(text, tree).map_err(|_| self.cannot_read(name, text))
    }
}

/// Per candidate, the cosine of a parsed description with its name (`None` when there are
/// none): what [`choose_lexically`]'s semantic feature reads.
type Cosines<'a> = dyn Fn(&Query) -> Option<Vec<f64>> + 'a;

/// The hand-written scorer's choice (`choice::score`, calibrated by `lexical`, or
/// [`calibration::CHOICE_SEMANTIC`] when `semantic` gives the cosines of the parsed
/// description with each candidate's name and their weight). `candidates` is not empty.
fn choose_lexically(
    description: &str,
    tree: &ScreenTree,
    candidates: &[choice::Candidate<'_>],
    semantic: Option<(&Cosines<'_>, f64)>,
    lexical: &calibration::Platt,
) -> Chosen {
    // One-word names on screen: a filler word that is one of them names it ("ok" → OK).
    let one_word_names: Vec<String> = candidates
        .iter()
        .filter_map(|c| match text::words(&c.node.name).as_slice() {
            [one] => Some(text::canonical(one)),
            _ => None,
        })
        .collect();
    let query = Query::parse_among(description, &one_word_names);
    let cosines = || semantic.and_then(|(cosines, _)| cosines(&query));
    let semantic = semantic.map(|(_, weight)| choice::Semantic {
        cosines: &cosines,
        weight,
    });
    let scored = choice::score(&query, tree, candidates, semantic);
    let calibration = if scored.semantic {
        calibration::CHOICE_SEMANTIC
    } else {
        *lexical
    };
    let best = scored.best;
    // A state asked of several elements that meet it alike ("the unchecked one" with two
    // unchecked todos): the state does not single one out, so they share the
    // probability and none is a confident pick.
    let tied: Vec<usize> = if query.states.is_empty() {
        vec![best]
    } else {
        (0..scored.scores.len())
            .filter(|&i| {
                i == best || scored.ok[i] && (scored.scores[i] - scored.scores[best]).abs() < 1e-9
            })
            .collect()
    };
    let confidence = calibration.probability(&scored.features) / tied.len() as f64;
    let rest: f64 = scored
        .scores
        .iter()
        .enumerate()
        .filter(|(i, _)| !tied.contains(i))
        .map(|(_, s)| (s - scored.scores[best]).exp())
        .sum();
    let left = 1.0 - confidence * tied.len() as f64;
    let probabilities = scored
        .scores
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if tied.contains(&i) {
                confidence
            } else {
                left * (s - scored.scores[best]).exp() / rest
            }
        })
        .collect();
    Chosen {
        best,
        confidence,
        probabilities,
        semantic: scored.semantic,
        scored,
    }
}

/// Each option's probability from the hand-written scorer alone (no embedding): what the
/// learned ranker reads as its lexical features. `candidates` is not empty.
pub fn lexical_probabilities(
    description: &str,
    tree: &ScreenTree,
    candidates: &[choice::Candidate<'_>],
) -> Vec<f64> {
    choose_lexically(
        description,
        tree,
        candidates,
        None,
        &calibration::RANKER_LEXICAL,
    )
    .probabilities
}

/// A node read from an option not on the screen: its description `role "name"` (as the UI
/// worker writes elements), else the description as its name, else the option's key (Pipecat's
/// `ChoiceQuestion(options={"Save": None, ...})`: the key is the option).
fn option_node(ref_: &str, description: Option<&str>) -> tree::Node {
    let desc = description.unwrap_or(ref_);
    let (role, name) = match desc.split_once(" \"") {
        Some((role, rest)) => (role, rest.strip_suffix('"').unwrap_or(rest)),
        None => ("", desc),
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
        state: &ClassifyState,
        questions: &[(String, Question)],
    ) -> Result<Vec<(String, Answer)>, ClassifierError> {
        let view = self.view_of(state);
        let tree = &*view.tree;
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
                && state.field("event").is_none()
                && let Some((criteria, role, el_name)) = yes_no::parse_select_question(text)
            {
                match groups.iter_mut().find(|(c, _)| *c == criteria) {
                    Some((_, items)) => items.push((i, role, el_name)),
                    None => groups.push((criteria, vec![(i, role, el_name)])),
                }
            }
        }
        for (criteria, items) in &groups {
            let at: Vec<Option<usize>> = items
                .iter()
                .map(|(i, _, _)| view.find(&questions[*i].0))
                .collect();
            let fallback: Vec<tree::Node> = items
                .iter()
                .zip(&at)
                .map(|((i, role, el_name), found)| match found {
                    Some(_) => tree::Node::default(),
                    None => option_node(
                        &questions[*i].0,
                        Some(&messages::element_option(role, el_name)),
                    ),
                })
                .collect();
            let candidates: Vec<choice::Candidate<'_>> = at
                .iter()
                .zip(&fallback)
                .map(|(found, fb)| match found {
                    Some(at) => choice::Candidate {
                        node: &tree.nodes[*at],
                        index: Some(*at),
                    },
                    None => choice::Candidate {
                        node: fb,
                        index: None,
                    },
                })
                .collect();
            let probabilities = yes_no::select_probabilities(criteria, tree, &candidates)
                .map_err(|_| self.cannot_read(&questions[items[0].0].0, criteria))?;
            for ((i, _, _), p) in items.iter().zip(probabilities) {
                answers[*i] = Some(Answer::YesNo(YesNoResult { probability: p }));
            }
        }

        for (i, (name, q)) in questions.iter().enumerate() {
            if answers[i].is_some() {
                continue;
            }
            answers[i] = Some(match q {
                Question::Choice(c) => self.answer_choice(name, c, state, &view)?,
                Question::YesNo(y) => Answer::YesNo(YesNoResult {
                    probability: self.answer_yes_no(name, y, state, tree)?,
                }),
                Question::Score(_) => {
                    return Err(ClassifierError::of_kind(
                        ErrorKind::NotUnderstood,
                        messages::local_no_score_with(
                            name,
                            self.fallback_hint
                                .as_deref()
                                .unwrap_or(messages::FALLBACK_HINT),
                        ),
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
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        let result = self.ask_now(state, questions);
        Box::pin(async move { result })
    }

    /// Starts embedding, in the background, the names of `snapshot`'s named elements (the
    /// options `UiWorker::find_element` will offer) that the model's cache does not hold, so
    /// the first question on a new screen finds them cached. Called by
    /// `UiWorker::on_snapshot` on the session task for every snapshot, so only the cheap part
    /// runs here: a 64-bit hash of the `(role, name)` list of the named elements (those of
    /// [`named_elements`], at most [`MAX_ELEMENT_OPTIONS`]), taken by walking the tree
    /// without allocating. When it is the list last handed to the background job, or
    /// one of the last [`PREPARED_PAGES`] lists whose names were all cached (the classifier
    /// serves every session, on different pages), there is nothing to do and nothing is
    /// allocated. Otherwise the list is built and its names looked up in the model's cache.
    /// Nothing is rendered or parsed: a question reads its screen text on demand
    /// ([`LocalClassifier::screen`], cached by skeleton).
    /// Returns at once: the embedding runs on tokio's blocking pool (or a thread outside a
    /// runtime); a newer snapshot supersedes an older one's pending names; names seen before
    /// are never embedded again (the cache is keyed by text, [`embed::CACHE_TEXTS`] per
    /// generation). Without the model it does nothing. The names are the snapshot's own; a
    /// name the `<ui_state>` text cannot carry intact (one with a newline or `" = "`) is
    /// parsed differently by [`ScreenTree::parse`] and embedded by its question instead.
    fn prepare(&self, snapshot: &A11ySnapshot) {
        #[cfg(feature = "embeddings")]
        if let Some(r) = &self.ranker {
            let ranker = r.clone();
            self.prepare_texts(
                snapshot,
                r.encoder().computed(),
                |named| self.ranker_missing(r, snapshot, named),
                move |texts| ranker.encoder().warm(texts),
            );
            return;
        }
        let Some(embedder) = &self.embedder else {
            return;
        };
        let model = embedder.clone();
        self.prepare_texts(
            snapshot,
            embedder.computed(),
            |named| {
                let names: Vec<&str> = named
                    .iter()
                    .map(|n| n.name.as_deref().unwrap_or(""))
                    .collect();
                embedder
                    .uncached(&names)
                    .into_iter()
                    .map(str::to_string)
                    .collect()
            },
            move |texts| {
                model
                    .embed_all(texts)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            },
        );
    }
}

/// Deepest tree [`names_hash`] walks (recursively); deeper trees take the slow path.
const HASH_DEPTH: usize = 200;

/// Feeds one named element's `(role, name)` to `h` (lengths first, so the list reads back
/// one way only).
fn hash_name(h: &mut FxHasher, n: &A11yNode) {
    let name = n.name.as_deref().unwrap_or("");
    h.write_usize(n.role.len());
    h.write(n.role.as_bytes());
    h.write_usize(name.len());
    h.write(name.as_bytes());
}

/// A 64-bit hash of the `(role, name)` list of the named elements under `root` (ref and
/// name non-empty, as [`named_elements`]), in document order, without allocating; `None`
/// when there are more than [`MAX_ELEMENT_OPTIONS`] (then [`named_elements`] keeps only
/// the first of them breadth-first, so the set differs) or the tree is deeper than
/// [`HASH_DEPTH`]. Two snapshots with the same hash have the same names to embed (a 64-bit
/// collision aside, which would only leave some names for their question to embed).
fn names_hash(root: &A11yNode) -> Option<u64> {
    fn walk(n: &A11yNode, depth: usize, h: &mut FxHasher, count: &mut usize) -> bool {
        if depth > HASH_DEPTH {
            return false;
        }
        if !n.ref_.is_empty() && n.name.as_deref().is_some_and(|s| !s.is_empty()) {
            *count += 1;
            if *count > MAX_ELEMENT_OPTIONS {
                return false;
            }
            hash_name(h, n);
        }
        n.children.iter().all(|c| walk(c, depth + 1, h, count))
    }
    let mut h = FxHasher::default();
    let mut count = 0;
    walk(root, 0, &mut h, &mut count).then(|| {
        h.write_usize(count);
        h.finish()
    })
}

/// A 64-bit hash of what [`ScreenTree::from_snapshot`] reads of the tree under `root`, refs
/// left out (each node's depth, role, name, value, state tags, `level`/`cols`/`rows`, and
/// whether it has a ref), in document order, with each node's ref pushed to `refs`; an
/// explicit stack, so a deep chain needs no recursion. Two trees with the same hash flatten
/// alike but for their refs (a 64-bit collision aside; the node count is checked too).
fn tree_skeleton<'t>(root: &'t A11yNode, refs: &mut Vec<&'t str>) -> u64 {
    let mut h = FxHasher::default();
    let mut stack: Vec<(&A11yNode, usize)> = vec![(root, 0)];
    while let Some((n, depth)) = stack.pop() {
        refs.push(&n.ref_);
        h.write_usize(depth);
        for text in [
            n.role.as_str(),
            n.name.as_deref().unwrap_or(""),
            n.value().unwrap_or(""),
        ] {
            h.write_usize(text.len());
            h.write(text.as_bytes());
        }
        let state = n.state();
        h.write_usize(state.len());
        for tag in state {
            h.write_usize(tag.len());
            h.write(tag.as_bytes());
        }
        for i in [n.level(), n.colcount(), n.rowcount()] {
            match i {
                Some(i) => {
                    h.write_u8(1);
                    h.write_i64(i);
                }
                None => h.write_u8(0),
            }
        }
        h.write_u8(u8::from(n.ref_.is_empty()));
        stack.extend(n.children.iter().rev().map(|c| (c, depth + 1)));
    }
    h.write_usize(refs.len());
    h.finish()
}
