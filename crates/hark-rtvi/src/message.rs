//! RTVI messages: the envelope `{"label":"rtvi-ai","type":…,"id":…,"data":…}` (rtvi-ui.md §1.1),
//! typed client→server messages ([`ClientMessage`], parsed by [`parse_client_message`]) and
//! server→client messages ([`ServerMessage`], written by [`ServerMessage::to_json`]).
//!
//! Writing follows pipecat's `model_dump(exclude_none=True)`: `None` fields and an absent `id`
//! are omitted, while nulls inside free-form payloads (`ui-command.payload`, `server-message`,
//! `server-response.d`) are kept. Keys come out in pipecat's order: `label`, `type`, `id`,
//! `data`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::fields::{FieldError, Obj, kind};
use crate::frame::encode_message_json;
use crate::snapshot::A11ySnapshot;
use crate::ui::{JobGroupEnvelope, UiCancelJobGroup, UiCommand, UiEvent};
use crate::version::VersionCheck;
use crate::{LABEL, messages};

/// `about` of `bot-ready` (and what clients send in `client-ready`): `{library,
/// library_version?, platform?, platform_version?, platform_details?}`; unknown keys kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct About {
    /// Library name (`hark`, `@pipecat-ai/client-js`).
    pub library: String,
    /// Library version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    /// Platform name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// Platform version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_version: Option<String>,
    /// Free-form platform details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_details: Option<Value>,
    /// Unknown keys.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `client-ready` data: `{version: str, about: {…}}` (§1.3). Both are optional here so a
/// client without a version still gets the "Client version unknown" warning, not a refusal;
/// `about` is kept as free JSON (pipecat does not validate it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientReadyData {
    /// Client protocol version, `MAJOR.MINOR.PATCH` (see [`crate::version`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the client is (`{"library":"@pipecat-ai/client-js","library_version":"1.13.0"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<Value>,
}

/// `send-text` data: `{content: str, options?: {run_immediately?, audio_response?}}` (§1.3).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SendTextData {
    /// The user's text.
    pub content: String,
    /// Options; `{}` and absent both mean the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<SendTextOptions>,
}

/// `send-text` options (§1.3). Both default to `true`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SendTextOptions {
    /// Interrupt the bot and run the LLM now (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_immediately: Option<bool>,
    /// Speak the answer (default true); `false` skips TTS for that turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_response: Option<bool>,
}

impl SendTextData {
    /// `options.run_immediately`, default `true`.
    pub fn run_immediately(&self) -> bool {
        self.options
            .as_ref()
            .and_then(|o| o.run_immediately)
            .unwrap_or(true)
    }

    /// `options.audio_response`, default `true`.
    pub fn audio_response(&self) -> bool {
        self.options
            .as_ref()
            .and_then(|o| o.audio_response)
            .unwrap_or(true)
    }
}

/// `client-message` data: `{t: str, d?: any}` (§1.3); answered by `server-response` `{t, d}`
/// with the same id, or `error-response`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientMessageData {
    /// Message name.
    pub t: String,
    /// Free-form data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<Value>,
}

/// A typed client→server message (rtvi-ui.md §1.3, §2).
#[derive(Debug, Clone, PartialEq)]
pub enum ClientMessage {
    /// `client-ready`: start of the handshake; answer `bot-ready` with the same id.
    ClientReady(ClientReadyData),
    /// `send-text`: user text.
    SendText(SendTextData),
    /// `client-message`: an app request.
    ClientMessage(ClientMessageData),
    /// `ui-event`: `{event, payload?}`.
    UiEvent(UiEvent),
    /// `ui-snapshot`: data `{tree: A11ySnapshot}`.
    UiSnapshot(Box<A11ySnapshot>),
    /// `ui-cancel-job-group`: `{job_id, reason?}`.
    UiCancelJobGroup(UiCancelJobGroup),
    /// `disconnect-bot` (data ignored).
    DisconnectBot,
    /// `dtmf`: data as sent (`Null` when absent).
    Dtmf(Value),
    /// `llm-function-call-result`: data as sent.
    LlmFunctionCallResult(Value),
    /// `append-to-context` (deprecated): data as sent.
    AppendToContext(Value),
    /// `raw-audio`: data as sent.
    RawAudio(Value),
    /// `raw-audio-batch`: data as sent.
    RawAudioBatch(Value),
}

/// A parsed client message with the envelope's `id` (8 hex chars from client-js; `None` when
/// absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    /// Envelope `id`, to echo in `bot-ready` / `error-response` / `server-response`.
    pub id: Option<String>,
    /// The message.
    pub message: ClientMessage,
}

