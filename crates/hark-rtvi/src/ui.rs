//! UI channel payloads: `ui-command` payloads, `ui-job-group`
//! envelopes, `ui-event` and `ui-cancel-job-group` data.
//!
//! Command payload structs serialise **with every key present, nulls included**, like pydantic's
//! `model_dump()` that pipecat's UIWorker helpers send:
//! `{"ref":"e42","target_id":null,"behavior":null}`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::payload::Payload;

/// Bus event name under which a `ui-snapshot` is republished to workers (pipecat
/// `UI_SNAPSHOT_EVENT_NAME`). App handlers never receive it.
pub const UI_SNAPSHOT_EVENT_NAME: &str = "__ui_snapshot";
/// Bus event name under which a `ui-cancel-job-group` is republished (pipecat
/// `UI_CANCEL_JOB_GROUP_EVENT_NAME`).
pub const UI_CANCEL_JOB_GROUP_EVENT_NAME: &str = "__cancel_job_group";
/// Reason used when a `ui-cancel-job-group` carries none (pipecat's default).
pub const DEFAULT_CANCEL_REASON: &str = "cancelled by user";

/// A payload struct that is the payload of one standard UI command.
pub trait CommandPayload: Serialize {
    /// The `command` name this payload goes with (e.g. `scroll_to`).
    const COMMAND: &'static str;
}

/// `scroll_to` payload: `{ref, target_id, behavior}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ScrollTo {
    /// Snapshot ref of the element (`e42`).
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id, used when `ref` does not resolve.
    #[serde(default)]
    pub target_id: Option<String>,
    /// `smooth` (client default) or `instant`.
    #[serde(default)]
    pub behavior: Option<ScrollBehavior>,
}

/// Scroll behaviour of [`ScrollTo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScrollBehavior {
    /// Animated scroll.
    Smooth,
    /// Jump.
    Instant,
}

/// `highlight` payload: `{ref, target_id, duration_ms}` (client default 1500 ms).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Highlight {
    /// Snapshot ref of the element.
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id fallback.
    #[serde(default)]
    pub target_id: Option<String>,
    /// How long the highlight stays, milliseconds.
    #[serde(default)]
    pub duration_ms: Option<i64>,
}

/// `focus` payload: `{ref, target_id}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Focus {
    /// Snapshot ref of the element.
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id fallback.
    #[serde(default)]
    pub target_id: Option<String>,
}

/// `click` payload: `{ref, target_id}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Click {
    /// Snapshot ref of the element.
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id fallback.
    #[serde(default)]
    pub target_id: Option<String>,
}

/// `set_input_value` payload: `{value, ref, target_id, replace}`; `value` defaults to
/// `""`, `replace` to `true` (`false` appends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetInputValue {
    /// Text to write.
    #[serde(default)]
    pub value: String,
    /// Snapshot ref of the input.
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id fallback.
    #[serde(default)]
    pub target_id: Option<String>,
    /// Replace the current value (`true`) or append (`false`).
    #[serde(default = "default_true")]
    pub replace: bool,
}

impl Default for SetInputValue {
    fn default() -> Self {
        SetInputValue {
            value: String::new(),
            ref_: None,
            target_id: None,
            replace: true,
        }
    }
}

/// `select_text` payload: `{ref, target_id, start_offset, end_offset}` (end exclusive;
/// no offsets selects the whole element).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SelectText {
    /// Snapshot ref of the element.
    #[serde(rename = "ref", default)]
    pub ref_: Option<String>,
    /// DOM id fallback.
    #[serde(default)]
    pub target_id: Option<String>,
    /// First character, counted in the element's text.
    #[serde(default)]
    pub start_offset: Option<i64>,
    /// End character, exclusive.
    #[serde(default)]
    pub end_offset: Option<i64>,
}

/// `toast` payload: `{title, subtitle, description, image_url, duration_ms}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Toast {
    /// Title (required).
    pub title: String,
    /// Subtitle.
    #[serde(default)]
    pub subtitle: Option<String>,
    /// Body text.
    #[serde(default)]
    pub description: Option<String>,
    /// Image URL.
    #[serde(default)]
    pub image_url: Option<String>,
    /// Display time, milliseconds.
    #[serde(default)]
    pub duration_ms: Option<i64>,
}

/// `navigate` payload: `{view, params}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Navigate {
    /// View name (required).
    pub view: String,
    /// View parameters.
    #[serde(default)]
    pub params: Option<Map<String, Value>>,
}

fn default_true() -> bool {
    true
}

macro_rules! payload {
    ($t:ty, $name:literal) => {
        impl CommandPayload for $t {
            const COMMAND: &'static str = $name;
        }
        impl From<$t> for UiCommand {
            fn from(p: $t) -> UiCommand {
                UiCommand::from_payload(&p)
            }
        }
    };
}
payload!(ScrollTo, "scroll_to");
payload!(Highlight, "highlight");
payload!(Focus, "focus");
payload!(Click, "click");
payload!(SetInputValue, "set_input_value");
payload!(SelectText, "select_text");
payload!(Toast, "toast");
payload!(Navigate, "navigate");

/// `ui-command` data (S→C, no id): `{command: str, payload: any}`. Any app-defined
/// command name is allowed; `payload` goes out verbatim, nulls kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiCommand {
    /// Command name (`scroll_to`, `click`, … or an app's own).
    pub command: String,
    /// Free-form payload; `{}` when the command has none.
    #[serde(default = "empty_object")]
    pub payload: Value,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

