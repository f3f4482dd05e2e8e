//! # hark-rtvi
//!
//! The RTVI protocol as spoken by Pipecat's JS client (`@pipecat-ai/client-js` with
//! `@pipecat-ai/websocket-transport`): message types, accessibility snapshot types, UI command
//! payloads, version rules and the `pipecat.Frame` protobuf codec. No I/O; the server lives in
//! `hark-server`.
//!
//! - [`frame`]: binary WebSocket frames (`pipecat.Frame`), RTVI JSON inside `MessageFrame.data`.
//! - [`audio`]: audio frames: microphone audio in ([`input_audio`], [`AudioLimits`]), bot audio
//!   out in frames of whole samples ([`AudioFramer`]).
//! - [`message`]: [`parse_client_message`] → [`Inbound`] (or [`parse_client_message_with`] and
//!   [`SnapshotLimits`]); [`ServerMessage::to_json`] / [`ServerMessage::to_frame`]. Every inbound
//!   text first has its lone UTF-16 surrogate escapes replaced by U+FFFD
//!   ([`replace_lone_surrogates`]), as client-js can split an emoji when it cuts a name.
//! - [`snapshot`]: `A11yNode` / `A11ySelection` / `A11ySnapshot` (`ui-snapshot`), decoded
//!   straight from the text under a node-count and depth limit;
//!   [`A11ySnapshot::duplicate_refs`] for logging.
//! - [`ui`]: `ui-command` payloads, `ui-job-group` envelopes, `ui-event`, `ui-cancel-job-group`.
//! - [`version`]: the handshake's version rules.
//! - [`messages`]: every text a client reads.
//!
//! ## Example: the handshake
//!
//! ```
//! use hark_rtvi::{ClientMessage, ServerMessage, check_client_version, decode_frame,
//!                 encode_message_json, parse_client_message};
//!
//! // What client-js sends once the transport is ready (a binary WebSocket message).
//! let bytes = encode_message_json(
//!     r#"{"label":"rtvi-ai","type":"client-ready","id":"a1b2c3d4",
//!         "data":{"version":"2.1.0","about":{"library":"@pipecat-ai/client-js"}}}"#,
//! );
//! let frame = decode_frame(&bytes)?;
//! let inbound = parse_client_message(frame.message_json().unwrap())?;
//! let ClientMessage::ClientReady(ready) = &inbound.message else { unreachable!() };
//!
//! let check = check_client_version(ready.version.as_deref());
//! assert_eq!(check.warning(), None);
//! let reply = ServerMessage::bot_ready(&check, "0.1.0");
//! assert_eq!(
//!     reply.to_json(inbound.id.as_deref()),
//!     r#"{"label":"rtvi-ai","type":"bot-ready","id":"a1b2c3d4","data":{"version":"2.2.0","about":{"library":"hark","library_version":"0.1.0"},"capabilities":{"audio_in":false,"audio_out":false,"video_in":false,"screen_in":false,"video_out":false,"metrics":false}}}"#
//! );
//! let _binary_ws_message: Vec<u8> = reply.to_frame(inbound.id.as_deref());
//!
//! // Errors carry the text to send back in an `error-response`.
//! let err = parse_client_message(r#"{"label":"rtvi-ai","type":"send-text","id":"x","data":{}}"#)
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "Invalid message: data.content: missing field");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod audio;
pub mod dtmf;
mod fields;
pub mod frame;
mod lax_int;
pub mod message;
pub mod messages;
pub mod payload;
mod recover;
pub mod shared_snapshot;
pub mod snapshot;
mod snapshot_decode;
mod surrogates;
pub mod ui;
pub mod version;

pub use audio::{
    AudioFrameError, AudioFramer, AudioLimits, AudioPace, InputAudio, MAX_AUDIO_AHEAD,
    encode_audio, input_audio,
};
/// The text type of a node's `ref_`, `role` and `name`: a string kept inline (no allocation)
/// up to 24 bytes, which most refs, roles and names are; it derefs to `str`.
pub use compact_str::CompactString;
pub use dtmf::DtmfData;
pub use fields::FieldError;
pub use frame::{Frame, FrameError, FrameKind, decode_frame, encode_message_json};
pub use message::{
    About, BotCapabilities, ClientMessage, ClientMessageData, ClientReadyData, Inbound, ParseError,
    SendTextData, SendTextOptions, ServerMessage, parse_client_message, parse_client_message_with,
    parse_server_message,
};
pub use payload::Payload;
pub use shared_snapshot::SharedSnapshot;
pub use snapshot::{A11yNode, A11ySelection, A11ySnapshot, NodeRare, SnapshotLimits, WideInts};
pub use surrogates::replace_lone_surrogates;
pub use ui::{JobGroupEnvelope, JobStatus, UiCancelJobGroup, UiCommand, UiEvent};
pub use version::{VersionCheck, check_client_version};

/// RTVI protocol version this crate speaks: pipecat-ai 1.14.0's (`2.2.0`, which added
/// `bot-ready.capabilities`; client-js 1.13 says `2.1.0`, the same major).
pub const PROTOCOL_VERSION: &str = "2.2.0";

/// The `label` of every RTVI message.
pub const LABEL: &str = "rtvi-ai";
