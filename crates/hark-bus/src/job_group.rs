//! Job groups: one job fanned out to several peer workers on the [`Bus`](crate::Bus), reported to the
//! client as it runs.
//!
//! As pipecat's job groups (every worker gets exactly one `job_completed`, since pipecat PR
//! #5221). [`JobGroups::run`] dispatches the same job to every named worker and sends the client, through
//! the worker's [`CommandSink`] as [`ServerMessage::UiJobGroup`]:
//!
//! 1. `group_started {job_id, workers, label?, cancellable, at}`;
//! 2. `job_update {job_id, worker_name, data, at}` for each progress update;
//! 3. `job_completed {job_id, worker_name, status, response?, at}` exactly once per worker;
//! 4. `group_completed {job_id, at}`.
//!
//! Every path gives each worker exactly one `job_completed`:
//! - a worker's response: its status and response;
//! - a worker that ended its stream ([`JobReply::StreamEnded`]): `completed` with its last
//!   update as the response;
//! - `cancel_on_error` (default on): when a worker ends with `error` or `failed`, every
//!   unfinished worker gets `cancelled` (no response) and the group completes;
//! - the client's `ui-cancel-job-group` ([`JobGroups::cancel`], honoured only for a running group
//!   dispatched `cancellable`): `cancelled` for every unfinished worker, then `group_completed`;
//! - the group's timeout: `cancelled` for every unfinished worker, then `group_completed`;
//! - the session ended ([`JobGroups::close`]: the client dropped or the server shut down): every running group ends as above with [`GroupOutcome::SessionEnded`] (what it
//!   sends is dropped by the closed sink), and a group started after that ends at once, before
//!   dispatching anything.
//!
//! After the group closes, the unfinished workers' tasks are aborted and anything they still send
//! is dropped. `at` is epoch milliseconds from the injected [`EpochClock`].
//!
//! At most [`JobGroups::max_open`] groups run at once (default [`DEFAULT_MAX_OPEN_GROUPS`], 64:
//! a session cannot open job groups without bound). One more is refused
//! before anything is dispatched or sent, with a [`JobGroupError`] of
//! [`messages::too_many_job_groups`]; once a group ends, groups are taken again.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_rtvi::{JobGroupEnvelope, JobStatus, ServerMessage, UiCancelJobGroup};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::bus::{JobReply, JobUpdates, Transport};
use crate::job::JobResponse;
use crate::message::{BusMessage, JobRequest, JobResult, JobStream};
use crate::messages;
use crate::sink::CommandSink;

/// A source of the current time in epoch milliseconds (injected so tests are exact).
pub trait EpochClock: Send + Sync + fmt::Debug {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    fn now_ms(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl EpochClock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// A clock that starts at a fixed instant and moves 1 ms each time it is read: exact and
/// strictly increasing, for tests.
#[derive(Debug, Default)]
pub struct SteppingClock {
    next: AtomicU64,
}

impl SteppingClock {
    /// A clock whose first reading is `start_ms`.
    pub fn new(start_ms: u64) -> Self {
        SteppingClock {
            next: AtomicU64::new(start_ms),
        }
    }
}

impl EpochClock for SteppingClock {
    fn now_ms(&self) -> i64 {
        i64::try_from(self.next.fetch_add(1, Ordering::SeqCst)).unwrap_or(i64::MAX)
    }
}

/// The default most job groups one [`JobGroups`] runs at once: 64. An app
/// fans one request out to a handful of workers and runs a few groups at a time; a session
/// with 64 groups still open is runaway or hostile.
pub const DEFAULT_MAX_OPEN_GROUPS: usize = 64;

/// How to dispatch a group (pipecat `JobGroupParams`).
#[derive(Debug, Clone, PartialEq)]
pub struct JobGroupParams {
    /// The job name every worker receives.
    pub name: String,
    /// The job payload every worker receives (`null` when none).
    pub payload: Value,
    /// The whole group's time limit; `None` waits for every worker.
    pub timeout: Option<Duration>,
    /// Title of the client's card; omitted from `group_started` when `None`.
    pub label: Option<String>,
    /// Whether the client may cancel the group. Default `true`.
    pub cancellable: bool,
    /// Cancel the other workers when one ends with `error` or `failed`. Default `true`.
    pub cancel_on_error: bool,
}

impl JobGroupParams {
    /// Params for job `name` with `payload`, no timeout, no label, cancellable, cancel on error.
    pub fn new(name: impl Into<String>, payload: Value) -> Self {
        JobGroupParams {
            name: name.into(),
            payload,
            timeout: None,
            label: None,
            cancellable: true,
            cancel_on_error: true,
        }
    }

    /// With a card title.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// With a time limit for the whole group.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets whether the client may cancel the group.
    pub fn cancellable(mut self, cancellable: bool) -> Self {
        self.cancellable = cancellable;
        self
    }

    /// Sets whether an `error`/`failed` worker cancels the others.
    pub fn cancel_on_error(mut self, cancel_on_error: bool) -> Self {
        self.cancel_on_error = cancel_on_error;
        self
    }
}

/// How a group ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupOutcome {
    /// Every worker finished by itself (whatever its status, when `cancel_on_error` is off).
    Completed,
    /// The client cancelled the group, with this reason.
    CancelledByClient {
        /// The client's reason, or `"cancelled by user"`.
        reason: String,
    },
    /// A worker ended with `error` or `failed` and `cancel_on_error` cancelled the rest.
    CancelledOnError {
        /// The worker that failed.
        worker: String,
    },
    /// The group's timeout elapsed.
    TimedOut,
    /// The session ended ([`JobGroups::close`]): the group was torn down, or (started after
    /// the close) never dispatched.
    SessionEnded,
}

/// What one worker's `job_completed` said.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerResult {
    /// The worker's name.
    pub worker: String,
    /// Its status and response (`cancelled`, no response, when the group cancelled it).
    pub response: JobResponse,
}

