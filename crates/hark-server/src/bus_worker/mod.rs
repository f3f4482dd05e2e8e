//! Hark's UI worker as a worker on pipecat's Redis bus (`hark worker`): a Python Pipecat
//! voice agent (`screen_tools("ui")`, `UIWorker`'s jobs) is served by Hark's renderer and
//! classifier from another process.
//!
//! What [`run`] does on the channel, as pipecat-ai 1.14's `WorkerRunner` and `UIWorker` do:
//! - announces itself as a runner (`BusWorkerRegistryMessage`, runner [`BusWorkerConfig::runner`],
//!   one worker [`BusWorkerConfig::name`]) on every (re)connect and whenever a runner it has not
//!   seen announces itself;
//! - answers `screen` jobs (and `respond` jobs when an LLM is configured; single-flight) sent
//!   to its name, each as its own task, updates then one `BusJobResponseMessage`;
//! - a `BusJobCancelMessage` for a job it holds aborts it and answers `cancelled`; one for a
//!   job it does not hold (done, or never seen) is ignored;
//! - keeps the latest `__ui_snapshot`, cancels job groups on `__cancel_job_group`, records
//!   other UI events for the `respond` context;
//! - sends UI commands as `BusUICommandMessage` and job-group reports as pipecat's UI
//!   job-group messages ([`sink::BusSink`]);
//! - honours `BusActivateWorkerMessage` / `BusDeactivateWorkerMessage` for its name (while
//!   inactive it takes no jobs);
//! - ends on `BusEndMessage` or `BusCancelMessage` from another process, or on the caller's
//!   shutdown signal, answering every job it still holds `cancelled` first.

pub mod cli;
mod held;
pub mod sink;

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hark_bus::redis_bus::{BadRedisUrl, BusEvent};
use hark_bus::wire::{
    CANCEL_JOB_GROUP_EVENT, RegistryEntry, UI_SNAPSHOT_EVENT, UiEventMessage, WorkerRegistry,
    WorkerRegistryEntry,
};
use hark_bus::{BusMessage, JobGroups, JobRoutes, RedisBus, RedisBusConfig, WireMessage};
use hark_classify::Classifier;
use hark_llm::Provider;
use hark_rtvi::{JobStatus, UiCancelJobGroup, UiEvent};
use hark_ui::{
    JobHandler, Responder, ScreenJobHandler, UiContextOptions, UiWorker, WorkerContext,
    snapshot_from_json,
};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use held::Held;
use sink::BusSink;

/// How a bus worker is named and what it answers with.
#[derive(Debug, Clone)]
pub struct BusWorkerConfig {
    /// The Redis server and channel.
    pub bus: RedisBusConfig,
    /// The worker's name, the one requesters address (pipecat's `screen_tools("ui")`: `ui`).
    pub name: String,
    /// The runner name it announces; unique per process.
    pub runner: String,
    /// The classifier of `screen` jobs (`find`, `check`, `select`, …); `None`: only the
    /// jobs that need none (`list`, `selection`, actions on refs).
    pub classifier: Option<Arc<dyn Classifier>>,
    /// The LLM and model of `respond` jobs; `None`: `respond` is not served.
    pub respond: Option<(Arc<dyn Provider>, String)>,
    /// The `respond` turn's system instruction.
    pub instruction: Option<String>,
}

/// Why [`run`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The caller's shutdown signal.
    Signal,
    /// A `BusEndMessage` from `source`.
    End {
        /// Who asked.
        source: String,
    },
    /// A `BusCancelMessage` from `source`.
    Cancel {
        /// Who asked.
        source: String,
    },
}

/// A runner name unique to this process: `hark-<pid>-<epoch ms>`.
pub fn default_runner_name() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("hark-{}-{ms}", std::process::id())
}

/// The worker's parts that live as long as [`run`].
struct Worker {
    config: BusWorkerConfig,
    out: mpsc::UnboundedSender<WireMessage>,
    ui: Arc<UiWorker>,
    context: Arc<WorkerContext>,
    routes: Arc<JobRoutes>,
    groups: JobGroups,
    held: Held,
    runners_seen: HashSet<String>,
    active: bool,
    started_at: f64,
}

