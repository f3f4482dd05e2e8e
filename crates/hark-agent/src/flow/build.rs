//! [`Flow::build`]: a [`FlowSpec`] checked once against the agent's tool registry.
//!
//! Built once and checked at build time, every problem at once, each naming the fix: unknown
//! steps, tools and State values; a step no path reaches; a closing tool missing from its step;
//! finish rules (`when` on result fields, checked like reply rows; a precheck outcome must not
//! match them). The hints the registry gives read the flow.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use hark_speak::{Scope, Template};
use hark_tools::{Assign, BuildError, ToolRegistry};
use serde_json::Value;

use super::messages;
use super::spec::{FlowSpec, NextSpec, StepSpec};

/// Conditions on result fields: (path of field names, values that match).
pub(crate) type Conditions = Vec<(Vec<String>, Vec<Value>)>;

/// A flow, built and checked: its steps, each with the registry the model is offered in it.
/// Shared by every call of an agent; each call runs it with its own
/// [`FlowConductor`](super::FlowConductor) ([`Flow::conductor`]).
#[derive(Debug)]
pub struct Flow {
    pub(crate) instructions: String,
    pub(crate) registry: Arc<ToolRegistry>,
    pub(crate) steps: Vec<Step>,
    pub(crate) first: usize,
}

/// One step, checked.
#[derive(Debug)]
pub(crate) struct Step {
    pub name: String,
    pub instructions: String,
    /// The step's tools, its own replies first.
    pub tools: Arc<ToolRegistry>,
    pub closing: Option<Closing>,
    /// State values saved from the closing tool's arguments of the same name: with confirm
    /// lines, on the caller's yes (and marked confirmed); without, when the step ends.
    pub from_arguments: Vec<String>,
    /// The step's own assign rows, saved when the step ends.
    pub assign: Vec<(String, Vec<Assign>)>,
    pub next: Next,
}

/// A step's closing tool, checked.
#[derive(Debug)]
pub(crate) struct Closing {
    pub tool: String,
    pub finish: Conditions,
    pub confirm: Vec<Template>,
    pub confirm_in: Vec<(String, Vec<Template>)>,
}

impl Closing {
    /// The confirm lines for the call's `language`: the whole tag, then its primary language,
    /// then the default lines.
    pub fn lines_for(&self, language: &str) -> &[Template] {
        hark_tools::language::for_language(language, &self.confirm, &self.confirm_in)
    }

    /// True when the closing tool reads values back before it runs.
    pub fn confirms(&self) -> bool {
        !self.confirm.is_empty() || !self.confirm_in.is_empty()
    }
}

/// Where a step goes when it ends.
#[derive(Debug)]
pub(crate) enum Next {
    /// The flow is finished.
    End,
    /// This step.
    Step(usize),
    /// The first route whose conditions match the closing tool's result.
    Routes(Vec<(Conditions, usize)>),
}

