//! The one path every tool call takes, on its own ([`ToolRegistry::call`]) or in a call in
//! progress ([`ToolRegistry::call_live`]):
//!
//! `prepare (find the tool, read the arguments, fill locked values, check them, validate) →
//! precheck → announce → run → check the output → assign → replies`
//!
//! A call on its own is this path with no speech and no saves: it announces nothing, runs the tool
//! without an interruption to watch for, and its result saves nothing and says nothing. Each step
//! is a function of the registry ([`prepare`](ToolRegistry::prepare),
//! [`finish`](ToolRegistry::finish), …) or of the live call's part (`live.rs`).

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::time::Instant;

use futures::FutureExt;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::executor::Validated;
use crate::hooks::{CallHooks, HookCall, Next};
use crate::lines::View;
use crate::live::{Checked, Generation, LiveCall};
use crate::outcome::{CallResult, CallStatus, Discarded, ToolOutcome};
use crate::registry::{
    RawArguments, ToolRegistry, elapsed_ms, finish_error, replies_to, source_of,
};
use crate::sink::{Source, ToolEvent, ToolStage};
use crate::spec::ToolSpec;
use crate::state::StateModel;

/// Where a call runs.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// On its own ([`ToolRegistry::call`]): the caller's context; nothing is said or saved.
    Alone(&'a ToolContext),
    /// In a call in progress ([`ToolRegistry::call_live`]), as part of one model reply.
    Live(&'a LiveCall, &'a Generation),
}

impl<'a> Mode<'a> {
    /// The context the tool runs with: the caller's, or the live call's as it is now.
    fn context(self) -> Cow<'a, ToolContext> {
        match self {
            Mode::Alone(context) => Cow::Borrowed(context),
            Mode::Live(live, _) => Cow::Owned(live.state.context(&live.hooks)),
        }
    }

    /// Who called: an event when the caller's context says so, else the model.
    fn source(self) -> Source {
        match self {
            Mode::Alone(context) => source_of(context),
            Mode::Live(..) => Source::Model,
        }
    }

    /// The tool hooks that wrap the run.
    fn hooks(self) -> &'a CallHooks {
        match self {
            Mode::Alone(context) => &context.hooks,
            Mode::Live(live, _) => &live.hooks,
        }
    }
}

/// What the steps before a run found: the tool, its arguments and the context to run it in, or
/// the call's end (a refusal or a precheck outcome).
enum Prepared<'s, 'a> {
    Ready(&'s ToolSpec, Validated, Cow<'a, ToolContext>),
    Done(CallResult),
}

