//! Speech to text: the [`Stt`] trait (one utterance's audio in, its transcript out) and the
//! [`Transcript`] every STT gives.
//!
//! A streaming STT (Deepgram's WebSocket API: audio in as it is spoken, interim and final
//! transcripts out) will implement a streaming trait beside this one, yielding the same
//! [`Transcript`] values with `is_final: false` for interim results; a batch STT such as the
//! OpenAI-compatible endpoint only ever gives final ones.

use futures::future::BoxFuture;

use crate::audio::AudioChunk;
use crate::error::VoiceError;

/// What the caller said, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The words.
    pub text: String,
    /// `false` for an interim result a streaming STT may still revise.
    pub is_final: bool,
}

impl Transcript {
    /// A final transcript of `text`.
    pub fn final_text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_final: true,
        }
    }
}

/// A batch speech recognizer: a whole utterance in, its transcript out.
pub trait Stt: Send + Sync {
    /// The transcript of `utterance` (any rate the provider takes; WAV carries it).
    fn transcribe(
        &self,
        utterance: AudioChunk,
    ) -> BoxFuture<'static, Result<Transcript, VoiceError>>;
}
