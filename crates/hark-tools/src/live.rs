//! A tool call inside a call in progress: announce lines, interruption, saves, replies, effects.
//!
//! Guide: `docs/guide/announce-lines.md`, `docs/guide/interruptions.md`,
//! `docs/guide/ending-the-call.md`, `docs/guide/replies-and-assign.md`, `docs/guide/prechecks.md`.
//!
//! The runtime builds one [`LiveCall`] per call (it holds the [`CallState`], the [`Speech`] and
//! the [`Speaker`] whose ICU formatters are built once), and one [`Generation`] per model reply.
//! It runs each tool call of the reply with [`ToolRegistry::call_live`]; when the caller talks
//! over the bot it calls [`Generation::interrupt`].

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::FutureExt;
use hark_speak::{Clock, Speaker, SystemClock, Template, Unfilled};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::context::{Arguments, ToolContext};
use crate::error::ToolError;
use crate::executor::Validated;
use crate::hooks::{CallHooks, HookCall};
use crate::lines::View;
use crate::messages;
use crate::outcome::{CallResult, CallStatus, ToolOutcome};
use crate::registry::{ToolRegistry, elapsed_ms, replies_to};
use crate::sink::{Source, ToolEvent, ToolStage};
use crate::spec::{BuildError, Interruption, ToolSpec};
use crate::speech::Speech;
use crate::state::{CallState, StateModel};
use crate::walk;

/// One call in progress as the tool layer sees it. Build one per call.
#[derive(Debug)]
pub struct LiveCall {
    /// The call's state (shared; clones see the same values).
    pub state: CallState,
    /// The call's voice.
    pub speech: Arc<dyn Speech>,
    /// The call's hooks (background work).
    pub hooks: CallHooks,
    speaker: Speaker,
    turns: Mutex<HashMap<String, usize>>,
    late: Mutex<Vec<Late>>,
    /// Cancelled when the call ends ([`LiveCall::end_calls`]).
    ending: CancellationToken,
}

struct Late {
    tool: String,
    arguments: Arguments,
    handle: JoinHandle<(Result<Value, ToolError>, u64)>,
}

impl std::fmt::Debug for Late {
    /// The tool's name only: the arguments are values, and a `Debug` may reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Late")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl LiveCall {
    /// A live call over `state`, speaking through `speech`. The [`Speaker`] is built here from the
    /// state's language and timezone, once: fails when the timezone is not an IANA name.
    pub fn new(state: CallState, speech: Arc<dyn Speech>) -> Result<Self, BuildError> {
        Self::with_clock(state, speech, Arc::new(SystemClock))
    }

    /// Like [`new`](Self::new) with a clock for "today" (tests, replays).
    pub fn with_clock(
        state: CallState,
        speech: Arc<dyn Speech>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, BuildError> {
        let timezone = state.timezone();
        let speaker = Speaker::with_clock(&state.language(), timezone.as_deref(), clock)
            .map_err(|e| BuildError::new(e.to_string()))?;
        Ok(Self {
            state,
            speech,
            hooks: CallHooks::new(),
            speaker,
            turns: Mutex::new(HashMap::new()),
            late: Mutex::new(Vec::new()),
            ending: CancellationToken::new(),
        })
    }

    /// Uses these hooks for the call's background work (webhooks that do not wait).
    pub fn with_hooks(mut self, hooks: CallHooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The speaker that says values in the call's language and timezone.
    pub fn speaker(&self) -> &Speaker {
        &self.speaker
    }

    /// A new generation: one model reply and the tool calls in it.
    pub fn generation(&self) -> Generation {
        Generation::default()
    }

    /// The next turn of a rotating choice keyed by `key` (announce lines, reply alternatives).
    fn next_turn(&self, key: &str) -> usize {
        let mut turns = self.turns.lock().unwrap_or_else(|p| p.into_inner());
        let turn = turns.entry(key.to_string()).or_insert(0);
        let current = *turn;
        *turn += 1;
        current
    }

    /// The call is ending (the caller hung up, the adapter closes it): each running call of a
    /// `continue` tool that started returns at once as cancelled (`tool.failed`, error
    /// `cancelled`) while its tool runs to its end, its result dropped, so a payment or a
    /// booking is never cut in half. Calls of other tools are cancelled by dropping them.
    pub fn end_calls(&self) {
        self.ending.cancel();
    }

    /// How many `continue` tools are still running after their reply was cut off.
    pub fn late_len(&self) -> usize {
        self.late.lock().map(|l| l.len()).unwrap_or(0)
    }
}

#[derive(Debug, Default)]
struct GenerationInner {
    token: CancellationToken,
    spoken: AtomicBool,
    discarded: AtomicBool,
}

/// One model reply (a generation) and its tool calls: what the runtime needs so that a tool
/// interrupted before its result, or called from a discarded generation, is handled. Cheap
/// to clone; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Generation {
    inner: Arc<GenerationInner>,
}

impl Generation {
    /// Marks that some of this reply has been spoken to the caller.
    pub fn mark_spoken(&self) {
        self.inner.spoken.store(true, Ordering::SeqCst);
    }