/// Why an inbound RTVI JSON text was not a usable client message. `Display` is the text the
/// client reads (see [`crate::messages`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not JSON, or JSON that is not an object (`detail` says which). Log and ignore.
    #[error("{}", messages::not_json(.0))]
    NotJson(String),
    /// `label` is not `rtvi-ai` (absent reads as `""`). Log and ignore (rtvi-ui.md §1.1).
    #[error("{}", messages::wrong_label(.0))]
    WrongLabel(String),
    /// A `type` this server does not handle: answer `error-response` `Unsupported type <t>`.
    #[error("{}", messages::unsupported_type(.type_))]
    UnsupportedType {
        /// Envelope id, for the `error-response`.
        id: Option<String>,
        /// The `type` received.
        type_: String,
    },
    /// A known `type` whose fields do not fit: answer `error-response`
    /// `Invalid message: <detail>`; `detail` starts with the JSON path (`data.content: missing field`).
    #[error("{}", messages::invalid_message(.detail))]
    Invalid {
        /// Envelope id, for the `error-response`.
        id: Option<String>,
        /// The `type` received (`""` when absent).
        type_: String,
        /// Path and problem.
        detail: String,
    },
}

impl ParseError {
    /// The envelope id, when one was read.
    pub fn id(&self) -> Option<&str> {
        match self {
            ParseError::UnsupportedType { id, .. } | ParseError::Invalid { id, .. } => {
                id.as_deref()
            }
            _ => None,
        }
    }

    /// The `error-response` to send for this error (`None` for [`ParseError::NotJson`] and
    /// [`ParseError::WrongLabel`], which pipecat logs and ignores). Send it with [`Self::id`].
    pub fn error_response(&self) -> Option<ServerMessage> {
        match self {
            ParseError::UnsupportedType { .. } | ParseError::Invalid { .. } => {
                Some(ServerMessage::ErrorResponse {
                    error: self.to_string(),
                })
            }
            _ => None,
        }
    }
}

/// Parses one inbound RTVI JSON text (the `data` of a `MessageFrame`).
///
/// Checks, in order: JSON object ([`ParseError::NotJson`]; also JSON nested deeper than
/// serde_json's limit of 128 levels), `label == "rtvi-ai"` ([`ParseError::WrongLabel`]), `type`
/// known ([`ParseError::UnsupportedType`]), `data` fits the type ([`ParseError::Invalid`], with the
/// JSON path). Unknown fields inside `data` are ignored (snapshots keep theirs). A `ui-event`
/// with `name` but no `event` is refused with a text saying to use `event` (case P2).
pub fn parse_client_message(json: &str) -> Result<Inbound, ParseError> {
    let mut env = envelope_object(json)?;
    let (id, type_) = envelope_id_type(&mut env)?;
    let data = env.shift_remove("data").unwrap_or(Value::Null);
    let invalid = |e: FieldError| ParseError::Invalid {
        id: id.clone(),
        type_: type_.clone(),
        detail: e.detail,
    };
    let message = match type_.as_str() {
        "client-ready" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            ClientMessage::ClientReady(ClientReadyData {
                version: o.opt_str("version").map_err(invalid)?,
                about: o.take("about"),
            })
        }
        "send-text" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            let content = o.req_str("content").map_err(invalid)?;
            let options = match o.take("options") {
                None => None,
                Some(v) => {
                    let mut opts = Obj::new(v, &o.path_of("options"), false).map_err(invalid)?;
                    Some(SendTextOptions {
                        run_immediately: opts.opt_bool("run_immediately").map_err(invalid)?,
                        audio_response: opts.opt_bool("audio_response").map_err(invalid)?,
                    })
                }
            };
            ClientMessage::SendText(SendTextData { content, options })
        }
        "client-message" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            ClientMessage::ClientMessage(ClientMessageData {
                t: o.req_str("t").map_err(invalid)?,
                d: o.take("d"),
            })
        }
        "ui-event" => {
            let event_missing = matches!(data.get("event"), None | Some(Value::Null));
            if event_missing && data.get("name").is_some() {
                return Err(ParseError::Invalid {
                    id,
                    type_,
                    detail: messages::ui_event_uses_name(),
                });
            }
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            ClientMessage::UiEvent(UiEvent {
                event: o.req_str("event").map_err(invalid)?,
                payload: o.take("payload"),
            })
        }
        "ui-snapshot" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            let tree_path = o.path_of("tree");
            let tree = o
                .take_raw("tree")
                .ok_or_else(|| invalid(FieldError::missing(tree_path.clone())))?;
            let snapshot = A11ySnapshot::from_value(tree, &tree_path).map_err(invalid)?;
            ClientMessage::UiSnapshot(Box::new(snapshot))
        }
        "ui-cancel-job-group" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            ClientMessage::UiCancelJobGroup(UiCancelJobGroup {
                job_id: o.req_str("job_id").map_err(invalid)?,
                reason: o.opt_str("reason").map_err(invalid)?,
            })
        }
        "disconnect-bot" => ClientMessage::DisconnectBot,
        "dtmf" => ClientMessage::Dtmf(data),
        "llm-function-call-result" => ClientMessage::LlmFunctionCallResult(data),
        "append-to-context" => ClientMessage::AppendToContext(data),
        "raw-audio" => ClientMessage::RawAudio(data),
        "raw-audio-batch" => ClientMessage::RawAudioBatch(data),
        _ => return Err(ParseError::UnsupportedType { id, type_ }),
    };
    Ok(Inbound { id, message })
}

