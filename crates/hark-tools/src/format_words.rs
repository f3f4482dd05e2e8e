//! What the model reads for a value its type refused when the value's schema gives a `format`
//! hark knows: the value quoted (bounded as [`crate::bounds::quote`] bounds it) and what is
//! really wrong with it, so `"2026-02-30"` is told it is no day on the calendar, not how to
//! write a date. The Rust decode ([`crate::spec::decode_with`]) and Python's pydantic path both
//! read these words.

use serde_json::Value;

use crate::bounds;
use crate::messages;
use crate::phone::Phone;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The words for `value` (when the caller has it) refused by its `format`, after the value's
/// path: `"2026-02-30" is not a day on the calendar: February 2026 has days 01 to 28`,
/// `"next friday" is not written year-month-day: give the day like 2026-10-16`,
/// `"+1 12" is too short for a phone number: …`. Without the value, the format's words alone
/// ([`messages::format_refused_unquoted`]). `None` when hark has no words for the format (the
/// number formats), or when the value is a good one of its format (the type refused it for
/// another reason, which its own words say better).
pub fn format_refused(format: &str, value: Option<&Value>) -> Option<String> {
    let Some(value) = value else {
        return messages::format_refused_unquoted(format);
    };
    let quoted = bounds::quote(value);
    match format {
        "date" => date_refused(&quoted, value.as_str()),
        "time" => time_refused(&quoted, value.as_str()),
        "date-time" => Some(match value.as_str() {
            Some(text)
                if !crate::schema::has_offset(text)
                    && text.parse::<jiff::civil::DateTime>().is_ok() =>
            {
                messages::date_time_without_offset(&quoted)
            }
            _ => messages::not_a_date_time_quoted(&quoted),
        }),
        "local-date-time" => Some(match value.as_str() {
            Some(text) if crate::schema::has_offset(text) => {
                messages::local_date_time_with_offset(&quoted)
            }
            _ => format!("{quoted} {}", messages::not_a_local_date_time()),
        }),
        "phone" => match value.as_str() {
            Some(text) => Phone::parse(text)
                .err()
                .map(|error| messages::phone_refused(&quoted, error.fault())),
            None => Some(messages::phone_not_text(&quoted)),
        },
        other => messages::other_format_refused(other)
            .map(|words| messages::value_does_not_fit_format(&quoted, &words)),
    }
}

/// Digits of `text` at `range`, when they are all ASCII digits.
fn digits(text: &str, range: std::ops::Range<usize>) -> Option<u32> {
    let part = text.get(range)?;
    part.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| part.parse().ok())
        .flatten()
}

fn date_refused(quoted: &str, text: Option<&str>) -> Option<String> {
    let written =
        text.filter(|t| t.len() == 10 && t.get(4..5) == Some("-") && t.get(7..8) == Some("-"));
    let parts = written.and_then(|t| Some((digits(t, 0..4)?, digits(t, 5..7)?, digits(t, 8..10)?)));
    let Some((year, month, day)) = parts else {
        return Some(messages::date_not_written_as_one(quoted));
    };
    if !(1..=12).contains(&month) {
        return Some(messages::month_not_on_calendar(quoted));
    }
    // Four digits of year and a month 1..=12 always make a first of the month jiff knows.
    let first = jiff::civil::Date::new(year as i16, month as i8, 1).ok()?;
    let days = first.days_in_month();
    if day < 1 || day > days as u32 {
        let month_and_year = format!("{} {year:04}", MONTHS[month as usize - 1]);
        return Some(messages::date_not_on_calendar(
            quoted,
            &month_and_year,
            days,
        ));
    }
    None
}

