//! The learned ranker (issue 22): which option a spoken description means, in English,
//! Spanish, French or German, read through a multilingual sentence embedding
//! (multilingual-e5-small) and the snapshot's structure, scored by a small trained network.
//!
//! - [`features`]: per option, what the snapshot gives set against the description (cosines
//!   of the name and of the name with its row's text, shared words and letters, position
//!   among like elements, state, role), and the features of "nothing fits".
//! - [`model`]: the trained weights (`weights.json`, written by
//!   `bench/grounding/train_ranker.py`), one softmax over the options and "nothing fits".
//! - [`words`]: the positions and states read by rule in the four languages.
//!
//! "Nothing fits" is a class of its own, so a description that matches nothing well gets a
//! low probability for every option from the same calibrated softmax, with no special case.

pub mod features;
pub mod model;
pub mod words;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use features::{Encoder, FEATURES, Features, NONE_FEATURES, OptionTexts};
pub use model::{Weights, WeightsError};

/// The committed weights.
pub const WEIGHTS_JSON: &str = include_str!("weights.json");

/// The committed weights, read once; `None` (logged once) when they do not fit this build.
pub fn weights() -> Option<&'static Weights> {
    static W: OnceLock<Option<Weights>> = OnceLock::new();
    W.get_or_init(|| match Weights::from_json(WEIGHTS_JSON) {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!("local classifier: {e}");
            None
        }
    })
    .as_ref()
}

/// A sentence-embedding model as the ranker uses it.
pub trait Embed: Send + Sync {
    /// A description's embedding (unit length).
    fn query(&self, text: &str) -> Result<Vec<f32>, String>;
    /// Texts on the screen, embedded (unit length), in order.
    fn passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
}

/// Texts kept per cache generation (the cache holds at most twice this).
pub const CACHE_TEXTS: usize = 8192;

/// An [`Embed`] with its passages cached by text (two generations: when the young one is
/// full it becomes the old one, so texts seen on the last pages stay).
pub struct CachedEncoder {
    model: Arc<dyn Embed>,
    /// Texts embedded so far (a page whose texts were all cached when this read `n` is
    /// still cached while fewer than [`CACHE_TEXTS`] were embedded since).
    computed: std::sync::atomic::AtomicU64,
    cache: Mutex<Generations>,
}

impl std::fmt::Debug for CachedEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEncoder").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Generations {
    young: HashMap<String, Arc<[f32]>>,
    old: HashMap<String, Arc<[f32]>>,
}

impl Generations {
    fn get(&mut self, text: &str) -> Option<Arc<[f32]>> {
        if let Some(e) = self.young.get(text) {
            return Some(e.clone());
        }
        let e = self.old.remove(text)?;
        self.insert(text.to_string(), e.clone());
        Some(e)
    }

    fn insert(&mut self, text: String, e: Arc<[f32]>) {
        if self.young.len() >= CACHE_TEXTS {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(text, e);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CachedEncoder {
    /// Wraps `model`.
    pub fn new(model: Arc<dyn Embed>) -> Self {
        CachedEncoder {
            model,
            computed: std::sync::atomic::AtomicU64::new(0),
            cache: Mutex::new(Generations::default()),
        }
    }

    /// Embeds the texts not in the cache yet (what a new snapshot's options need), in one
    /// batch.
    pub fn warm(&self, texts: &[&str]) -> Result<(), String> {
        self.passages(texts).map(|_| ())
    }

    /// How many of `texts` are not cached.
    pub fn uncached(&self, texts: &[&str]) -> usize {
        self.uncached_texts(texts).len()
    }

    /// The texts of `texts` not cached, each once.
    pub fn uncached_texts<'t>(&self, texts: &[&'t str]) -> Vec<&'t str> {
        let mut cache = lock(&self.cache);
        let mut out: Vec<&'t str> = Vec::new();
        for t in texts {
            if cache.get(t).is_none() && !out.contains(t) {
                out.push(t);
            }
        }
        out
    }

