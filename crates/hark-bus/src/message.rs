//! The messages between a requester and its workers, as plain serialisable values.
//!
//! Every message names its job (`job_id`), who sent it (`source`) and who it is for (`target`),
//! so the same values can travel between processes. Their shapes are those of pipecat-ai
//! 1.14's bus messages (`pipecat.bus.messages`, `pipecat.bus.ui.messages`): field names as
//! pipecat's, `None` fields left out, a job's status the plain strings `completed`,
//! `cancelled`, `failed` and `error`. A [`BusMessage`] serialises as pipecat's JSON envelope,
//! `{"__type__": "pipecat.bus.messages.BusJobRequestMessage", "__data__": {…}}`, so a network
//! transport (Redis) carries it as it is; pipecat's per-process `id` and `name` counters are
//! not part of a message (a decoder ignores them).
//!
//! | variant | pipecat class | own fields |
//! | --- | --- | --- |
//! | [`BusMessage::JobRequest`] | `BusJobRequestMessage` | `job_id`, `job_name`, `payload?` |
//! | [`BusMessage::JobUpdate`] | `BusJobUpdateMessage` | `job_id`, `update?` |
//! | [`BusMessage::JobUpdateRequest`] | `BusJobUpdateRequestMessage` | `job_id` |
//! | [`BusMessage::JobResult`] | `BusJobResponseMessage` | `job_id`, `status`, `response?` |
//! | [`BusMessage::JobCancel`] | `BusJobCancelMessage` | `job_id`, `reason?` |
//! | [`BusMessage::JobStreamStart`], [`BusMessage::JobStreamData`], [`BusMessage::JobStreamEnd`] | `BusJobStream{Start,Data,End}Message` | `job_id`, `data?` |
//! | [`BusMessage::UiJobGroupStarted`] | `BusUIJobGroupStartedMessage` | `job_id`, `workers`, `label?`, `cancellable`, `at` |
//! | [`BusMessage::UiJobUpdate`] | `BusUIJobUpdateMessage` | `job_id`, `worker_name`, `data?`, `at` |
//! | [`BusMessage::UiJobCompleted`] | `BusUIJobCompletedMessage` | `job_id`, `worker_name`, `status`, `response?`, `at` |
//! | [`BusMessage::UiJobGroupCompleted`] | `BusUIJobGroupCompletedMessage` | `job_id`, `at` |
//!
//! The UI job-group messages carry what a job group reports to the client (`ui-job-group`);
//! [`BusMessage::job_group`] and [`BusMessage::job_group_envelope`] convert between the two.

use hark_rtvi::{JobGroupEnvelope, JobStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::job::JobResponse;

/// A job sent to a worker (pipecat `BusJobRequestMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRequest {
    /// Who asked: the requester's name (the answer goes back to it).
    pub source: String,
    /// The worker's name.
    pub target: String,
    /// The job's id. All jobs of one group share the group's id.
    pub job_id: String,
    /// The job's name, e.g. `respond` or `screen` (pipecat `job_name`).
    #[serde(rename = "job_name")]
    pub name: String,
    /// The job's input, e.g. `{"query": "is gift wrap on?"}`; `null` when none (left out).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub payload: Value,
}

impl JobRequest {
    /// A job `name` with `payload` from `source` to `target`, with id `job_id`.
    pub fn new(
        job_id: impl Into<String>,
        source: impl Into<String>,
        target: impl Into<String>,
        name: impl Into<String>,
        payload: Value,
    ) -> Self {
        JobRequest {
            job_id: job_id.into(),
            source: source.into(),
            target: target.into(),
            name: name.into(),
            payload,
        }
    }
}

/// One progress update of a running job, from the worker (`source`) to the requester
/// (`target`) (pipecat `BusJobUpdateMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobUpdate {
    /// The worker's name.
    pub source: String,
    /// The requester's name.
    pub target: String,
    /// The job's id.
    pub job_id: String,
    /// The progress data (pipecat `update`), forwarded verbatim to the client as
    /// `job_update.data`; `null` when none (left out).
    #[serde(rename = "update", default, skip_serializing_if = "Value::is_null")]
    pub data: Value,
}

