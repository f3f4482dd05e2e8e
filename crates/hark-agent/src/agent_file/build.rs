//! Building an agent file into the parts a call needs: every check at once.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use hark_llm::{Anthropic, Gemini, HttpOptions, OpenAiCompatible, Provider, Roles};
use hark_tools::{
    Assign, StateModel, ToolRegistry, ToolReply, ToolSpec, current_datetime_tool, end_call_tool,
    user_phone_number_tool,
};
use serde_json::{Map, Value, json};
use toml::Spanned;

use super::dialect_check;
use super::fields::{self, Nullable};
use super::flow;
use super::host::Host;
use super::messages;
use super::placeholders::{Unfilled, fill};
use super::problem::{FileProblems, Problem};
use super::registry_lines::{self, Source};
use super::speech;
use super::toml_shape::{AssignFormat, ClassifierKind, ProviderKind, ReplyFormat, RolesKind};
use super::webhook;
use super::{AgentFile, AgentSetup, ClassifierChoice, LlmChoice, UiSettings};

/// The language when the file sets none.
pub(crate) const DEFAULT_LANGUAGE: &str = "en-US";

/// The errors and warnings found so far.
pub(super) struct Found<'f> {
    pub(super) file: &'f AgentFile,
    pub(super) errors: Vec<Problem>,
    pub(super) warnings: Vec<Problem>,
}

impl Found<'_> {
    pub(super) fn line<T>(&self, spanned: &Spanned<T>) -> Option<usize> {
        Some(self.file.line_at(spanned.span().start))
    }

    pub(super) fn error(&mut self, line: Option<usize>, text: impl Into<String>) {
        let text = messages::in_file_terms(&text.into());
        self.errors.push(Problem::error(line, text));
    }

    pub(super) fn warning(&mut self, line: Option<usize>, text: impl Into<String>) {
        let text = messages::in_file_terms(&text.into());
        self.warnings.push(Problem::warning(line, text));
    }

    /// `${NAME}` filled, or `None` with the problems recorded.
    pub(super) fn fill(
        &mut self,
        text: &Spanned<String>,
        place: &str,
        host: &Host,
    ) -> Option<String> {
        match fill(text.get_ref(), host) {
            Ok(filled) => Some(filled),
            Err(unfilled) => {
                let line = self.line(text);
                for u in unfilled {
                    let text = match u {
                        Unfilled::Unset(name) => messages::placeholder_unset(place, &name),
                        Unfilled::Malformed => messages::placeholder_malformed(place),
                    };
                    self.error(line, text);
                }
                None
            }
        }
    }
}

