//! `ToolRegistry`: the tools of a call, the call path, what the model reads, and the sinks.
//!
//! Arguments and results are checked before and after the function runs. Guide:
//! `docs/guide/inputs-and-outputs.md`, `docs/guide/results-the-model-does-not-read.md`,
//! `docs/guide/refusals.md`, `docs/guide/sinks-and-hooks.md`.
//!
//! The steps of the call path are functions here: `prepare` (resolve the tool, read the
//! arguments, fill locked values, check them, `executor.validate`), the precheck, `finish` (check
//! the result, what the model reads, sinks) and the hooks around the run. `pipeline.rs` runs them
//! in order, on their own ([`ToolRegistry::call`]) or in a call in progress
//! ([`ToolRegistry::call_live`], which adds announce lines, interruption, assign and reply rows,
//! effects, from `live.rs`).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use futures::FutureExt;
use hark_schema::{ToolArguments, ToolDefinition};
use serde_json::{Map, Value};

use crate::context::{Arguments, ToolContext};
use crate::error::ArgumentsFault;
use crate::error::{ToolError, ToolErrorKind};
use crate::executor::Validated;
use crate::hooks::{CallHooks, HookCall, Next, Wrapped};
use crate::messages;
use crate::outcome::{CallStatus, ToolOutcome};
use crate::output::is_error_result;
use crate::schema::{Dialect, dialect_schema};
use hark_speak::{Placeholder, Scope};

use crate::lines::View;
use crate::reply::{Assign, ToolReply};
use crate::rows::{Compiled, Rows, compile};
use crate::sink::{Source, ToolEvent, ToolSink, ToolStage};
use crate::spec::{BuildError, Interruption, LockedValue, ToolSpec};
use crate::state::{State, StateModel};

/// The arguments of a call as its caller has them: read once already (a provider's stream hands
/// over [`ToolArguments`]), or a JSON text, a JSON value, or nothing. `None`, `null`, `""` (or
/// only spaces) and `"{}"` all mean `{}` (the rule is [`hark_schema::no_arguments`]). A
/// JSON text that holds a JSON text of an object (double encoding) is decoded once more. Only
/// the provider's stream repairs broken JSON (`hark_llm::read_arguments`); a text here is read as
/// it is.
#[derive(Debug, Clone, Copy)]
pub enum RawArguments<'a> {
    /// No arguments field at all.
    None,
    /// The arguments as a JSON text.
    Text(&'a str),
    /// The arguments as a parsed JSON value.
    Json(&'a Value),
    /// The arguments as read where they arrived: an object, or unreadable (refused with
    /// [`messages::arguments_not_an_object`]).
    Read(&'a ToolArguments),
}

impl<'a> From<&'a ToolArguments> for RawArguments<'a> {
    fn from(arguments: &'a ToolArguments) -> Self {
        Self::Read(arguments)
    }
}

impl<'a> From<&'a str> for RawArguments<'a> {
    fn from(text: &'a str) -> Self {
        Self::Text(text)
    }
}

impl<'a> From<&'a String> for RawArguments<'a> {
    fn from(text: &'a String) -> Self {
        Self::Text(text)
    }
}

impl<'a> From<Option<&'a str>> for RawArguments<'a> {
    fn from(text: Option<&'a str>) -> Self {
        text.map_or(Self::None, Self::Text)
    }
}

impl<'a> From<&'a Value> for RawArguments<'a> {
    fn from(value: &'a Value) -> Self {
        Self::Json(value)
    }
}

impl<'a> From<Option<&'a Value>> for RawArguments<'a> {
    fn from(value: Option<&'a Value>) -> Self {
        value.map_or(Self::None, Self::Json)
    }
}

/// Every tool of a registry in one dialect: the tools that could be expressed, and one line per
/// tool that could not, naming the tool and the keyword. A refused tool never keeps
/// the others out.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderTools {
    /// The dialect.
    pub dialect: Dialect,
    /// The tools, in registry order.
    pub tools: Vec<ToolDefinition>,
    /// One line per tool the dialect cannot express.
    pub refused: Vec<String>,
}

/// The tools of one agent or call, and the path every call takes.
///
/// Build it once per call (or once and share it): every schema and validator was built with its
/// [`ToolSpec`]; a call does no schema work beyond checking.
pub struct ToolRegistry {
    tools: Vec<ToolSpec>,
    index: HashMap<String, usize>,
    sinks: RwLock<Vec<Arc<dyn ToolSink>>>,
    pub(crate) compiled: Compiled,
}

