//! Every text an agent file's checks print: what is wrong, where, and the fix. `hark check`
//! prints them as they are; tests pin them.

/// The built-in tools an agent file may name, in the order the messages list them.
pub const BUILTIN_TOOLS: &[&str] = &["current_datetime", "end_call", "user_phone_number"];

/// The file cannot be read.
pub fn unreadable(path: &str, why: &str) -> String {
    format!("cannot read {path}: {why}. Check the path.")
}

/// The keys the format reads only to refuse them with their own error: an unknown-key message
/// does not offer them (`[llm] api_key`: a key never goes in the file; `api_key_env` names its
/// variable).
pub const REFUSED_KEYS: &[&str] = &["api_key"];

/// The TOML does not parse or does not fit the format (a typo in a key, a wrong type), with the
/// page that lists every key. An unknown key's list of the keys there are leaves out
/// [`REFUSED_KEYS`].
pub fn parse_error(message: &str) -> String {
    let mut message = message.trim().trim_end_matches('.').to_string();
    if message.starts_with("unknown field ") {
        for key in REFUSED_KEYS {
            message = message.replace(&format!(", `{key}`"), "");
        }
    }
    format!("{message}. Fix this key or value; every key is in docs/guide/agent-file-reference.md.")
}

/// A value of the wrong type (serde's "invalid type" error), said with its key: the shape it
/// needs and an example. `table` is the header above the key (`[[webhook]]`, or empty), `item`
/// is true when the value is one item of the key's array, `expected` and `found` are serde's
/// words (`f64`, `a sequence`; `string "5s"`).
/// Like `[[webhook]] timeout must be a number of seconds, like timeout = 5 (found string "5s").`
pub fn wrong_type(table: &str, key: &str, item: bool, expected: &str, found: &str) -> String {
    let short = key.rsplit('.').next().unwrap_or(key).trim_matches('"');
    let (shape, example) = shape_of(short, expected);
    let subject = if item {
        format!("each item of {key}")
    } else {
        key.to_string()
    };
    let example = if item {
        format!("{key} = [{example}]")
    } else {
        format!("{key} = {example}")
    };
    let table = if table.is_empty() {
        String::new()
    } else {
        format!("{table} ")
    };
    format!("{table}{subject} must be {shape}, like {example} (found {found}).")
}

/// A tool layer's text (written for Rust code) in the agent file's terms: "the State type" is
/// the file's `[state.<name>]` tables, "the registry" its top-level rows. Texts without those
/// words come back as they are.
///
/// Example: `… or add the field to the State type.` → `… or add a [state.<name>] table for it.`
pub fn in_file_terms(text: &str) -> String {
    if !text.contains("State type") && !text.contains("on the registry") {
        return text.to_string();
    }
    text.replace(
        "or add the field to the State type",
        "or add a [state.<name>] table for it",
    )
    .replace(
        "needs the State type. Build the registry with .state::<State>().",
        "needs State values: declare each one it reads in a [state.<name>] table.",
    )
    .replace(
        "or put the reply on the registry",
        "or make it a top-level [[reply]] row that names its tool",
    )
}

/// A key that takes one of some words (`interruption`, `method`, `provider`, `classifier`,
/// `auth.kind`), given another kind of value (`found`, as written).
///
/// Example: `[[webhook]] interruption must be one of the words "provider_default", "continue"
/// or "cancel", in quotes, like interruption = "provider_default" (found true).`
pub fn wrong_type_word(table: &str, key: &str, found: &str) -> String {
    let short = key.rsplit('.').next().unwrap_or(key).trim_matches('"');
    let words: &[&str] = match short {
        "interruption" => &["provider_default", "continue", "cancel"],
        "method" => &["GET", "POST", "PUT", "PATCH", "DELETE"],
        "provider" => &["openai-compatible", "anthropic", "gemini"],
        "classifier" => &["local", "llm"],
        "kind" => &["bearer", "api_key"],
        _ => &[],
    };
    let table = if table.is_empty() {
        String::new()
    } else {
        format!("{table} ")
    };
    match words {
        [] => {
            format!("{table}{key} must be a word in quotes, like {key} = \"...\" (found {found}).")
        }
        [first, ..] => {
            let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            let (last, rest) = quoted.split_last().expect("two or more words");
            format!(
                "{table}{key} must be one of the words {} or {last}, in quotes, like {key} = \"{first}\" (found {found}).",
                rest.join(", ")
            )
        }
    }
}

