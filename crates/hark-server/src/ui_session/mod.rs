//! A UI worker per session: the session's snapshots, UI events and job-group cancels go to a
//! [`UiWorker`], and the worker's commands and `ui-job-group` envelopes go back to the client.
//!
//! The client sends `ui-snapshot`, `ui-event` and `ui-cancel-job-group`; the server sends
//! `ui-command` and `ui-job-group`. Snapshots, events and cancels reach the worker through the
//! session's bus.
//!
//! The files, each importing only those above it: `config` (what a session is built from),
//! `sink` (the worker's commands into the outbox), `job_limit` (the job caps), `hub` (with a
//! bus on Redis: the one connection the sessions share), `remote` (one session's link on its
//! channel), `worker` (one session's UI side, wired), `handler` (each session input to it), and
//! this module (the factory that makes one per session and keeps them by id).
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
//! | `ui-event` | [`UiEvents::dispatch`] (`<ui_event>` into the context, then the handler); refused with an `error` ([`messages::too_many_ui_events`](crate::messages::too_many_ui_events)) while [`HandlerLimits::max_ui_events_in_flight`] handlers of the session still run |
//! | `ui-cancel-job-group` | [`JobGroups::cancel`]; an unknown or not cancellable group gets an `error-response` with the request id |
//! | `send-text` | with [`UiSessionConfig::voice_agent`]: a user turn of the session's voice agent ([`crate::agent_session`]; it interrupts the running turn); else with [`UiSessionConfig::offline_screen`]: one offline turn ([`hark_ui::offline`]), answered as one bot reply; else [`NoAgentHandler`](crate::NoAgentHandler) |
//! | `disconnect-bot` | the voice agent's running turn is interrupted |
//! | `client-message` | [`NoAgentHandler`](crate::NoAgentHandler) (no agent yet) |
//!
//! In the offline screen mode the handler also says so, once per session when the client is
//! ready: the `server-message` [`hark_ui::offline::mode_message`] (the demo page shows its
//! text) and one log line ([`hark_ui::messages::offline_mode_notice`]).
//!
//! The worker's [`CommandSink`](hark_ui::CommandSink) is the session's [`Outbox`](crate::Outbox): a command is queued at once (the
//! sink must not block), straight into the session's bounded outbound queue when it has room,
//! else behind the ones already waiting in a backlog that a task of the handler moves into the
//! queue in order, so commands and envelopes reach the client in the order they were sent and
//! none is dropped while the session runs.
//! Once the session ends, sending fails with [`hark_ui::SinkClosed`] (a command then reads
//! [`hark_ui::CommandError::Closed`]).
//!
//! The worker's `screen` and `respond` jobs are capped per session at
//! [`HandlerLimits::max_pending_jobs`] each (waiting or running, from
//! [`crate::ServerConfig::max_pending_jobs`] through [`Outbox::handler_limits`](crate::Outbox::handler_limits)); a job over it
//! is answered at once with status `error` and [`messages::too_many_jobs`](crate::messages::too_many_jobs), which the model
//! reads as the tool's error.
//!
//! Job groups: at most [`UiSessionConfig::max_job_groups`] of a session's
//! [`JobGroups`] run at once (default [`crate::config::DEFAULT_MAX_JOB_GROUPS`], 64, far above
//! what an app runs); one more is refused before anything is sent, with a
//! [`hark_ui::job_group::JobGroupError`] of [`hark_ui::messages::too_many_job_groups`] for the
//! app that asked. The session and its running groups go on, and other sessions have their own
//! count.
//!
//! ## With a bus on Redis
//!
//! With [`UiSessionConfig::remote_bus`] (`hark serve --bus`), each session's `screen` and
//! `respond` jobs go to the worker named [`UiSessionConfig::worker_name`] on the session's own
//! Redis channel, and its UI messages are forwarded both ways as Pipecat's `PipelineWorker`
//! forwards them ([`remote`]). The factory opens one Redis connection pair for all its
//! sessions, with its first session (a pattern subscription on the channel prefix, so give
//! each server its own `--bus-channel-prefix`).
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
//! handler.handle(SessionInput::Snapshot(snapshot.into()), &outbox).await;
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

mod config;
mod handler;
mod hub;
mod job_limit;
pub mod remote;
mod sink;
mod worker;

pub use config::{
    DEFAULT_CHANNEL_PREFIX, DEFAULT_SCREEN_SOURCE, DEFAULT_UI_WORKER, RemoteBusConfig,
    UiEventHandler, UiSessionConfig, UiSetupError,
};
pub use handler::UiSessionHandler;
pub use worker::UiSession;

use std::fmt;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use hark_ui::offline::OfflineScreen;
use hark_ui::{
    Bus, JobGroups, JobHandler, JobRoutes, Responder, ScreenJobHandler, UiEvents, UiWorker,
    WorkerContext,
};
use tracing::error;

use crate::session::{HandlerFactory, HandlerLimits, SessionHandler};
use crate::sessions::id::SessionId;

use hub::RemoteHub;
use job_limit::{JobLimit, server_job_group_limit};
use remote::{RemoteLink, RemoteWorker};
use sink::SessionSink;
use worker::{SessionMap, lock};

/// Makes a [`UiSessionHandler`] for each session and keeps the running sessions by id.
///
/// Give it to [`crate::Server::bind_with_handler`] as an `Arc` (keep a clone to reach the
/// sessions).
pub struct UiHandlerFactory {
    config: UiSessionConfig,
    sessions: Arc<SessionMap>,
    /// With a bus on Redis: the one connection every session shares, made with the first
    /// session (inside the runtime); `Err` when the URL cannot be used.
    hub: OnceLock<Result<Arc<RemoteHub>, hark_bus::redis_bus::BadRedisUrl>>,
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
            hub: OnceLock::new(),
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
        // With a bus on Redis, the session's jobs go to the worker on its channel.
        let remote = c.remote.as_ref().and_then(|remote| {
            match self.hub.get_or_init(|| RemoteHub::start(remote)) {
                Ok(hub) => Some((
                    RemoteLink::start(hub, remote, id, sink.clone()),
                    remote.job_timeout,
                )),
                Err(e) => {
                    error!(session = %id, %e, "the session's bus cannot use Redis; its jobs run in process");
                    None
                }
            }
        });
        let link = remote.as_ref().map(|(link, _)| link.clone());
        let mut jobs: Vec<(&str, Arc<dyn JobHandler>)> = Vec::new();
        if let Some((link, timeout)) = remote {
            let worker: Arc<dyn JobHandler> = Arc::new(RemoteWorker { link, timeout });
            jobs.push(("screen", limited("screen", worker.clone())));
            jobs.push(("respond", limited("respond", worker)));
        } else {
            let screen = limited("screen", Arc::new(ScreenJobHandler::new(worker.clone())));
            jobs.push(("screen", screen));
        }
        if let Some((provider, model)) = c.respond.as_ref().filter(|_| link.is_none()) {
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
                    return self.register(id, worker, context, bus, sink, job_limit, link);
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
        self.register(id, worker, context, bus, sink, job_limit, link)
    }

    // The parts `handler` built, each once; a struct for them would only be unpacked here.
    #[allow(clippy::too_many_arguments)]
    fn register(
        &self,
        id: SessionId,
        worker: Arc<UiWorker>,
        context: Arc<WorkerContext>,
        bus: Arc<Bus>,
        sink: Arc<SessionSink>,
        job_limit: Arc<AtomicUsize>,
        remote: Option<Arc<RemoteLink>>,
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
            remote,
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

#[cfg(test)]
mod tests;