/// A requester asks a worker how its job is going (pipecat `BusJobUpdateRequestMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobUpdateRequest {
    /// The requester's name.
    pub source: String,
    /// The worker's name.
    pub target: String,
    /// The job's id.
    pub job_id: String,
}

/// A worker's final answer to one job, from the worker (`source`) to the requester
/// (`target`) (pipecat `BusJobResponseMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// The worker's name.
    pub source: String,
    /// The requester's name.
    pub target: String,
    /// The job's id.
    pub job_id: String,
    /// How the job ended.
    pub status: JobStatus,
    /// The answer; left out when the job completed with none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
}

impl JobResult {
    /// The answer as a [`JobResponse`].
    pub fn response(&self) -> JobResponse {
        JobResponse {
            status: self.status,
            response: self.response.clone(),
        }
    }
}

/// A requester cancels a worker's job (pipecat `BusJobCancelMessage`). A worker that no
/// longer runs the job ignores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobCancel {
    /// The requester's name.
    pub source: String,
    /// The worker's name.
    pub target: String,
    /// The job's id.
    pub job_id: String,
    /// Why, e.g. `timeout`; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One message of a streamed job, from the worker (`source`) to the requester (`target`)
/// (pipecat `BusJobStreamStartMessage`, `BusJobStreamDataMessage`, `BusJobStreamEndMessage`:
/// the end also ends the job).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobStream {
    /// The worker's name.
    pub source: String,
    /// The requester's name.
    pub target: String,
    /// The job's id.
    pub job_id: String,
    /// The data; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A job group was dispatched (pipecat `BusUIJobGroupStartedMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiJobGroupStarted {
    /// The requester that dispatched the group.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The group's id.
    pub job_id: String,
    /// Worker names in dispatch order.
    #[serde(default)]
    pub workers: Vec<String>,
    /// The client card's title; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Whether the client may cancel it.
    pub cancellable: bool,
    /// Epoch milliseconds.
    pub at: i64,
}

/// A worker of a group sent progress (pipecat `BusUIJobUpdateMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiJobUpdate {
    /// The requester that dispatched the group.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The group's id.
    pub job_id: String,
    /// The worker that sent it.
    pub worker_name: String,
    /// The progress data; left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Epoch milliseconds.
    pub at: i64,
}

/// A worker of a group finished, exactly once per worker (pipecat
/// `BusUIJobCompletedMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiJobCompleted {
    /// The requester that dispatched the group.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The group's id.
    pub job_id: String,
    /// The worker that finished.
    pub worker_name: String,
    /// How it ended.
    pub status: JobStatus,
    /// Its response; left out when none (e.g. cancelled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// Epoch milliseconds.
    pub at: i64,
}

/// Every worker of a group finished (pipecat `BusUIJobGroupCompletedMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiJobGroupCompleted {
    /// The requester that dispatched the group.
    pub source: String,
    /// Whom it is for; left out for everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The group's id.
    pub job_id: String,
    /// Epoch milliseconds.
    pub at: i64,
}

