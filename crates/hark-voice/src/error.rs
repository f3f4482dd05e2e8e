//! The one error type of speech providers and audio. Every `Display` is one sentence naming the
//! provider, what failed and what to do (texts in [`crate::messages`]); none holds a key.

use std::time::Duration;

use crate::audio::{MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
use crate::messages;

/// Which way a provider carries speech.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Text to speech.
    Tts,
    /// Speech to text.
    Stt,
}

impl Role {
    /// `TTS` or `STT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Tts => "TTS",
            Role::Stt => "STT",
        }
    }
}

/// Which provider an error came from: `openai-compatible TTS at http://host/v1`.
///
/// `endpoint` is the base URL without user info, query or fragment, so it never carries a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderLabel {
    /// `openai-compatible`, `espeak-ng`, …
    pub kind: &'static str,
    /// TTS or STT.
    pub role: Role,
    /// The base URL (cleaned), or `None` for a local program.
    pub endpoint: Option<String>,
}

impl ProviderLabel {
    /// A label for a provider reached at `base_url` (user info, query and fragment removed).
    pub fn remote(kind: &'static str, role: Role, base_url: &str) -> Self {
        Self {
            kind,
            role,
            endpoint: Some(clean_endpoint(base_url)),
        }
    }

    /// A label for a local program.
    pub fn local(kind: &'static str, role: Role) -> Self {
        Self {
            kind,
            role,
            endpoint: None,
        }
    }
}

impl std::fmt::Display for ProviderLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&messages::provider_label(
            self.kind,
            self.role.as_str(),
            self.endpoint.as_deref(),
        ))
    }
}

fn clean_endpoint(base_url: &str) -> String {
    let mut s = base_url;
    if let Some(i) = s.find(['?', '#']) {
        s = &s[..i];
    }
    let (scheme, rest) = match s.find("://") {
        Some(i) => (&s[..i + 3], &s[i + 3..]),
        None => ("", s),
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(host_end);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    format!("{scheme}{authority}{path}")
        .trim_end_matches('/')
        .to_owned()
}

/// What a [`VoiceError::Timeout`] was waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// The TCP/TLS connection (`connect_timeout`).
    Connect,
    /// The response headers (`first_byte_timeout`).
    FirstByte,
    /// The whole reply (`total_timeout`).
    Total,
    /// A streaming TTS's first audio of a line, from sending the line (`first_audio_timeout`).
    FirstAudio,
    /// A streaming TTS's next message of a line after the last one (`stall_timeout`).
    Stall,
    /// A streaming STT's last final transcript after the end of the utterance
    /// (`final_timeout`).
    FinalTranscript,
}

impl TimeoutPhase {
    /// What was awaited, as said in the error.
    pub fn waiting_for(self) -> &'static str {
        match self {
            TimeoutPhase::Connect => "the connection",
            TimeoutPhase::FirstByte => "the first byte of the reply",
            TimeoutPhase::Total => "the whole reply",
            TimeoutPhase::FirstAudio => "the first audio of the line",
            TimeoutPhase::Stall => "more audio of the line",
            TimeoutPhase::FinalTranscript => "the final transcript after the end of the utterance",
        }
    }

    /// The setting that sets this limit.
    pub fn setting(self) -> &'static str {
        match self {
            TimeoutPhase::Connect => "connect_timeout",
            TimeoutPhase::FirstByte => "first_byte_timeout",
            TimeoutPhase::Total => "total_timeout",
            TimeoutPhase::FirstAudio => "first_audio_timeout",
            TimeoutPhase::Stall => "stall_timeout",
            TimeoutPhase::FinalTranscript => "final_timeout",
        }
    }
}

