//! Every sentence a flow writes for the model, the caller or the developer.
//!
//! Each text is a function with named inputs; the tests at the bottom pin them. Build problems
//! name the step and the fix; the tool layer's
//! own problems (replies, assign rows, conditions) keep hark-tools' words behind the step's
//! name.

/// Joins names for a list in a sentence, or `(none)`.
fn list(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(", ")
    }
}

/// A flow with no step.
pub fn no_steps() -> String {
    "The flow has no steps. Add at least one step.".to_string()
}

/// Two steps share a name.
pub fn duplicate_step(step: &str) -> String {
    format!("Two steps are named {step}. Give one of them another name.")
}

/// `first` names no step.
pub fn unknown_first(first: &str, steps: &[String]) -> String {
    format!(
        "The flow starts in {first}, which is not a step. Use one of: {}.",
        list(steps)
    )
}

/// A step offers a tool the agent does not have.
pub fn unknown_step_tool(step: &str, tool: &str, tools: &[String]) -> String {
    format!(
        "step {step}: {tool} is not a tool of the agent. Use one of: {}.",
        list(tools)
    )
}

/// A closing tool missing from its step's tools.
pub fn closing_not_in_step(step: &str, tool: &str) -> String {
    format!(
        "step {step}: its closing tool {tool} is not in its tools. Add {tool} to the step's tools."
    )
}

/// `next` names no step.
pub fn unknown_next(step: &str, next: &str, steps: &[String]) -> String {
    format!(
        "step {step}: next names {next}, which is not a step. Use one of: {}.",
        list(steps)
    )
}

/// A step no path from the first step reaches.
pub fn unreachable(step: &str, first: &str) -> String {
    format!("step {step}: no path from {first} reaches it. Name it in a step's next, or remove it.")
}

/// A step with a next step but nothing that ends it.
pub fn next_without_closing(step: &str) -> String {
    format!(
        "step {step}: it has a next step but no closing tool, so it never ends. Give it a closing tool, or leave next out."
    )
}

/// Routes whose last one has a `when`: a result matching none would have no next step.
pub fn routes_without_otherwise(step: &str) -> String {
    format!(
        "step {step}: the last route of next has a when, so a result that matches no route has no next step. Add a last route without when."
    )
}

/// `saves` on a flow whose registry has no State type.
pub fn saves_without_state(step: &str) -> String {
    format!(
        "step {step}: saves needs the State type. Build the agent's registry with .state::<State>()."
    )
}

/// `saves` names a value the State does not have.
pub fn unknown_saved_value(step: &str, value: &str, fields: &[String]) -> String {
    format!(
        "step {step}: saves names {value}, which is not a State value. Use one of: {}, or add the field to the State type.",
        list(fields)
    )
}

/// `saves` names a value nothing in the step fills.
pub fn saves_unfilled(step: &str, value: &str) -> String {
    format!(
        "step {step}: it saves {value}, but nothing in it fills {value}. Give the closing tool an argument named {value}, or add an assign row for it."
    )
}

/// A closing tool with a precheck and no finish rule: a precheck outcome would end the step.
pub fn precheck_without_finish(step: &str, tool: &str) -> String {
    format!(
        "step {step}: {tool} has a precheck, so its finish rule must name the results that end the step, like finish = {{ status = [\"booked\"] }}. Without one, a precheck outcome would end it."
    )
}

/// A finish rule that holds every value a Literal field can take: a precheck outcome would
/// match it.
pub fn finish_takes_every_value(step: &str, tool: &str, field: &str, values: &[String]) -> String {
    format!(
        "step {step}: the finish rule takes every value {field} can hold ({}), so a precheck outcome of {tool} would end the step. Leave out the values its precheck returns.",
        values.join(", ")
    )
}