/// Every message that travels on the bus, serialised as pipecat's envelope `{"__type__":
/// "<pipecat class>", "__data__": {fields}}` (see the module docs for the classes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "__type__", content = "__data__")]
pub enum BusMessage {
    /// A job for a worker.
    #[serde(rename = "pipecat.bus.messages.BusJobRequestMessage")]
    JobRequest(JobRequest),
    /// Progress from a worker.
    #[serde(rename = "pipecat.bus.messages.BusJobUpdateMessage")]
    JobUpdate(JobUpdate),
    /// A requester asks for progress.
    #[serde(rename = "pipecat.bus.messages.BusJobUpdateRequestMessage")]
    JobUpdateRequest(JobUpdateRequest),
    /// A worker's final answer.
    #[serde(rename = "pipecat.bus.messages.BusJobResponseMessage")]
    JobResult(JobResult),
    /// A requester cancels a job.
    #[serde(rename = "pipecat.bus.messages.BusJobCancelMessage")]
    JobCancel(JobCancel),
    /// A worker starts streaming its results.
    #[serde(rename = "pipecat.bus.messages.BusJobStreamStartMessage")]
    JobStreamStart(JobStream),
    /// One streamed result.
    #[serde(rename = "pipecat.bus.messages.BusJobStreamDataMessage")]
    JobStreamData(JobStream),
    /// A worker that streamed its results ended its stream: the job completed.
    #[serde(rename = "pipecat.bus.messages.BusJobStreamEndMessage")]
    JobStreamEnd(JobStream),
    /// A job group was dispatched.
    #[serde(rename = "pipecat.bus.ui.messages.BusUIJobGroupStartedMessage")]
    UiJobGroupStarted(UiJobGroupStarted),
    /// A worker of a group sent progress.
    #[serde(rename = "pipecat.bus.ui.messages.BusUIJobUpdateMessage")]
    UiJobUpdate(UiJobUpdate),
    /// A worker of a group finished.
    #[serde(rename = "pipecat.bus.ui.messages.BusUIJobCompletedMessage")]
    UiJobCompleted(UiJobCompleted),
    /// Every worker of a group finished.
    #[serde(rename = "pipecat.bus.ui.messages.BusUIJobGroupCompletedMessage")]
    UiJobGroupCompleted(UiJobGroupCompleted),
}

impl BusMessage {
    /// The job (or group) id the message is about.
    pub fn job_id(&self) -> &str {
        match self {
            BusMessage::JobRequest(m) => &m.job_id,
            BusMessage::JobUpdate(m) => &m.job_id,
            BusMessage::JobUpdateRequest(m) => &m.job_id,
            BusMessage::JobResult(m) => &m.job_id,
            BusMessage::JobCancel(m) => &m.job_id,
            BusMessage::JobStreamStart(m)
            | BusMessage::JobStreamData(m)
            | BusMessage::JobStreamEnd(m) => &m.job_id,
            BusMessage::UiJobGroupStarted(m) => &m.job_id,
            BusMessage::UiJobUpdate(m) => &m.job_id,
            BusMessage::UiJobCompleted(m) => &m.job_id,
            BusMessage::UiJobGroupCompleted(m) => &m.job_id,
        }
    }

    /// Who sent the message.
    pub fn source(&self) -> &str {
        match self {
            BusMessage::JobRequest(m) => &m.source,
            BusMessage::JobUpdate(m) => &m.source,
            BusMessage::JobUpdateRequest(m) => &m.source,
            BusMessage::JobResult(m) => &m.source,
            BusMessage::JobCancel(m) => &m.source,
            BusMessage::JobStreamStart(m)
            | BusMessage::JobStreamData(m)
            | BusMessage::JobStreamEnd(m) => &m.source,
            BusMessage::UiJobGroupStarted(m) => &m.source,
            BusMessage::UiJobUpdate(m) => &m.source,
            BusMessage::UiJobCompleted(m) => &m.source,
            BusMessage::UiJobGroupCompleted(m) => &m.source,
        }
    }

    /// Whom the message is for (`None`: everyone, only a UI job-group message).
    pub fn target(&self) -> Option<&str> {
        match self {
            BusMessage::JobRequest(m) => Some(&m.target),
            BusMessage::JobUpdate(m) => Some(&m.target),
            BusMessage::JobUpdateRequest(m) => Some(&m.target),
            BusMessage::JobResult(m) => Some(&m.target),
            BusMessage::JobCancel(m) => Some(&m.target),
            BusMessage::JobStreamStart(m)
            | BusMessage::JobStreamData(m)
            | BusMessage::JobStreamEnd(m) => Some(&m.target),
            BusMessage::UiJobGroupStarted(m) => m.target.as_deref(),
            BusMessage::UiJobUpdate(m) => m.target.as_deref(),
            BusMessage::UiJobCompleted(m) => m.target.as_deref(),
            BusMessage::UiJobGroupCompleted(m) => m.target.as_deref(),
        }
    }

