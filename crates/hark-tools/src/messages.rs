//! Every sentence the tool layer writes for the model, the caller or the developer.
//!
//! Each text is a function with named inputs; the tests at the bottom pin each one's exact words.
//! A reviewer can read every sentence here. What a text quotes from the model (a value, a name
//! it made up, a list of names, an argument error's lines) is bounded by [`crate::bounds`]: at
//! most 60 characters of a value or name then `…`, 10 names then `and 99,990 more`, 10 lines of
//! an argument error then `… and N more problems`.

use crate::bounds;

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
/// without it.` (several: `a and b are not arguments of lookup. Call lookup again without them.`;
/// past ten: `k0, k1, … k9 and 99,990 more are not arguments of note. …`).
pub fn unknown_arguments(tool: &str, extra: &[String]) -> String {
    let at_root: Vec<(String, String)> = extra.iter().map(|e| (String::new(), e.clone())).collect();
    unknown_fields(tool, &at_root)
}

/// Keys the schema does not name, at any level: each is `(the dotted path of its object, "" at
/// the root; its dotted path)`. Root keys read as in [`unknown_arguments`]; a nested one names
/// its object: `contact.bogus is not a field of contact. Call lookup again without it.` Several
/// objects: one clause each, in order, then one closing sentence
/// (`bogus is not an argument of lookup. contact.x and contact.y are not fields of contact.
/// Call lookup again without them.`). The first ten keys are named, each cut to 60 characters;
/// the others are counted: `… and 99,990 more are not arguments of note`, or, when they are not
/// all in the last object named, one more clause `99,990 more keys are not in the arguments of
/// note either`.
pub fn unknown_fields(tool: &str, unknown: &[(String, String)]) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (parent, path) in unknown.iter().take(bounds::NAMES_LISTED) {
        let parent = bounds::name(parent);
        match groups.iter_mut().find(|(p, _)| *p == parent) {
            Some((_, paths)) => paths.push(bounds::name(path)),
            None => groups.push((parent, vec![bounds::name(path)])),
        }
    }
    let more = unknown.len().saturating_sub(bounds::NAMES_LISTED);
    let rest_in_last = unknown
        .iter()
        .skip(bounds::NAMES_LISTED)
        .all(|(p, _)| Some(bounds::name(p)) == groups.last().map(|(g, _)| g.clone()));
    if more > 0
        && rest_in_last
        && let Some((_, paths)) = groups.last_mut()
    {
        paths.push(format!("{} more", bounds::count(more)));
    }
    let mut clauses: Vec<String> = groups
        .iter()
        .map(
            |(parent, paths)| match (parent.is_empty(), paths.len() == 1) {
                (true, true) => format!("{} is not an argument of {tool}", paths[0]),
                (true, false) => format!("{} are not arguments of {tool}", join_names(paths)),
                (false, true) => format!("{} is not a field of {parent}", paths[0]),
                (false, false) => format!("{} are not fields of {parent}", join_names(paths)),
            },
        )
        .collect();
    if more > 0 && !rest_in_last {
        clauses.push(format!(
            "{} more keys are not in the arguments of {tool} either",
            bounds::count(more)
        ));
    }
    let pronoun = if unknown.len() == 1 { "it" } else { "them" };
    format!(
        "{}. Call {tool} again without {pronoun}.",
        clauses.join(". ")
    )
}

/// A required value left out, as one line of a schema check: `status is missing`,
/// `contact.name is missing` (the dotted path of the value).
pub fn value_missing(path: &str) -> String {
    format!("{} is missing", bounds::name(path))
}

/// A key an object's schema does not allow, as one line of a schema check:
/// `contact.bogus is not a field of contact`; at the root, `bogus is not <root>` with `root`
/// like `a field of Order`.
pub fn not_a_field(path: &str, parent: &str, root: &str) -> String {
    let (path, parent) = (bounds::name(path), bounds::name(parent));
    if parent.is_empty() {
        format!("{path} is not {root}")
    } else {
        format!("{path} is not a field of {parent}")
    }
}

