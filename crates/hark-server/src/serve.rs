//! What `hark serve` runs in each session, from its flags (issue 8, points 3–5).
//!
//! - `--agent FILE`: the agent file is built (with the demo shop's host: its local tools and
//!   its order service on loopback, as `hark check` does); each session gets the file's voice
//!   agent beside a UI worker. With no LLM (no `[llm]`, or its key's variable unset) the
//!   sessions run the offline screen mode, and the log says why.
//! - `--demo` without `--agent`: the same with the demo shop's own agent file
//!   (`examples/shop.toml`, built into the binary): a real LLM when `OPENAI_API_KEY` is set,
//!   else the offline screen mode.
//! - Neither: the built-in no-agent handler.

use std::path::Path;
use std::sync::Arc;

use hark_agent::file::{AgentFile, AgentSetup, ClassifierChoice};
use hark_ui::LlmClassifier;
use hark_ui::classifier::LocalClassifier;
use tracing::{info, warn};

use crate::agent_session::VoiceAgentConfig;
use crate::demo::{self, DemoShop};
use crate::ui_session::{UiHandlerFactory, UiSessionConfig};

/// The sessions' handler factory and the demo shop it relies on (keep it alive while serving:
/// dropping it stops the order service).
#[derive(Debug)]
pub struct Served {
    /// Makes each session's handler.
    pub factory: Arc<UiHandlerFactory>,
    /// The demo shop's order service and orders.
    pub shop: DemoShop,
    /// The agent's name.
    pub agent: String,
    /// True when a voice agent runs (an LLM is configured); false in the offline screen mode.
    pub voice: bool,
}

/// Builds what `hark serve --agent FILE` (or `--demo`, with `file == None`: the demo shop's
/// agent) runs.
///
/// # Errors
/// One text listing every problem of the file, each with its line and fix, or saying why the
/// demo's order service or the UI worker cannot start.
pub async fn agent_sessions(file: Option<&Path>) -> Result<Served, String> {
    let (shown, parsed) = match file {
        Some(path) => (path.display().to_string(), AgentFile::load(path)),
        None => ("examples/shop.toml".to_string(), demo::agent_file()),
    };
    let located = |problems: &[hark_agent::file::Problem]| {
        problems
            .iter()
            .map(|p| p.located(&shown))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let parsed = parsed.map_err(|found| located(&found.problems))?;
    let shop = demo::start()
        .await
        .map_err(|e| format!("{shown}: the demo's order service cannot start: {e}"))?;
    let setup = parsed
        .build(&shop.host)
        .map_err(|found| located(&found.problems))?;
    for warning in &setup.warnings {
        warn!("{}", warning.located(&shown));
    }
    let (config, voice) = session_config(&setup);
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
    })
}

/// The UI sessions' configuration for `setup`, and whether a voice agent runs.
pub fn session_config(setup: &AgentSetup) -> (UiSessionConfig, bool) {
    let Some(agent) = VoiceAgentConfig::from_setup(setup) else {
        return (UiSessionConfig::offline_demo(), false);
    };
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
        // The worker's `respond` job runs on the agent's own LLM.
        config = config.respond(llm.provider.clone(), llm.model.clone());
    }
    (config.voice_agent(agent), true)
}
