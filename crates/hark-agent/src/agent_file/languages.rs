//! Lines said without the call's language: in a file that speaks its
//! language through per-language variants (`say_in`, `announce_in`, `confirm_in`, `goodbye_in`
//! name it somewhere), a line key with no variant for it would be said in its default words
//! while the others speak the file's language. Each is a warning on the key's own line; a local
//! tool of the host whose own lines have none, on its `[tools] local` entry.
//!
//! The variant a call says is chosen by [`hark_tools::language::for_language`] (the whole tag,
//! then the primary language, then the default lines): the check asks it the same question.

use hark_tools::language::variant;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::build::Found;
use super::call_values::owner;
use super::host::Host;
use super::messages;

/// The keys that hold lines said to the caller, each with its variants' key.
const LINE_KEYS: &[(&str, &str)] = &[
    ("say", "say_in"),
    ("announce", "announce_in"),
    ("confirm", "confirm_in"),
    ("goodbye", "goodbye_in"),
];

/// One line key of the file: where it is, its line, and the languages of its variants.
struct LineKey {
    path: Vec<String>,
    key: &'static str,
    variants_key: &'static str,
    start: usize,
    languages: Vec<(String, Vec<()>)>,
}

/// Warns of every line key with no variant for `language`, when some line has one.
pub(super) fn check(found: &mut Found<'_>, language: &str, host: &Host) {
    let text = found.file.text.clone();
    let Ok(table) = DeTable::parse(&text) else {
        return;
    };
    let mut keys = Vec::new();
    walk_table(table.get_ref(), &mut Vec::new(), &mut keys);
    // The host's local tools the file names, with the lines of theirs said in default words.
    let local: Vec<(Option<usize>, String, Vec<&'static str>, bool)> = found
        .file
        .format()
        .tools
        .local
        .iter()
        .filter_map(|name| {
            let tool = host.local_tool(name.get_ref())?;
            let (missing, has) = tool.lines_without_language(language);
            Some((found.line(name), name.get_ref().clone(), missing, has))
        })
        .collect();
    let speaks = keys
        .iter()
        .any(|k| variant(language, &k.languages).is_some())
        || local.iter().any(|(_, _, _, has)| *has);
    if !speaks {
        return;
    }
    for (line, name, missing, _) in local {
        if !missing.is_empty() {
            found.warning(
                line,
                messages::local_lines_without_language(&name, &missing.join(" and "), language),
            );
        }
    }
    let primary = language.split(['-', '_']).next().unwrap_or(language);
    for key in keys {
        if variant(language, &key.languages).is_some() {
            continue;
        }
        let line = Some(found.file.line_at(key.start));
        let mut place = owner(found, &key.path);
        // A webhook's or a step's reply names its table (a top-level [[reply]] is its owner).
        let parent = key
            .path
            .iter()
            .enumerate()
            .rev()
            .find(|(_, k)| k.parse::<usize>().is_err())
            .filter(|(at, k)| *at > 0 && matches!(k.as_str(), "reply" | "replies"))
            .map(|(_, k)| k);
        if let Some(parent) = parent {
            place.push_str(parent);
            place.push(' ');
        }
        place.push_str(key.key);
        found.warning(
            line,
            messages::line_without_language(&place, language, key.variants_key, primary),
        );
    }
}

fn walk_table(table: &DeTable<'_>, path: &mut Vec<String>, out: &mut Vec<LineKey>) {
    for (key, variants_key) in LINE_KEYS {
        let Some((_, value)) = table.iter().find(|(k, _)| k.get_ref() == *key) else {
            continue;
        };
        let languages = table
            .iter()
            .find(|(k, _)| k.get_ref() == *variants_key)
            .and_then(|(_, v)| match v.get_ref() {
                DeValue::Table(t) => Some(
                    t.iter()
                        .map(|(tag, _)| (tag.get_ref().to_string(), Vec::new()))
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_default();
        out.push(LineKey {
            path: path.clone(),
            key,
            variants_key,
            start: value.span().start,
            languages,
        });
    }
    for (key, value) in table {
        path.push(key.get_ref().to_string());
        walk_value(value, path, out);
        path.pop();
    }
}

fn walk_value(value: &Spanned<DeValue<'_>>, path: &mut Vec<String>, out: &mut Vec<LineKey>) {
    match value.get_ref() {
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
