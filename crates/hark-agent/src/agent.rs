//! The voice agent of one call: [`AgentSettings`] (what every call of an agent shares) and
//! [`VoiceAgent`] (one call: its history, its live call, the running turn).
//!
//! Spec: issue 8, point 2; DESIGN.md ("What a call looks like": `send-text → VoiceAgent.user_turn`);
//! cases T6, T7, T8, T10. The rounds of one turn are in `src/turn.rs`.
//!
//! One turn runs at a time, in a task the agent owns: [`VoiceAgent::user_turn`] returns as soon
//! as the turn started, so a session can hand over the next user text at once. A new user text
//! while a turn runs is an interruption: the running generation is interrupted
//! ([`hark_tools::Generation::interrupt`]), the turn records what it said and what its tool
//! calls read, and only then does the new turn start, so the history is always valid.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hark_llm::{Message, Provider, ToolDefinition};
use hark_tools::{BuildError, CallState, Dialect, LiveCall, ToolRegistry};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::conductor::{Conductor, PlainAgent};
use crate::output::AgentOutput;
use crate::speech::OutputSpeech;
use crate::turn::{self, TurnInput};

/// Most rounds of tool calls in one user turn before the model must answer in words
/// ([`AgentSettings::max_tool_rounds`]).
pub const DEFAULT_MAX_TOOL_ROUNDS: usize = 8;

/// How long background webhooks may take to finish once the call ended
/// ([`AgentSettings::drain_limit`]).
pub const DEFAULT_DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// What every call of one agent shares: the provider and model, the tools, the policy and the
/// limits. Cheap to clone (everything shared is in `Arc`s).
#[derive(Clone)]
pub struct AgentSettings {
    /// The model provider (OpenAI-compatible, Anthropic, Gemini, or a test double).
    pub provider: Arc<dyn Provider>,
    /// The provider's model name.
    pub model: String,
    /// The schema dialect tool definitions are sent in (by default from the provider's kind:
    /// `anthropic` → [`Dialect::Anthropic`], `gemini` → [`Dialect::GeminiParameters`], else
    /// [`Dialect::OpenAi`]). A strict dialect sends `strict: true`.
    pub dialect: Dialect,
    /// Every tool of the agent. The late results of `continue` tools are read from this
    /// registry, so every tool a conductor offers must be in it.
    pub registry: Arc<ToolRegistry>,
    /// The conversation's policy (by default a [`PlainAgent`] over `registry`).
    pub conductor: Arc<dyn Conductor>,
    /// Most rounds of tool calls per user turn (default [`DEFAULT_MAX_TOOL_ROUNDS`]). When the
    /// model still calls tools after that many rounds, one last request goes out with
    /// `tool_choice: none` and a note telling the model to answer in words; tool calls in
    /// that reply do not run.
    pub max_tool_rounds: usize,
    /// How long background webhooks may take to finish when the call ends (default
    /// [`DEFAULT_DRAIN_LIMIT`]).
    pub drain_limit: Duration,
    /// Sampling temperature; `None` leaves the provider default.
    pub temperature: Option<f32>,
    /// Most tokens per reply; `None` leaves the provider default.
    pub max_tokens: Option<u32>,
}

impl fmt::Debug for AgentSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentSettings")
            .field("provider", &self.provider.label().to_string())
            .field("model", &self.model)
            .field("dialect", &self.dialect)
            .field("tools", &self.registry.names())
            .field("conductor", &self.conductor)
            .field("max_tool_rounds", &self.max_tool_rounds)
            .field("drain_limit", &self.drain_limit)
            .finish_non_exhaustive()
    }
}

impl AgentSettings {
    /// A plain agent: `instructions` is the system prompt, every tool of `registry` is offered
    /// on every request, `model` of `provider` answers.
    pub fn new(
        provider: Arc<dyn Provider>,
        model: impl Into<String>,
        instructions: impl Into<String>,
        registry: Arc<ToolRegistry>,
    ) -> Self {
        let dialect = default_dialect(provider.as_ref());
        AgentSettings {
            provider,
            model: model.into(),
            dialect,
            conductor: Arc::new(PlainAgent::new(instructions, registry.clone())),
            registry,
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            drain_limit: DEFAULT_DRAIN_LIMIT,
            temperature: None,
            max_tokens: None,
        }
    }

    /// Uses `conductor` as the conversation's policy (a flow of steps).
    pub fn with_conductor(mut self, conductor: Arc<dyn Conductor>) -> Self {
        self.conductor = conductor;
        self
    }

    /// Sends tool schemas in `dialect`.
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// At most `rounds` rounds of tool calls per user turn (at least 1).
    pub fn with_max_tool_rounds(mut self, rounds: usize) -> Self {
        self.max_tool_rounds = rounds.max(1);
        self
    }

    /// Waits at most `limit` for background webhooks when the call ends.
    pub fn with_drain_limit(mut self, limit: Duration) -> Self {
        self.drain_limit = limit;
        self
    }
}