/// Builds a [`ToolRegistry`] with a State type, assign rows, reply rows and confirm steps
/// ("Save a result and speak it"). [`build`](Self::build) checks every row and every locked
/// path and returns every problem at once, each naming the fix.
#[derive(Debug)]
pub struct RegistryBuilder {
    tools: Vec<ToolSpec>,
    rows: Rows,
}

impl RegistryBuilder {
    /// The State type of the call: locked paths, `{{value}}`s, `state` conditions and assign
    /// rows are checked against it, and saves must fit it.
    pub fn state<S: State>(mut self) -> Self {
        self.rows.state = Some(StateModel::of::<S>());
        self
    }

    /// The State of the call as a [`StateModel`] built at run time (an agent file's State
    /// fields, see [`StateModel::from_schema`]); otherwise like [`state`](Self::state).
    pub fn state_model(mut self, model: StateModel) -> Self {
        self.rows.state = Some(model);
        self
    }

    /// The State values the result of `tool` saves (in one batch, or none).
    pub fn assign(
        mut self,
        tool: impl Into<String>,
        rows: impl IntoIterator<Item = Assign>,
    ) -> Self {
        self.rows
            .assign
            .push((tool.into(), rows.into_iter().collect()));
        self
    }

    /// The place's replies, tried in order before each tool's own. Each names its tool.
    pub fn replies(mut self, replies: impl IntoIterator<Item = ToolReply>) -> Self {
        self.rows.replies.extend(replies);
        self
    }

    /// Declares that the step `step` must still confirm these values with the caller: a tool
    /// refused for one of them gets the hint `"Run first: it confirms with the caller (<step>)"`.
    pub fn confirms<S: Into<String>>(
        mut self,
        step: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.rows
            .confirms
            .push((step.into(), values.into_iter().map(Into::into).collect()));
        self
    }

    /// Declares that the step `step` saves these State values: a tool refused for one of them,
    /// while no step must still confirm it, gets the hint `"Run first: it saves <value>
    /// (<step>)"`. The first step declared wins, before any tool's assign rows.
    pub fn saved_by<S: Into<String>>(
        mut self,
        step: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.rows
            .saves
            .push((step.into(), values.into_iter().map(Into::into).collect()));
        self
    }

    /// Builds the registry; every problem at once.
    pub fn build(self) -> Result<ToolRegistry, BuildError> {
        ToolRegistry::assemble(self.tools, Vec::new(), self.rows)
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sinks = self.sinks.read().map(|s| s.len()).unwrap_or(0);
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .field("sinks", &sinks)
            .finish()
    }
}

impl ToolRegistry {
    /// A registry of these tools. Two tools with one name fail, naming it.
    ///
    /// The tools' own replies are checked here too; for a State type, assign rows and place
    /// replies, use [`builder`](Self::builder).
    pub fn new(tools: Vec<ToolSpec>) -> Result<Self, BuildError> {
        Self::assemble(tools, Vec::new(), Rows::default())
    }

    /// A builder for a registry with a State type, assign rows and replies.
    pub fn builder(tools: Vec<ToolSpec>) -> RegistryBuilder {
        RegistryBuilder {
            tools,
            rows: Rows::default(),
        }
    }

    fn assemble(
        tools: Vec<ToolSpec>,
        sinks: Vec<Arc<dyn ToolSink>>,
        rows: Rows,
    ) -> Result<Self, BuildError> {
        let mut index = HashMap::new();
        let mut problems = Vec::new();
        for (i, tool) in tools.iter().enumerate() {
            if index.insert(tool.name().to_string(), i).is_some() {
                problems.push(messages::duplicate_tool(tool.name()));
            }
        }
        let compiled = match compile(&tools, rows) {
            Ok(compiled) => Some(compiled),
            Err(found) => {
                problems.extend(found);
                None
            }
        };
        let (Some(compiled), true) = (compiled, problems.is_empty()) else {
            return Err(BuildError { problems });
        };
        Ok(Self {
            tools,
            index,
            sinks: RwLock::new(sinks),
            compiled,
        })
    }

    /// The State type the registry was built with.
    pub fn state_model(&self) -> Option<&StateModel> {
        self.compiled.rows.state.as_ref()
    }

