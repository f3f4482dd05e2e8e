//! Everything a network bus carries: the job messages ([`BusMessage`]) and pipecat's
//! lifecycle and UI messages, in pipecat-ai 1.14's JSON envelope
//! `{"__type__": "<python class>", "__data__": {fields}}`.
//!
//! | variant | pipecat class | own fields |
//! | --- | --- | --- |
//! | [`WireMessage::Job`] | the job and UI job-group classes of [`BusMessage`] | see [`crate::message`] |
//! | [`WireMessage::Registry`] | `BusWorkerRegistryMessage` | `runner`, `workers` |
//! | [`WireMessage::UiEvent`] | `BusUIEventMessage` | `event_name`, `payload` |
//! | [`WireMessage::UiCommand`] | `BusUICommandMessage` | `command_name`, `payload` |
//! | [`WireMessage::End`] / [`WireMessage::Cancel`] | `BusEndMessage` / `BusCancelMessage` | `reason?` |
//! | [`WireMessage::Activate`] / [`WireMessage::Deactivate`] | `BusActivateWorkerMessage` / `BusDeactivateWorkerMessage` | `args?` |
//!
//! [`decode`] tells a message of another class ([`Decoded::Unknown`], e.g. pipecat's bridged
//! `BusFrameMessage`) from a message that is not an envelope at all ([`DecodeError`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::BusMessage;

/// The class of the UI event that carries the page's accessibility snapshot.
pub const UI_SNAPSHOT_EVENT: &str = "__ui_snapshot";

/// The class of the UI event that cancels a job group (`{"job_id", "reason"?}`).
pub const CANCEL_JOB_GROUP_EVENT: &str = "__cancel_job_group";

/// One worker a runner hosts (pipecat `WorkerRegistryEntry`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerRegistryEntry {
    /// The worker's name, the one requesters address.
    pub name: String,
    /// The worker's parent; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Whether it takes jobs now.
    #[serde(default)]
    pub active: bool,
    /// Whether it is bridged to a pipeline.
    #[serde(default)]
    pub bridged: bool,
    /// When it started, epoch seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
}

/// A registry entry inside its own envelope, as pipecat nests dataclasses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "__type__", content = "__data__")]
pub enum RegistryEntry {
    /// The entry.
    #[serde(rename = "pipecat.registry.types.WorkerRegistryEntry")]
    Entry(WorkerRegistryEntry),
}

/// A runner announces the workers it hosts (pipecat `BusWorkerRegistryMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerRegistry {
    /// The runner's name (also the sender).
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The runner's name; unique per process.
    pub runner: String,
    /// Its workers.
    #[serde(default)]
    pub workers: Vec<RegistryEntry>,
}

impl WorkerRegistry {
    /// The names of the announced workers.
    pub fn worker_names(&self) -> impl Iterator<Item = &str> {
        self.workers
            .iter()
            .map(|RegistryEntry::Entry(e)| e.name.as_str())
    }
}

/// A client UI event on the bus (pipecat `BusUIEventMessage`); `event_name` is the app's event
/// or one of [`UI_SNAPSHOT_EVENT`] and [`CANCEL_JOB_GROUP_EVENT`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiEventMessage {
    /// Who forwarded it (the pipeline worker that owns the client).
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The event's name.
    pub event_name: String,
    /// The event's data (the snapshot tree for [`UI_SNAPSHOT_EVENT`]).
    #[serde(default)]
    pub payload: Value,
}

/// A UI command for the client (pipecat `BusUICommandMessage`): the pipeline worker that owns
/// the client sends it on as RTVI `ui-command`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiCommandMessage {
    /// The worker that sent it.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The command, e.g. `click`.
    pub command_name: String,
    /// Its arguments, e.g. `{"ref": "e2"}`.
    #[serde(default)]
    pub payload: Value,
}

/// A worker asks every runner to end or cancel (pipecat `BusEndMessage`, `BusCancelMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shutdown {
    /// Who asked.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Why; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A runner activates or deactivates one worker (pipecat `BusActivateWorkerMessage`,
/// `BusDeactivateWorkerMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activation {
    /// Who asked.
    pub source: String,
    /// The worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Activation arguments; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

