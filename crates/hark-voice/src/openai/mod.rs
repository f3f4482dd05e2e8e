//! OpenAI-compatible audio endpoints (OpenAI, and the self-hosted servers that speak them):
//! `POST {base_url}/audio/speech` ([`OpenAiTts`]) and `POST {base_url}/audio/transcriptions`
//! ([`OpenAiStt`]). `base_url` is the API root, as in the agent file's `[llm]` table
//! (`https://api.openai.com/v1`); the key is sent as `Authorization: Bearer`.

mod stt;
mod tts;

pub use stt::{OpenAiStt, OpenAiSttConfig};
pub use tts::{OPENAI_PCM_RATE, OpenAiTts, OpenAiTtsConfig};

/// The provider kind as errors and agent files name it.
pub const KIND: &str = "openai-compatible";