    /// The tools' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name().to_string()).collect()
    }

    /// The tools, in order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// The tool of this name.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// True when the registry has a tool of this name ("Ask the registry").
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// True when the caller's speech must leave a running call of this tool alone (its
    /// interruption is `Continue`). An unknown name gives `false`, so the call is cancelled.
    pub fn keeps_running(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|t| t.interruption_rule() == Interruption::Continue)
    }

    fn sinks_snapshot(&self) -> Vec<Arc<dyn ToolSink>> {
        self.sinks.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// A registry of only the named tools (names it lacks are skipped), keeping the sinks.
    pub fn only(&self, names: &[&str]) -> ToolRegistry {
        let tools: Vec<ToolSpec> = self
            .tools
            .iter()
            .filter(|t| names.contains(&t.name()))
            .cloned()
            .collect();
        let mut rows = self.compiled.rows.clone();
        rows.assign.retain(|(t, _)| names.contains(&t.as_str()));
        rows.replies
            .retain(|r| r.tool.as_deref().is_some_and(|t| names.contains(&t)));
        let sinks = self.sinks_snapshot();
        match Self::assemble(tools.clone(), sinks.clone(), rows) {
            Ok(registry) => registry,
            // A subset of checked rows cannot fail; keep the tools without rows if it ever does.
            Err(_) => Self {
                index: tools
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.name().to_string(), i))
                    .collect(),
                tools,
                sinks: RwLock::new(sinks),
                compiled: Compiled::default(),
            },
        }
    }

    /// A registry of only the named tools (names it lacks are skipped) for one step of a flow,
    /// keeping the sinks, the hints, the assign rows and replies of those tools: `replies` (the
    /// step's own, each naming its tool) are tried first, then the registry's, then each tool's
    /// own ("Replies on the tool itself", point 2). Checked like the registry's rows: every
    /// problem at once, each naming the fix.
    pub fn scoped(
        &self,
        names: &[&str],
        replies: impl IntoIterator<Item = ToolReply>,
    ) -> Result<ToolRegistry, BuildError> {
        let tools: Vec<ToolSpec> = self
            .tools
            .iter()
            .filter(|t| names.contains(&t.name()))
            .cloned()
            .collect();
        let mut rows = self.compiled.rows.clone();
        rows.assign.retain(|(t, _)| names.contains(&t.as_str()));
        rows.replies
            .retain(|r| r.tool.as_deref().is_some_and(|t| names.contains(&t)));
        let mut first: Vec<ToolReply> = replies.into_iter().collect();
        first.append(&mut rows.replies);
        rows.replies = first;
        Self::assemble(tools, self.sinks_snapshot(), rows)
    }

    /// The State values the registry's assign rows of the tool `tool` save, in row order.
    pub fn assigned_by(&self, tool: &str) -> Vec<String> {
        self.compiled
            .assign
            .get(tool)
            .map(|rows| rows.iter().map(|r| r.variable.clone()).collect())
            .unwrap_or_default()
    }

    /// Checks `when` conditions on the result fields of the tool `tool` (a flow's finish rule or
    /// next-step route), like a reply row's: every field must be in the output, and every value
    /// one a Literal, bool or enum field can hold. Every problem at once, each naming the fix.
    pub fn check_conditions(
        &self,
        tool: &str,
        conditions: &[(String, Vec<Value>)],
    ) -> Result<(), BuildError> {
        let Some(spec) = self.get(tool) else {
            return Err(BuildError::new(messages::row_unknown_tool(
                "A condition",
                tool,
                &self.names(),
            )));
        };
        let mut problems = Vec::new();
        crate::rows::check_when(spec, conditions, &mut problems);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(BuildError { problems })
        }
    }

    /// The values the result field `field` (dotted for nested) of the tool `tool` can hold, when
    /// it is a Literal, bool or enum; `None` for any other field or an unknown one.
    pub fn held_values(&self, tool: &str, field: &str) -> Option<Vec<Value>> {
        crate::rows::held_values(self.get(tool)?, field)
    }

    /// Checks assign rows against the tools and the State type as [`RegistryBuilder::assign`]
    /// rows are checked (a flow step's own rows, which save when the step ends): the tool
    /// exists, the State value exists, the result path exists, and its type fits. Every problem
    /// at once, each naming the fix.
    pub fn check_assign(&self, rows: Vec<(String, Vec<Assign>)>) -> Result<(), BuildError> {
        let rows = Rows {
            state: self.compiled.rows.state.clone(),
            assign: rows,
            ..Rows::default()
        };
        compile(&self.tools, rows)
            .map(|_| ())
            .map_err(|problems| BuildError { problems })
    }

    /// This registry with the hints of a flow's steps ("A call that is refused", points 2–3):
    /// `confirms` holds (step, the values it must still confirm with the caller), `saves` (step,
    /// the values it saves), both in flow order. Replaces the hints it had; keeps the tools, rows
    /// and sinks.
    pub fn with_step_hints(
        &self,
        confirms: Vec<(String, Vec<String>)>,
        saves: Vec<(String, Vec<String>)>,
    ) -> Result<ToolRegistry, BuildError> {
        let mut rows = self.compiled.rows.clone();
        rows.confirms = confirms;
        rows.saves = saves;
        Self::assemble(self.tools.clone(), self.sinks_snapshot(), rows)
    }

    /// A registry with these tools added, keeping the sinks. A name already taken fails.
    pub fn with_tools(&self, tools: Vec<ToolSpec>) -> Result<ToolRegistry, BuildError> {
        let mut all = self.tools.clone();
        all.extend(tools);
        Self::assemble(all, self.sinks_snapshot(), self.compiled.rows.clone())
    }

    /// Adds a sink. A sink already held (the same `Arc`) is not added again; returns whether it
    /// was added.
    pub fn listen(&self, sink: Arc<dyn ToolSink>) -> bool {
        let Ok(mut sinks) = self.sinks.write() else {
            return false;
        };
        if sinks
            .iter()
            .any(|s| std::ptr::addr_eq(Arc::as_ptr(s), Arc::as_ptr(&sink)))
        {
            return false;
        }
        sinks.push(sink);
        true
    }

    /// Every tool's definition in one provider dialect. A tool the dialect cannot express is
    /// left out with a line naming the tool and the keyword; the others still come out.
    pub fn definitions(&self, dialect: Dialect) -> ProviderTools {
        let mut tools = Vec::new();
        let mut refused = Vec::new();
        for tool in &self.tools {
            match dialect_schema(tool.model_parameters(), dialect) {
                Ok(parameters) => tools.push(ToolDefinition {
                    name: tool.name().to_string(),
                    description: tool.description(),
                    parameters,
                    strict: dialect.is_strict(),
                }),
                Err(problems) => {
                    for problem in problems {
                        let line = messages::dialect_refused(tool.name(), &problem);
                        tracing::warn!(tool = tool.name(), "{line}");
                        refused.push(line);
                    }
                }
            }
        }
        ProviderTools {
            dialect,
            tools,
            refused,
        }
    }

    /// What the model reads for a result of the tool `name`: a failure or refusal as it is;
    /// a success as `{"ok": true}` with `show_result = false`, else without its `hidden` fields.
    pub fn for_model(&self, name: &str, result: &Value) -> Value {
        match self.get(name) {
            Some(tool) if !is_error_result(result) => model_view(tool, result),
            _ => result.clone(),
        }
    }

    /// Tells the log and every sink of `event`: the log gets the same stage names as the sinks
    /// and the same fields, never a value (see [`log_event`]).
    pub(crate) fn emit(&self, event: ToolEvent) {
        self.emit_with(event, None);
    }

    /// [`emit`](Self::emit), with the kind of error for the log (a save the State refused).
    pub(crate) fn emit_with(&self, event: ToolEvent, kind: Option<&str>) {
        log_event(&event, kind);
        self.emit_unlogged(|| event);
    }

    /// True when at least one sink listens.
    fn has_sinks(&self) -> bool {
        self.sinks.read().is_ok_and(|s| !s.is_empty())
    }

    /// Tells every sink of the event `event` makes, for a caller that logged it in its own words
    /// (`tool.succeeded … ran=true`, `tool.refused … reason=…`, which the guide quotes). With
    /// no sink, the event is never made.
    fn emit_unlogged(&self, event: impl FnOnce() -> ToolEvent) {
        if !self.has_sinks() {
            return;
        }
        let event = event();
        let sinks = self.sinks_snapshot();
        for sink in sinks {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| sink.on_event(&event)));
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    tracing::warn!(tool = %event.tool, stage = event.stage.as_str(), "a tool sink failed: {error}");
                }
                Err(_) => {
                    tracing::warn!(tool = %event.tool, stage = event.stage.as_str(), "a tool sink panicked");
                }
            }
        }
    }

    /// Runs `inner` (the tool run and its check) inside the call's `wrap_tool` hooks, then its
    /// `after_tool` hooks ("Outputs", point 6). A hook's replacement is not checked again. A
    /// still-running outcome (a `continue` tool cut off) is kept whatever a hook says, and the
    /// `after_tool` hooks wait for its late result.
    pub(crate) async fn hooked<'a>(
        &'a self,
        tool: &'a ToolSpec,
        call: &'a HookCall,
        hooks: &'a CallHooks,
        inner: Next<'a>,
    ) -> ToolOutcome {
        if !hooks.has_tool_hooks() {
            return inner.await;
        }
        let mut next = inner;
        for wrap in hooks.wraps().iter().rev() {
            let wrap = wrap.clone();
            next = Box::pin(async move {
                match AssertUnwindSafe(wrap(call, next)).catch_unwind().await {
                    Ok(Wrapped::Keep(outcome)) => outcome,
                    Ok(Wrapped::Replace(value)) => self.replaced(tool, None, value),
                    Err(_) => {
                        tracing::warn!(tool = tool.name(), "a wrap_tool hook panicked");
                        let error =
                            finish_error(tool.name(), ToolError::internal("a hook panicked"));
                        failed(tool.name(), error, 0)
                    }
                }
            });
        }
        let outcome = next.await;
        self.after_hooks(tool, call, hooks, outcome)
    }

    /// Runs the `after_tool` hooks on an outcome (a still-running outcome is kept as it is).
    pub(crate) fn after_hooks(
        &self,
        tool: &ToolSpec,
        call: &HookCall,
        hooks: &CallHooks,
        mut outcome: ToolOutcome,
    ) -> ToolOutcome {
        if outcome.status == CallStatus::StillRunning {
            return outcome;
        }
        for after in hooks.afters() {
            let hook = AssertUnwindSafe(|| after(call, &outcome));
            match std::panic::catch_unwind(hook) {
                Ok(Some(value)) => outcome = self.replaced(tool, Some(&outcome), value),
                Ok(None) => {}
                Err(_) => tracing::warn!(tool = tool.name(), "an after_tool hook panicked"),
            }
        }
        outcome
    }

    /// The outcome for a result a hook put in the tool's place: not checked again; a result
    /// that reports an error is a failure; the model reads it after `show_result` and `hidden`.
    fn replaced(
        &self,
        tool: &ToolSpec,
        previous: Option<&ToolOutcome>,
        value: Value,
    ) -> ToolOutcome {
        tracing::info!(tool = tool.name(), "a tool hook replaced the result");
        let failed = is_error_result(&value);
        ToolOutcome {
            tool: tool.name().to_string(),
            status: if failed {
                CallStatus::Failed
            } else {
                CallStatus::Succeeded
            },
            model_result: if failed {
                value.clone()
            } else {
                model_view(tool, &value)
            },
            result: value,
            error: None,
            ms: previous.map_or(0, |p| p.ms),
        }
    }

    pub(crate) fn emit_started(&self, name: &str, source: Source) {
        if !self.has_sinks() {
            // The log line `log_event` writes, without making the event no sink reads.
            let stage = ToolStage::Started.as_str();
            tracing::debug!(tool = name, source = source_name(source), "{stage}");
            return;
        }
        self.emit(ToolEvent {
            stage: ToolStage::Started,
            tool: name.to_string(),
            source,
            ms: None,
            error: None,
        });
    }

    /// The steps before a tool runs: find it, parse the arguments, fill the locked values
    /// (refused with a hint while one is unset), check them, `executor.validate`.
    pub(crate) fn prepare<'s>(
        &'s self,
        name: &str,
        raw: RawArguments<'_>,
        context: &ToolContext,
    ) -> Result<(&'s ToolSpec, Validated), ToolError> {
        let Some(tool) = self.get(name) else {
            return Err(
                ToolError::refused(messages::unknown_tool(name, &self.names()))
                    .with_event_text("unknown tool"),
            );
        };
        let mut arguments = parse_arguments(raw).map_err(|fault| {
            ToolError::refused(messages::arguments_unreadable(name, fault))
                .with_event_text(fault.event_text())
        })?;
        self.fill_locked(tool, &mut arguments, context)?;
        let validated = check_arguments(tool, arguments)
            .and_then(|arguments| tool.executor().validate_for_run(arguments))
            .map_err(|error| finish_error(name, error))?;
        Ok((tool, validated))
    }

    /// "Locked arguments": replaces whatever the model sent for each locked argument.
    fn fill_locked(
        &self,
        tool: &ToolSpec,
        arguments: &mut Arguments,
        context: &ToolContext,
    ) -> Result<(), ToolError> {
        if tool.locked.is_empty() {
            return Ok(());
        }
        let view = View {
            state: &context.state,
            state_schema: self.state_model().map(StateModel::schema),
            call: &context.call,
            arguments: None,
            result: None,
        };
        for (parameter, value) in &tool.locked {
            let filled = match value {
                LockedValue::Transcript(max) => {
                    let start = context.transcript.len().saturating_sub(*max);
                    serde_json::to_value(&context.transcript[start..]).unwrap_or(Value::Null)
                }
                LockedValue::Template(template) => match template.fill_json(&view) {
                    Ok(value) => value,
                    Err(unfilled) => return Err(self.unset_refusal(&unfilled.placeholder)),
                },
            };
            arguments.insert(parameter.clone(), filled);
        }
        Ok(())
    }

    /// The refusal for a value a line or a locked argument needs and the call does not have
    /// ("A call that is refused", points 2–4; "Locked arguments", point 4).
    pub(crate) fn unset_refusal(&self, placeholder: &Placeholder) -> ToolError {
        if placeholder.scope == Scope::Call {
            let name = placeholder.path.join(".");
            return ToolError::refused(messages::call_value_missing(&name))
                .with_event_text(format!("call.{name} not carried"));
        }
        let value = placeholder.path.join(".");
        let top = &placeholder.path[0];
        let compiled = &self.compiled;
        let text = if let Some((_, step)) = compiled.confirmers.iter().find(|(v, _)| v == top) {
            messages::not_set_confirm(&value, step)
        } else if let Some((_, tool)) = compiled.savers.iter().find(|(v, _)| v == top) {
            messages::not_set_saves(&value, tool)
        } else {
            let description = self.state_model().and_then(|m| m.description(top));
            messages::not_set_get(&value, description)
        };
        ToolError::refused(text).with_event_text(format!("{value} not set"))
    }

    /// Runs the tool's precheck, if it has one: `Some(outcome)` is the result.
    pub(crate) fn run_precheck(
        &self,
        tool: &ToolSpec,
        arguments: &Arguments,
    ) -> Result<Option<Value>, ToolError> {
        let Some(precheck) = &tool.precheck else {
            return Ok(None);
        };
        match std::panic::catch_unwind(AssertUnwindSafe(|| (precheck.0)(arguments))) {
            Ok(outcome) => outcome,
            Err(_) => Err(ToolError::internal("the precheck panicked")),
        }
    }

    /// The steps after a tool ran: check the result, what the model reads, sinks. `ran` is false
    /// for a precheck outcome (no `tool.started` was sent; `ms` is 0).
    pub(crate) fn finish(
        &self,
        tool: &ToolSpec,
        run: Result<Value, ToolError>,
        ms: u64,
        source: Source,
        ran: bool,
    ) -> ToolOutcome {
        let name = tool.name();
        let outcome = match run {
            Ok(result) if is_error_result(&result) => ToolOutcome {
                tool: name.to_string(),
                status: CallStatus::Failed,
                model_result: result.clone(),
                result,
                error: None,
                ms,
            },
            Ok(result) => match tool.output().check(result) {
                Ok(checked) => ToolOutcome {
                    tool: name.to_string(),
                    status: CallStatus::Succeeded,
                    model_result: model_view(tool, &checked),
                    result: checked,
                    error: None,
                    ms,
                },
                Err(mismatch) => {
                    let output = tool.output().name();
                    tracing::warn!(
                        tool = name,
                        "{name} returned a result that does not fit {output}: {}",
                        mismatch.log_detail
                    );
                    let error = ToolError::new(messages::result_does_not_fit(
                        name,
                        output,
                        &mismatch.model_detail,
                    ))
                    .with_event_text(messages::result_does_not_fit_event(
                        output,
                        &mismatch.log_detail,
                    ));
                    failed(name, error, ms)
                }
            },
            Err(error) => {
                let error = finish_error(name, error);
                let mut outcome = failed(name, error, ms);
                if outcome.error.as_ref().is_some_and(ToolError::is_refusal) {
                    outcome.status = CallStatus::Refused;
                }
                outcome
            }
        };
        let outcome = capped(outcome);
        let stage = match outcome.status {
            CallStatus::Succeeded => ToolStage::Succeeded,
            CallStatus::Failed => ToolStage::Failed,
            CallStatus::Refused | CallStatus::StillRunning => ToolStage::Refused,
        };
        tracing::info!(tool = name, ms, ran, "{}", stage.as_str());
        self.emit_unlogged(|| ToolEvent {
            stage,
            tool: name.to_string(),
            source,
            ms: Some(ms),
            error: match (&outcome.error, outcome.status) {
                (Some(error), _) => Some(error.event_text().to_string()),
                (None, CallStatus::Failed) => Some("the result reports an error".to_string()),
                _ => None,
            },
        });
        outcome
    }

    pub(crate) fn refuse(&self, name: &str, source: Source, error: ToolError) -> ToolOutcome {
        tracing::info!(tool = name, reason = error.event_text(), "tool.refused");
        self.emit_unlogged(|| ToolEvent {
            stage: ToolStage::Refused,
            tool: name.to_string(),
            source,
            ms: None,
            error: Some(error.event_text().to_string()),
        });
        let result = error.to_model_json();
        ToolOutcome {
            tool: name.to_string(),
            status: CallStatus::Refused,
            model_result: result.clone(),
            result,
            error: Some(error),
            ms: 0,
        }
    }
}

