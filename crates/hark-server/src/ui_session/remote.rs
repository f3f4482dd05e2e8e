//! A session's bus on Redis (`hark serve --bus`): the session's `screen` and `respond` jobs go
//! to whichever `ui` worker answers on the session's own channel (a `hark worker`, or
//! Pipecat's Python `UIWorker`), and the session plays the part of Pipecat's `PipelineWorker`
//! that owns the client:
//!
//! - it announces itself as a runner (`BusWorkerRegistryMessage`, runner
//!   `hark-serve-<pid>-<session id>`, one worker named [`DEFAULT_SCREEN_SOURCE`]) on every
//!   (re)connect and whenever a runner it has not seen announces itself, and learns the `ui`
//!   worker from the registries it reads (as `PipelineWorker` waits for its job's workers);
//! - a runner it has not seen before also gets the client's latest snapshot again (Redis
//!   pub/sub replays nothing to a worker that joins late);
//! - the client's `ui-snapshot`, `ui-event` and `ui-cancel-job-group` are republished as
//!   `BusUIEventMessage`s (`__ui_snapshot` with the tree, the app's event name with its payload,
//!   `__cancel_job_group` with `{job_id, reason}`), as `_republish_ui_message_on_bus` does;
//! - the workers' `BusUICommandMessage`s and UI job-group messages go to the client as RTVI
//!   `ui-command` and `ui-job-group`, through the session's sink (the same path as the
//!   in-process worker's commands: in order, none dropped);
//! - a job waits for its worker's registry at most the job's timeout; while Redis is away it is
//!   answered at once with status `error` and a text naming the worker, the channel and what
//!   to check ([`messages::remote_worker_unreachable`]); a job whose requester stops waiting (the
//!   tool's timeout, an interruption) is cancelled on the bus (`BusJobCancelMessage`);
//! - a `BusEndMessage` or `BusCancelMessage` from a worker on the channel ends the session, as
//!   it ends Pipecat's `WorkerRunner` (which ends or cancels its `PipelineWorker`, whose
//!   transport then closes the client's connection): the session sends what is queued and
//!   closes with 1000 ([`messages::call_ended`], [`crate::CloseCause::CallEnded`]); Hark's
//!   queue holds only whole messages, so a cancel cuts nothing that an end would have sent;
//! - when the session ends it sends `BusEndMessage` (what `PipelineWorker.end()` sends) and
//!   leaves the channel.
//!
//! Every session shares the factory's one Redis connection (`hub.rs`: a pattern
//! subscription on the channel prefix); a session only joins it with its channel.

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_bus::wire::{
    CANCEL_JOB_GROUP_EVENT, RegistryEntry, Shutdown, UI_SNAPSHOT_EVENT, UiEventMessage,
    WorkerRegistry, WorkerRegistryEntry,
};
use hark_bus::{
    BusMessage, JobCancel, JobReply, JobRequest, JobResponse, JobUpdates, RedisBus, WireMessage,
};
use hark_rtvi::message::ServerMessage;
use hark_rtvi::snapshot::A11ySnapshot;
use hark_rtvi::ui::{UiCancelJobGroup, UiCommand, UiEvent};
use hark_ui::{CommandSink, JobHandler};
use serde_json::Value;
use tokio::sync::{Notify, mpsc};
use tracing::{debug, info, warn};

use crate::messages;
use crate::sessions::id::SessionId;

use super::config::{DEFAULT_SCREEN_SOURCE, RemoteBusConfig};
use super::hub::{Delivery, RemoteHub};
use super::sink::SessionSink;

/// What the session queues for the bus, in order.
enum Out {
    Publish(WireMessage),
    /// The session ended: the end message went first; close the bus.
    Close,
}

/// One session's link to its Redis channel. Shared by the session (forwarding) and the
/// remote worker on its in-process bus (jobs).
pub struct RemoteLink {
    bus: RedisBus,
    channel: String,
    runner: String,
    out: mpsc::UnboundedSender<Out>,
    registry: Arc<Notify>,
    closed: AtomicBool,
    /// The client's latest snapshot tree, sent again to a runner that joins later.
    latest: Mutex<Option<Value>>,
}

impl fmt::Debug for RemoteLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteLink")
            .field("channel", &self.channel)
            .field("runner", &self.runner)
            .finish_non_exhaustive()
    }
}

impl RemoteLink {
    /// Joins session `id` to its channel on `hub` and starts its reader and publisher; what
    /// the workers send the client goes into `sink`, and a worker's end or cancel ends the
    /// session through it. Must run in a tokio runtime.
    pub(super) fn start(
        hub: &Arc<RemoteHub>,
        config: &RemoteBusConfig,
        id: SessionId,
        sink: Arc<SessionSink>,
    ) -> Arc<RemoteLink> {
        let channel = config.channel(id);
        let bus = hub.bus().clone();
        let runner = format!("hark-serve-{}-{id}", std::process::id());
        bus.add_own_name(runner.clone());
        let events = hub.join(&channel);
        let (out, out_rx) = mpsc::unbounded_channel();
        let link = Arc::new(RemoteLink {
            bus: bus.clone(),
            channel: channel.clone(),
            runner,
            out,
            registry: Arc::new(Notify::new()),
            closed: AtomicBool::new(false),
            latest: Mutex::new(None),
        });
        info!(session = %id, %channel, url = %config.url, "the session's bus is on Redis");
        tokio::spawn(publish_loop(
            hub.clone(),
            link.channel.clone(),
            link.runner.clone(),
            out_rx,
        ));
        tokio::spawn(read_loop(Arc::downgrade(&link), events, sink));
        link
    }

