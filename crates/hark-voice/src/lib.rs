//! # hark-voice
//!
//! Speech in and out: STT and TTS provider clients and the audio they carry. No Hark crate
//! below it; `hark-server` (later) puts it between the WebSocket's audio frames
//! (`hark_rtvi::audio`) and the voice agent.
//!
//! - [`audio`]: [`AudioChunk`] (PCM16 mono samples and their rate), [`Pcm16Carry`] (network
//!   bytes to whole samples).
//! - [`resample`]: [`Resampler`] (rubato's FFT resampler, chunk by chunk) so any provider's rate
//!   is sent at the rate the client plays.
//! - [`wav`]: [`read_wav`] / [`write_wav`] (hound).
//! - [`tts`]: the [`Tts`] trait: a line in, a [`TtsStream`] of chunks out, cancelled by dropping
//!   it; [`resampled`].
//! - [`stt`]: the [`Stt`] trait: an utterance in, its [`Transcript`] out; the [`StreamingStt`]
//!   trait: audio in while it is spoken, interim and final [`Transcript`]s out of an
//!   [`SttStream`].
//! - [`openai`]: OpenAI-compatible `/audio/speech` ([`OpenAiTts`]) and `/audio/transcriptions`
//!   ([`OpenAiStt`]).
//! - [`cartesia`]: [`CartesiaTts`], Cartesia's streaming TTS over its WebSocket (one connection
//!   per client, lines multiplexed on it by `context_id`).
//! - [`deepgram`]: Deepgram's live WebSocket STT ([`DeepgramStt`], streaming).
//! - [`espeak`]: [`EspeakTts`], the local espeak-ng program.
//! - [`error`]: the one [`VoiceError`]; every message names the provider, what failed and what
//!   to do. Texts in [`messages`].
//! - `vad` (feature `vad`): voice activity detection, Silero VAD under tract with Pipecat 1.14's
//!   turn rules (`Vad`, `VadParams`, `VadEvent`).
//! - `testing` (feature `test-support`): a scripted OpenAI-compatible speech server, a scripted
//!   Deepgram live server and a scripted Cartesia TTS WebSocket server on loopback.

pub mod audio;
pub mod cartesia;
pub mod deepgram;
pub mod error;
pub mod espeak;
mod http;
pub mod messages;
pub mod openai;
pub mod resample;
pub mod stt;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod tts;
#[cfg(feature = "vad")]
pub mod vad;
pub mod wav;
mod ws;

pub use audio::{AudioChunk, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, Pcm16Carry};
pub use cartesia::{
    CARTESIA_MODEL, CARTESIA_RATE, CARTESIA_URL, CARTESIA_VERSION, CartesiaConfig,
    CartesiaTimeouts, CartesiaTts,
};
pub use deepgram::{DEEPGRAM_LISTEN_URL, DeepgramConfig, DeepgramStt};
pub use error::{ProviderLabel, Role, TimeoutPhase, VoiceError};
pub use espeak::{ESPEAK_RATE, EspeakConfig, EspeakTts};
pub use http::HttpOptions;
pub use openai::{OPENAI_PCM_RATE, OpenAiStt, OpenAiSttConfig, OpenAiTts, OpenAiTtsConfig};
pub use resample::{Resampler, resample_chunk};
pub use stt::{StreamInput, StreamingStt, Stt, SttStream, Transcript};
pub use tts::{Tts, TtsStream, resampled};
#[cfg(feature = "vad")]
pub use vad::{VAD_MODEL_FILE, Vad, VadEvent, VadParams, VadState};
pub use wav::{read_wav, write_wav};