fn conditions(map: &BTreeMap<String, Vec<Value>>) -> Vec<(String, Vec<Value>)> {
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn parsed(map: &BTreeMap<String, Vec<Value>>) -> Conditions {
    map.iter()
        .map(|(k, v)| (k.split('.').map(String::from).collect(), v.clone()))
        .collect()
}

/// True when every condition holds for `result` (a field that is absent holds `null`).
pub(crate) fn matches(conditions: &Conditions, result: &Value) -> bool {
    conditions.iter().all(|(path, values)| {
        let mut at = result;
        for name in path {
            at = at.get(name).unwrap_or(&Value::Null);
        }
        values.contains(at)
    })
}

impl Flow {
    /// Builds a flow over `registry` (every tool of the agent, its State type and rows): checks
    /// every step and returns every problem at once, each naming the step and the fix.
    ///
    /// Checks: at least one step; unique step names; `first`, every `next` and route name a
    /// step; every step is reached from `first`; every tool is in `registry`; the closing tool
    /// is in its step's tools; a step with a next step has a closing tool; the last route has no
    /// `when`; finish rules and routes read result fields the closing tool has, with values a
    /// Literal can hold; a closing tool with a precheck has a finish rule that leaves some value
    /// of its Literal fields out; confirm lines parse and read arguments of the closing tool or
    /// State values; `saves` names State values that something in the step fills; the step's
    /// replies and assign rows pass the registry's own checks.
    ///
    /// The flow's registry ([`Flow::registry`]) is `registry` with the flow's hints: a tool
    /// refused for a value a step must still confirm reads "Run first: it confirms with the
    /// caller (`<step>`)", and one a step saves "Run first: it saves `<value>` (`<step>`)".
    ///
    /// Each step's registry is built here from `registry` and keeps the sinks it has now: add
    /// sinks ([`ToolRegistry::listen`]) before building the flow.
    ///
    /// # Errors
    /// [`BuildError`] with one line per problem.
    pub fn build(spec: &FlowSpec, registry: &ToolRegistry) -> Result<Flow, BuildError> {
        let mut problems = Vec::new();
        if spec.steps.is_empty() {
            problems.push(messages::no_steps());
        }
        let names: Vec<String> = spec.steps.iter().map(|s| s.name.clone()).collect();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, step) in spec.steps.iter().enumerate() {
            if index.insert(step.name.as_str(), i).is_some() {
                problems.push(messages::duplicate_step(&step.name));
            }
        }
        let first = index.get(spec.first.as_str()).copied();
        if first.is_none() && !spec.steps.is_empty() {
            problems.push(messages::unknown_first(&spec.first, &names));
        }
        let tool_names = registry.names();
        let state_fields = registry
            .state_model()
            .map(|m| m.field_names())
            .unwrap_or_default();

        // First pass: what each step is, and the hints the registry gives for the flow.
        let mut confirms = Vec::new();
        let mut saves = Vec::new();
        let mut partial = Vec::new();
        for step in &spec.steps {
            let checked = check_step(step, registry, &tool_names, &state_fields, &mut problems);
            if let Some(closing) = &checked.closing
                && closing.confirms()
                && !checked.from_arguments.is_empty()
            {
                confirms.push((step.name.clone(), checked.from_arguments.clone()));
            }
            if !step.saves.is_empty() {
                saves.push((step.name.clone(), step.saves.clone()));
            }
            partial.push(checked);
        }
        let hinted = match registry.with_step_hints(confirms, saves) {
            Ok(hinted) => Some(hinted),
            Err(error) => {
                problems.extend(error.problems);
                None
            }
        };

        // Second pass: each step's registry (its own replies first), next steps, reachability.
        let mut steps = Vec::new();
        for (step, checked) in spec.steps.iter().zip(partial) {
            let known: Vec<&str> = step
                .tools
                .iter()
                .map(String::as_str)
                .filter(|t| registry.contains(t))
                .collect();
            let replies = step
                .replies
                .iter()
                .filter(|r| known.contains(&r.tool.as_str()))
                .map(|r| r.to_tool_reply());
            let tools = match hinted.as_ref().map(|h| h.scoped(&known, replies)) {
                Some(Ok(tools)) => Some(tools),
                Some(Err(error)) => {
                    problems.extend(
                        error
                            .problems
                            .iter()
                            .map(|p| messages::in_step(&step.name, p)),
                    );
                    None
                }
                None => None,
            };
            let next = check_next(step, &checked, registry, &index, &names, &mut problems);
            if let Some(tools) = tools {
                steps.push(Step {
                    name: step.name.clone(),
                    instructions: step.instructions.clone(),
                    tools: Arc::new(tools),
                    closing: checked.closing,
                    from_arguments: checked.from_arguments,
                    assign: checked.assign,
                    next,
                });
            }
        }
        if let Some(first) = first {
            for unreached in unreachable(spec, first, &index) {
                problems.push(messages::unreachable(unreached, &spec.first));
            }
        }
        let (Some(first), Some(hinted), true) = (first, hinted, problems.is_empty()) else {
            return Err(BuildError { problems });
        };
        Ok(Flow {
            instructions: spec.instructions.clone(),
            registry: Arc::new(hinted),
            steps,
            first,
        })
    }

    /// Every tool of the agent, with the flow's hints: give it to the agent's settings
    /// ([`crate::AgentSettings::registry`]) so late results of `continue` tools find their tool.
    pub fn registry(&self) -> Arc<ToolRegistry> {
        self.registry.clone()
    }

    /// The steps' names, in order.
    pub fn step_names(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.name.clone()).collect()
    }

    /// The name of the step the flow starts in.
    pub fn first_step(&self) -> &str {
        &self.steps[self.first].name
    }
}

