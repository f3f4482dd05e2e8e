//! A UI worker per session: the session's snapshots, UI events and job-group cancels go to a
//! [`UiWorker`], and the worker's commands and `ui-job-group` envelopes go back to the client.
//!
//! Spec: `ui-worker.md` (the worker, its jobs, job groups, UI events); rtvi-ui.md §2 (the
//! client's `ui-snapshot`, `ui-event`, `ui-cancel-job-group`; the server's `ui-command`,
//! `ui-job-group`); DESIGN.md ("What a call looks like": snapshots, events and cancels reach the
//! UiWorker through the call's bus).
//!
//! [`UiHandlerFactory`] makes a [`UiSessionHandler`] for each session. Per session it builds a
//! [`UiSession`]:
//! - a [`UiWorker`] named [`UiSessionConfig::worker_name`] (default [`DEFAULT_UI_WORKER`],
//!   `"ui"`), with the configured classifier (and fallback) for screen questions;
//! - the worker's LLM context ([`WorkerContext`]) that UI events are recorded into;
//! - a [`Bus`] on which the worker serves the `screen` job (and `respond`, when
//!   [`UiSessionConfig::respond`] gave it a model) through [`JobRoutes`], beside the configured
//!   peer workers ([`UiSessionConfig::peer_worker`]);
//! - [`JobGroups`] sent by the worker to its peers and reported to the client;
//! - the app's UI event handlers ([`UiEvents`]; none by default: events are only recorded).
//!
//! The handler maps session inputs:
//!
//! | input | goes to |
//! | --- | --- |
//! | `ui-snapshot` | [`UiWorker::on_snapshot`] |
//! | `ui-event` | [`UiEvents::dispatch`] (`<ui_event>` into the context, then the handler); refused with an `error` ([`messages::too_many_ui_events`]) while [`HandlerLimits::max_ui_events_in_flight`] handlers of the session still run |
//! | `ui-cancel-job-group` | [`JobGroups::cancel`]; an unknown or not cancellable group gets an `error-response` with the request id |
//! | `send-text` | with [`UiSessionConfig::voice_agent`]: a user turn of the session's voice agent ([`crate::agent_session`]; it interrupts the running turn); else with [`UiSessionConfig::offline_screen`]: one offline turn ([`hark_ui::offline`]), answered as one bot reply; else [`NoAgentHandler`] |
//! | `disconnect-bot` | the voice agent's running turn is interrupted |
//! | `client-message` | [`NoAgentHandler`] (no agent yet) |
//!
//! In the offline screen mode the handler also says so, once per session when the client is
//! ready: the `server-message` [`hark_ui::offline::mode_message`] (the demo page shows its
//! text) and one log line ([`hark_ui::messages::offline_mode_notice`]).
//!
//! The worker's [`CommandSink`] is the session's [`Outbox`]: a command is queued at once (the
//! sink must not block), straight into the session's bounded outbound queue when it has room,
//! else behind the ones already waiting in a backlog that a task of the handler moves into the
//! queue in order, so commands and envelopes reach the client in the order they were sent and
//! none is dropped while the session runs.
//! Once the session ends, sending fails with [`hark_ui::SinkClosed`] (a command then reads
//! [`hark_ui::CommandError::Closed`]).
//!
//! Issue 9, point 4: the worker's `screen` and `respond` jobs are capped per session at
//! [`HandlerLimits::max_pending_jobs`] each (waiting or running, from
//! [`crate::ServerConfig::max_pending_jobs`] through [`Outbox::handler_limits`]); a job over it
//! is answered at once with status `error` and [`messages::too_many_jobs`], which the model
//! reads as the tool's error.
//!
//! Issue 9, point 4, job groups: at most [`UiSessionConfig::max_job_groups`] of a session's
//! [`JobGroups`] run at once (default [`crate::config::DEFAULT_MAX_JOB_GROUPS`], 64, far above
//! what an app runs); one more is refused before anything is sent, with a
//! [`hark_ui::job_group::JobGroupError`] of [`hark_ui::messages::too_many_job_groups`] for the
//! app that asked. The session and its running groups go on, and other sessions have their own
//! count.
//!
//! [`UiHandlerFactory::session`] gives a running session's [`UiSession`] (tests and apps reach
//! its worker, bus and job groups through it); a session leaves the map when it ends.
//!
//! ## Example: a session's snapshot, read through the `screen` tool
//!
//! ```
//! use std::sync::Arc;
//! use hark_rtvi::snapshot::A11ySnapshot;
//! use hark_server::{Outbox, SessionHandler, SessionId, SessionInput};
//! use hark_server::{UiHandlerFactory, UiSessionConfig};
//! use hark_tools::{ToolContext, ToolRegistry};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // `Server::bind_with_handler(config, factory.clone())` in an app; here one session by hand.
//! let factory = Arc::new(UiHandlerFactory::new(UiSessionConfig::new())?);
//! let mut handler = factory.handler(SessionId(1));
//! let (outbox, _to_client) = Outbox::channel(SessionId(1), 8);
//! let snapshot = A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"form","children":[
//!     {"ref":"e2","role":"checkbox","name":"Gift wrap","state":["checked"]}]},"captured_at":1}"#)?;
//! handler.handle(SessionInput::Snapshot(Arc::new(snapshot)), &outbox).await;
//!
//! // The voice side's `screen` tool reaches the session's worker through its bus.
//! let session = factory.session(SessionId(1)).expect("running");
//! let tools = ToolRegistry::new(session.screen_tools(hark_ui::DEFAULT_SCREEN_TIMEOUT)?)?;
//! let args = json!({"action": "list", "target": "checkbox"}).to_string();
//! let out = tools.call("screen", args.as_str(), &ToolContext::default()).await;
//! assert_eq!(out.model_result, json!({"elements": [
//!     {"role": "checkbox", "name": "Gift wrap", "state": ["checked"], "value": null}]}));
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_agent::VoiceAgent;
use hark_classify::{Classifier, LocalClassifier};
use hark_llm::Provider;
use hark_rtvi::message::ServerMessage;
use hark_tools::{BuildError, ToolSpec};
use hark_ui::job_group::CancelOutcome;
use hark_ui::offline::OfflineScreen;
use hark_ui::{
    Bus, BusScreenJobs, CommandSink, JobGroups, JobHandler, JobReply, JobRequest, JobResponse,
    JobRoutes, JobUpdates, Responder, ScreenJobHandler, ScreenJobs, SinkClosed, UiContextOptions,
    UiEvent, UiEvents, UiWorker, WorkerContext, screen_tools,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{debug, error, info};

use crate::agent_session::VoiceAgentConfig;
use crate::messages;
use crate::registry::SessionId;
use crate::session::{
    HandlerFactory, HandlerLimits, NoAgentHandler, Outbox, SessionHandler, SessionInput,
};

/// The UI worker's default name: the name jobs and job groups address it by.
pub const DEFAULT_UI_WORKER: &str = "ui";

/// The requester name [`UiSession::screen_jobs`] uses by default (the voice side of the call).
pub const DEFAULT_SCREEN_SOURCE: &str = "voice";

/// An app's handler of one UI event: gets the session's worker (to act on the page) and the
/// event; runs in its own task.
pub type UiEventHandler =
    Arc<dyn Fn(Arc<UiWorker>, UiEvent) -> BoxFuture<'static, ()> + Send + Sync>;

/// What every session's UI worker is made of. Cheap to clone (everything shared is in `Arc`s).
///
/// Build with [`UiSessionConfig::new`] and the builder methods, then check it with
/// [`UiHandlerFactory::new`].
#[derive(Clone)]
pub struct UiSessionConfig {
    worker_name: String,
    options: UiContextOptions,
    instruction: Option<String>,
    classifier: Option<Arc<dyn Classifier>>,
    fallback: Option<Arc<dyn Classifier>>,
    respond: Option<(Arc<dyn Provider>, String)>,
    events: Vec<(String, UiEventHandler)>,
    peers: Vec<(String, Arc<dyn JobHandler>)>,
    offline: bool,
    agent: Option<VoiceAgentConfig>,
    max_job_groups: Option<usize>,
}

impl fmt::Debug for UiSessionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiSessionConfig")
            .field("worker_name", &self.worker_name)
            .field("options", &self.options)
            .field("instruction", &self.instruction)
            .field("classifier", &self.classifier)
            .field("fallback", &self.fallback)
            .field("respond_model", &self.respond.as_ref().map(|(_, m)| m))
            .field(
                "events",
                &self.events.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field(
                "peers",
                &self.peers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("offline", &self.offline)
            .field("agent", &self.agent)
            .field("max_job_groups", &self.max_job_groups)
            .finish()
    }
}

impl Default for UiSessionConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl UiSessionConfig {
    /// A worker named `"ui"` with pipecat's default context options, no instruction, the UI
    /// worker's default classifier (hark-ui's in-process `LocalClassifier`), no fallback
    /// classifier, no `respond` job, no event handlers and no peers.
    pub fn new() -> Self {
        UiSessionConfig {
            worker_name: DEFAULT_UI_WORKER.to_string(),
            options: UiContextOptions::default(),
            instruction: None,
            classifier: None,
            fallback: None,
            respond: None,
            events: Vec::new(),
            peers: Vec::new(),
            offline: false,
            agent: None,
            max_job_groups: None,
        }
    }

    /// At most `max` job groups of a session run at once (0 reads as 1; issue 9, point 4);
    /// one more is refused with [`hark_ui::messages::too_many_job_groups`] before anything is
    /// sent (see [`hark_ui::job_group::JobGroups::max_open`]). Without it, each session takes
    /// the server's limit, [`crate::config::DEFAULT_MAX_JOB_GROUPS`] (64).
    pub fn max_job_groups(mut self, max: usize) -> Self {
        self.max_job_groups = Some(max.max(1));
        self
    }

    /// A voice agent per session beside the UI worker ([`crate::agent_session`]): each
    /// `send-text` is a user turn of the agent (this takes precedence over the offline screen
    /// mode). The agent's LLM gets the session's `screen` tool, and `ask_screen` when the
    /// worker serves `respond` (whose LLM then also gets the reply tool).
    pub fn voice_agent(mut self, agent: VoiceAgentConfig) -> Self {
        self.agent = Some(agent);
        self
    }

    /// What `hark serve --demo` runs with no LLM configured (issue 8 point 4): the local
    /// classifier for screen questions and the offline screen mode ([`Self::offline_screen`]).
    pub fn offline_demo() -> Self {
        Self::new()
            .classifier(Arc::new(LocalClassifier::new()))
            .offline_screen()
    }

    /// The offline screen mode: each `send-text` is one [`OfflineScreen`] turn over this
    /// session's `screen` job (through the bus, as the voice LLM's tool would send it), answered
    /// as one bot reply; the session announces the mode once (see the module docs).
    pub fn offline_screen(mut self) -> Self {
        self.offline = true;
        self
    }

    /// The worker's name on the bus (must not be empty nor a peer's name).
    pub fn worker_name(mut self, name: impl Into<String>) -> Self {
        self.worker_name = name.into();
        self
    }

    /// The worker's context options (`inject_events`, `auto_inject_ui_state`, `keep_history`,
    /// `prompt_guide`).
    pub fn context_options(mut self, options: UiContextOptions) -> Self {
        self.options = options;
        self
    }

    /// The base system instruction of the worker's LLM context (the prompt guide is appended).
    pub fn instruction(mut self, instruction: impl Into<String>) -> Self {
        self.instruction = Some(instruction.into());
        self
    }

    /// The classifier of the worker's screen questions (e.g. a
    /// [`hark_classify::LlmClassifier`]).
    pub fn classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// The classifier asked when the first one fails.
    pub fn fallback_classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.fallback = Some(classifier);
        self
    }

    /// Serves the `respond` job too: the worker's own LLM turn over `provider` with `model`
    /// (a [`Responder`] sharing the session's [`WorkerContext`]).
    pub fn respond(mut self, provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        self.respond = Some((provider, model.into()));
        self
    }

    /// Runs `handler` for each client `ui-event` named `event` (after the event was recorded
    /// into the worker's context). Names are checked by [`UiHandlerFactory::new`].
    pub fn on_event<F, Fut>(mut self, event: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Arc<UiWorker>, UiEvent) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let handler: UiEventHandler = Arc::new(move |w, e| Box::pin(handler(w, e)));
        self.events.push((event.into(), handler));
        self
    }

    /// Puts `handler` on every session's bus as the worker `name`: a peer the UI worker's job
    /// groups can address. The same handler serves every session.
    pub fn peer_worker(mut self, name: impl Into<String>, handler: Arc<dyn JobHandler>) -> Self {
        self.peers.push((name.into(), handler));
        self
    }

    /// Every problem of this configuration, one line each: an empty, repeated or reserved
    /// event name (hark-ui's texts), an empty worker name, a peer named like the UI worker or
    /// like another peer (hark-ui's bus texts).
    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut builder = UiEvents::builder();
        for (name, _) in &self.events {
            builder = builder.on(name.clone(), |_| async {});
        }
        if let Err(e) = builder.build() {
            problems.extend(e.problems);
        }
        let scratch = Bus::new();
        let placeholder: Arc<dyn JobHandler> = Arc::new(JobRoutes::new(self.worker_name.clone()));
        let names = std::iter::once(&self.worker_name).chain(self.peers.iter().map(|(n, _)| n));
        for name in names {
            if let Err(e) = scratch.register(name.clone(), placeholder.clone()) {
                let line = e.to_string();
                if !problems.contains(&line) {
                    problems.push(line);
                }
            }
        }
        problems
    }
}