/// Writes one sink event to the log, under the sink's stage name (`tool.started`,
/// `tool.save_refused`, `tool.replied`; the registry logs `tool.succeeded`, `tool.failed` and
/// `tool.refused` where it ends a call, with `ran` and `reason`) with the tool, the source, `ms`
/// and the event's error text: the fields a sink gets, never an argument or result value.
/// `tool.started` is logged at debug, `tool.save_refused` at warn (with the kind of error),
/// every other stage at info.
pub(crate) fn log_event(event: &ToolEvent, kind: Option<&str>) {
    let stage = event.stage.as_str();
    let tool = event.tool.as_str();
    let source = source_name(event.source);
    let error = event.error.as_deref();
    match event.stage {
        ToolStage::Started => tracing::debug!(tool, source, "{stage}"),
        ToolStage::SaveRefused => tracing::warn!(tool, source, error, kind, "{stage}"),
        _ => tracing::info!(tool, source, ms = event.ms, error, "{stage}"),
    }
}

/// `model` or `event`, as the log writes a source.
fn source_name(source: Source) -> &'static str {
    match source {
        Source::Model => "model",
        Source::Event => "event",
    }
}

pub(crate) fn source_of(context: &ToolContext) -> Source {
    if context.event.is_some() {
        Source::Event
    } else {
        Source::Model
    }
}

pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn failed(name: &str, error: ToolError, ms: u64) -> ToolOutcome {
    let result = error.to_model_json();
    ToolOutcome {
        tool: name.to_string(),
        status: CallStatus::Failed,
        model_result: result.clone(),
        result,
        error: Some(error),
        ms,
    }
}

/// A result the model would read that is larger than [`bounds::RESULT_CAP`] as JSON fails the
/// call (a runaway result must not overflow the next request); the log names the tool only. An
/// error or refusal whose own words are that large keeps its status, and the model reads that
/// the tool failed with an error too large to read.
fn capped(outcome: ToolOutcome) -> ToolOutcome {
    if !crate::bounds::json_longer_than(&outcome.model_result, crate::bounds::RESULT_CAP) {
        return outcome;
    }
    let name = outcome.tool.as_str();
    if let Some(error) = &outcome.error {
        tracing::warn!(tool = name, "{}", messages::error_too_large_log(name));
        let error = error
            .clone()
            .with_model_text(messages::error_too_large(name))
            .with_event_text(messages::error_too_large_event());
        return ToolOutcome {
            status: outcome.status,
            ..failed(name, error, outcome.ms)
        };
    }
    tracing::warn!(tool = name, "{}", messages::result_too_large_log(name));
    let error = ToolError::new(messages::result_too_large(name))
        .with_event_text(messages::result_too_large_event());
    failed(name, error, outcome.ms)
}

