//! Assign rows and reply rows checked against the tools and the State type, once per registry:
//! what a result saves into the State, and the lines code says for it.
//!
//! A registry built with a State type checks every locked path. Guide:
//! `docs/guide/replies-and-assign.md`, `docs/guide/prechecks.md`,
//! `docs/guide/locked-values-and-transcript.md`.

use std::collections::HashMap;

use hark_speak::{LockedError, Placeholder, Scope, Template, ValueKind};
use serde_json::Value;

use crate::lines::is_call_field;
use crate::messages;
use crate::reply::{Assign, ToolReply};
use crate::spec::{LockedValue, ToolSpec};
use crate::state::StateModel;
use crate::walk;

/// The rows a registry is built with, kept so `only` and `with_tools` can rebuild it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rows {
    pub state: Option<StateModel>,
    pub assign: Vec<(String, Vec<Assign>)>,
    pub replies: Vec<ToolReply>,
    pub confirms: Vec<(String, Vec<String>)>,
    /// (step, the State values it saves), in flow order: the first step that saves a value is
    /// named by the "Run first: it saves" hint, before any tool's assign rows.
    pub saves: Vec<(String, Vec<String>)>,
}

/// A reply checked and parsed for one tool.
#[derive(Debug, Clone)]
pub(crate) struct CompiledReply {
    pub when: Vec<(Vec<String>, Vec<Value>)>,
    pub state: Vec<(Vec<String>, Vec<Value>)>,
    pub lines: Vec<Template>,
    /// The lines by language.
    pub lines_in: Vec<(String, Vec<Template>)>,
}

impl CompiledReply {
    /// The lines a call in `language` says.
    pub fn lines_for(&self, language: &str) -> &[Template] {
        crate::language::for_language(language, &self.lines, &self.lines_in)
    }

    /// True when every condition holds for this result and State.
    pub fn matches(&self, result: &Value, state: &Value) -> bool {
        let holds = |root: &Value, (path, values): &(Vec<String>, Vec<Value>)| {
            let value = walk::value_at(root, path).unwrap_or(&Value::Null);
            values.contains(value)
        };
        self.when.iter().all(|c| holds(result, c)) && self.state.iter().all(|c| holds(state, c))
    }
}

/// Everything a registry knows beyond its tools, checked once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Compiled {
    pub rows: Rows,
    pub assign: HashMap<String, Vec<Assign>>,
    pub replies: HashMap<String, Vec<CompiledReply>>,
    /// (State value, the first step or tool that saves it): steps first, in flow order, then
    /// tools' assign rows in row order.
    pub savers: Vec<(String, String)>,
    /// (State value, the step that confirms it).
    pub confirmers: Vec<(String, String)>,
}

fn split(path: &str) -> Vec<String> {
    path.split('.').map(String::from).collect()
}

fn show(value: &Value) -> String {
    value.to_string()
}