/// The end of a group: its id, how it ended, and one result per worker in dispatch order.
#[derive(Debug, Clone, PartialEq)]
pub struct JobGroupReport {
    /// The group's job id (as on the wire).
    pub job_id: String,
    /// How it ended.
    pub outcome: GroupOutcome,
    /// One entry per worker, in dispatch order.
    pub results: Vec<WorkerResult>,
}

impl JobGroupReport {
    /// The responses of the workers that completed, by worker name (pipecat
    /// `group.responses`).
    pub fn responses(&self) -> HashMap<&str, &Value> {
        self.results
            .iter()
            .filter(|r| r.response.status == JobStatus::Completed)
            .filter_map(|r| r.response.response.as_ref().map(|v| (r.worker.as_str(), v)))
            .collect()
    }
}

/// A group that could not be dispatched (nothing was sent to the client). Lists every problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("\n"))]
pub struct JobGroupError {
    /// One line per problem, each naming the fix.
    pub problems: Vec<String>,
}

/// Whether a client's `ui-cancel-job-group` was honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelOutcome {
    /// The group is being torn down.
    Cancelled,
    /// No running group has this id (unknown, or already completed).
    UnknownGroup,
    /// The group was dispatched with `cancellable: false`.
    NotCancellable,
}

#[derive(Debug)]
struct Running {
    cancellable: bool,
    /// `Some(reason)`: the client cancelled; `None`: the session ended.
    cancel: mpsc::UnboundedSender<Option<String>>,
}

/// Dispatches job groups for one requester and reports them to its client.
///
/// Share it in an `Arc`: the requester's jobs call [`run`](Self::run) while the session calls
/// [`cancel`](Self::cancel) when the client sends `ui-cancel-job-group`.
pub struct JobGroups {
    source: String,
    bus: Arc<dyn Transport>,
    sink: Arc<dyn CommandSink>,
    clock: Arc<dyn EpochClock>,
    ids: Box<dyn Fn() -> String + Send + Sync>,
    running: Mutex<HashMap<String, Running>>,
    /// Set by [`JobGroups::close`] (under the `running` lock).
    closed: std::sync::atomic::AtomicBool,
    /// Most groups running at once ([`JobGroups::set_max_open`]); at least 1.
    max_open: AtomicUsize,
}

impl fmt::Debug for JobGroups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobGroups")
            .field("source", &self.source)
            .field("clock", &self.clock)
            .field("running", &self.running)
            .field("max_open", &self.max_open())
            .finish_non_exhaustive()
    }
}

static NEXT_GROUP: AtomicU64 = AtomicU64::new(1);

impl JobGroups {
    /// Groups sent by the requester `source` (a worker's name) to workers on `bus`, reported
    /// through `sink`, timed by the system clock, with ids `"<source>-<epoch ms>-<n>"`.
    pub fn new(
        source: impl Into<String>,
        bus: Arc<dyn Transport>,
        sink: Arc<dyn CommandSink>,
    ) -> Self {
        let source = source.into();
        let prefix = source.clone();
        JobGroups {
            source,
            bus,
            sink,
            clock: Arc::new(SystemClock),
            ids: Box::new(move || {
                let n = NEXT_GROUP.fetch_add(1, Ordering::Relaxed);
                format!("{prefix}-{}-{n}", SystemClock.now_ms())
            }),
            running: Mutex::new(HashMap::new()),
            closed: std::sync::atomic::AtomicBool::new(false),
            max_open: AtomicUsize::new(DEFAULT_MAX_OPEN_GROUPS),
        }
    }

