//! One `[[webhook]]` of an agent file built into its tool, with every problem of the webhook at
//! once, in file order, each on the line of the key it is about.
//!
//! - An unset `${NAME}`, a bad `auth`, a bad `timeout` or a field key of another type does not
//!   hide the URL's problems: the webhook is still built (without the part that failed) so the
//!   URL is checked too.
//! - Each locked value and each announce line is first checked alone, on a stand-in of the tool
//!   (same name, parameters and output; it never runs): a value or line with a problem is
//!   reported on its own line and left out, so it does not hide the others.
//! - A webhook with a problem still gives the registry a stand-in to check ([`Webhook::check`]),
//!   so the State paths of its locked values, its announce lines' values and its rows are
//!   checked in the same pass.

use std::sync::Arc;
use std::time::Duration;

use hark_tools::{Interruption, Output, ToolReply, ToolSpec};
use hark_webhook::{
    Method, NetworkGuard, WebhookAuth, WebhookClient, WebhookToolBuilder, webhook_tool,
};
use serde_json::{Value, json};

use super::build::{Found, allowed_address, is_env_name, to_reply};
use super::fields;
use super::host::Host;
use super::messages;
use super::toml_shape::{AuthKind, InterruptionFormat, MethodFormat, WebhookFormat};
use super::typed_inputs::FormatChecked;

/// The URL of a stand-in: a public https address (no webhook is ever sent to it).
const STAND_IN_URL: &str = "https://hark-check.invalid/";

/// A webhook as the file builds it.
pub(super) struct Webhook {
    /// The tool the agent runs; `None` when the webhook has any problem.
    pub tool: Option<ToolSpec>,
    /// The tool the registry's checks run on: [`Webhook::tool`], or for a webhook with a
    /// problem a stand-in (same name, parameters, output, its clean locked values, announce
    /// lines and replies) that never runs; `None` when even that cannot be built.
    pub check: Option<ToolSpec>,
    /// The stand-in without locked values, announce lines or replies (its parameters hold the
    /// locked names): a row or line alone is checked on it to find the problem's line.
    pub base: Option<ToolSpec>,
    /// Each clean locked value as a stand-in holding it alone, with the value's line.
    pub locked: Vec<(ToolSpec, Option<usize>)>,
    /// Each clean announce line with its line in the file.
    pub announce: Vec<(String, Option<usize>)>,
}

/// `parameters` with a property (no type) for each locked name it does not have, as the
/// webhook builder adds them: a stand-in's parameters then list the same names.
fn with_locked_names<'a>(parameters: &Value, names: impl Iterator<Item = &'a String>) -> Value {
    let mut parameters = parameters.clone();
    if let Some(Value::Object(properties)) = parameters.get_mut("properties") {
        for name in names {
            properties.entry(name.clone()).or_insert_with(|| json!({}));
        }
    }
    parameters
}

/// What every build of the webhook shares: its method, parameters, output and private-network
/// rule.
fn common(
    w: &WebhookFormat,
    name: &str,
    url: &str,
    parameters: &Value,
    output: Option<&Output>,
) -> WebhookToolBuilder {
    let builder = webhook_tool(name.to_string(), w.description.clone(), url.to_string())
        .method(match w.method.unwrap_or(MethodFormat::Post) {
            MethodFormat::Get => Method::Get,
            MethodFormat::Post => Method::Post,
            MethodFormat::Put => Method::Put,
            MethodFormat::Patch => Method::Patch,
            MethodFormat::Delete => Method::Delete,
        })
        .parameters(parameters.clone())
        .wait_for_response(!w.background)
        .allow_private_network(w.allow_private_network);
    match output {
        Some(output) => builder.output_json(output.clone()),
        None if w.background => builder.output_accepted(),
        None => builder.output_done(),
    }
}

/// A stand-in of the webhook holding these locked values: built like the webhook, at
/// [`STAND_IN_URL`]; a background webhook's stand-in reads "accepted" (its real build reports
/// an output that does not fit).
fn stand_in(
    w: &WebhookFormat,
    name: &str,
    parameters: &Value,
    output: Option<&Output>,
    locked: &[(&String, &String)],
) -> Result<ToolSpec, Vec<String>> {
    let output = output.filter(|_| !w.background);
    let mut builder = common(w, name, STAND_IN_URL, parameters, output);
    for (parameter, template) in locked {
        builder = builder.locked((*parameter).clone(), template.as_str());
    }
    builder.build().map_err(|error| error.problems)
}

