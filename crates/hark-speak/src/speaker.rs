//! Values spoken in the call's language and timezone.
//!
//! A value is said by its output field's JSON Schema format, in the call's language. A date
//! reads “tomorrow, October 16” with a timezone and “Friday, October 16, 2026” without one. A
//! date-time adds the time, a time reads “9:00 AM”, a phone is grouped, and a Literal or Enum
//! value is said as words. Any other value is said as it is. Month and weekday names, relative day
//! words and date-time joins all come from CLDR data through ICU4X; nothing is hand-written but the
//! yes/no words.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use fixed_decimal::Decimal;
use icu_calendar::{Date as IcuDate, Iso};
use icu_datetime::options::TimePrecision;
use icu_datetime::{DateTimeFormatter, NoCalendarFormatter, fieldsets};
use icu_experimental::relativetime::options::Numeric;
use icu_experimental::relativetime::{RelativeTimeFormatter, RelativeTimeFormatterOptions};
use icu_time::{DateTime as IcuDateTime, Time as IcuTime};
use jiff::Timestamp;
use jiff::civil;
use jiff::fmt::temporal::{Pieces, PiecesOffset};
use jiff::tz::TimeZone;
use serde_json::Value;

use crate::template::SpokenValue;
use crate::{locale, messages};

/// How a value is said, from its output field's JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SayAs {
    /// Any other value: strings as they are, numbers as JSON prints them, booleans as the
    /// language's yes/no, objects and lists as compact JSON.
    #[default]
    Plain,
    /// `format: "date"`, a `YYYY-MM-DD` string.
    Date,
    /// `format: "date-time"`, an RFC 3339 string (offset or `Z`; without one it is taken as the
    /// call's local time).
    DateTime,
    /// `format: "time"`, `HH:MM[:SS[.fff]]`, an offset after it is ignored.
    Time,
    /// `format: "phone"`, the Phone type's format: a number, with `+` and country code or in the
    /// national form of the call's region.
    Phone,
    /// An enum or `Literal` value: said as words (`future_day` → "future day").
    Words,
}

impl SayAs {
    /// Picks how to say a value from its JSON Schema `format` and whether the field is an enum or
    /// a `Literal`. Unknown formats are [`SayAs::Plain`]; `is_enum` wins over the format.
    pub fn from_format(format: Option<&str>, is_enum: bool) -> SayAs {
        if is_enum {
            return SayAs::Words;
        }
        match format {
            Some("date") => SayAs::Date,
            Some("date-time" | "local-date-time") => SayAs::DateTime,
            Some("time") => SayAs::Time,
            Some("phone") => SayAs::Phone,
            _ => SayAs::Plain,
        }
    }

    /// Picks how to say a value from a field's JSON Schema (with `$ref`s already resolved by the
    /// caller): reads `format`, `enum` and `const`, and looks inside `anyOf`/`oneOf` branches that
    /// are not `{"type": "null"}`, so `Optional[date]` and `Optional[Literal[...]]` are found.
    pub fn from_schema(schema: &Value) -> SayAs {
        let Some(object) = schema.as_object() else {
            return SayAs::Plain;
        };
        if object.contains_key("enum") || object.contains_key("const") {
            return SayAs::Words;
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            return SayAs::from_format(Some(format), false);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = object.get(key).and_then(Value::as_array) {
                for branch in branches {
                    let is_null = branch.get("type").and_then(Value::as_str) == Some("null");
                    if !is_null {
                        let found = SayAs::from_schema(branch);
                        if found != SayAs::Plain {
                            return found;
                        }
                    }
                }
            }
        }
        SayAs::Plain
    }
}

/// The time source of a [`Speaker`], so "today" is exact in tests (DESIGN: time is injected).
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> Timestamp;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock stopped at one instant (tests, replays).
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