/// The lifecycle and UI classes, in their envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "__type__", content = "__data__")]
enum Lifecycle {
    #[serde(rename = "pipecat.bus.messages.BusWorkerRegistryMessage")]
    Registry(WorkerRegistry),
    #[serde(rename = "pipecat.bus.ui.messages.BusUIEventMessage")]
    UiEvent(UiEventMessage),
    #[serde(rename = "pipecat.bus.ui.messages.BusUICommandMessage")]
    UiCommand(UiCommandMessage),
    #[serde(rename = "pipecat.bus.messages.BusEndMessage")]
    End(Shutdown),
    #[serde(rename = "pipecat.bus.messages.BusCancelMessage")]
    Cancel(Shutdown),
    #[serde(rename = "pipecat.bus.messages.BusActivateWorkerMessage")]
    Activate(Activation),
    #[serde(rename = "pipecat.bus.messages.BusDeactivateWorkerMessage")]
    Deactivate(Activation),
}

/// One message on a network bus.
#[derive(Debug, Clone, PartialEq)]
pub enum WireMessage {
    /// A job message or a UI job-group report.
    Job(BusMessage),
    /// A runner's registry.
    Registry(WorkerRegistry),
    /// A client UI event (snapshots, job-group cancels, app events).
    UiEvent(UiEventMessage),
    /// A UI command for the client.
    UiCommand(UiCommandMessage),
    /// Every runner ends.
    End(Shutdown),
    /// Every runner cancels.
    Cancel(Shutdown),
    /// A worker is activated.
    Activate(Activation),
    /// A worker is deactivated.
    Deactivate(Activation),
}

impl WireMessage {
    /// Who sent it.
    pub fn source(&self) -> &str {
        match self {
            WireMessage::Job(m) => m.source(),
            WireMessage::Registry(m) => &m.source,
            WireMessage::UiEvent(m) => &m.source,
            WireMessage::UiCommand(m) => &m.source,
            WireMessage::End(m) | WireMessage::Cancel(m) => &m.source,
            WireMessage::Activate(m) | WireMessage::Deactivate(m) => &m.source,
        }
    }

    /// Whom it is for (`None`: everyone).
    pub fn target(&self) -> Option<&str> {
        match self {
            WireMessage::Job(m) => m.target(),
            WireMessage::Registry(m) => m.target.as_deref(),
            WireMessage::UiEvent(m) => m.target.as_deref(),
            WireMessage::UiCommand(m) => m.target.as_deref(),
            WireMessage::End(m) | WireMessage::Cancel(m) => m.target.as_deref(),
            WireMessage::Activate(m) | WireMessage::Deactivate(m) => m.target.as_deref(),
        }
    }

    /// The compact JSON envelope pipecat's `JSONMessageSerializer` reads.
    pub fn encode(&self) -> Vec<u8> {
        let lifecycle = |m: Lifecycle| serde_json::to_vec(&m);
        let bytes = match self.clone() {
            WireMessage::Job(m) => serde_json::to_vec(&m),
            WireMessage::Registry(m) => lifecycle(Lifecycle::Registry(m)),
            WireMessage::UiEvent(m) => lifecycle(Lifecycle::UiEvent(m)),
            WireMessage::UiCommand(m) => lifecycle(Lifecycle::UiCommand(m)),
            WireMessage::End(m) => lifecycle(Lifecycle::End(m)),
            WireMessage::Cancel(m) => lifecycle(Lifecycle::Cancel(m)),
            WireMessage::Activate(m) => lifecycle(Lifecycle::Activate(m)),
            WireMessage::Deactivate(m) => lifecycle(Lifecycle::Deactivate(m)),
        };
        // Plain structs of strings, numbers and JSON values always serialise.
        bytes.unwrap_or_default()
    }
}

impl From<BusMessage> for WireMessage {
    fn from(m: BusMessage) -> Self {
        WireMessage::Job(m)
    }
}

/// What [`decode`] made of one message.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A message of a class Hark reads.
    Message(WireMessage),
    /// A well-formed envelope of another class (its `__type__`), to be ignored.
    Unknown(String),
}

/// A message that is not a pipecat envelope, or a known class with fields that do not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "__type__")]
    ty: String,
}

/// Decodes one envelope.
///
/// # Errors
/// [`DecodeError`] when the bytes are not a JSON object with a string `__type__`, or when a
/// class Hark reads has fields of the wrong shape.
pub fn decode(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let job_error = match serde_json::from_slice::<BusMessage>(bytes) {
        Ok(m) => return Ok(Decoded::Message(WireMessage::Job(m))),
        Err(e) => e,
    };
    let lifecycle_error = match serde_json::from_slice::<Lifecycle>(bytes) {
        Ok(m) => {
            return Ok(Decoded::Message(match m {
                Lifecycle::Registry(m) => WireMessage::Registry(m),
                Lifecycle::UiEvent(m) => WireMessage::UiEvent(m),
                Lifecycle::UiCommand(m) => WireMessage::UiCommand(m),
                Lifecycle::End(m) => WireMessage::End(m),
                Lifecycle::Cancel(m) => WireMessage::Cancel(m),
                Lifecycle::Activate(m) => WireMessage::Activate(m),
                Lifecycle::Deactivate(m) => WireMessage::Deactivate(m),
            }));
        }
        Err(e) => e,
    };
    let head: Head = serde_json::from_slice(bytes)
        .map_err(|e| DecodeError(crate::messages::not_an_envelope(&e.to_string())))?;
    if is_known_class(&head.ty) {
        let error = if head.ty.starts_with("pipecat.bus.messages.BusJob")
            || head.ty.starts_with("pipecat.bus.ui.messages.BusUIJob")
        {
            job_error
        } else {
            lifecycle_error
        };
        return Err(DecodeError(crate::messages::bad_fields(
            &head.ty,
            &error.to_string(),
        )));
    }
    Ok(Decoded::Unknown(head.ty))
}

