//! The `{{call.name}}` values an agent file reads, checked against what the calls that run it
//! carry: an RTVI session of `hark serve` carries `call.session_id` only, so
//! a line or a locked value that reads `{{call.remote_number}}` is refused on every call.
//!
//! Every string the file holds under a key whose text is a template (announce lines, locked
//! values, reply and confirm lines, the goodbye, their per-language variants) is read, each
//! `{{call.name}}` the host's calls do not carry gives a warning on the string's own line, naming
//! it and the values they carry. A `{{…}}` in a webhook `url` or `headers` value, which nothing
//! fills, is a warning too.

use hark_speak::{Scope, Template};
use hark_tools::CALL_VALUES;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::build::Found;
use super::host::Host;
use super::messages;

/// The `{{call.name}}` values `hark serve` carries in every call: an RTVI session carries its
/// own id and nothing else (no caller number, no carrier id, no direction). The one list the
/// check ([`Host::new`]'s default) and the guide's test read.
pub const SERVE_CALL_VALUES: &[&str] = &["session_id"];

/// Keys whose strings are templates (`{{…}}` filled when a call says or sends them).
const TEMPLATE_KEYS: &[&str] = &[
    "announce",
    "announce_in",
    "locked",
    "say",
    "say_in",
    "confirm",
    "confirm_in",
    "goodbye",
    "goodbye_in",
];

/// Keys whose strings are sent as written (only `${NAME}` is filled there).
const FIXED_KEYS: &[&str] = &["url", "headers"];

/// Warns of every `{{call.name}}` of the file the host's calls do not carry, and of every
/// `{{…}}` in a `url` or `headers` value.
pub(super) fn check(found: &mut Found<'_>, host: &Host) {
    let text = found.file.text.clone();
    let Ok(table) = DeTable::parse(&text) else {
        return;
    };
    let mut strings = Vec::new();
    walk_table(table.get_ref(), &mut Vec::new(), &mut strings);
    let carried = host.call_values();
    for (path, value, start) in strings {
        let line = Some(found.file.line_at(start));
        let place = format!("{}{}", owner(found, &path), place(&path));
        if path.iter().any(|key| FIXED_KEYS.contains(&key.as_str())) {
            if value.contains("{{") {
                found.warning(line, messages::template_not_filled(&place));
            }
            continue;
        }
        if !path.iter().any(|key| TEMPLATE_KEYS.contains(&key.as_str())) {
            continue;
        }
        let Ok(template) = Template::parse(&value) else {
            continue;
        };
        for placeholder in template.placeholders() {
            let Some(name) = placeholder.path.first() else {
                continue;
            };
            if placeholder.scope == Scope::Call
                && placeholder.path.len() == 1
                && CALL_VALUES.contains(&name.as_str())
                && !carried.iter().any(|c| c == name)
            {
                let serve = carried
                    .iter()
                    .map(String::as_str)
                    .eq(SERVE_CALL_VALUES.iter().copied());
                found.warning(
                    line,
                    messages::call_value_not_carried(&place, name, &carried, serve),
                );
            }
        }
    }
}

/// Whose key it is: `webhook lookup: `, `[flow] step booking: `, `[tools] `, or nothing.
pub(super) fn owner(found: &Found<'_>, path: &[String]) -> String {
    let f = found.file.format();
    let index = |i: usize| path.get(i).and_then(|k| k.parse::<usize>().ok());
    match path.first().map(String::as_str) {
        Some("webhook") => index(1)
            .and_then(|i| f.webhook.get(i))
            .map(|w| format!("webhook {}: ", w.name.get_ref()))
            .unwrap_or_default(),
        Some("flow") => index(2)
            .and_then(|i| f.flow.as_ref()?.get_ref().steps.get(i))
            .map(|s| format!("[flow] step {}: ", s.name))
            .unwrap_or_else(|| "[flow] ".to_string()),
        Some("reply") => "[[reply]] ".to_string(),
        Some("tools") => "[tools] ".to_string(),
        _ => String::new(),
    }
}

/// The key path from its template key on, as the file writes it: `locked phone`, `confirm_in es`.
fn place(path: &[String]) -> String {
    let at = path
        .iter()
        .position(|key| TEMPLATE_KEYS.contains(&key.as_str()) || FIXED_KEYS.contains(&key.as_str()))
        .unwrap_or(0);
    // A reply's lines say whose they are: `reply say`, `replies say` (a top-level `[[reply]]`
    // is named by its owner).
    let mut start = at;
    while start > 1 && path[start - 1].parse::<usize>().is_ok() {
        start -= 1;
    }
    let at = match path.get(start.wrapping_sub(1)).map(String::as_str) {
        Some("reply" | "replies") if start > 1 => start - 1,
        _ => at,
    };
    path[at..]
        .iter()
        .filter(|key| key.parse::<usize>().is_err())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

fn walk_table(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String, usize)>,
) {
    for (key, value) in table {
        path.push(key.get_ref().to_string());
        walk_value(value, path, out);
        path.pop();
    }
}

fn walk_value(
    value: &Spanned<DeValue<'_>>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String, usize)>,
) {
    match value.get_ref() {
        DeValue::String(text) => out.push((path.clone(), text.to_string(), value.span().start)),
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk_value(item, path, out);
                path.pop();
            }
        }
        DeValue::Table(table) => walk_table(table, path, out),
        _ => {}
    }
}