pub(crate) fn build(file: &AgentFile, host: &Host) -> Result<AgentSetup, FileProblems> {
    let f = file.format();
    let mut found = Found {
        file,
        errors: Vec::new(),
        warnings: Vec::new(),
    };

    // The call: prompt, language, timezone.
    if f.system_prompt.get_ref().trim().is_empty() {
        let line = found.line(&f.system_prompt);
        found.error(line, messages::empty_system_prompt());
    }
    // Both checked by hark_speak::locale, the one check every kind of agent shares.
    let language = match &f.language {
        Some(language) => match hark_speak::locale::language_tag(language.get_ref()) {
            Ok(tag) => tag,
            Err(e) => {
                let line = found.line(language);
                found.error(line, e.to_string());
                language.get_ref().clone()
            }
        },
        None => DEFAULT_LANGUAGE.to_string(),
    };
    let timezone = f.timezone.as_ref().map(|zone| {
        let name = zone.get_ref();
        if let Err(e) = hark_speak::locale::time_zone(name) {
            let line = found.line(zone);
            found.error(line, e.to_string());
        }
        name.clone()
    });

    // The State.
    let state = state_model(file, &mut found);

    // The tools, each source in turn; a tool that fails is remembered so its rows are skipped.
    let mut tools: Vec<ToolSpec> = Vec::new();
    let mut failed: BTreeSet<String> = BTreeSet::new();
    // Each tool as its pieces are checked, for the lines of the registry's problems.
    let mut sources: Vec<Source> = Vec::new();
    let source = |name: &str, line: Option<usize>, tool: &ToolSpec| Source {
        name: name.to_string(),
        line,
        base: Some(tool.clone()),
        locked: Vec::new(),
        announce: Vec::new(),
    };
    for name in &f.tools.builtin {
        let line = found.line(name);
        let built = match name.get_ref().as_str() {
            "current_datetime" => {
                let zone = match &timezone {
                    Some(zone) => zone.as_str(),
                    None => {
                        found.error(line, messages::datetime_needs_timezone());
                        "UTC"
                    }
                };
                // With no timezone, or one that is not IANA's (its own problem, on its line),
                // a stand-in in UTC keeps the rows and the flow that name the tool checked
                // without a second problem; the file fails either way.
                current_datetime_tool(zone)
                    .or_else(|_| current_datetime_tool("UTC"))
                    .ok()
            }
            "user_phone_number" => {
                let carried = host.call_values();
                if !carried.iter().any(|c| c == "remote_number") {
                    let serve = carried
                        .iter()
                        .map(String::as_str)
                        .eq(super::SERVE_CALL_VALUES.iter().copied());
                    found.warning(line, messages::phone_number_not_carried(&carried, serve));
                }
                user_phone_number_tool().ok()
            }
            "end_call" => {
                let goodbye = f
                    .tools
                    .goodbye
                    .as_ref()
                    .map_or("Goodbye!", |g| g.get_ref().as_str());
                match end_call_tool("End the call when the caller is done.", goodbye) {
                    Ok(mut tool) => {
                        for (language, line) in &f.tools.goodbye_in {
                            match tool.clone().announce_in(language.clone(), [line.get_ref()]) {
                                Ok(with) => tool = with,
                                Err(error) => {
                                    let at = found.line(line);
                                    for problem in error.problems {
                                        found.error(
                                            at,
                                            format!("[tools] goodbye_in {language}: {problem}"),
                                        );
                                    }
                                }
                            }
                        }
                        Some(tool)
                    }
                    Err(error) => {
                        for problem in error.problems {
                            found.error(line, format!("[tools] goodbye: {problem}"));
                        }
                        None
                    }
                }
            }
            other => {
                found.error(line, messages::unknown_builtin(other));
                None
            }
        };
        match built {
            Some(tool) => {
                sources.push(source(name.get_ref(), line, &tool));
                tools.push(tool);
            }
            None => {
                failed.insert(name.get_ref().clone());
            }
        }
    }
    if let Some(goodbye) = &f.tools.goodbye
        && !f.tools.builtin.iter().any(|b| b.get_ref() == "end_call")
    {
        let line = found.line(goodbye);
        found.warning(line, messages::goodbye_unused());
    }
    for name in &f.tools.local {
        match host.local_tool(name.get_ref()) {
            Some(tool) => {
                sources.push(source(name.get_ref(), found.line(name), tool));
                tools.push(tool.clone());
            }
            None => {
                let line = found.line(name);
                found.error(
                    line,
                    messages::unknown_local(name.get_ref(), &host.local_tool_names()),
                );
                failed.insert(name.get_ref().clone());
            }
        }
    }
    // A webhook with a problem gives the registry a stand-in (never run: the file fails), so
    // its rows, locked paths and lines are checked in the same pass.
    for w in &f.webhook {
        let built = webhook::build(w, host, &mut found);
        match built.tool.or(built.check) {
            Some(tool) => tools.push(tool),
            None => {
                failed.insert(w.name.get_ref().clone());
            }
        }
        sources.push(Source {
            name: w.name.get_ref().clone(),
            line: found.line(&w.name),
            base: built.base,
            locked: built.locked,
            announce: built.announce,
        });
    }

    // With the UI worker on, every session adds the screen tools: a tool of the file's own
    // by one of their names would stop each session from starting.
    if f.ui.worker {
        for source in &sources {
            if [hark_bus::names::SCREEN_TOOL, crate::ui::ASK_SCREEN_TOOL]
                .contains(&source.name.as_str())
            {
                found.error(source.line, messages::screen_tool_name_taken(&source.name));
            }
        }
    }

    // Assign rows and replies: the file's own, then each webhook's.
    // A top-level row naming a tool the file does not have is an error on the row's line (the
    // registry would report it with no line); the row is left out.
    // A row on a tool that failed is left out without a second problem; the fix a row's
    // problem suggests names only tools that were built (all the file's when none were).
    let built: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    let mut names = built.clone();
    names.extend(failed.iter().cloned());
    let known = |tool: &str| names.iter().any(|n| n == tool);
    let suggested = if built.is_empty() { &names } else { &built };
    let ends = |tool: &str| tools.iter().any(|t| t.name() == tool && t.ends_the_call());
    let mut assign: Vec<(String, Vec<Assign>)> = Vec::new();
    let mut replies: Vec<ToolReply> = Vec::new();
    for row in &f.assign {
        match &row.get_ref().tool {
            Some(tool) if !known(tool) => {
                let line = found.line(row);
                found.error(
                    line,
                    messages::row_unknown_tool("[[assign]]", tool, suggested),
                );
            }
            Some(tool) => assign.push((tool.clone(), vec![to_assign(row.get_ref())])),
            None => {
                let line = found.line(row);
                found.error(
                    line,
                    messages::assign_without_tool(row.get_ref().state.get_ref()),
                );
            }
        }
    }
    for row in &f.reply {
        match &row.get_ref().tool {
            Some(tool) if !known(tool) => {
                let line = found.line(row);
                found.error(
                    line,
                    messages::row_unknown_tool("[[reply]]", tool, suggested),
                );
            }
            Some(tool) if ends(tool) => {
                let line = found.line(row);
                found.error(line, messages::reply_on_ending_tool(tool));
            }
            Some(tool) => {
                if let Some(reply) = to_reply(row, tool, &mut found) {
                    replies.push(reply.tool(tool.clone()));
                }
            }
            None => {
                let line = found.line(row);
                found.error(line, messages::reply_without_tool());
            }
        }
    }
    for webhook in &f.webhook {
        let name = webhook.name.get_ref();
        for row in &webhook.assign {
            match &row.get_ref().tool {
                Some(other) if other != name => {
                    let line = found.line(row);
                    found.error(line, messages::own_assign_names_other(name, other));
                }
                _ => assign.push((name.clone(), vec![to_assign(row.get_ref())])),
            }
        }
    }
    assign.retain(|(tool, _)| !failed.contains(tool));
    replies.retain(|r| r.tool.as_ref().is_none_or(|t| !failed.contains(t)));

    // The registry: every row, locked path and template checked against the tools and State.
    let mut builder = ToolRegistry::builder(tools);
    if let Some(model) = state.clone() {
        builder = builder.state_model(model);
    }
    for (tool, rows) in assign {
        builder = builder.assign(tool, rows);
    }
    let registry = match builder.replies(replies).build() {
        Ok(registry) => Some(Arc::new(registry)),
        Err(error) => {
            // Each problem on the line of the key it is about.
            let mut lines = registry_lines::lines(&found, &sources, state.as_ref());
            for problem in error.problems {
                let line = lines.take(&problem);
                found.error(line, problem);
            }
            None
        }
    };

    // The flow, checked against the registry; its registry (with the flow's hints) is the
    // agent's.
    let flow = match (&f.flow, &registry) {
        (Some(spec), Some(built)) => flow::build(file, spec, built, &f.system_prompt, &mut found),
        _ => None,
    };
    let registry = match &flow {
        Some(flow) => Some(flow.registry()),
        None => registry,
    };

    // The LLM and the UI worker.
    // The `{{call.name}}` values the file reads that its calls never carry.
    super::call_values::check(&mut found, host);
    // Lines with no variant for the file's language, in a file that speaks it through variants.
    super::languages::check(&mut found, &language, host);

    let llm = llm_choice(file, host, &mut found);
    let tts = f
        .tts
        .as_ref()
        .and_then(|s| speech::tts_choice(s, &language, host, &mut found));
    let stt = f
        .stt
        .as_ref()
        .and_then(|s| speech::stt_choice(s, host, &language, &mut found));
    // Every tool (the flow's too) in the provider's dialect: one it cannot express is an error.
    if let (Some(section), Some(built)) = (&f.llm, &registry) {
        let flow_line = f.flow.as_ref().and_then(|spec| found.line(spec));
        dialect_check::check(
            &mut found,
            built,
            &sources,
            *section.provider.get_ref(),
            flow_line,
        );
    }
    let classifier_line = f.ui.classifier.as_ref().and_then(|c| found.line(c));
    let kind =
        f.ui.classifier
            .as_ref()
            .map_or(ClassifierKind::Local, |c| *c.get_ref());
    let classifier = match kind {
        ClassifierKind::Local => {
            if let Some(model) = &f.ui.model {
                let line = found.line(model);
                found.warning(line, messages::ui_model_unused(model.get_ref()));
            }
            ClassifierChoice::Local
        }
        ClassifierKind::Llm => match (&f.llm, &llm) {
            (None, _) => {
                found.error(classifier_line, messages::llm_classifier_without_llm());
                ClassifierChoice::Local
            }
            (Some(_), Some(choice)) => ClassifierChoice::Llm(LlmChoice {
                provider: choice.provider.clone(),
                model: f
                    .ui
                    .model
                    .as_ref()
                    .map_or_else(|| choice.model.clone(), |m| m.get_ref().clone()),
                kind: choice.kind,
            }),
            (Some(section), None) => {
                let variable = section
                    .api_key_env
                    .as_ref()
                    .map(|v| v.get_ref().clone())
                    .unwrap_or_default();
                found.warning(
                    classifier_line,
                    messages::llm_classifier_falls_back(&variable),
                );
                ClassifierChoice::Local
            }
        },
    };

    if let Some(prompt) = &f.ui.system_prompt
        && prompt.get_ref().trim().is_empty()
    {
        let line = found.line(prompt);
        found.error(line, messages::empty_ui_system_prompt());
    }

    let Found {
        mut errors,
        mut warnings,
        ..
    } = found;
    // In file order (a stable sort: one line's problems keep the order the checks found them);
    // problems with no line (the registry's) last.
    errors.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    warnings.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    match (registry, state, errors.is_empty()) {
        (Some(registry), Some(state), true) => Ok(AgentSetup {
            name: f.name.clone().unwrap_or_else(|| file.default_name()),
            system_prompt: f.system_prompt.get_ref().clone(),
            language,
            timezone,
            registry,
            state,
            llm,
            tts,
            stt,
            ui: UiSettings {
                worker: f.ui.worker,
                classifier,
                system_prompt: f.ui.system_prompt.as_ref().map(|p| p.get_ref().clone()),
                keep_history: f.ui.keep_history,
            },
            flow,
            warnings,
        }),
        _ => {
            // Errors and warnings together, in file order.
            let mut problems = errors;
            problems.extend(warnings);
            problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            Err(FileProblems { problems })
        }
    }
}