/// Parses the text as a JSON object and checks its `label`.
fn envelope_object(json: &str) -> Result<Map<String, Value>, ParseError> {
    let value: Value =
        serde_json::from_str(json).map_err(|e| ParseError::NotJson(e.to_string()))?;
    let mut env = match value {
        Value::Object(map) => map,
        other => {
            return Err(ParseError::NotJson(format!("got {}", kind(&other))));
        }
    };
    match env.shift_remove("label") {
        Some(Value::String(label)) if label == LABEL => Ok(env),
        Some(Value::String(label)) => Err(ParseError::WrongLabel(label)),
        Some(other) => Err(ParseError::WrongLabel(other.to_string())),
        None => Err(ParseError::WrongLabel(String::new())),
    }
}

/// Takes `id` (string, or a number read as its decimal text) and `type` out of the envelope.
fn envelope_id_type(env: &mut Map<String, Value>) -> Result<(Option<String>, String), ParseError> {
    let id = match env.shift_remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            return Err(ParseError::Invalid {
                id: None,
                type_: type_text(env),
                detail: FieldError::wrong_type("id".into(), "a string", &other).detail,
            });
        }
    };
    match env.shift_remove("type") {
        Some(Value::String(t)) => Ok((id, t)),
        None | Some(Value::Null) => Err(ParseError::Invalid {
            id,
            type_: String::new(),
            detail: FieldError::missing("type".into()).detail,
        }),
        Some(other) => Err(ParseError::Invalid {
            id,
            type_: String::new(),
            detail: FieldError::wrong_type("type".into(), "a string", &other).detail,
        }),
    }
}

fn type_text(env: &Map<String, Value>) -> String {
    env.get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Builds the envelope JSON text in pipecat's key order; `data` omitted when `None`/null.
fn envelope_json(type_: &str, id: Option<&str>, data: Option<Value>) -> String {
    let mut env = Map::new();
    env.insert("label".into(), Value::String(LABEL.into()));
    env.insert("type".into(), Value::String(type_.into()));
    if let Some(id) = id {
        env.insert("id".into(), Value::String(id.into()));
    }
    if let Some(data) = data.filter(|d| !d.is_null()) {
        env.insert("data".into(), data);
    }
    Value::Object(env).to_string()
}

/// Serialises a value known to be representable as JSON (string keys only); `Null` otherwise.
fn json_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl ClientMessage {
    /// The wire `type` (`client-ready`, `ui-snapshot`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientMessage::ClientReady(_) => "client-ready",
            ClientMessage::SendText(_) => "send-text",
            ClientMessage::ClientMessage(_) => "client-message",
            ClientMessage::UiEvent(_) => "ui-event",
            ClientMessage::UiSnapshot(_) => "ui-snapshot",
            ClientMessage::UiCancelJobGroup(_) => "ui-cancel-job-group",
            ClientMessage::DisconnectBot => "disconnect-bot",
            ClientMessage::Dtmf(_) => "dtmf",
            ClientMessage::LlmFunctionCallResult(_) => "llm-function-call-result",
            ClientMessage::AppendToContext(_) => "append-to-context",
            ClientMessage::RawAudio(_) => "raw-audio",
            ClientMessage::RawAudioBatch(_) => "raw-audio-batch",
        }
    }

    /// The envelope JSON text, as a client sends it (for test clients and round trips).
    pub fn to_json(&self, id: Option<&str>) -> String {
        let data = match self {
            ClientMessage::ClientReady(d) => Some(json_value(d)),
            ClientMessage::SendText(d) => Some(json_value(d)),
            ClientMessage::ClientMessage(d) => Some(json_value(d)),
            ClientMessage::UiEvent(d) => Some(json_value(d)),
            ClientMessage::UiSnapshot(tree) => {
                let mut m = Map::new();
                m.insert("tree".into(), json_value(tree));
                Some(Value::Object(m))
            }
            ClientMessage::UiCancelJobGroup(d) => Some(json_value(d)),
            ClientMessage::DisconnectBot => None,
            ClientMessage::Dtmf(v)
            | ClientMessage::LlmFunctionCallResult(v)
            | ClientMessage::AppendToContext(v)
            | ClientMessage::RawAudio(v)
            | ClientMessage::RawAudioBatch(v) => Some(v.clone()),
        };
        envelope_json(self.type_name(), id, data)
    }

    /// [`Self::to_json`] wrapped in a protobuf `Frame{message}`.
    pub fn to_frame(&self, id: Option<&str>) -> Vec<u8> {
        encode_message_json(&self.to_json(id))
    }
}

