//! The voice agent of one call: [`AgentSettings`] (what every call of an agent shares) and
//! [`VoiceAgent`] (one call: its history, its live call, the running turn).
//!
//! A `send-text` becomes [`VoiceAgent::user_turn`] (see `docs/ARCHITECTURE.md`, "The flow of
//! one call"). The rounds of one turn are in `src/turn.rs`.
//!
//! One turn runs at a time, in a task the agent owns: [`VoiceAgent::user_turn`] returns as soon
//! as the turn started, so a session can hand over the next user text at once. A new user text
//! while a turn runs is an interruption: the running generation is interrupted
//! ([`hark_tools::Generation::interrupt`]), the turn records what it said and what its tool
//! calls read, and only then does the new turn start, so the history is always valid.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use hark_llm::{Message, Provider, ToolDefinition};
use hark_tools::{BuildError, CallHooks, CallState, Dialect, LiveCall, ToolRegistry};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::conductor::{Conductor, PlainAgent};
use crate::hearing::{Hearing, Listener, NotListening};
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
    /// The schema dialect tool definitions are sent in (by default the one the provider's type
    /// reads, [`Provider::dialect`]: [`Dialect::Anthropic`] for `hark_llm::Anthropic`,
    /// [`Dialect::GeminiParameters`] for `hark_llm::Gemini`, else [`Dialect::OpenAi`]). A strict
    /// dialect sends `strict: true`.
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
    /// Where every call of this agent registers its background work, so a server can drain
    /// all of it at shutdown ([`BackgroundDrain`]); `None` (default): nothing registers.
    pub background: Option<BackgroundDrain>,
    /// The call's voice: each line is synthesized by it and its audio sent at this rate (the
    /// rate the client plays), [`AgentSettings::with_tts`]; `None` (default): text only.
    pub tts: Option<(Arc<dyn hark_voice::Tts>, u32)>,
    /// The call's ears: microphone audio given to [`VoiceAgent::hear`] is turned into user
    /// turns, [`AgentSettings::with_hearing`]; `None` (default): turns come as text only.
    pub hearing: Option<Arc<Hearing>>,
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
            .field("tts", &self.tts.as_ref().map(|(_, rate)| rate))
            .field("hearing", &self.hearing)
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
            background: None,
            tts: None,
            hearing: None,
        }
    }

    /// Speaks every line aloud: `tts` synthesizes it and its audio goes to the client at
    /// `rate` Hz (the rate the client plays: `hark_rtvi::audio::CLIENT_PLAYER_RATE` for
    /// Pipecat's WebSocket client), at real-time pace ([`crate::Speaker`]); an interruption
    /// cuts it off, and the history keeps what the caller heard.
    pub fn with_tts(mut self, tts: Arc<dyn hark_voice::Tts>, rate: u32) -> Self {
        self.tts = Some((tts, rate));
        self
    }

    /// Hears the caller: microphone audio handed to [`VoiceAgent::hear`] goes through the VAD
    /// of `hearing` (speech start = barge-in, speech stop = the utterance) and its STT, and each
    /// transcript is a user turn (see `hearing.rs`).
    pub fn with_hearing(mut self, hearing: Arc<Hearing>) -> Self {
        self.hearing = Some(hearing);
        self
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

    /// Registers every call's background work in `drain` (at SIGTERM the
    /// server drains the background webhooks of every call, see [`BackgroundDrain`]).
    pub fn with_background_drain(mut self, drain: BackgroundDrain) -> Self {
        self.background = Some(drain);
        self
    }
}

/// The log line of a call's background webhooks still running when the shutdown drain limit
/// ran out ([`BackgroundDrain::drain`]): one warn line per call and tool, its fields `session`,
/// `tool` (the tool's name) and `unfinished` (that tool's count), never argument values.
pub const BACKGROUND_ABANDONED: &str =
    "background webhook abandoned: still running when the shutdown drain limit ran out";