/// Checks every row against the tools and the State type; returns every problem at once.
pub(crate) fn compile(tools: &[ToolSpec], rows: Rows) -> Result<Compiled, Vec<String>> {
    let mut problems = Vec::new();
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    let find = |name: &str| tools.iter().find(|t| t.name() == name);
    let state = rows.state.as_ref();
    let state_fields = state.map(StateModel::field_names).unwrap_or_default();

    for tool in tools {
        check_locked(tool, state, &mut problems);
        if let Some(model) = state {
            let variants = tool.announce_in.iter().flat_map(|(_, lines)| lines);
            for line in tool.announce.iter().chain(variants) {
                for p in line.placeholders() {
                    let is_argument = tool
                        .parameters()
                        .get("properties")
                        .is_some_and(|props| props.get(&p.path[0]).is_some());
                    if p.scope == Scope::Value && !is_argument && model.field(&p.path).is_none() {
                        // A State value with a field typo names the level and its fields.
                        if p.path.len() > 1 && model.field(&p.path[..1]).is_some() {
                            problems.push(unknown_state_path(tool.name(), p, model));
                            continue;
                        }
                        let mut known: Vec<String> = tool
                            .parameters()
                            .get("properties")
                            .and_then(Value::as_object)
                            .map(|p| p.keys().cloned().collect())
                            .unwrap_or_default();
                        known.extend(state_fields.iter().cloned());
                        problems.push(messages::unknown_line_value(
                            tool.name(),
                            &p.to_string(),
                            &known,
                        ));
                    }
                }
            }
        } else {
            // Without a State type a line can read only the tool's arguments and call values.
            let arguments: Vec<String> = tool
                .parameters()
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            let variants = tool.announce_in.iter().flat_map(|(_, lines)| lines);
            for line in tool.announce.iter().chain(variants) {
                for p in line.placeholders() {
                    if p.scope == Scope::Value && !arguments.contains(&p.path[0]) {
                        let problem = messages::unknown_line_value_without_state(
                            tool.name(),
                            &p.to_string(),
                            &arguments,
                        );
                        if !problems.contains(&problem) {
                            problems.push(problem);
                        }
                    }
                }
            }
        }
        for reply in &tool.replies {
            if let Some(other) = reply.tool.as_deref().filter(|o| *o != tool.name()) {
                problems.push(messages::own_reply_names_other(tool.name(), other));
            }
        }
    }

    let mut replies: HashMap<String, Vec<CompiledReply>> = HashMap::new();
    let mut place: Vec<(&ToolSpec, &ToolReply)> = Vec::new();
    for reply in &rows.replies {
        match reply.tool.as_deref() {
            None => problems.push(messages::registry_reply_without_tool()),
            Some(name) => match find(name) {
                Some(tool) => place.push((tool, reply)),
                None => problems.push(messages::row_unknown_tool("A reply", name, &names)),
            },
        }
    }
    let own = tools
        .iter()
        .flat_map(|t| t.replies.iter().map(move |r| (t, r)));
    for (tool, reply) in place.into_iter().chain(own) {
        if let Some(compiled) = compile_reply(tool, reply, state, &state_fields, &mut problems) {
            replies
                .entry(tool.name().to_string())
                .or_default()
                .push(compiled);
        }
    }

    let mut assign: HashMap<String, Vec<Assign>> = HashMap::new();
    let mut savers: Vec<(String, String)> = Vec::new();
    for (step, values) in &rows.saves {
        for value in values {
            if !savers.iter().any(|(v, _)| v == value) {
                savers.push((value.clone(), step.clone()));
            }
        }
    }
    for (name, list) in &rows.assign {
        let Some(tool) = find(name) else {
            problems.push(messages::row_unknown_tool("An assign row", name, &names));
            continue;
        };
        let Some(model) = state else {
            problems.push(messages::needs_state(name, "an assign row"));
            continue;
        };
        let output = tool.output().schema();
        for row in list {
            let Some(target) = model.field(std::slice::from_ref(&row.variable)) else {
                problems.push(messages::unknown_state_value(
                    name,
                    &row.variable,
                    &state_fields,
                ));
                continue;
            };
            let Some(source) = walk::field_at(output, output, &row.path) else {
                problems.push(unknown_result_path(tool, &row.path));
                continue;
            };
            let from = walk::types(source, output);
            let to = walk::types(target, model.schema());
            if !walk::fits(&from, &to) {
                let path = if row.path.is_empty() {
                    "the whole result".to_string()
                } else {
                    row.path.join(".")
                };
                problems.push(messages::assign_type_mismatch(
                    name,
                    &path,
                    &walk::describe(&from),
                    &row.variable,
                    &walk::describe(&to),
                ));
            }
            if !savers
                .iter()
                .any(|(v, _): &(String, String)| *v == row.variable)
            {
                savers.push((row.variable.clone(), name.clone()));
            }
        }
        assign
            .entry(name.clone())
            .or_default()
            .extend(list.iter().cloned());
    }
    let confirmers = rows
        .confirms
        .iter()
        .flat_map(|(step, values)| values.iter().map(move |v| (v.clone(), step.clone())))
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Compiled {
        rows,
        assign,
        replies,
        savers,
        confirmers,
    })
}