    /// With at most `max` groups running at once (builder style; see
    /// [`JobGroups::set_max_open`]).
    pub fn with_max_open(self, max: usize) -> Self {
        self.set_max_open(max);
        self
    }

    /// Sets the most groups running at once (0 reads as 1). A
    /// [`run`](Self::run) beyond it is refused with [`messages::too_many_job_groups`] before
    /// anything is sent; groups already running are not affected.
    pub fn set_max_open(&self, max: usize) {
        self.max_open.store(max.max(1), Ordering::Relaxed);
    }

    /// The most groups running at once (default [`DEFAULT_MAX_OPEN_GROUPS`]).
    pub fn max_open(&self) -> usize {
        self.max_open.load(Ordering::Relaxed)
    }

    /// With another clock for `at`.
    pub fn with_clock(mut self, clock: Arc<dyn EpochClock>) -> Self {
        self.clock = clock;
        self
    }

    /// With another source of group ids (each call must give a new id).
    pub fn with_ids(mut self, ids: impl Fn() -> String + Send + Sync + 'static) -> Self {
        self.ids = Box::new(ids);
        self
    }

    /// The ids of the groups running now.
    pub fn running(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The client's `ui-cancel-job-group`: tears the group down when it is running and was
    /// dispatched `cancellable`; the reason defaults to `"cancelled by user"`.
    pub fn cancel(&self, request: &UiCancelJobGroup) -> CancelOutcome {
        let running = self.lock();
        match running.get(&request.job_id) {
            None => CancelOutcome::UnknownGroup,
            Some(group) if !group.cancellable => CancelOutcome::NotCancellable,
            Some(group) => {
                // The group's loop may have just ended; then there is nothing left to cancel.
                match group
                    .cancel
                    .send(Some(request.reason_or_default().to_string()))
                {
                    Ok(()) => CancelOutcome::Cancelled,
                    Err(_) => CancelOutcome::UnknownGroup,
                }
            }
        }
    }

    /// The session ended (the client dropped, or the server shuts down):
    /// tears every running group down, cancellable or not, with
    /// [`GroupOutcome::SessionEnded`], and makes every later [`run`](Self::run) end at once
    /// with that outcome, dispatching nothing. Idempotent.
    pub fn close(&self) {
        let running = self.lock();
        self.closed.store(true, Ordering::SeqCst);
        for group in running.values() {
            let _ = group.cancel.send(None);
        }
    }

    /// True once [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn emit(&self, envelope: JobGroupEnvelope) {
        if self.sink.send(ServerMessage::UiJobGroup(envelope)).is_err() {
            tracing::debug!(source = %self.source, "job group envelope not sent: the client session has ended");
        }
    }

