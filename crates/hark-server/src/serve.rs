//! What `hark serve` runs in each session, from its flags.
//!
//! - `--agent FILE`: the agent file is built (as `hark check` does: with the demo shop's host,
//!   its local tools and its order service on loopback, only when the file uses the demo
//!   ([`demo::named_by`]); else with an empty host); each session gets the file's voice
//!   agent beside a UI worker. With no LLM (no `[llm]`, or its key's variable unset) the
//!   sessions run the offline screen mode, and the log says why; aloud with `[tts]` or `[stt]`
//!   ([`crate::offline_voice`]).
//! - `--demo` without `--agent`: the same with the demo shop's own agent file
//!   (`examples/shop.toml`, built into the binary): a real LLM when `OPENAI_API_KEY` is set,
//!   else the offline screen mode. With `--demo-stt-url URL` the demo's agent has a voice
//!   ([`demo::agent_file_with_voice`]).
//! - Neither: the built-in no-agent handler.
//! - `--bus URL` (with `--agent` or `--demo`): each session's bus on Redis, on the channel
//!   `--bus-channel-prefix` + the session id ([`agent_sessions_on`]); the session's jobs go to
//!   the `ui` worker answering there (`hark worker`, or Pipecat's Python `UIWorker`).
//!
//! Every session's background webhooks (`background = true`) register in [`Served::drain`];
//! at shutdown, after the sessions closed, `hark serve` gives them [`Served::drain_limit`] to
//! finish and logs each session's work still running then.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hark_agent::Hearing;
use hark_agent::agent::{BackgroundDrain, ShutdownDrain};
use hark_agent::agent_file::{AgentFile, AgentSetup, ClassifierChoice, Host};
use hark_classify::{LlmClassifier, LocalClassifier};
use hark_ui::UiContextOptions;
use hark_voice::VadParams;
use tracing::{info, warn};

use crate::agent_session::VoiceAgentConfig;
use crate::demo::{self, DemoShop};
use crate::ui_session::{RemoteBusConfig, UiHandlerFactory, UiSessionConfig};

/// The sessions' handler factory and the demo shop it relies on (keep it alive while serving:
/// dropping it stops the order service).
#[derive(Debug)]
pub struct Served {
    /// Makes each session's handler.
    pub factory: Arc<UiHandlerFactory>,
    /// The demo shop's order service and orders, when the agent file uses the demo
    /// ([`demo::named_by`]); `None`: the demo was not started.
    pub shop: Option<DemoShop>,
    /// The agent's name.
    pub agent: String,
    /// True when a voice agent runs (an LLM is configured); false in the offline screen mode.
    pub voice: bool,
    /// Every session's background webhooks, drained at shutdown ([`Served::drain_background`]).
    pub drain: BackgroundDrain,
    /// How long the shutdown drain waits for background webhooks (default
    /// [`hark_agent::DEFAULT_DRAIN_LIMIT`], 10 s).
    pub drain_limit: Duration,
}

impl Served {
    /// At shutdown, once the sessions closed: waits up to [`Served::drain_limit`] for every
    /// session's background webhooks, logs how it went (info: how many and how long; one warn
    /// line per session whose work was abandoned, naming its tools, never argument values).
    pub async fn drain_background(&self) -> ShutdownDrain {
        let running = self.drain.running();
        if running > 0 {
            info!(
                running,
                limit_ms = self.drain_limit.as_millis() as u64,
                "letting background webhooks finish"
            );
        }
        let report = self.drain.drain(self.drain_limit).await;
        if report.running_at_start > 0 {
            info!(
                finished = report.running_at_start - report.unfinished,
                abandoned = report.unfinished,
                took_ms = report.took.as_millis() as u64,
                "background webhooks drained"
            );
        }
        report
    }
}

/// Builds what `hark serve --agent FILE` (or `--demo`, with `file == None`: the demo shop's
/// agent) runs.
///
/// # Errors
/// One text listing every problem of the file, each with its line and fix, or saying why the
/// demo's order service or the UI worker cannot start.
pub async fn agent_sessions(file: Option<&Path>) -> Result<Served, String> {
    agent_sessions_on(file, None).await
}

/// [`agent_sessions`], with each session's bus on Redis when `bus` says where (`hark serve
/// --bus`): the sessions' `screen` and `respond` jobs go to the `ui` worker on each session's
/// channel ([`crate::ui_session::remote`]).
///
/// # Errors
/// As [`agent_sessions`].
pub async fn agent_sessions_on(
    file: Option<&Path>,
    bus: Option<RemoteBusConfig>,
) -> Result<Served, String> {
    agent_sessions_with(file, bus, None).await
}