/// Everything that can go wrong making or hearing speech.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VoiceError {
    /// The provider answered with an error status.
    #[error("{}", messages::http_error(&provider.to_string(), *status, message))]
    Http {
        /// Who answered.
        provider: ProviderLabel,
        /// The HTTP status.
        status: u16,
        /// The provider's own error text (`error.message` of OpenAI's JSON body, else an
        /// excerpt of the body), at most [`messages::EXCERPT_CHARS`] characters, key redacted.
        message: String,
    },
    /// The provider refused the key (401 or 403), where the caller knows which environment
    /// variable held it.
    #[error("{}", messages::key_refused(&provider.to_string(), *status, message, key_env))]
    KeyRefused {
        /// Who refused.
        provider: ProviderLabel,
        /// The status (401 or 403).
        status: u16,
        /// The provider's own error text (an excerpt, key redacted).
        message: String,
        /// The environment variable the key came from (`CARTESIA_API_KEY`).
        key_env: String,
    },
    /// The connection could not be made or broke before any reply.
    #[error("{}", messages::connect_error(&provider.to_string(), detail))]
    Connect {
        /// Whom we tried to reach.
        provider: ProviderLabel,
        /// What the HTTP client said.
        detail: String,
    },
    /// A time limit ran out.
    #[error("{}", messages::timeout(&provider.to_string(), phase.waiting_for(), *after, phase.setting()))]
    Timeout {
        /// Whom we waited for.
        provider: ProviderLabel,
        /// What we waited for.
        phase: TimeoutPhase,
        /// The limit that ran out.
        after: Duration,
    },
    /// The audio stream broke after `bytes` bytes, or ended inside a sample.
    #[error("{}", messages::stream_cut(&provider.to_string(), *bytes, detail))]
    StreamCut {
        /// Whose stream.
        provider: ProviderLabel,
        /// Audio bytes received before the cut.
        bytes: u64,
        /// What the transport said.
        detail: String,
    },
    /// A streaming STT's provider closed the stream with an error close frame.
    #[error("{}", messages::stream_closed(&provider.to_string(), *code, reason))]
    StreamClosed {
        /// Whose stream.
        provider: ProviderLabel,
        /// The WebSocket close code (Deepgram: 1008 unreadable audio, 1011 no audio in time).
        code: u16,
        /// The close frame's reason (Deepgram's error code and text), key redacted.
        reason: String,
    },
    /// A streaming STT's connection broke without a close frame.
    #[error("{}", messages::stream_lost(&provider.to_string(), *audio_bytes, detail))]
    StreamLost {
        /// Whose stream.
        provider: ProviderLabel,
        /// Audio bytes sent before the break.
        audio_bytes: u64,
        /// What the transport said.
        detail: String,
    },
    /// The provider sent something this client cannot read.
    #[error("{}", messages::decode_error(&provider.to_string(), detail))]
    Decode {
        /// Whose reply.
        provider: ProviderLabel,
        /// What was wrong with it.
        detail: String,
    },
    /// The request cannot be sent as it is (empty text, text too long, …).
    #[error("{}", messages::invalid_request(&provider.to_string(), detail))]
    InvalidRequest {
        /// For whom.
        provider: ProviderLabel,
        /// What to fix.
        detail: String,
    },
    /// A local program is not installed.
    #[error("{}", messages::missing_program(&provider.to_string(), program, package))]
    MissingProgram {
        /// Which provider needs it.
        provider: ProviderLabel,
        /// The program looked for.
        program: String,
        /// The Debian package that has it.
        package: &'static str,
    },
    /// A local program could not be started (other than not found).
    #[error("{}", messages::spawn_error(&provider.to_string(), program, detail))]
    Spawn {
        /// Which provider.
        provider: ProviderLabel,
        /// The program.
        program: String,
        /// The OS error.
        detail: String,
    },
    /// A local program exited with a failure.
    #[error("{}", messages::program_failed(&provider.to_string(), program, status, stderr))]
    ProgramFailed {
        /// Which provider.
        provider: ProviderLabel,
        /// The program.
        program: String,
        /// Its exit status, as the OS says it.
        status: String,
        /// What it said on stderr (an excerpt).
        stderr: String,
    },
    /// A sample rate outside [`MIN_SAMPLE_RATE`]..=[`MAX_SAMPLE_RATE`].
    #[error("{}", messages::sample_rate(*rate, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE))]
    SampleRate {
        /// The rate refused.
        rate: u32,
    },
    /// The resampler refused.
    #[error("{}", messages::resample_error(detail))]
    Resample {
        /// rubato's words.
        detail: String,
    },
    /// WAV bytes that are not 16-bit PCM WAV.
    #[error("{}", messages::wav_error(detail))]
    Wav {
        /// hound's words, or what Hark does not read.
        detail: String,
    },
    /// The Silero VAD model file is missing, unreadable or not a model tract can run.
    #[error("{}", messages::vad_model(path, reason))]
    VadModel {
        /// The model file looked for.
        path: String,
        /// What went wrong (the I/O error, or tract's words).
        reason: String,
    },
    /// Voice activity detection refused its settings or its input, or the model failed on a
    /// window.
    #[error("{}", messages::vad_error(detail))]
    Vad {
        /// What was wrong and what to do.
        detail: String,
    },
}

impl VoiceError {
    /// The provider this error names, if it came from one.
    pub fn provider(&self) -> Option<&ProviderLabel> {
        match self {
            VoiceError::Http { provider, .. }
            | VoiceError::KeyRefused { provider, .. }
            | VoiceError::Connect { provider, .. }
            | VoiceError::Timeout { provider, .. }
            | VoiceError::StreamCut { provider, .. }
            | VoiceError::StreamClosed { provider, .. }
            | VoiceError::StreamLost { provider, .. }
            | VoiceError::Decode { provider, .. }
            | VoiceError::InvalidRequest { provider, .. }
            | VoiceError::MissingProgram { provider, .. }
            | VoiceError::Spawn { provider, .. }
            | VoiceError::ProgramFailed { provider, .. } => Some(provider),
            VoiceError::SampleRate { .. }
            | VoiceError::Resample { .. }
            | VoiceError::Wav { .. }
            | VoiceError::VadModel { .. }
            | VoiceError::Vad { .. } => None,
        }
    }
}