    /// Dispatches job `params.name` to each of `workers` (in this order) and waits until the
    /// group closes; see the module docs for what the client sees.
    ///
    /// Errors (before anything is sent): no workers, a worker named twice, a worker not on the
    /// bus; every problem listed in one [`JobGroupError`]. Also (alone, once those pass)
    /// [`messages::too_many_job_groups`] when [`max_open`](Self::max_open) groups are running
    /// already. Dropping the future tears the group down without further envelopes (the
    /// workers' tasks are aborted).
    pub async fn run(
        &self,
        workers: &[&str],
        params: JobGroupParams,
    ) -> Result<JobGroupReport, JobGroupError> {
        let mut problems = Vec::new();
        if workers.is_empty() {
            problems.push(messages::group_without_workers().to_string());
        }
        for (i, w) in workers.iter().enumerate() {
            if workers[..i].contains(w) {
                problems.push(messages::group_worker_twice(w));
            } else if !self.bus.has_worker(w) {
                problems.push(messages::unknown_worker(w));
            }
        }
        if !problems.is_empty() {
            return Err(JobGroupError { problems });
        }

        let job_id = (self.ids)();
        let (cancel_tx, mut cancel_rx) = mpsc::unbounded_channel::<Option<String>>();
        {
            let mut running = self.lock();
            if self.is_closed() {
                // The session has ended: nothing is dispatched nor sent.
                return Ok(JobGroupReport {
                    job_id,
                    outcome: GroupOutcome::SessionEnded,
                    results: workers
                        .iter()
                        .map(|w| WorkerResult {
                            worker: w.to_string(),
                            response: JobResponse {
                                status: JobStatus::Cancelled,
                                response: None,
                            },
                        })
                        .collect(),
                });
            }
            let limit = self.max_open();
            if running.len() >= limit {
                tracing::info!(source = %self.source, limit, job = %params.name, "job group refused: too many running");
                return Err(JobGroupError {
                    problems: vec![messages::too_many_job_groups(limit)],
                });
            }
            running.insert(
                job_id.clone(),
                Running {
                    cancellable: params.cancellable,
                    cancel: cancel_tx,
                },
            );
        }
        let _unregister = Unregister {
            groups: self,
            job_id: job_id.clone(),
        };

        self.emit(JobGroupEnvelope::GroupStarted {
            job_id: job_id.clone(),
            workers: workers.iter().map(|w| w.to_string()).collect(),
            label: params.label.clone(),
            cancellable: params.cancellable,
            at: self.clock.now_ms(),
        });

        let (tx, mut rx) = mpsc::unbounded_channel::<BusMessage>();
        let mut tasks = JoinSet::new();
        let mut task_worker = HashMap::new();
        for (i, worker) in workers.iter().enumerate() {
            let job = JobRequest::new(
                job_id.clone(),
                self.source.clone(),
                *worker,
                params.name.clone(),
                params.payload.clone(),
            );
            let bus = self.bus.clone();
            let tx = tx.clone();
            let handle = tasks.spawn(async move {
                let updates = JobUpdates::new(&job, tx.clone());
                let (job_id, source, target) =
                    (job.job_id.clone(), job.target.clone(), job.source.clone());
                let message = match bus.request(job, updates).await {
                    JobReply::Response(r) => BusMessage::JobResult(JobResult {
                        job_id,
                        source,
                        target,
                        status: r.status,
                        response: r.response,
                    }),
                    JobReply::StreamEnded => BusMessage::JobStreamEnd(JobStream {
                        job_id,
                        source,
                        target,
                        data: None,
                    }),
                };
                let _ = tx.send(message);
            });
            task_worker.insert(handle.id(), i);
        }
        drop(tx);

        let mut finished: Vec<Option<JobResponse>> = vec![None; workers.len()];
        let mut last_update: Vec<Option<Value>> = vec![None; workers.len()];
        let index = |name: &str| workers.iter().position(|w| *w == name);
        let deadline = params.timeout.map(|t| tokio::time::Instant::now() + t);
        let timeout = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(timeout);

        let outcome = loop {
            if finished.iter().all(Option::is_some) {
                break GroupOutcome::Completed;
            }
            tokio::select! {
                biased;
                Some(stop) = cancel_rx.recv() => {
                    break match stop {
                        Some(reason) => GroupOutcome::CancelledByClient { reason },
                        None => GroupOutcome::SessionEnded,
                    };
                }
                joined = tasks.join_next_with_id(), if !tasks.is_empty() => {
                    // A worker's task panicked before answering: it ends with `error`.
                    if let Some(Err(e)) = joined
                        && let Some(&i) = task_worker.get(&e.id())
                    {
                        let r = JobResponse::error(messages::worker_panicked(workers[i]));
                        if let Some(outcome) = self.worker_done(&job_id, workers, &mut finished, workers[i], r, params.cancel_on_error) {
                            break outcome;
                        }
                    }
                }
                Some(message) = rx.recv() => {
                    match message {
                        BusMessage::JobUpdate(update) => {
                            let Some(i) = index(&update.source) else { continue };
                            if finished[i].is_some() {
                                continue;
                            }
                            self.emit(JobGroupEnvelope::JobUpdate {
                                job_id: job_id.clone(),
                                worker_name: workers[i].to_string(),
                                data: Some(update.data.clone()),
                                at: self.clock.now_ms(),
                            });
                            last_update[i] = Some(update.data);
                        }
                        BusMessage::JobResult(JobResult { source, status, response, .. }) => {
                            if let Some(outcome) = self.worker_done(&job_id, workers, &mut finished, &source, JobResponse { status, response }, params.cancel_on_error) {
                                break outcome;
                            }
                        }
                        BusMessage::JobStreamEnd(JobStream { source, .. }) => {
                            let Some(i) = index(&source) else { continue };
                            let response = JobResponse { status: JobStatus::Completed, response: last_update[i].take() };
                            if let Some(outcome) = self.worker_done(&job_id, workers, &mut finished, &source, response, params.cancel_on_error) {
                                break outcome;
                            }
                        }
                        // Nothing else reaches a group's own channel.
                        _ => {}
                    }
                }
                () = &mut timeout => break GroupOutcome::TimedOut,
            }
        };

        // Tear down: nothing a cancelled worker sends from now on reaches the client.
        tasks.abort_all();
        drop(rx);
        for (i, slot) in finished.iter_mut().enumerate() {
            if slot.is_none() {
                let r = JobResponse {
                    status: JobStatus::Cancelled,
                    response: None,
                };
                self.completed(&job_id, workers[i], &r);
                *slot = Some(r);
            }
        }
        self.emit(JobGroupEnvelope::GroupCompleted {
            job_id: job_id.clone(),
            at: self.clock.now_ms(),
        });
        let results = workers
            .iter()
            .zip(finished)
            .map(|(w, r)| WorkerResult {
                worker: w.to_string(),
                response: r.unwrap_or(JobResponse {
                    status: JobStatus::Cancelled,
                    response: None,
                }),
            })
            .collect();
        while tasks.join_next().await.is_some() {}
        Ok(JobGroupReport {
            job_id,
            outcome,
            results,
        })
    }