    /// A job group's report to the client (`ui-job-group`) as the bus message that carries
    /// it, from `source` to `target`.
    pub fn job_group(
        source: impl Into<String>,
        target: Option<String>,
        envelope: JobGroupEnvelope,
    ) -> BusMessage {
        let source = source.into();
        match envelope {
            JobGroupEnvelope::GroupStarted {
                job_id,
                workers,
                label,
                cancellable,
                at,
            } => BusMessage::UiJobGroupStarted(UiJobGroupStarted {
                source,
                target,
                job_id,
                workers,
                label,
                cancellable,
                at,
            }),
            JobGroupEnvelope::JobUpdate {
                job_id,
                worker_name,
                data,
                at,
            } => BusMessage::UiJobUpdate(UiJobUpdate {
                source,
                target,
                job_id,
                worker_name,
                data,
                at,
            }),
            JobGroupEnvelope::JobCompleted {
                job_id,
                worker_name,
                status,
                response,
                at,
            } => BusMessage::UiJobCompleted(UiJobCompleted {
                source,
                target,
                job_id,
                worker_name,
                status,
                response,
                at,
            }),
            JobGroupEnvelope::GroupCompleted { job_id, at } => {
                BusMessage::UiJobGroupCompleted(UiJobGroupCompleted {
                    source,
                    target,
                    job_id,
                    at,
                })
            }
        }
    }