/// A speaker that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpeakerError {
    /// The time zone name is not in the IANA tz database (bundled with the binary).
    #[error("{}", messages::unknown_time_zone(name, suggestion.as_deref()))]
    UnknownTimeZone {
        /// The name as given.
        name: String,
        /// The nearest name of the tz database, when one is near.
        suggestion: Option<String>,
    },
    /// The language tag is not BCP 47, or its language has no date and time data.
    #[error("{}", messages::unknown_language(tag, suggestion.as_deref()))]
    UnknownLanguage {
        /// The tag as given.
        tag: String,
        /// The nearest language code, when one is near.
        suggestion: Option<String>,
    },
    /// ICU data for English failed to load. Cannot happen with the compiled data; kept so a
    /// broken build says so instead of panicking.
    #[error("date and time data failed to load: {detail}")]
    Data {
        /// ICU's error text.
        detail: String,
    },
}

/// Says values in one call's language and timezone. Build once per call; the ICU formatters are
/// built in [`Speaker::new`] and reused for every value. `Send + Sync`.
///
/// What each [`SayAs`] gives (en-US, timezone America/New_York, today 2026-10-15):
///
/// | SayAs | value | said |
/// | --- | --- | --- |
/// | `Date` | `"2026-10-16"` | `tomorrow, October 16` |
/// | `Date` | `"2026-10-20"` | `Tuesday, October 20, 2026` |
/// | `Date` (no timezone) | `"2026-10-16"` | `Friday, October 16, 2026` |
/// | `DateTime` | `"2026-10-16T13:00:00Z"` | `tomorrow, October 16 at 9:00 AM` |
/// | `Time` | `"09:00"` | `9:00 AM` |
/// | `Phone` | `"+14155550123"` | `415 555 0123` |
/// | `Words` | `"future_day"` | `future day` |
/// | `Plain` | `true` | `yes` |
///
/// Rules:
/// - A date within one day of today in the call's timezone (yesterday, today, tomorrow) reads as
///   ICU's relative day word (numeric = auto), a comma, and the month and day; any other date,
///   or any date when the speaker has no timezone, reads weekday, month, day and year. The year
///   is always said outside ±1 day, so a date never reads ambiguous.
/// - A date-time is moved into the call's timezone (DST-correct, via jiff's tz database), then
///   said as the date above joined to the time by the language's own date-time pattern ("at" in
///   en, "a las" in es, "à" in fr, "um" in de). Without a timezone it is said in the offset it
///   was written with.
/// - A time reads hours and minutes in the language's style ("9:00 AM" in en-US, "09:00" in es,
///   fr, de). A time is said as written; its offset, if any, is ignored.
/// - ICU puts U+202F (narrow no-break space) before "AM"/"PM" and may use U+00A0; both are
///   replaced by a plain space, which every TTS engine reads the same way.
/// - A phone is parsed with libphonenumber metadata. A number of the call's region (the
///   language tag's region, like `US` in `en-US`), or any number when the tag has no region, is
///   said in the national grouping ("415 555 0123"); a number of another country in the
///   international grouping ("+33 6 12 34 56 78"). Digit groups are joined by spaces: TTS reads
///   groups. A number that does not parse is said as written.
/// - A value that does not parse for its format (a date that is not a date) is said as it is.
#[derive(Debug)]
pub struct Speaker {
    language: String,
    time_zone: Option<TimeZone>,
    clock: Arc<dyn Clock>,
    full_date: DateTimeFormatter<fieldsets::YMDE>,
    month_day: DateTimeFormatter<fieldsets::MD>,
    full_date_time: DateTimeFormatter<fieldsets::YMDET>,
    month_day_time: DateTimeFormatter<fieldsets::MDT>,
    time: NoCalendarFormatter<fieldsets::T>,
    /// Relative day words for -1, 0, +1.
    relative_days: [String; 3],
    region: Option<phonenumber::country::Id>,
}

impl Speaker {
    /// A speaker for `language` (BCP 47, like `en-US`) and an optional IANA `time_zone` (like
    /// `America/New_York`), on the system clock.
    ///
    /// `_` is read as `-` (`en_US` is `en-US`). A tag that is not BCP 47, or names a language
    /// without CLDR date data, is [`SpeakerError::UnknownLanguage`]; an unknown time zone is
    /// [`SpeakerError::UnknownTimeZone`] (both checked by [`crate::locale`]).
    pub fn new(language: &str, time_zone: Option<&str>) -> Result<Speaker, SpeakerError> {
        Speaker::with_clock(language, time_zone, Arc::new(SystemClock))
    }