/// Puts the tool's name into the texts that need it: argument errors get their closing hint,
/// an internal failure reads "<tool> failed before completing. Do not claim success." (its
/// details go to the log only), and so does a failure or refusal with no words (a blank
/// `ToolError("")` would read `{"error": ""}`, which is a success).
pub(crate) fn finish_error(name: &str, error: ToolError) -> ToolError {
    let blank = error.model_text().trim().is_empty();
    match error.kind().clone() {
        ToolErrorKind::Failed | ToolErrorKind::Refused if blank => {
            tracing::warn!(tool = name, "{}", messages::blank_tool_error(name));
            error
                .with_model_text(messages::failed_before_completing(name))
                .with_event_text(messages::BLANK_ERROR_EVENT.to_string())
        }
        ToolErrorKind::InvalidArguments(lines) => {
            error.with_model_text(messages::invalid_arguments(name, &lines))
        }
        ToolErrorKind::Internal => {
            tracing::error!(tool = name, details = error.event_text(), "tool failed");
            error
                .with_model_text(messages::failed_before_completing(name))
                .with_event_text("failed before completing")
        }
        _ => error,
    }
}

fn model_view(tool: &ToolSpec, result: &Value) -> Value {
    if !tool.shows_result() {
        return serde_json::json!({"ok": true});
    }
    match result {
        Value::Object(map) if !tool.hidden_fields().is_empty() => Value::Object(
            map.iter()
                .filter(|(k, _)| !tool.hidden_fields().contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => result.clone(),
    }
}

/// Turns what the provider sent into an argument object. `Err` names why it is not one.
pub(crate) fn parse_arguments(raw: RawArguments<'_>) -> Result<Arguments, ArgumentsFault> {
    fn from_value(value: Value, depth: u8) -> Result<Arguments, ArgumentsFault> {
        match value {
            Value::Null => Ok(Map::new()),
            Value::Object(map) => Ok(map),
            Value::String(text) if depth == 0 => from_text(&text, depth + 1),
            _ => Err(ArgumentsFault::NotAnObject),
        }
    }
    fn from_text(text: &str, depth: u8) -> Result<Arguments, ArgumentsFault> {
        if hark_schema::no_arguments(text) {
            return Ok(Map::new());
        }
        match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) if hark_schema::inexact_whole_number(&value, text) => {
                Err(ArgumentsFault::WholeNumberTooLarge)
            }
            Ok(value) => from_value(value, depth),
            Err(error) => Err(ArgumentsFault::of(&error, text)),
        }
    }
    match raw {
        RawArguments::None => Ok(Map::new()),
        RawArguments::Text(text) => from_text(text, 0),
        RawArguments::Json(value) => from_value(value.clone(), 0),
        RawArguments::Read(ToolArguments::Object(map)) => Ok(map.clone()),
        RawArguments::Read(ToolArguments::Unreadable { fault, .. }) => Err(*fault),
    }
}