/// The shape serde's `expected` names, in words, and an example value; `key` gives the unit of
/// a number where the format has one (`timeout`: seconds).
fn shape_of(key: &str, expected: &str) -> (String, String) {
    let seconds = key == "timeout" || key.ends_with("_seconds") || key.ends_with("_secs");
    match expected {
        "f64" | "f32" | "a float" | "a number" if seconds => {
            ("a number of seconds".into(), "5".into())
        }
        "f64" | "f32" | "a float" | "a number" => ("a number".into(), "5".into()),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize"
        | "an integer" => ("a whole number".into(), "3".into()),
        "a string" | "a borrowed string" | "string" | "a string key" | "char" => {
            ("text in quotes".into(), "\"text\"".into())
        }
        "a boolean" | "bool" => ("true or false".into(), "true".into()),
        "a sequence" => ("a list".into(), "[\"a\", \"b\"]".into()),
        other if other == "a map" || other.starts_with("struct ") || other == "a table" => {
            ("a table of keys".into(), "{ ... }".into())
        }
        other => (other.to_string(), "...".into()),
    }
}

/// `api_key` written in the file.
pub fn key_in_file() -> String {
    "[llm] api_key: a key never goes in the agent file. Put it in an environment variable and name the variable with api_key_env = \"OPENAI_API_KEY\".".to_string()
}

/// `[tts] api_key` / `[stt] api_key` written in the file; `example` is the provider's usual
/// variable (`OPENAI_API_KEY`, `CARTESIA_API_KEY`).
pub fn speech_key_in_file(table: &str, example: &str) -> String {
    format!(
        "{table} api_key: a key never goes in the agent file. Put it in an environment variable and name the variable with api_key_env = \"{example}\"."
    )
}

/// Warning: a speech provider's key variable is unset or empty, so the agent has no `what`.
pub fn speech_key_env_unusable(
    table: &str,
    variable: &str,
    state: &str,
    what: &str,
    provider: &str,
) -> String {
    format!(
        "{table} the environment variable {variable} is {state}, so the agent runs without {what}. Put your {provider} key in {variable} to use it."
    )
}

/// A speech table's `base_url` is not a URL of the provider's scheme; `example` is one that is.
pub fn speech_bad_base_url(table: &str, url: &str, why: &str, example: &str) -> String {
    format!("{table} base_url {url} is not a URL ({why}). Write it like {example}.")
}

/// An `[stt]` key that belongs to the other provider.
pub fn stt_key_not_for(key: &str, provider: &str, belongs_to: &str) -> String {
    format!(
        "[stt] {key} is for provider {belongs_to}, not {provider}: remove it, or set provider = \"{belongs_to}\"."
    )
}

/// `[tts] base_url` of a WebSocket provider is not a ws(s) URL.
pub fn speech_bad_ws_url(table: &str, url: &str, why: &str, example: &str) -> String {
    format!("{table} base_url {url} is not a WebSocket URL ({why}). Write it like {example}.")
}

/// `[tts] provider = "cartesia"` without a voice.
pub fn cartesia_voice_missing() -> String {
    "[tts] provider cartesia needs a voice: set voice = \"<voice id>\" to the id of a voice from Cartesia's voice library (like a0e99841-438c-4a64-b679-ae501e7d6091).".to_string()
}

/// `[tts] language` that is not a two- or three-letter ISO 639 code.
pub fn tts_language_invalid(value: &str) -> String {
    format!(
        "[tts] language \"{value}\" is not a language code: write the ISO 639-1 code, like language = \"en\", or remove it to use the agent's language."
    )
}

