//! What a call's agent tells the client, as typed values: [`AgentEvent`]. The agent emits them
//! through its [`AgentOutput`](crate::AgentOutput); the program that carries the call (hark-server
//! for an RTVI session) turns each into its own wire messages.

/// One thing the agent tells the client, in the order it happened.
///
/// A model reply is `LlmStarted`, then its text as it streams (`TextDelta`), with each finished
/// sentence said to the caller (`Spoken`), then `LlmStopped`. A line said outside a reply (an
/// announce line, a tool's reply, the goodbye) is one `Spoken`. A reply that failed for good is
/// an `Error` (not fatal: the call goes on). With a TTS ([`crate::AgentSettings::with_tts`]),
/// each line plays in its turn ([`crate::Speaker`]): `TtsStarted`, `Spoken`,
/// `BotStartedSpeaking` with the first `Audio` frame unless the bot was speaking already, the
/// frames at real-time pace, `TtsStopped`; `BotStoppedSpeaking` once the audio has played out
/// and no more followed (or at once when the caller cut the bot off). A call that hears
/// ([`crate::AgentSettings::with_hearing`]) also reports the caller's speech:
/// `UserStartedSpeaking` (then `BotInterrupted` when that cut the bot off), `UserStoppedSpeaking`,
/// `UserTranscription`.
/// Not `non_exhaustive`: a carrier matches every event, so a new one cannot go unsent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEvent {
    /// The model began a reply.
    LlmStarted,
    /// A piece of the model's reply text, as it streamed in.
    TextDelta(String),
    /// The model's reply ended (also after an interruption or a failure).
    LlmStopped,
    /// One segment said to the caller: a sentence of a reply or a whole line; `segment` counts
    /// the call's segments from 0.
    Spoken {
        /// The words said.
        text: String,
        /// The segment's number in the call.
        segment: i64,
    },
    /// Speech synthesis of one segment began (a call with a TTS only; before its `Spoken`).
    TtsStarted,
    /// The bot's first audio after silence goes out: it is heard from now on.
    BotStartedSpeaking,
    /// One frame of the bot's audio (PCM16 mono at the client's player rate, 20 ms except a
    /// segment's last), sent at real-time pace.
    Audio(hark_voice::AudioChunk),
    /// The segment's last audio has played out (or the segment was cut off).
    BotStoppedSpeaking,
    /// Speech synthesis of the segment ended (after `BotStoppedSpeaking`).
    TtsStopped,
    /// The caller began to speak (the VAD confirmed speech; a call that hears only).
    UserStartedSpeaking,
    /// The caller stopped speaking (the VAD heard `stop_secs` of silence).
    UserStoppedSpeaking,
    /// What the caller said, as the STT heard it.
    UserTranscription {
        /// The words.
        text: String,
        /// `false` for an interim transcript the STT may still revise.
        is_final: bool,
    },
    /// The caller talked over the bot: its running turn was stopped or its audio cut off.
    BotInterrupted,
    /// A turn failed: `text` says what went wrong, for the client; `fatal`: the call cannot go
    /// on.
    Error {
        /// What went wrong.
        text: String,
        /// The call cannot go on.
        fatal: bool,
    },
}

impl AgentEvent {
    /// The event's name, for logs and tests: `"llm-started"`, `"text-delta"`, `"llm-stopped"`,
    /// `"spoken"`, `"tts-started"`, `"bot-started-speaking"`, `"audio"`,
    /// `"bot-stopped-speaking"`, `"tts-stopped"`, `"user-started-speaking"`,
    /// `"user-stopped-speaking"`, `"user-transcription"`, `"bot-interrupted"`, `"error"`.
    pub fn name(&self) -> &'static str {
        match self {
            AgentEvent::LlmStarted => "llm-started",
            AgentEvent::TextDelta(_) => "text-delta",
            AgentEvent::LlmStopped => "llm-stopped",
            AgentEvent::Spoken { .. } => "spoken",
            AgentEvent::TtsStarted => "tts-started",
            AgentEvent::BotStartedSpeaking => "bot-started-speaking",
            AgentEvent::Audio(_) => "audio",
            AgentEvent::BotStoppedSpeaking => "bot-stopped-speaking",
            AgentEvent::TtsStopped => "tts-stopped",
            AgentEvent::UserStartedSpeaking => "user-started-speaking",
            AgentEvent::UserStoppedSpeaking => "user-stopped-speaking",
            AgentEvent::UserTranscription { .. } => "user-transcription",
            AgentEvent::BotInterrupted => "bot-interrupted",
            AgentEvent::Error { .. } => "error",
        }
    }
}