    /// The session's channel.
    pub fn channel(&self) -> &str {
        &self.channel
    }

    fn publish(&self, message: WireMessage) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        // The publisher runs until `close`; a send fails only after it stopped.
        let _ = self.out.send(Out::Publish(message));
    }

    fn ui_event(&self, event_name: &str, payload: Value) {
        self.publish(WireMessage::UiEvent(UiEventMessage {
            source: DEFAULT_SCREEN_SOURCE.to_owned(),
            target: None,
            event_name: event_name.to_owned(),
            payload,
        }));
    }

    /// Republishes the client's snapshot as `__ui_snapshot` (the tree as the client sent it).
    pub fn snapshot(&self, snapshot: &A11ySnapshot) {
        match serde_json::to_value(snapshot) {
            Ok(tree) => {
                *self.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(tree.clone());
                self.ui_event(UI_SNAPSHOT_EVENT, tree);
            }
            // A decoded snapshot always serialises.
            Err(e) => warn!(channel = %self.channel, "a snapshot was not republished: {e}"),
        }
    }

    /// Republishes the client's UI event under its own name.
    pub fn event(&self, event: &UiEvent) {
        let payload = event
            .payload
            .as_ref()
            .map_or(Value::Null, |p| p.value().clone());
        self.ui_event(&event.event, payload);
    }

    /// Republishes the client's job-group cancel as `__cancel_job_group`.
    pub fn cancel_group(&self, cancel: &UiCancelJobGroup) {
        let mut payload = serde_json::Map::new();
        payload.insert("job_id".into(), Value::String(cancel.job_id.clone()));
        if let Some(reason) = &cancel.reason {
            payload.insert("reason".into(), Value::String(reason.clone()));
        }
        self.ui_event(CANCEL_JOB_GROUP_EVENT, Value::Object(payload));
    }

    /// This runner's registry: the session's voice side.
    fn announce(&self) {
        self.publish(WireMessage::Registry(WorkerRegistry {
            source: self.runner.clone(),
            target: None,
            runner: self.runner.clone(),
            workers: vec![RegistryEntry::Entry(WorkerRegistryEntry {
                name: DEFAULT_SCREEN_SOURCE.to_owned(),
                parent: None,
                active: true,
                bridged: false,
                started_at: None,
            })],
        }));
    }

    /// The session ended: `BusEndMessage` to the channel, then the subscription is dropped.
    /// Later forwarding does nothing.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let _ = self.out.send(Out::Publish(WireMessage::End(Shutdown {
            source: DEFAULT_SCREEN_SOURCE.to_owned(),
            target: None,
            reason: Some("session ended".into()),
        })));
        let _ = self.out.send(Out::Close);
    }

    /// Waits until a worker named `name` announced itself, at most `limit`; `Err` with the text
    /// the requester reads.
    async fn worker_ready(&self, name: &str, job: &str, limit: Duration) -> Result<(), String> {
        let started = tokio::time::Instant::now();
        let deadline = started + limit;
        loop {
            let notified = self.registry.notified();
            if self.bus.has_worker_on(&self.channel, name) {
                return Ok(());
            }
            if self.closed.load(Ordering::Acquire) {
                return Err(messages::remote_worker_unreachable(
                    name,
                    job,
                    &self.channel,
                    "the session ended",
                ));
            }
            // A fresh session connects within milliseconds; 2 s without Redis is Redis away.
            if !self.bus.is_connected() && started.elapsed() > Duration::from_secs(2) {
                return Err(messages::remote_worker_unreachable(
                    name,
                    job,
                    &self.channel,
                    &format!("Redis at {} cannot be reached", self.bus.config().url),
                ));
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
                () = tokio::time::sleep_until(deadline) => {
                    return Err(messages::remote_worker_unreachable(
                        name,
                        job,
                        &self.channel,
                        &format!("no worker named {name} announced itself within {} s", limit.as_secs_f64()),
                    ));
                }
            }
        }
    }
}

/// The longest a job waits for a worker of its name to announce itself on the session's
/// channel (the job's own timeout when shorter).
pub const WORKER_ANNOUNCE_LIMIT: Duration = Duration::from_secs(5);

/// Publishes what the session queues on `channel`, in order, until the session closes the
/// link (or drops it); then the session leaves the shared bus.
async fn publish_loop(
    hub: Arc<RemoteHub>,
    channel: String,
    runner: String,
    mut rx: mpsc::UnboundedReceiver<Out>,
) {
    while let Some(out) = rx.recv().await {
        match out {
            Out::Publish(message) => {
                if let Err(e) = hub.bus().publish_on(&channel, &message).await {
                    warn!("a bus message was not sent: {e}");
                }
            }
            Out::Close => break,
        }
    }
    hub.leave(&channel);
    hub.bus().remove_own_name(&runner);
}

