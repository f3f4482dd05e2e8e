//! [`FlowConductor`]: a flow run in one call, as the turn loop's [`Conductor`].
//!
//! The precheck runs before the read-back, and again on the caller's yes; a closing tool with
//! confirm lines refuses missing arguments before it asks anything; a result's values are saved
//! in one batch or not at all, and a result that reports an error saves and speaks nothing; the
//! step's own replies are spoken before the tool's own, and its own assign rows save when the
//! step ends (the guide: `docs/guide/flows.md`, `docs/guide/prechecks.md`).
//!
//! A closing-tool call with confirm lines goes like this:
//!
//! ```text
//! model calls book_table ─► before_tool_call: check_live (missing args, checks, precheck)
//!     ├─ refused / precheck outcome ─► the model reads it (the outcome's reply is said)
//!     └─ ready ─► read-back said, the model reads "did not run yet"; no model request follows
//! caller answers ─► on_user_turn: the judge
//!     ├─ yes ─► the values are saved and marked confirmed; the tool call runs (precheck again)
//!     └─ no / something else ─► the model gets the turn (it may call again: a new read-back)
//! the tool ran ─► after_tool_call: finish rule ─► the step's assign rows ─► the next step
//! ```

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;
use hark_llm::ToolCall;
use hark_tools::{
    Arguments, CallResult, Checked, ToolError, ToolRegistry, messages as tool_messages, replies_to,
};
use serde_json::{Value, json};

use super::build::{Flow, Next, Step, matches};
use super::judge::{Confirmation, FallbackJudge};
use super::messages;
use crate::conductor::{Conductor, PolicyContext, ToolCallPlan, UserTurn};

/// A closing-tool call held back for the caller's answer.
#[derive(Debug, Clone)]
struct Pending {
    tool: String,
    arguments: Arguments,
    read_back: String,
}

#[derive(Debug)]
struct Progress {
    step: usize,
    pending: Option<Pending>,
    /// The last successful result of each tool in the current step (for its assign rows).
    results: Vec<(String, Value)>,
    finished: bool,
    calls: u64,
    read_backs: usize,
}

/// One call's run of a [`Flow`]: give it to the call's [`crate::AgentSettings`] with
/// [`with_conductor`](crate::AgentSettings::with_conductor). Build one per call
/// ([`Flow::conductor`]): it holds where this call is in the flow.
pub struct FlowConductor {
    flow: Arc<Flow>,
    judge: FallbackJudge,
    progress: Mutex<Progress>,
}

impl fmt::Debug for FlowConductor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let progress = self.lock();
        f.debug_struct("FlowConductor")
            .field("step", &self.flow.steps[progress.step].name)
            .field("pending", &progress.pending.is_some())
            .field("finished", &progress.finished)
            .finish()
    }
}

impl Flow {
    /// A new run of this flow for one call, in its first step, with the local yes/no judge.
    pub fn conductor(self: &Arc<Self>) -> FlowConductor {
        FlowConductor {
            flow: self.clone(),
            judge: FallbackJudge::local(),
            progress: Mutex::new(Progress {
                step: self.first,
                pending: None,
                results: Vec::new(),
                finished: false,
                calls: 0,
                read_backs: 0,
            }),
        }
    }
}