/// The background work (webhooks that do not wait for their answer) of many calls, drained
/// together when the process shuts down.
///
/// At SIGTERM with calls in flight and background webhooks queued, the webhooks all arrive or
/// are logged as failed after the drain limit; background webhooks finish when the call ends.
///
/// Give a clone to [`AgentSettings::with_background_drain`]: each [`VoiceAgent`] made with
/// those settings registers its call's [`CallHooks`] here; the hooks count the running
/// background work per tool name (hark-webhook spawns it with
/// [`CallHooks::spawn_background_for`] and the tool's name). A call whose agent is gone and
/// whose background work has finished is pruned (amortised, as the list grows), so the list
/// stays within about twice the live calls.
/// At shutdown (after the sessions closed, so no new work comes), [`drain`](Self::drain)
/// waits up to a limit for the running work, and logs what still runs then: one line per call
/// and tool, with the tool's name and its count — never argument values. Cheap to clone.
#[derive(Clone, Default)]
pub struct BackgroundDrain {
    calls: Arc<Mutex<Vec<TrackedCall>>>,
}

/// One call's background work as [`BackgroundDrain`] tracks it.
struct TrackedCall {
    /// The call's session id (for logs).
    label: String,
    hooks: CallHooks,
    /// The call's agent; dead once the agent and its turns are gone.
    call: Weak<Shared>,
}

impl TrackedCall {
    fn is_done(&self) -> bool {
        self.call.strong_count() == 0 && self.hooks.background_len() == 0
    }
}

impl fmt::Debug for BackgroundDrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackgroundDrain")
            .field("calls", &lock(&self.calls).len())
            .field("running", &self.running())
            .finish()
    }
}

/// What [`BackgroundDrain::drain`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShutdownDrain {
    /// Background tasks running when the drain started, across every call.
    pub running_at_start: usize,
    /// Background tasks still running when the limit ran out (0: everything finished).
    pub unfinished: usize,
    /// The calls with unfinished work: one entry per call, logged once per tool.
    pub abandoned: Vec<AbandonedWork>,
    /// How long the drain took (at most about the limit).
    pub took: Duration,
}

/// One call's background work still running when the shutdown drain limit ran out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbandonedWork {
    /// The call's session id.
    pub call: String,
    /// Background tasks of the call still running.
    pub unfinished: usize,
    /// The unfinished tasks per tool name, sorted by name (the counts sum to `unfinished`;
    /// work spawned with no tool name is under
    /// [`UNNAMED_BACKGROUND`](hark_tools::call::UNNAMED_BACKGROUND)).
    pub tools: Vec<(String, usize)>,
}

impl BackgroundDrain {
    /// An empty drain group.
    pub fn new() -> Self {
        Self::default()
    }

    /// Background tasks running now, across every registered call.
    pub fn running(&self) -> usize {
        lock(&self.calls)
            .iter()
            .map(|c| c.hooks.background_len())
            .sum()
    }

    /// Calls still tracked: their agent is alive or their background work still runs.
    pub fn calls(&self) -> usize {
        let mut calls = lock(&self.calls);
        calls.retain(|c| !c.is_done());
        calls.len()
    }

    fn track(&self, call: TrackedCall) {
        let mut calls = lock(&self.calls);
        // Pruned when the list doubled since the last prune (amortised O(1) per call), so the
        // list stays within twice the live calls without a scan per new session.
        if calls.len() >= 64 && calls.len() == calls.capacity() {
            calls.retain(|c| !c.is_done());
        }
        calls.push(call);
    }

