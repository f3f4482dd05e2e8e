//! One call's UI worker on the bus: its snapshot, jobs, cancels, job groups and UI events, as
//! pipecat-ai 1.14's `UIWorker` behind a `WorkerRunner` (see the module docs of
//! [`super`]). A plain `--channel` runs one; a `call:*` pattern one per channel.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use hark_bus::wire::{
    CANCEL_JOB_GROUP_EVENT, RegistryEntry, UI_SNAPSHOT_EVENT, UiEventMessage, WorkerRegistry,
    WorkerRegistryEntry,
};
use hark_bus::{BusMessage, JobGroups, JobRoutes, Transport, WireMessage};
use hark_rtvi::{JobStatus, UiCancelJobGroup, UiEvent};
use hark_ui::{
    JobHandler, Responder, ScreenJobHandler, UiContextOptions, UiWorker, WorkerContext,
    snapshot_from_json,
};
use tracing::{debug, warn};

use super::held::{self, Held};
use super::outbox::Outbox;
use super::sink::BusSink;
use super::{BusWorkerConfig, Ended};

/// The `respond` job of a worker started without `--respond-model`: answered with the flag
/// that serves it (a bare "no job named respond" named no fix).
#[derive(Debug)]
struct NoRespondModel;

impl JobHandler for NoRespondModel {
    fn handle(
        &self,
        _job: hark_bus::JobRequest,
        _updates: hark_bus::JobUpdates,
    ) -> futures::future::BoxFuture<'_, hark_bus::JobReply> {
        Box::pin(async {
            hark_bus::JobResponse::error(crate::messages::respond_without_model()).into()
        })
    }
}

/// One channel's UI worker and what it holds.
pub struct Worker {
    config: Arc<BusWorkerConfig>,
    out: Outbox,
    ui: Arc<UiWorker>,
    context: Arc<WorkerContext>,
    routes: Arc<JobRoutes>,
    groups: JobGroups,
    held: Held,
    /// The worker whose `__ui_snapshot` is the page held (`voice`, a session's runner…), and
    /// whether a runner hosting a worker of that name was known when the page came.
    page_from: Option<(String, bool)>,
    /// The names of the workers each runner seen hosts (its keys: the runners seen).
    hosted: HashMap<String, Vec<String>>,
    /// Other runners already warned of for hosting a worker of this worker's name.
    twins_warned: HashSet<String>,
    active: bool,
    started_at: f64,
    /// When its channel last carried a message for it (the idle timeout counts from here).
    pub last_seen: Instant,
}

impl Worker {
    /// A worker named by `config`, sending jobs of its job groups over `bus` and everything
    /// else into `out`.
    pub fn new(config: Arc<BusWorkerConfig>, bus: Arc<dyn Transport>, out: Outbox) -> Self {
        let sink = Arc::new(BusSink::new(config.name.clone(), out.clone()));
        let mut ui = UiWorker::new(config.name.clone(), sink.clone());
        if let Some(classifier) = &config.classifier {
            ui = ui.with_classifier(classifier.clone());
        }
        let ui = Arc::new(ui);
        let context = Arc::new(WorkerContext::new(
            UiContextOptions::default(),
            config.instruction.as_deref(),
        ));
        let mut jobs: Vec<(&str, Arc<dyn JobHandler>)> = vec![(
            hark_bus::names::SCREEN_JOB,
            Arc::new(ScreenJobHandler::new(ui.clone())),
        )];
        if let Some((provider, model)) = &config.respond {
            let mut builder = Responder::builder(ui.clone(), provider.clone(), model.clone())
                .context(context.clone())
                .reply_tool(config.reply_tool);
            if let Some(instruction) = &config.instruction {
                builder = builder.instruction(instruction.clone());
            }
            jobs.push((hark_bus::names::RESPOND_JOB, Arc::new(builder.build())));
        } else {
            jobs.push((hark_bus::names::RESPOND_JOB, Arc::new(NoRespondModel)));
        }
        let mut routes = JobRoutes::new(config.name.clone());
        for (job, handler) in jobs {
            // The job names above differ, so each route is added.
            let next = JobRoutes::new(config.name.clone());
            routes = std::mem::replace(&mut routes, next)
                .route(job, handler)
                .unwrap_or_else(|e| {
                    warn!("{e}");
                    JobRoutes::new(config.name.clone())
                });
        }
        let groups = JobGroups::new(config.name.clone(), bus, sink);
        let started_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or_default();
        Worker {
            config,
            out,
            ui,
            context,
            routes: Arc::new(routes),
            groups,
            held: Held::default(),
            page_from: None,
            hosted: HashMap::new(),
            twins_warned: HashSet::new(),
            active: true,
            started_at,
            last_seen: Instant::now(),
        }
    }

    /// The channel it serves.
    pub fn channel(&self) -> &str {
        self.out.channel()
    }

    fn send(&self, message: WireMessage) {
        // The publisher outlives the worker; a send fails only after it stopped.
        let _ = self.out.send(message);
    }

    /// Publishes this runner's registry: the one worker.
    pub fn announce(&self) {
        self.send(WireMessage::Registry(WorkerRegistry {
            source: self.config.runner.clone(),
            target: None,
            runner: self.config.runner.clone(),
            workers: vec![RegistryEntry::Entry(WorkerRegistryEntry {
                name: self.config.name.clone(),
                parent: None,
                active: self.active,
                bridged: false,
                started_at: Some(self.started_at),
            })],
        }));
    }