fn compile_reply(
    tool: &ToolSpec,
    reply: &ToolReply,
    state: Option<&StateModel>,
    state_fields: &[String],
    problems: &mut Vec<String>,
) -> Option<CompiledReply> {
    let name = tool.name();
    let before = problems.len();
    if tool.ends_the_call() {
        problems.push(messages::reply_on_ending_tool(name));
    }
    if reply.say.is_empty() {
        problems.push(messages::reply_without_lines(name));
    }
    let when = check_when(tool, &reply.when, problems);
    let mut conditions = Vec::new();
    for (value, values) in &reply.state {
        let path = split(value);
        match state {
            None => problems.push(messages::needs_state(name, "a reply's state condition")),
            Some(model) => match model.field(&path) {
                None => problems.push(messages::unknown_state_value(name, value, state_fields)),
                Some(schema) => check_held(name, value, values, schema, model.schema(), problems),
            },
        }
        conditions.push((path, values.clone()));
    }
    let lines = compile_lines(tool, &reply.say, state, state_fields, problems);
    let mut lines_in = Vec::new();
    for (language, said) in &reply.say_in {
        if said.is_empty() {
            problems.push(messages::reply_without_lines(name));
        }
        lines_in.push((
            language.clone(),
            compile_lines(tool, said, state, state_fields, problems),
        ));
    }
    (problems.len() == before).then_some(CompiledReply {
        when,
        state: conditions,
        lines,
        lines_in,
    })
}

/// A reply's lines parsed and checked against the tool's output, the State and the call.
fn compile_lines(
    tool: &ToolSpec,
    said: &[String],
    state: Option<&StateModel>,
    state_fields: &[String],
    problems: &mut Vec<String>,
) -> Vec<Template> {
    let name = tool.name();
    let output = tool.output().schema();
    let open_output = tool.output().field_names().is_empty();
    let mut lines = Vec::new();
    for line in said {
        if line.trim().is_empty() {
            problems.push(messages::blank_reply_line(name));
            continue;
        }
        match Template::parse(line) {
            Err(e) => problems.push(messages::template_problem(name, "reply", &e.to_string())),
            Ok(t) => {
                for p in t.placeholders() {
                    match p.scope {
                        Scope::Result => {
                            if !open_output && walk::field_at(output, output, &p.path).is_none() {
                                problems.push(unknown_result_path(tool, &p.path));
                            }
                        }
                        Scope::Value => {
                            if let Some(model) = state
                                && model.field(&p.path).is_none()
                                && p.path.len() > 1
                                && model.field(&p.path[..1]).is_some()
                            {
                                // A State value with a field typo names the level and its fields.
                                problems.push(unknown_state_path(name, p, model));
                            } else if let Some(model) = state
                                && model.field(&p.path).is_none()
                            {
                                problems.push(messages::unknown_state_value(
                                    name,
                                    &p.path.join("."),
                                    state_fields,
                                ));
                            }
                        }
                        Scope::Call => {
                            if !is_call_field(&p.path) {
                                problems.push(messages::unknown_call_value(name, &p.to_string()));
                            }
                        }
                    }
                }
                lines.push(t);
            }
        }
    }
    lines
}

/// The problem for a result path the output of `tool` does not have: at the top, the output's
/// fields; below a field the output has, that level's fields, naming the level.
fn unknown_result_path(tool: &ToolSpec, path: &[String]) -> String {
    let output = tool.output().schema();
    let field = path.join(".");
    let known = (1..path.len())
        .rev()
        .find_map(|k| walk::field_at(output, output, &path[..k]).map(|sub| (k, sub)));
    match known {
        Some((k, sub)) => messages::unknown_nested_result_field(
            tool.name(),
            &field,
            tool.output().name(),
            &path[..k].join("."),
            &path[k],
            &walk::property_names(sub, output),
        ),
        None => messages::unknown_result_field(
            tool.name(),
            &field,
            tool.output().name(),
            &tool.output().field_names(),
        ),
    }
}

/// Checks `when` conditions on the result fields of `tool` (dotted paths) and parses them:
/// every field must be in the output (unless the output is open), every value one the field can
/// hold when it is a Literal, bool or enum ("Save a result and speak it", point 10).
pub(crate) fn check_when(
    tool: &ToolSpec,
    conditions: &[(String, Vec<Value>)],
    problems: &mut Vec<String>,
) -> Vec<(Vec<String>, Vec<Value>)> {
    let name = tool.name();
    let output = tool.output().schema();
    let output_fields = tool.output().field_names();
    let open_output = output_fields.is_empty();
    let mut when = Vec::new();
    for (field, values) in conditions {
        let path = split(field);
        match walk::field_at(output, output, &path) {
            None if !open_output => problems.push(unknown_result_path(tool, &path)),
            None => {}
            Some(schema) => check_held(name, field, values, schema, output, problems),
        }
        when.push((path, values.clone()));
    }
    when
}