/// A `[tts]` key that belongs to the other provider.
pub fn tts_key_not_for(key: &str, provider: &str, belongs_to: &str) -> String {
    format!(
        "[tts] {key} is for provider {belongs_to}, not {provider}: remove it, or set provider = \"{belongs_to}\"."
    )
}

/// A number outside its range.
pub fn speech_out_of_range(place: &str, value: &str, min: &str, max: &str) -> String {
    format!("{place} = {value} is outside {min} to {max}: choose a value in that range.")
}

/// A text key that is empty.
pub fn speech_empty(place: &str) -> String {
    format!("{place} is empty: give it a value, or remove it for the default.")
}

/// Warning: `[tts] provider = "espeak-ng"` and no espeak-ng on PATH.
pub fn espeak_not_installed() -> String {
    "[tts] espeak-ng is not installed (not found on PATH), so the agent runs without speech out. Install it with `apt-get install espeak-ng` (Debian/Ubuntu).".to_string()
}

/// `[llm] roles` with a provider other than `openai-compatible`.
pub fn roles_not_for_provider(provider: &str) -> String {
    format!(
        "[llm] roles is for provider openai-compatible only; provider {provider} always takes \
its system text first and later notes as marked user text. Remove roles."
    )
}

/// A provider that needs a key names no variable.
pub fn key_env_missing(provider: &str, example: &str) -> String {
    format!(
        "[llm] provider {provider} needs a key: name the environment variable that holds it with api_key_env = \"{example}\"."
    )
}

/// A `*_env` key (`[llm] api_key_env`, a webhook's `auth.env`) holds something that is not an
/// environment variable name (`[A-Za-z_][A-Za-z0-9_]*`): most often the key itself. `place` is
/// how the key is named (`[llm] api_key_env`); the value is never shown.
pub fn env_name_invalid(place: &str, example: &str) -> String {
    format!(
        "{place} must name an environment variable (like {example}), not hold the key: move the key into a variable and name it here."
    )
}

/// Warning: the key's variable is not set, so the agent has no LLM.
pub fn key_env_unset(variable: &str, provider: &str) -> String {
    format!(
        "[llm] the environment variable {variable} is not set, so the agent runs without an LLM (the offline screen mode). Set {variable} to your {provider} key to use the LLM."
    )
}

/// Warning: the key's variable is set but empty, so the agent has no LLM.
///
/// Example: `[llm] the environment variable OPENAI_API_KEY is set but empty, so the agent runs
/// without an LLM (the offline screen mode). Put your OpenAI key in OPENAI_API_KEY to use the
/// LLM.`
pub fn key_env_empty(variable: &str, provider: &str) -> String {
    format!(
        "[llm] the environment variable {variable} is set but empty, so the agent runs without an LLM (the offline screen mode). Put your {provider} key in {variable} to use the LLM."
    )
}

/// `base_url` is not a URL.
pub fn bad_base_url(url: &str, why: &str) -> String {
    format!("[llm] base_url {url} is not a URL ({why}). Write it like https://api.openai.com/v1.")
}

/// Warning: `[ui] model` with the local classifier, which uses no LLM.
///
/// Example: `[ui] model gpt-4.1-mini is unused: the UI worker's classifier is the local one.
/// Set classifier = "llm" to answer screen questions with that model, or remove model.`
pub fn ui_model_unused(model: &str) -> String {
    format!(
        "[ui] model {model} is unused: the UI worker's classifier is the local one. Set classifier = \"llm\" to answer screen questions with that model, or remove model."
    )
}

/// The system prompt is empty.
pub fn empty_system_prompt() -> String {
    "system_prompt is empty. Write what the agent is for and how it speaks.".to_string()
}

/// `[ui] system_prompt` set but blank.
pub fn empty_ui_system_prompt() -> String {
    "[ui] system_prompt is empty. Write how the UI worker answers questions about the screen, \
     or leave the key out."
        .to_string()
}

