//! The voice agent of a session: a hark-agent [`VoiceAgent`] beside the session's UI worker.
//!
//! The UI worker runs beside the voice agent on an in-process bus: the voice LLM gets
//! `screen_tools`, the worker gets the session's snapshots and UI events (see
//! `docs/ARCHITECTURE.md`, "The flow of one call").
//!
//! [`VoiceAgentConfig`] says what every session's agent is made of (provider, model, system
//! prompt, tools, language, timezone). [`crate::UiSessionConfig::voice_agent`] puts it on the UI
//! sessions; then, per session:
//! - the voice LLM's tools are the configured ones plus hark-ui's `screen` tool over the
//!   session's bus, and `ask_screen` (a `respond` job, [`hark_agent::ask_screen_tool`]) when
//!   the session's UI worker serves `respond`;
//! - each `send-text` is a user turn of the agent ([`VoiceAgent::user_turn`]): it interrupts
//!   the running turn, if any, and runs in the agent's own task, so the session keeps reading;
//! - with a TTS (an agent file's `[tts]`, [`VoiceAgentConfig::tts`]) each spoken line is also
//!   synthesized and its audio sent as binary frames at real-time pace (hark-agent's playout);
//! - with a [`Hearing`] (an agent file's `[stt]`, [`VoiceAgentConfig::hearing`]) the session's
//!   microphone audio frames go to the agent, which hears turns in them (VAD, barge-in, STT);
//! - the agent speaks through [`OutboxOutput`] (the session's outbound queue), and a tool call
//!   that ends the conversation closes the session ([`Outbox::end_session`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use hark_agent::agent::BackgroundDrain;
use hark_agent::agent_file::AgentSetup;
use hark_agent::{
    AgentEvent, AgentOutput, AgentSettings, Conductor, Hearing, OutputClosed, VoiceAgent,
};
use hark_llm::Provider;
use hark_tools::{BuildError, CallInfo, CallState, Dialect, ToolRegistry};

use crate::session::Outbox;
use crate::ui_session::{DEFAULT_SCREEN_SOURCE, UiSession};

/// The session's outbound queue as the agent's output: each [`AgentEvent`] goes out as its RTVI
/// messages ([`crate::agent_events::to_rtvi`]).
#[derive(Debug, Clone)]
pub struct OutboxOutput {
    outbox: Outbox,
}

impl OutboxOutput {
    /// The agent's output over `outbox`.
    pub fn new(outbox: Outbox) -> Self {
        OutboxOutput { outbox }
    }
}

impl AgentOutput for OutboxOutput {
    fn send(&self, event: AgentEvent) -> BoxFuture<'_, Result<(), OutputClosed>> {
        Box::pin(async move {
            if let AgentEvent::Audio(chunk) = &event {
                let frame = crate::agent_events::audio_frame(chunk);
                return self
                    .outbox
                    .send_audio(frame)
                    .await
                    .map_err(|_| OutputClosed);
            }
            for message in crate::agent_events::to_rtvi(event, self.outbox.legacy()) {
                self.outbox.send(message).await.map_err(|_| OutputClosed)?;
            }
            Ok(())
        })
    }

    fn end(&self) -> BoxFuture<'_, ()> {
        self.outbox.end_session();
        Box::pin(async {})
    }
}

/// Makes a session's conductor over its tools (the configured ones plus the screen tools).
pub type ConductorFactory = Arc<dyn Fn(Arc<ToolRegistry>) -> Arc<dyn Conductor> + Send + Sync>;

/// What every session's voice agent is made of. Cheap to clone.
#[derive(Clone)]
pub struct VoiceAgentConfig {
    provider: Arc<dyn Provider>,
    model: String,
    dialect: Option<Dialect>,
    instructions: String,
    registry: Arc<ToolRegistry>,
    language: String,
    timezone: Option<String>,
    screen_timeout: Duration,
    screen: bool,
    conductor: Option<ConductorFactory>,
    background: Option<BackgroundDrain>,
    tts: Option<Arc<dyn hark_voice::Tts>>,
    hearing: Option<Arc<Hearing>>,
    /// Each session gets the offline screen mode's tool ([`crate::offline_voice`]).
    offline_screen: bool,
}

impl fmt::Debug for VoiceAgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VoiceAgentConfig")
            .field("provider", &self.provider.label().to_string())
            .field("model", &self.model)
            .field("tools", &self.registry.names())
            .field("language", &self.language)
            .field("timezone", &self.timezone)
            .finish_non_exhaustive()
    }
}

impl VoiceAgentConfig {
    /// A plain agent: `model` of `provider`, told `instructions`, with the tools of `registry`
    /// (the session's screen tools are added per session), speaking `en-US` with no timezone.
    pub fn new(
        provider: Arc<dyn Provider>,
        model: impl Into<String>,
        instructions: impl Into<String>,
        registry: Arc<ToolRegistry>,
    ) -> Self {
        VoiceAgentConfig {
            provider,
            model: model.into(),
            dialect: None,
            instructions: instructions.into(),
            registry,
            language: "en-US".into(),
            timezone: None,
            screen_timeout: hark_ui::DEFAULT_SCREEN_TIMEOUT,
            screen: true,
            conductor: None,
            background: None,
            tts: None,
            hearing: None,
            offline_screen: false,
        }
    }