    /// The client's `ui-job-group` report a UI job-group message carries; `None` for the
    /// other messages.
    pub fn job_group_envelope(&self) -> Option<JobGroupEnvelope> {
        Some(match self.clone() {
            BusMessage::UiJobGroupStarted(m) => JobGroupEnvelope::GroupStarted {
                job_id: m.job_id,
                workers: m.workers,
                label: m.label,
                cancellable: m.cancellable,
                at: m.at,
            },
            BusMessage::UiJobUpdate(m) => JobGroupEnvelope::JobUpdate {
                job_id: m.job_id,
                worker_name: m.worker_name,
                data: m.data,
                at: m.at,
            },
            BusMessage::UiJobCompleted(m) => JobGroupEnvelope::JobCompleted {
                job_id: m.job_id,
                worker_name: m.worker_name,
                status: m.status,
                response: m.response,
                at: m.at,
            },
            BusMessage::UiJobGroupCompleted(m) => JobGroupEnvelope::GroupCompleted {
                job_id: m.job_id,
                at: m.at,
            },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The `__data__` of pipecat-ai 1.14.0's serializer output, without its per-process `id`
    /// and `name` counters (which a decoder ignores).
    fn pipecat(kind: &str, mut data: Value) -> Value {
        let obj = data.as_object_mut().expect("an object");
        obj.remove("id");
        obj.remove("name");
        json!({"__type__": kind, "__data__": data})
    }

    #[test]
    fn a_job_request_is_pipecats_envelope() {
        let request = BusMessage::JobRequest(JobRequest::new(
            "6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22",
            "voice",
            "ui",
            "screen",
            json!({"action": "find", "target": "the checkout button"}),
        ));
        let expected = pipecat(
            "pipecat.bus.messages.BusJobRequestMessage",
            json!({"id":0,"name":"BusJobRequestMessage#0","source":"voice","target":"ui",
                   "job_id":"6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22","job_name":"screen",
                   "payload":{"action":"find","target":"the checkout button"}}),
        );
        assert_eq!(serde_json::to_value(&request).unwrap(), expected);
        // Pipecat's own line, counters included, decodes to the same message.
        let wire = r#"{"__type__":"pipecat.bus.messages.BusJobRequestMessage","__data__":{"id":0,"name":"BusJobRequestMessage#0","source":"voice","target":"ui","job_id":"6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22","job_name":"screen","payload":{"action":"find","target":"the checkout button"}}}"#;
        assert_eq!(serde_json::from_str::<BusMessage>(wire).unwrap(), request);
    }

    #[test]
    fn a_job_response_is_pipecats_envelope() {
        let response = BusMessage::JobResult(JobResult {
            job_id: "6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22".into(),
            source: "ui".into(),
            target: "voice".into(),
            status: JobStatus::Completed,
            response: Some(json!({"label": "Checkout", "confidence": 0.93})),
        });
        let expected = pipecat(
            "pipecat.bus.messages.BusJobResponseMessage",
            json!({"id":1,"name":"BusJobResponseMessage#0","source":"ui","target":"voice",
                   "job_id":"6f1c0a9e-2b7d-4c55-9a43-0d3e8f7b1a22","status":"completed",
                   "response":{"label":"Checkout","confidence":0.93}}),
        );
        assert_eq!(serde_json::to_value(&response).unwrap(), expected);
        // A minimal foreign message without id/name decodes.
        let minimal = r#"{"__type__":"pipecat.bus.messages.BusJobResponseMessage","__data__":{"source":"ui","target":"voice","job_id":"j","status":"completed","response":{"a":1}}}"#;
        let BusMessage::JobResult(r) = serde_json::from_str(minimal).unwrap() else {
            panic!("a response")
        };
        assert_eq!(r.response(), JobResponse::completed(json!({"a": 1})));
    }

    #[test]
    fn none_fields_are_left_out_and_statuses_are_plain_strings() {
        let cancel = BusMessage::JobCancel(JobCancel {
            source: "voice".into(),
            target: "ui".into(),
            job_id: "j".into(),
            reason: None,
        });
        assert_eq!(
            serde_json::to_value(&cancel).unwrap(),
            json!({"__type__": "pipecat.bus.messages.BusJobCancelMessage",
                   "__data__": {"source": "voice", "target": "ui", "job_id": "j"}})
        );
        let request =
            BusMessage::JobRequest(JobRequest::new("j", "voice", "ui", "respond", Value::Null));
        assert_eq!(
            serde_json::to_value(&request).unwrap()["__data__"],
            json!({"source": "voice", "target": "ui", "job_id": "j", "job_name": "respond"})
        );
        for (status, text) in [
            (JobStatus::Completed, "completed"),
            (JobStatus::Cancelled, "cancelled"),
            (JobStatus::Failed, "failed"),
            (JobStatus::Error, "error"),
        ] {
            let m = BusMessage::JobResult(JobResult {
                source: "ui".into(),
                target: "voice".into(),
                job_id: "j".into(),
                status,
                response: None,
            });
            assert_eq!(
                serde_json::to_value(&m).unwrap()["__data__"]["status"],
                text
            );
        }
        let end = BusMessage::JobStreamEnd(JobStream {
            source: "ui".into(),
            target: "voice".into(),
            job_id: "j".into(),
            data: None,
        });
        assert_eq!(
            serde_json::to_value(&end).unwrap()["__type__"],
            "pipecat.bus.messages.BusJobStreamEndMessage"
        );
    }

    #[test]
    fn job_group_reports_travel_as_pipecats_ui_messages() {
        let started = JobGroupEnvelope::GroupStarted {
            job_id: "g1".into(),
            workers: vec!["a".into(), "b".into()],
            label: None,
            cancellable: true,
            at: 1_767_225_600_000,
        };
        let message = BusMessage::job_group("ui", None, started.clone());
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"__type__": "pipecat.bus.ui.messages.BusUIJobGroupStartedMessage",
                   "__data__": {"source": "ui", "job_id": "g1", "workers": ["a", "b"],
                                "cancellable": true, "at": 1_767_225_600_000_i64}})
        );
        assert_eq!(message.job_group_envelope(), Some(started));
        let completed = JobGroupEnvelope::JobCompleted {
            job_id: "g1".into(),
            worker_name: "a".into(),
            status: JobStatus::Cancelled,
            response: None,
            at: 5,
        };
        let message = BusMessage::job_group("ui", Some("voice".into()), completed.clone());
        assert_eq!(
            serde_json::to_value(&message).unwrap()["__data__"],
            json!({"source": "ui", "target": "voice", "job_id": "g1", "worker_name": "a",
                   "status": "cancelled", "at": 5})
        );
        assert_eq!(message.job_group_envelope(), Some(completed));
        assert_eq!(message.target(), Some("voice"));
        assert_eq!(message.job_id(), "g1");
        assert_eq!(message.source(), "ui");
    }
}