/// A tool of the file named like one of the UI worker's tools (`screen`, `ask_screen`), which
/// every session adds while `[ui] worker` is on.
///
/// Example: `the tool name screen is the UI worker's own tool, which every session adds. Give
/// your tool another name, or set [ui] worker = false.`
pub fn screen_tool_name_taken(name: &str) -> String {
    format!(
        "the tool name {name} is the UI worker's own tool, which every session adds. Give your tool another name, or set [ui] worker = false."
    )
}

/// Warning: `[tools] goodbye` without `end_call` among the built-in tools, which is what says it.
pub fn goodbye_unused() -> String {
    "[tools] goodbye is unused: only the built-in end_call says it. Add \"end_call\" to [tools] builtin, or remove goodbye.".to_string()
}

/// A built-in tool that does not exist.
pub fn unknown_builtin(name: &str) -> String {
    format!(
        "[tools] builtin {name} is not a built-in tool. The built-in tools are: {}.",
        BUILTIN_TOOLS.join(", ")
    )
}

/// `current_datetime` without a timezone.
pub fn datetime_needs_timezone() -> String {
    "[tools] builtin current_datetime needs the agent's timezone. Set timezone = \"Europe/Madrid\" (your business's zone) at the top of the file.".to_string()
}

/// A local tool the host program does not provide.
pub fn unknown_local(name: &str, catalogue: &[String]) -> String {
    if catalogue.is_empty() {
        format!(
            "[tools] local {name} is not a tool of this program: it provides no local tools. Remove {name}, or run the file with the program that provides it."
        )
    } else {
        format!(
            "[tools] local {name} is not a tool of this program. Its local tools are: {}.",
            catalogue.join(", ")
        )
    }
}

/// A top-level reply row without its tool.
pub fn reply_without_tool() -> String {
    "a [[reply]] row names no tool. Add tool = \"<the tool whose result it says>\", or move it under its [[webhook]].".to_string()
}

/// A `${NAME}` placeholder whose value is not set.
pub fn placeholder_unset(place: &str, name: &str) -> String {
    format!(
        "{place} names ${{{name}}}, which is not set. Set the environment variable {name}, or run the file with a program that passes it."
    )
}

/// A `${` that does not close, or an empty or badly spelled name.
pub fn placeholder_malformed(place: &str) -> String {
    format!(
        "{place} has a ${{ that is not a placeholder. Write ${{NAME}} with capital letters, digits and _, or remove the $."
    )
}

/// Warning: a webhook's credential variable is not set.
pub fn auth_env_unset(tool: &str, variable: &str) -> String {
    format!(
        "webhook {tool}: the environment variable {variable} is not set, so every call fails with \"could not authenticate\" until it is. Set {variable}."
    )
}

/// `api_key` auth without a header.
pub fn api_key_needs_header(tool: &str) -> String {
    format!(
        "webhook {tool}: auth kind = \"api_key\" needs header = \"X-API-Key\" (the header that carries the key)."
    )
}

/// Warning: a fixed `headers` entry that carries a credential (`Authorization`, `X-Api-Key`, …)
/// while `auth` is the place for one: the credential then sits in the file or a `${NAME}` fill,
/// outside the webhook's authentication (no "could not authenticate" when it is missing).
///
/// Example: `webhook crm: headers X-Api-Key carries a credential. Put it in auth instead:
/// auth = { kind = "api_key", header = "X-Api-Key", env = "CRM_KEY" } …`.
pub fn credential_in_headers(tool: &str, header: &str) -> String {
    let auth = if header.eq_ignore_ascii_case("authorization") {
        "auth = { kind = \"bearer\", env = \"NAME\" } for Authorization: Bearer <token>".to_string()
    } else {
        format!("auth = {{ kind = \"api_key\", header = \"{header}\", env = \"NAME\" }}")
    };
    format!(
        "webhook {tool}: headers {header} carries a credential. Put it in auth instead: {auth}, \
         with NAME the environment variable that holds it, so that a missing key is reported as \
         \"could not authenticate\"."
    )
}