impl ToolRegistry {
    /// Runs one call through the whole path and returns exactly one outcome.
    ///
    /// `raw_arguments` is what the provider sent (see [`RawArguments`]). The source is `event`
    /// when `context.event` is set, else `model`. Locked arguments are filled from
    /// `context.state`, `context.call` and `context.transcript`; a precheck outcome is the
    /// result. Never panics, whatever the arguments or the tool do: a panicking tool reads
    /// `"<tool> failed before completing. Do not claim success."`
    ///
    /// This is the path of [`call_live`](Self::call_live) with nothing said and nothing saved; a
    /// call in progress with speech, saves, replies and interruptions uses `call_live`.
    pub async fn call<'r>(
        &self,
        name: &str,
        raw_arguments: impl Into<RawArguments<'r>>,
        context: &ToolContext,
    ) -> ToolOutcome {
        self.pipeline(name, raw_arguments.into(), Mode::Alone(context))
            .await
            .outcome
    }

    /// Runs one tool call of `generation` in the live call: fills locked values, runs the
    /// precheck, fills every announce line and says one, runs the tool (cancelled when the
    /// caller talks over a tool that does not `continue`) inside the call's `wrap_tool` hooks,
    /// checks the result, runs the `after_tool` hooks, saves its assign rows in one batch, says
    /// the first reply that matches and fills, and reports the `ends_conversation` effect.
    ///
    /// `Err(Discarded)` when the generation was discarded (interrupted before any of it was
    /// spoken): the tool does not run and no sink hears of it (T8).
    ///
    /// A `continue` tool whose generation is interrupted while it runs returns at once with
    /// status [`CallStatus::StillRunning`]: the model reads that the tool is still running. Its
    /// real result comes exactly once from [`late_results`](Self::late_results) (T7).
    pub async fn call_live<'r>(
        &self,
        name: &str,
        raw_arguments: impl Into<RawArguments<'r>>,
        live: &LiveCall,
        generation: &Generation,
    ) -> Result<CallResult, Discarded> {
        discarded(name, generation)?;
        Ok(self
            .pipeline(name, raw_arguments.into(), Mode::Live(live, generation))
            .await)
    }

    /// The checks a call goes through before its tool would run, without running it: parse the
    /// arguments, fill the locked values, check them (missing arguments first), the executor's
    /// `validate`, the precheck, and every announce line filled (nothing is said). A flow runs
    /// it before a read-back, so a wrong value is never read back ("Check a rule before the tool
    /// runs", point 4; "A required argument left out or empty", point 5).
    ///
    /// [`Checked::Done`] for a refusal (the model reads it) or a precheck outcome (saved and
    /// said like any result); `Err(Discarded)` for a discarded generation.
    pub async fn check_live<'r>(
        &self,
        name: &str,
        raw_arguments: impl Into<RawArguments<'r>>,
        live: &LiveCall,
        generation: &Generation,
    ) -> Result<Checked, Discarded> {
        discarded(name, generation)?;
        let mode = Mode::Live(live, generation);
        Ok(match self.checks(name, raw_arguments.into(), mode).await {
            Prepared::Ready(tool, validated, context) => {
                let arguments = validated.arguments;
                let view = View {
                    state: &context.state,
                    state_schema: self.state_model().map(StateModel::schema),
                    call: &context.call,
                    arguments: Some((&arguments, tool.parameters())),
                    result: None,
                };
                let language = live.state.language();
                for template in tool.announce_for(&language) {
                    if let Err(unfilled) = template.fill(&view, live.speaker()) {
                        let error = self.unset_refusal(&unfilled.placeholder);
                        return Ok(Checked::Done(Box::new(
                            self.plain(self.refuse(name, Source::Model, error), live),
                        )));
                    }
                }
                Checked::Ready(arguments)
            }
            Prepared::Done(result) => Checked::Done(Box::new(result)),
        })
    }

    /// The whole path: checks → announce → run (inside the hooks) → output check → assign →
    /// replies. On its own, the steps that speak or save are skipped.
    async fn pipeline(&self, name: &str, raw: RawArguments<'_>, mode: Mode<'_>) -> CallResult {
        let (tool, validated, context) = match self.checks(name, raw, mode).await {
            Prepared::Ready(tool, validated, context) => (tool, validated, context),
            Prepared::Done(result) => return result,
        };
        let source = mode.source();
        let announced = match mode {
            Mode::Alone(_) => None,
            Mode::Live(live, _) => {
                match self.announce_line(tool, &validated.arguments, &context, live) {
                    Ok(line) => line,
                    Err(error) => return self.ended(mode, self.refuse(name, source, error)),
                }
            }
        };
        if let (Some(line), Mode::Live(live, _)) = (&announced, mode) {
            // A tool that ends the call always lets its goodbye play out first; a line waited
            // for is not cut off.
            if tool.announce_wait || tool.ends_the_call() {
                live.speech.say_waited(line).await;
            } else {
                live.speech.say(line).await;
            }
        }
        self.emit_started(name, source);
        let mut running = Running {
            registry: self,
            tool: name,
            source,
            started: Instant::now(),
            ended: false,
        };
        let hooks = mode.hooks();
        let outcome = if hooks.has_tool_hooks() {
            let hook_call = HookCall {
                tool: name.to_string(),
                arguments: validated.arguments.clone(),
                source,
            };
            let inner: Next<'_> = Box::pin(self.run(tool, validated, context, mode));
            self.hooked(tool, &hook_call, hooks, inner).await
        } else {
            // No hook sees the call: no copy of the arguments, no boxed future.
            self.run(tool, validated, context, mode).await
        };
        // The run reported its own end (or, still running, reports it with its late result).
        running.ended = true;
        match mode {
            Mode::Alone(_) => self.ended(mode, outcome),
            Mode::Live(..) if outcome.status == CallStatus::StillRunning => CallResult {
                outcome,
                announced,
                said: Vec::new(),
                ask_model_reply: false,
                ends_conversation: false,
                saved: Vec::new(),
                prechecked: false,
            },
            Mode::Live(live, _) => self.after(tool, outcome, live, announced, false).await,
        }
    }

    /// The steps before a tool runs: [`prepare`](Self::prepare), then the precheck, whose
    /// outcome is the result (saved and said like any result in a live call).
    async fn checks<'s, 'a>(
        &'s self,
        name: &str,
        raw: RawArguments<'_>,
        mode: Mode<'a>,
    ) -> Prepared<'s, 'a> {
        let source = mode.source();
        let context = mode.context();
        let (tool, validated) = match self.prepare(name, raw, &context) {
            Ok(prepared) => prepared,
            Err(error) => {
                return Prepared::Done(self.ended(mode, self.refuse(name, source, error)));
            }
        };
        match self.run_precheck(tool, &validated.arguments) {
            Ok(Some(outcome)) => {
                let outcome = self.finish(tool, Ok(outcome), 0, source, false);
                Prepared::Done(match mode {
                    Mode::Alone(_) => CallResult {
                        prechecked: true,
                        ..self.ended(mode, outcome)
                    },
                    Mode::Live(live, _) => self.after(tool, outcome, live, None, true).await,
                })
            }
            Ok(None) => Prepared::Ready(tool, validated, context),
            Err(error) => {
                let error = finish_error(name, error);
                Prepared::Done(self.ended(mode, self.refuse(name, source, error)))
            }
        }
    }

    /// Runs the tool and checks its result. In a live call it is cancelled when the caller
    /// talks over a tool that does not `continue` (see `run_in_call`).
    async fn run(
        &self,
        tool: &ToolSpec,
        validated: Validated,
        context: Cow<'_, ToolContext>,
        mode: Mode<'_>,
    ) -> ToolOutcome {
        match mode {
            Mode::Alone(_) => {
                let started = Instant::now();
                let run = AssertUnwindSafe(tool.executor().run_validated(validated, &context))
                    .catch_unwind()
                    .await;
                let ms = elapsed_ms(started);
                let run = run.unwrap_or_else(|_| Err(ToolError::internal("the tool panicked")));
                self.finish(tool, run, ms, mode.source(), true)
            }
            Mode::Live(live, generation) => {
                self.run_in_call(tool, validated, context.into_owned(), live, generation)
                    .await
            }
        }
    }

    /// A call that ended before or without its result's steps (a refusal; on its own, every
    /// call): the model replies unless a refusal for missing values follows a reply that spoke.
    fn ended(&self, mode: Mode<'_>, outcome: ToolOutcome) -> CallResult {
        match mode {
            Mode::Live(live, _) => self.plain(outcome, live),
            Mode::Alone(_) => CallResult {
                prechecked: false,
                ask_model_reply: replies_to(&outcome.model_result, false),
                outcome,
                announced: None,
                said: Vec::new(),
                ends_conversation: false,
                saved: Vec::new(),
            },
        }
    }
}

/// A started call until its run reports its end. Whatever ends the run early without that
/// report (the future dropped: the task awaiting it cancelled, a `select!` that took another
/// branch, a runtime shut down), it ends at the sinks with `tool.failed` and the error
/// `cancelled`, as a call cancelled by an interruption does ("Watch tool calls", point 2).
struct Running<'r> {
    registry: &'r ToolRegistry,
    tool: &'r str,
    source: Source,
    started: Instant,
    /// Set once the run has reported its end itself.
    ended: bool,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        tracing::info!(
            tool = self.tool,
            "tool call dropped while it ran: cancelled"
        );
        self.registry.emit(ToolEvent {
            stage: ToolStage::Failed,
            tool: self.tool.to_string(),
            source: self.source,
            ms: Some(elapsed_ms(self.started)),
            error: Some(ToolError::cancelled().event_text().to_string()),
        });
    }
}

/// `Err(Discarded)` when the generation was discarded: its tool calls never run (T8).
fn discarded(name: &str, generation: &Generation) -> Result<(), Discarded> {
    if generation.is_discarded() {
        tracing::info!(tool = name, "tool call of a discarded generation not run");
        return Err(Discarded);
    }
    Ok(())
}