/// Serves as the UI worker on the bus until a `BusEndMessage`/`BusCancelMessage` or
/// `shutdown` completes (see the module docs).
///
/// # Errors
/// [`BadRedisUrl`] when the URL cannot be used; an unreachable server is retried, not an error.
pub async fn run(
    config: BusWorkerConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<Ended, BadRedisUrl> {
    let (bus, mut events) = RedisBus::start(config.bus.clone())?;
    bus.add_own_name(config.name.clone());
    bus.add_own_name(config.runner.clone());
    let (out, out_rx) = mpsc::unbounded_channel();
    let publisher = tokio::spawn(publish_loop(bus.clone(), out_rx));
    let mut worker = Worker::new(config, bus.clone(), out);
    info!(
        worker = %worker.config.name, runner = %worker.config.runner,
        channel = %worker.config.bus.channel, url = %worker.config.bus.url,
        respond = worker.config.respond.is_some(),
        "UI worker on the Redis bus"
    );
    tokio::pin!(shutdown);
    let ended = loop {
        tokio::select! {
            () = &mut shutdown => break Ended::Signal,
            event = events.recv() => match event {
                None => break Ended::Signal,
                Some(BusEvent::Connected) => worker.announce(),
                Some(BusEvent::Message(message)) => {
                    if let Some(ended) = worker.on_message(message) {
                        break ended;
                    }
                }
            },
        }
    };
    info!(?ended, "the UI worker is stopping");
    worker.stop();
    drop(worker);
    // Everything queued (the held jobs' `cancelled` answers) goes out before the bus closes.
    if tokio::time::timeout(Duration::from_secs(5), publisher)
        .await
        .is_err()
    {
        warn!("the last bus messages were not all sent within 5 s");
    }
    bus.close();
    Ok(ended)
}

/// Publishes what the worker queues, in order, until every sender is gone.
async fn publish_loop(bus: RedisBus, mut rx: mpsc::UnboundedReceiver<WireMessage>) {
    while let Some(message) = rx.recv().await {
        if let Err(e) = bus.publish(&message).await {
            warn!("a bus message was not sent: {e}");
        }
    }
}

impl Worker {
    fn new(
        config: BusWorkerConfig,
        bus: RedisBus,
        out: mpsc::UnboundedSender<WireMessage>,
    ) -> Self {
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
                .context(context.clone());
            if let Some(instruction) = &config.instruction {
                builder = builder.instruction(instruction.clone());
            }
            jobs.push((hark_bus::names::RESPOND_JOB, Arc::new(builder.build())));
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
        let groups = JobGroups::new(config.name.clone(), Arc::new(bus.clone()), sink);
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
            runners_seen: HashSet::new(),
            active: true,
            started_at,
        }
    }

    fn send(&self, message: WireMessage) {
        // The publisher outlives the worker; a send fails only after it stopped.
        let _ = self.out.send(message);
    }

    /// Publishes this runner's registry: the one worker.
    fn announce(&self) {
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
    fn on_message(&mut self, message: WireMessage) -> Option<Ended> {
        let name = self.config.name.clone();
        match message {
            WireMessage::Job(BusMessage::JobRequest(job)) if job.target == name => {
                if !self.active {
                    debug!(job_id = %job.job_id, "inactive: a job request was ignored");
                } else {
                    self.held.start(
                        job,
                        self.routes.clone(),
                        self.out.clone(),
                        &self.config.name,
                    );
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
            WireMessage::Registry(registry)
                if self.runners_seen.insert(registry.runner.clone()) =>
            {
                self.announce();
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

    fn on_ui_event(&self, event: UiEventMessage) {
        match event.event_name.as_str() {
            UI_SNAPSHOT_EVENT => {
                let decoded = serde_json::to_string(&event.payload)
                    .map_err(|e| e.to_string())
                    .and_then(|text| snapshot_from_json(&text).map_err(|e| e.to_string()));
                match decoded {
                    Ok(snapshot) => self.ui.on_snapshot(snapshot),
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
    fn stop(&mut self) {
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
