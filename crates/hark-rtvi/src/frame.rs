//! The `pipecat.Frame` protobuf used by `@pipecat-ai/websocket-transport`.
//!
//! Every WebSocket message is one **binary** `pipecat.Frame`:
//!
//! ```proto
//! message Frame { oneof frame {
//!   TextFrame text = 1; AudioRawFrame audio = 2; TranscriptionFrame transcription = 3;
//!   MessageFrame message = 4; InterruptionFrame interruption = 5; } }
//! ```
//!
//! RTVI messages travel as JSON text in `MessageFrame.data` (field 1) in both directions. The
//! structs are written by hand with `prost` derives (no protoc, no build script).

use prost::Message as _;

use crate::messages;

/// Largest frame [`decode_frame`] accepts, in bytes (1 MiB).
///
/// Real frames are far smaller: 20 ms of 16 kHz mono PCM16 audio is 640 bytes, and a client
/// snapshot is capped at 200 nodes. The server should also cap the WebSocket message size.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// `pipecat.Frame`: exactly one of the [`FrameKind`]s.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Frame {
    /// The oneof `frame`; `None` for a frame with no kind set (refused by [`decode_frame`]).
    #[prost(oneof = "FrameKind", tags = "1, 2, 3, 4, 5")]
    pub frame: Option<FrameKind>,
}

/// The `frame` oneof of `pipecat.Frame`, with its field numbers.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum FrameKind {
    /// `text = 1`.
    #[prost(message, tag = "1")]
    Text(TextFrame),
    /// `audio = 2`.
    #[prost(message, tag = "2")]
    Audio(AudioRawFrame),
    /// `transcription = 3`.
    #[prost(message, tag = "3")]
    Transcription(TranscriptionFrame),
    /// `message = 4`: an RTVI message as JSON text.
    #[prost(message, tag = "4")]
    Message(MessageFrame),
    /// `interruption = 5` (server proto only).
    #[prost(message, tag = "5")]
    Interruption(InterruptionFrame),
}

/// `TextFrame {uint64 id = 1; string name = 2; string text = 3}`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TextFrame {
    /// Frame id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Frame name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Text.
    #[prost(string, tag = "3")]
    pub text: String,
}

/// `AudioRawFrame {uint64 id = 1; string name = 2; bytes audio = 3; uint32 sample_rate = 4;
/// uint32 num_channels = 5; optional uint64 pts = 6}`. Audio is little-endian PCM16; the client
/// records at 16 000 Hz mono and plays at 24 000 Hz by default.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AudioRawFrame {
    /// Frame id (the client sends 0).
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Frame name (the client sends `audio`).
    #[prost(string, tag = "2")]
    pub name: String,
    /// PCM16 little-endian samples.
    #[prost(bytes = "vec", tag = "3")]
    pub audio: Vec<u8>,
    /// Samples per second.
    #[prost(uint32, tag = "4")]
    pub sample_rate: u32,
    /// Channel count.
    #[prost(uint32, tag = "5")]
    pub num_channels: u32,
    /// Presentation timestamp.
    #[prost(uint64, optional, tag = "6")]
    pub pts: Option<u64>,
}

/// `TranscriptionFrame {uint64 id = 1; string name = 2; string text = 3; string user_id = 4;
/// string timestamp = 5}`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TranscriptionFrame {
    /// Frame id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Frame name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Transcribed text.
    #[prost(string, tag = "3")]
    pub text: String,
    /// Speaker id.
    #[prost(string, tag = "4")]
    pub user_id: String,
    /// ISO 8601 time.
    #[prost(string, tag = "5")]
    pub timestamp: String,
}

/// `MessageFrame {string data = 1}`: one RTVI message as JSON text.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MessageFrame {
    /// The RTVI message JSON.
    #[prost(string, tag = "1")]
    pub data: String,
}

/// `InterruptionFrame {uint64 id = 1; string name = 2}`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InterruptionFrame {
    /// Frame id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Frame name.
    #[prost(string, tag = "2")]
    pub name: String,
}

/// Why bytes are not a usable `pipecat.Frame`. `Display` is a client-readable sentence
/// (texts in [`crate::messages`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Truncated or corrupt protobuf, or a `string` field that is not UTF-8; `detail` is prost's.
    #[error("{}", messages::frame_invalid(.detail))]
    Invalid {
        /// prost's description of the decoding failure.
        detail: String,
    },
    /// Well-formed protobuf with no `frame` oneof field set (also: empty input).
    #[error("{}", messages::frame_empty())]
    NoFrameKind,
    /// More than the byte limit ([`MAX_FRAME_BYTES`] for [`decode_frame`]).
    #[error("{}", messages::frame_too_large(*.len, *.max))]
    TooLarge {
        /// Size received, bytes.
        len: usize,
        /// Limit, bytes.
        max: usize,
    },
}

impl Frame {
    /// A `message` frame carrying RTVI JSON text.
    pub fn message(json: impl Into<String>) -> Frame {
        Frame {
            frame: Some(FrameKind::Message(MessageFrame { data: json.into() })),
        }
    }

    /// An `audio` frame (`id` 0, `name` "audio") with PCM16 little-endian bytes.
    pub fn audio(pcm16: Vec<u8>, sample_rate: u32, num_channels: u32) -> Frame {
        Frame {
            frame: Some(FrameKind::Audio(AudioRawFrame {
                id: 0,
                name: "audio".to_string(),
                audio: pcm16,
                sample_rate,
                num_channels,
                pts: None,
            })),
        }
    }

    /// The RTVI JSON text if this is a `message` frame.
    pub fn message_json(&self) -> Option<&str> {
        match &self.frame {
            Some(FrameKind::Message(m)) => Some(&m.data),
            _ => None,
        }
    }

    /// Protobuf bytes of this frame (send as a binary WebSocket message).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode_to_vec()
    }
}

/// Wraps RTVI JSON text in `Frame{message: MessageFrame{data: json}}` and encodes it.
pub fn encode_message_json(json: &str) -> Vec<u8> {
    Frame::message(json).encode_to_vec()
}

/// Decodes one binary WebSocket message as a `pipecat.Frame`, refusing more than
/// [`MAX_FRAME_BYTES`].
///
/// Errors: [`FrameError::TooLarge`], [`FrameError::Invalid`] (truncated/corrupt protobuf,
/// non-UTF-8 text), [`FrameError::NoFrameKind`] (no oneof set). Never panics.
pub fn decode_frame(bytes: &[u8]) -> Result<Frame, FrameError> {
    decode_frame_with_limit(bytes, MAX_FRAME_BYTES)
}

/// [`decode_frame`] with an explicit byte limit `max_bytes`.
pub fn decode_frame_with_limit(bytes: &[u8], max_bytes: usize) -> Result<Frame, FrameError> {
    if bytes.len() > max_bytes {
        return Err(FrameError::TooLarge {
            len: bytes.len(),
            max: max_bytes,
        });
    }
    let frame = Frame::decode(bytes).map_err(|e| FrameError::Invalid {
        detail: e.to_string(),
    })?;
    if frame.frame.is_none() {
        return Err(FrameError::NoFrameKind);
    }
    Ok(frame)
}