    /// Like [`Speaker::new`] with the clock that decides "today".
    pub fn with_clock(
        language: &str,
        time_zone: Option<&str>,
        clock: Arc<dyn Clock>,
    ) -> Result<Speaker, SpeakerError> {
        let time_zone = time_zone.map(locale::time_zone).transpose()?;
        let locale = locale::locale(language)?;
        let data = |e: &dyn fmt::Display| SpeakerError::Data {
            detail: e.to_string(),
        };
        let full_date = DateTimeFormatter::try_new(locale.clone().into(), fieldsets::YMDE::long())
            .map_err(|e| data(&e))?;
        let month_day = DateTimeFormatter::try_new(locale.clone().into(), fieldsets::MD::long())
            .map_err(|e| data(&e))?;
        let full_date_time = DateTimeFormatter::try_new(
            locale.clone().into(),
            fieldsets::YMDE::long().with_time_hm(),
        )
        .map_err(|e| data(&e))?;
        let month_day_time =
            DateTimeFormatter::try_new(locale.clone().into(), fieldsets::MD::long().with_time_hm())
                .map_err(|e| data(&e))?;
        let time = NoCalendarFormatter::try_new(
            locale.clone().into(),
            fieldsets::T::short().with_time_precision(TimePrecision::Minute),
        )
        .map_err(|e| data(&e))?;
        let relative = RelativeTimeFormatter::try_new_long_day(
            locale.clone().into(),
            RelativeTimeFormatterOptions::default().with_numeric(Numeric::Auto),
        )
        .map_err(|e| data(&e))?;
        let relative_days = [-1i32, 0, 1].map(|n| relative.format(Decimal::from(n)).to_string());
        let region = locale
            .id
            .region
            .and_then(|r| r.as_str().parse::<phonenumber::country::Id>().ok());
        Ok(Speaker {
            language: locale.id.language.as_str().to_owned(),
            time_zone,
            clock,
            full_date,
            month_day,
            full_date_time,
            month_day_time,
            time,
            relative_days,
            region,
        })
    }

    /// The language subtag spoken, like `en`.
    pub fn language(&self) -> &str {
        &self.language
    }

    /// The call's timezone, if any.
    pub fn time_zone(&self) -> Option<&TimeZone> {
        self.time_zone.as_ref()
    }

    /// Says one value (see the type's doc for the rules).
    pub fn say(&self, value: &SpokenValue<'_>) -> String {
        let mut out = String::new();
        self.say_into(value, &mut out);
        out
    }

    /// Says one value, appended to `out`.
    pub fn say_into(&self, value: &SpokenValue<'_>, out: &mut String) {
        let v = value.value.as_ref();
        let text = v.as_str();
        match (value.say_as, text) {
            (SayAs::Date, Some(s)) => {
                if let Ok(date) = s.trim().parse::<civil::Date>() {
                    return self.date_into(date, None, out);
                }
            }
            (SayAs::DateTime, Some(s)) => {
                if let Some(dt) = self.local_date_time(s.trim()) {
                    return self.date_into(dt.date(), Some(dt.time()), out);
                }
            }
            (SayAs::Time, Some(s)) => {
                if let Some(time) = parse_time(s.trim()) {
                    return push_formatted(out, self.time.format(&icu_time(time)));
                }
            }
            (SayAs::Phone, Some(s)) => {
                if let Some(grouped) = self.phone(s) {
                    out.push_str(&grouped);
                    return;
                }
            }
            (SayAs::Words, Some(s)) => return push_words(s, out),
            _ => {}
        }
        match v {
            Value::String(s) => out.push_str(s),
            Value::Bool(b) => out.push_str(messages::yes_no(&self.language, *b)),
            Value::Null => {}
            other => {
                let _ = write!(out, "{other}");
            }
        }
    }

    /// The civil date-time a date-time value reads as in the call's timezone.
    fn local_date_time(&self, s: &str) -> Option<civil::DateTime> {
        let pieces = Pieces::parse(s).ok()?;
        let civil = pieces.date().to_datetime(pieces.time()?);
        let offset = match pieces.offset() {
            Some(PiecesOffset::Numeric(n)) => Some(n.offset()),
            Some(PiecesOffset::Zulu) => Some(jiff::tz::Offset::UTC),
            _ => None,
        };
        match (&self.time_zone, offset) {
            (Some(tz), Some(offset)) => {
                let instant = offset.to_timestamp(civil).ok()?;
                Some(instant.to_zoned_datetime(tz.clone()).datetime())
            }
            _ => Some(civil),
        }
    }