/// A [`UiSessionConfig`] that cannot serve: every problem, one line each, each naming the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("\n"))]
pub struct UiSetupError {
    /// The problems.
    pub problems: Vec<String>,
}

/// One session's UI side. Cheap to clone (all `Arc`s).
#[derive(Debug, Clone)]
pub struct UiSession {
    id: SessionId,
    worker: Arc<UiWorker>,
    context: Arc<WorkerContext>,
    bus: Arc<Bus>,
    groups: Arc<JobGroups>,
    events: Arc<UiEvents>,
}

impl UiSession {
    /// The session this belongs to.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The session's UI worker: latest snapshot, `<ui_state>`, commands, screen questions.
    pub fn worker(&self) -> &Arc<UiWorker> {
        &self.worker
    }

    /// The worker's LLM context (UI events are recorded here).
    pub fn context(&self) -> &Arc<WorkerContext> {
        &self.context
    }

    /// The session's bus: the UI worker (jobs `screen`, and `respond` when configured) and the
    /// peers.
    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    /// The job groups the UI worker dispatches; reported to the client as `ui-job-group`, and
    /// cancelled by the client's `ui-cancel-job-group`.
    pub fn job_groups(&self) -> &Arc<JobGroups> {
        &self.groups
    }

    /// The app's UI event handlers of this session.
    pub fn events(&self) -> &Arc<UiEvents> {
        &self.events
    }

