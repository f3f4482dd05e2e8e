//! Named workers and the transport that reaches them: jobs addressed by name, progress
//! updates, one response.
//!
//! Every message between a requester and a worker is a plain serialisable value
//! ([`BusMessage`], pipecat's bus message shapes) with a job id, a source and a target, so the
//! same values can travel between processes. A [`Transport`] runs a job on a named worker and
//! says which workers it reaches; [`Bus`] is the in-process transport (one per call).
//!
//! - A worker is a [`JobHandler`] registered under a name ([`Bus::register`]); a name is taken
//!   at most once.
//! - [`Bus::request`] runs one job on its target and gives the worker's [`JobReply`]: a
//!   [`JobResponse`], or [`JobReply::StreamEnded`] for a worker that streamed its results as
//!   updates and ended the stream (the last update is then the final data).
//! - A worker streams progress with [`JobUpdates::send`] (each a [`BusMessage::JobUpdate`]).
//! - [`JobRoutes`] serves several job names (e.g. `respond` and `screen`) under one worker.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::job::JobResponse;
use crate::message::JobUpdate;
pub use crate::message::{BusMessage, JobRequest};
use crate::messages;

/// How a worker ended a job.
#[derive(Debug, Clone, PartialEq)]
pub enum JobReply {
    /// The worker answered.
    Response(JobResponse),
    /// The worker streamed its results as updates and ended the stream: the job completed, and
    /// its final data is the last update sent (none when it sent none).
    StreamEnded,
}

impl From<JobResponse> for JobReply {
    fn from(response: JobResponse) -> Self {
        JobReply::Response(response)
    }
}

/// Where a running job sends its progress: each [`send`](Self::send) is one
/// [`BusMessage::JobUpdate`] from the worker to the requester.
#[derive(Debug, Clone)]
pub struct JobUpdates {
    job_id: String,
    source: String,
    target: String,
    tx: Option<mpsc::UnboundedSender<BusMessage>>,
}

impl JobUpdates {
    /// Updates for `job` (from its target back to its source) into `tx`.
    pub fn new(job: &JobRequest, tx: mpsc::UnboundedSender<BusMessage>) -> Self {
        JobUpdates {
            job_id: job.job_id.clone(),
            source: job.target.clone(),
            target: job.source.clone(),
            tx: Some(tx),
        }
    }

    /// Updates that go nowhere (a job run outside a group).
    pub fn discard(job: &JobRequest) -> Self {
        JobUpdates {
            job_id: job.job_id.clone(),
            source: job.target.clone(),
            target: job.source.clone(),
            tx: None,
        }
    }

    /// Sends one progress update. Returns `false` when nobody listens any more (the requester
    /// gave up, e.g. the group was cancelled); the worker may then stop.
    pub fn send(&self, data: Value) -> bool {
        let Some(tx) = &self.tx else { return false };
        tx.send(BusMessage::JobUpdate(JobUpdate {
            job_id: self.job_id.clone(),
            source: self.source.clone(),
            target: self.target.clone(),
            data,
        }))
        .is_ok()
    }
}

/// A worker on the bus: runs jobs addressed to its name.
///
/// The future may be dropped at any await point (cancellation); it must leave nothing locked.
pub trait JobHandler: Send + Sync + fmt::Debug + 'static {
    /// Runs `job` and answers it; progress goes to `updates`.
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply>;
}

/// Why a worker could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BusError {
    /// The name is already taken on this bus.
    #[error("{}", messages::duplicate_worker(name))]
    DuplicateWorker {
        /// The name.
        name: String,
    },
    /// The name is empty.
    #[error("{}", messages::empty_worker_name())]
    EmptyName,
}

/// What carries jobs to named workers: in one process ([`Bus`]) or, later, between processes
/// (pipecat's Redis bus, the same [`BusMessage`] values on the wire).
pub trait Transport: Send + Sync + fmt::Debug + 'static {
    /// Runs `job` on its target worker and gives the worker's reply; progress goes to
    /// `updates`. An unknown target answers with status `error`.
    fn request(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply>;

    /// Whether a worker named `name` is reachable.
    fn has_worker(&self, name: &str) -> bool;
}

/// The in-process transport: the registry of named workers in one process (one per call).
#[derive(Debug, Default)]
pub struct Bus {
    workers: RwLock<HashMap<String, Arc<dyn JobHandler>>>,
}

impl Bus {
    /// An empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `handler` as worker `name`. Errors: [`BusError::DuplicateWorker`] when the
    /// name is taken, [`BusError::EmptyName`] for `""`.
    pub fn register(
        &self,
        name: impl Into<String>,
        handler: Arc<dyn JobHandler>,
    ) -> Result<(), BusError> {
        let name = name.into();
        if name.is_empty() {
            return Err(BusError::EmptyName);
        }
        let mut workers = self.workers.write().unwrap_or_else(|e| e.into_inner());
        if workers.contains_key(&name) {
            return Err(BusError::DuplicateWorker { name });
        }
        workers.insert(name, handler);
        Ok(())
    }

    /// Removes worker `name`; returns whether it was there.
    pub fn unregister(&self, name: &str) -> bool {
        self.workers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name)
            .is_some()
    }

    /// The worker registered as `name`.
    pub fn worker(&self, name: &str) -> Option<Arc<dyn JobHandler>> {
        self.workers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Whether a worker is registered as `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.worker(name).is_some()
    }

    /// Runs `job` on its target worker. An unknown target answers with status `error` and
    /// `{"error": "no worker named … on the bus …"}`.
    pub async fn request(&self, job: JobRequest, updates: JobUpdates) -> JobReply {
        match self.worker(&job.target) {
            Some(worker) => worker.handle(job, updates).await,
            None => JobReply::Response(JobResponse::error(messages::unknown_worker(&job.target))),
        }
    }
}

/// One worker serving several job names: each job goes to the handler of its `name`; an
/// unknown name answers with status `error` and `{"error": "… has no job named …"}`.
#[derive(Debug, Default)]
pub struct JobRoutes {
    worker: String,
    routes: HashMap<String, Arc<dyn JobHandler>>,
}

impl JobRoutes {
    /// Routes for the worker called `worker` (named in errors).
    pub fn new(worker: impl Into<String>) -> Self {
        JobRoutes {
            worker: worker.into(),
            routes: HashMap::new(),
        }
    }

    /// Serves jobs named `job` with `handler`. Errors with the job's name when it is already
    /// routed ([`RouteTaken`]).
    pub fn route(
        mut self,
        job: impl Into<String>,
        handler: Arc<dyn JobHandler>,
    ) -> Result<Self, RouteTaken> {
        let job = job.into();
        if self.routes.contains_key(&job) {
            return Err(RouteTaken {
                worker: self.worker,
                job,
            });
        }
        self.routes.insert(job, handler);
        Ok(self)
    }
}

/// A job name routed twice on one worker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", messages::route_taken(worker, job))]
pub struct RouteTaken {
    /// The worker.
    pub worker: String,
    /// The job name.
    pub job: String,
}

impl JobHandler for JobRoutes {
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        match self.routes.get(&job.name) {
            Some(handler) => handler.handle(job, updates),
            None => {
                let error = messages::unknown_job(&self.worker, &job.name);
                Box::pin(async move { JobReply::Response(JobResponse::error(error)) })
            }
        }
    }
}

impl Transport for Bus {
    fn request(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(Bus::request(self, job, updates))
    }

    fn has_worker(&self, name: &str) -> bool {
        self.contains(name)
    }
}
