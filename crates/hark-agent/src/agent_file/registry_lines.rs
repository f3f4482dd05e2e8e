//! The line of each problem the tool registry finds. The registry's texts name no line, so each
//! piece of the file it checks — a tool, a locked value, an announce line, an assign row, a reply's
//! condition or line — is checked alone on its tool, and a problem the whole registry reports takes
//! the line of the piece that gives it alone: a reply's `when` value on the line of that condition,
//! a `{{result.x}}` on the `say` line that holds it, an assign row's State value on its `state`
//! line and its result field or type on its `from` line, a locked path on the locked value's line.
//! A problem no piece gives alone (none is known) keeps no line.
//!
//! Only run when the registry refuses the file: a clean file costs nothing here.

use hark_tools::{StateModel, ToolRegistry, ToolReply, ToolSpec};
use toml::Spanned;

use super::build::{Found, json_values, to_assign};
use super::toml_shape::{AssignFormat, ReplyFormat};
use super::webhook::minus;

/// One tool of the file, as its pieces are checked.
pub(super) struct Source {
    /// The tool's name.
    pub name: String,
    /// The line that names it (`[tools]` entry, webhook `name`).
    pub line: Option<usize>,
    /// The tool a row alone is checked on: a built-in or local tool itself, a webhook's
    /// stand-in without locked values, lines or replies; `None` when it could not be built.
    pub base: Option<ToolSpec>,
    /// A webhook's clean locked values, each as a stand-in holding it alone, with its line.
    pub locked: Vec<(ToolSpec, Option<usize>)>,
    /// A webhook's clean announce lines with their lines.
    pub announce: Vec<(String, Option<usize>)>,
}

/// Each problem a piece gives alone, with the piece's line, in file order.
pub(super) struct Lines {
    pool: Vec<(String, Option<usize>)>,
}

impl Lines {
    /// The line of a registry problem: the first piece not yet used that gives this text.
    pub(super) fn take(&mut self, problem: &str) -> Option<usize> {
        let i = self.pool.iter().position(|(text, _)| text == problem)?;
        self.pool.remove(i).1
    }
}

/// The problems of a registry of `tool` alone with the State and one row.
fn alone(
    tool: &ToolSpec,
    state: Option<&StateModel>,
    assign: Option<hark_tools::Assign>,
    reply: Option<ToolReply>,
) -> Vec<String> {
    let mut builder = ToolRegistry::builder(vec![tool.clone()]);
    if let Some(model) = state {
        builder = builder.state_model(model.clone());
    }
    if let Some(row) = assign {
        builder = builder.assign(tool.name(), [row]);
    }
    if let Some(reply) = reply {
        builder = builder.replies([reply.tool(tool.name())]);
    }
    builder
        .build()
        .err()
        .map(|e| e.problems)
        .unwrap_or_default()
}