    /// `screen` jobs from [`DEFAULT_SCREEN_SOURCE`] to the UI worker, through the bus.
    pub fn screen_jobs(&self) -> Arc<dyn ScreenJobs> {
        Arc::new(BusScreenJobs::new(
            self.bus.clone(),
            DEFAULT_SCREEN_SOURCE,
            self.worker.name(),
        ))
    }

    /// The `screen` tool for a voice LLM of this session (see [`hark_ui::screen_tools`]),
    /// waiting at most `timeout` for each answer (pipecat's default: 30 s,
    /// [`hark_ui::DEFAULT_SCREEN_TIMEOUT`]).
    ///
    /// # Errors
    /// [`BuildError`] only if hark-tools refused the fixed schema.
    pub fn screen_tools(&self, timeout: Duration) -> Result<Vec<ToolSpec>, BuildError> {
        screen_tools(self.screen_jobs(), timeout)
    }
}

/// The worker's [`CommandSink`]: puts a message straight into the session's [`Outbox`] when
/// it has room (never waiting: the sink must not block), else behind the ones already waiting
/// in an unbounded backlog that a task empties into the outbox in order, waiting for room (the
/// outbox's back-pressure; nothing is dropped). Before the session's first input (no outbox
/// yet) messages wait in the backlog. Closed when the handler is dropped, or when the session
/// closed under a send: every later send is refused with [`SinkClosed`].
///
/// Issue 9, per-session memory: no channel or task per session while the outbox has room (a
/// tokio mpsc allocates its first 32-slot block when made: 8.3 KiB for inline
/// [`ServerMessage`]s); the backlog allocates only when used.
#[derive(Debug, Default)]
struct SessionSink {
    state: Arc<Mutex<SinkState>>,
}

#[derive(Debug, Default)]
struct SinkState {
    /// The session's outbox, from its first input on.
    outbox: Option<Outbox>,
    /// Messages waiting for room in the outbox (or for the outbox), oldest first.
    backlog: std::collections::VecDeque<Box<ServerMessage>>,
    /// The task emptying the backlog, while it runs; new messages then queue behind it.
    drainer: Option<JoinHandle<()>>,
    closed: bool,
}

fn lock_sink(state: &Mutex<SinkState>) -> MutexGuard<'_, SinkState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionSink {
    /// From now on messages go to `outbox`; what waited for it goes first. Call inside the
    /// tokio runtime (the backlog's task is spawned on it).
    fn attach(&self, outbox: &Outbox) {
        let mut state = lock_sink(&self.state);
        if state.closed || state.outbox.is_some() {
            return;
        }
        state.outbox = Some(outbox.clone());
        if !state.backlog.is_empty() {
            self.start_drainer(&mut state);
        }
    }

    /// Spawns the task that moves the backlog into the outbox, in order, waiting for room.
    fn start_drainer(&self, state: &mut SinkState) {
        let Some(outbox) = state.outbox.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Outside the runtime (not how a worker runs): the backlog waits for the next send
            // made inside it.
            return;
        };
        let shared = self.state.clone();
        state.drainer = Some(runtime.spawn(async move {
            loop {
                let next = {
                    let mut state = lock_sink(&shared);
                    match state.backlog.pop_front() {
                        Some(message) => message,
                        None => {
                            state.drainer = None;
                            return;
                        }
                    }
                };
                if outbox.send_boxed(next).await.is_err() {
                    // The session closed: later sends are refused.
                    let mut state = lock_sink(&shared);
                    state.closed = true;
                    state.outbox = None;
                    state.backlog.clear();
                    state.drainer = None;
                    return;
                }
            }
        }));
    }

    /// Refuses every later send, drops what waits and stops the backlog's task.
    fn close(&self) {
        let mut state = lock_sink(&self.state);
        state.closed = true;
        state.outbox = None;
        state.backlog.clear();
        if let Some(drainer) = state.drainer.take() {
            drainer.abort();
        }
    }
}

