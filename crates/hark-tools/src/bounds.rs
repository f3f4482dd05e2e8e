//! How much of what the model sent a text quotes back, so what the model reads next stays small
//! whatever it sent (a runaway generation must not overflow the next request).
//!
//! - A value is quoted as its JSON text, at most [`QUOTE_CHARS`] characters of it, then `…`
//!   (`extra: "yyyyyy…" is not of type "object"`).
//! - A name the model made up (a tool name, an argument or field name, the dotted path of a
//!   value) is cut the same way.
//! - A list of names shows the first [`NAMES_LISTED`], then `and 99,990 more`.
//! - An argument error shows at most [`LINES_LISTED`] lines, then one line
//!   `… and 4,990 more problems`; each line at most [`LINE_CHARS`] characters, then `…` (the
//!   guard for a library's own words that quote a value).

use serde_json::Value;

/// Characters of a value's JSON text, or of a name, that a text quotes before `…`.
pub const QUOTE_CHARS: usize = 60;
/// Names a list shows before `and N more`.
pub const NAMES_LISTED: usize = 10;
/// Lines of an argument error shown before `… and N more problems`.
pub const LINES_LISTED: usize = 10;
/// Characters of one line of an argument error before `…`.
pub const LINE_CHARS: usize = 400;
/// The most a result the model reads may be, as JSON: 64 KiB, the cap of a webhook's request
/// and answer too (`hark_webhook::BODY_CAP` is this constant). A larger result fails the call.
pub const RESULT_CAP: usize = 64 * 1024;
/// [`RESULT_CAP`] as the texts say it.
pub const RESULT_CAP_WORDS: &str = "64 KiB";

/// Whether `value` written as JSON is longer than `limit` bytes. Stops writing once it is, so a
/// 100 MB result costs no 100 MB copy.
pub fn json_longer_than(value: &Value, limit: usize) -> bool {
    struct Counter {
        left: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            match self.left.checked_sub(bytes.len()) {
                Some(left) => {
                    self.left = left;
                    Ok(bytes.len())
                }
                None => Err(std::io::Error::other("over the limit")),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(&mut Counter { left: limit }, value).is_err()
}

/// `text` cut to `limit` characters, then `…`; as it is when it fits.
pub fn cut_to(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// A name or dotted path the model made up, cut to [`QUOTE_CHARS`] characters then `…`.
pub fn name(text: &str) -> String {
    cut_to(text, QUOTE_CHARS)
}

/// A value as a text quotes it: its JSON text (`40`, `"roof"`), cut to [`QUOTE_CHARS`]
/// characters then `…`. A long string is cut before it is written out, so a 1 MB string costs
/// no 1 MB copy.
pub fn quote(value: &Value) -> String {
    match value {
        Value::String(text) if text.len() > QUOTE_CHARS * 4 => {
            let head: String = text.chars().take(QUOTE_CHARS).collect();
            cut_to(&Value::String(head).to_string(), QUOTE_CHARS)
        }
        other => cut_to(&other.to_string(), QUOTE_CHARS),
    }
}

/// `99990` → `99,990`.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The first [`NAMES_LISTED`] of `items` (each cut as a [`name`]) and how many more there are.
pub fn first_names(items: &[String]) -> (Vec<String>, usize) {
    let shown = items.iter().take(NAMES_LISTED).map(|n| name(n)).collect();
    (shown, items.len().saturating_sub(NAMES_LISTED))
}

/// Names joined with `, ` for a log or sink text, at most [`NAMES_LISTED`] of them, then
/// `, and 99,990 more`.
pub fn comma_list(items: &[String]) -> String {
    let (shown, more) = first_names(items);
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{}, and {} more", shown.join(", "), count(more))
    }
}

/// An argument error's lines, bounded: at most [`LINES_LISTED`], each at most [`LINE_CHARS`]
/// characters, then `… and N more problems` when lines were left out.
pub fn lines(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .take(LINES_LISTED)
        .map(|l| cut_to(l, LINE_CHARS))
        .collect();
    let more = lines.len().saturating_sub(LINES_LISTED);
    if more > 0 {
        out.push(format!(
            "… and {} more problem{}",
            count(more),
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn short_texts_are_kept_and_long_ones_cut() {
        assert_eq!(quote(&json!("roof")), "\"roof\"");
        assert_eq!(quote(&json!(40)), "40");
        let long = quote(&json!("y".repeat(1_000_000)));
        assert_eq!(long, format!("\"{}…", "y".repeat(59)));
        assert_eq!(
            quote(&json!("é".repeat(100))),
            format!("\"{}…", "é".repeat(59))
        );
        assert_eq!(name(&"x".repeat(61)), format!("{}…", "x".repeat(60)));
        assert_eq!(name(&"x".repeat(60)), "x".repeat(60));
    }

    #[test]
    fn counts_read_with_thousands_separators() {
        assert_eq!(count(7), "7");
        assert_eq!(count(990), "990");
        assert_eq!(count(99_990), "99,990");
        assert_eq!(count(1_999_990), "1,999,990");
    }

    #[test]
    fn lists_stop_after_ten() {
        let names: Vec<String> = (0..12).map(|i| format!("k{i}")).collect();
        assert_eq!(
            comma_list(&names),
            "k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, and 2 more"
        );
        let lines_in: Vec<String> = (0..11).map(|i| format!("l{i}")).collect();
        let out = lines(&lines_in);
        assert_eq!(out.len(), 11);
        assert_eq!(out[10], "… and 1 more problem");
    }
}