    fn for_me(&self, target: Option<&str>) -> bool {
        target.is_none_or(|t| t == self.config.name)
    }

    /// Handles one message; `Some` when the worker must end.
    pub fn on_message(&mut self, message: WireMessage) -> Option<Ended> {
        let name = self.config.name.clone();
        match message {
            WireMessage::Job(BusMessage::JobRequest(job)) if job.target == name => {
                if !self.active {
                    debug!(job_id = %job.job_id, "inactive: a job request was ignored");
                } else {
                    self.held
                        .start(job, self.routes.clone(), self.out.clone(), &name);
                }
            }
            WireMessage::Job(BusMessage::JobCancel(cancel)) if cancel.target == name => {
                if self.held.cancel(&cancel.job_id) {
                    self.send(held::answer(
                        &name,
                        &cancel.source,
                        &cancel.job_id,
                        JobStatus::Cancelled,
                        None,
                    ));
                } else {
                    debug!(job_id = %cancel.job_id, "a cancel for a job this worker does not hold was ignored");
                }
            }
            WireMessage::UiEvent(event) if self.for_me(event.target.as_deref()) => {
                self.on_ui_event(event);
            }
            WireMessage::Registry(registry) if registry.runner != self.config.runner => {
                self.on_registry(&registry);
            }
            WireMessage::Activate(a) if a.target.as_deref() == Some(name.as_str()) => {
                self.active = true;
            }
            WireMessage::Deactivate(a) if a.target.as_deref() == Some(name.as_str()) => {
                self.active = false;
            }
            WireMessage::End(end) if end.target.is_none() => {
                return Some(Ended::End { source: end.source });
            }
            WireMessage::Cancel(cancel) if cancel.target.is_none() => {
                return Some(Ended::Cancel {
                    source: cancel.source,
                });
            }
            _ => {}
        }
        None
    }

    /// Another runner's registry: answered with this one's when the runner is new. A runner
    /// hosting a worker of this worker's name is warned of (both would answer every job: each
    /// click twice), and a new runner hosting the worker that sent the page held, when the page
    /// came from a runner already known, means that sender was replaced, as when a new call
    /// starts on a fixed channel without a `BusEndMessage` (Pipecat's `WorkerRunner.end()` sends
    /// none): the old page is another caller's, so it is forgotten until the new sender's first
    /// snapshot. A page that came before any runner hosting its sender was known (this worker
    /// started or restarted mid-call, and the call re-sent its page before its registry) is the
    /// live call's and is kept.
    fn on_registry(&mut self, registry: &WorkerRegistry) {
        let names: Vec<&str> = registry
            .workers
            .iter()
            .map(|RegistryEntry::Entry(entry)| entry.name.as_str())
            .collect();
        if names.contains(&self.config.name.as_str())
            && self.twins_warned.insert(registry.runner.clone())
        {
            warn!(
                channel = %self.channel(),
                other = %registry.runner,
                "{}",
                crate::messages::bus_worker_twin(&self.config.name, &registry.runner, self.channel())
            );
        }
        let seen_before = self
            .hosted
            .insert(
                registry.runner.clone(),
                names.iter().map(|n| (*n).to_owned()).collect(),
            )
            .is_some();
        if seen_before {
            return;
        }
        // Only a page that came from a runner already known is another call's: a worker that
        // (re)started mid-call gets the live call's page before that runner's registry, and
        // keeps it.
        if let Some((sender, from_known)) = &self.page_from
            && *from_known
            && names.contains(&sender.as_str())
            && self.ui.shared_snapshot().is_some()
        {
            tracing::info!(
                channel = %self.channel(),
                runner = %registry.runner,
                sender = %sender,
                "a new runner hosts the worker that sent the page: the page held was the last call's, forgotten until its first snapshot"
            );
            self.ui.forget_screen();
            self.page_from = None;
        }
        self.announce();
    }

    fn on_ui_event(&mut self, event: UiEventMessage) {
        match event.event_name.as_str() {
            UI_SNAPSHOT_EVENT => {
                let decoded = serde_json::to_string(&event.payload)
                    .map_err(|e| e.to_string())
                    .and_then(|text| snapshot_from_json(&text).map_err(|e| e.to_string()));
                match decoded {
                    Ok(snapshot) => {
                        self.ui.on_snapshot(snapshot);
                        let known = self
                            .hosted
                            .values()
                            .any(|names| names.contains(&event.source));
                        self.page_from = Some((event.source.clone(), known));
                    }
                    Err(e) => {
                        warn!(source = %event.source, "a __ui_snapshot was not a snapshot: {e}")
                    }
                }
            }
            CANCEL_JOB_GROUP_EVENT => {
                match serde_json::from_value::<UiCancelJobGroup>(event.payload) {
                    Ok(request) => {
                        let outcome = self.groups.cancel(&request);
                        debug!(job_id = %request.job_id, ?outcome, "__cancel_job_group");
                    }
                    Err(e) => warn!("a __cancel_job_group without a job_id was ignored: {e}"),
                }
            }
            _ => {
                let rendered = self.ui.render_ui_event(&UiEvent {
                    event: event.event_name,
                    payload: Some(event.payload.into()),
                });
                self.context.on_ui_event(&rendered);
            }
        }
    }

    /// Answers every held job `cancelled` and closes the job groups.
    pub fn stop(&mut self) {
        for job in self.held.take_all() {
            self.send(held::answer(
                &self.config.name,
                &job.source,
                &job.job_id,
                JobStatus::Cancelled,
                None,
            ));
        }
        self.groups.close();
    }
}
