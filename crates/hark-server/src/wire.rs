//! The edge between socket bytes and typed RTVI values (hark-rtvi's codec), in one place.

use axum::body::Bytes;
use hark_rtvi::SharedSnapshot;
use hark_rtvi::audio::{AudioFrameError, AudioLimits, InputAudio, input_audio};
use hark_rtvi::frame::FrameKind;
use hark_rtvi::message::{
    BotCapabilities, ClientMessage, Inbound, ParseError, SendTextData, ServerMessage,
    parse_client_message_with,
};
use hark_rtvi::snapshot::SnapshotLimits;
use hark_rtvi::version::VersionCheck;
use tracing::{info, trace};

use crate::session::outbox::Outgoing;

/// A client input the session refuses: the text to send back, as an `error-response` when the
/// request `id` is known, else as an `error` (not fatal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) id: Option<String>,
    pub(crate) text: String,
}

/// Longest refusal text sent back, in bytes: texts that echo client input (an unknown `type`)
/// are cut here, so a 1 MiB `type` cannot make a 1 MiB answer in every outbound slot.
pub(crate) const MAX_REFUSAL_BYTES: usize = 2048;

impl Refusal {
    pub(crate) fn error(text: String) -> Self {
        Self::new(None, text)
    }

    pub(crate) fn new(id: Option<String>, text: String) -> Self {
        Self {
            id: id.map(|id| cut(id, 256)),
            text: cut(text, MAX_REFUSAL_BYTES),
        }
    }
}

/// `text` cut to at most `max` bytes on a char boundary, ending in `…` when cut.
fn cut(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    text
}

/// One binary WebSocket message, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decoded {
    /// An RTVI client message (or a transcription frame, as a `send-text`).
    Message(Inbound),
    /// A `ui-snapshot`: its request id and the snapshot, kept as the frame's slice of JSON with
    /// the tree decoded from it held until the session has given it to its handler
    /// ([`SharedSnapshot::release_tree`]).
    Snapshot {
        id: Option<String>,
        snapshot: SharedSnapshot,
    },
    /// Microphone audio: an `AudioRawFrame` checked against the audio limits.
    Audio(InputAudio),
    /// An `AudioRawFrame` that is not usable: what was wrong (the reader tells the client, at
    /// most once per repeat window: a bad stream sends dozens a second).
    BadAudio(AudioFrameError),
}

/// Decodes one binary WebSocket message into an RTVI client message or microphone audio.
///
/// A `TranscriptionFrame` with text is a user turn, as a `send-text` of that text. An
/// `AudioRawFrame` is checked ([`hark_rtvi::audio::input_audio`]: rate, channels, whole samples,
/// size); one that is not usable is [`Decoded::BadAudio`].
///
/// `Ok(None)`: a frame the session does not act on (text, interruption frames, an empty audio
/// frame, a
/// transcription with blank text; an RTVI message with another `label`, which RTVI says to
/// ignore).
/// `Err`: what to tell the client (truncated protobuf, invalid JSON, unknown type, bad data, a
/// snapshot over the limits of `limits`: nodes, depth, or bytes — the last found by reading only
/// the message's `type` and `id`, before the tree is decoded).
pub(crate) fn decode(bytes: &Bytes, limits: &DecodeLimits) -> Result<Option<Decoded>, Refusal> {
    let snapshot = &limits.snapshot;
    // The WebSocket layer already enforces the configured size limit.
    let frame = hark_rtvi::frame::decode_frame_with_limit(bytes, usize::MAX)
        .map_err(|e| Refusal::error(e.to_string()))?;
    match &frame.frame {
        Some(FrameKind::Transcription(t)) => {
            if t.text.trim().is_empty() {
                return Ok(None);
            }
            return Ok(Some(Decoded::Message(Inbound {
                id: None,
                message: ClientMessage::SendText(SendTextData {
                    content: t.text.clone(),
                    options: None,
                }),
            })));
        }
        Some(FrameKind::Audio(audio)) => {
            if audio.audio.is_empty() {
                return Ok(None);
            }
            return Ok(Some(match input_audio(audio, &limits.audio) {
                Ok(input) => Decoded::Audio(input),
                Err(e) => Decoded::BadAudio(e),
            }));
        }
        _ => {}
    }
    let Some(json) = frame.message_json() else {
        trace!("non-message frame ignored");
        return Ok(None);
    };
    if json.len() > limits.max_snapshot_bytes
        && let Some(head) = sniff(json)
        && head.label.as_deref() == Some(hark_rtvi::LABEL)
        && head.kind.as_deref() == Some("ui-snapshot")
    {
        return Err(Refusal::new(
            head.id.map(|id| id.into_owned()),
            crate::messages::snapshot_too_large(json.len(), limits.max_snapshot_bytes),
        ));
    }
    match parse_client_message_with(json, snapshot) {
        Ok(Inbound {
            id,
            message: ClientMessage::UiSnapshot(tree),
        }) => {
            let text = frame_slice(bytes, json);
            let snapshot = SharedSnapshot::from_message(text, *snapshot, tree.into());
            Ok(Some(Decoded::Snapshot { id, snapshot }))
        }
        Ok(inbound) => Ok(Some(Decoded::Message(inbound))),
        Err(ParseError::WrongLabel(label)) => {
            info!(label, "message with another label ignored");
            Ok(None)
        }
        Err(err) => Err(Refusal::new(err.id().map(str::to_owned), err.to_string())),
    }
}