    /// The agent an agent file describes, or `None` when it has no LLM (no `[llm]`, or its key's
    /// variable is unset): then the session runs the offline screen mode.
    pub fn from_setup(setup: &AgentSetup) -> Option<Self> {
        let llm = setup.llm.as_ref()?;
        let mut config = Self::new(
            llm.provider.clone(),
            llm.model.clone(),
            setup.system_prompt.clone(),
            setup.registry.clone(),
        )
        .language(setup.language.clone())
        .timezone(setup.timezone.clone());
        if let Some(choice) = &setup.tts {
            config = config.tts(choice.tts.clone());
        }
        // A flow keeps its progress per call: each session gets its own run of the flow.
        if let Some(first) = setup.conductor() {
            let setup = setup.clone();
            config = config.conductor(Arc::new(move |_tools| {
                setup.conductor().unwrap_or_else(|| first.clone())
            }));
        }
        Some(config)
    }

    /// Gives each session's agent the offline screen mode's tool over its own `screen` job
    /// ([`crate::offline_voice::offline_screen_tool`]).
    pub fn offline_screen(mut self, on: bool) -> Self {
        self.offline_screen = on;
        self
    }

    /// Speaks every line aloud with `tts` (an agent file's `[tts]`): its audio goes to the
    /// client at the rate Pipecat's WebSocket client plays
    /// ([`hark_rtvi::audio::CLIENT_PLAYER_RATE`]), paced in real time; an interruption cuts it
    /// off. Without one (the default) the agent is text only.
    pub fn tts(mut self, tts: Arc<dyn hark_voice::Tts>) -> Self {
        self.tts = Some(tts);
        self
    }

    /// Hears the caller (an agent file's `[stt]`, with the Silero VAD model): the session's
    /// microphone audio frames go to the agent ([`VoiceAgent::hear`]), which reports
    /// `user-started-speaking` / `user-stopped-speaking` / `user-transcription`, barges in, and
    /// takes each transcript as a user turn. Without one (the default) audio frames are
    /// dropped and the client is told once.
    pub fn hearing(mut self, hearing: Arc<Hearing>) -> Self {
        self.hearing = Some(hearing);
        self
    }

    /// Whether every session's agent hears the microphone ([`VoiceAgentConfig::hearing`]).
    pub fn hears(&self) -> bool {
        self.hearing.is_some()
    }

    /// Whether every session's agent speaks aloud ([`VoiceAgentConfig::tts`]).
    pub fn speaks(&self) -> bool {
        self.tts.is_some()
    }

    /// The call's BCP 47 language (values are said in it).
    pub fn language(mut self, language: impl Into<String>) -> Self {
        self.language = language.into();
        self
    }

    /// The call's IANA timezone (dates are said in it).
    pub fn timezone(mut self, timezone: Option<String>) -> Self {
        self.timezone = timezone;
        self
    }

    /// The schema dialect of the provider (default: from the provider's kind).
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// How long the `screen` and `ask_screen` tools wait for the UI worker (default 30 s).
    pub fn screen_timeout(mut self, timeout: Duration) -> Self {
        self.screen_timeout = timeout;
        self
    }

    /// Whether the voice LLM gets the session's screen tools (`screen`, and `ask_screen` when
    /// the worker serves `respond`); default `true` (an agent file's `[ui] worker`).
    pub fn screen(mut self, on: bool) -> Self {
        self.screen = on;
        self
    }

    /// Uses a conductor made per session over its tools (a flow of steps) in place of the
    /// plain agent.
    pub fn conductor(mut self, factory: ConductorFactory) -> Self {
        self.conductor = Some(factory);
        self
    }

    /// Registers every session's background webhooks in `drain`, so the server can let them
    /// finish at shutdown (`hark serve` drains them after SIGTERM, see
    /// [`crate::serve::Served::drain`]).
    pub fn background_drain(mut self, drain: BackgroundDrain) -> Self {
        self.background = Some(drain);
        self
    }

    /// The voice agent of `session`, speaking to `outbox`. `respond`: the session's UI worker
    /// serves the `respond` job (the agent then gets `ask_screen`).
    ///
    /// # Errors
    /// [`BuildError`]: a configured tool is named like a screen tool, or the timezone is not
    /// an IANA name.
    pub(crate) fn agent(
        &self,
        session: &UiSession,
        outbox: &Outbox,
        respond: bool,
    ) -> Result<VoiceAgent, BuildError> {
        let mut extra = if self.screen {
            session.screen_tools(self.screen_timeout)?
        } else {
            Vec::new()
        };
        if self.screen && respond {
            extra.push(hark_agent::ask_screen_tool(
                session.bus().clone(),
                DEFAULT_SCREEN_SOURCE,
                session.worker().name(),
                self.screen_timeout,
            )?);
        }
        if self.offline_screen {
            extra.push(crate::offline_voice::offline_screen_tool(
                hark_ui::offline::OfflineScreen::new(session.screen_jobs()),
            )?);
        }
        let registry = Arc::new(self.registry.with_tools(extra)?);
        let mut settings = AgentSettings::new(
            self.provider.clone(),
            self.model.clone(),
            self.instructions.clone(),
            registry.clone(),
        );
        if let Some(dialect) = self.dialect {
            settings = settings.with_dialect(dialect);
        }
        if let Some(factory) = &self.conductor {
            settings = settings.with_conductor(factory(registry));
        }
        if let Some(drain) = &self.background {
            settings = settings.with_background_drain(drain.clone());
        }
        if let Some(tts) = &self.tts {
            settings = settings.with_tts(tts.clone(), hark_rtvi::audio::CLIENT_PLAYER_RATE);
        }
        if let Some(hearing) = &self.hearing {
            settings = settings.with_hearing(hearing.clone());
        }
        let call = CallInfo {
            session_id: session.id().to_string(),
            ..CallInfo::default()
        };
        let state = CallState::new(call, self.language.clone(), self.timezone.as_deref());
        VoiceAgent::new(settings, state, Arc::new(OutboxOutput::new(outbox.clone())))
    }
}