    /// Records a worker's own end (ignored when it already ended); `Some` when it closes the
    /// group early (`cancel_on_error`).
    fn worker_done(
        &self,
        job_id: &str,
        workers: &[&str],
        finished: &mut [Option<JobResponse>],
        source: &str,
        response: JobResponse,
        cancel_on_error: bool,
    ) -> Option<GroupOutcome> {
        let i = workers.iter().position(|w| *w == source)?;
        if finished[i].is_some() {
            return None;
        }
        self.completed(job_id, workers[i], &response);
        let failed = matches!(response.status, JobStatus::Error | JobStatus::Failed);
        finished[i] = Some(response);
        (failed && cancel_on_error && finished.iter().any(Option::is_none)).then(|| {
            GroupOutcome::CancelledOnError {
                worker: workers[i].to_string(),
            }
        })
    }

    fn completed(&self, job_id: &str, worker: &str, response: &JobResponse) {
        self.emit(JobGroupEnvelope::JobCompleted {
            job_id: job_id.to_string(),
            worker_name: worker.to_string(),
            status: response.status,
            response: response.response.clone(),
            at: self.clock.now_ms(),
        });
    }
}

struct Unregister<'a> {
    groups: &'a JobGroups,
    job_id: String,
}

impl Drop for Unregister<'_> {
    fn drop(&mut self) {
        self.groups.lock().remove(&self.job_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;

    use crate::bus::{Bus, JobHandler};

    /// A worker that never answers; counts its jobs dropped.
    #[derive(Debug, Default)]
    struct Never(Arc<AtomicU64>);

    struct Dropped(Arc<AtomicU64>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl JobHandler for Never {
        fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
            let dropped = Dropped(self.0.clone());
            Box::pin(async move {
                let _dropped = dropped;
                std::future::pending().await
            })
        }
    }

    #[tokio::test]
    async fn closing_tears_running_groups_down_and_refuses_new_ones() {
        let dropped = Arc::new(AtomicU64::new(0));
        let bus = Bus::new();
        bus.register("stuck", Arc::new(Never(dropped.clone())))
            .unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel::<ServerMessage>();
        let groups = Arc::new(JobGroups::new("ui", Arc::new(bus), Arc::new(tx)));
        let running = tokio::spawn({
            let groups = groups.clone();
            async move {
                // Not cancellable by the client: closing ends it all the same.
                let params = JobGroupParams::new("check", Value::Null).cancellable(false);
                groups.run(&["stuck"], params).await
            }
        });
        let started = rx.recv().await.expect("group_started");
        assert!(
            matches!(
                started,
                ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted { .. })
            ),
            "{started:?}"
        );
        assert_eq!(groups.running().len(), 1);

        groups.close();
        let report = running.await.unwrap().unwrap();
        assert_eq!(report.outcome, GroupOutcome::SessionEnded);
        assert_eq!(report.results[0].response.status, JobStatus::Cancelled);
        assert!(groups.running().is_empty());
        assert_eq!(
            dropped.load(Ordering::SeqCst),
            1,
            "the worker's job was torn down"
        );
        assert!(groups.is_closed());

        // A group started after the close dispatches nothing and sends nothing.
        while rx.try_recv().is_ok() {}
        let params = JobGroupParams::new("check", Value::Null);
        let report = groups.run(&["stuck"], params).await.unwrap();
        assert_eq!(report.outcome, GroupOutcome::SessionEnded);
        assert!(rx.try_recv().is_err());
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    }
}