impl CommandSink for SessionSink {
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed> {
        let mut state = lock_sink(&self.state);
        if state.closed {
            return Err(SinkClosed);
        }
        let mut message = Box::new(message);
        // Straight into the outbox only when nothing waits before it (order).
        if state.drainer.is_none()
            && state.backlog.is_empty()
            && let Some(outbox) = &state.outbox
        {
            match outbox.try_send_boxed(message) {
                Ok(()) => return Ok(()),
                Err(mpsc::error::TrySendError::Full(back)) => message = back,
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    state.closed = true;
                    state.outbox = None;
                    return Err(SinkClosed);
                }
            }
        }
        state.backlog.push_back(message);
        if state.drainer.is_none() && state.outbox.is_some() {
            self.start_drainer(&mut state);
        }
        Ok(())
    }
}

/// Issue 9, point 4: at most `limit` jobs named `job` waiting or running at once in one
/// session; one more is answered at once with status `error` and [`messages::too_many_jobs`].
#[derive(Debug)]
struct JobLimit {
    job: &'static str,
    inner: Arc<dyn JobHandler>,
    pending: Arc<AtomicUsize>,
    /// Set from the session's [`HandlerLimits`] on its first input.
    limit: Arc<AtomicUsize>,
}

/// Frees one place of a [`JobLimit`] when the job ends (answered or dropped).
struct PendingJob(Arc<AtomicUsize>);

impl Drop for PendingJob {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl JobHandler for JobLimit {
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        let limit = self.limit.load(Ordering::Relaxed).max(1);
        let admitted = self
            .pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .is_ok();
        if !admitted {
            info!(job = self.job, limit, source = %job.source, "job refused: too many waiting");
            let refusal = JobResponse::error(messages::too_many_jobs(self.job, limit));
            return Box::pin(std::future::ready(JobReply::Response(refusal)));
        }
        let place = PendingJob(self.pending.clone());
        let running = self.inner.handle(job, updates);
        Box::pin(async move {
            let _place = place;
            running.await
        })
    }
}

/// The job-group cap of a session whose [`UiSessionConfig`] sets none: the server's
/// ([`crate::ServerConfig::max_job_groups`], `--max-job-groups`).
fn server_job_group_limit(limits: &HandlerLimits) -> usize {
    limits.max_job_groups
}

type SessionMap = Mutex<HashMap<SessionId, UiSession>>;

fn lock(map: &SessionMap) -> MutexGuard<'_, HashMap<SessionId, UiSession>> {
    map.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes a [`UiSessionHandler`] for each session and keeps the running sessions by id.
///
/// Give it to [`crate::Server::bind_with_handler`] as an `Arc` (keep a clone to reach the
/// sessions).
pub struct UiHandlerFactory {
    config: UiSessionConfig,
    sessions: Arc<SessionMap>,
}

impl fmt::Debug for UiHandlerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiHandlerFactory")
            .field("config", &self.config)
            .field("sessions", &self.session_ids())
            .finish()
    }
}

impl UiHandlerFactory {
    /// Checks `config` and makes the factory.
    ///
    /// # Errors
    /// [`UiSetupError`] listing every problem (see [`UiSessionConfig`]'s builder methods).
    pub fn new(config: UiSessionConfig) -> Result<Self, UiSetupError> {
        let problems = config.problems();
        if !problems.is_empty() {
            return Err(UiSetupError { problems });
        }
        Ok(UiHandlerFactory {
            config,
            sessions: Arc::default(),
        })
    }

    /// The UI side of the running session `id`; `None` once it has ended (or never existed).
    pub fn session(&self, id: SessionId) -> Option<UiSession> {
        lock(&self.sessions).get(&id).cloned()
    }

    /// The ids of the running sessions, in order.
    pub fn session_ids(&self) -> Vec<SessionId> {
        let mut ids: Vec<SessionId> = lock(&self.sessions).keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// The handler of session `id`, built and registered (what [`HandlerFactory::create`]
    /// returns, typed).
    pub fn handler(&self, id: SessionId) -> UiSessionHandler {
        let c = &self.config;
        let sink = Arc::new(SessionSink::default());
        let mut worker =
            UiWorker::with_options(c.worker_name.clone(), sink.clone() as _, c.options.clone());
        if let Some(classifier) = &c.classifier {
            worker = worker.with_classifier(classifier.clone());
        }
        if let Some(fallback) = &c.fallback {
            worker = worker.with_fallback_classifier(fallback.clone());
        }
        let worker = Arc::new(worker);
        let context = Arc::new(WorkerContext::new(
            c.options.clone(),
            c.instruction.as_deref(),
        ));

        let bus = Arc::new(Bus::new());
        let mut routes = JobRoutes::new(c.worker_name.clone());
        let job_limit = Arc::new(AtomicUsize::new(HandlerLimits::default().max_pending_jobs));
        let limited = |job: &'static str, inner: Arc<dyn JobHandler>| -> Arc<dyn JobHandler> {
            Arc::new(JobLimit {
                job,
                inner,
                pending: Arc::default(),
                limit: job_limit.clone(),
            })
        };
        let screen = limited("screen", Arc::new(ScreenJobHandler::new(worker.clone())));
        let mut jobs: Vec<(&str, Arc<dyn JobHandler>)> = vec![("screen", screen)];
        if let Some((provider, model)) = &c.respond {
            let mut builder = Responder::builder(worker.clone(), provider.clone(), model.clone())
                .context(context.clone())
                // Beside a voice agent, the worker answers with the reply tool: its answer is
                // said verbatim by the agent's `ask_screen` tool.
                .reply_tool(c.agent.is_some());
            if let Some(instruction) = &c.instruction {
                builder = builder.instruction(instruction.clone());
            }
            jobs.push(("respond", limited("respond", Arc::new(builder.build()))));
        }
        for (job, handler) in jobs {
            routes = match routes.route(job, handler) {
                Ok(routes) => routes,
                // Unreachable: the job names above are distinct.
                Err(e) => {
                    error!(%e, "UI worker route not added");
                    return self.register(id, worker, context, bus, sink, job_limit);
                }
            };
        }
        let mut names = vec![(
            c.worker_name.clone(),
            Arc::new(routes) as Arc<dyn JobHandler>,
        )];
        names.extend(c.peers.iter().cloned());
        for (name, handler) in names {
            // Checked by `UiHandlerFactory::new`; a failure here would only be logged.
            if let Err(e) = bus.register(name, handler) {
                error!(%e, "worker not registered on the session bus");
            }
        }
        self.register(id, worker, context, bus, sink, job_limit)
    }