/// Warning: `api_key` auth whose header is `Authorization`, which sends the bare key; a service
/// that reads `Authorization` most often wants `Bearer <token>`, which is `kind = "bearer"`.
///
/// Example: `webhook crm: auth kind = "api_key" with header = "Authorization" sends the bare key
/// (Authorization: <key>), without "Bearer ". For Authorization: Bearer <key>, write kind =
/// "bearer" and remove header; keep api_key only if your service takes the bare key.`
pub fn api_key_in_authorization(tool: &str) -> String {
    format!(
        "webhook {tool}: auth kind = \"api_key\" with header = \"Authorization\" sends the bare key (Authorization: <key>), without \"Bearer \". For Authorization: Bearer <key>, write kind = \"bearer\" and remove header; keep api_key only if your service takes the bare key."
    )
}

/// `bearer` auth with a header.
pub fn bearer_with_header(tool: &str) -> String {
    format!(
        "webhook {tool}: auth kind = \"bearer\" always sends Authorization. Remove header, or use kind = \"api_key\"."
    )
}

/// A timeout that is not a positive number of seconds.
pub fn bad_timeout(tool: &str, seconds: f64) -> String {
    format!(
        "webhook {tool}: timeout = {seconds} is not a number of seconds above 0. Write e.g. timeout = 5."
    )
}

/// The model sent a `date`, `time` or `date-time` input that does not parse (checked when the
/// tool is called): the tool layer's own words, so a webhook and a Rust tool read alike
/// ([`hark_tools::messages::not_a_date`] and its siblings).
pub use hark_tools::messages::{not_a_date, not_a_date_time, not_a_time};

/// A field's `values` list is empty: no value could ever be sent.
///
/// Example: `webhook book: input party: values is empty, so no value fits. List the values
/// (values = ["inside", "outside"]), or remove values.`
pub fn field_values_empty(place: &str) -> String {
    format!(
        "{place}: values is empty, so no value fits. List the values (values = [\"inside\", \"outside\"]), or remove values."
    )
}

/// A key of a field that its type does not have.
pub fn field_key_needs_type(place: &str, key: &str, types: &str) -> String {
    format!("{place}: {key} belongs to type {types}. Change the type, or remove {key}.")
}

/// A `min` above the `max`.
pub fn min_above_max(place: &str) -> String {
    format!("{place}: min is above max. Swap them.")
}

/// A top-level assign row without its tool.
pub fn assign_without_tool(variable: &str) -> String {
    format!(
        "an [[assign]] row for the State value {variable} names no tool. Add tool = \"<the tool whose result it saves>\"."
    )
}

/// A top-level `[[assign]]` or `[[reply]]` row (`table`) naming a tool the file does not have;
/// `tools` are the file's tools in file order (empty: it has none).
pub fn row_unknown_tool(table: &str, tool: &str, tools: &[String]) -> String {
    if tools.is_empty() {
        format!(
            "{table} names the tool {tool}, but the file has no tools. Add {tool} under [tools] or as a [[webhook]], or remove the row."
        )
    } else {
        format!(
            "{table} names the tool {tool}, which the file does not have. Use one of: {}.",
            tools.join(", ")
        )
    }
}

/// A top-level `[[reply]]` row on a tool that ends the call (`end_call`, or a local tool with
/// `ends_conversation`).
pub fn reply_on_ending_tool(tool: &str) -> String {
    let goodbye = if tool == "end_call" {
        "end_call says [tools] goodbye before it hangs up"
    } else {
        "say the goodbye in the tool's own announce line, with announce_wait"
    };
    format!(
        "[[reply]] on {tool}: {tool} ends the call, so a reply on it is refused: the call is over before the line could play. Remove the row; {goodbye}."
    )
}

/// A webhook's own assign row that names another tool.
pub fn own_assign_names_other(tool: &str, other: &str) -> String {
    format!(
        "webhook {tool}: an assign row here saves this tool's result, not {other}'s. Remove tool = \"{other}\", or move the row to a top-level [[assign]]."
    )
}

/// A value in `when` or `state` that JSON cannot hold (a TOML date).
pub fn condition_value(place: &str, field: &str) -> String {
    format!(
        "{place}: a value for {field} is not text, a number or true/false. Write it as text, like \"2026-10-16\"."
    )
}

