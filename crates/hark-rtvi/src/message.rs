//! RTVI messages: the envelope `{"label":"rtvi-ai","type":…,"id":…,"data":…}`, typed
//! client→server messages ([`ClientMessage`], parsed by [`parse_client_message`]) and
//! server→client messages ([`ServerMessage`], written by [`ServerMessage::to_json`]). The user
//! guide's `docs/guide/custom-client.md` lists the messages `hark serve` reads and sends.
//!
//! Writing follows pipecat's `model_dump(exclude_none=True)`: `None` fields and an absent `id`
//! are omitted, while nulls inside free-form payloads (`ui-command.payload`, `server-message`,
//! `server-response.d`) are kept. Keys come out in pipecat's order: `label`, `type`, `id`,
//! `data`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::dtmf::DtmfData;
use crate::fields::{FieldError, Obj};
use crate::frame::encode_message_json;
use crate::payload::Payload;
use crate::snapshot::{A11ySnapshot, SnapshotLimits};
use crate::snapshot_decode::UiSnapshotDataSeed;
use crate::surrogates::replace_lone_surrogates;
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

/// `bot-ready.capabilities` (protocol 2.2.0, pipecat `pipeline/capabilities.py`): what the bot
/// does in the session. `None` means unknown (the client keeps its default), `false` that the
/// bot does not do it (the client may hide the matching UI). Keys come out in pipecat's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BotCapabilities {
    /// Whether the bot receives the user's audio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_in: Option<bool>,
    /// Whether the bot sends audio to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_out: Option<bool>,
    /// Whether the bot receives the user's video.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_in: Option<bool>,
    /// Whether the bot receives the user's screen share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_in: Option<bool>,
    /// Whether the bot sends video to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_out: Option<bool>,
    /// Whether the bot reports metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<bool>,
}

impl BotCapabilities {
    /// What a text-only Hark session does: text in and out over RTVI messages, no audio or video
    /// frames either way, no `metrics` messages. Every field is known, so each is `false`. A
    /// session with speech sets its audio fields ([`BotCapabilities::with_audio`]).
    pub const HARK: BotCapabilities = BotCapabilities {
        audio_in: Some(false),
        audio_out: Some(false),
        video_in: Some(false),
        screen_in: Some(false),
        video_out: Some(false),
        metrics: Some(false),
    };

    /// These capabilities with `audio_in` (the bot hears the microphone's audio frames) and
    /// `audio_out` (it sends its speech as audio frames) set.
    pub const fn with_audio(self, audio_in: bool, audio_out: bool) -> Self {
        BotCapabilities {
            audio_in: Some(audio_in),
            audio_out: Some(audio_out),
            ..self
        }
    }
}

/// `client-ready` data: `{version: str, about: {…}}`. Both are optional here so a
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

/// `send-text` data: `{content: str, options?: {run_immediately?, audio_response?}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SendTextData {
    /// The user's text.
    pub content: String,
    /// Options; `{}` and absent both mean the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<SendTextOptions>,
}

/// `send-text` options. Both default to `true`.
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

/// `client-message` data: `{t: str, d?: any}`; answered by `server-response` `{t, d}`
/// with the same id, or `error-response`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientMessageData {
    /// Message name.
    pub t: String,
    /// Free-form data, its numbers kept as sent ([`Payload`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<Payload>,
}