/// A step's assign row that reads a tool the step does not offer.
pub fn assign_tool_not_in_step(step: &str, tool: &str) -> String {
    format!(
        "step {step}: an assign row reads the result of {tool}, which is not in its tools. Add {tool} to the step's tools."
    )
}

/// A step's reply row for a tool the step does not offer (one problem per tool).
///
/// Example: `step booking: a reply row is for book_table, which is not in its tools. Add
/// book_table to the step's tools.`
pub fn reply_tool_not_in_step(step: &str, tool: &str) -> String {
    format!(
        "step {step}: a reply row is for {tool}, which is not in its tools. Add {tool} to the step's tools."
    )
}

/// A problem the tool layer found in a step's rows, behind the step's name.
pub fn in_step(step: &str, problem: &str) -> String {
    format!("step {step}: {problem}")
}

/// A problem the tool layer found in a step's finish rule.
pub fn in_finish(step: &str, problem: &str) -> String {
    format!("step {step}: finish rule: {problem}")
}

/// A problem the tool layer found in a route of a step's next.
pub fn in_route(step: &str, problem: &str) -> String {
    format!("step {step}: next: {problem}")
}

/// A confirm line that does not parse.
pub fn confirm_template(step: &str, problem: &str) -> String {
    format!("step {step}: confirm line: {problem}")
}

/// A confirm line that reads `{{result.…}}`.
pub fn confirm_reads_result(step: &str, placeholder: &str, tool: &str) -> String {
    format!(
        "step {step}: the confirm line reads {placeholder}, but the read-back comes before {tool} runs, so there is no result yet. Read an argument of {tool} or a State value."
    )
}

/// A confirm line that reads a value that is neither an argument nor a State value.
pub fn confirm_unknown_value(
    step: &str,
    placeholder: &str,
    tool: &str,
    known: &[String],
) -> String {
    format!(
        "step {step}: the confirm line reads {placeholder}, which is neither an argument of {tool} nor a State value. Use one of: {}.",
        list(known)
    )
}

/// Confirm lines on a closing tool that ends the call: the call would be over before the
/// caller could answer.
pub fn confirm_on_ending_tool(step: &str, tool: &str) -> String {
    format!(
        "step {step}: {tool} ends the call, so it cannot have confirm lines: the caller could not answer the read-back. Confirm in an earlier step."
    )
}

/// What the model reads for a closing-tool call held back for the read-back: the caller heard
/// the values and answers next.
pub fn awaiting_confirmation(tool: &str) -> String {
    format!(
        "{tool} did not run yet: its values were read back to the caller, who answers next. Say nothing more now. If the caller says no or changes a value, call {tool} again with the new values."
    )
}

/// The log line when a precheck outcome matched a finish rule at run time (it is a refusal,
/// not a success: the step stays open).
pub fn precheck_matched_finish(step: &str, tool: &str) -> String {
    format!(
        "step {step}: a precheck outcome of {tool} matched the finish rule; the step stays open. Narrow the finish rule to the results a run gives."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_problems_name_the_step_and_the_fix() {
        assert_eq!(
            closing_not_in_step("booking", "book_table"),
            "step booking: its closing tool book_table is not in its tools. Add book_table to the step's tools."
        );
        assert_eq!(
            unreachable("orphan", "booking"),
            "step orphan: no path from booking reaches it. Name it in a step's next, or remove it."
        );
        assert!(
            precheck_without_finish("booking", "book_table")
                .contains("finish = { status = [\"booked\"] }")
        );
        assert_eq!(
            unknown_step_tool("booking", "book_tabel", &["book_table".into()]),
            "step booking: book_tabel is not a tool of the agent. Use one of: book_table."
        );
    }

    #[test]
    fn the_model_is_told_the_read_back_is_waiting_for_the_caller() {
        assert_eq!(
            awaiting_confirmation("book_table"),
            "book_table did not run yet: its values were read back to the caller, who answers next. Say nothing more now. If the caller says no or changes a value, call book_table again with the new values."
        );
    }
}