/// `bot-output.spoken_status` (v2, §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpokenStatus {
    /// Not spoken yet.
    New,
    /// Being spoken.
    InProgress,
    /// Fully spoken.
    Completed,
}

/// `bot-output.spoken_progress` (v2, §1.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpokenProgress {
    /// Text spoken so far.
    pub accumulated_text: String,
    /// Text still to speak.
    pub remaining_text: String,
}

/// A server→client message (rtvi-ui.md §1.3, §2). Serde form is `{"type":…, "data":…}`
/// (adjacently tagged, kebab-case types); use [`ServerMessage::to_json`] for the wire envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "kebab-case")]
pub enum ServerMessage {
    /// `bot-ready` `{version, about?}`; send with the client-ready id. See [`Self::bot_ready`].
    BotReady {
        /// Protocol version (ours, or a legacy client's own).
        version: String,
        /// `{library, library_version}`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        about: Option<About>,
    },
    /// `error-response` `{error}`; send with the id of the request it answers.
    ErrorResponse {
        /// Error text.
        error: String,
    },
    /// `error` `{error, fatal}`, no id.
    Error {
        /// Error text.
        error: String,
        /// Whether the session ends.
        fatal: bool,
    },
    /// `server-response` `{t, d?}`; send with the `client-message` id.
    ServerResponse {
        /// Message name (the request's `t`).
        t: String,
        /// Free-form data.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        d: Option<Value>,
    },
    /// `server-message`: any JSON, handed to the client's `onServerMessage`.
    ServerMessage(Value),
    /// `bot-output` (v2 fields; v1 clients get `spoken` instead of the `will_be_spoken`/
    /// `spoken_*` fields, see [`VersionCheck::is_legacy`]).
    BotOutput {
        /// Text of the segment.
        text: String,
        /// `word`, `sentence` or another aggregator name.
        aggregated_by: String,
        /// Segment number.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        segment_id: Option<i64>,
        /// Whether TTS will speak it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        will_be_spoken: Option<bool>,
        /// `new`, `in-progress` or `completed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spoken_status: Option<SpokenStatus>,
        /// Progress within the segment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spoken_progress: Option<SpokenProgress>,
        /// v1 only: whether the text was spoken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spoken: Option<bool>,
    },
    /// `bot-llm-text` `{text}`: streamed LLM tokens.
    BotLlmText {
        /// Token text.
        text: String,
    },
    /// `bot-tts-text` `{text}`: words as spoken.
    BotTtsText {
        /// Spoken words.
        text: String,
    },
    /// `bot-llm-started` (no data).
    BotLlmStarted,
    /// `bot-llm-stopped` (no data).
    BotLlmStopped,
    /// `bot-tts-started` (no data).
    BotTtsStarted,
    /// `bot-tts-stopped` (no data).
    BotTtsStopped,
    /// `bot-started-speaking` (no data).
    BotStartedSpeaking,
    /// `bot-stopped-speaking` (no data).
    BotStoppedSpeaking,
    /// `user-started-speaking` (no data).
    UserStartedSpeaking,
    /// `user-stopped-speaking` (no data).
    UserStoppedSpeaking,
    /// `user-mute-started` (no data).
    UserMuteStarted,
    /// `user-mute-stopped` (no data).
    UserMuteStopped,
    /// `bot-interrupted` (no data).
    BotInterrupted,
    /// `user-transcription` `{text, user_id, timestamp, final}`.
    UserTranscription {
        /// Transcribed text.
        text: String,
        /// Speaker id.
        user_id: String,
        /// ISO 8601 time.
        timestamp: String,
        /// Whether this is the final transcript of the utterance.
        r#final: bool,
    },
    /// `user-llm-text` `{text}`.
    UserLlmText {
        /// Text.
        text: String,
    },
    /// `bot-transcription` `{text}`.
    BotTranscription {
        /// Text.
        text: String,
    },
    /// `metrics`: free mapping.
    Metrics(Value),
    /// `ui-command` `{command, payload}`, no id (§2, §5.1).
    UiCommand(UiCommand),
    /// `ui-job-group`, one of four envelopes by `kind`, no id (§2).
    UiJobGroup(JobGroupEnvelope),
}

