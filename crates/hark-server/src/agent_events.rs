//! The one place a call's [`AgentEvent`]s become RTVI messages: [`to_rtvi`], and the text reply
//! of a turn without an agent ([`bot_reply`]).
//!
//! | event | RTVI messages |
//! | --- | --- |
//! | `LlmStarted` | `bot-llm-started` |
//! | `TextDelta(text)` | `bot-llm-text` |
//! | `LlmStopped` | `bot-llm-stopped` |
//! | `Spoken { text, segment }` | `bot-output` (aggregated by sentence, `segment_id`, to be spoken; v1: `spoken: true`), `bot-transcription` (the same sentence: Pipecat 1.14 still sends it for clients on the deprecated `onBotTranscript`), then `bot-tts-text` |
//! | `TtsStarted` | `bot-tts-started` |
//! | `BotStartedSpeaking` | `bot-started-speaking` |
//! | `Audio(chunk)` | no RTVI message: one binary `pipecat.Frame` of audio ([`audio_frame`]) |
//! | `BotStoppedSpeaking` | `bot-stopped-speaking` |
//! | `TtsStopped` | `bot-tts-stopped` |
//! | `UserStartedSpeaking` | `user-started-speaking` |
//! | `UserStoppedSpeaking` | `user-stopped-speaking` |
//! | `UserTranscription { text, is_final }` | `user-transcription` `{text, user_id: "", timestamp, final}` |
//! | `BotInterrupted` | none: client-js 1.13.1 does not know `bot-interrupted`; `user-started-speaking` (sent first) stops its playback |
//! | `Error { text, fatal }` | `error` |
//!
//! With a TTS, one spoken segment is `bot-tts-started`, `bot-output`, `bot-tts-text`,
//! `bot-started-speaking` with its first audio frame (unless the bot was already speaking), the
//! frames at real-time pace, `bot-tts-stopped`; `bot-stopped-speaking` once the audio has played
//! out and no more followed, or at once when the caller cut the bot off.

use hark_agent::AgentEvent;
use hark_rtvi::message::ServerMessage;

/// The RTVI messages of `event`, in order; `legacy`: a protocol 1.x client (v1 `bot-output`,
/// with `spoken` in place of `will_be_spoken` and no `segment_id`).
pub fn to_rtvi(event: AgentEvent, legacy: bool) -> Vec<ServerMessage> {
    match event {
        AgentEvent::LlmStarted => vec![ServerMessage::BotLlmStarted],
        AgentEvent::TextDelta(text) => vec![ServerMessage::BotLlmText { text }],
        AgentEvent::LlmStopped => vec![ServerMessage::BotLlmStopped],
        AgentEvent::Spoken { text, segment } => spoken_segment(&text, segment, legacy).into(),
        AgentEvent::TtsStarted => vec![ServerMessage::BotTtsStarted],
        AgentEvent::BotStartedSpeaking => vec![ServerMessage::BotStartedSpeaking],
        AgentEvent::Audio(_) => Vec::new(),
        AgentEvent::BotStoppedSpeaking => vec![ServerMessage::BotStoppedSpeaking],
        AgentEvent::TtsStopped => vec![ServerMessage::BotTtsStopped],
        AgentEvent::UserStartedSpeaking => vec![ServerMessage::UserStartedSpeaking],
        AgentEvent::UserStoppedSpeaking => vec![ServerMessage::UserStoppedSpeaking],
        AgentEvent::UserTranscription { text, is_final } => {
            vec![ServerMessage::UserTranscription {
                text,
                // Pipecat's STT services leave the user id empty on a one-user transport.
                user_id: String::new(),
                timestamp: jiff::Timestamp::now().to_string(),
                r#final: is_final,
            }]
        }
        // client-js 1.13.1 does not know `bot-interrupted` (it logs "Unrecognized message
        // type"); `user-started-speaking` is what stops its playback.
        AgentEvent::BotInterrupted => Vec::new(),
        AgentEvent::Error { text, fatal } => vec![ServerMessage::Error { error: text, fatal }],
    }
}

/// One frame of bot audio as the binary WebSocket message the client plays: a `pipecat.Frame`
/// `AudioRawFrame` of the chunk's PCM16 samples, encoded as the client's own serializer encodes
/// audio (`hark_rtvi::audio::encode_audio`).
pub fn audio_frame(chunk: &hark_voice::AudioChunk) -> Vec<u8> {
    hark_rtvi::audio::encode_audio(&chunk.samples, chunk.sample_rate)
}

/// One spoken segment as `bot-output` (aggregated by sentence, segment `segment_id`, to be
/// spoken) for a v2 client, or v1's `bot-output` with `spoken: true` for a `legacy` one.
pub fn bot_output(text: &str, segment_id: i64, legacy: bool) -> ServerMessage {
    ServerMessage::BotOutput {
        text: text.to_owned(),
        aggregated_by: "sentence".to_owned(),
        segment_id: (!legacy).then_some(segment_id),
        will_be_spoken: (!legacy).then_some(true),
        spoken_status: None,
        spoken_progress: None,
        spoken: legacy.then_some(true),
    }
}