    /// How many texts were embedded so far.
    pub fn computed(&self) -> u64 {
        self.computed.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Encoder for CachedEncoder {
    fn query(&self, text: &str) -> Result<Vec<f32>, String> {
        self.model.query(text)
    }

    fn passages(&self, texts: &[&str]) -> Result<Vec<Arc<[f32]>>, String> {
        let mut out: Vec<Option<Arc<[f32]>>> = Vec::with_capacity(texts.len());
        let mut missing: Vec<&str> = Vec::new();
        {
            let mut cache = lock(&self.cache);
            for t in texts {
                let hit = cache.get(t);
                if hit.is_none() && !missing.contains(t) {
                    missing.push(t);
                }
                out.push(hit);
            }
        }
        if !missing.is_empty() {
            let embedded = self.model.passages(&missing)?;
            self.computed
                .fetch_add(missing.len() as u64, std::sync::atomic::Ordering::Relaxed);
            let mut fresh: HashMap<&str, Arc<[f32]>> = HashMap::with_capacity(missing.len());
            let mut cache = lock(&self.cache);
            for (t, e) in missing.iter().zip(embedded) {
                let e: Arc<[f32]> = Arc::from(e);
                cache.insert(t.to_string(), e.clone());
                fresh.insert(t, e);
            }
            for (slot, t) in out.iter_mut().zip(texts) {
                if slot.is_none() {
                    *slot = fresh.get(t).cloned();
                }
            }
        }
        out.into_iter()
            .zip(texts)
            .map(|(e, t)| e.ok_or_else(|| format!("no embedding came for {t:?}")))
            .collect()
    }
}

/// The learned ranker: the encoder (with its cache) and the committed weights.
#[derive(Debug)]
pub struct Ranker {
    encoder: CachedEncoder,
    weights: &'static Weights,
}

/// The multilingual model ([`super::embed::e5::E5`]) as the ranker's [`Embed`].
struct E5Model(Arc<super::embed::e5::E5>);

impl Embed for E5Model {
    fn query(&self, text: &str) -> Result<Vec<f32>, String> {
        Ok(self.0.embed_query(text))
    }
    fn passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Ok(self.0.embed_passages(texts))
    }
}

/// One choice, ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Each option's probability, in the options' order.
    pub probabilities: Vec<f64>,
    /// The probability that no option fits (the options' and this sum to 1).
    pub none: f64,
    /// The features the probabilities came from.
    pub features: Features,
}

impl Ranker {
    /// A ranker over `model` with the committed weights; `Err` when the weights do not fit
    /// this build.
    pub fn new(model: Arc<dyn Embed>) -> Result<Self, String> {
        let weights = weights().ok_or("the ranker's committed weights do not load")?;
        Ok(Ranker {
            encoder: CachedEncoder::new(model),
            weights,
        })
    }

    /// A ranker over the multilingual model `e5` with the committed weights (one ranker per
    /// model: its cache holds the model's embeddings).
    pub fn over_e5(e5: Arc<super::embed::e5::E5>) -> Result<Self, String> {
        Ranker::new(Arc::new(E5Model(e5)))
    }

    /// The process's ranker over the multilingual model in the model directory
    /// ([`super::embed::e5::E5::shared`]), or `None` (said once in the log) when the model
    /// file is absent or the weights do not load.
    pub fn shared() -> Option<Arc<Ranker>> {
        static SHARED: OnceLock<Option<Arc<Ranker>>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                let e5 = super::embed::e5::E5::shared()?;
                match Ranker::over_e5(e5) {
                    Ok(r) => Some(Arc::new(r)),
                    Err(e) => {
                        tracing::warn!("local classifier: the learned ranker is off: {e}");
                        None
                    }
                }
            })
            .clone()
    }

    /// The encoder, for warming its cache with a new screen's texts.
    pub fn encoder(&self) -> &CachedEncoder {
        &self.encoder
    }

    /// The probabilities of `candidates` (their texts in `texts`, the hand-written scorer's
    /// probabilities in `lexical`, same order) for `description`, and of "nothing fits".
    pub fn rank(
        &self,
        description: &str,
        tree: &super::ScreenTree,
        candidates: &[super::choice::Candidate<'_>],
        texts: &[&OptionTexts],
        lexical: &[f64],
    ) -> Result<Ranked, String> {
        let features =
            features::compute(description, tree, candidates, texts, lexical, &self.encoder)?;
        let (probabilities, none) = self.weights.probabilities(&features);
        Ok(Ranked {
            probabilities,
            none,
            features,
        })
    }
}

/// The texts of every named node of a screen, by node index (`None` for a node without a
/// name): what [`tree_texts`] reads once per screen.
pub type TreeTexts = Vec<Option<OptionTexts>>;

/// The texts of `tree`'s named nodes, by node index.
pub fn tree_texts(tree: &super::ScreenTree) -> TreeTexts {
    let children = tree.children();
    (0..tree.nodes.len())
        .map(|i| (!tree.nodes[i].name.is_empty()).then(|| OptionTexts::of(tree, &children, i)))
        .collect()
}