/// `json` (the frame's `MessageFrame.data`) as a slice of the frame `bytes`, sharing its
/// memory: the protobuf ends with the string, so it is the frame's tail (a copy of it when some
/// other encoder put something after it).
fn frame_slice(bytes: &Bytes, json: &str) -> Bytes {
    if bytes.ends_with(json.as_bytes()) {
        bytes.slice(bytes.len() - json.len()..)
    } else {
        Bytes::copy_from_slice(json.as_bytes())
    }
}

/// What [`decode`] refuses beyond malformed input: the snapshot's node and depth limits, the
/// largest `ui-snapshot` message in bytes of JSON, and what an audio frame may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecodeLimits {
    pub(crate) snapshot: SnapshotLimits,
    pub(crate) max_snapshot_bytes: usize,
    /// What a microphone audio frame may be.
    pub(crate) audio: AudioLimits,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self {
            snapshot: SnapshotLimits::default(),
            max_snapshot_bytes: crate::config::DEFAULT_MAX_SNAPSHOT_BYTES,
            audio: AudioLimits::default(),
        }
    }
}

/// The envelope fields of an RTVI message, read without keeping anything else (serde skips the
/// other fields, `data` included, without building values).
#[derive(Debug, serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    label: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<std::borrow::Cow<'a, str>>,
}

/// `label`, `type` and `id` of `json` (`None` when it is not an object with string fields
/// there: the full parse then gives the error).
fn sniff(json: &str) -> Option<Head<'_>> {
    serde_json::from_str(json).ok()
}

/// The bytes of one binary WebSocket message for `out`.
pub(crate) fn encode(out: Outgoing) -> Vec<u8> {
    out.message.to_frame(out.id.as_deref())
}

/// `bot-ready` with `about: {library: "hark", library_version: <this crate's version>}`.
pub(crate) fn bot_ready(check: &VersionCheck, capabilities: BotCapabilities) -> ServerMessage {
    ServerMessage::bot_ready_with(check, env!("CARGO_PKG_VERSION"), capabilities)
}

pub(crate) fn error_response(text: &str) -> ServerMessage {
    ServerMessage::ErrorResponse {
        error: text.to_owned(),
    }
}

pub(crate) fn error(text: &str) -> ServerMessage {
    ServerMessage::Error {
        error: text.to_owned(),
        fatal: false,
    }
}

pub(crate) fn server_response(t: &str, d: Option<hark_rtvi::Payload>) -> ServerMessage {
    ServerMessage::ServerResponse { t: t.to_owned(), d }
}

