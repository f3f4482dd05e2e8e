//! Values spoken in the call's language, by their JSON Schema format. Each language (en, es, fr,
//! de) pins a date, a time, a date-time across a DST change and a phone, with an injected clock.

use std::sync::Arc;

use hark_speak::{FixedClock, SayAs, Speaker, SpeakerError, SpokenValue};
use serde_json::{Value, json};

fn speaker(lang: &str, tz: Option<&str>, now: &str) -> Speaker {
    Speaker::with_clock(lang, tz, Arc::new(FixedClock(now.parse().unwrap()))).unwrap()
}

fn say(s: &Speaker, value: Value, say_as: SayAs) -> String {
    s.say(&SpokenValue::new(&value, say_as))
}

// 2026-10-15, midday in New York and evening in Europe.
const OCT_15: &str = "2026-10-15T16:00:00Z";

#[test]
fn spec_examples_in_english() {
    let ny = speaker("en-US", Some("America/New_York"), OCT_15);
    assert_eq!(
        say(&ny, json!("2026-10-16"), SayAs::Date),
        "tomorrow, October 16"
    );
    let none = speaker("en-US", None, OCT_15);
    assert_eq!(
        say(&none, json!("2026-10-16"), SayAs::Date),
        "Friday, October 16, 2026"
    );
    assert_eq!(say(&ny, json!("09:00"), SayAs::Time), "9:00 AM");
    assert_eq!(say(&ny, json!("future_day"), SayAs::Words), "future day");
}

#[test]
fn english() {
    let s = speaker("en-US", Some("America/New_York"), OCT_15);
    assert_eq!(
        say(&s, json!("2026-10-15"), SayAs::Date),
        "today, October 15"
    );
    assert_eq!(
        say(&s, json!("2026-10-14"), SayAs::Date),
        "yesterday, October 14"
    );
    assert_eq!(
        say(&s, json!("2026-10-20"), SayAs::Date),
        "Tuesday, October 20, 2026"
    );
    assert_eq!(say(&s, json!("21:30:00"), SayAs::Time), "9:30 PM");
    assert_eq!(say(&s, json!("+14155550123"), SayAs::Phone), "415 555 0123");
    assert_eq!(
        say(&s, json!("(415) 555-0123"), SayAs::Phone),
        "415 555 0123"
    );
    // A number of another country keeps its country code.
    assert_eq!(
        say(&s, json!("+33612345678"), SayAs::Phone),
        "+33 6 12 34 56 78"
    );
}

#[test]
fn english_date_time_across_us_dst_end() {
    // US clocks go back on 2026-11-01 at 02:00 EDT. Now: Saturday 2026-10-31 12:00 EDT.
    let s = speaker("en-US", Some("America/New_York"), "2026-10-31T16:00:00Z");
    // 13:00Z is 9:00 EDT (UTC-4) before the change, 14:00Z is 9:00 EST (UTC-5) after it.
    assert_eq!(
        say(&s, json!("2026-10-31T13:00:00Z"), SayAs::DateTime),
        "today, October 31 at 9:00 AM"
    );
    assert_eq!(
        say(&s, json!("2026-11-01T14:00:00Z"), SayAs::DateTime),
        "tomorrow, November 1 at 9:00 AM"
    );
    assert_eq!(
        say(&s, json!("2026-11-03T14:00:00Z"), SayAs::DateTime),
        "Tuesday, November 3, 2026 at 9:00 AM"
    );
    // An offset other than the call's is moved into the call's timezone.
    assert_eq!(
        say(&s, json!("2026-11-01T15:00:00+01:00"), SayAs::DateTime),
        "tomorrow, November 1 at 9:00 AM"
    );
}

#[test]
fn english_date_time_across_us_dst_start() {
    // US clocks go forward on 2026-03-08 at 02:00 EST. Now: Saturday 2026-03-07 12:00 EST.
    let s = speaker("en-US", Some("America/New_York"), "2026-03-07T17:00:00Z");
    assert_eq!(
        say(&s, json!("2026-03-07T14:00:00Z"), SayAs::DateTime),
        "today, March 7 at 9:00 AM"
    );
    assert_eq!(
        say(&s, json!("2026-03-08T13:00:00Z"), SayAs::DateTime),
        "tomorrow, March 8 at 9:00 AM"
    );
}