/// The webhook's words for a problem of the tool layer or the webhook builder.
fn said(name: &str, problem: &str) -> String {
    if problem.starts_with(&format!("{name}:")) {
        format!("webhook {problem}")
    } else {
        format!("webhook {name}: {problem}")
    }
}

/// `a` without one copy of each text of `b`.
pub(super) fn minus(mut a: Vec<String>, b: &[String]) -> Vec<String> {
    for text in b {
        if let Some(i) = a.iter().position(|t| t == text) {
            a.remove(i);
        }
    }
    a
}

/// The webhook `tool` with its `date`, `time`, `date-time` and `phone` inputs checked when the
/// model calls it ([`FormatChecked`]); as it is when it has none.
fn with_checked_formats(
    tool: ToolSpec,
    w: &WebhookFormat,
    locked: &[(&String, &String)],
) -> Result<ToolSpec, Vec<String>> {
    let Some(executor) = FormatChecked::wrap(tool.executor().clone(), &w.input) else {
        return Ok(tool);
    };
    let checked = ToolSpec::new(
        tool.name(),
        w.description.clone(),
        tool.parameters().clone(),
        tool.output().clone(),
        Arc::new(executor),
    );
    let checked = if locked.is_empty() {
        checked
    } else {
        checked.and_then(|spec| {
            spec.locked(
                locked
                    .iter()
                    .map(|(parameter, template)| ((*parameter).clone(), template.as_str())),
            )
        })
    };
    checked.map_err(|error| error.problems)
}

/// A webhook's clean announce lines: the default ones and the variants, (language, line) in
/// file order (grouped by language, as the file's tables are).
struct Lines<'a> {
    default: &'a [String],
    by_language: &'a [(String, String)],
}

/// The tool's own settings after its build: announce lines, wait, interruption, result
/// display, its own replies.
fn finish(
    tool: ToolSpec,
    w: &WebhookFormat,
    announce: &Lines<'_>,
    own: &[ToolReply],
) -> Result<ToolSpec, Vec<String>> {
    let mut tool = tool
        .announce(announce.default)
        .map_err(|error| error.problems)?;
    let mut languages: Vec<&String> = announce.by_language.iter().map(|(l, _)| l).collect();
    languages.dedup();
    for language in languages {
        let said = announce
            .by_language
            .iter()
            .filter(|(l, _)| l == language)
            .map(|(_, text)| text);
        tool = tool
            .announce_in(language.clone(), said)
            .map_err(|error| error.problems)?;
    }
    let mut tool = tool
        .announce_wait(w.announce_wait)
        .interruption(match w.interruption {
            None | Some(InterruptionFormat::ProviderDefault) => Interruption::ProviderDefault,
            Some(InterruptionFormat::Continue) => Interruption::Continue,
            Some(InterruptionFormat::Cancel) => Interruption::Cancel,
        })
        .show_result(w.show_result.unwrap_or(true))
        .replies(own.to_vec());
    if let Some(instructions) = &w.result_instructions {
        tool = tool.result_instructions(instructions.clone());
    }
    Ok(tool)
}

