//! Recovery of `id` and `type` from an inbound message that is not valid JSON, so the refusal
//! can still answer the request it refuses (its `id`, and a text naming its `type`).
//!
//! A scan of the top-level object only: keys and values are skipped by bracket counting (strings
//! and their escapes respected), never parsed. Linear in the text, no recursion, constant memory
//! apart from the two values it returns (each at most [`MAX_VALUE_BYTES`] of text). It stops at
//! the first thing it cannot follow, so it returns what it found before that. client-js writes
//! `label, type, data, id` in that order, so `id` comes after `data` and the scan must be able to
//! skip a large `data`.

/// Longest `id` or `type` value (raw JSON text) the scan returns; longer ones are left unread.
const MAX_VALUE_BYTES: usize = 1024;

/// `(id, type)` as far as the top level of `json` can be read. `id` may be a string or a number
/// (kept as the text sent); `type` only a string.
pub(crate) fn id_and_type(json: &str) -> (Option<String>, Option<String>) {
    let b = json.as_bytes();
    let (mut id, mut type_) = (None, None);
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return (id, type_);
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b'"') {
            break;
        }
        let Some(key_end) = string_end(b, i) else {
            break;
        };
        let key = &json[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            break;
        }
        let start = skip_ws(b, i + 1);
        let Some(end) = value_end(b, start) else {
            break;
        };
        let raw = json[start..end].trim_end();
        match key {
            "id" => id = read_id(raw),
            "type" => type_ = read_string(raw),
            _ => {}
        }
        if id.is_some() && type_.is_some() {
            break;
        }
        i = skip_ws(b, end);
        if b.get(i) != Some(&b',') {
            break;
        }
        i += 1;
    }
    (id, type_)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Index just past the closing quote of the string starting at `b[i] == '"'`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// Index just past the value starting at `i`: a string, or anything up to the `,` or `}` that
/// ends it at the top level.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i)? == &b'"' {
        return string_end(b, i);
    }
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match b.get(j) {
            None if depth == 0 => return Some(j),
            None => return None,
            Some(b'"') => {
                j = string_end(b, j)?;
                continue;
            }
            Some(b'{' | b'[') => depth += 1,
            Some(b',' | b'}') if depth == 0 => return Some(j),
            Some(b'}' | b']') => depth = depth.checked_sub(1)?,
            Some(_) => {}
        }
        j += 1;
    }
}

fn read_string(raw: &str) -> Option<String> {
    if raw.len() > MAX_VALUE_BYTES || !raw.starts_with('"') {
        return None;
    }
    serde_json::from_str(raw).ok()
}

fn read_id(raw: &str) -> Option<String> {
    if raw.starts_with('"') {
        return read_string(raw);
    }
    let number = !raw.is_empty()
        && raw.len() <= MAX_VALUE_BYTES
        && raw
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'));
    number.then(|| raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &str) -> (Option<&str>, Option<&str>) {
        let (id, t) = id_and_type(s);
        (
            id.map(|v| &*Box::leak(v.into_boxed_str())),
            t.map(|v| &*Box::leak(v.into_boxed_str())),
        )
    }

    #[test]
    fn reads_id_and_type_around_broken_data() {
        // client-js order: label, type, data, id; the break is inside data.
        assert_eq!(
            ids(
                r#"{"label":"rtvi-ai","type":"send-text","data":{"content":"a\q","x":[1,{"y":"}"}]},"id":"ab12"}"#
            ),
            (Some("ab12"), Some("send-text"))
        );
        // Broken after both were read.
        assert_eq!(
            ids(r#"{"type":"x","id":7,"data":{"#),
            (Some("7"), Some("x"))
        );
        assert_eq!(
            ids(r#" { "id" : "a\"b" , "type":"t" } trailing"#),
            (Some("a\"b"), Some("t"))
        );
    }

    #[test]
    fn gives_up_cleanly() {
        assert_eq!(ids("hello"), (None, None));
        assert_eq!(ids(""), (None, None));
        assert_eq!(ids(r#"{"type":"t","data":{"#), (None, Some("t")));
        assert_eq!(ids(r#"{"data":[1,2}],"id":"x"}"#), (None, None));
        assert_eq!(ids(r#"{"id":{"a":1},"type":5}"#), (None, None));
        assert_eq!(ids(r#"{"id":"unterminated"#), (None, None));
        let long = format!(r#"{{"id":"{}","type":"t"}}"#, "x".repeat(2000));
        assert_eq!(ids(&long), (None, Some("t")));
    }
}