    fn date_into(&self, date: civil::Date, time: Option<civil::Time>, out: &mut String) {
        let Ok(icu_date) =
            IcuDate::try_new_iso(i32::from(date.year()), date.month() as u8, date.day() as u8)
        else {
            let _ = write!(out, "{date}");
            return;
        };
        let relative = self.time_zone.as_ref().and_then(|tz| {
            let today = self.clock.now().to_zoned_datetime(tz.clone()).date();
            let days = date.since(today).ok()?.get_days();
            match days {
                -1..=1 => Some(&self.relative_days[(days + 1) as usize]),
                _ => None,
            }
        });
        match (relative, time) {
            (Some(word), None) => {
                out.push_str(word);
                out.push_str(", ");
                push_formatted(out, self.month_day.format(&icu_date));
            }
            (Some(word), Some(t)) => {
                out.push_str(word);
                out.push_str(", ");
                let dt = icu_date_time(icu_date, t);
                push_formatted(out, self.month_day_time.format(&dt));
            }
            (None, None) => push_formatted(out, self.full_date.format(&icu_date)),
            (None, Some(t)) => {
                let dt = icu_date_time(icu_date, t);
                push_formatted(out, self.full_date_time.format(&dt));
            }
        }
    }

    fn phone(&self, s: &str) -> Option<String> {
        let number = phonenumber::parse(self.region, s.trim()).ok()?;
        if !number.is_valid() {
            return None;
        }
        let national = match (self.region, number.country().id()) {
            (None, _) => true,
            (Some(mine), Some(theirs)) => mine == theirs,
            (Some(_), None) => false,
        };
        let mode = if national {
            phonenumber::Mode::National
        } else {
            phonenumber::Mode::International
        };
        let formatted = number.format().mode(mode).to_string();
        Some(group_digits(&formatted))
    }
}

fn icu_time(t: civil::Time) -> IcuTime {
    // jiff's civil::Time fields are always in range, so this cannot fail; midnight is the
    // fallback all the same, never a panic.
    IcuTime::try_new(
        t.hour() as u8,
        t.minute() as u8,
        t.second() as u8,
        t.subsec_nanosecond() as u32,
    )
    .unwrap_or(IcuTime::start_of_day())
}

fn icu_date_time(date: IcuDate<Iso>, t: civil::Time) -> IcuDateTime<Iso> {
    IcuDateTime {
        date,
        time: icu_time(t),
    }
}

/// Appends ICU output with U+202F / U+00A0 turned into plain spaces.
fn push_formatted(out: &mut String, formatted: impl fmt::Display) {
    let start = out.len();
    let _ = write!(out, "{formatted}");
    if out[start..].contains(['\u{202f}', '\u{a0}']) {
        let fixed = out[start..].replace(['\u{202f}', '\u{a0}'], " ");
        out.truncate(start);
        out.push_str(&fixed);
    }
}

/// `HH:MM[:SS[.fff]]` with an optional offset (`Z`, `+02:00`) that is dropped.
fn parse_time(s: &str) -> Option<civil::Time> {
    let bare = s
        .strip_suffix(['Z', 'z'])
        .or_else(|| {
            s.get(5..)
                .and_then(|rest| rest.find(['+', '-']).map(|k| &s[..5 + k]))
        })
        .unwrap_or(s);
    bare.parse::<civil::Time>().ok()
}

/// Digit groups of a formatted number joined by single spaces, keeping a leading `+`:
/// `(415) 555-0123` → `415 555 0123`, `+33 6 12 34 56 78` stays.
fn group_digits(formatted: &str) -> String {
    let mut out = String::with_capacity(formatted.len());
    if formatted.trim_start().starts_with('+') {
        out.push('+');
    }
    for group in formatted
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
    {
        if !out.is_empty() && out != "+" {
            out.push(' ');
        }
        out.push_str(group);
    }
    out
}