impl ServerMessage {
    /// `bot-ready` for a handshake: `version` per the check ([`VersionCheck::bot_ready_version`])
    /// and `about: {"library":"hark","library_version":<library_version>}`. When the check is
    /// [`VersionCheck::Warn`], also send its warning as an `error-response` with the same id.
    pub fn bot_ready(check: &VersionCheck, library_version: &str) -> ServerMessage {
        ServerMessage::BotReady {
            version: check.bot_ready_version().to_string(),
            about: Some(About {
                library: "hark".to_string(),
                library_version: Some(library_version.to_string()),
                ..About::default()
            }),
        }
    }

    /// The wire `type` (`bot-ready`, `ui-command`, …).
    pub fn type_name(&self) -> String {
        self.type_str().to_string()
    }

    fn type_str(&self) -> &'static str {
        match self {
            ServerMessage::BotReady { .. } => "bot-ready",
            ServerMessage::ErrorResponse { .. } => "error-response",
            ServerMessage::Error { .. } => "error",
            ServerMessage::ServerResponse { .. } => "server-response",
            ServerMessage::ServerMessage(_) => "server-message",
            ServerMessage::BotOutput { .. } => "bot-output",
            ServerMessage::BotLlmText { .. } => "bot-llm-text",
            ServerMessage::BotTtsText { .. } => "bot-tts-text",
            ServerMessage::BotLlmStarted => "bot-llm-started",
            ServerMessage::BotLlmStopped => "bot-llm-stopped",
            ServerMessage::BotTtsStarted => "bot-tts-started",
            ServerMessage::BotTtsStopped => "bot-tts-stopped",
            ServerMessage::BotStartedSpeaking => "bot-started-speaking",
            ServerMessage::BotStoppedSpeaking => "bot-stopped-speaking",
            ServerMessage::UserStartedSpeaking => "user-started-speaking",
            ServerMessage::UserStoppedSpeaking => "user-stopped-speaking",
            ServerMessage::UserMuteStarted => "user-mute-started",
            ServerMessage::UserMuteStopped => "user-mute-stopped",
            ServerMessage::BotInterrupted => "bot-interrupted",
            ServerMessage::UserTranscription { .. } => "user-transcription",
            ServerMessage::UserLlmText { .. } => "user-llm-text",
            ServerMessage::BotTranscription { .. } => "bot-transcription",
            ServerMessage::Metrics(_) => "metrics",
            ServerMessage::UiCommand(_) => "ui-command",
            ServerMessage::UiJobGroup(_) => "ui-job-group",
        }
    }

    /// The envelope JSON text: `{"label":"rtvi-ai","type":…,"id"?:…,"data"?:…}`, `id` omitted
    /// when `None`, `data` omitted for types without data, `None` fields omitted, nulls inside
    /// free-form payloads kept.
    pub fn to_json(&self, id: Option<&str>) -> String {
        let mut tagged = match json_value(self) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let type_ = match tagged.shift_remove("type") {
            Some(Value::String(t)) => t,
            _ => String::new(),
        };
        envelope_json(&type_, id, tagged.shift_remove("data"))
    }

    /// [`Self::to_json`] wrapped in a protobuf `Frame{message}`: the bytes of one binary
    /// WebSocket message.
    pub fn to_frame(&self, id: Option<&str>) -> Vec<u8> {
        encode_message_json(&self.to_json(id))
    }
}

/// Parses a server→client envelope (for test clients and round trips): `(id, message)`.
///
/// Errors: [`ParseError::NotJson`], [`ParseError::WrongLabel`], [`ParseError::Invalid`] (unknown
/// `type` or fields that do not fit, with serde's detail).
pub fn parse_server_message(json: &str) -> Result<(Option<String>, ServerMessage), ParseError> {
    let mut env = envelope_object(json)?;
    let (id, type_) = envelope_id_type(&mut env)?;
    let mut tagged = Map::new();
    tagged.insert("type".into(), Value::String(type_.clone()));
    if let Some(data) = env.shift_remove("data") {
        tagged.insert("data".into(), data);
    }
    match serde_json::from_value(Value::Object(tagged)) {
        Ok(message) => Ok((id, message)),
        Err(e) => Err(ParseError::Invalid {
            id,
            type_,
            detail: e.to_string(),
        }),
    }
}