    /// Drains every call's hooks at once ([`CallHooks::drain`]): waits up to `limit` for the
    /// running work of all of them. What still runs then is logged once per call and tool
    /// ([`BACKGROUND_ABANDONED`] at warn, with the session id, the tool's name and its count;
    /// never argument values), and each such call is named in the report; that work is
    /// abandoned (it ends when the runtime does).
    pub async fn drain(&self, limit: Duration) -> ShutdownDrain {
        let start = Instant::now();
        let calls: Vec<(String, CallHooks)> = {
            let mut calls = lock(&self.calls);
            calls.retain(|c| !c.is_done());
            calls
                .iter()
                .map(|c| (c.label.clone(), c.hooks.clone()))
                .collect()
        };
        let running_at_start = calls.iter().map(|(_, h)| h.background_len()).sum();
        let deadline = tokio::time::Instant::now() + limit;
        let reports = futures::future::join_all(calls.iter().map(|(_, hooks)| {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            hooks.drain(left)
        }))
        .await;
        let mut abandoned = Vec::new();
        for ((label, _), report) in calls.iter().zip(reports) {
            if report.unfinished == 0 {
                continue;
            }
            for (tool, unfinished) in &report.by_tool {
                tracing::warn!(
                    session = %label,
                    tool = %tool,
                    unfinished,
                    limit_ms = limit.as_millis() as u64,
                    "{}",
                    BACKGROUND_ABANDONED
                );
            }
            abandoned.push(AbandonedWork {
                call: label.clone(),
                unfinished: report.unfinished,
                tools: report.by_tool,
            });
        }
        let unfinished = abandoned.iter().map(|a| a.unfinished).sum();
        ShutdownDrain {
            running_at_start,
            unfinished,
            abandoned,
            took: start.elapsed(),
        }
    }
}