    /// The caller talked over the bot. Running calls whose interruption is not `continue` are
    /// cancelled (`tool.failed`, error `cancelled`); `continue` calls keep running and their
    /// results come from [`ToolRegistry::late_results`]. A generation interrupted before any of
    /// it was spoken is discarded: its tool calls never run.
    pub fn interrupt(&self) {
        if !self.inner.spoken.load(Ordering::SeqCst) {
            self.inner.discarded.store(true, Ordering::SeqCst);
        }
        self.inner.token.cancel();
    }

    /// True once the generation was interrupted.
    pub fn is_interrupted(&self) -> bool {
        self.inner.token.is_cancelled()
    }

    /// True when the generation was interrupted before any of it was spoken: its tool calls
    /// must not run, and it leaves nothing in the history.
    pub fn is_discarded(&self) -> bool {
        self.inner.discarded.load(Ordering::SeqCst)
    }
}

/// What [`ToolRegistry::check_live`] found before a tool would run.
#[derive(Debug, Clone)]
pub enum Checked {
    /// Every check passed and the precheck let the call go ahead: these are the arguments the
    /// tool would run with (locked values filled). Nothing ran, nothing was said.
    Ready(Arguments),
    /// The call ended before the tool would run: a refusal (missing or bad arguments, an unset
    /// value) or a precheck outcome, which saved and said what any result does.
    Done(Box<CallResult>),
}

impl ToolRegistry {
    /// Fills a line that reads the arguments of a call of `tool` (a read-back: "A table for
    /// {{party}} on {{day}}."), in the call's language: `{{value}}` reads an argument, else a
    /// State value; `{{call.name}}` what the call carries. Values are said by the parameter's
    /// (or State value's) JSON Schema format. `Err` names the placeholder that has no value.
    pub fn fill_line(
        &self,
        tool: &str,
        line: &Template,
        arguments: &Arguments,
        live: &LiveCall,
    ) -> Result<String, Unfilled> {
        let state = live.state.values();
        let call = live.state.call();
        let parameters = self.get(tool).map(ToolSpec::parameters);
        let view = View {
            state: &state,
            state_schema: self.state_model().map(StateModel::schema),
            call: &call,
            arguments: parameters.map(|p| (arguments, p)),
            result: None,
        };
        line.fill(&view, &live.speaker)
    }