#[test]
fn date_time_without_timezone_keeps_its_written_offset() {
    let s = speaker("en-US", None, OCT_15);
    assert_eq!(
        say(&s, json!("2026-10-16T09:00:00-04:00"), SayAs::DateTime),
        "Friday, October 16, 2026 at 9:00 AM"
    );
    // A date-time without an offset is the call's local time.
    let ny = speaker("en-US", Some("America/New_York"), OCT_15);
    assert_eq!(
        say(&ny, json!("2026-10-16T09:00:00"), SayAs::DateTime),
        "tomorrow, October 16 at 9:00 AM"
    );
}

#[test]
fn relative_day_is_the_calls_day_not_utc() {
    // 2026-10-16T02:00Z is still October 15 (22:00) in New York: "tomorrow" is the 16th there,
    // while in Berlin it is already the 16th: the 16th is "today".
    let ny = speaker("en-US", Some("America/New_York"), "2026-10-16T02:00:00Z");
    assert_eq!(
        say(&ny, json!("2026-10-16"), SayAs::Date),
        "tomorrow, October 16"
    );
    let berlin = speaker("en-US", Some("Europe/Berlin"), "2026-10-16T02:00:00Z");
    assert_eq!(
        say(&berlin, json!("2026-10-16"), SayAs::Date),
        "today, October 16"
    );
}

// EU clocks go back on 2026-10-25 at 03:00 CEST. Now: Saturday 2026-10-24 12:00 CEST.
const EU_EVE: &str = "2026-10-24T10:00:00Z";

#[test]
fn spanish() {
    let s = speaker("es-ES", Some("Europe/Madrid"), OCT_15);
    assert_eq!(
        say(&s, json!("2026-10-16"), SayAs::Date),
        "mañana, 16 de octubre"
    );
    assert_eq!(
        say(&s, json!("2026-10-14"), SayAs::Date),
        "ayer, 14 de octubre"
    );
    assert_eq!(
        say(&s, json!("2026-10-20"), SayAs::Date),
        "martes, 20 de octubre de 2026"
    );
    let none = speaker("es", None, OCT_15);
    assert_eq!(
        say(&none, json!("2026-10-16"), SayAs::Date),
        "viernes, 16 de octubre de 2026"
    );
    assert_eq!(say(&s, json!("09:00"), SayAs::Time), "09:00");
    assert_eq!(say(&s, json!("+34612345678"), SayAs::Phone), "612 34 56 78");
    assert_eq!(say(&s, json!(true), SayAs::Plain), "sí");

    let eve = speaker("es-ES", Some("Europe/Madrid"), EU_EVE);
    assert_eq!(
        say(&eve, json!("2026-10-24T07:00:00Z"), SayAs::DateTime),
        "hoy, 24 de octubre a las 09:00"
    );
    assert_eq!(
        say(&eve, json!("2026-10-25T08:00:00Z"), SayAs::DateTime),
        "mañana, 25 de octubre a las 09:00"
    );
}

#[test]
fn french() {
    let s = speaker("fr-FR", Some("Europe/Paris"), OCT_15);
    assert_eq!(
        say(&s, json!("2026-10-16"), SayAs::Date),
        "demain, 16 octobre"
    );
    assert_eq!(
        say(&s, json!("2026-10-15"), SayAs::Date),
        "aujourd’hui, 15 octobre"
    );
    assert_eq!(
        say(&s, json!("2026-10-20"), SayAs::Date),
        "mardi 20 octobre 2026"
    );
    let none = speaker("fr", None, OCT_15);
    assert_eq!(
        say(&none, json!("2026-10-16"), SayAs::Date),
        "vendredi 16 octobre 2026"
    );
    assert_eq!(say(&s, json!("09:00"), SayAs::Time), "09:00");
    assert_eq!(
        say(&s, json!("+33612345678"), SayAs::Phone),
        "06 12 34 56 78"
    );
    assert_eq!(
        say(&s, json!("06 12 34 56 78"), SayAs::Phone),
        "06 12 34 56 78"
    );
    assert_eq!(say(&s, json!(false), SayAs::Plain), "non");

    let eve = speaker("fr-FR", Some("Europe/Paris"), EU_EVE);
    assert_eq!(
        say(&eve, json!("2026-10-24T07:00:00Z"), SayAs::DateTime),
        "aujourd’hui, 24 octobre à 09:00"
    );
    assert_eq!(
        say(&eve, json!("2026-10-25T08:00:00Z"), SayAs::DateTime),
        "demain, 25 octobre à 09:00"
    );
}