impl FlowConductor {
    /// Judges the caller's answers to read-backs with `judge` (the local judge, with the LLM
    /// classifier as its fallback: [`FallbackJudge::with_fallback`]).
    pub fn with_judge(mut self, judge: FallbackJudge) -> Self {
        self.judge = judge;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn step(&self) -> &Step {
        &self.flow.steps[self.lock().step]
    }

    /// The name of the step the call is in.
    pub fn step_name(&self) -> String {
        self.step().name.clone()
    }

    /// True once the flow's last step ended (its closing tool's result matched its finish
    /// rule and it has no next step).
    pub fn is_finished(&self) -> bool {
        self.lock().finished
    }

    /// True while a read-back waits for the caller's answer.
    pub fn is_confirming(&self) -> bool {
        self.lock().pending.is_some()
    }

    /// The read-back for `arguments` of the closing tool: the first confirm line (in turn) that
    /// fills. `Err` holds the name of a value no line could fill.
    fn read_back(
        &self,
        step: &Step,
        registry: &ToolRegistry,
        arguments: &Arguments,
        cx: &PolicyContext<'_>,
    ) -> Result<String, String> {
        let Some(closing) = &step.closing else {
            return Err(String::new());
        };
        let lines = closing.lines_for(&cx.live.state.language());
        let start = self.lock().read_backs;
        let mut missing = String::new();
        for k in 0..lines.len() {
            let line = &lines[(start + k) % lines.len()];
            match registry.fill_line(&closing.tool, line, arguments, cx.live) {
                Ok(text) => {
                    self.lock().read_backs += 1;
                    return Ok(text);
                }
                Err(unfilled) if missing.is_empty() => {
                    missing = unfilled.placeholder.path.join(".");
                }
                Err(_) => {}
            }
        }
        Err(missing)
    }

    /// Saves a batch of values into the State, or none; logs a refusal.
    fn save(&self, cx: &PolicyContext<'_>, saves: Vec<(String, Value)>) -> bool {
        if saves.is_empty() {
            return true;
        }
        let step = self.step_name();
        match cx
            .live
            .state
            .save_batch(saves, self.flow.registry.state_model())
        {
            Ok(()) => true,
            Err(reason) => {
                let field = reason.split(':').next().unwrap_or("");
                tracing::warn!(
                    step,
                    "the State refused the values the step saves ({field})"
                );
                false
            }
        }
    }

    /// The step ended: its own assign rows (and, without confirm lines, the values it takes
    /// from the closing tool's arguments) save in one batch; the flow moves on.
    fn end_step(&self, cx: &PolicyContext<'_>, call: &ToolCall, result: &Value) {
        let (index, results) = {
            let progress = self.lock();
            (progress.step, progress.results.clone())
        };
        let step = &self.flow.steps[index];
        let mut saves = Vec::new();
        for (tool, rows) in &step.assign {
            let Some((_, found)) = results.iter().find(|(t, _)| t == tool) else {
                continue;
            };
            for row in rows {
                let mut at = found;
                let mut ok = true;
                for name in &row.path {
                    match at.get(name) {
                        Some(v) => at = v,
                        None => ok = false,
                    }
                }
                if ok {
                    saves.push((row.variable.clone(), at.clone()));
                }
            }
        }
        if step.closing.as_ref().is_some_and(|c| !c.confirms())
            && let Some(arguments) = call.arguments.as_object()
        {
            for value in &step.from_arguments {
                if let Some(v) = arguments.get(value) {
                    saves.push((value.clone(), v.clone()));
                }
            }
        }
        self.save(cx, saves);
        let target = match &step.next {
            Next::End => None,
            Next::Step(i) => Some(*i),
            Next::Routes(routes) => routes
                .iter()
                .find(|(conditions, _)| matches(conditions, result))
                .map(|(_, i)| *i),
        };
        let mut progress = self.lock();
        progress.pending = None;
        progress.results.clear();
        match target {
            Some(i) => {
                tracing::info!(
                    from = step.name,
                    to = self.flow.steps[i].name,
                    "the flow moves on"
                );
                progress.step = i;
            }
            None => {
                tracing::info!(step = step.name, "the flow is finished");
                progress.finished = true;
            }
        }
    }
}

impl Conductor for FlowConductor {
    fn instructions(&self, _cx: &PolicyContext<'_>) -> String {
        let step = self.step();
        if self.flow.instructions.trim().is_empty() {
            step.instructions.clone()
        } else if step.instructions.trim().is_empty() {
            self.flow.instructions.clone()
        } else {
            format!("{}\n\n{}", self.flow.instructions, step.instructions)
        }
    }