/// The dialect a provider's kind reads.
fn default_dialect(provider: &dyn Provider) -> Dialect {
    match provider.label().kind {
        "anthropic" => Dialect::Anthropic,
        "gemini" => Dialect::GeminiParameters,
        _ => Dialect::OpenAi,
    }
}

/// Locks a std mutex, taking the value of a poisoned one (no invariant spans a panic here).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Everything of one call that its turns share.
pub(crate) struct Shared {
    pub(crate) settings: AgentSettings,
    pub(crate) live: LiveCall,
    pub(crate) speech: Arc<OutputSpeech>,
    /// The conversation, oldest first, without the system message.
    pub(crate) history: Mutex<Vec<Message>>,
    /// Late results of `continue` tools waiting for the next request.
    pub(crate) notes: Mutex<Vec<String>>,
    /// The running turn.
    control: tokio::sync::Mutex<Control>,
    /// The task collecting late results of `continue` tools (not under `control`: the turn
    /// that starts it runs while `control` may be held by a turn waiting for it).
    collector: Mutex<Option<JoinHandle<()>>>,
    /// The generation of the running round, for interruptions.
    pub(crate) generation: Mutex<Option<hark_tools::Generation>>,
    ended: AtomicBool,
    /// Tool definitions of the last registry asked for. The registry is held, so its address
    /// cannot be reused by another one while it is cached.
    definitions: Mutex<Option<CachedDefinitions>>,
}

/// A registry and its tool definitions in the agent's dialect.
type CachedDefinitions = (Arc<ToolRegistry>, Arc<Vec<ToolDefinition>>);

#[derive(Default)]
struct Control {
    running: Option<Running>,
}

struct Running {
    stop: CancellationToken,
    /// Cancelled when the turn's task ends (however it ends).
    done: CancellationToken,
    task: JoinHandle<()>,
}

impl Shared {
    pub(crate) fn output(&self) -> &Arc<dyn AgentOutput> {
        self.speech.output()
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The tool definitions of `registry` in the agent's dialect (cached per registry).
    pub(crate) fn definitions(&self, registry: &Arc<ToolRegistry>) -> Arc<Vec<ToolDefinition>> {
        let mut cache = lock(&self.definitions);
        if let Some((cached, defs)) = &*cache
            && Arc::ptr_eq(cached, registry)
        {
            return defs.clone();
        }
        let dialect = self.settings.dialect;
        let strict = matches!(dialect, Dialect::OpenAiStrict | Dialect::AnthropicStrict);
        let defs: Vec<ToolDefinition> = registry
            .definitions(dialect)
            .tools
            .into_iter()
            .map(|t| ToolDefinition {
                name: t.name,
                description: t.description,
                parameters: t.parameters,
                strict,
            })
            .collect();
        let defs = Arc::new(defs);
        *cache = Some((registry.clone(), defs.clone()));
        defs
    }

    /// Interrupts the running turn (if any) and waits until it has recorded its history.
    async fn stop_running(control: &mut Control, shared: &Shared) {
        if let Some(running) = control.running.take() {
            running.stop.cancel();
            if let Some(generation) = lock(&shared.generation).as_ref() {
                generation.interrupt();
            }
            if running.task.await.is_err() {
                tracing::warn!("the interrupted turn's task failed");
            }
        }
    }

    /// Starts a turn for `input`. A user turn interrupts the running one first; a late-result
    /// turn starts only when no turn runs (else the running turn's next request, or the next
    /// user turn, carries the notes).
    pub(crate) async fn start(self: &Arc<Self>, input: TurnInput) {
        if self.is_ended() {
            tracing::info!("the call has ended; the turn is not taken");
            return;
        }
        let mut control = self.control.lock().await;
        let busy = control
            .running
            .as_ref()
            .is_some_and(|r| !r.task.is_finished());
        match input {
            TurnInput::Late if busy => return,
            TurnInput::Late => {}
            TurnInput::User(_) => Self::stop_running(&mut control, self).await,
        }
        let stop = CancellationToken::new();
        let done = CancellationToken::new();
        let guard = done.clone().drop_guard();
        let turn = turn::run(self.clone(), input, stop.clone());
        let task = tokio::spawn(async move {
            let _done = guard;
            turn.await;
        });
        control.running = Some(Running { stop, done, task });
    }

    /// After a turn: when `continue` tools are still running, collect their results in the
    /// background (once per batch) and start a turn for them.
    pub(crate) fn watch_late(self: &Arc<Self>) {
        if self.live.late_len() == 0 || self.is_ended() {
            return;
        }
        let mut collector = lock(&self.collector);
        if collector.as_ref().is_some_and(|c| !c.is_finished()) {
            return;
        }
        let shared = self.clone();
        *collector = Some(tokio::spawn(async move {
            loop {
                let results = shared.settings.registry.late_results(&shared.live).await;
                if results.is_empty() {
                    break;
                }
                let ask = results.iter().any(|r| r.ask_model_reply);
                {
                    let mut notes = lock(&shared.notes);
                    for r in &results {
                        notes.push(crate::messages::late_result(
                            &r.outcome.tool,
                            &r.outcome.model_text(),
                        ));
                    }
                }
                if ask {
                    Box::pin(shared.start(TurnInput::Late)).await;
                } else {
                    // Reply lines were said for them: record the notes without a model turn.
                    let notes: Vec<String> = lock(&shared.notes).drain(..).collect();
                    lock(&shared.history).extend(notes.into_iter().map(Message::System));
                }
                if shared.live.late_len() == 0 {
                    break;
                }
            }
        }));
    }

    /// Ends the call: no more turns, the session closes after what is queued, then background
    /// webhooks get [`AgentSettings::drain_limit`] to finish.
    pub(crate) async fn end_call(&self) {
        if self.ended.swap(true, Ordering::SeqCst) {
            return;
        }
        tracing::info!("the call ends (ends_conversation)");
        self.output().end().await;
        let report = self.live.hooks.drain(self.settings.drain_limit).await;
        if report.unfinished > 0 {
            tracing::warn!(
                unfinished = report.unfinished,
                "background work still running when the call's drain limit ran out"
            );
        }
    }
}

/// The voice agent of one call: give it each user turn with [`user_turn`](Self::user_turn).
///
/// Build one per call. Dropping it interrupts the running turn (which then winds down on its
/// own: its stream is dropped and its cancellable tools cancelled).
pub struct VoiceAgent {
    shared: Arc<Shared>,
}

impl fmt::Debug for VoiceAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VoiceAgent")
            .field("settings", &self.shared.settings)
            .field("history", &lock(&self.shared.history).len())
            .field("ended", &self.shared.is_ended())
            .finish()
    }
}

