//! serde's "invalid type" errors, said for the person who wrote the file: the key, the shape
//! it needs and an example (`timeout must be a number of seconds, like timeout = 5`), instead
//! of `invalid type: string "5s", expected f64`.
//!
//! toml's errors carry the byte span of the wrong value, not its key: the key is read back from
//! the text before the span (`key =`, inside an inline table too), and the table header above
//! it (`[llm]`, `[[webhook]]`) is named with it.

use super::messages;

/// The wrong value's place: its key, the table header above it, and whether the value is an
/// item of the key's array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// `[llm]`, `[[webhook]]`, or empty at the top of the file.
    pub table: String,
    /// The key as written (`timeout`, `auth.env`).
    pub key: String,
    /// True when the value is one item of an array (`values = [1, 2]`).
    pub item: bool,
}

/// The rewritten text of a toml/serde error `message` whose value starts at byte `start` of
/// `text`, or `None` when it is not an "invalid type" error or its key cannot be read (then
/// the caller keeps the general parse message).
pub(crate) fn rewrite(text: &str, message: &str, start: usize) -> Option<String> {
    // toml's own error for a value of a key that takes one of some words (`interruption`,
    // `method`, `provider`, …) written as a number, a boolean or a list.
    if message.trim().starts_with("wanted string or table") {
        let place = place_of(text, start)?;
        let found = value_at(text, start);
        return Some(messages::wrong_type_word(&place.table, &place.key, &found));
    }
    let rest = message.trim().strip_prefix("invalid type: ")?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let place = place_of(text, start)?;
    let expected = expected.trim().trim_end_matches('.');
    Some(messages::wrong_type(
        &place.table,
        &place.key,
        place.item,
        expected,
        found.trim(),
    ))
}

/// The value written at byte `start`, as written (up to the end of its line, a `,` or a `}`).
fn value_at(text: &str, start: usize) -> String {
    let start = floor_char_boundary(text, start);
    let rest = &text[start..];
    let end = rest.find(['\n', ',', '}']).unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

/// Reads the key of the value at byte `start`: the text before it is `key =` (a key's value),
/// or `[` / `,` (an item of an array: then the key is the one that opens the array's line).
pub(crate) fn place_of(text: &str, start: usize) -> Option<Place> {
    let start = floor_char_boundary(text, start);
    let before = &text[..start];
    let trimmed = before.trim_end_matches([' ', '\t']);
    let (key_end, item) = if let Some(head) = trimmed.strip_suffix('=') {
        (head, false)
    } else if trimmed.ends_with('[') || trimmed.ends_with(',') {
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let line = &trimmed[line_start..];
        let eq = line.find('=')?;
        (&trimmed[..line_start + eq], true)
    } else {
        return None;
    };
    let key_end = key_end.trim_end_matches([' ', '\t']);
    let key_start = key_end
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"')))
        .map_or(0, |i| i + 1);
    let key = key_end[key_start..].trim_matches('.').to_string();
    if key.is_empty() {
        return None;
    }
    Some(Place {
        table: table_above(before),
        key,
        item,
    })
}

/// The last table header (`[llm]`, `[[webhook]]`, `[webhook.output.status]`) in `before`, or
/// empty when the value is in the file's top table.
fn table_above(before: &str) -> String {
    before
        .lines()
        .rev()
        .map(str::trim_start)
        .find(|line| line.starts_with('['))
        .map(|line| {
            let end = line.rfind(']').map_or(line.len(), |i| i + 1);
            line[..end].to_string()
        })
        .unwrap_or_default()
}

/// The largest char boundary at or below `index`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, value: &str) -> Option<Place> {
        place_of(text, text.find(value).unwrap())
    }

    #[test]
    fn the_key_of_a_value_is_read_back() {
        let text = "system_prompt = \"x\"\n[[webhook]]\nname = \"n\"\ntimeout = \"5s\"\n";
        assert_eq!(
            at(text, "\"5s\""),
            Some(Place {
                table: "[[webhook]]".into(),
                key: "timeout".into(),
                item: false
            })
        );
        let text = "[state.mood]\ntype = \"string\"\nvalues = [1, 2]\n";
        assert_eq!(
            at(text, "2]"),
            Some(Place {
                table: "[state.mood]".into(),
                key: "values".into(),
                item: true
            })
        );
        let text = "[[webhook]]\nauth = { kind = \"bearer\", env = 5 }\n";
        assert_eq!(at(text, "5 }").unwrap().key, "env");
        assert_eq!(at("top = 1\n", "1").unwrap().table, "");
        assert_eq!(at("[a]\nx = [\n", "\n").map(|p| p.key), None);
    }

    #[test]
    fn only_invalid_type_errors_are_rewritten() {
        let text = "[[webhook]]\ntimeout = \"5s\"\n";
        let start = text.find("\"5s\"").unwrap();
        assert_eq!(
            rewrite(text, "invalid type: string \"5s\", expected f64", start).unwrap(),
            "[[webhook]] timeout must be a number of seconds, like timeout = 5 (found string \"5s\")."
        );
        assert_eq!(rewrite(text, "unknown field `x`", start), None);

        // A key that takes one of some words, written as a boolean.
        let text = "[[webhook]]\nname = \"x\"\ninterruption = true\n";
        let start = text.find("true").unwrap();
        assert_eq!(
            rewrite(text, "wanted string or table", start).unwrap(),
            "[[webhook]] interruption must be one of the words \"provider_default\", \
             \"continue\" or \"cancel\", in quotes, like interruption = \"provider_default\" \
             (found true)."
        );
    }
}