/// Reads the session's channel: registries (announce back, wake waiting jobs), UI commands
/// and job-group messages to the client. Ends when the bus closes.
async fn read_loop(
    link: std::sync::Weak<RemoteLink>,
    mut events: mpsc::UnboundedReceiver<Delivery>,
    sink: Arc<SessionSink>,
) {
    let mut runners = HashSet::new();
    while let Some(event) = events.recv().await {
        let Some(link) = link.upgrade() else { return };
        match event {
            Delivery::Connected => link.announce(),
            Delivery::Message(message) => match on_message(&link, &mut runners, message) {
                Some(Action::ToClient(to_client)) => {
                    let sent = sink.send(*to_client);
                    if sent.is_err() {
                        debug!(channel = %link.channel, "the session closed; a UI message from the bus was dropped");
                    }
                }
                Some(Action::EndSession) => sink.end_session(),
                None => {}
            },
        }
    }
}

/// What a bus message asks of the session.
enum Action {
    /// Send the client this (boxed: the action stays small).
    ToClient(Box<ServerMessage>),
    /// A worker ended the call: end the session.
    EndSession,
}

/// What one bus message does: `Some` when it asks something of the session.
fn on_message(
    link: &RemoteLink,
    runners: &mut HashSet<String>,
    message: WireMessage,
) -> Option<Action> {
    let for_us = |target: Option<&str>| target.is_none_or(|t| t == DEFAULT_SCREEN_SOURCE);
    match message {
        WireMessage::Registry(registry) => {
            link.registry.notify_waiters();
            if runners.insert(registry.runner.clone()) {
                link.announce();
                // A worker that joined after the page's last snapshot gets it now (pub/sub
                // replays nothing).
                let latest = link
                    .latest
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                if let Some(tree) = latest {
                    link.ui_event(UI_SNAPSHOT_EVENT, tree);
                }
            }
            None
        }
        WireMessage::UiCommand(command) if for_us(command.target.as_deref()) => Some(
            Action::ToClient(Box::new(ServerMessage::UiCommand(UiCommand {
                command: command.command_name,
                payload: command.payload,
            }))),
        ),
        WireMessage::Job(job) if for_us(job.target()) => match job.job_group_envelope() {
            Some(envelope) => Some(Action::ToClient(Box::new(ServerMessage::UiJobGroup(
                envelope,
            )))),
            None => {
                debug!(job_id = %job.job_id(), "a job message for nobody waiting was ignored");
                None
            }
        },
        WireMessage::End(end) => {
            info!(channel = %link.channel, source = %end.source, reason = ?end.reason, "a worker ended the call on the session's bus (BusEndMessage): the session ends");
            Some(Action::EndSession)
        }
        WireMessage::Cancel(end) => {
            info!(channel = %link.channel, source = %end.source, reason = ?end.reason, "a worker cancelled the call on the session's bus (BusCancelMessage): the session ends");
            Some(Action::EndSession)
        }
        _ => None,
    }
}

/// The `ui` worker as the session's in-process bus sees it: each job goes over Redis to the
/// worker of that name on the session's channel.
pub(super) struct RemoteWorker {
    pub(super) link: Arc<RemoteLink>,
    pub(super) timeout: Duration,
}

impl fmt::Debug for RemoteWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteWorker")
            .field("channel", &self.link.channel)
            .finish()
    }
}

/// Cancels a job on the bus when its requester stops waiting before the answer.
struct CancelOnDrop {
    link: Arc<RemoteLink>,
    cancel: Mutex<Option<JobCancel>>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let cancel = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(cancel) = cancel {
            debug!(job_id = %cancel.job_id, "the requester stopped waiting: the job is cancelled on the bus");
            self.link
                .publish(WireMessage::Job(BusMessage::JobCancel(cancel)));
        }
    }
}

impl JobHandler for RemoteWorker {
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async move {
            // A worker on the channel answers the session's registry within milliseconds; one
            // that has not announced itself in a few seconds is not there, so the caller hears
            // so then rather than after the whole job timeout.
            let limit = self.timeout.min(WORKER_ANNOUNCE_LIMIT);
            if let Err(text) = self.link.worker_ready(&job.target, &job.name, limit).await {
                info!(job = %job.name, worker = %job.target, "{text}");
                // Worded by kind where a turn words it (the offline mode: "I cannot reach the
                // page right now"), never by matching this text.
                return JobResponse::error_of_kind(text, "unreachable").into();
            }
            let guard = CancelOnDrop {
                link: self.link.clone(),
                cancel: Mutex::new(Some(JobCancel {
                    source: job.source.clone(),
                    target: job.target.clone(),
                    job_id: job.job_id.clone(),
                    reason: Some("the requester stopped waiting".into()),
                })),
            };
            let reply = self
                .link
                .bus
                .request_on(&self.link.channel, job, updates)
                .await;
            // Answered (or timed out, which RedisBus cancels itself): nothing to cancel.
            guard
                .cancel
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            reply
        })
    }
}