/// The checks before the function runs, in order: keys the schema does not name, at every
/// level of the arguments whose object schema names its fields (root ones are handed to an
/// executor that checks extra arguments instead), then required values absent or blank at every
/// level (`ArgumentsMissing`, nested ones by dotted path: `contact.name`), then the schema check
/// with every error of the call, one line each.
pub(crate) fn check_arguments(
    tool: &ToolSpec,
    mut arguments: Arguments,
) -> Result<Arguments, ToolError> {
    let rules = tool.rules();
    let name = tool.name();
    if arguments.values().any(has_null) {
        // OpenAI strict mode sends null for every optional value it leaves out.
        let mut value = Value::Object(arguments);
        hark_schema::drop_strict_nulls(tool.model_parameters(), &mut value);
        arguments = match value {
            Value::Object(map) => map,
            _ => Map::new(),
        };
    }
    let findings = rules.shape.check(&arguments);
    let mut extra = Map::new();
    if !findings.unknown.is_empty() {
        if tool.executor().checks_extra_arguments() {
            // The executor gets them and refuses them in its own words.
            for (parent, key) in &findings.unknown {
                if parent.is_empty()
                    && let Some(value) = arguments.remove(key)
                {
                    extra.insert(key.clone(), value);
                }
            }
        } else {
            let paths: Vec<String> = findings.unknown.iter().map(|(_, p)| p.clone()).collect();
            return Err(
                ToolError::refused(messages::unknown_fields(name, &findings.unknown))
                    .with_event_text(format!(
                        "unknown arguments: {}",
                        crate::bounds::comma_list(&paths)
                    )),
            );
        }
    }
    let missing = findings.missing;
    if !missing.is_empty() {
        return Err(ToolError::arguments_missing(
            messages::arguments_missing(name, &missing),
            missing.clone(),
        )
        .with_event_text(format!("missing: {}", missing.join(", "))));
    }
    let instance = Value::Object(arguments);
    if !tool.validator().is_valid(&instance) {
        let root = format!("an argument of {name}");
        let mut problems = Vec::new();
        for error in tool.validator().iter_errors(&instance) {
            crate::problems::describe(&error, &root, &mut problems);
        }
        let lines = problems.iter().map(|p| p.line.clone()).collect();
        let fields: Vec<String> = problems.iter().map(|p| p.log("(arguments)")).collect();
        return Err(ToolError::invalid_arguments(
            lines,
            format!("invalid arguments: {}", crate::bounds::comma_list(&fields)),
        ));
    }
    let mut arguments = match instance {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    arguments.extend(extra);
    Ok(arguments)
}

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(map) => map.values().any(has_null),
        _ => false,
    }
}

/// "A required argument left out or empty", point 3: whether the model replies to this result.
/// An `ArgumentsMissing` refusal (`{"refused": …, "missing": […]}`) after a reply that already
/// said something gets no model reply: that reply asked the caller, so the caller answers next.
/// Every other result, and a refusal after a silent reply, gets one.
pub fn replies_to(result: &Value, spoke: bool) -> bool {
    let is_missing_refusal = result.as_object().is_some_and(|m| {
        m.get("refused").is_some_and(|r| r.is_string()) && m.get("missing").is_some()
    });
    !(is_missing_refusal && spoke)
}