/// [`agent_sessions_on`]; for the demo's own agent (`file == None`), with a voice when
/// `demo_stt_url` is given (`hark serve --demo --demo-stt-url URL`,
/// [`demo::agent_file_with_voice`]).
///
/// # Errors
/// As [`agent_sessions`].
pub async fn agent_sessions_with(
    file: Option<&Path>,
    bus: Option<RemoteBusConfig>,
    demo_stt_url: Option<&str>,
) -> Result<Served, String> {
    let (shown, parsed) = match (file, demo_stt_url) {
        (Some(path), _) => (path.display().to_string(), AgentFile::load(path)),
        (None, Some(url)) => (
            "examples/shop.toml (with a voice)".to_string(),
            demo::agent_file_with_voice(url),
        ),
        (None, None) => ("examples/shop.toml".to_string(), demo::agent_file()),
    };
    let located = |problems: &[hark_agent::agent_file::Problem]| {
        problems
            .iter()
            .map(|p| p.located(&shown))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let parsed = parsed.map_err(|found| located(&found.problems))?;
    let shop = demo::for_file(&parsed)
        .await
        .map_err(|e| format!("{shown}: the demo's order service cannot start: {e}"))?;
    let empty = Host::new();
    let setup = parsed
        .build(shop.as_ref().map_or(&empty, |shop| &shop.host))
        .map_err(|found| located(&found.problems))?;
    for warning in &setup.warnings {
        warn!("{}", warning.located(&shown));
    }
    let hearing = match &setup.stt {
        Some(choice) => {
            // Loading plans the VAD model (tens of ms): off the async workers.
            let stt = choice.stt.clone();
            let loaded = tokio::task::spawn_blocking(move || {
                Hearing::from_model_dir_with(VadParams::default(), stt)
            })
            .await
            .map_err(|e| format!("{shown}: [stt]: loading the VAD model failed: {e}"))?;
            Some(Arc::new(
                loaded.map_err(|e| format!("{shown}: [stt]: {e}"))?,
            ))
        }
        None => None,
    };
    let drain = BackgroundDrain::new();
    let (mut config, voice) = session_config_with(&setup, Some(drain.clone()), hearing);
    if let Some(bus) = bus {
        info!(url = %bus.url, prefix = %bus.channel_prefix, "each session's bus on Redis, one channel per session");
        config = config.remote_bus(bus);
    }
    if voice {
        info!(agent = %setup.name, tools = ?setup.registry.names(), "voice agent on every session");
    } else {
        info!(agent = %setup.name, "no LLM configured for {shown}: each session runs the offline screen mode");
    }
    // Every session's UI worker uses the local classifier, whose sentence-embedding model is
    // loaded once per process (about 0.4 s). Load it now, off the async workers, so the first
    // session does not stall the runtime and a missing model is logged at start.
    if let Err(e) = tokio::task::spawn_blocking(|| drop(LocalClassifier::new())).await {
        warn!("the local classifier's model did not load at start: {e}");
    }
    let factory = UiHandlerFactory::new(config).map_err(|e| e.to_string())?;
    Ok(Served {
        factory: Arc::new(factory),
        shop,
        agent: setup.name.clone(),
        voice,
        drain,
        drain_limit: hark_agent::DEFAULT_DRAIN_LIMIT,
    })
}

/// The offline screen mode's sessions: text only, or, with `[tts]` or `[stt]`, aloud through
/// the offline voice agent ([`crate::offline_voice`]).
fn offline_config(setup: &AgentSetup, hearing: Option<Arc<Hearing>>) -> UiSessionConfig {
    let config = UiSessionConfig::offline_demo();
    if setup.tts.is_none() && hearing.is_none() {
        return config;
    }
    let mut agent = offline_voice_agent()
        .language(setup.language.clone())
        .timezone(setup.timezone.clone());
    if let Some(choice) = &setup.tts {
        agent = agent.tts(choice.tts.clone());
    }
    if let Some(hearing) = hearing {
        agent = agent.hearing(hearing);
    }
    info!(
        hears = agent.hears(),
        speaks = agent.speaks(),
        "the offline screen mode, aloud: speech in and out without an LLM"
    );
    config.voice_agent(agent)
}

/// The voice agent of the offline screen mode, for a session that hears or speaks: add the
/// file's TTS and hearing to it. Its sessions get the [`crate::offline_voice::OFFLINE_SCREEN_TOOL`] over their own
/// `screen` job.
fn offline_voice_agent() -> VoiceAgentConfig {
    let registry = hark_tools::ToolRegistry::new(Vec::new()).expect("an empty registry builds");
    VoiceAgentConfig::new(
        Arc::new(crate::offline_voice::OfflineModel::new()),
        crate::offline_voice::OFFLINE_MODEL,
        "The offline screen mode: each user turn is one offline screen turn.",
        Arc::new(registry),
    )
    .screen(false)
    .offline_screen(true)
}

/// The UI sessions' configuration for `setup`, and whether a voice agent runs.
pub fn session_config(setup: &AgentSetup) -> (UiSessionConfig, bool) {
    session_config_with(setup, None, None)
}

/// [`session_config`], with every session's background webhooks registered in `drain` and
/// its microphone audio heard by `hearing` (the file's `[stt]`).
fn session_config_with(
    setup: &AgentSetup,
    drain: Option<BackgroundDrain>,
    hearing: Option<Arc<Hearing>>,
) -> (UiSessionConfig, bool) {
    let Some(mut agent) = VoiceAgentConfig::from_setup(setup) else {
        return (offline_config(setup, hearing), false);
    };
    if let Some(drain) = drain {
        agent = agent.background_drain(drain);
    }
    if let Some(hearing) = hearing {
        agent = agent.hearing(hearing);
    }
    let mut config = UiSessionConfig::new();
    config = match &setup.ui.classifier {
        ClassifierChoice::Local => config.classifier(Arc::new(LocalClassifier::new())),
        ClassifierChoice::Llm(choice) => config.classifier(Arc::new(LlmClassifier::new(
            choice.provider.clone(),
            choice.model.clone(),
        ))),
    };
    let agent = agent.screen(setup.ui.worker);
    if setup.ui.worker
        && let Some(llm) = &setup.llm
    {
        // The worker's `respond` job runs on the agent's own LLM, with the file's `[ui]`
        // instructions and history rule.
        config = config.respond(llm.provider.clone(), llm.model.clone());
        if let Some(prompt) = &setup.ui.system_prompt {
            config = config.instruction(prompt.clone());
        }
    }
    config = config.context_options(UiContextOptions {
        keep_history: setup.ui.keep_history,
        ..UiContextOptions::default()
    });
    (config.voice_agent(agent), true)
}