/// Every piece's problems alone, with its line.
pub(super) fn lines(found: &Found<'_>, sources: &[Source], state: Option<&StateModel>) -> Lines {
    let f = found.file.format();
    let mut pool = Vec::new();
    let mut baselines: Vec<(&str, &ToolSpec, Vec<String>)> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        if sources[..i].iter().any(|s| s.name == source.name) {
            pool.push((
                hark_tools::messages::duplicate_tool(&source.name),
                source.line,
            ));
        }
        let Some(base) = &source.base else { continue };
        let baseline = alone(base, state, None, None);
        for problem in &baseline {
            pool.push((problem.clone(), source.line));
        }
        for (tool, at) in &source.locked {
            for problem in minus(alone(tool, state, None, None), &baseline) {
                pool.push((problem, *at));
            }
        }
        for (text, at) in &source.announce {
            if let Ok(tool) = base.clone().announce([text]) {
                for problem in minus(alone(&tool, state, None, None), &baseline) {
                    pool.push((problem, *at));
                }
            }
        }
        if !baselines.iter().any(|(name, _, _)| *name == source.name) {
            baselines.push((&source.name, base, baseline));
        }
    }
    let base_of = |tool: &str| baselines.iter().find(|(name, _, _)| *name == tool);

    let mut rows =
        |tool: &str, assign: &[&Spanned<AssignFormat>], reply: &[&Spanned<ReplyFormat>]| {
            let Some((_, base, baseline)) = base_of(tool) else {
                return;
            };
            for row in reply {
                reply_pieces(found, base, baseline, row, state, &mut pool);
            }
            for row in assign {
                assign_piece(found, base, baseline, row, state, &mut pool);
            }
        };
    for row in &f.assign {
        if let Some(tool) = &row.get_ref().tool {
            rows(tool, &[row], &[]);
        }
    }
    for row in &f.reply {
        if let Some(tool) = &row.get_ref().tool {
            rows(tool, &[], &[row]);
        }
    }
    for webhook in &f.webhook {
        let name = webhook.name.get_ref();
        let replies: Vec<&Spanned<ReplyFormat>> = webhook.reply.iter().collect();
        let assign: Vec<&Spanned<AssignFormat>> = webhook
            .assign
            .iter()
            .filter(|row| row.get_ref().tool.as_ref().is_none_or(|t| t == name))
            .collect();
        rows(name, &assign, &replies);
    }
    for webhook in &f.webhook {
        let name = webhook.name.get_ref();
        for row in &webhook.reply {
            if let Some(other) = row.get_ref().tool.as_ref().filter(|t| *t != name) {
                pool.push((
                    hark_tools::messages::own_reply_names_other(name, other),
                    found.line(row),
                ));
            }
        }
    }
    Lines { pool }
}

/// A reply row's problems: each condition alone on its value's line, each line of `say` on
/// its own line, the rest (the row as a whole) on the row's line.
fn reply_pieces(
    found: &Found<'_>,
    base: &ToolSpec,
    baseline: &[String],
    row: &Spanned<ReplyFormat>,
    state: Option<&StateModel>,
    pool: &mut Vec<(String, Option<usize>)>,
) {
    let reply = row.get_ref();
    let whole = minus(
        alone(base, state, None, Some(ToolReply::say(["x"]))),
        baseline,
    );
    let mut known: Vec<String> = baseline.to_vec();
    known.extend(whole.iter().cloned());
    for problem in whole {
        pool.push((problem, found.line(row)));
    }
    let mut piece = |reply: ToolReply, at: Option<usize>| {
        for problem in minus(alone(base, state, None, Some(reply)), &known) {
            pool.push((problem, at));
        }
    };
    for (field, values) in &reply.when {
        if let Some(json) = json_values(values.get_ref()) {
            piece(
                ToolReply::say(["x"]).when(field.clone(), json),
                found.line(values),
            );
        }
    }
    for (value, values) in &reply.state {
        if let Some(json) = json_values(values.get_ref()) {
            piece(
                ToolReply::say(["x"]).state(value.clone(), json),
                found.line(values),
            );
        }
    }
    for line in reply.say.get_ref() {
        piece(ToolReply::say([line.get_ref().clone()]), found.line(line));
    }
    if reply.say.get_ref().is_empty() {
        piece(ToolReply::say(Vec::<String>::new()), found.line(&reply.say));
    }
}

/// An assign row's problems: an unknown State value on its `state` line, a result field or a
/// type that does not fit on its `from` line (its `state` line when it has no `from`).
fn assign_piece(
    found: &Found<'_>,
    base: &ToolSpec,
    baseline: &[String],
    row: &Spanned<AssignFormat>,
    state: Option<&StateModel>,
    pool: &mut Vec<(String, Option<usize>)>,
) {
    let assign = row.get_ref();
    let tool = base.name();
    let variable = assign.state.get_ref();
    let about_state = format!("{tool}: {variable} is not a State value.");
    for problem in minus(alone(base, state, Some(to_assign(assign)), None), baseline) {
        let on_state =
            problem.starts_with(&about_state) || problem.contains("needs the State type");
        let at = match &assign.from {
            Some(from) if !on_state => found.line(from),
            _ => found.line(&assign.state),
        };
        pool.push((problem, at));
    }
}