/// The messages of one spoken segment: `bot-output` ([`bot_output`]), `bot-transcription` and
/// `bot-tts-text` with the same text. With a `[tts]`, the speaker sends the segment when its
/// line starts to play; without one, the text counts as spoken when sent.
pub fn spoken_segment(text: &str, segment_id: i64, legacy: bool) -> [ServerMessage; 3] {
    [
        bot_output(text, segment_id, legacy),
        ServerMessage::BotTranscription {
            text: text.to_owned(),
        },
        ServerMessage::BotTtsText {
            text: text.to_owned(),
        },
    ]
}

/// One complete bot text reply without speech, the way Pipecat frames it for a text turn:
/// `bot-llm-started`, `bot-llm-text`, `bot-output` (one sentence-aggregated segment, not to be
/// spoken), `bot-transcription` (the same text, as Pipecat 1.14's observer still sends it),
/// `bot-llm-stopped`. `legacy`: a protocol 1.x client (v1 `bot-output` with `spoken`).
/// No `bot-tts-text` is sent: nothing is spoken.
pub fn bot_reply(line: &str, legacy: bool) -> Vec<ServerMessage> {
    let output = ServerMessage::BotOutput {
        text: line.to_owned(),
        aggregated_by: "sentence".to_owned(),
        segment_id: (!legacy).then_some(0),
        will_be_spoken: (!legacy).then_some(false),
        spoken_status: None,
        spoken_progress: None,
        spoken: legacy.then_some(false),
    };
    vec![
        ServerMessage::BotLlmStarted,
        ServerMessage::BotLlmText {
            text: line.to_owned(),
        },
        output,
        ServerMessage::BotTranscription {
            text: line.to_owned(),
        },
        ServerMessage::BotLlmStopped,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spoken_segments_carry_the_version_fields() {
        let [output, transcription, tts] = spoken_segment("Hi there.", 3, false);
        assert_eq!(transcription.type_name(), "bot-transcription");
        assert!(
            transcription
                .to_json(None)
                .contains(r#""data":{"text":"Hi there."}"#),
            "{}",
            transcription.to_json(None)
        );
        let json = output.to_json(None);
        assert!(json.contains(r#""aggregated_by":"sentence""#), "{json}");
        assert!(json.contains(r#""segment_id":3"#), "{json}");
        assert!(json.contains(r#""will_be_spoken":true"#), "{json}");
        assert!(!json.contains("\"spoken\""), "{json}");
        assert_eq!(tts.type_name(), "bot-tts-text");
        let v1 = bot_output("Hi there.", 3, true).to_json(None);
        assert!(v1.contains(r#""spoken":true"#), "{v1}");
        assert!(!v1.contains("segment_id"), "{v1}");
    }

    #[test]
    fn bot_reply_mimics_a_pipecat_text_turn() {
        let types: Vec<String> = bot_reply("Hi.", false)
            .iter()
            .map(ServerMessage::type_name)
            .collect();
        assert_eq!(
            types,
            [
                "bot-llm-started",
                "bot-llm-text",
                "bot-output",
                "bot-transcription",
                "bot-llm-stopped"
            ]
        );
        let json = bot_reply("Hi.", false)[2].to_json(None);
        assert!(json.contains(r#""will_be_spoken":false"#), "{json}");
        let v1 = bot_reply("Hi.", true)[2].to_json(None);
        assert!(v1.contains(r#""spoken":false"#), "{v1}");
    }

    #[test]
    fn each_event_becomes_its_rtvi_messages() {
        let json = |event: AgentEvent, legacy: bool| -> Vec<String> {
            to_rtvi(event, legacy)
                .iter()
                .map(|m| m.to_json(None))
                .collect()
        };
        assert_eq!(
            json(AgentEvent::LlmStarted, false),
            [r#"{"label":"rtvi-ai","type":"bot-llm-started"}"#]
        );
        assert_eq!(
            json(AgentEvent::TextDelta("Hi".into()), false),
            [r#"{"label":"rtvi-ai","type":"bot-llm-text","data":{"text":"Hi"}}"#]
        );
        assert_eq!(
            json(AgentEvent::LlmStopped, false),
            [r#"{"label":"rtvi-ai","type":"bot-llm-stopped"}"#]
        );
        let spoken = json(
            AgentEvent::Spoken {
                text: "One.".into(),
                segment: 0,
            },
            false,
        );
        assert_eq!(spoken.len(), 3);
        assert!(spoken[0].contains(r#""segment_id":0"#), "{}", spoken[0]);
        assert!(spoken[1].contains("bot-transcription") && spoken[1].contains("One."));
        assert!(spoken[2].contains("bot-tts-text") && spoken[2].contains("One."));
        assert_eq!(
            to_rtvi(
                AgentEvent::Error {
                    text: "boom".into(),
                    fatal: false
                },
                false
            ),
            [ServerMessage::Error {
                error: "boom".into(),
                fatal: false
            }]
        );
    }
}
