//! pydantic's lax `int` from a string, as pipecat-ai 1.14.0's snapshot models read `level`,
//! `colcount`, `rowcount`, `captured_at` and the selection offsets (pydantic-core's
//! `str_as_int`, checked value by value against pipecat's own `A11ySnapshot.model_validate`):
//! surrounding whitespace is dropped; then an optional sign and ASCII digits, single underscores
//! allowed between digits (`1_000`), leading zeros allowed (`007`); and an optional fraction of
//! zeros only (`2.0`, `2.00`, `2_0.0`; not `2.`, `2.5`, `2.0_0`). No exponent, no hex, no
//! non-ASCII digits.

/// An integer pydantic reads: within `i64`, or beyond it as the decimal text Python's `int`
/// prints (`18446744073709551616`, `-99999999999999999999`; no sign for positive, no leading
/// zeros, no underscores).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LaxInt {
    /// Within `i64`.
    Fit(i64),
    /// Beyond `i64`: its canonical decimal text.
    Wide(Box<str>),
}

impl LaxInt {
    /// The value, or `i64::MIN` / `i64::MAX` for a wide one (by its sign).
    pub(crate) fn saturated(&self) -> i64 {
        match self {
            LaxInt::Fit(v) => *v,
            LaxInt::Wide(t) if t.starts_with('-') => i64::MIN,
            LaxInt::Wide(_) => i64::MAX,
        }
    }

    /// The decimal text of a wide value; `None` for one within `i64`.
    pub(crate) fn into_wide(self) -> Option<Box<str>> {
        match self {
            LaxInt::Fit(_) => None,
            LaxInt::Wide(t) => Some(t),
        }
    }
}

/// Reads `text` as pydantic's lax `int` does, keeping a value beyond `i64` as its canonical
/// text (what pipecat renders: Python's `str(int)`).
pub(crate) fn parse_any(text: &str) -> Result<LaxInt, LaxIntError> {
    match parse(text) {
        Ok(v) => Ok(LaxInt::Fit(v)),
        Err(LaxIntError::OutOfRange) => Ok(LaxInt::Wide(canonical(text).into())),
        Err(e) => Err(e),
    }
}

/// The canonical decimal text of `text`, already known to be a lax integer.
fn canonical(text: &str) -> String {
    let t = text.trim();
    let whole = t.split_once('.').map_or(t, |(whole, _)| whole);
    let (negative, digits) = match whole.as_bytes().first() {
        Some(b'-') => (true, &whole[1..]),
        Some(b'+') => (false, &whole[1..]),
        _ => (false, whole),
    };
    let digits: String = digits.chars().filter(|c| *c != '_').collect();
    let digits = digits.trim_start_matches('0');
    match (negative, digits.is_empty()) {
        (_, true) => "0".to_owned(),
        (true, false) => format!("-{digits}"),
        (false, false) => digits.to_owned(),
    }
}

/// Why a string is not an integer pydantic would read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaxIntError {
    /// Not an integer at all (`three`, `2.5`, `1e2`).
    NotInt,
    /// An integer, but outside `i64` ([`parse_any`] keeps it as text).
    OutOfRange,
}

/// Reads `text` as pydantic's lax `int` does.
pub(crate) fn parse(text: &str) -> Result<i64, LaxIntError> {
    let t = text.trim();
    let whole = match t.split_once('.') {
        Some((whole, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => whole,
        Some(_) => return Err(LaxIntError::NotInt),
        None => t,
    };
    let (negative, digits) = match whole.as_bytes().first() {
        Some(b'-') => (true, &whole[1..]),
        Some(b'+') => (false, &whole[1..]),
        _ => (false, whole),
    };
    let bytes = digits.as_bytes();
    if bytes.is_empty() || bytes[0] == b'_' || bytes[bytes.len() - 1] == b'_' {
        return Err(LaxIntError::NotInt);
    }
    // Magnitude as a negative number, so i64::MIN fits.
    let mut value: i64 = 0;
    let mut overflow = false;
    let mut last_underscore = false;
    for &b in bytes {
        match b {
            b'0'..=b'9' => {
                last_underscore = false;
                match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_sub(i64::from(b - b'0')))
                {
                    Some(v) => value = v,
                    None => overflow = true,
                }
            }
            b'_' if !last_underscore => last_underscore = true,
            _ => return Err(LaxIntError::NotInt),
        }
    }
    if overflow {
        return Err(LaxIntError::OutOfRange);
    }
    if negative {
        Ok(value)
    } else {
        value.checked_neg().ok_or(LaxIntError::OutOfRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value and pipecat 1.14's reading of it (`A11ySnapshot.model_validate`, `level`).
    #[test]
    fn strings_are_read_as_pydantic_reads_them() {
        for (text, want) in [
            ("2", 2),
            (" 2 ", 2),
            ("+2", 2),
            ("-2", -2),
            ("-0", 0),
            ("00012", 12),
            ("1_0", 10),
            ("1_000_000", 1_000_000),
            ("2.0", 2),
            ("2.00", 2),
            ("-2.0", -2),
            ("0.0", 0),
            ("2_0.0", 20),
            ("\t3\n", 3),
            ("\u{a0}3", 3),
            ("\u{2003}3", 3),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(parse(text), Ok(want), "{text:?}");
        }
        for text in [
            "", "2.", ".0", "2.5", "2.10", "2.01", "2.0_0", "2.0.0", "1__0", "_1", "1_", "- 2",
            "2 .0", "+-2", "+", "-", "1e2", "inf", "nan", "0x10", "0b1", "２", "١٢", "three",
        ] {
            assert_eq!(parse(text), Err(LaxIntError::NotInt), "{text:?}");
        }
        for text in [
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
        ] {
            assert_eq!(parse(text), Err(LaxIntError::OutOfRange), "{text:?}");
        }
    }

    /// pydantic's `int` of each, printed by Python.
    #[test]
    fn wide_strings_keep_their_canonical_text() {
        for (text, want) in [
            ("9223372036854775808", "9223372036854775808"),
            (" +0018_446_744_073_709_551_616.00 ", "18446744073709551616"),
            ("-99999999999999999999", "-99999999999999999999"),
        ] {
            assert_eq!(parse_any(text), Ok(LaxInt::Wide(want.into())), "{text:?}");
        }
        assert_eq!(parse_any("-0"), Ok(LaxInt::Fit(0)));
        assert_eq!(
            LaxInt::Wide(format!("-{}", "1".repeat(30)).into()).saturated(),
            i64::MIN
        );
        assert_eq!(LaxInt::Wide("1".repeat(30).into()).saturated(), i64::MAX);
    }
}