/// The values a result field of `tool` can hold, when it is a Literal, bool or enum.
pub(crate) fn held_values(tool: &ToolSpec, field: &str) -> Option<Vec<Value>> {
    let output = tool.output().schema();
    let schema = walk::field_at(output, output, &split(field))?;
    walk::held_values(schema, output)
}

fn check_held(
    tool: &str,
    field: &str,
    values: &[Value],
    schema: &Value,
    root: &Value,
    problems: &mut Vec<String>,
) {
    if let Some(held) = walk::held_values(schema, root) {
        for value in values.iter().filter(|v| !held.contains(v)) {
            let held: Vec<String> = held.iter().map(show).collect();
            problems.push(messages::when_value_not_held(
                tool,
                field,
                &show(value),
                &held,
            ));
        }
    }
}

/// "Locked arguments", points 6–8, with a State type: every path exists, an object or a list is
/// only the whole text, and the value's type fits the parameter.
fn check_locked(tool: &ToolSpec, state: Option<&StateModel>, problems: &mut Vec<String>) {
    let Some(model) = state else {
        return;
    };
    let parameters = tool.parameters();
    for (parameter, value) in &tool.locked {
        let LockedValue::Template(template) = value else {
            continue;
        };
        let param_schema = parameters
            .get("properties")
            .and_then(|p| p.get(parameter))
            .unwrap_or(&Value::Null);
        let takes = walk::types(param_schema, parameters);
        let kind_of = |p: &hark_speak::Placeholder| match p.scope {
            Scope::Call => is_call_field(&p.path).then_some(ValueKind::Scalar),
            Scope::Result => None,
            Scope::Value => model.field(&p.path).map(|s| {
                let t = walk::types(s, model.schema());
                if t.contains("object") || t.contains("array") {
                    ValueKind::Shape
                } else {
                    ValueKind::Scalar
                }
            }),
        };
        let found = template.check_locked(&kind_of);
        for error in &found {
            problems.push(match error {
                LockedError::UnknownPath { placeholder } if placeholder.scope == Scope::Value => {
                    unknown_state_path(tool.name(), placeholder, model)
                }
                LockedError::UnknownPath { placeholder } if placeholder.scope == Scope::Call => {
                    messages::unknown_call_value(tool.name(), &placeholder.to_string())
                }
                _ => format!("{}: {error}", tool.name()),
            });
        }
        if !found.is_empty() {
            continue;
        }
        let holds = if template.is_single_placeholder() {
            let p = &template.placeholders()[0];
            match p.scope {
                Scope::Value => model
                    .field(&p.path)
                    .map(|s| walk::types(s, model.schema()))
                    .unwrap_or_default(),
                _ => ["string".to_string()].into_iter().collect(),
            }
        } else {
            ["string".to_string()].into_iter().collect()
        };
        if !walk::fits(&holds, &takes) {
            problems.push(messages::locked_type_mismatch(
                tool.name(),
                parameter,
                template.text(),
                &walk::describe(&holds),
                &walk::describe(&takes),
            ));
        }
    }
}

/// The problem for a locked `{{path}}` the State does not have: at the top, the State's values;
/// below a value the State has, that level's fields, naming the level and the part that is
/// wrong.
fn unknown_state_path(tool: &str, placeholder: &Placeholder, model: &StateModel) -> String {
    let path = &placeholder.path;
    let schema = model.schema();
    let known = (1..path.len())
        .rev()
        .find_map(|k| walk::field_at(schema, schema, &path[..k]).map(|sub| (k, sub)));
    match known {
        Some((k, sub)) => messages::unknown_nested_state_path(
            tool,
            &placeholder.to_string(),
            &path[..k].join("."),
            &path[k],
            &walk::property_names(sub, schema),
        ),
        None => messages::unknown_state_path(
            tool,
            &placeholder.to_string(),
            &path[0],
            &model.field_names(),
        ),
    }
}