    fn register(
        &self,
        id: SessionId,
        worker: Arc<UiWorker>,
        context: Arc<WorkerContext>,
        bus: Arc<Bus>,
        sink: Arc<SessionSink>,
        job_limit: Arc<AtomicUsize>,
    ) -> UiSessionHandler {
        let mut builder = UiEvents::builder().context(context.clone());
        for (name, handler) in &self.config.events {
            let (handler, w) = (handler.clone(), worker.clone());
            builder = builder.on(name.clone(), move |event| handler(w.clone(), event));
        }
        let events = builder.build().unwrap_or_else(|e| {
            // Unreachable: `UiHandlerFactory::new` checked the names.
            error!(%e, "UI event handlers refused; events are only recorded");
            UiEvents::builder()
                .context(context.clone())
                .build()
                .unwrap_or_else(|_| unreachable!("no handlers, no problems"))
        });
        let groups = JobGroups::new(worker.name(), bus.clone(), sink.clone() as _).with_max_open(
            self.config
                .max_job_groups
                .unwrap_or_else(|| server_job_group_limit(&HandlerLimits::default())),
        );
        let session = UiSession {
            id,
            worker,
            context,
            bus,
            groups: Arc::new(groups),
            events: Arc::new(events),
        };
        lock(&self.sessions).insert(id, session.clone());
        let offline = self
            .config
            .offline
            .then(|| OfflineScreen::new(session.screen_jobs()));
        UiSessionHandler {
            agent_config: self
                .config
                .agent
                .clone()
                .map(|a| (a, self.config.respond.is_some())),
            agent: None,
            offline,
            announced: false,
            session,
            sessions: Arc::downgrade(&self.sessions),
            sink,
            attached: false,
            job_limit,
            limits: HandlerLimits::default(),
            max_job_groups: self.config.max_job_groups,
        }
    }
}

impl HandlerFactory for UiHandlerFactory {
    fn create(&self, session: SessionId) -> Box<dyn SessionHandler> {
        Box::new(self.handler(session))
    }
}

/// The session handler of a UI worker (see the module docs for what each input does).
///
/// Dropping it (the session ended) removes the session from its factory, stops forwarding the
/// worker's messages and aborts the running UI event handlers once no [`UiSession`] clone is
/// left.
pub struct UiSessionHandler {
    session: UiSession,
    sessions: Weak<SessionMap>,
    sink: Arc<SessionSink>,
    /// Whether the worker's sink was given the session's outbox (on the first input).
    attached: bool,
    /// The offline screen mode's turns, when configured.
    offline: Option<OfflineScreen>,
    /// Whether the offline mode was announced to this session yet.
    announced: bool,
    /// The voice agent's configuration (and whether the worker serves `respond`), until the
    /// agent is built on the first input (it needs the session's outbox).
    agent_config: Option<(VoiceAgentConfig, bool)>,
    /// The session's voice agent, once built.
    agent: Option<VoiceAgent>,
    /// The pending-jobs limit the session's [`JobLimit`]s read.
    job_limit: Arc<AtomicUsize>,
    /// The session's handler limits (from its outbox, on the first input).
    limits: HandlerLimits,
    /// [`UiSessionConfig::max_job_groups`], when the app set one (it wins over the server's).
    max_job_groups: Option<usize>,
}

impl fmt::Debug for UiSessionHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiSessionHandler")
            .field("session", &self.session.id)
            .field("attached", &self.attached)
            .finish_non_exhaustive()
    }
}

impl UiSessionHandler {
    /// The UI side of this handler's session.
    pub fn session(&self) -> &UiSession {
        &self.session
    }

    /// The session's voice agent, when one is configured and could be built.
    pub fn voice_agent(&self) -> Option<&VoiceAgent> {
        self.agent.as_ref()
    }

    /// Starts moving the worker's messages into `outbox` and builds the voice agent (once, on
    /// the first input).
    fn forward_to(&mut self, outbox: &Outbox) {
        if !self.attached {
            self.limits = outbox.handler_limits();
            self.job_limit
                .store(self.limits.max_pending_jobs, Ordering::Relaxed);
            if self.max_job_groups.is_none() {
                self.session
                    .groups
                    .set_max_open(server_job_group_limit(&self.limits));
            }
        }
        if let Some((config, respond)) = self.agent_config.take() {
            match config.agent(&self.session, outbox, respond) {
                Ok(agent) => self.agent = Some(agent),
                Err(e) => {
                    error!(session = %self.session.id, %e, "the voice agent cannot start; text turns get the no-agent answer")
                }
            }
        }
        if !self.attached {
            self.attached = true;
            self.sink.attach(outbox);
        }
    }

    /// Offline mode only: the mode's `server-message` and log line, once per session.
    async fn announce_offline(&mut self, outbox: &Outbox) {
        if self.offline.is_none() || self.announced {
            return;
        }
        self.announced = true;
        info!(session = %self.session.id, "{}", hark_ui::messages::offline_mode_notice());
        let message = ServerMessage::ServerMessage(hark_ui::offline::mode_message());
        let _ = outbox.send(message).await;
    }
}