    /// Runs the tool in the call and checks its result: cancelled when the caller talks over a
    /// tool that does not `continue`; a `continue` tool cut off gives a still-running outcome and
    /// its run is kept for [`late_results`](Self::late_results).
    pub(crate) async fn run_in_call(
        &self,
        tool: &ToolSpec,
        validated: Validated,
        context: ToolContext,
        live: &LiveCall,
        generation: &Generation,
    ) -> ToolOutcome {
        let name = tool.name();
        let source = Source::Model;
        let started = Instant::now();
        let executor = tool.executor().clone();
        let hook_arguments = validated.arguments.clone();
        let (run, ms) = if tool.interruption_rule() == Interruption::Continue {
            let mut task = Box::pin(async move {
                let started = Instant::now();
                let run = AssertUnwindSafe(executor.run_validated(validated, &context))
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|_| Err(ToolError::internal("the tool panicked")));
                (run, elapsed_ms(started))
            });
            // The tool starts here, in the order the model called it: the
            // calls of one turn are polled in call order, and a tool that takes a place in a
            // line when it starts (the UI worker's `respond` job) keeps that order. A spawned
            // task alone would start whenever the runtime picks it, often the last one first.
            let first = futures::poll!(task.as_mut());
            let mut handle = match first {
                std::task::Poll::Ready((run, ms)) => {
                    return self.finish(tool, run, ms, source, true);
                }
                std::task::Poll::Pending => tokio::spawn(task),
            };
            // Dropped while it waits (the call's future dropped), the task is aborted: the
            // call ends as cancelled, so the tool must not go on behind it.
            let mut abort = AbortOnDrop(Some(handle.abort_handle()));
            tokio::select! {
                joined = &mut handle => joined
                    .unwrap_or_else(|_| (Err(ToolError::internal("the tool's task failed")), elapsed_ms(started))),
                () = generation.inner.token.cancelled() => {
                    abort.0 = None;
                    if let Ok(mut late) = live.late.lock() {
                        late.push(Late { tool: name.to_string(), arguments: hook_arguments, handle });
                    }
                    tracing::info!(tool = name, "tool keeps running after an interruption");
                    let result = messages::still_running_result(name);
                    return ToolOutcome {
                        tool: name.to_string(),
                        status: CallStatus::StillRunning,
                        model_result: result.clone(),
                        result,
                        error: None,
                        ms: 0,
                    };
                }
                () = live.ending.cancelled() => {
                    // Detached: the task runs to its end and nobody reads its result.
                    abort.0 = None;
                    drop(handle);
                    tracing::info!(tool = name, "the call ended; the tool runs to its end, its result dropped");
                    (Err(ToolError::cancelled()), elapsed_ms(started))
                }
            }
        } else {
            let run = AssertUnwindSafe(executor.run_validated(validated, &context)).catch_unwind();
            tokio::select! {
                run = run => (
                    run.unwrap_or_else(|_| Err(ToolError::internal("the tool panicked"))),
                    elapsed_ms(started),
                ),
                () = generation.inner.token.cancelled() => (Err(ToolError::cancelled()), elapsed_ms(started)),
            }
        };
        self.finish(tool, run, ms, source, true)
    }