/// The LLM classifier without an `[llm]` section.
pub fn llm_classifier_without_llm() -> String {
    "[ui] classifier = \"llm\" needs an [llm] section for its provider. Add one, or use classifier = \"local\".".to_string()
}

/// Warning: the LLM classifier falls back to the local one while the key is unset.
pub fn llm_classifier_falls_back(variable: &str) -> String {
    format!(
        "[ui] classifier = \"llm\" uses the local classifier while {variable} is not set. Set {variable} to use the LLM classifier."
    )
}

/// A problem of the State fields as a whole.
pub fn state_problem(why: &str) -> String {
    format!("[state] {why}. Check the types of the State values.")
}

/// `[flow] instructions` set: in an agent file the system prompt is what every step reads.
pub fn flow_instructions() -> String {
    "[flow] instructions: in an agent file the model reads system_prompt in every step. Move this text into system_prompt, and write what each step is for in its own instructions.".to_string()
}

/// A problem the flow's build-time checks found ([`crate::flow::Flow::build`]), as the file
/// shows it.
pub fn in_flow(problem: &str) -> String {
    format!("[flow] {problem}")
}

/// A step's `saves` names a value the file's `[state]` does not declare.
pub fn flow_saves_unknown(step: &str, value: &str, state: &[String]) -> String {
    let known = if state.is_empty() {
        "the file declares none".to_string()
    } else {
        format!("the file declares {}", state.join(", "))
    };
    format!(
        "[flow] step {step}: saves names {value}, which is not a State value ({known}). Declare it with a [state.{value}] table, or remove it from saves."
    )
}

/// `hark check`'s words for a file's flow: `flow of 2 steps from booking`.
pub fn check_flow(steps: usize, first: &str) -> String {
    let noun = if steps == 1 { "step" } else { "steps" };
    format!("flow of {steps} {noun} from {first}")
}

