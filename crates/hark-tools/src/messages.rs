//! Every sentence the tool layer writes for the model, the caller or the developer.
//!
//! Each text is a function with named inputs; the tests at the bottom pin them to the words of
//! `tools-reference.md` and `cases/README.md`. A reviewer can read every sentence here.

/// Joins names as a person would: `a`, `a and b`, `a, b and c`.
pub fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {}", init.join(", "), last),
    }
}

/// "A required argument left out or empty": the refusal text of `ArgumentsMissing`.
///
/// One name: `birth_date is missing. Ask the caller for it, then call lookup_policy again.`
/// Several: `day and party are missing. Ask the caller for them, then call book_table again.`
pub fn arguments_missing(tool: &str, missing: &[String]) -> String {
    if missing.len() == 1 {
        format!(
            "{} is missing. Ask the caller for it, then call {tool} again.",
            missing[0]
        )
    } else {
        format!(
            "{} are missing. Ask the caller for them, then call {tool} again.",
            join_names(missing)
        )
    }
}

/// "Arguments the schema does not name": `bogus is not an argument of lookup. Call lookup again
/// without it.` (several: `a and b are not arguments of lookup. Call lookup again without them.`)
pub fn unknown_arguments(tool: &str, extra: &[String]) -> String {
    if extra.len() == 1 {
        format!(
            "{} is not an argument of {tool}. Call {tool} again without it.",
            extra[0]
        )
    } else {
        format!(
            "{} are not arguments of {tool}. Call {tool} again without them.",
            join_names(extra)
        )
    }
}

/// An unknown tool name (case T2): names the tools that exist.
pub fn unknown_tool(called: &str, tools: &[String]) -> String {
    if tools.is_empty() {
        format!(
            "There is no tool named {called}, and no tools are available. Do not call it again."
        )
    } else {
        format!(
            "There is no tool named {called}. The tools are: {}. Call one of them instead.",
            tools.join(", ")
        )
    }
}

/// Arguments that failed the schema check: one line per error (`party: 40 is greater than the
/// maximum of 12`), all errors of the call together, then what to do.
pub fn invalid_arguments(tool: &str, lines: &[String]) -> String {
    format!(
        "{}\nFix these arguments, asking the caller if needed, then call {tool} again.",
        lines.join("\n")
    )
}

/// One line of an argument error: `<path>: <reason>`, or the reason alone at the root.
pub fn argument_error_line(path: &str, reason: &str) -> String {
    if path.is_empty() {
        reason.to_string()
    } else {
        format!("{path}: {reason}")
    }
}

/// The arguments were not a JSON object (or not JSON at all).
pub fn arguments_not_an_object(tool: &str) -> String {
    format!(
        "The arguments of {tool} must be a JSON object of named arguments. Call {tool} again with one."
    )
}

/// "Outputs" point 3: `find_order returned a result that does not fit Order: status: … Do not claim
/// success.`
pub fn result_does_not_fit(tool: &str, output: &str, detail: &str) -> String {
    format!("{tool} returned a result that does not fit {output}: {detail} Do not claim success.")
}

/// "A call that is refused" (other errors): `<tool> failed before completing. Do not claim
/// success.`
pub fn failed_before_completing(tool: &str) -> String {
    format!("{tool} failed before completing. Do not claim success.")
}

/// "A result the model does not read" point 4: the description with its result instructions.
pub fn description_with_instructions(description: &str, instructions: &str) -> String {
    format!("{description}\n\nUse the result like this: {instructions}")
}

/// "Outputs" point 1: a function that returns a JSON value and gives no output.
pub fn name_its_output(tool: &str) -> String {
    format!(
        "{tool} returns a JSON value, so name its output: give output = YourType (or Output::json)."
    )
}

/// "hidden" names a field the output does not have.
pub fn hidden_field_unknown(tool: &str, field: &str, output: &str) -> String {
    format!(
        "{tool}: hidden names {field}, which {output} does not have. Use one of the output's fields."
    )
}

/// The schema the model reads refused a hand-written schema (one line per problem).
pub fn schema_refused(tool: &str, problem: &str) -> String {
    format!("{tool}: {problem}")
}

/// A tool that a provider dialect cannot express (T9): the tool's name, then `hark-schema`'s
/// line, which names the keyword's place, the dialect and the keyword.
pub fn dialect_refused(tool: &str, problem: &str) -> String {
    format!("{tool}: {problem}")
}

/// A tool name that providers refuse.
pub fn bad_tool_name(tool: &str) -> String {
    format!(
        "The tool name {tool:?} is not allowed: use 1 to 64 letters, digits, _ or -, starting with a letter."
    )
}

/// Two tools with one name in a registry.
pub fn duplicate_tool(tool: &str) -> String {
    format!("Two tools are named {tool}. Give one of them another name.")
}

/// A decode error after the schema check passed (a value the schema cannot describe, like a day
/// that does not exist).
pub fn decode_error_line(path: &str, reason: &str) -> String {
    argument_error_line(path, reason)
}

/// Text of a phone number that does not parse.
pub fn not_a_phone_number() -> String {
    "is not a phone number: give it in international format, like +14155550123".to_string()
}

/// Description of a `Phone` value in the schema the model reads.
pub const PHONE_DESCRIPTION: &str =
    "A phone number in international format with its country code, like +14155550123.";

#[cfg(test)]
mod tests {
    use super::*;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn missing_matches_spec() {
        assert_eq!(
            arguments_missing("lookup_policy", &v(&["birth_date"])),
            "birth_date is missing. Ask the caller for it, then call lookup_policy again."
        );
        assert_eq!(
            arguments_missing("set_guests", &v(&["count"])),
            "count is missing. Ask the caller for it, then call set_guests again."
        );
        assert_eq!(
            arguments_missing("book", &v(&["day", "party", "name"])),
            "day, party and name are missing. Ask the caller for them, then call book again."
        );
    }

    #[test]
    fn unknown_argument_matches_spec() {
        assert_eq!(
            unknown_arguments("lookup", &v(&["bogus"])),
            "bogus is not an argument of lookup. Call lookup again without it."
        );
        assert_eq!(
            unknown_arguments("book_table", &v(&["bogus"])),
            "bogus is not an argument of book_table. Call book_table again without it."
        );
    }

    #[test]
    fn does_not_fit_matches_spec() {
        assert_eq!(
            result_does_not_fit("find_order", "Order", "status: value is not allowed."),
            "find_order returned a result that does not fit Order: status: value is not allowed. Do not claim success."
        );
        assert_eq!(
            failed_before_completing("find_order"),
            "find_order failed before completing. Do not claim success."
        );
    }

    #[test]
    fn instructions_and_output_texts() {
        assert_eq!(
            description_with_instructions("Save it.", "Say it is saved."),
            "Save it.\n\nUse the result like this: Say it is saved."
        );
        assert!(name_its_output("find_raw").contains("name its output"));
        assert_eq!(
            argument_error_line("party", "40 is greater than the maximum of 12"),
            "party: 40 is greater than the maximum of 12"
        );
        assert!(
            unknown_tool("book_tabel", &v(&["book_table", "lookup"]))
                .contains("book_table, lookup")
        );
    }
}