/// Whether Hark reads messages of class `ty`.
fn is_known_class(ty: &str) -> bool {
    const KNOWN: &[&str] = &[
        "pipecat.bus.messages.BusJobRequestMessage",
        "pipecat.bus.messages.BusJobUpdateMessage",
        "pipecat.bus.messages.BusJobUpdateRequestMessage",
        "pipecat.bus.messages.BusJobResponseMessage",
        "pipecat.bus.messages.BusJobCancelMessage",
        "pipecat.bus.messages.BusJobStreamStartMessage",
        "pipecat.bus.messages.BusJobStreamDataMessage",
        "pipecat.bus.messages.BusJobStreamEndMessage",
        "pipecat.bus.ui.messages.BusUIJobGroupStartedMessage",
        "pipecat.bus.ui.messages.BusUIJobUpdateMessage",
        "pipecat.bus.ui.messages.BusUIJobCompletedMessage",
        "pipecat.bus.ui.messages.BusUIJobGroupCompletedMessage",
        "pipecat.bus.messages.BusWorkerRegistryMessage",
        "pipecat.bus.ui.messages.BusUIEventMessage",
        "pipecat.bus.ui.messages.BusUICommandMessage",
        "pipecat.bus.messages.BusEndMessage",
        "pipecat.bus.messages.BusCancelMessage",
        "pipecat.bus.messages.BusActivateWorkerMessage",
        "pipecat.bus.messages.BusDeactivateWorkerMessage",
    ];
    KNOWN.contains(&ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pipecat_registry_decodes_and_encodes_back() {
        let text = r#"{"__type__":"pipecat.bus.messages.BusWorkerRegistryMessage","__data__":{"id":8,"name":"BusWorkerRegistryMessage#0","source":"runner-rust","runner":"runner-rust","workers":[{"__type__":"pipecat.registry.types.WorkerRegistryEntry","__data__":{"name":"ui","active":true,"bridged":false,"started_at":1764455000.5}}]}}"#;
        let Decoded::Message(WireMessage::Registry(r)) = decode(text.as_bytes()).unwrap() else {
            panic!("a registry")
        };
        assert_eq!(r.worker_names().collect::<Vec<_>>(), ["ui"]);
        let back: Value = serde_json::from_slice(&WireMessage::Registry(r).encode()).unwrap();
        let mut expected: Value = serde_json::from_str(text).unwrap();
        expected["__data__"].as_object_mut().unwrap().remove("id");
        expected["__data__"].as_object_mut().unwrap().remove("name");
        assert_eq!(back, expected);
    }

    #[test]
    fn ui_command_encodes_as_pipecat() {
        let m = WireMessage::UiCommand(UiCommandMessage {
            source: "ui".into(),
            target: None,
            command_name: "click".into(),
            payload: json!({"ref": "e2"}),
        });
        assert_eq!(
            String::from_utf8(m.encode()).unwrap(),
            r#"{"__type__":"pipecat.bus.ui.messages.BusUICommandMessage","__data__":{"source":"ui","command_name":"click","payload":{"ref":"e2"}}}"#
        );
    }

    #[test]
    fn other_classes_are_unknown_and_garbage_is_an_error() {
        assert_eq!(
            decode(br#"{"__type__":"hark.Foo","__data__":{}}"#).unwrap(),
            Decoded::Unknown("hark.Foo".into())
        );
        let err = decode(b"not json").unwrap_err();
        assert!(err.0.starts_with("not a pipecat bus envelope"), "{err}");
        let err = decode(
            br#"{"__type__":"pipecat.bus.messages.BusJobRequestMessage","__data__":{"source":1}}"#,
        )
        .unwrap_err();
        assert!(
            err.0.starts_with(
                "a pipecat.bus.messages.BusJobRequestMessage with fields that do not fit"
            ),
            "{err}"
        );
    }
}