/// `hark check`'s line for a clean file; `flow` is [`check_flow`]'s text when the file has a
/// flow.
pub fn check_summary(
    path: &str,
    tools: usize,
    llm: &str,
    ui: &str,
    flow: Option<&str>,
    speech: Option<&str>,
    warnings: usize,
) -> String {
    let warnings = match warnings {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    let noun = if tools == 1 { "tool" } else { "tools" };
    let flow = flow.map(|f| format!(", {f}")).unwrap_or_default();
    let speech = speech.map(|s| format!(", {s}")).unwrap_or_default();
    format!("{path}: ok, {tools} {noun}, LLM {llm}, UI worker {ui}{flow}{speech}{warnings}")
}

/// Warning: a template reads a `{{call.name}}` value the calls that run the file never carry
/// (`carried`: the ones they do), so every call that reads it is refused.
/// `serve`: the carried values are `hark serve`'s.
///
/// Example: `webhook lookup: locked phone reads {{call.remote_number}}, which hark serve's calls
/// never carry (they carry call.session_id only), so every call that reads it is refused. Read
/// call.session_id instead, or run the agent from a program whose calls carry
/// call.remote_number.`
pub fn call_value_not_carried(place: &str, name: &str, carried: &[String], serve: bool) -> String {
    let whose = if serve {
        "hark serve's calls"
    } else {
        "this program's calls"
    };
    let listed: Vec<String> = carried.iter().map(|c| format!("call.{c}")).collect();
    let (they, instead) = match listed.as_slice() {
        [] => ("they carry none".to_string(), "Remove it".to_string()),
        [one] => (
            format!("they carry {one} only"),
            format!("Read {one} instead"),
        ),
        more => (
            format!("they carry {}", more.join(", ")),
            "Read one of those instead".to_string(),
        ),
    };
    format!(
        "{place} reads {{{{call.{name}}}}}, which {whose} never carry ({they}), so every call that reads it is refused. {instead}, or run the agent from a program whose calls carry call.{name}."
    )
}

/// Warning: the built-in `user_phone_number` where the calls carry no caller number: it would
/// always answer that the number is unknown.
///
/// Example: `[tools] builtin user_phone_number reads call.remote_number, which hark serve's calls
/// never carry (they carry call.session_id only), so it always answers that the number is
/// unknown. Ask the caller for their number instead, or run the agent from a program whose calls
/// carry call.remote_number.`
pub fn phone_number_not_carried(carried: &[String], serve: bool) -> String {
    let whose = if serve {
        "hark serve's calls"
    } else {
        "this program's calls"
    };
    let listed: Vec<String> = carried.iter().map(|c| format!("call.{c}")).collect();
    let they = match listed.as_slice() {
        [] => "they carry none".to_string(),
        [one] => format!("they carry {one} only"),
        more => format!("they carry {}", more.join(", ")),
    };
    format!(
        "[tools] builtin user_phone_number reads call.remote_number, which {whose} never carry ({they}), so it always answers that the number is unknown. Ask the caller for their number instead, or run the agent from a program whose calls carry call.remote_number."
    )
}

/// Warning: a `{{…}}` in a webhook `url` or `headers` value, where nothing fills it.
///
/// Example: `webhook lookup: url holds {{…}}, which nothing fills there: it is sent as written.
/// Send the value as a locked argument (locked = { session = "{{call.session_id}}" }), or write
/// ${NAME} for a fixed value.`
pub fn template_not_filled(place: &str) -> String {
    format!(
        "{place} holds {{{{…}}}}, which nothing fills there: it is sent as written. Send the value as a locked argument (locked = {{ session = \"{{{{call.session_id}}}}\" }}), or write ${{NAME}} for a fixed value."
    )
}

/// Warning: a line key with no variant for the file's language, in a file whose other lines
/// have one: a call in that language would hear this line in its default
/// words. `variants_key` is the key of its variants (`say_in`), `primary` the language's primary
/// subtag (`es`).
///
/// Example: `[[reply]] say has no variant for es-ES, the file's language, though other lines
/// have one: a call in es-ES hears this line in its default words. Add say_in.es beside it.`
pub fn line_without_language(
    place: &str,
    language: &str,
    variants_key: &str,
    primary: &str,
) -> String {
    format!(
        "{place} has no variant for {language}, the file's language, though other lines have one: a call in {language} hears this line in its default words. Add {variants_key}.{primary} beside it."
    )
}

/// Warning: a local tool's own lines (`what`: "reply lines", "announce lines") have no variant
/// for the file's language, in a file whose other lines have one.
///
/// Example: `[tools] local book_table: its reply lines have no variant for es-ES, the file's
/// language, though other lines have one: a call in es-ES hears them in their default words.
/// Give them one in the program (ToolReply::say_in, ToolSpec::announce_in).`
pub fn local_lines_without_language(tool: &str, what: &str, language: &str) -> String {
    format!(
        "[tools] local {tool}: its {what} have no variant for {language}, the file's language, though other lines have one: a call in {language} hears them in their default words. Give them one in the program (ToolReply::say_in, ToolSpec::announce_in)."
    )
}

/// A tool the file's provider cannot be offered: `problems` are the dialect's
/// breaks (`/`-pointer first), `fixes` what to change ([`give_items`], [`give_fields`], …).
pub fn tool_not_offered(
    tool: &str,
    provider: &str,
    dialect: &str,
    problems: &str,
    fixes: &str,
) -> String {
    format!(
        "tool {tool} cannot be offered to {provider}: its input cannot be written in the {dialect} dialect ({problems}). To fix: {fixes}. As it is, hark serve leaves {tool} out of every request."
    )
}

/// The fix for a list input without an item type.
pub fn give_items(field: &str) -> String {
    format!("give {field} an items type")
}

/// The fix for an object input without fields.
pub fn give_fields(field: &str) -> String {
    format!("give {field} fields")
}

/// The fix for another break inside one input.
pub fn change_field(field: &str) -> String {
    format!("change the type of {field}")
}

/// The fix for a break of the input as a whole.
pub fn change_input() -> String {
    "change the tool's input".to_string()
}