fn time_refused(quoted: &str, text: Option<&str>) -> Option<String> {
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let parts = text.and_then(|t| {
        let (clock, fraction) = t.split_once('.').unwrap_or((t, "0"));
        let fields: Vec<&str> = clock.split(':').collect();
        let written = all_digits(fraction)
            && (2..=3).contains(&fields.len())
            && fields.iter().all(|f| f.len() == 2 && all_digits(f));
        let at = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u32>().ok())
                .unwrap_or(0)
        };
        written.then(|| (at(0), at(1), at(2)))
    });
    match parts {
        None => Some(messages::time_not_written_as_one(quoted)),
        Some((hours, minutes, seconds)) if hours > 23 || minutes > 59 || seconds > 59 => {
            Some(messages::time_not_on_the_clock(quoted))
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(format: &str, value: Value) -> Option<String> {
        format_refused(format, Some(&value))
    }

    #[test]
    fn a_date_is_told_what_is_wrong_with_it() {
        assert_eq!(
            words("date", json!("2026-02-30")).unwrap(),
            "\"2026-02-30\" is not a day on the calendar: February 2026 has days 01 to 28"
        );
        assert_eq!(
            words("date", json!("2028-02-30")).unwrap(),
            "\"2028-02-30\" is not a day on the calendar: February 2028 has days 01 to 29"
        );
        assert_eq!(
            words("date", json!("2026-04-00")).unwrap(),
            "\"2026-04-00\" is not a day on the calendar: April 2026 has days 01 to 30"
        );
        assert_eq!(
            words("date", json!("2026-13-01")).unwrap(),
            "\"2026-13-01\" is not a day on the calendar: the months are 01 to 12"
        );
        assert_eq!(
            words("date", json!("next friday")).unwrap(),
            "\"next friday\" is not written year-month-day: give the day like 2026-10-16"
        );
        assert_eq!(
            words("date", json!("16/10/2026")).unwrap(),
            "\"16/10/2026\" is not written year-month-day: give the day like 2026-10-16"
        );
        assert_eq!(words("date", json!("2026-10-16")), None);
        // A long value is quoted as every refusal quotes one: 60 characters, then "…".
        let long = "x".repeat(500);
        assert_eq!(
            words("date", json!(long)).unwrap(),
            format!(
                "\"{}… is not written year-month-day: give the day like 2026-10-16",
                "x".repeat(59)
            )
        );
        // Multi-byte text never splits a character.
        assert!(words("date", json!("2026-ü-01")).is_some());
    }

    #[test]
    fn a_time_and_a_date_time_quote_the_value() {
        assert_eq!(
            words("time", json!("25:00")).unwrap(),
            "\"25:00\" is not a time of day: the hours are 00 to 23 and the minutes 00 to 59"
        );
        assert_eq!(
            words("time", json!("noonish")).unwrap(),
            "\"noonish\" is not written hours:minutes:seconds: give it on a 24-hour clock, like 09:30:00"
        );
        assert_eq!(words("time", json!("09:30")), None);
        assert_eq!(words("time", json!("09:30:15.5")), None);
        assert_eq!(
            words("date-time", json!("tomorrow at 9")).unwrap(),
            "\"tomorrow at 9\" is not a date and time: give it like 2026-10-16T09:30:00+02:00"
        );
    }

    #[test]
    fn a_phone_number_is_told_what_is_wrong_with_it() {
        assert_eq!(
            words("phone", json!("call me maybe")).unwrap(),
            "\"call me maybe\" is not a phone number: it has letters. Give its digits in \
             international format, like +14155550123"
        );
        assert_eq!(
            words("phone", json!("+1 12")).unwrap(),
            "\"+1 12\" is too short for a phone number: give all its digits in international \
             format, like +14155550123"
        );
        assert_eq!(
            words("phone", json!("4155550123")).unwrap(),
            "\"4155550123\" has no country code: give it starting with + and the country code, \
             like +14155550123"
        );
        assert_eq!(
            words("phone", json!(4155550123u64)).unwrap(),
            "4155550123 is not a phone number: give it as text in international format, like \
             +14155550123"
        );
        assert_eq!(words("phone", json!("+1 415 555 0123")), None);
    }

    #[test]
    fn without_the_value_the_format_words_alone() {
        assert_eq!(
            format_refused("date", None).unwrap(),
            "is not a date: give it as year-month-day, like 2026-10-16"
        );
        assert_eq!(format_refused("uint8", None), None);
        assert_eq!(words("uint8", json!(300)), None);
    }
}