/// What the first pass found of a step.
struct Checked {
    closing: Option<Closing>,
    from_arguments: Vec<String>,
    assign: Vec<(String, Vec<Assign>)>,
}

fn check_step(
    step: &StepSpec,
    registry: &ToolRegistry,
    tool_names: &[String],
    state_fields: &[String],
    problems: &mut Vec<String>,
) -> Checked {
    let name = step.name.as_str();
    for tool in &step.tools {
        if !registry.contains(tool) {
            problems.push(messages::unknown_step_tool(name, tool, tool_names));
        }
    }
    let mut closing = None;
    let mut from_arguments = Vec::new();
    let mut arguments: Vec<String> = Vec::new();
    if let Some(spec) = &step.closing {
        let tool = spec.tool.as_str();
        if !step.tools.iter().any(|t| t == tool) {
            problems.push(messages::closing_not_in_step(name, tool));
        }
        match registry.get(tool) {
            None => {
                if !step.tools.iter().any(|t| t == tool) {
                    problems.push(messages::unknown_step_tool(name, tool, tool_names));
                }
            }
            Some(found) => {
                arguments = found
                    .parameters()
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                let finish = conditions(&spec.finish);
                if let Err(error) = registry.check_conditions(tool, &finish) {
                    problems.extend(error.problems.iter().map(|p| messages::in_finish(name, p)));
                }
                if found.has_precheck() {
                    check_precheck_finish(name, tool, &spec.finish, registry, problems);
                }
                let has_confirm = !spec.confirm.is_empty() || !spec.confirm_in.is_empty();
                if has_confirm && found.ends_the_call() {
                    problems.push(messages::confirm_on_ending_tool(name, tool));
                }
            }
        }
        let mut parse = |lines: &[String]| -> Vec<Template> {
            let mut templates = Vec::new();
            for line in lines {
                match Template::parse(line) {
                    Err(error) => {
                        problems.push(messages::confirm_template(name, &error.to_string()))
                    }
                    Ok(template) => {
                        check_confirm_line(
                            name,
                            tool,
                            &template,
                            &arguments,
                            registry,
                            state_fields,
                            problems,
                        );
                        templates.push(template);
                    }
                }
            }
            templates
        };
        let confirm = parse(&spec.confirm);
        let confirm_in = spec
            .confirm_in
            .iter()
            .map(|(tag, lines)| (tag.clone(), parse(lines)))
            .collect();
        closing = Some(Closing {
            tool: tool.to_string(),
            finish: parsed(&spec.finish),
            confirm,
            confirm_in,
        });
    }

    // The values the step saves, and what fills each.
    if !step.saves.is_empty() && registry.state_model().is_none() {
        problems.push(messages::saves_without_state(name));
    }
    // A step's reply for a tool it does not offer would never play; said here, once, in the
    // step's words (the step's registry leaves the row out).
    let mut unoffered: Vec<&str> = Vec::new();
    for row in &step.replies {
        if !step.tools.contains(&row.tool) && !unoffered.contains(&row.tool.as_str()) {
            unoffered.push(&row.tool);
            problems.push(messages::reply_tool_not_in_step(name, &row.tool));
        }
    }
    let mut assign: Vec<(String, Vec<Assign>)> = Vec::new();
    for row in &step.assign {
        if !step.tools.contains(&row.tool) {
            problems.push(messages::assign_tool_not_in_step(name, &row.tool));
        }
        let entry = Assign::new(row.variable.clone(), row.path.clone());
        match assign.iter_mut().find(|(t, _)| *t == row.tool) {
            Some((_, rows)) => rows.push(entry),
            None => assign.push((row.tool.clone(), vec![entry])),
        }
    }
    if !assign.is_empty()
        && let Err(error) = registry.check_assign(assign.clone())
    {
        problems.extend(error.problems.iter().map(|p| messages::in_step(name, p)));
    }
    if registry.state_model().is_some() {
        for value in &step.saves {
            if !state_fields.contains(value) {
                problems.push(messages::unknown_saved_value(name, value, state_fields));
                continue;
            }
            let from_argument = arguments.contains(value);
            let from_rows = step.assign.iter().any(|r| r.variable == *value)
                || step
                    .tools
                    .iter()
                    .any(|t| registry.assigned_by(t).contains(value));
            if from_argument {
                from_arguments.push(value.clone());
            } else if !from_rows {
                problems.push(messages::saves_unfilled(name, value));
            }
        }
    }
    Checked {
        closing,
        from_arguments,
        assign,
    }
}