impl SessionHandler for UiSessionHandler {
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
        self.forward_to(outbox);
        Box::pin(async move {
            match input {
                SessionInput::Snapshot(snapshot) => {
                    self.session.worker.on_snapshot(snapshot);
                }
                SessionInput::UiEvent(event) => {
                    let limit = self.limits.max_ui_events_in_flight;
                    if self.session.events.running() >= limit {
                        info!(session = %self.session.id, event = %event.event, limit, "ui-event refused: too many handlers running");
                        let refusal = messages::too_many_ui_events(limit);
                        let _ = outbox.send(crate::wire::error(&refusal)).await;
                        return;
                    }
                    let name = event.event.clone();
                    let dispatched = self.session.events.dispatch(event);
                    debug!(event = %name, ?dispatched, "ui-event");
                }
                SessionInput::CancelJobGroup { request_id, cancel } => {
                    let outcome = self.session.groups.cancel(&cancel);
                    let refusal = match outcome {
                        CancelOutcome::Cancelled => {
                            info!(job_id = %cancel.job_id, reason = cancel.reason_or_default(), "job group cancelled by the client");
                            return;
                        }
                        CancelOutcome::UnknownGroup => {
                            messages::cancel_unknown_group(&cancel.job_id)
                        }
                        CancelOutcome::NotCancellable => {
                            messages::cancel_not_cancellable(&cancel.job_id)
                        }
                    };
                    info!(job_id = %cancel.job_id, outcome = ?outcome, "ui-cancel-job-group not honoured");
                    let _ = outbox
                        .respond(request_id, crate::wire::error_response(&refusal))
                        .await;
                }
                SessionInput::UserText { text } if self.agent.is_some() => {
                    if let Some(agent) = &self.agent {
                        agent.user_turn(text).await;
                    }
                }
                SessionInput::Disconnect if self.agent.is_some() => {
                    if let Some(agent) = &self.agent {
                        agent.interrupt().await;
                    }
                }
                SessionInput::Ready { .. } if self.offline.is_some() => {
                    self.announce_offline(outbox).await;
                }
                SessionInput::UserText { text } if self.offline.is_some() => {
                    self.announce_offline(outbox).await;
                    let Some(offline) = &self.offline else { return };
                    let turn = offline.turn(&text).await;
                    // debug: the intent and the answer carry what the user typed.
                    debug!(session = %self.session.id, intent = ?turn.intent, jobs = turn.calls.len(), answer = %turn.sentence, "offline screen turn");
                    // Through the worker's sink, behind the turn's UI commands: the answer
                    // reaches the client after what it reports.
                    for m in crate::wire::bot_reply(&turn.sentence, outbox.legacy()) {
                        if self.sink.send(m).is_err() {
                            return;
                        }
                    }
                }
                other => NoAgentHandler.handle(other, outbox).await,
            }
        })
    }
}