/// The dialect the provider's type reads ([`Provider::dialect`]).
fn default_dialect(provider: &dyn Provider) -> Dialect {
    provider.dialect()
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
    /// The caller has the floor: they began to speak and what they said is not yet taken as a
    /// turn (or found empty). Late results wait meanwhile instead of talking over them.
    caller_has_floor: AtomicBool,
    /// Set when the [`VoiceAgent`] is dropped (the session ended: the client left, or the
    /// server shut down): no turn starts any more; `continue` tools still running are only
    /// collected, so each reaches its sinks once.
    closed: AtomicBool,
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

    /// True once the agent was dropped (see [`Shared::closed`](Self)).
    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// The tool definitions of `registry` in the agent's dialect (cached per registry).
    pub(crate) fn definitions(&self, registry: &Arc<ToolRegistry>) -> Arc<Vec<ToolDefinition>> {
        let mut cache = lock(&self.definitions);
        if let Some((cached, defs)) = &*cache
            && Arc::ptr_eq(cached, registry)
        {
            return defs.clone();
        }
        // The registry's definitions carry `strict` for a strict dialect.
        let defs = Arc::new(registry.definitions(self.settings.dialect).tools);
        *cache = Some((registry.clone(), defs.clone()));
        defs
    }

    /// Interrupts the running turn (if any) and cuts the bot's audio off at once (lines said
    /// with `announce_wait` play on), waits until the turn has recorded its history, then keeps
    /// in the history only what the caller heard.
    ///
    /// The audio is cut before the turn is awaited: a turn waiting for its audio to play out
    /// (a line said with `announce_wait` after others) waits only for the uncut lines, and what
    /// it queues before it sees the stop is dropped (the speaker holds until the next turn).
    async fn stop_running(control: &mut Control, shared: &Shared) -> bool {
        let mut stopped = false;
        let mut unheard = Vec::new();
        if let Some(running) = control.running.take() {
            stopped = !running.task.is_finished();
            running.stop.cancel();
            if let Some(generation) = lock(&shared.generation).as_ref() {
                generation.interrupt();
            }
            unheard = shared.speech.cut().await;
            if running.task.await.is_err() {
                tracing::warn!("the interrupted turn's task failed");
            }
        }
        unheard.extend(shared.speech.cut().await);
        if !unheard.is_empty() {
            tracing::debug!(lines = unheard.len(), "the bot was cut off");
            crate::history::keep_heard(&mut lock(&shared.history), &unheard);
        }
        stopped || !unheard.is_empty()
    }

    /// The caller began to speak: interrupts the running turn and cuts the bot's audio off, as
    /// [`VoiceAgent::interrupt`]. True when that stopped something (a turn still running, or
    /// audio the caller had not heard yet).
    pub(crate) async fn barge_in(&self) -> bool {
        let mut control = self.control.lock().await;
        Self::stop_running(&mut control, self).await
    }

    /// The caller began to speak: late results wait until [`Shared::floor_back`].
    pub(crate) fn caller_took_floor(&self) {
        self.caller_has_floor.store(true, Ordering::SeqCst);
    }

    /// What the caller said was taken as a turn, or was nothing (a cough, an empty
    /// transcript): late results that waited while they spoke get their turn now.
    pub(crate) async fn floor_back(self: &Arc<Self>) {
        self.caller_has_floor.store(false, Ordering::SeqCst);
        self.speech.release();
        if !lock(&self.notes).is_empty() {
            self.start(TurnInput::Late).await;
        }
    }

    /// Starts a turn for `input`. A user turn interrupts the running one first; a late-result
    /// turn starts only when no turn runs and the caller does not have the floor (else the
    /// running turn's next request, the next user turn, or [`Shared::floor_back`] carries the
    /// notes).
    pub(crate) async fn start(self: &Arc<Self>, input: TurnInput) {
        if self.is_ended() {
            tracing::info!("the call has ended; the turn is not taken");
            return;
        }
        if self.is_closed() {
            tracing::debug!("the session has ended; the turn is not taken");
            return;
        }
        let mut control = self.control.lock().await;
        let busy = control
            .running
            .as_ref()
            .is_some_and(|r| !r.task.is_finished());
        match input {
            TurnInput::Late if busy || self.caller_has_floor.load(Ordering::SeqCst) => return,
            TurnInput::Late => {}
            TurnInput::User(_) => {
                Self::stop_running(&mut control, self).await;
            }
        }
        // The new turn's lines play (after a cut, lines were held back).
        self.speech.release();
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
    ///
    /// Also once the call ended or the agent was dropped: then no turn starts (see
    /// [`Shared::start`]), but each late result is still collected, so the tool's sinks and
    /// `after_tool` hooks hear of it once (every tool call has exactly one
    /// result, also when the client drops mid call).
    pub(crate) fn watch_late(self: &Arc<Self>) {
        if self.live.late_len() == 0 {
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
        // What was said before the end is heard to its end.
        hark_tools::Speech::wait_playout(self.speech.as_ref()).await;
        self.output().end().await;
        let report = self.live.hooks.drain(self.settings.drain_limit).await;
        for (tool, unfinished) in &report.by_tool {
            tracing::warn!(
                tool = %tool,
                unfinished,
                "background work still running when the call's drain limit ran out"
            );
        }
    }
}

/// The voice agent of one call: give it each user turn with [`user_turn`](Self::user_turn).
///
/// Build one per call. Dropping it (the session ended) interrupts the running turn, which then
/// winds down on its own: its stream is dropped and its cancellable tools cancelled; no turn
/// starts after that. `continue` tools still running finish and their one result reaches the
/// sinks; background webhooks finish in the call's hooks (see
/// [`BackgroundDrain`] to drain them at shutdown).
pub struct VoiceAgent {
    shared: Arc<Shared>,
    /// The call's listening, with a [`Hearing`].
    listener: Option<Listener>,
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
        let speech = Arc::new(match &settings.tts {
            Some((tts, rate)) => {
                let tts = tts.for_call().unwrap_or_else(|| tts.clone());
                OutputSpeech::with_voice(output, tts, *rate)
            }
            None => OutputSpeech::new(output),
        });
        let live = LiveCall::new(state, speech.clone())?;
        Ok(Self::with_live(settings, live, speech))
    }

    /// A call over a [`LiveCall`] built by the caller (its own clock or hooks) whose speech is
    /// `speech` (the live call must speak through the same [`OutputSpeech`]).
    pub fn with_live(settings: AgentSettings, live: LiveCall, speech: Arc<OutputSpeech>) -> Self {
        let mut agent = VoiceAgent {
            listener: None,
            shared: Arc::new(Shared {
                settings,
                live,
                speech,
                history: Mutex::default(),
                notes: Mutex::default(),
                caller_has_floor: AtomicBool::new(false),
                control: tokio::sync::Mutex::default(),
                collector: Mutex::default(),
                generation: Mutex::default(),
                ended: AtomicBool::new(false),
                closed: AtomicBool::new(false),
                definitions: Mutex::default(),
            }),
        };
        if let Some(drain) = &agent.shared.settings.background {
            drain.track(TrackedCall {
                label: agent.shared.live.state.call().session_id,
                hooks: agent.shared.live.hooks.clone(),
                call: Arc::downgrade(&agent.shared),
            });
        }
        if let Some(hearing) = &agent.shared.settings.hearing {
            agent.listener = Some(Listener::start(hearing.clone(), &agent.shared));
        }
        agent
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

    /// Hands microphone audio to the call's listening ([`AgentSettings::with_hearing`]; see
    /// `hearing.rs`): the caller's speech starts, barges in, ends and becomes a user turn on
    /// its own. Waits while the listening queue is full.
    ///
    /// # Errors
    /// [`NotListening`] when the agent has no hearing, or its listening ended.
    pub async fn hear(&self, audio: hark_voice::AudioChunk) -> Result<(), NotListening> {
        match &self.listener {
            Some(listener) => listener.hear(audio).await,
            None => Err(NotListening),
        }
    }

    /// Whether this call hears microphone audio ([`AgentSettings::with_hearing`]).
    pub fn listens(&self) -> bool {
        self.listener.is_some()
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
        self.shared.closed.store(true, Ordering::SeqCst);
        // Nothing more plays to a call that is over.
        self.shared.speech.close();
        if let Ok(mut control) = self.shared.control.try_lock()
            && let Some(running) = control.running.take()
        {
            running.stop.cancel();
        }
        if let Some(generation) = lock(&self.shared.generation).as_ref() {
            generation.interrupt();
        }
        // The collector of late results is left to finish: with `closed` set it starts no
        // turn, and each `continue` tool still running reaches its sinks once. A turn still
        // winding down calls `watch_late` itself; here for tools already waiting.
        if tokio::runtime::Handle::try_current().is_ok() {
            self.shared.watch_late();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ChannelOutput;
    use hark_tools::CallInfo;

    fn agent(drain: &BackgroundDrain, session: &str) -> VoiceAgent {
        let provider = Arc::new(hark_llm::OpenAiCompatible::new("http://127.0.0.1:9", None));
        let settings = AgentSettings::new(
            provider,
            "m",
            "Help.",
            Arc::new(ToolRegistry::new(Vec::new()).unwrap()),
        )
        .with_background_drain(drain.clone());
        let call = CallInfo {
            session_id: session.into(),
            ..CallInfo::default()
        };
        let (output, _rx) = ChannelOutput::new();
        VoiceAgent::new(
            settings,
            CallState::new(call, "en-US", None),
            Arc::new(output),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn the_shutdown_drain_waits_for_background_work_and_names_what_it_abandons() {
        let drain = BackgroundDrain::new();
        let a = agent(&drain, "s1");
        let b = agent(&drain, "s2");
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        // s1: one task that finishes during the drain; s2: four that never do (two of one
        // tool, one of another, one spawned with no tool name) and one that ends at once.
        a.live()
            .hooks
            .spawn_background_for("notify_crm", async move {
                let _ = done_rx.await;
            });
        let hooks = &b.live().hooks;
        hooks.spawn_background_for("notify_crm", std::future::pending());
        hooks.spawn_background_for("notify_crm", std::future::pending());
        hooks.spawn_background_for("log_call", std::future::pending());
        hooks.spawn_background(std::future::pending());
        let (quick_tx, quick_rx) = tokio::sync::oneshot::channel::<()>();
        hooks.spawn_background_for("quick", async move {
            let _ = quick_tx.send(());
        });
        quick_rx.await.unwrap();
        while hooks.background_len() > 4 {
            tokio::task::yield_now().await;
        }
        assert_eq!((drain.calls(), drain.running()), (2, 5));
        drop(a);
        let draining = tokio::spawn({
            let drain = drain.clone();
            async move { drain.drain(Duration::from_secs(5)).await }
        });
        done_tx.send(()).unwrap();
        let report = draining.await.unwrap();
        assert_eq!(report.unfinished, 4);
        assert_eq!(
            report.abandoned,
            [AbandonedWork {
                call: "s2".into(),
                unfinished: 4,
                tools: vec![
                    (hark_tools::call::UNNAMED_BACKGROUND.to_owned(), 1),
                    ("log_call".to_owned(), 1),
                    ("notify_crm".to_owned(), 2),
                ]
            }]
        );
        // s1's agent is gone and its work finished: it is no longer tracked.
        assert_eq!(drain.calls(), 1);
        drop(b);
    }
}