/// An enum word as words: splits on `_`, `-`, spaces and camelCase humps; lowercases words that
/// are only capitalised (`inProgress` → "in progress", `IN_PROGRESS` → "in progress") and keeps
/// acronyms inside mixed-case values (`sendSMS` → "send SMS").
fn push_words(s: &str, out: &mut String) {
    let letters = s.chars().filter(|c| c.is_alphabetic());
    let screaming = s.contains(['_', '-', ' ']) && letters.clone().all(char::is_uppercase);
    let mut words: Vec<String> = Vec::new();
    for chunk in s.split(['_', '-', ' ']).filter(|c| !c.is_empty()) {
        let chars: Vec<char> = chunk.chars().collect();
        let mut word = String::new();
        for (k, &c) in chars.iter().enumerate() {
            let prev = k.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(k + 1).copied();
            let boundary = c.is_uppercase()
                && prev.is_some_and(|p| {
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
                });
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    let start = out.len();
    for word in words {
        if out.len() > start {
            out.push(' ');
        }
        let upper = word.chars().filter(|c| c.is_uppercase()).count();
        let acronym = upper > 1 && word.chars().all(|c| !c.is_lowercase());
        if screaming || !acronym {
            out.extend(word.chars().flat_map(char::to_lowercase));
        } else {
            out.push_str(&word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> String {
        let mut out = String::new();
        push_words(s, &mut out);
        out
    }

    #[test]
    fn enum_values_as_words() {
        assert_eq!(words("future_day"), "future day");
        assert_eq!(words("inProgress"), "in progress");
        assert_eq!(words("IN_PROGRESS"), "in progress");
        assert_eq!(words("past-day"), "past day");
        assert_eq!(words("Shipped"), "shipped");
        assert_eq!(words("sendSMS"), "send SMS");
        assert_eq!(words("HTTPServer"), "HTTP server");
        assert_eq!(words("noted"), "noted");
        assert_eq!(words("VIP"), "VIP");
    }

    #[test]
    fn digit_groups() {
        assert_eq!(group_digits("(415) 555-0123"), "415 555 0123");
        assert_eq!(group_digits("+33 6 12 34 56 78"), "+33 6 12 34 56 78");
        assert_eq!(group_digits("+1 415-555-0123"), "+1 415 555 0123");
    }

    #[test]
    fn times_with_offsets() {
        assert_eq!(parse_time("09:00"), Some(civil::time(9, 0, 0, 0)));
        assert_eq!(parse_time("09:00:00Z"), Some(civil::time(9, 0, 0, 0)));
        assert_eq!(parse_time("09:30:00+02:00"), Some(civil::time(9, 30, 0, 0)));
        assert_eq!(
            parse_time("21:15:00-05:00"),
            Some(civil::time(21, 15, 0, 0))
        );
        assert_eq!(parse_time("nine"), None);
        assert_eq!(parse_time(""), None);
    }

    #[test]
    fn say_as_from_schema() {
        use serde_json::json;
        assert_eq!(
            SayAs::from_schema(&json!({"type": "string", "format": "date"})),
            SayAs::Date
        );
        assert_eq!(
            SayAs::from_schema(
                &json!({"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]})
            ),
            SayAs::DateTime
        );
        assert_eq!(
            SayAs::from_schema(&json!({"enum": ["noted", "future_day"]})),
            SayAs::Words
        );
        assert_eq!(SayAs::from_schema(&json!({"const": "held"})), SayAs::Words);
        assert_eq!(
            SayAs::from_schema(&json!({"anyOf": [{"enum": ["a"]}, {"type": "null"}]})),
            SayAs::Words
        );
        assert_eq!(
            SayAs::from_schema(&json!({"type": "string", "format": "phone"})),
            SayAs::Phone
        );
        assert_eq!(
            SayAs::from_schema(&json!({"type": "string", "format": "spelled"})),
            SayAs::Plain
        );
        assert_eq!(SayAs::from_schema(&json!(true)), SayAs::Plain);
        assert_eq!(SayAs::from_format(Some("time"), false), SayAs::Time);
        assert_eq!(SayAs::from_format(Some("date"), true), SayAs::Words);
    }

    #[test]
    fn speaker_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Speaker>();
    }
}
