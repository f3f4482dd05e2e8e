//! What every session's UI side is built from: [`UiSessionConfig`] (worker name, classifier,
//! `respond` model, peers, UI event handlers, the voice agent or the offline screen mode) and the
//! [`UiSetupError`] of a configuration that cannot serve.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use hark_classify::{Classifier, LocalClassifier};
use hark_llm::Provider;
use hark_ui::{Bus, JobHandler, JobRoutes, UiContextOptions, UiEvent, UiEvents, UiWorker};

use crate::agent_session::VoiceAgentConfig;
use crate::sessions::id::SessionId;

/// The UI worker's default name: the name jobs and job groups address it by.
pub const DEFAULT_UI_WORKER: &str = "ui";

/// The requester name [`UiSession::screen_jobs`](crate::UiSession::screen_jobs) uses by default (the voice side of the call).
pub const DEFAULT_SCREEN_SOURCE: &str = "voice";

/// The default channel prefix: session `s7`'s bus is `hark:s7`.
pub const DEFAULT_CHANNEL_PREFIX: &str = "hark:";

/// Where every session's bus is: one Redis server, one channel per session
/// (`<channel_prefix><session id>`).
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteBusConfig {
    /// `redis://host:port[/db]` or `unix:///path/to/socket`.
    pub url: String,
    /// Put before the session id to name its channel (default [`DEFAULT_CHANNEL_PREFIX`]).
    pub channel_prefix: String,
    /// Larger bus messages are dropped on the way in and refused on the way out.
    pub max_message_bytes: usize,
    /// How long a job waits for its worker's registry and then for its answer.
    pub job_timeout: Duration,
}

impl RemoteBusConfig {
    /// `url` with the default prefix, 4 MiB messages and 30 s jobs (Pipecat's `screen` timeout).
    pub fn new(url: impl Into<String>) -> Self {
        RemoteBusConfig {
            url: url.into(),
            channel_prefix: DEFAULT_CHANNEL_PREFIX.to_owned(),
            max_message_bytes: hark_bus::redis_bus::DEFAULT_MAX_MESSAGE_BYTES,
            job_timeout: hark_ui::DEFAULT_SCREEN_TIMEOUT,
        }
    }

    /// Session `id`'s channel.
    pub fn channel(&self, id: SessionId) -> String {
        format!("{}{id}", self.channel_prefix)
    }
}

/// An app's handler of one UI event: gets the session's worker (to act on the page) and the
/// event; runs in its own task.
pub type UiEventHandler =
    Arc<dyn Fn(Arc<UiWorker>, UiEvent) -> BoxFuture<'static, ()> + Send + Sync>;

/// What every session's UI worker is made of. Cheap to clone (everything shared is in `Arc`s).
///
/// Build with [`UiSessionConfig::new`] and the builder methods, then check it with
/// [`UiHandlerFactory::new`](crate::UiHandlerFactory::new).
#[derive(Clone)]
pub struct UiSessionConfig {
    pub(super) worker_name: String,
    pub(super) options: UiContextOptions,
    pub(super) instruction: Option<String>,
    pub(super) classifier: Option<Arc<dyn Classifier>>,
    pub(super) fallback: Option<Arc<dyn Classifier>>,
    pub(super) respond: Option<(Arc<dyn Provider>, String)>,
    pub(super) events: Vec<(String, UiEventHandler)>,
    pub(super) peers: Vec<(String, Arc<dyn JobHandler>)>,
    pub(super) offline: bool,
    pub(super) agent: Option<VoiceAgentConfig>,
    pub(super) max_job_groups: Option<usize>,
    pub(super) remote: Option<RemoteBusConfig>,
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
            .field("remote", &self.remote)
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
            remote: None,
        }
    }

    /// Each session's bus on Redis, on its own channel (`hark serve --bus`): the session's
    /// `screen` and `respond` jobs go to whichever worker named [`Self::worker_name`] answers
    /// on that channel, and the client's UI messages and the workers' commands are forwarded
    /// as Pipecat's `PipelineWorker` forwards them (see [`crate::ui_session`]'s bus section).
    pub fn remote_bus(mut self, remote: RemoteBusConfig) -> Self {
        self.remote = Some(remote);
        self
    }

    /// At most `max` job groups of a session run at once (0 reads as 1);
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

    /// What `hark serve --demo` runs with no LLM configured: the local
    /// classifier for screen questions and the offline screen mode ([`Self::offline_screen`]).
    pub fn offline_demo() -> Self {
        Self::new()
            .classifier(Arc::new(LocalClassifier::new()))
            .offline_screen()
    }

    /// The offline screen mode: each `send-text` is one [`OfflineScreen`](hark_ui::offline::OfflineScreen) turn over this
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
    /// (a [`Responder`](hark_ui::Responder) sharing the session's [`WorkerContext`](hark_ui::WorkerContext)).
    pub fn respond(mut self, provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        self.respond = Some((provider, model.into()));
        self
    }

    /// Runs `handler` for each client `ui-event` named `event` (after the event was recorded
    /// into the worker's context). Names are checked by [`UiHandlerFactory::new`](crate::UiHandlerFactory::new).
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
    pub(super) fn problems(&self) -> Vec<String> {
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