/// A typed client→server message: the basic RTVI messages and the UI channel's.
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
    /// `dtmf`: `{buttons: [key, …]}`, the keypad keys pressed.
    Dtmf(DtmfData),
    /// `llm-function-call-result`: data as sent.
    LlmFunctionCallResult(Value),
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
    /// Not valid JSON (`detail`: serde_json's words). `id` and `type_` are what a bounded scan of
    /// the top level could still read (see [`parse_client_message`]); with an `id`, answer with
    /// an `error-response` carrying it, else log (or send an `error`).
    #[error("{}", messages::not_valid_json(.detail, .id.is_some()))]
    NotJson {
        /// The message id, when the scan found one.
        id: Option<String>,
        /// The message type, when the scan found one.
        type_: Option<String>,
        /// serde_json's description, with line and column.
        detail: String,
    },
    /// Valid JSON that is not an object (the `String` is what it is: `an array`, `a string`, …).
    /// Log and ignore (pipecat does), or send an `error`.
    #[error("{}", messages::not_json_object(.0))]
    NotObject(String),
    /// `label` is not `rtvi-ai` (absent reads as `""`). Log and ignore, as pipecat does.
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
    /// The envelope id, when one was read (for [`ParseError::NotJson`], when the recovery scan
    /// found one).
    pub fn id(&self) -> Option<&str> {
        match self {
            ParseError::UnsupportedType { id, .. }
            | ParseError::Invalid { id, .. }
            | ParseError::NotJson { id, .. } => id.as_deref(),
            ParseError::NotObject(_) | ParseError::WrongLabel(_) => None,
        }
    }

    /// The `error-response` to send for this error, with [`Self::id`]: always for
    /// [`ParseError::UnsupportedType`] and [`ParseError::Invalid`], for
    /// [`ParseError::NotJson`] when its id was recovered (a request that would otherwise never
    /// be answered); `None` otherwise (no id to answer; pipecat logs and ignores these).
    pub fn error_response(&self) -> Option<ServerMessage> {
        match self {
            ParseError::UnsupportedType { .. } | ParseError::Invalid { .. } => {}
            ParseError::NotJson { id: Some(_), .. } => {}
            _ => return None,
        }
        Some(ServerMessage::ErrorResponse {
            error: self.to_string(),
        })
    }
}

/// Parses one inbound RTVI JSON text (the `data` of a `MessageFrame`) with the default
/// [`SnapshotLimits`]; see [`parse_client_message_with`].
pub fn parse_client_message(json: &str) -> Result<Inbound, ParseError> {
    parse_client_message_with(json, &SnapshotLimits::default())
}

/// Parses one inbound RTVI JSON text (the `data` of a `MessageFrame`); `ui-snapshot` trees are
/// held to `limits` (node count and depth).
///
/// First, lone UTF-16 surrogate escapes (`"\ud83d"`, from client-js cutting a name inside an
/// emoji) become U+FFFD ([`crate::replace_lone_surrogates`]); pipecat accepts them, so must we.
/// Then checks, in order:
/// - valid JSON ([`ParseError::NotJson`]; a bounded scan of the top level then recovers `id` and
///   `type` when it can: linear in the text, no recursion, no allocation beyond the two values)
///   and an object ([`ParseError::NotObject`]);
/// - `label == "rtvi-ai"` ([`ParseError::WrongLabel`]);
/// - `type` known ([`ParseError::UnsupportedType`]);
/// - `data` fits the type ([`ParseError::Invalid`], with the JSON path): missing or mistyped
///   fields, whole floats beyond `i64` in integer fields, JSON nested 128 levels deep inside `data` (serde_json's
///   limit, counted from `data`), snapshot trees deeper than `limits.max_depth` node levels or
///   with more than `limits.max_nodes` nodes.
///
/// Unknown fields inside `data` are ignored (snapshots keep theirs). A `ui-event` with `name`
/// but no `event` is refused with a text saying to use `event`. `ui-snapshot` data is
/// decoded straight from the text into the typed tree (no `serde_json::Value`), in the same pass
/// that reads the envelope when `type` comes before `data`.
pub fn parse_client_message_with(
    json: &str,
    limits: &SnapshotLimits,
) -> Result<Inbound, ParseError> {
    let json = replace_lone_surrogates(json);
    let env = read_envelope(&json, Some(limits))?;
    let (id, type_) = envelope_id_type(&env)?;
    let invalid = |e: FieldError| ParseError::Invalid {
        id: id.clone(),
        type_: type_.clone(),
        detail: e.detail,
    };
    let raw_data = match env.data {
        // Decoded in the one pass over the message (the common case for a snapshot).
        Some(Data::Snapshot(snapshot)) => {
            return Ok(Inbound {
                id,
                message: ClientMessage::UiSnapshot(snapshot),
            });
        }
        Some(Data::Raw(raw)) => Some(raw),
        None => None,
    };
    if type_ == "ui-snapshot" {
        let snapshot =
            A11ySnapshot::ui_snapshot_data(raw_data.map_or("null", RawValue::get), limits)
                .map_err(invalid)?;
        return Ok(Inbound {
            id,
            message: ClientMessage::UiSnapshot(Box::new(snapshot)),
        });
    }
    let data = data_value(raw_data).map_err(invalid)?;
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
                d: o.take("d").map(|v| exact_payload(v, raw_data, "d")),
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
                payload: o
                    .take("payload")
                    .map(|v| exact_payload(v, raw_data, "payload")),
            })
        }
        "ui-cancel-job-group" => {
            let mut o = Obj::new(data, "data", true).map_err(invalid)?;
            ClientMessage::UiCancelJobGroup(UiCancelJobGroup {
                job_id: o.req_str("job_id").map_err(invalid)?,
                reason: o.opt_str("reason").map_err(invalid)?,
            })
        }
        "disconnect-bot" => ClientMessage::DisconnectBot,
        "dtmf" => ClientMessage::Dtmf(DtmfData::from_value(data, "data").map_err(invalid)?),
        "llm-function-call-result" => ClientMessage::LlmFunctionCallResult(data),
        "raw-audio" => ClientMessage::RawAudio(data),
        "raw-audio-batch" => ClientMessage::RawAudioBatch(data),
        _ => return Err(ParseError::UnsupportedType { id, type_ }),
    };
    Ok(Inbound { id, message })
}

