//! Lone UTF-16 surrogate escapes in inbound JSON text.
//!
//! client-js cuts accessible names with `collapsed.slice(0, 99) + "…"`, which counts UTF-16
//! units and can split an emoji; `JSON.stringify` then writes the half it kept as an escape such
//! as `"\ud83d"`. Python's `json` (pipecat) accepts that; `serde_json` refuses the whole message
//! ("lone leading surrogate in hex escape"). A Rust `String` cannot hold a lone surrogate, so
//! every inbound text goes through [`replace_lone_surrogates`] first: each `\uD800`–`\uDFFF`
//! escape that is not half of a valid high+low pair becomes `\ufffd` (U+FFFD REPLACEMENT
//! CHARACTER), what `String::from_utf16_lossy` and the WHATWG `TextDecoder` produce for it, and
//! what a pipecat server shows once it encodes that string with `errors="replace"`. One emoji
//! half becomes one `�`; nothing else in the text changes.

use std::borrow::Cow;

/// `json` with every lone surrogate escape (`\uD800`–`\uDFFF` not forming a high+low pair)
/// replaced by `\ufffd`; everything else, escapes included, copied untouched.
///
/// Borrows (no allocation) when there is nothing to replace, the common case. Works on any
/// text: it only looks at `\` escapes, so invalid JSON stays exactly as invalid. The output has
/// the same length as the input (`\uXXXX` → `\ufffd`, six bytes each).
///
/// ```
/// use hark_rtvi::replace_lone_surrogates;
/// assert_eq!(replace_lone_surrogates(r#"{"a":"\ud800x"}"#), r#"{"a":"\ufffdx"}"#);
/// // A valid pair (😀) and an escaped backslash before `u` stay as they are.
/// assert!(matches!(replace_lone_surrogates(r#""\ud83d\ude00 \\ud800""#),
///                  std::borrow::Cow::Borrowed(_)));
/// ```
pub fn replace_lone_surrogates(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    // memchr: a text without a backslash (most snapshots) is one vectorised pass, no copy.
    while let Some(off) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + off;
        let Some(unit) = escape_unit(bytes, at) else {
            // `\"`, `\\`, `\n`, … (or a stray backslash): skip it and the byte it escapes.
            i = at + 2;
            if i >= bytes.len() {
                break;
            }
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => match escape_unit(bytes, at + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i = at + 12; // a valid pair
                    continue;
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            out.get_or_insert_with(|| bytes.to_vec())[at..at + 6].copy_from_slice(b"\\ufffd");
        }
        i = at + 6;
    }
    match out {
        None => Cow::Borrowed(json),
        // Only ASCII bytes of a `\uXXXX` escape were overwritten with ASCII: still UTF-8. The
        // fallback never runs; it keeps this function free of `unwrap`.
        Some(v) => Cow::Owned(String::from_utf8(v).unwrap_or_else(|_| json.to_string())),
    }
}

/// The code unit of a `\uXXXX` escape starting at `at`, if there is one.
fn escape_unit(bytes: &[u8], at: usize) -> Option<u16> {
    let esc = bytes.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    esc[2..].iter().try_fold(0u16, |acc, &b| {
        Some(acc << 4 | (b as char).to_digit(16)? as u16)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(s: &str) -> String {
        replace_lone_surrogates(s).into_owned()
    }

    #[test]
    fn lone_halves_become_replacement_characters() {
        assert_eq!(fixed(r#""\ud800x""#), r#""\ufffdx""#);
        assert_eq!(fixed(r#""\udc00""#), r#""\ufffd""#);
        assert_eq!(fixed(r#""\uD83D""#), r#""\ufffd""#);
        // High then high then a pair: only the first is lone.
        assert_eq!(fixed(r#""\ud800\ud83d\ude00""#), r#""\ufffd\ud83d\ude00""#);
        // Low before high: both lone.
        assert_eq!(fixed(r#""\ude00\ud83d""#), r#""\ufffd\ufffd""#);
        // A high followed by a non-surrogate escape.
        assert_eq!(fixed(r#""\ud83d\u0041""#), r#""\ufffd\u0041""#);
        // At the very end of the text, and cut short.
        assert_eq!(fixed(r"\udfff"), r"\ufffd");
        assert_eq!(fixed(r"\ud8"), r"\ud8");
    }

    #[test]
    fn everything_else_is_borrowed_untouched() {
        for s in [
            r#"{"a":"plain"}"#,
            r#""\ud83d\ude00""#,
            r#""\\ud800""#,
            r#""\\\\ud800""#,
            r#""\u00e9\n\"\\""#,
            "\\",
            "x\\",
            "é😀",
        ] {
            assert!(
                matches!(replace_lone_surrogates(s), Cow::Borrowed(b) if b == s),
                "{s}"
            );
        }
        // An escaped backslash then a real lone escape.
        assert_eq!(fixed(r#""\\\ud800""#), r#""\\\ufffd""#);
    }

    #[test]
    fn the_result_parses_as_serde_json_would_read_the_lossy_utf16() {
        let text = r#"{"s":"a\ud83db\udc00c\ud83d\ude00"}"#;
        let v: serde_json::Value = serde_json::from_str(&fixed(text)).unwrap();
        let units = [
            0x61, 0xD83D, 0x62, 0xDC00, 0x63, 0xD83D, 0xDE00, // a ? b ? c 😀
        ];
        assert_eq!(v["s"], String::from_utf16_lossy(&units));
    }
}