    fn tools(&self, _cx: &PolicyContext<'_>) -> Arc<ToolRegistry> {
        self.step().tools.clone()
    }

    fn on_user_turn<'a>(
        &'a self,
        text: &'a str,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, UserTurn> {
        Box::pin(async move {
            let Some(pending) = self.lock().pending.take() else {
                return UserTurn::Ask;
            };
            let language = cx.live.state.language();
            let answer = self.judge.decide(text, &pending.read_back, &language).await;
            tracing::info!(
                step = self.step_name(),
                ?answer,
                "the caller answered the read-back"
            );
            if answer != Confirmation::Yes {
                return UserTurn::Ask;
            }
            // Values the caller confirmed are saved and marked confirmed; a tool's save never is.
            let step = self.step();
            let saves: Vec<(String, Value)> = step
                .from_arguments
                .iter()
                .filter_map(|v| pending.arguments.get(v).map(|a| (v.clone(), a.clone())))
                .collect();
            let names: Vec<String> = saves.iter().map(|(n, _)| n.clone()).collect();
            if self.save(cx, saves) {
                for name in names {
                    cx.live.state.confirm(name);
                }
            }
            let id = {
                let mut progress = self.lock();
                progress.calls += 1;
                format!("hark_flow_{}", progress.calls)
            };
            UserTurn::Call {
                say: Vec::new(),
                call: ToolCall::from_value(id, pending.tool, Value::Object(pending.arguments)),
            }
        })
    }

    fn before_tool_call<'a>(
        &'a self,
        call: &'a ToolCall,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, ToolCallPlan> {
        Box::pin(async move {
            let step = self.step();
            let Some(closing) = &step.closing else {
                return ToolCallPlan::Run;
            };
            if call.name != closing.tool || !closing.confirms() {
                return ToolCallPlan::Run;
            }
            let registry = &step.tools;
            // A fresh generation: nothing runs here, so nothing needs cancelling.
            let generation = cx.live.generation();
            let checked = registry
                .check_live(&call.name, &call.arguments, cx.live, &generation)
                .await;
            match checked {
                Err(_) => ToolCallPlan::Run,
                Ok(Checked::Done(result)) => ToolCallPlan::Answer {
                    say: Vec::new(),
                    result: result.outcome.model_result,
                    ask_model_reply: result.ask_model_reply,
                },
                Ok(Checked::Ready(arguments)) => {
                    match self.read_back(step, registry, &arguments, cx) {
                        Ok(line) => {
                            self.lock().pending = Some(Pending {
                                tool: call.name.clone(),
                                arguments,
                                read_back: line.clone(),
                            });
                            ToolCallPlan::Answer {
                                say: vec![line],
                                result: json!({
                                    "status": "confirming",
                                    "note": messages::awaiting_confirmation(&call.name),
                                }),
                                ask_model_reply: false,
                            }
                        }
                        Err(missing) => {
                            let missing = vec![missing];
                            let result = ToolError::arguments_missing(
                                tool_messages::arguments_missing(&call.name, &missing),
                                missing,
                            )
                            .to_model_json();
                            ToolCallPlan::Answer {
                                ask_model_reply: replies_to(&result, cx.live.speech.reply_spoke()),
                                say: Vec::new(),
                                result,
                            }
                        }
                    }
                }
            }
        })
    }

    fn after_tool_call<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a CallResult,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if !result.outcome.succeeded() {
                return;
            }
            {
                let mut progress = self.lock();
                progress.results.retain(|(t, _)| *t != call.name);
                progress
                    .results
                    .push((call.name.clone(), result.outcome.result.clone()));
            }
            let step = self.step();
            let Some(closing) = &step.closing else {
                return;
            };
            if call.name != closing.tool || !matches(&closing.finish, &result.outcome.result) {
                return;
            }
            if result.prechecked {
                tracing::warn!(
                    "{}",
                    messages::precheck_matched_finish(&step.name, &call.name)
                );
                return;
            }
            self.end_step(cx, call, &result.outcome.result);
        })
    }
}