/// Builds one webhook; every problem is recorded in `found`.
pub(super) fn build(w: &WebhookFormat, host: &Host, found: &mut Found<'_>) -> Webhook {
    let name = w.name.get_ref().clone();
    let line = found.line(&w.name);
    let before = found.errors.len();
    let url = found.fill(&w.url, &format!("webhook {name}: url"), host);

    let mut problems = Vec::new();
    let parameters = fields::parameters(&w.input, &format!("webhook {name}: input"), &mut problems);
    let output = (!w.output.is_empty()).then(|| {
        let schema = fields::output(&w.output, &format!("webhook {name}: output"), &mut problems);
        Output::json(fields::output_name(&name), schema)
    });
    for problem in problems {
        found.error(line, problem);
    }
    let timeout = match w.timeout {
        None => None,
        Some(seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(duration) if !duration.is_zero() => Some(duration),
            _ => {
                found.error(line, messages::bad_timeout(&name, seconds));
                None
            }
        },
    };
    let auth = auth(w, &name, found);
    for (header, value) in &w.headers {
        // `Authorization` beside `auth` is the builder's error; every other credential header
        // is a warning: it works, but outside the webhook's authentication.
        let beside_auth = auth.is_some() && header.eq_ignore_ascii_case("authorization");
        if is_credential_header(header) && !beside_auth {
            let at = found.line(value);
            found.warning(at, messages::credential_in_headers(&name, header));
        }
    }
    let headers: Vec<(String, String)> = w
        .headers
        .iter()
        .filter_map(|(header, value)| {
            let place = format!("webhook {name}: headers {header}");
            found.fill(value, &place, host).map(|v| (header.clone(), v))
        })
        .collect();

    // Each locked value and announce line alone, on stand-ins.
    let all_parameters = with_locked_names(&parameters, w.locked.keys());
    let base = stand_in(w, &name, &all_parameters, output.as_ref(), &[]).ok();
    let mut clean_locked: Vec<(&String, &String)> = Vec::new();
    let mut locked = Vec::new();
    let mut announce = Vec::new();
    // Clean announce variants: (language, line), and each with its line in the file.
    let mut announce_in: Vec<(String, String)> = Vec::new();
    let mut announce_at: Vec<(String, Option<usize>)> = Vec::new();
    if let Some(base) = &base {
        for (parameter, template) in &w.locked {
            let at = found.line(template);
            let entry = [(parameter, template.get_ref())];
            match stand_in(w, &name, &all_parameters, output.as_ref(), &entry) {
                Ok(tool) => {
                    clean_locked.push(entry[0]);
                    locked.push((tool, at));
                }
                Err(problems) => {
                    for problem in problems {
                        found.error(at, said(&name, &problem));
                    }
                }
            }
        }
        for (language, lines) in &w.announce_in {
            for text in lines {
                let at = found.line(text);
                match base.clone().announce([text.get_ref()]) {
                    Ok(_) => {
                        announce_in.push((language.clone(), text.get_ref().clone()));
                        announce_at.push((text.get_ref().clone(), at));
                    }
                    Err(error) => {
                        for problem in error.problems {
                            found.error(at, said(&name, &problem));
                        }
                    }
                }
            }
        }
        for text in &w.announce {
            let at = found.line(text);
            match base.clone().announce([text.get_ref()]) {
                Ok(_) => announce.push((text.get_ref().clone(), at)),
                Err(error) => {
                    for problem in error.problems {
                        found.error(at, said(&name, &problem));
                    }
                }
            }
        }
    } else {
        // The stand-in is refused (its name or schema): the real build says why, and the
        // locked values and lines are checked with it.
        clean_locked = w.locked.iter().map(|(k, v)| (k, v.get_ref())).collect();
        announce = w
            .announce
            .iter()
            .map(|text| (text.get_ref().clone(), found.line(text)))
            .collect();
        for (language, lines) in &w.announce_in {
            for text in lines {
                announce_in.push((language.clone(), text.get_ref().clone()));
            }
        }
    }
    let lines: Vec<String> = announce.iter().map(|(text, _)| text.clone()).collect();
    let lines = Lines {
        default: &lines,
        by_language: &announce_in,
    };
    // The registry's checks find a variant's problem on its line, like an announce line's.
    announce.extend(announce_at);
    let mut own = Vec::new();
    for row in &w.reply {
        if let Some(mut reply) = to_reply(row, &format!("webhook {name}"), found) {
            reply.tool = row.get_ref().tool.clone();
            own.push(reply);
        }
    }

    // The webhook itself, with its URL (when its placeholders are filled).
    let mut tool = None;
    if let Some(url) = url {
        let mut builder = common(w, &name, &url, &parameters, output.as_ref());
        if let Some(timeout) = timeout {
            builder = builder.timeout(timeout);
        }
        if let Some(auth) = auth {
            builder = builder.auth(auth);
        }
        for (header, value) in &headers {
            builder = builder.header(header.clone(), value.clone());
        }
        for (parameter, template) in &clean_locked {
            builder = builder.locked((*parameter).clone(), template.as_str());
        }
        let mut client_ok = true;
        if let Some(addr) = allowed_address(&url, host).filter(|_| !w.allow_private_network) {
            // The host's own service on loopback: a guard that allows exactly this address.
            match WebhookClient::new(NetworkGuard::new().allow_address(addr)) {
                Ok(client) => builder = builder.client(client),
                Err(why) => {
                    found.error(line, format!("webhook {name}: {why}"));
                    client_ok = false;
                }
            }
        }
        if client_ok {
            let built = builder
                .build()
                .map_err(|error| error.problems)
                .and_then(|tool| with_checked_formats(tool, w, &clean_locked))
                .and_then(|tool| finish(tool, w, &lines, &own));
            match built {
                Ok(built) => tool = Some(built),
                Err(problems) => {
                    for problem in problems {
                        let header_at = w
                            .headers
                            .iter()
                            .find(|(header, _)| is_about_header(&name, header, &problem))
                            .map(|(_, value)| found.line(value));
                        let at = w
                            .locked
                            .iter()
                            .find(|(parameter, _)| {
                                problem
                                    == hark_webhook::messages::get_query_clash(
                                        &name, "locked", parameter,
                                    )
                            })
                            .map_or(line, |(_, template)| found.line(template));
                        let at = header_at.unwrap_or(at);
                        found.error(at, said(&name, &problem));
                    }
                }
            }
        }
    }

    if found.errors.len() > before {
        // A stand-in with the clean parts, for the registry's checks.
        let check = stand_in(w, &name, &all_parameters, output.as_ref(), &clean_locked)
            .ok()
            .and_then(|tool| finish(tool, w, &lines, &own).ok());
        return Webhook {
            tool: None,
            check,
            base,
            locked,
            announce,
        };
    }
    Webhook {
        check: tool.clone(),
        tool,
        base,
        locked,
        announce,
    }
}