/// The State model of `[state]`: every value optional (`null` when unset).
fn state_model(file: &AgentFile, found: &mut Found<'_>) -> Option<StateModel> {
    let mut properties = Map::new();
    for (name, field) in &file.format().state {
        let mut problems = Vec::new();
        let place = format!("[state] {name}");
        let schema = fields::schema(field.get_ref(), &place, Nullable::Yes, &mut problems);
        let line = found.line(field);
        for problem in problems {
            found.error(line, problem);
        }
        properties.insert(name.clone(), schema);
    }
    let schema = json!({"type": "object", "properties": properties});
    match StateModel::from_schema("State", schema) {
        Ok(model) => Some(model),
        Err(why) => {
            found.error(None, messages::state_problem(&why));
            None
        }
    }
}

pub(super) fn to_assign(row: &AssignFormat) -> Assign {
    let path: Vec<String> = match &row.from {
        Some(from) if !from.get_ref().is_empty() => {
            from.get_ref().split('.').map(String::from).collect()
        }
        _ => Vec::new(),
    };
    Assign::new(row.state.get_ref().clone(), path)
}

/// A reply row as a [`ToolReply`] (without its tool); `None` when a value cannot be JSON.
pub(super) fn to_reply(
    row: &Spanned<ReplyFormat>,
    place: &str,
    found: &mut Found<'_>,
) -> Option<ToolReply> {
    let reply = row.get_ref();
    let mut out = ToolReply::say(
        reply
            .say
            .get_ref()
            .iter()
            .map(|line| line.get_ref().clone()),
    );
    for (language, lines) in &reply.say_in {
        out = out.say_in(
            language.clone(),
            lines.get_ref().iter().map(|line| line.get_ref().clone()),
        );
    }
    let mut ok = true;
    for (field, values) in &reply.when {
        match json_values(values.get_ref()) {
            Some(json) => out = out.when(field.clone(), json),
            None => {
                let line = found.line(values);
                found.error(line, messages::condition_value(place, field));
                ok = false;
            }
        }
    }
    for (value, values) in &reply.state {
        match json_values(values.get_ref()) {
            Some(json) => out = out.state(value.clone(), json),
            None => {
                let line = found.line(values);
                found.error(line, messages::condition_value(place, value));
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

pub(super) fn json_values(values: &[toml::Value]) -> Option<Vec<Value>> {
    values
        .iter()
        .map(|v| match v {
            toml::Value::String(s) => Some(json!(s)),
            toml::Value::Integer(i) => Some(json!(i)),
            toml::Value::Float(x) => Some(json!(x)),
            toml::Value::Boolean(b) => Some(json!(b)),
            _ => None,
        })
        .collect()
}

/// The exact `ip:port` of `url` when the host allows it.
pub(super) fn allowed_address(url: &str, host: &Host) -> Option<SocketAddr> {
    let url = url::Url::parse(url).ok()?;
    let ip: std::net::IpAddr = match url.host()? {
        url::Host::Ipv4(v4) => v4.into(),
        url::Host::Ipv6(v6) => v6.into(),
        url::Host::Domain(_) => return None,
    };
    let addr = SocketAddr::new(ip, url.port_or_known_default()?);
    host.allowed_addresses().contains(&addr).then_some(addr)
}

/// True when `name` looks like an environment variable name: `[A-Za-z_][A-Za-z0-9_]*`. A key
/// pasted where the name goes (`sk-proj-…`) does not.
pub(super) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The provider and model of `[llm]`, or `None` (with a warning) when its key is not set.
fn llm_choice(file: &AgentFile, host: &Host, found: &mut Found<'_>) -> Option<LlmChoice> {
    let section = file.format().llm.as_ref()?;
    if let Some(key) = &section.api_key {
        let line = found.line(key);
        found.error(line, messages::key_in_file());
    }
    let provider = *section.provider.get_ref();
    let (label, default_base, example) = match provider {
        ProviderKind::OpenaiCompatible => (
            "openai-compatible",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
        ),
        ProviderKind::Anthropic => (
            "anthropic",
            "https://api.anthropic.com/v1",
            "ANTHROPIC_API_KEY",
        ),
        ProviderKind::Gemini => (
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta",
            "GEMINI_API_KEY",
        ),
    };
    if let Some(roles) = &section.roles
        && provider != ProviderKind::OpenaiCompatible
    {
        let line = found.line(roles);
        found.error(line, messages::roles_not_for_provider(label));
        return None;
    }
    let base_url = match &section.base_url {
        Some(text) => {
            let filled = found.fill(text, "[llm] base_url", host)?;
            let line = found.line(text);
            match url::Url::parse(&filled) {
                Ok(url) if matches!(url.scheme(), "http" | "https") => filled,
                Ok(url) => {
                    let why = format!("the scheme {} is not http or https", url.scheme());
                    found.error(line, messages::bad_base_url(&filled, &why));
                    return None;
                }
                Err(error) => {
                    found.error(line, messages::bad_base_url(&filled, &error.to_string()));
                    return None;
                }
            }
        }
        None => default_base.to_string(),
    };
    let key = match &section.api_key_env {
        Some(variable) if !is_env_name(variable.get_ref()) => {
            let line = found.line(variable);
            found.error(
                line,
                messages::env_name_invalid("[llm] api_key_env", example),
            );
            return None;
        }
        Some(variable) => match std::env::var(variable.get_ref()) {
            Ok(key) if !key.is_empty() => Some(key),
            Ok(_) => {
                let line = found.line(variable);
                found.warning(line, messages::key_env_empty(variable.get_ref(), label));
                return None;
            }
            Err(_) => {
                let line = found.line(variable);
                found.warning(line, messages::key_env_unset(variable.get_ref(), label));
                return None;
            }
        },
        None if provider == ProviderKind::OpenaiCompatible => None,
        None => {
            let line = found.line(&section.provider);
            found.error(line, messages::key_env_missing(label, example));
            return None;
        }
    };
    if section.api_key.is_some() {
        return None;
    }
    let roles = match section.roles.as_ref().map(|r| *r.get_ref()) {
        None | Some(RolesKind::Portable) => Roles::Portable,
        Some(RolesKind::Openai) => Roles::OpenAi,
    };
    // A voice call cannot wait 30 s on a silent provider: the voice deadlines (first byte 10 s)
    // let the turn loop say its hold line and retry sooner.
    let http = HttpOptions::for_voice();
    let client: Arc<dyn Provider> = match provider {
        ProviderKind::OpenaiCompatible => Arc::new(
            OpenAiCompatible::new(base_url, key)
                .with_http_options(http)
                .with_roles(roles),
        ),
        ProviderKind::Anthropic => Arc::new(
            Anthropic::with_base_url(base_url, key.unwrap_or_default()).with_http_options(http),
        ),
        ProviderKind::Gemini => Arc::new(
            Gemini::with_base_url(base_url, key.unwrap_or_default()).with_http_options(http),
        ),
    };
    Some(LlmChoice {
        provider: client,
        model: section.model.clone(),
        kind: provider,
    })
}