/// The four envelope fields as raw JSON text (borrowed from the message; other keys skipped).
/// `data` is left unparsed until the `type` says how to read it, except a `ui-snapshot`'s (see
/// [`read_envelope`]).
#[derive(Default)]
struct RawEnvelope<'a> {
    label: Option<&'a RawValue>,
    type_: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    data: Option<Data<'a>>,
}

/// The envelope's `data`: its raw text, or the snapshot already decoded from it.
enum Data<'a> {
    Raw(&'a RawValue),
    /// Only when the envelope's one `type` is exactly `"ui-snapshot"` and it came before `data`.
    Snapshot(Box<A11ySnapshot>),
}

impl<'a> Data<'a> {
    /// The raw text; `None` for a decoded snapshot (only `ui-snapshot` messages have one).
    fn raw(self) -> Option<&'a RawValue> {
        match self {
            Data::Raw(raw) => Some(raw),
            Data::Snapshot(_) => None,
        }
    }
}

/// `type` exactly as a client writes a snapshot's: the one case decoded in the envelope's pass.
const UI_SNAPSHOT_TYPE: &str = "\"ui-snapshot\"";

/// The top level of a message: an object's envelope, or the kind of the other JSON value.
enum Top<'a> {
    Object(RawEnvelope<'a>),
    Other(&'static str),
}

/// Reads the top level. With `snapshot` limits, a `data` that follows `"type":"ui-snapshot"` is
/// decoded on the spot, so the snapshot text is read once; when that fails (or a later `type`
/// key could change what `data` means) it sets `retry` and stops: [`read_envelope`] then reads
/// the message again without it, and the two-step path gives the exact error.
struct TopVisitor<'r> {
    snapshot: Option<&'r SnapshotLimits>,
    retry: &'r mut bool,
}

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = Top<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut env = RawEnvelope::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "label" => &mut env.label,
                "type" if matches!(env.data, Some(Data::Snapshot(_))) => {
                    *self.retry = true;
                    return Err(de::Error::custom("a second type after a decoded snapshot"));
                }
                "type" => &mut env.type_,
                "id" => &mut env.id,
                "data" => {
                    env.data = Some(match self.snapshot {
                        Some(limits) if env.type_.map(RawValue::get) == Some(UI_SNAPSHOT_TYPE) => {
                            let seed = UiSnapshotDataSeed { limits };
                            match map.next_value_seed(seed) {
                                Ok(snapshot) => Data::Snapshot(Box::new(snapshot)),
                                Err(e) => {
                                    *self.retry = true;
                                    return Err(e);
                                }
                            }
                        }
                        _ => Data::Raw(map.next_value::<&'de RawValue>()?),
                    });
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value::<&'de RawValue>()?);
        }
        Ok(Top::Object(env))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Top::Other("an array"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Top<'de>, E> {
        Ok(Top::Other("a string"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Top<'de>, E> {
        Ok(Top::Other("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Top<'de>, E> {
        Ok(Top::Other("a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Top<'de>, E> {
        Ok(Top::Other("a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Top<'de>, E> {
        Ok(Top::Other("a number"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Top<'de>, E> {
        Ok(Top::Other("null"))
    }
}

/// Reads the top level: valid JSON, an object, `label == "rtvi-ai"`. Values are only checked
/// for syntax here (serde_json skips them without recursion, so any depth passes this step).
///
/// With `snapshot` limits, a `ui-snapshot`'s `data` that comes after its `type` (the order of
/// client-js's messages in tests/fixtures/client_examples.jsonl) is decoded in this same pass ([`Data::Snapshot`]); anything unusual about it (a
/// refused snapshot, JSON nested near serde_json's limit, duplicate keys) reads the message
/// again without that, so results and errors are exactly those of the two-step path.
fn read_envelope<'a>(
    json: &'a str,
    snapshot: Option<&SnapshotLimits>,
) -> Result<RawEnvelope<'a>, ParseError> {
    let mut retry = false;
    let mut de = serde_json::Deserializer::from_str(json);
    let top = de
        .deserialize_any(TopVisitor {
            snapshot,
            retry: &mut retry,
        })
        .and_then(|top| de.end().map(|()| top));
    if retry {
        return read_envelope(json, None);
    }
    let env = match top {
        Ok(Top::Object(env)) => env,
        Ok(Top::Other(kind)) => return Err(ParseError::NotObject(kind.to_string())),
        Err(e) => {
            let (id, type_) = crate::recover::id_and_type(json);
            return Err(ParseError::NotJson {
                id,
                type_,
                detail: e.to_string(),
            });
        }
    };
    match env
        .label
        .map(|raw| serde_json::from_str::<Value>(raw.get()))
    {
        Some(Ok(Value::String(label))) if label == LABEL => Ok(env),
        Some(Ok(Value::String(label))) => Err(ParseError::WrongLabel(label)),
        Some(Ok(other)) => Err(ParseError::WrongLabel(other.to_string())),
        Some(Err(_)) => Err(ParseError::WrongLabel(
            env.label.map(|r| r.get().to_string()).unwrap_or_default(),
        )),
        None => Err(ParseError::WrongLabel(String::new())),
    }
}

/// `id` (a string, or a number read as the text sent) and `type` of the envelope.
fn envelope_id_type(env: &RawEnvelope<'_>) -> Result<(Option<String>, String), ParseError> {
    let type_value = env.type_.map(|raw| small_value(raw, "type"));
    let id = match env.id.map(|raw| (raw, small_value(raw, "id"))) {
        None | Some((_, Ok(Value::Null))) => None,
        Some((_, Ok(Value::String(s)))) => Some(s),
        Some((raw, Ok(Value::Number(_)))) => Some(raw.get().to_string()),
        // A number serde_json cannot hold (`1e400`) is still an id as sent.
        Some((raw, Err(_)))
            if raw
                .get()
                .starts_with(|c: char| c == '-' || c.is_ascii_digit()) =>
        {
            Some(raw.get().to_string())
        }
        Some((_, Err(e))) => {
            return Err(ParseError::Invalid {
                id: None,
                type_: type_text(&type_value),
                detail: e.detail,
            });
        }
        Some((_, Ok(other))) => {
            return Err(ParseError::Invalid {
                id: None,
                type_: type_text(&type_value),
                detail: FieldError::wrong_type("id".into(), "a string", &other).detail,
            });
        }
    };
    match type_value {
        Some(Ok(Value::String(t))) => Ok((id, t)),
        None | Some(Ok(Value::Null)) => Err(ParseError::Invalid {
            id,
            type_: String::new(),
            detail: FieldError::missing("type".into()).detail,
        }),
        Some(Ok(other)) => Err(ParseError::Invalid {
            id,
            type_: String::new(),
            detail: FieldError::wrong_type("type".into(), "a string", &other).detail,
        }),
        Some(Err(e)) => Err(ParseError::Invalid {
            id,
            type_: String::new(),
            detail: e.detail,
        }),
    }
}

fn type_text(type_value: &Option<Result<Value, FieldError>>) -> String {
    match type_value {
        Some(Ok(Value::String(t))) => t.clone(),
        _ => String::new(),
    }
}

/// An envelope field's value; serde_json's errors (nesting, `1e400`) named at `path`.
fn small_value(raw: &RawValue, path: &str) -> Result<Value, FieldError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        FieldError::with_detail(
            path.to_string(),
            messages::json_error_detail(path, &e.to_string()),
        )
    })
}

/// `data.<key>` as a [`Payload`]: `value`, with the text as sent when `data`'s text holds an
/// integer too wide for it ([`crate::payload`]).
fn exact_payload(value: Value, raw_data: Option<&RawValue>, key: &str) -> Payload {
    let exact = raw_data
        .filter(|raw| crate::payload::needs_text(raw.get()))
        .and_then(|raw| {
            serde_json::from_str::<std::collections::HashMap<Cow<'_, str>, &RawValue>>(raw.get())
                .ok()
        })
        .and_then(|fields| {
            fields
                .get(key)
                .map(|raw| Payload::from_json_text(raw.get()))
        });
    match exact {
        Some(Ok(payload)) => payload,
        _ => Payload::from(value),
    }
}

/// `data` as a `Value` (`Null` when absent); serde_json's errors named at `data`.
fn data_value(raw: Option<&RawValue>) -> Result<Value, FieldError> {
    match raw {
        None => Ok(Value::Null),
        Some(raw) => small_value(raw, "data"),
    }
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

/// `server-response` data by reference, for [`exact_envelope_json`].
#[derive(Serialize)]
struct ServerResponseData<'a> {
    t: &'a str,
    d: &'a Payload,
}

/// The envelope as [`envelope_json`] writes it (same key order), `data` serialised straight to
/// text so a [`Payload`]'s kept text goes out as it is.
fn exact_envelope_json<T: Serialize>(type_: &str, id: Option<&str>, data: &T) -> String {
    #[derive(Serialize)]
    struct Envelope<'a, T> {
        label: &'a str,
        #[serde(rename = "type")]
        type_: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
        data: &'a T,
    }
    serde_json::to_string(&Envelope {
        label: LABEL,
        type_,
        id,
        data,
    })
    .unwrap_or_default()
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
            ClientMessage::RawAudio(_) => "raw-audio",
            ClientMessage::RawAudioBatch(_) => "raw-audio-batch",
        }
    }

    /// The envelope JSON text, as a client sends it (for test clients and round trips).
    pub fn to_json(&self, id: Option<&str>) -> String {
        // A payload with kept text goes out as that text, not through a `Value`.
        match self {
            ClientMessage::ClientMessage(d)
                if d.d.as_ref().is_some_and(|p| p.exact_text().is_some()) =>
            {
                return exact_envelope_json(self.type_name(), id, d);
            }
            ClientMessage::UiEvent(d)
                if d.payload.as_ref().is_some_and(|p| p.exact_text().is_some()) =>
            {
                return exact_envelope_json(self.type_name(), id, d);
            }
            _ => {}
        }
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
            ClientMessage::Dtmf(d) => Some(json_value(d)),
            ClientMessage::LlmFunctionCallResult(v)
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

/// `bot-output.spoken_status` (protocol v2).
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

/// `bot-output.spoken_progress` (protocol v2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpokenProgress {
    /// Text spoken so far.
    pub accumulated_text: String,
    /// Text still to speak.
    pub remaining_text: String,
}

/// A server→client message: the basic RTVI messages and the UI channel's. Serde form is
/// `{"type":…, "data":…}` (adjacently tagged, kebab-case types); use [`ServerMessage::to_json`]
/// for the wire envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "kebab-case")]
pub enum ServerMessage {
    /// `bot-ready` `{version, about?, capabilities?}`; send with the client-ready id. See
    /// [`Self::bot_ready`].
    BotReady {
        /// Protocol version (ours, or a legacy client's own).
        version: String,
        /// `{library, library_version}`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        about: Option<About>,
        /// What the bot does in the session (protocol 2.2.0; absent from older servers).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capabilities: Option<BotCapabilities>,
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
        /// Free-form data (a [`Payload`] the client sent is written back with its numbers
        /// as sent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        d: Option<Payload>,
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
    /// `ui-command` `{command, payload}`, no id.
    UiCommand(UiCommand),
    /// `ui-job-group`, one of four envelopes by `kind`, no id.
    UiJobGroup(JobGroupEnvelope),
}

impl ServerMessage {
    /// `bot-ready` for a handshake: `version` per the check ([`VersionCheck::bot_ready_version`]),
    /// `about: {"library":"hark","library_version":<library_version>}` and Hark's
    /// [`BotCapabilities::HARK`] (pipecat 1.14 sends `capabilities` to every client, legacy ones
    /// included). When the check is [`VersionCheck::Warn`], also send its warning as an
    /// `error-response` with the same id.
    pub fn bot_ready(check: &VersionCheck, library_version: &str) -> ServerMessage {
        Self::bot_ready_with(check, library_version, BotCapabilities::HARK)
    }

    /// [`ServerMessage::bot_ready`] with the session's own `capabilities` (a session that hears
    /// or speaks: [`BotCapabilities::with_audio`]).
    pub fn bot_ready_with(
        check: &VersionCheck,
        library_version: &str,
        capabilities: BotCapabilities,
    ) -> ServerMessage {
        ServerMessage::BotReady {
            version: check.bot_ready_version().to_string(),
            about: Some(About {
                library: "hark".to_string(),
                library_version: Some(library_version.to_string()),
                ..About::default()
            }),
            capabilities: Some(capabilities),
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
        if let ServerMessage::ServerResponse { t, d: Some(d) } = self
            && d.exact_text().is_some()
        {
            // Not through a `Value`, which would round the payload's wide integers.
            return exact_envelope_json("server-response", id, &ServerResponseData { t, d });
        }
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
/// Lone surrogate escapes become U+FFFD first, as for [`parse_client_message`].
///
/// Errors: [`ParseError::NotJson`], [`ParseError::NotObject`], [`ParseError::WrongLabel`],
/// [`ParseError::Invalid`] (unknown `type` or fields that do not fit, with serde's detail).
pub fn parse_server_message(json: &str) -> Result<(Option<String>, ServerMessage), ParseError> {
    let json = replace_lone_surrogates(json);
    let env = read_envelope(&json, None)?;
    let (id, type_) = envelope_id_type(&env)?;
    let invalid = |detail: String| ParseError::Invalid {
        id: id.clone(),
        type_: type_.clone(),
        detail,
    };
    let mut tagged = Map::new();
    tagged.insert("type".into(), Value::String(type_.clone()));
    if let Some(raw) = env.data.and_then(Data::raw) {
        tagged.insert(
            "data".into(),
            small_value(raw, "data").map_err(|e| invalid(e.detail))?,
        );
    }
    match serde_json::from_value(Value::Object(tagged)) {
        Ok(message) => Ok((id, message)),
        Err(e) => Err(invalid(e.to_string())),
    }
}