/// Header names that carry a credential: `Authorization`, `Proxy-Authorization`, and names
/// with `api-key`, `apikey`, `token` or `secret` in them (`X-Api-Key`, `X-Auth-Token`).
fn is_credential_header(header: &str) -> bool {
    let lower = header.to_ascii_lowercase();
    lower == "authorization"
        || lower == "proxy-authorization"
        || ["api-key", "api_key", "apikey", "token", "secret"]
            .iter()
            .any(|word| lower.contains(word))
}

/// True when `problem` is the webhook builder's problem about the fixed header `header`.
fn is_about_header(tool: &str, header: &str, problem: &str) -> bool {
    use hark_webhook::messages as m;
    [
        m::authorization_with_auth(tool, header),
        m::header_reserved(tool, header),
        m::header_invalid(tool, header),
    ]
    .iter()
    .any(|text| text == problem)
}

/// The webhook's credential, or `None` (with the problem recorded) when `[webhook.auth]` is
/// wrong; an unset variable is a warning.
fn auth(w: &WebhookFormat, name: &str, found: &mut Found<'_>) -> Option<WebhookAuth> {
    let auth = w.auth.as_ref()?;
    let variable = auth.env.get_ref().clone();
    let line = found.line(&auth.env);
    if !is_env_name(&variable) {
        let place = format!("webhook {name}: auth env");
        found.error(line, messages::env_name_invalid(&place, "CRM_TOKEN"));
        return None;
    }
    if std::env::var(&variable).map_or(true, |v| v.is_empty()) {
        found.warning(line, messages::auth_env_unset(name, &variable));
    }
    match (auth.kind, &auth.header) {
        (AuthKind::Bearer, None) => Some(WebhookAuth::bearer(variable)),
        (AuthKind::Bearer, Some(header)) => {
            let line = found.line(header);
            found.error(line, messages::bearer_with_header(name));
            None
        }
        (AuthKind::ApiKey, Some(header)) => {
            if header.get_ref().eq_ignore_ascii_case("authorization") {
                let line = found.line(header);
                found.warning(line, messages::api_key_in_authorization(name));
            }
            Some(WebhookAuth::api_key(variable, header.get_ref().clone()))
        }
        (AuthKind::ApiKey, None) => {
            found.error(line, messages::api_key_needs_header(name));
            None
        }
    }
}