impl Drop for UiSessionHandler {
    fn drop(&mut self) {
        // Issue 9, point 2: a job group started by a tool or app task ends with the session.
        self.session.groups.close();
        self.sink.close();
        if let Some(sessions) = self.sessions.upgrade() {
            lock(&sessions).remove(&self.session.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use hark_rtvi::JobStatus;
    use hark_rtvi::snapshot::A11ySnapshot;
    use hark_rtvi::ui::{JobGroupEnvelope, UiCancelJobGroup};
    use hark_ui::job_group::JobGroupParams;
    use hark_ui::{JobReply, JobRequest, JobResponse, JobUpdates};
    use serde_json::json;

    use crate::messages;
    use crate::session::Outgoing;

    /// A peer that never answers (until the group is torn down).
    #[derive(Debug)]
    struct Never;
    impl JobHandler for Never {
        fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
            Box::pin(futures::future::pending())
        }
    }

    /// A peer that answers `{"from": name}` at once.
    #[derive(Debug)]
    struct Echo;
    impl JobHandler for Echo {
        fn handle(&self, job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
            Box::pin(async move {
                JobReply::Response(JobResponse::completed(json!({"from": job.target})))
            })
        }
    }

    fn snapshot() -> Arc<A11ySnapshot> {
        Arc::new(
            A11ySnapshot::from_json(
                r#"{"root":{"ref":"e1","role":"form","children":[
                {"ref":"e2","role":"checkbox","name":"Gift wrap"}]},"captured_at":1}"#,
            )
            .unwrap(),
        )
    }

    async fn next(rx: &mut mpsc::Receiver<Outgoing>) -> ServerMessage {
        *tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("a message in time")
            .expect("outbox open")
            .message
    }

    #[tokio::test]
    async fn snapshots_events_and_commands_go_through_the_worker() {
        let factory = UiHandlerFactory::new(UiSessionConfig::new()).unwrap();
        let mut h = factory.handler(SessionId(7));
        assert_eq!(factory.session_ids(), vec![SessionId(7)]);
        let (outbox, mut rx) = Outbox::channel(SessionId(7), 8);
        let session = factory.session(SessionId(7)).expect("registered");
        assert!(session.worker().snapshot().is_none());

        h.handle(SessionInput::Snapshot(snapshot()), &outbox).await;
        assert_eq!(
            session.worker().render_ui_state(),
            "<ui_state>\n- form [ref=e1]:\n  - checkbox \"Gift wrap\" [ref=e2]\n</ui_state>"
        );

        // No handler: the event is only recorded into the worker's context.
        let event = UiEvent {
            event: "add_to_cart".into(),
            payload: Some(json!({"product": "Travel mug"}).into()),
        };
        h.handle(SessionInput::UiEvent(event), &outbox).await;
        let recorded: Vec<String> = session
            .context()
            .messages()
            .into_iter()
            .map(|m| m.content)
            .collect();
        assert_eq!(
            recorded,
            vec![
                r#"<ui_event name="add_to_cart">{"product": "Travel mug"}</ui_event>"#.to_string()
            ]
        );

        // The worker's commands reach the session's outbox.
        session.worker().click("e2").unwrap();
        let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
            panic!("a ui-command")
        };
        assert_eq!(
            (cmd.command.as_str(), &cmd.payload),
            ("click", &json!({"ref": "e2", "target_id": null}))
        );

        // A text turn keeps the no-agent behaviour: the same messages as NoAgentHandler's.
        h.handle(SessionInput::UserText { text: "hi".into() }, &outbox)
            .await;
        let mut ours = Vec::new();
        while let Ok(out) = rx.try_recv() {
            ours.push(out.message);
        }
        let (plain, mut plain_rx) = Outbox::channel(SessionId(8), 8);
        NoAgentHandler
            .handle(SessionInput::UserText { text: "hi".into() }, &plain)
            .await;
        let mut expected = Vec::new();
        while let Ok(out) = plain_rx.try_recv() {
            expected.push(out.message);
        }
        assert_eq!(ours, expected);
        assert!(
            ours.iter()
                .any(|m| m.to_json(None).contains(&messages::no_agent_reply()))
        );

        drop(h);
        assert!(
            factory.session(SessionId(7)).is_none(),
            "an ended session leaves the map"
        );
        assert_eq!(
            session.worker().click("e2").unwrap_err(),
            hark_ui::CommandError::Closed {
                command: "click".into()
            },
            "after the session, commands are refused"
        );
    }

    #[tokio::test]
    async fn an_event_handler_acts_on_the_page() {
        let config = UiSessionConfig::new().on_event(
            "wrap_it",
            |worker: Arc<UiWorker>, _event| async move {
                let _ = worker.click("e2");
            },
        );
        let factory = UiHandlerFactory::new(config).unwrap();
        let mut h = factory.handler(SessionId(1));
        let (outbox, mut rx) = Outbox::channel(SessionId(1), 8);
        h.handle(SessionInput::Snapshot(snapshot()), &outbox).await;
        h.handle(
            SessionInput::UiEvent(UiEvent {
                event: "wrap_it".into(),
                payload: None,
            }),
            &outbox,
        )
        .await;
        let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
            panic!("a ui-command")
        };
        assert_eq!(cmd.command, "click");
        let session = h.session().clone();
        assert_eq!(
            session.context().messages()[0].content,
            r#"<ui_event name="wrap_it">null</ui_event>"#
        );
    }

    #[tokio::test]
    async fn the_client_cancels_a_group_and_the_unfinished_worker_reads_cancelled() {
        let config = UiSessionConfig::new()
            .peer_worker("fast", Arc::new(Echo))
            .peer_worker("slow", Arc::new(Never));
        let factory = UiHandlerFactory::new(config).unwrap();
        let mut h = factory.handler(SessionId(2));
        let (outbox, mut rx) = Outbox::channel(SessionId(2), 16);
        h.handle(SessionInput::Snapshot(snapshot()), &outbox).await;
        let session = h.session().clone();
        let groups = session.job_groups().clone();
        let run = tokio::spawn(async move {
            groups
                .run(
                    &["fast", "slow"],
                    JobGroupParams::new("research", json!({"q": "mugs"})).label("Research"),
                )
                .await
        });
        let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted {
            job_id, workers, ..
        }) = next(&mut rx).await
        else {
            panic!("group_started first")
        };
        assert_eq!(workers, vec!["fast", "slow"]);
        let ServerMessage::UiJobGroup(JobGroupEnvelope::JobCompleted {
            worker_name,
            status,
            ..
        }) = next(&mut rx).await
        else {
            panic!("fast completes")
        };
        assert_eq!(
            (worker_name.as_str(), status),
            ("fast", JobStatus::Completed)
        );

        h.handle(
            SessionInput::CancelJobGroup {
                request_id: Some("k1".into()),
                cancel: UiCancelJobGroup {
                    job_id: job_id.clone(),
                    reason: None,
                },
            },
            &outbox,
        )
        .await;
        let ServerMessage::UiJobGroup(JobGroupEnvelope::JobCompleted {
            worker_name,
            status,
            response,
            ..
        }) = next(&mut rx).await
        else {
            panic!("slow is cancelled")
        };
        assert_eq!(
            (worker_name.as_str(), status, response),
            ("slow", JobStatus::Cancelled, None)
        );
        let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupCompleted { job_id: done, .. }) =
            next(&mut rx).await
        else {
            panic!("then group_completed")
        };
        assert_eq!(done, job_id);
        run.await.unwrap().unwrap();
    }

    /// A cancel the worker cannot honour is answered with an error-response on the request id
    /// naming the group and why: unknown (or finished) groups, and groups started as not
    /// cancellable (which keep running).
    #[tokio::test]
    async fn a_cancel_that_cannot_be_honoured_gets_an_error_response() {
        let config = UiSessionConfig::new().peer_worker("slow", Arc::new(Never));
        let factory = UiHandlerFactory::new(config).unwrap();
        let mut h = factory.handler(SessionId(3));
        let (outbox, mut rx) = Outbox::channel(SessionId(3), 16);
        h.handle(SessionInput::Snapshot(snapshot()), &outbox).await;
        let cancel = |id: &str, job: &str| SessionInput::CancelJobGroup {
            request_id: Some(id.into()),
            cancel: UiCancelJobGroup {
                job_id: job.into(),
                reason: None,
            },
        };

        h.handle(cancel("k1", "J-nope"), &outbox).await;
        let out = rx.recv().await.unwrap();
        assert_eq!(out.id.as_deref(), Some("k1"));
        assert_eq!(
            *out.message,
            ServerMessage::ErrorResponse {
                error: messages::cancel_unknown_group("J-nope")
            }
        );

        let groups = h.session().job_groups().clone();
        let run = tokio::spawn(async move {
            groups
                .run(
                    &["slow"],
                    JobGroupParams::new("research", json!({})).cancellable(false),
                )
                .await
        });
        let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted { job_id, .. }) =
            next(&mut rx).await
        else {
            panic!("group_started first")
        };
        h.handle(cancel("k2", &job_id), &outbox).await;
        let out = rx.recv().await.unwrap();
        assert_eq!(out.id.as_deref(), Some("k2"));
        assert_eq!(
            *out.message,
            ServerMessage::ErrorResponse {
                error: messages::cancel_not_cancellable(&job_id)
            }
        );
        assert!(!run.is_finished(), "a not-cancellable group keeps running");
        run.abort();
    }

    /// The offline screen mode: the session announces it once when ready, and a text turn is
    /// one offline turn over the session's `screen` job, answered as one bot reply.
    #[tokio::test]
    async fn offline_mode_announces_itself_and_answers_text_with_screen_jobs() {
        let factory = UiHandlerFactory::new(UiSessionConfig::offline_demo()).unwrap();
        let mut h = factory.handler(SessionId(4));
        let (outbox, mut rx) = Outbox::channel(SessionId(4), 16);
        let version = hark_rtvi::version::check_client_version(Some("2.1.0"));
        h.handle(SessionInput::Ready { version }, &outbox).await;
        let ServerMessage::ServerMessage(notice) = next(&mut rx).await else {
            panic!("the mode's server-message")
        };
        assert_eq!(notice, hark_ui::offline::mode_message());
        h.handle(SessionInput::Snapshot(snapshot()), &outbox).await;

        h.handle(
            SessionInput::UserText {
                text: "tick the gift wrap checkbox".into(),
            },
            &outbox,
        )
        .await;
        let reply = crate::wire::bot_reply(
            &hark_ui::messages::offline_toggled("Gift wrap", Some(true)),
            outbox.legacy(),
        );
        // The click first, then the answer that reports it in a box's words.
        let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
            panic!("the click first")
        };
        assert_eq!(
            (cmd.command.as_str(), &cmd.payload),
            ("click", &json!({"ref": "e2", "target_id": null}))
        );
        let mut texts = Vec::new();
        for _ in 0..reply.len() {
            texts.push(next(&mut rx).await);
        }
        assert_eq!(
            texts, reply,
            "one bot reply, and the mode announced only once"
        );
        assert!(rx.try_recv().is_err(), "nothing more");
    }

    /// Issue 9, point 4: at most `limit` jobs of a name wait or run at once; one more is
    /// answered at once with the refusal the model reads; a finished (or dropped) job frees its
    /// place.
    #[tokio::test]
    async fn jobs_over_the_pending_limit_are_refused_at_once() {
        let limited = JobLimit {
            job: "screen",
            inner: Arc::new(Never),
            pending: Arc::default(),
            limit: Arc::new(AtomicUsize::new(2)),
        };
        let job = || JobRequest::new("voice-screen-1", "voice", "ui", "screen", json!({}));
        let first = limited.handle(job(), JobUpdates::discard(&job()));
        let second = limited.handle(job(), JobUpdates::discard(&job()));
        let JobReply::Response(refused) = limited.handle(job(), JobUpdates::discard(&job())).await
        else {
            panic!("an answer")
        };
        assert_eq!(
            refused,
            JobResponse::error(messages::too_many_jobs("screen", 2))
        );
        drop(first);
        let third = limited.handle(job(), JobUpdates::discard(&job()));
        assert_eq!(limited.pending.load(Ordering::Relaxed), 2);
        drop((second, third));
        assert_eq!(limited.pending.load(Ordering::Relaxed), 0);
    }

    /// Issue 9, point 4: a `ui-event` while the session's limit of handlers still run is
    /// refused with an `error` and not recorded; once one finishes, events are taken again.
    #[tokio::test]
    async fn ui_events_over_the_in_flight_limit_are_refused() {
        let (release, released) = tokio::sync::watch::channel(false);
        let config = UiSessionConfig::new().on_event("slow", move |_w, _e| {
            let mut released = released.clone();
            async move {
                let _ = released.wait_for(|r| *r).await;
            }
        });
        let factory = UiHandlerFactory::new(config).unwrap();
        let mut h = factory.handler(SessionId(9));
        let limits = HandlerLimits {
            max_ui_events_in_flight: 2,
            ..HandlerLimits::default()
        };
        let (outbox, mut rx) = Outbox::channel_with(SessionId(9), 8, limits);
        let slow = || {
            SessionInput::UiEvent(UiEvent {
                event: "slow".into(),
                payload: None,
            })
        };
        h.handle(slow(), &outbox).await;
        h.handle(slow(), &outbox).await;
        assert!(rx.try_recv().is_err(), "two are taken");
        h.handle(slow(), &outbox).await;
        assert_eq!(
            next(&mut rx).await,
            crate::wire::error(&messages::too_many_ui_events(2))
        );
        assert_eq!(h.session().context().messages().len(), 2, "not recorded");
        release.send(true).unwrap();
        h.session().events().wait_idle().await;
        h.handle(slow(), &outbox).await;
        assert!(rx.try_recv().is_err(), "taken again");
        assert_eq!(h.session().context().messages().len(), 3);
    }

    /// The worker's sink: messages sent before the session's first input wait for its
    /// outbox; over a full outbox they wait in order behind each other (none dropped, none
    /// overtaking); once the session closed (or the handler dropped) sends are refused.
    #[tokio::test]
    async fn the_sink_keeps_order_over_a_full_outbox_and_refuses_once_closed() {
        let text = |n: usize| crate::wire::error(&format!("m{n}"));
        let sink = SessionSink::default();
        sink.send(text(0)).unwrap();
        sink.send(text(1)).unwrap();
        let (outbox, mut rx) = Outbox::channel(SessionId(11), 2);
        sink.attach(&outbox);
        // Two fit, the rest wait for room while the sink goes on accepting (never blocking).
        for n in 2..10 {
            sink.send(text(n)).unwrap();
        }
        for n in 0..10 {
            assert_eq!(next(&mut rx).await, text(n), "message {n} in order");
        }
        // An empty backlog again: straight into the outbox.
        sink.send(text(10)).unwrap();
        assert_eq!(next(&mut rx).await, text(10));

        // The backlog's task ends once the backlog is empty.
        tokio::time::timeout(Duration::from_secs(30), async {
            while lock_sink(&sink.state).drainer.is_some() {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the backlog's task ended");
        drop(rx);
        assert_eq!(sink.send(text(11)), Err(SinkClosed), "the session closed");
        assert_eq!(sink.send(text(12)), Err(SinkClosed));

        let closed = SessionSink::default();
        let (outbox, _rx) = Outbox::channel(SessionId(12), 2);
        closed.attach(&outbox);
        closed.close();
        assert_eq!(
            closed.send(text(0)),
            Err(SinkClosed),
            "the handler was dropped"
        );
    }

    #[test]
    fn a_bad_config_lists_every_problem() {
        let err = UiHandlerFactory::new(
            UiSessionConfig::new()
                .on_event("", |_, _| async {})
                .on_event("__ui_snapshot", |_, _| async {})
                .peer_worker("ui", Arc::new(Echo))
                .peer_worker("", Arc::new(Echo)),
        )
        .unwrap_err();
        assert_eq!(err.problems.len(), 4, "{err}");
        assert_eq!(err.problems[0], hark_ui::messages::event_name_empty());
        assert_eq!(
            err.problems[1],
            hark_ui::messages::event_name_reserved("__ui_snapshot")
        );
        assert_eq!(err.problems[2], hark_ui::messages::duplicate_worker("ui"));
        assert_eq!(err.problems[3], hark_ui::messages::empty_worker_name());
    }
}