/// "An outcome must not match the tool's finish rule": a closing tool with a precheck needs a
/// finish rule, and on a Literal, bool or enum field it must leave some value out.
fn check_precheck_finish(
    step: &str,
    tool: &str,
    finish: &BTreeMap<String, Vec<Value>>,
    registry: &ToolRegistry,
    problems: &mut Vec<String>,
) {
    if finish.is_empty() {
        problems.push(messages::precheck_without_finish(step, tool));
        return;
    }
    for (field, values) in finish {
        if let Some(held) = registry.held_values(tool, field)
            && held.iter().all(|h| values.contains(h))
        {
            let shown: Vec<String> = held.iter().map(Value::to_string).collect();
            problems.push(messages::finish_takes_every_value(
                step, tool, field, &shown,
            ));
        }
    }
}

fn check_confirm_line(
    step: &str,
    tool: &str,
    template: &Template,
    arguments: &[String],
    registry: &ToolRegistry,
    state_fields: &[String],
    problems: &mut Vec<String>,
) {
    for placeholder in template.placeholders() {
        match placeholder.scope {
            Scope::Result => problems.push(messages::confirm_reads_result(
                step,
                &placeholder.to_string(),
                tool,
            )),
            Scope::Value => {
                let is_argument = arguments.contains(&placeholder.path[0]);
                let is_state = registry
                    .state_model()
                    .is_some_and(|m| m.field(&placeholder.path).is_some());
                if !is_argument && !is_state {
                    let mut known = arguments.to_vec();
                    for field in state_fields {
                        if !known.contains(field) {
                            known.push(field.clone());
                        }
                    }
                    problems.push(messages::confirm_unknown_value(
                        step,
                        &placeholder.to_string(),
                        tool,
                        &known,
                    ));
                }
            }
            Scope::Call => {}
        }
    }
}

fn check_next(
    step: &StepSpec,
    checked: &Checked,
    registry: &ToolRegistry,
    index: &HashMap<&str, usize>,
    names: &[String],
    problems: &mut Vec<String>,
) -> Next {
    let name = step.name.as_str();
    let Some(next) = &step.next else {
        return Next::End;
    };
    if checked.closing.is_none() {
        problems.push(messages::next_without_closing(name));
    }
    let mut find = |target: &str| -> Option<usize> {
        let found = index.get(target).copied();
        if found.is_none() {
            problems.push(messages::unknown_next(name, target, names));
        }
        found
    };
    match next {
        NextSpec::Step(target) => find(target).map_or(Next::End, Next::Step),
        NextSpec::Routes(routes) => {
            let mut out = Vec::new();
            for route in routes {
                if let Some(i) = find(&route.step) {
                    out.push((parsed(&route.when), i));
                }
            }
            if routes.last().is_none_or(|r| !r.when.is_empty()) {
                problems.push(messages::routes_without_otherwise(name));
            }
            if let Some(closing) = &checked.closing
                && registry.contains(&closing.tool)
            {
                for route in routes {
                    if let Err(error) =
                        registry.check_conditions(&closing.tool, &conditions(&route.when))
                    {
                        problems.extend(error.problems.iter().map(|p| messages::in_route(name, p)));
                    }
                }
            }
            Next::Routes(out)
        }
    }
}

/// The steps no path from `first` reaches, in flow order.
fn unreachable<'s>(spec: &'s FlowSpec, first: usize, index: &HashMap<&str, usize>) -> Vec<&'s str> {
    let mut seen = vec![false; spec.steps.len()];
    let mut queue = VecDeque::from([first]);
    seen[first] = true;
    while let Some(i) = queue.pop_front() {
        let targets: Vec<&str> = match &spec.steps[i].next {
            None => Vec::new(),
            Some(NextSpec::Step(t)) => vec![t.as_str()],
            Some(NextSpec::Routes(routes)) => routes.iter().map(|r| r.step.as_str()).collect(),
        };
        for target in targets {
            if let Some(&j) = index.get(target)
                && !seen[j]
            {
                seen[j] = true;
                queue.push_back(j);
            }
        }
    }
    spec.steps
        .iter()
        .zip(seen)
        .filter(|(_, seen)| !seen)
        .map(|(s, _)| s.name.as_str())
        .collect()
}