/// An unknown tool name: names the tools that exist. The name the model sent is cut to 60
/// characters then `…`.
pub fn unknown_tool(called: &str, tools: &[String]) -> String {
    if called.trim().is_empty() && !tools.is_empty() {
        // "There is no tool named ." read as a sentence cut short.
        return format!(
            "The call names no tool. The tools are: {}. Call one of them by its name.",
            tools.join(", ")
        );
    }
    let called = bounds::name(called);
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
/// maximum of 12`), all errors of the call together, then what to do. At most ten lines, each
/// at most 400 characters, then `… and N more problems` (see [`bounds::lines`]).
pub fn invalid_arguments(tool: &str, lines: &[String]) -> String {
    format!(
        "{}\nFix these arguments, asking the caller if needed, then call {tool} again.",
        bounds::lines(lines).join("\n")
    )
}

/// One line of an argument error: `<path>: <reason>`, or the reason alone at the root. The path
/// is cut to 60 characters then `…` (its keys may be the model's).
pub fn argument_error_line(path: &str, reason: &str) -> String {
    if path.is_empty() {
        reason.to_string()
    } else {
        format!("{}: {reason}", bounds::name(path))
    }
}

/// A value that fits none of the choices of its `anyOf`/`oneOf` (the validator's "not valid under
/// any of the schemas listed in the 'anyOf' keyword"): `{"x":1} fits none of the choices here`.
pub fn fits_no_choice(value: &serde_json::Value) -> String {
    format!("{} fits none of the choices here", bounds::quote(value))
}

/// A value of a type its schema does not take, `types` as `"array"` or `"string" or
/// "integer"` (`null` left out beside another type: the model's schema does not show it):
/// `5 is not of type "array"`.
pub fn not_of_type(value: &serde_json::Value, types: &str) -> String {
    format!("{} is not of type {types}", bounds::quote(value))
}

/// A value that fits several choices of a `oneOf` where exactly one must fit.
pub fn fits_several_choices(value: &serde_json::Value) -> String {
    format!(
        "{} fits more than one of the choices here, and must fit exactly one",
        bounds::quote(value)
    )
}

/// The arguments the model sent, read as no object of named arguments, in words that name why:
/// [`arguments_not_an_object`], or nested too deep, a number out of range, `NaN`/`Infinity`, an
/// invalid `\u` escape.
pub fn arguments_unreadable(tool: &str, fault: crate::error::ArgumentsFault) -> String {
    use crate::error::ArgumentsFault;
    let why = match fault {
        ArgumentsFault::NotAnObject => return arguments_not_an_object(tool),
        ArgumentsFault::TooDeep => "are nested too deeply to read (more than 128 levels)",
        ArgumentsFault::NumberOutOfRange => "hold a number too large to read, like 1e400",
        ArgumentsFault::NotANumber => "hold NaN or Infinity, which is not a JSON number",
        ArgumentsFault::BadEscape => "hold an invalid \\u escape, like a lone surrogate \\ud800",
        ArgumentsFault::WholeNumberTooLarge => {
            return format!(
                "The arguments of {tool} hold a whole number outside {MIN_WHOLE} to {MAX_WHOLE}, which cannot be read exactly. Call {tool} again with whole numbers in that range."
            );
        }
    };
    format!("The arguments of {tool} {why}. Call {tool} again with valid JSON.")
}

/// The whole numbers arguments and results may hold exactly: `i64::MIN` to `u64::MAX`.
const MIN_WHOLE: i64 = i64::MIN;
const MAX_WHOLE: u64 = u64::MAX;

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

/// What the model reads for a result larger than [`bounds::RESULT_CAP`] as JSON.
pub fn result_too_large(tool: &str) -> String {
    format!(
        "{tool} returned a result larger than the {} the model may read, so it failed. Do not claim success.",
        bounds::RESULT_CAP_WORDS
    )
}

/// What the model reads for a tool's error (or refusal) whose words are larger than
/// [`bounds::RESULT_CAP`] as JSON.
pub fn error_too_large(tool: &str) -> String {
    format!(
        "{tool} failed with an error message larger than the {} the model may read. Do not claim success.",
        bounds::RESULT_CAP_WORDS
    )
}

/// The log line for an error message larger than [`bounds::RESULT_CAP`].
pub fn error_too_large_log(tool: &str) -> String {
    format!(
        "{tool} raised an error whose message is larger than {} as JSON; the model read only that \
         it failed. Keep error messages to a sentence the model can act on.",
        bounds::RESULT_CAP_WORDS
    )
}

/// What sinks get for an error message larger than [`bounds::RESULT_CAP`].
pub fn error_too_large_event() -> String {
    format!("error larger than {}", bounds::RESULT_CAP_WORDS)
}

/// The log line for a result larger than [`bounds::RESULT_CAP`]: names the tool, never a value.
pub fn result_too_large_log(tool: &str) -> String {
    format!(
        "{tool} returned a result larger than {} as JSON, so the call failed. Return less: leave fields \
         out with hidden=, or use show_result=False.",
        bounds::RESULT_CAP_WORDS
    )
}

/// What sinks get for a result larger than [`bounds::RESULT_CAP`].
pub fn result_too_large_event() -> String {
    format!("result larger than {}", bounds::RESULT_CAP_WORDS)
}

/// What sinks get for a result that does not fit its output: `result does not fit Order:
/// status (type)`; `detail` names fields, never a value.
pub fn result_does_not_fit_event(output: &str, detail: &str) -> String {
    format!("result does not fit {output}: {detail}")
}

/// Whether a `tool.failed` event's error is one the registry judged from the result (it does
/// not fit, it is too large), which a log should show.
pub fn is_judged_result(event_error: &str) -> bool {
    event_error.starts_with("result does not fit ")
        || event_error.starts_with("result larger than ")
}

/// The log line for a `ToolError` with no words: the model reads [`failed_before_completing`].
pub fn blank_tool_error(tool: &str) -> String {
    format!(
        "{tool} raised a ToolError with no words, so the model reads that it failed before completing. \
         Give the ToolError the words the model should read."
    )
}

/// What sinks get for a `ToolError` with no words.
pub const BLANK_ERROR_EVENT: &str = "failed with no words";

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

/// "hidden" names a field the output does not have; `fields` are the output's top-level fields
/// (hidden leaves out top-level fields only).
pub fn hidden_field_unknown(tool: &str, field: &str, output: &str, fields: &[String]) -> String {
    format!(
        "{tool}: hidden names {field}, which {output} does not have. Use one of the output's fields: {}.",
        one_of(fields)
    )
}

fn one_of(fields: &[String]) -> String {
    if fields.is_empty() {
        "(none)".to_string()
    } else {
        fields.join(", ")
    }
}

/// The schema the model reads refused a hand-written schema (one line per problem).
pub fn schema_refused(tool: &str, problem: &str) -> String {
    format!("{tool}: {problem}")
}

/// A tool that a provider dialect cannot express: the tool's name, then `hark-schema`'s
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

/// A `date` argument that is not a day `YYYY-MM-DD` (one line of the argument error, after the
/// argument's path). The same words as an agent file's `date` input.
pub fn not_a_date() -> String {
    "is not a date: give it as year-month-day, like 2026-10-16".to_string()
}

/// A `time` argument that is not a time of day `HH:MM`.
pub fn not_a_time() -> String {
    "is not a time of day: give it as hours:minutes:seconds on a 24-hour clock, like 09:30:00"
        .to_string()
}

/// A `date-time` argument that is not a date and time (RFC 3339).
pub fn not_a_date_time() -> String {
    "is not a date and time: give it like 2026-10-16T09:30:00+02:00".to_string()
}

/// What the model reads for a value its type refused when the schema gives it a `format` hark
/// knows and the value is not at hand: [`not_a_date`], [`not_a_time`], [`not_a_date_time`],
/// [`not_a_phone_number`]; another format reads `does not fit its format. <its words>`, like
/// `does not fit its format. An email address.` `None` for the number formats schemars writes
/// (`uint8`, `int32`…), which say nothing beyond the type. With the value,
/// [`crate::format_refused`] quotes it and says what is wrong with it.
pub fn format_refused_unquoted(format: &str) -> Option<String> {
    match format {
        "date" => Some(not_a_date()),
        "time" => Some(not_a_time()),
        "date-time" => Some(not_a_date_time()),
        "local-date-time" => Some(not_a_local_date_time()),
        "phone" => Some(not_a_phone_number()),
        other => other_format_refused(other),
    }
}

/// A value of a format other than the dates and phone numbers: `does not fit its format. An
/// email address.`, or `None` for a number format.
pub fn other_format_refused(format: &str) -> Option<String> {
    hark_schema::messages::describe_format(format)
        .map(|words| format!("does not fit its format. {words}"))
}

/// A value of another format, quoted: `"bob" does not fit its format. An email address.`
pub fn value_does_not_fit_format(quoted: &str, words: &str) -> String {
    format!("{quoted} {words}")
}

/// A `date` written year-month-day that is no day on the calendar:
/// `"2026-02-30" is not a day on the calendar: February 2026 has days 01 to 28`.
pub fn date_not_on_calendar(quoted: &str, month_and_year: &str, days: i8) -> String {
    format!("{quoted} is not a day on the calendar: {month_and_year} has days 01 to {days}")
}

/// A `date` written year-month-day whose month is not 01 to 12.
pub fn month_not_on_calendar(quoted: &str) -> String {
    format!("{quoted} is not a day on the calendar: the months are 01 to 12")
}

/// A `date` not written year-month-day: `"next friday" is not written year-month-day: give the
/// day like 2026-10-16`.
pub fn date_not_written_as_one(quoted: &str) -> String {
    format!("{quoted} is not written year-month-day: give the day like 2026-10-16")
}

/// A `time` written hours:minutes outside a 24-hour clock.
pub fn time_not_on_the_clock(quoted: &str) -> String {
    format!("{quoted} is not a time of day: the hours are 00 to 23 and the minutes 00 to 59")
}

/// A `time` not written hours:minutes.
pub fn time_not_written_as_one(quoted: &str) -> String {
    format!(
        "{quoted} is not written hours:minutes:seconds: give it on a 24-hour clock, like 09:30:00"
    )
}

/// A civil date-time argument (`format: "local-date-time"`) that is not a local date and time.
pub fn not_a_local_date_time() -> String {
    "is not a date and time: give it like 2026-10-16T09:30:00".to_string()
}

/// A civil date-time argument written with a UTC offset, `Z` or a zone, which it has no room
/// for: `"2026-10-16T09:30:00-05:00" has a UTC offset: give the local date and time without
/// one, like 2026-10-16T09:30:00`.
pub fn local_date_time_with_offset(quoted: &str) -> String {
    format!(
        "{quoted} has a UTC offset: give the local date and time without one, like 2026-10-16T09:30:00"
    )
}

/// A `date-time` written without its UTC offset (a local date and time): the moment it names
/// depends on a zone nobody gave.
pub fn date_time_without_offset(quoted: &str) -> String {
    format!(
        "{quoted} has no UTC offset: give the date and time with one, like 2026-10-16T09:30:00+02:00"
    )
}

/// A `date-time` that is no date and time.
pub fn not_a_date_time_quoted(quoted: &str) -> String {
    format!("{quoted} {}", not_a_date_time())
}

/// A phone number refused for `fault`, quoted:
/// `"call me maybe" is not a phone number: it has letters. Give its digits in international
/// format, like +14155550123`.
pub fn phone_refused(quoted: &str, fault: crate::error::PhoneFault) -> String {
    use crate::error::PhoneFault;
    const LIKE: &str = "in international format, like +14155550123";
    match fault {
        PhoneFault::Letters => {
            format!("{quoted} is not a phone number: it has letters. Give its digits {LIKE}")
        }
        PhoneFault::NoCountryCode => format!(
            "{quoted} has no country code: give it starting with + and the country code, like +14155550123"
        ),
        PhoneFault::UnknownCountryCode => {
            format!("{quoted} does not start with a country code that exists: give it {LIKE}")
        }
        PhoneFault::TooShort => {
            format!("{quoted} is too short for a phone number: give all its digits {LIKE}")
        }
        PhoneFault::TooLong => {
            format!("{quoted} is too long for a phone number: give only its digits {LIKE}")
        }
        PhoneFault::NoSuchNumber => format!(
            "{quoted} is not a phone number that exists: check its digits with the caller, and give it {LIKE}"
        ),
    }
}

/// A phone number that is not text at all: `4155550123 is not a phone number: give it as text
/// in international format, like +14155550123`.
pub fn phone_not_text(quoted: &str) -> String {
    format!(
        "{quoted} is not a phone number: give it as text in international format, like +14155550123"
    )
}

/// Text of a phone number that does not parse.
pub fn not_a_phone_number() -> String {
    "is not a phone number: give it in international format, like +14155550123".to_string()
}

/// Description of a `Phone` value in the schema the model reads.
pub const PHONE_DESCRIPTION: &str =
    "A phone number in international format with its country code, like +14155550123.";

// ------------------------------------------------------------------ part 2: a tool in a call

/// "A call that is refused", point 2: the hint when a step must still confirm the value.
/// `day not set yet. Run first: it confirms with the caller (confirm_day), then call this tool again.`
pub fn not_set_confirm(value: &str, step: &str) -> String {
    format!(
        "{value} not set yet. Run first: it confirms with the caller ({step}), then call this tool again."
    )
}

/// "A call that is refused", point 3: the hint when a task saves the value (the first one wins).
/// `order not set yet. Run first: it saves order (find_order), then call this tool again.`
pub fn not_set_saves(value: &str, tool: &str) -> String {
    format!("{value} not set yet. Run first: it saves {value} ({tool}), then call this tool again.")
}

/// A refusal for a State value not set yet (`docs/guide/refusals.md`), e.g.
/// `day not set yet. Get it from the caller, then call this tool again.`; with the State field's
/// description in brackets when it has one (a closing period is dropped inside the brackets).
pub fn not_set_get(value: &str, description: Option<&str>) -> String {
    match description
        .map(|d| d.trim().trim_end_matches('.'))
        .filter(|d| !d.is_empty())
    {
        Some(d) => {
            format!("{value} not set yet. Get it from the caller ({d}), then call this tool again.")
        }
        None => format!("{value} not set yet. Get it from the caller, then call this tool again."),
    }
}

/// "Locked arguments", point 4: a tool that locks a call value this call does not carry.
/// `This tool reads call.carrier_call_id, which this call does not carry.`
pub fn call_value_missing(name: &str) -> String {
    format!("This tool reads call.{name}, which this call does not carry.")
}

/// "A tool the caller talks over", point 3: what the model reads for a `continue` tool whose
/// reply was cut off. Its result comes in a later reply.
pub fn still_running(tool: &str) -> String {
    format!(
        "{tool} is still running. Its result comes in a later reply; do not say it is done yet."
    )
}

/// The whole result the model reads for a tool whose reply was cut off while it keeps running:
/// `{"status":"running","note":` [`still_running`] `}`. Every runtime that keeps a tool running
/// (a `continue` tool in Hark's call path; any tool in LiveKit, which never cancels one) gives the
/// model this value.
pub fn still_running_result(tool: &str) -> serde_json::Value {
    serde_json::json!({"status": "running", "note": still_running(tool)})
}

/// The note that carries a late result of a `continue` tool into a later request, once.
pub fn late_result(tool: &str, result: &str) -> String {
    format!("{tool} finished: {result}")
}

/// An announce line that is empty or only spaces: the caller would hear nothing.
pub fn blank_announce_line(tool: &str) -> String {
    format!(
        "{tool}: an announce line is empty. Write the words the caller hears, or remove the line."
    )
}

/// A reply line that is empty or only spaces.
pub fn blank_reply_line(tool: &str) -> String {
    format!("{tool}: a reply line is empty. Write the words the caller hears, or remove the line.")
}

/// `end_call_tool` with a goodbye that is empty or only spaces.
pub fn blank_goodbye() -> String {
    "end_call: the goodbye is empty. Write what the caller hears before the call ends, like \"Goodbye!\".".to_string()
}

/// A template error inside a tool's announce line, locked value or reply line.
pub fn template_problem(tool: &str, place: &str, problem: &str) -> String {
    format!("{tool}: {place}: {problem}")
}

/// A locked argument names a parameter the tool does not have.
pub fn locked_unknown_parameter(tool: &str, parameter: &str, parameters: &[String]) -> String {
    format!(
        "{tool}: locked names {parameter}, which is not a parameter of {tool}. Lock one of: {}.",
        if parameters.is_empty() {
            "(none)".to_string()
        } else {
            parameters.join(", ")
        }
    )
}

/// `Transcript { max_messages }` locked to a parameter that cannot take a list.
pub fn transcript_needs_list(tool: &str, parameter: &str) -> String {
    format!(
        "{tool}: {parameter} is locked to Transcript, a list of messages, but the parameter is not an array. \
         Type it as a list (Vec<TranscriptMessage>) or leave it without a type."
    )
}

/// "Locked arguments", point 6: a locked path whose type does not fit the parameter.
pub fn locked_type_mismatch(
    tool: &str,
    parameter: &str,
    placeholder: &str,
    holds: &str,
    takes: &str,
) -> String {
    format!(
        "{tool}: {parameter} is locked to {placeholder}, which holds {holds}, but {parameter} takes {takes}. \
         Lock a value of the parameter's type, or change the parameter's type."
    )
}

/// A locked value or a State path that reads `{{result.…}}` (only reply lines read the result).
pub fn result_outside_reply(tool: &str, placeholder: &str) -> String {
    format!(
        "{tool}: {placeholder} reads the result, which only reply lines can read. Read a State value or {{{{call.name}}}} instead."
    )
}

/// A `{{call.name}}` that the call does not carry at all.
pub fn unknown_call_value(tool: &str, placeholder: &str) -> String {
    format!(
        "{tool}: {placeholder} is not something a call carries. Use call.session_id, call.remote_number, \
         call.carrier_call_id, call.participant, call.call_type or call.end_reason."
    )
}

/// An announce or reply line reads a value that is neither an argument of the tool nor a State value.
pub fn unknown_line_value(tool: &str, placeholder: &str, known: &[String]) -> String {
    format!(
        "{tool}: {placeholder} is neither an argument of {tool} nor a State value. Use one of: {}.",
        if known.is_empty() {
            "(none)".to_string()
        } else {
            known.join(", ")
        }
    )
}

/// An announce line that reads a value that is not an argument of the tool, on a registry built
/// without a State type: `book: {{dya}} is not an argument of book, and the registry has no State
/// type to read it from. Use one of: day, party, or call.session_id, call.remote_number,
/// call.carrier_call_id, call.participant, call.call_type, call.end_reason; for a State value, build the registry
/// with its State type.`
pub fn unknown_line_value_without_state(
    tool: &str,
    placeholder: &str,
    arguments: &[String],
) -> String {
    let arguments = if arguments.is_empty() {
        String::new()
    } else {
        format!("{}, or ", arguments.join(", "))
    };
    format!(
        "{tool}: {placeholder} is not an argument of {tool}, and the registry has no State type to read it from. \
         Use one of: {arguments}call.session_id, call.remote_number, call.carrier_call_id, call.participant, call.call_type, call.end_reason; \
         for a State value, build the registry with its State type (state= in Python)."
    )
}

/// A registry row that needs a State type, on a registry built without one.
pub fn needs_state(tool: &str, what: &str) -> String {
    format!("{tool}: {what} needs the State type. Build the registry with .state::<State>().")
}

/// A registry reply or assign row that names a tool the registry does not have.
pub fn row_unknown_tool(kind: &str, tool: &str, tools: &[String]) -> String {
    format!(
        "{kind} names the tool {tool}, which the registry does not have. Use one of: {}.",
        tools.join(", ")
    )
}

/// "Replies on the tool itself", point 3: a registry reply must name its tool.
pub fn registry_reply_without_tool() -> String {
    "A reply on a ToolRegistry names its tool: set tool on the ToolReply.".to_string()
}

/// "Replies on the tool itself", point 1: a tool's own reply that names another tool.
pub fn own_reply_names_other(tool: &str, other: &str) -> String {
    format!(
        "{tool}: its own reply names the tool {other}. Leave tool out, or put the reply on the registry."
    )
}

/// "Save a result and speak it", point 8: a reply on a tool that ends the call.
pub fn reply_on_ending_tool(tool: &str) -> String {
    format!(
        "{tool} ends the call, so a reply on it is refused: the call is over before the line could play. \
         Say a goodbye with the tool's announce and announce_wait."
    )
}

/// A reply with no line to say.
pub fn reply_without_lines(tool: &str) -> String {
    format!("{tool}: a reply has no line to say. Give it at least one line in say.")
}

/// A `when`, `{{result.…}}` or assign path the output has down to `level` (a field of the
/// output) but not below it: `missing` is the name `level` does not have, `fields` the names it
/// has. `find_order: the result field box.sise is not in FindOrder: box has no field sise. Use
/// one of: size.`
pub fn unknown_nested_result_field(
    tool: &str,
    field: &str,
    output: &str,
    level: &str,
    missing: &str,
    fields: &[String],
) -> String {
    format!(
        "{tool}: the result field {field} is not in {output}: {level} has no field {missing}. Use one of: {}.",
        one_of(fields)
    )
}

/// "Locked arguments", point 6: a locked `{{path}}` the State has down to `level` but not below
/// it: `missing` is the name `level` does not have, `fields` the names it has.
/// `crm: {{customer.idd}} is not in the State: customer has no field idd. Use one of: id, name.`
pub fn unknown_nested_state_path(
    tool: &str,
    placeholder: &str,
    level: &str,
    missing: &str,
    fields: &[String],
) -> String {
    if fields.is_empty() {
        return format!(
            "{tool}: {placeholder} is not in the State: {level} has no fields. Lock {{{{{level}}}}} itself, or make {level} an object with a field {missing}."
        );
    }
    format!(
        "{tool}: {placeholder} is not in the State: {level} has no field {missing}. Use one of: {}.",
        fields.join(", ")
    )
}

/// "Locked arguments", point 6: a locked `{{path}}` whose first name is not a State value.
/// `crm: {{custmer.id}} is not in the State: it has no value custmer. Use one of: customer, or
/// add the field to the State type.`
pub fn unknown_state_path(
    tool: &str,
    placeholder: &str,
    missing: &str,
    fields: &[String],
) -> String {
    if fields.is_empty() {
        return format!(
            "{tool}: {placeholder} is not in the State, which has no values. Fix the path, or add the field to the State type."
        );
    }
    format!(
        "{tool}: {placeholder} is not in the State: it has no value {missing}. Use one of: {}, or add the field to the State type.",
        fields.join(", ")
    )
}

/// A `when` or `{{result.…}}` path the output does not have.
pub fn unknown_result_field(tool: &str, field: &str, output: &str, fields: &[String]) -> String {
    format!(
        "{tool}: the result field {field} is not in {output}. Use one of: {}.",
        if fields.is_empty() {
            "(none)".to_string()
        } else {
            fields.join(", ")
        }
    )
}

/// A `state` key, `{{value}}` of a reply or an assign variable the State does not have.
pub fn unknown_state_value(tool: &str, value: &str, fields: &[String]) -> String {
    format!(
        "{tool}: {value} is not a State value. Use one of: {}, or add the field to the State type.",
        if fields.is_empty() {
            "(none)".to_string()
        } else {
            fields.join(", ")
        }
    )
}

/// "Save a result and speak it", point 10: a `when` value a Literal, bool or enum field cannot hold.
/// `find_order: when status is "shiped", which status never holds. It holds: "held", "shipped".`
pub fn when_value_not_held(tool: &str, field: &str, value: &str, holds: &[String]) -> String {
    format!(
        "{tool}: when {field} is {value}, which {field} never holds. It holds: {}.",
        holds.join(", ")
    )
}

/// "Save a result and speak it", point 7: a result value whose type cannot fill the State value.
pub fn assign_type_mismatch(
    tool: &str,
    path: &str,
    holds: &str,
    variable: &str,
    takes: &str,
) -> String {
    format!(
        "{tool}: assign saves {path} ({holds}) into {variable}, which takes {takes}. \
         Save a field of that type, or change the State value's type."
    )
}

/// A precheck parameter the tool does not have, or whose type differs.
pub fn precheck_parameter(tool: &str, parameter: &str) -> String {
    format!(
        "{tool}: the precheck takes {parameter}, which is not a parameter of {tool} with the same type. \
         Take the tool's parameters by name with their types, or the whole input."
    )
}

/// A precheck outcome that does not fit the tool's output.
pub fn precheck_outcome_does_not_fit(tool: &str, output: &str) -> String {
    format!(
        "{tool}: the precheck returned an outcome that does not fit {output}. Return the tool's output type."
    )
}

/// `current_datetime_tool` with a name that is not an IANA zone ("Built-in tools", point 1):
/// the call's name before the core's one text of a refused timezone (`hark_speak::locale`).
pub fn not_an_iana_zone(refused: &str) -> String {
    format!("current_datetime_tool: {refused}")
}

/// `user_phone_number_tool` on a call without a number ("Built-in tools", point 3).
pub fn no_phone_number() -> String {
    "This call has no phone number. Ask the caller for it if you need it.".to_string()
}

/// `end_call_tool`'s default name.
pub const END_CALL: &str = "end_call";

/// A numeric range no value can meet.
pub fn range_swapped(path: &str, low: f64, high: f64) -> String {
    format!(
        "{path}: the minimum {low} is above the maximum {high}, so no value can pass. Swap them."
    )
}

/// A bound beyond what the argument's Rust integer type holds.
pub fn range_wider_than_type(
    path: &str,
    bound: &str,
    value: f64,
    rust: &str,
    holds: f64,
) -> String {
    format!(
        "{path}: the {bound} {value} is {} than a {rust} holds ({holds}). {}, or give the argument a wider type.",
        if bound == "maximum" { "more" } else { "less" },
        if bound == "maximum" {
            "Lower it"
        } else {
            "Raise it"
        },
    )
}

/// A default its own range refuses.
pub fn default_out_of_range(
    path: &str,
    default: f64,
    low: Option<f64>,
    high: Option<f64>,
) -> String {
    let range = match (low, high) {
        (Some(low), Some(high)) => format!("{low} to {high}"),
        (Some(low), None) => format!("at least {low}"),
        (None, Some(high)) => format!("at most {high}"),
        (None, None) => String::new(),
    };
    format!(
        "{path}: the default {default} is outside its range ({range}). Change the default or the range."
    )
}

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
    fn unknown_fields_name_their_object() {
        let at = |parent: &str, path: &str| (parent.to_string(), path.to_string());
        assert_eq!(
            unknown_fields("lookup", &[at("", "bogus")]),
            unknown_arguments("lookup", &v(&["bogus"]))
        );
        assert_eq!(
            unknown_fields("lookup", &[at("contact", "contact.bogus")]),
            "contact.bogus is not a field of contact. Call lookup again without it."
        );
        assert_eq!(
            unknown_fields(
                "lookup",
                &[
                    at("contact", "contact.a"),
                    at("", "x"),
                    at("contact", "contact.b")
                ]
            ),
            "contact.a and contact.b are not fields of contact. x is not an argument of lookup. \
             Call lookup again without them."
        );
        assert_eq!(value_missing("contact.name"), "contact.name is missing");
        assert_eq!(
            arguments_missing("lookup", &v(&["contact.name"])),
            "contact.name is missing. Ask the caller for it, then call lookup again."
        );
        assert_eq!(
            not_a_field("contact.x", "contact", "a field of Order"),
            "contact.x is not a field of contact"
        );
        assert_eq!(
            not_a_field("x", "", "a field of Order"),
            "x is not a field of Order"
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
        assert_eq!(
            unknown_tool(" ", &v(&["book_table", "lookup"])),
            "The call names no tool. The tools are: book_table, lookup. Call one of them by its name."
        );
    }

    #[test]
    fn part_two_texts_match_spec() {
        // A call that is refused: the guide's example and its hints, in order.
        assert_eq!(
            not_set_get("day", None),
            "day not set yet. Get it from the caller, then call this tool again."
        );
        assert_eq!(
            not_set_get("day", Some("The day the caller wants.")),
            "day not set yet. Get it from the caller (The day the caller wants), then call this tool again."
        );
        assert!(
            not_set_confirm("day", "confirm_day")
                .contains("Run first: it confirms with the caller")
        );
        assert!(not_set_saves("order", "find_order").contains("Run first: it saves order"));
        // "Locked arguments", point 4.
        assert_eq!(
            call_value_missing("carrier_call_id"),
            "This tool reads call.carrier_call_id, which this call does not carry."
        );
        // "Save a result and speak it", point 8.
        assert!(reply_on_ending_tool("end_call").contains(
            "the call is over before the line could play. Say a goodbye with the tool's announce and announce_wait."
        ));
    }
}