#[test]
fn german() {
    let s = speaker("de-DE", Some("Europe/Berlin"), OCT_15);
    assert_eq!(
        say(&s, json!("2026-10-16"), SayAs::Date),
        "morgen, 16. Oktober"
    );
    assert_eq!(
        say(&s, json!("2026-10-14"), SayAs::Date),
        "gestern, 14. Oktober"
    );
    assert_eq!(
        say(&s, json!("2026-10-20"), SayAs::Date),
        "Dienstag, 20. Oktober 2026"
    );
    let none = speaker("de", None, OCT_15);
    assert_eq!(
        say(&none, json!("2026-10-16"), SayAs::Date),
        "Freitag, 16. Oktober 2026"
    );
    assert_eq!(say(&s, json!("09:00"), SayAs::Time), "09:00");
    assert_eq!(say(&s, json!("+4930901820"), SayAs::Phone), "030 901820");
    assert_eq!(say(&s, json!(true), SayAs::Plain), "ja");

    let eve = speaker("de-DE", Some("Europe/Berlin"), EU_EVE);
    assert_eq!(
        say(&eve, json!("2026-10-24T07:00:00Z"), SayAs::DateTime),
        "heute, 24. Oktober um 09:00"
    );
    assert_eq!(
        say(&eve, json!("2026-10-25T08:00:00Z"), SayAs::DateTime),
        "morgen, 25. Oktober um 09:00"
    );
    assert_eq!(
        say(&eve, json!("2026-10-27T08:00:00Z"), SayAs::DateTime),
        "Dienstag, 27. Oktober 2026 um 09:00"
    );
}

#[test]
fn other_values_as_they_are() {
    let s = speaker("en-US", Some("America/New_York"), OCT_15);
    assert_eq!(say(&s, json!("A-17"), SayAs::Plain), "A-17");
    assert_eq!(say(&s, json!(42), SayAs::Plain), "42");
    assert_eq!(say(&s, json!(3.5), SayAs::Plain), "3.5");
    assert_eq!(say(&s, json!(true), SayAs::Plain), "yes");
    assert_eq!(say(&s, json!({"a": 1}), SayAs::Plain), "{\"a\":1}");
    assert_eq!(say(&s, json!("inProgress"), SayAs::Words), "in progress");
    assert_eq!(say(&s, json!(3), SayAs::Words), "3");
}

#[test]
fn values_that_do_not_parse_are_said_as_written() {
    let s = speaker("en-US", Some("America/New_York"), OCT_15);
    assert_eq!(say(&s, json!("next week"), SayAs::Date), "next week");
    assert_eq!(say(&s, json!("2026-13-40"), SayAs::Date), "2026-13-40");
    assert_eq!(say(&s, json!("soon"), SayAs::DateTime), "soon");
    assert_eq!(say(&s, json!("25:99"), SayAs::Time), "25:99");
    assert_eq!(say(&s, json!("12"), SayAs::Phone), "12");
    assert_eq!(say(&s, json!("call me"), SayAs::Phone), "call me");
    assert_eq!(say(&s, json!(20261016), SayAs::Date), "20261016");
}

#[test]
fn phone_without_a_region_uses_the_numbers_own_grouping() {
    let s = speaker("en", None, OCT_15);
    assert_eq!(say(&s, json!("+14155550123"), SayAs::Phone), "415 555 0123");
    assert_eq!(
        say(&s, json!("+33612345678"), SayAs::Phone),
        "06 12 34 56 78"
    );
    // Without "+" and without a region the country is unknown: said as written.
    assert_eq!(say(&s, json!("4155550123"), SayAs::Phone), "4155550123");
}

#[test]
fn an_unknown_language_is_refused_never_spoken_in_english() {
    for tag in ["xx", "not a tag!", "", "english", "klingon"] {
        let err = Speaker::new(tag, None).unwrap_err();
        assert!(
            matches!(&err, SpeakerError::UnknownLanguage { tag: t, .. } if t == tag),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with(&format!(
                "language \"{tag}\" is not a language Hark can speak values in"
            )),
            "{err}"
        );
    }
    assert!(Speaker::new("de-AT", None).is_ok());
}

#[test]
fn a_posix_tag_is_read_as_bcp_47() {
    let s = speaker("en_US", None, OCT_15);
    assert_eq!(s.language(), "en");
    // The region is kept: a US number is said in the national grouping.
    assert_eq!(say(&s, json!("+14155550123"), SayAs::Phone), "415 555 0123");
}

#[test]
fn unknown_time_zone_is_an_error_naming_it() {
    let err = Speaker::new("en", Some("Mars/Olympus_Mons")).unwrap_err();
    assert_eq!(
        err,
        SpeakerError::UnknownTimeZone {
            name: "Mars/Olympus_Mons".into(),
            suggestion: None,
        }
    );
    assert_eq!(
        err.to_string(),
        "timezone \"Mars/Olympus_Mons\" is not a timezone of the tz database. \
         Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
    );
}
