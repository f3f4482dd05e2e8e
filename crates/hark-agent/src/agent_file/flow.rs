//! `[flow]` of an agent file: the flow's own [`FlowSpec`] built with [`Flow::build`] over the
//! file's registry, every problem placed on the line it is about.
//!
//! The problems found: unknown steps, tools and State values; a step no path reaches; a
//! closing tool missing from its step; a precheck outcome matching the finish rule. The checks and
//! their words are the flow's ([`crate::flow::messages`]); this module puts `[flow]` before each
//! and finds its line: a step's problem sits on the step's `name`, a problem of its closing tool
//! (finish rule) on `closing`, a confirm line's on the line that holds it (in `confirm` or
//! `confirm_in.<language>`), one of its `next` on `next`, an unknown first step on `first`,
//! anything else on `[flow]`.

use std::sync::Arc;

use hark_tools::ToolRegistry;
use toml::Spanned;

use super::AgentFile;
use super::build::Found;
use super::messages;
use super::toml_shape::{ClosingLines, FlowLines, StepLine};
use crate::flow::messages as flow_messages;
use crate::flow::{Flow, FlowSpec};

/// The flow of `spec` over `registry`, its instructions the file's `system_prompt`; `None` with
/// the problems recorded.
pub(super) fn build(
    file: &AgentFile,
    spec: &Spanned<FlowSpec>,
    registry: &ToolRegistry,
    system_prompt: &Spanned<String>,
    found: &mut Found<'_>,
) -> Option<Arc<Flow>> {
    let flow_line = found.line(spec);
    let mut spec = spec.get_ref().clone();
    if !spec.instructions.trim().is_empty() {
        found.error(flow_line, messages::flow_instructions());
        return None;
    }
    spec.instructions = system_prompt.get_ref().clone();
    match Flow::build(&spec, registry) {
        Ok(flow) => Some(Arc::new(flow)),
        Err(error) => {
            let lines = toml::from_str::<FlowLines>(&file.text)
                .ok()
                .and_then(|l| l.flow)
                .unwrap_or_default();
            let state: Vec<String> = file.format.state.keys().cloned().collect();
            for problem in error.problems {
                let line =
                    line_of_problem(file, &lines.first, &lines.steps, &problem).or(flow_line);
                let text = in_file_words(&spec, &state, &problem)
                    .unwrap_or_else(|| messages::in_flow(&problem));
                found.error(line, text);
            }
            None
        }
    }
}

/// The file's own words for a flow problem whose fix is said for Rust code (a value `saves`
/// names that the State does not have: in a file the fix is a `[state.<value>]` table).
fn in_file_words(spec: &FlowSpec, state: &[String], problem: &str) -> Option<String> {
    spec.steps.iter().find_map(|step| {
        step.saves.iter().find_map(|value| {
            (problem == flow_messages::unknown_saved_value(&step.name, value, state))
                .then(|| messages::flow_saves_unknown(&step.name, value, state))
        })
    })
}

/// The line a flow problem is about (see the module docs), when the text names a step or the
/// first step.
fn line_of_problem(
    file: &AgentFile,
    first: &Option<Spanned<String>>,
    steps: &[Spanned<StepLine>],
    problem: &str,
) -> Option<usize> {
    let at = |span: std::ops::Range<usize>| Some(file.line_at(span.start));
    if problem.starts_with("The flow starts in ") {
        return first.as_ref().and_then(|f| at(f.span()));
    }
    if let Some(rest) = problem.strip_prefix("Two steps are named ") {
        let name = rest.split(". ").next().unwrap_or("");
        let step = steps.iter().filter(|s| named(s, name)).nth(1)?;
        return step.get_ref().name.as_ref().and_then(|n| at(n.span()));
    }
    let rest = problem.strip_prefix("step ")?;
    // The step whose name the text starts with (the longest such name; of two steps of one
    // name, the first).
    let length = |s: &Spanned<StepLine>| s.get_ref().name.as_ref().map_or(0, |n| n.get_ref().len());
    let starts = |s: &&Spanned<StepLine>| {
        s.get_ref()
            .name
            .as_ref()
            .is_some_and(|n| rest.starts_with(&format!("{}: ", n.get_ref())))
    };
    let longest = steps.iter().filter(starts).map(length).max()?;
    let step = steps.iter().filter(starts).find(|s| length(s) == longest)?;
    let step_ref = step.get_ref();
    let about = &rest[step_ref.name.as_ref().map_or(0, |n| n.get_ref().len()) + 2..];
    let closing = about.starts_with("finish rule")
        || about.starts_with("confirm line")
        || about.starts_with("the confirm line")
        || about.starts_with("its closing tool")
        || about.starts_with("the finish rule")
        || about.contains("has a precheck, so its finish rule");
    let next = about.starts_with("next");
    let confirm = about.starts_with("confirm line")
        || about.starts_with("the confirm line")
        || about.contains("cannot have confirm lines");
    if confirm
        && let Some(line) = step_ref
            .closing
            .as_ref()
            .and_then(|c| confirm_line(file, c.get_ref(), about))
    {
        return Some(line);
    }
    let place = if closing {
        step_ref.closing.as_ref().map(Spanned::span)
    } else if next {
        step_ref.next.as_ref().map(Spanned::span)
    } else {
        None
    };
    match place {
        Some(span) => at(span),
        None => step_ref
            .name
            .as_ref()
            .map_or_else(|| at(step.span()), |n| at(n.span())),
    }
}

/// The line of the confirm line a problem is about: the first line (of `confirm`, then of each
/// `confirm_in.<language>`) holding a `{{placeholder}}` the problem names; else the line of the
/// `confirm` key, else of the first `confirm_in` key.
fn confirm_line(file: &AgentFile, closing: &ClosingLines, about: &str) -> Option<usize> {
    let named: Vec<&str> = about
        .match_indices("{{")
        .filter_map(|(start, _)| {
            let end = about[start..].find("}}")? + start + 2;
            Some(&about[start..end])
        })
        .collect();
    let mut keys: Vec<&Spanned<Vec<Spanned<String>>>> = closing
        .confirm
        .iter()
        .chain(closing.confirm_in.values())
        .collect();
    keys.sort_by_key(|key| key.span().start);
    let holding = keys
        .iter()
        .flat_map(|key| key.get_ref().iter())
        .find(|line| named.iter().any(|p| line.get_ref().contains(p)));
    let span = match holding {
        Some(line) => line.span(),
        None => keys.first()?.span(),
    };
    Some(file.line_at(span.start))
}

fn named(step: &Spanned<StepLine>, name: &str) -> bool {
    step.get_ref()
        .name
        .as_ref()
        .is_some_and(|n| n.get_ref() == name)
}