impl VoiceAgent {
    /// A call over `state` (its language, timezone and values) that speaks to `output`.
    ///
    /// # Errors
    /// [`BuildError`] when the state's timezone is not an IANA name (see [`LiveCall::new`]).
    pub fn new(
        settings: AgentSettings,
        state: CallState,
        output: Arc<dyn AgentOutput>,
    ) -> Result<Self, BuildError> {
        let speech = Arc::new(OutputSpeech::new(output));
        let live = LiveCall::new(state, speech.clone())?;
        Ok(Self::with_live(settings, live, speech))
    }

    /// A call over a [`LiveCall`] built by the caller (its own clock or hooks) whose speech is
    /// `speech` (the live call must speak through the same [`OutputSpeech`]).
    pub fn with_live(settings: AgentSettings, live: LiveCall, speech: Arc<OutputSpeech>) -> Self {
        VoiceAgent {
            shared: Arc::new(Shared {
                settings,
                live,
                speech,
                history: Mutex::default(),
                notes: Mutex::default(),
                control: tokio::sync::Mutex::default(),
                collector: Mutex::default(),
                generation: Mutex::default(),
                ended: AtomicBool::new(false),
                definitions: Mutex::default(),
            }),
        }
    }

    /// A user turn (`send-text`, or a final transcription): interrupts the running turn, if
    /// any, waits until it recorded its history, then starts this one and returns. Ignored
    /// once the call has ended.
    pub async fn user_turn(&self, text: impl Into<String>) {
        self.shared.start(TurnInput::User(text.into())).await;
    }

    /// Interrupts the running turn, if any, and waits until it recorded its history.
    pub async fn interrupt(&self) {
        let mut control = self.shared.control.lock().await;
        Shared::stop_running(&mut control, &self.shared).await;
    }

    /// Waits until no turn runs (the running one, and a late-result turn it started).
    pub async fn idle(&self) {
        loop {
            let done = {
                let control = self.shared.control.lock().await;
                match &control.running {
                    Some(r) if !r.done.is_cancelled() => r.done.clone(),
                    _ => return,
                }
            };
            done.cancelled().await;
        }
    }

    /// The history as the next request carries it (without the system message).
    pub fn history(&self) -> Vec<Message> {
        lock(&self.shared.history).clone()
    }

    /// The live call: its State, its voice, its hooks.
    pub fn live(&self) -> &LiveCall {
        &self.shared.live
    }

    /// The settings this call runs with.
    pub fn settings(&self) -> &AgentSettings {
        &self.shared.settings
    }

    /// True once a tool call ended the conversation (`ends_conversation`).
    pub fn is_ended(&self) -> bool {
        self.shared.is_ended()
    }
}

impl Drop for VoiceAgent {
    fn drop(&mut self) {
        if let Ok(mut control) = self.shared.control.try_lock()
            && let Some(running) = control.running.take()
        {
            running.stop.cancel();
        }
        if let Some(collector) = lock(&self.shared.collector).take() {
            collector.abort();
        }
        if let Some(generation) = lock(&self.shared.generation).as_ref() {
            generation.interrupt();
        }
    }
}