fn to_value<T: Serialize>(p: &T) -> Value {
    // The payload types here serialise to JSON objects infallibly (strings, ints, bools, maps
    // with string keys); fall back to `{}` rather than panic for a foreign impl that fails.
    serde_json::to_value(p).unwrap_or_else(|_| empty_object())
}

impl UiCommand {
    /// An app-defined command with a free-form payload.
    pub fn new(command: impl Into<String>, payload: Value) -> Self {
        UiCommand {
            command: command.into(),
            payload,
        }
    }

    /// A standard command from its payload struct (all keys present, nulls kept).
    pub fn from_payload<P: CommandPayload>(payload: &P) -> Self {
        UiCommand {
            command: P::COMMAND.to_string(),
            payload: to_value(payload),
        }
    }

    /// `scroll_to` the element `ref_` (behaviour left to the client).
    pub fn scroll_to(ref_: impl Into<String>) -> Self {
        ScrollTo {
            ref_: Some(ref_.into()),
            ..Default::default()
        }
        .into()
    }

    /// `highlight` the element `ref_` (client default duration).
    pub fn highlight(ref_: impl Into<String>) -> Self {
        Highlight {
            ref_: Some(ref_.into()),
            ..Default::default()
        }
        .into()
    }

    /// `focus` the element `ref_`.
    pub fn focus(ref_: impl Into<String>) -> Self {
        Focus {
            ref_: Some(ref_.into()),
            ..Default::default()
        }
        .into()
    }

    /// `click` the element `ref_`.
    pub fn click(ref_: impl Into<String>) -> Self {
        Click {
            ref_: Some(ref_.into()),
            ..Default::default()
        }
        .into()
    }

    /// `set_input_value` of `ref_` to `value`, replacing the current value.
    pub fn set_input_value(ref_: impl Into<String>, value: impl Into<String>) -> Self {
        SetInputValue {
            value: value.into(),
            ref_: Some(ref_.into()),
            ..Default::default()
        }
        .into()
    }

    /// `select_text` in `ref_`, optionally between character offsets (end exclusive).
    pub fn select_text(
        ref_: impl Into<String>,
        start_offset: Option<i64>,
        end_offset: Option<i64>,
    ) -> Self {
        SelectText {
            ref_: Some(ref_.into()),
            target_id: None,
            start_offset,
            end_offset,
        }
        .into()
    }

    /// `toast` with a title only.
    pub fn toast(title: impl Into<String>) -> Self {
        Toast {
            title: title.into(),
            ..Default::default()
        }
        .into()
    }

    /// `navigate` to `view` with optional params.
    pub fn navigate(view: impl Into<String>, params: Option<Map<String, Value>>) -> Self {
        Navigate {
            view: view.into(),
            params,
        }
        .into()
    }
}

/// Terminal status of one worker's job in a group (pipecat `JobStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// Finished with a response.
    Completed,
    /// Cancelled (by the client or because the group was torn down).
    Cancelled,
    /// The worker reported failure.
    Failed,
    /// The worker raised an error.
    Error,
}

/// `ui-job-group` data (S→C, no id): one of four envelopes tagged by `kind`. Lifecycle:
/// `group_started → job_update* → job_completed × N → group_completed`. `at` is epoch ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobGroupEnvelope {
    /// A group was dispatched.
    GroupStarted {
        /// Group id.
        job_id: String,
        /// Worker names in dispatch order.
        #[serde(default, deserialize_with = "null_as_empty")]
        workers: Vec<String>,
        /// Human label; omitted when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Whether the client may cancel it (default true).
        #[serde(default = "default_true")]
        cancellable: bool,
        /// Epoch milliseconds.
        at: i64,
    },
    /// A worker streamed progress.
    JobUpdate {
        /// Group id.
        job_id: String,
        /// Worker that sent it.
        worker_name: String,
        /// Progress data, forwarded verbatim; omitted when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
        /// Epoch milliseconds.
        at: i64,
    },
    /// A worker finished (exactly once per worker).
    JobCompleted {
        /// Group id.
        job_id: String,
        /// Worker that finished.
        worker_name: String,
        /// How it ended.
        status: JobStatus,
        /// Response, forwarded verbatim; omitted when `None` (e.g. cancelled).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
        /// Epoch milliseconds.
        at: i64,
    },
    /// Every worker finished.
    GroupCompleted {
        /// Group id.
        job_id: String,
        /// Epoch milliseconds.
        at: i64,
    },
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(Option::<Vec<String>>::deserialize(d)?.unwrap_or_default())
}

/// `ui-event` data (C→S): `{event: str, payload?: any}`. Note the field is `event`,
/// not `name` (pipecat PR #4407's description said `name`; its code reads `event`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiEvent {
    /// App-defined event name (`note_click`).
    pub event: String,
    /// Free-form payload; omitted when `None`. Keeps its text as sent when it has an integer
    /// beyond 64 bits ([`Payload::exact_text`]), so what the model reads is what was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Payload>,
}

/// `ui-cancel-job-group` data (C→S): `{job_id: str, reason?: str}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiCancelJobGroup {
    /// Group to cancel.
    pub job_id: String,
    /// Why; [`DEFAULT_CANCEL_REASON`] applies when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl UiCancelJobGroup {
    /// The reason, or [`DEFAULT_CANCEL_REASON`] (`"cancelled by user"`).
    pub fn reason_or_default(&self) -> &str {
        self.reason.as_deref().unwrap_or(DEFAULT_CANCEL_REASON)
    }
}