/// One complete bot text reply without speech, the way Pipecat frames it for a text turn
/// ([`crate::agent_events::bot_reply`]):
/// `bot-llm-started`, `bot-llm-text`, `bot-output` (one sentence-aggregated segment, not to be
/// spoken), `bot-llm-stopped`. `legacy`: a protocol 1.x client (v1 `bot-output` with `spoken`).
pub(crate) fn bot_reply(line: &str, legacy: bool) -> Vec<ServerMessage> {
    crate::agent_events::bot_reply(line, legacy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hark_rtvi::frame::encode_message_json;

    fn decode_default(bytes: &[u8]) -> Result<Option<Inbound>, Refusal> {
        decode(&Bytes::copy_from_slice(bytes), &DecodeLimits::default()).map(|d| {
            d.map(|d| match d {
                Decoded::Message(m) => m,
                other => panic!("audio or a snapshot where a message was expected: {other:?}"),
            })
        })
    }

    /// A snapshot over the byte limit is refused from its envelope alone, with its id; other
    /// messages of that size, and snapshots under it, are not affected by this limit.
    #[test]
    fn an_oversize_snapshot_is_refused_before_its_tree_is_decoded() {
        let limits = DecodeLimits {
            max_snapshot_bytes: 1000,
            ..DecodeLimits::default()
        };
        // The tree is not even valid: the size check comes first.
        let big = format!(
            r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"s1","data":{{"tree":"{}"}}}}"#,
            "x".repeat(2000)
        );
        let err = decode(&Bytes::from(encode_message_json(&big)), &limits).unwrap_err();
        assert_eq!(err.id.as_deref(), Some("s1"));
        assert_eq!(
            err.text,
            crate::messages::snapshot_too_large(big.len(), 1000)
        );
        let small = r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"s2","data":{"tree":{"root":{"ref":"e1","role":"main"},"captured_at":1}}}"#;
        assert!(matches!(
            decode(&Bytes::from(encode_message_json(small)), &limits),
            Ok(Some(Decoded::Snapshot { .. }))
        ));
        let ping = format!(
            r#"{{"label":"rtvi-ai","type":"client-message","id":"c1","data":{{"t":"ping","d":"{}"}}}}"#,
            "x".repeat(2000)
        );
        assert!(matches!(
            decode(&Bytes::from(encode_message_json(&ping)), &limits),
            Ok(Some(_))
        ));
    }

    /// A snapshot is kept as the frame's own slice of JSON (no copy), and reads back the tree
    /// that arrived, with its request id.
    #[test]
    fn a_snapshot_is_kept_as_its_frames_json() {
        let json = r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"s3","data":{"tree":{"root":{"ref":"e1","role":"main","children":[{"ref":"e2","role":"button","name":"Pay"}]},"captured_at":7}}}"#;
        let frame = Bytes::from(encode_message_json(json));
        let Ok(Some(Decoded::Snapshot { id, snapshot })) = decode(&frame, &DecodeLimits::default())
        else {
            panic!("not a snapshot");
        };
        assert_eq!(id.as_deref(), Some("s3"));
        let kept = snapshot.message_json().expect("kept as text");
        assert_eq!(kept, json);
        let start = kept.as_ptr() as usize - frame.as_ptr() as usize;
        assert_eq!(
            start,
            frame.len() - json.len(),
            "a slice of the frame itself"
        );
        snapshot.release_tree();
        assert!(!snapshot.is_decoded());
        let tree = snapshot.tree();
        assert_eq!(tree.captured_at, 7);
        assert_eq!(tree.root.children[0].name.as_deref(), Some("Pay"));
    }

    /// The node-level limit is configurable (and still names the path).
    #[test]
    fn a_snapshot_deeper_than_the_limit_is_refused() {
        let limits = DecodeLimits {
            snapshot: SnapshotLimits {
                max_depth: 2,
                ..SnapshotLimits::default()
            },
            ..DecodeLimits::default()
        };
        let deep = r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"d1","data":{"tree":{"root":{"ref":"e1","role":"main","children":[{"ref":"e2","role":"list","children":[{"ref":"e3","role":"listitem"}]}]},"captured_at":1}}}"#;
        let err = decode(&Bytes::from(encode_message_json(deep)), &limits).unwrap_err();
        assert_eq!(err.id.as_deref(), Some("d1"));
        assert!(err.text.contains('2'), "{}", err.text);
        assert!(matches!(
            decode(
                &Bytes::from(encode_message_json(deep)),
                &DecodeLimits::default()
            ),
            Ok(Some(Decoded::Snapshot { .. }))
        ));
    }

    #[test]
    fn truncated_protobuf_is_refused_with_the_codec_text() {
        let bytes = encode_message_json(r#"{"label":"rtvi-ai","type":"client-ready","id":"x"}"#);
        let err = decode_default(&bytes[..bytes.len() / 2]).unwrap_err();
        assert_eq!(err.id, None);
        assert!(err.text.starts_with("Invalid frame:"), "{}", err.text);
    }

    #[test]
    fn invalid_json_inside_is_refused() {
        let err = decode_default(&encode_message_json("{not json")).unwrap_err();
        assert_eq!(err.id, None);
        // hark-rtvi owns the wording; the server passes it on as an `error` (no id known).
        assert!(
            err.text.starts_with("Invalid RTVI message:"),
            "{}",
            err.text
        );
    }

    #[test]
    fn unknown_type_is_refused_with_its_id() {
        let err = decode_default(&encode_message_json(
            r#"{"label":"rtvi-ai","type":"foo","id":"ab12cd34","data":{}}"#,
        ))
        .unwrap_err();
        assert_eq!(err.id.as_deref(), Some("ab12cd34"));
        assert_eq!(err.text, "Unsupported type foo");
    }

    #[test]
    fn refusals_echoing_huge_input_are_cut() {
        let json = format!(
            r#"{{"label":"rtvi-ai","type":"{}","id":"{}","data":{{}}}}"#,
            "é".repeat(300_000),
            "i".repeat(1000)
        );
        let err = decode_default(&encode_message_json(&json)).unwrap_err();
        assert!(err.text.len() <= MAX_REFUSAL_BYTES, "{}", err.text.len());
        assert!(err.text.starts_with("Unsupported type éé"));
        assert!(err.text.ends_with('…'));
        assert!(err.id.unwrap().len() <= 256);
        assert_eq!(cut("short".into(), 10), "short");
    }

    #[test]
    fn a_transcription_frame_is_a_user_turn() {
        let frame = hark_rtvi::frame::Frame {
            frame: Some(FrameKind::Transcription(
                hark_rtvi::frame::TranscriptionFrame {
                    id: 1,
                    name: "TranscriptionFrame".into(),
                    text: "add the blue mug".into(),
                    user_id: "u1".into(),
                    timestamp: "2026-11-30T00:00:00Z".into(),
                },
            )),
        };
        let inbound = decode_default(&frame.to_bytes())
            .unwrap()
            .expect("a user turn");
        assert_eq!(inbound.id, None);
        assert!(
            matches!(&inbound.message, ClientMessage::SendText(t) if t.content == "add the blue mug")
        );
        let blank = hark_rtvi::frame::Frame {
            frame: Some(FrameKind::Transcription(
                hark_rtvi::frame::TranscriptionFrame {
                    text: "  ".into(),
                    ..Default::default()
                },
            )),
        };
        assert_eq!(decode_default(&blank.to_bytes()), Ok(None));
    }

    #[test]
    fn other_labels_are_ignored() {
        assert_eq!(
            decode_default(&encode_message_json(
                r#"{"label":"other","type":"x","id":"1"}"#
            )),
            Ok(None)
        );
    }

    #[test]
    fn audio_frames_are_microphone_audio_checked_against_the_limits() {
        let limits = DecodeLimits::default();
        let pcm: Vec<u8> = [1i16, -2, 300]
            .iter()
            .flat_map(|s| s.to_le_bytes())
            .collect();
        let frame = hark_rtvi::frame::Frame::audio(pcm, 16_000, 1).to_bytes();
        assert_eq!(
            decode(&Bytes::from(frame), &limits),
            Ok(Some(Decoded::Audio(InputAudio {
                samples: vec![1, -2, 300],
                sample_rate: 16_000,
            })))
        );
        // An empty frame carries nothing to hear.
        let empty = hark_rtvi::frame::Frame::audio(Vec::new(), 16_000, 1).to_bytes();
        assert_eq!(decode(&Bytes::from(empty), &limits), Ok(None));
        // Each unusable frame says what was wrong.
        let bad = |frame: hark_rtvi::frame::Frame| match decode(
            &Bytes::from(frame.to_bytes()),
            &limits,
        ) {
            Ok(Some(Decoded::BadAudio(e))) => e,
            other => panic!("not refused: {other:?}"),
        };
        use hark_rtvi::frame::Frame;
        assert_eq!(
            bad(Frame::audio(vec![0; 640], 4_000, 1)),
            AudioFrameError::SampleRate {
                rate: 4_000,
                min: 8_000,
                max: 48_000
            }
        );
        assert_eq!(
            bad(Frame::audio(vec![0; 640], 16_000, 2)),
            AudioFrameError::Channels { channels: 2 }
        );
        assert_eq!(
            bad(Frame::audio(vec![0; 641], 16_000, 1)),
            AudioFrameError::OddLength { len: 641 }
        );
        assert_eq!(
            bad(Frame::audio(vec![0; 96_002], 16_000, 1)),
            AudioFrameError::TooLong {
                len: 96_002,
                max: 96_000
            }
        );
    }
}