    /// The results of `continue` tools whose reply was cut off, each exactly once: waits for
    /// those still running, checks each result, saves and says its reply like any result, and
    /// removes it. The runtime adds each to the next request (see
    /// [`messages::late_result`]). A second call returns only results not returned before.
    pub async fn late_results(&self, live: &LiveCall) -> Vec<CallResult> {
        let pending: Vec<Late> = match live.late.lock() {
            Ok(mut late) => late.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        let mut results = Vec::new();
        for late in pending {
            let Some(tool) = self.get(&late.tool) else {
                continue;
            };
            let (run, ms) = late
                .handle
                .await
                .unwrap_or_else(|_| (Err(ToolError::internal("the tool's task failed")), 0));
            let outcome = self.finish(tool, run, ms, Source::Model, true);
            let call = HookCall {
                tool: late.tool.clone(),
                arguments: late.arguments,
                source: Source::Model,
            };
            let outcome = self.after_hooks(tool, &call, &live.hooks, outcome);
            results.push(self.after(tool, outcome, live, None, false).await);
        }
        results
    }

    pub(crate) fn plain(&self, outcome: ToolOutcome, live: &LiveCall) -> CallResult {
        CallResult {
            prechecked: false,
            ask_model_reply: replies_to(&outcome.model_result, live.speech.reply_spoke()),
            outcome,
            announced: None,
            said: Vec::new(),
            ends_conversation: false,
            saved: Vec::new(),
        }
    }

    /// Fills every announce line (a value not set refuses the call), then picks the next one in
    /// turn, never the same twice in a row. `None` with no lines or a realtime model.
    pub(crate) fn announce_line(
        &self,
        tool: &ToolSpec,
        arguments: &Arguments,
        context: &ToolContext,
        live: &LiveCall,
    ) -> Result<Option<String>, ToolError> {
        let language = live.state.language();
        let announce = tool.announce_for(&language);
        if announce.is_empty() {
            return Ok(None);
        }
        let view = View {
            state: &context.state,
            state_schema: self.state_model().map(StateModel::schema),
            call: &context.call,
            arguments: Some((arguments, tool.parameters())),
            result: None,
        };
        let mut lines = Vec::with_capacity(announce.len());
        for template in announce {
            match template.fill(&view, &live.speaker) {
                Ok(line) => lines.push(line),
                Err(unfilled) => return Err(self.unset_refusal(&unfilled.placeholder)),
            }
        }
        if live.speech.speaks_itself() {
            return Ok(None);
        }
        let turn = live.next_turn(&format!("announce:{}", tool.name()));
        Ok(Some(lines.swap_remove(turn % lines.len())))
    }

    /// The reply line that would be said now for a successful `result` of the tool `name`,
    /// filled in the call's language, without saying it or moving the alternatives on: the
    /// place's replies, then the tool's own, the first that matches and fills. `None` when no
    /// reply matches and fills (or the tool is unknown).
    pub fn reply_for(&self, name: &str, result: &Value, live: &LiveCall) -> Option<String> {
        let tool = self.get(name)?;
        self.pick_reply(tool, result, live).map(|(_, line)| line)
    }

    fn pick_reply(
        &self,
        tool: &ToolSpec,
        result: &Value,
        live: &LiveCall,
    ) -> Option<(String, String)> {
        let name = tool.name();
        let replies = self.compiled.replies.get(name)?;
        let state = live.state.values();
        let call = live.state.call();
        let view = View {
            state: &state,
            state_schema: self.state_model().map(StateModel::schema),
            call: &call,
            arguments: None,
            result: Some((result, tool.output().schema())),
        };
        let language = live.state.language();
        for (i, reply) in replies.iter().enumerate() {
            if !reply.matches(result, &state) {
                continue;
            }
            let lines = reply.lines_for(&language);
            let key = format!("reply:{name}:{i}");
            let turn = {
                let turns = live.turns.lock().unwrap_or_else(|p| p.into_inner());
                turns.get(&key).copied().unwrap_or(0)
            };
            let template = &lines[turn % lines.len()];
            if let Ok(line) = template.fill(&view, &live.speaker) {
                return Some((key, line));
            }
        }
        None
    }

    /// After a result: assign rows, reply rows, effects, and whether the model replies.
    pub(crate) async fn after(
        &self,
        tool: &ToolSpec,
        outcome: ToolOutcome,
        live: &LiveCall,
        announced: Option<String>,
        prechecked: bool,
    ) -> CallResult {
        let name = tool.name();
        let succeeded = outcome.status == CallStatus::Succeeded;
        let mut saved = Vec::new();
        if succeeded && let Some(rows) = self.compiled.assign.get(name) {
            let saves: Vec<(String, Value)> = rows
                .iter()
                .filter_map(|row| {
                    walk::value_at(&outcome.result, &row.path)
                        .map(|v| (row.variable.clone(), v.clone()))
                })
                .collect();
            let names: Vec<String> = saves.iter().map(|(n, _)| n.clone()).collect();
            match live.state.save_all(saves, self.state_model()) {
                Ok(()) => saved = names,
                Err(refusal) => {
                    // The refusal's own text may quote the value: the log and the sinks get
                    // the field and the kind only.
                    self.emit_with(
                        ToolEvent {
                            stage: ToolStage::SaveRefused,
                            tool: name.to_string(),
                            source: Source::Model,
                            ms: None,
                            error: Some(refusal.event_text()),
                        },
                        Some(&refusal.kind),
                    );
                }
            }
        }
        let mut said = Vec::new();
        if succeeded && let Some((key, line)) = self.pick_reply(tool, &outcome.result, live) {
            live.next_turn(&key);
            live.speech.say(&line).await;
            self.emit(ToolEvent {
                stage: ToolStage::Replied,
                tool: name.to_string(),
                source: Source::Model,
                ms: None,
                error: None,
            });
            said.push(line);
        }
        let ask_model_reply =
            said.is_empty() && replies_to(&outcome.model_result, live.speech.reply_spoke());
        CallResult {
            ends_conversation: succeeded && tool.ends_the_call(),
            outcome,
            announced,
            said,
            ask_model_reply,
            saved,
            prechecked,
        }
    }
}

/// Aborts a spawned tool task when dropped, unless disarmed (`.0 = None`).
struct AbortOnDrop(Option<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.abort();
        }
    }
}
