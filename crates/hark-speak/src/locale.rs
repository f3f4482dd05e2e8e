//! A call's language and timezone, checked where they are given: the one check every kind of
//! agent (Rust agents, agent files, the Python package's Pipecat and LiveKit adapters) goes
//! through, so they accept and refuse the same values with the same texts.
//!
//! - A language is a BCP 47 tag (`en-US`, `es`, `fr-CA`); `_` is read as `-` (`en_US` is
//!   `en-US`). A tag whose language has no CLDR date data, so Hark could not say dates, times
//!   and numbers in it (`xx`, `english`, `klingon`), is refused, never spoken in English instead.
//! - A timezone is a name of the IANA tz database bundled with the binary (`Europe/Paris`).
//!
//! Each refusal names the value, says what is accepted and, when one is near, suggests it.
//!
//! ```
//! use hark_speak::locale::{language_tag, time_zone};
//! assert_eq!(language_tag("en_US").unwrap(), "en-US");
//! let err = time_zone("Europe/Pariss").unwrap_err();
//! assert!(err.to_string().starts_with(
//!     "timezone \"Europe/Pariss\" is not a timezone of the tz database; did you mean \"Europe/Paris\"?"
//! ));
//! assert!(language_tag("english").unwrap_err().to_string().contains("did you mean \"en\"?"));
//! ```

use std::sync::OnceLock;

use icu_datetime::{DateTimeFormatter, fieldsets};
use icu_experimental::displaynames::DisplayNamesOptions;
use icu_experimental::displaynames::multi::LanguageDisplayNames;
use icu_locale_core::Locale;
use icu_locale_core::subtags::Language;
use jiff::tz::TimeZone;

use crate::SpeakerError;

/// The language tag `tag` as Hark reads it (`_` for `-`, BCP 47's canonical letter case, like
/// `en-US`), or [`SpeakerError::UnknownLanguage`] when it is not a tag of a language Hark can
/// speak values in.
pub fn language_tag(tag: &str) -> Result<String, SpeakerError> {
    locale(tag).map(|l| l.to_string())
}

/// The ICU locale of `tag` (see [`language_tag`]).
pub fn locale(tag: &str) -> Result<Locale, SpeakerError> {
    let normal = tag.trim().replace('_', "-");
    match normal.parse::<Locale>() {
        Ok(locale) if has_date_data(&locale) => Ok(locale),
        _ => Err(SpeakerError::UnknownLanguage {
            tag: tag.to_owned(),
            suggestion: nearest_language(&normal),
        }),
    }
}

/// The timezone named `name` in the tz database, or [`SpeakerError::UnknownTimeZone`] naming
/// the nearest name when one is near.
pub fn time_zone(name: &str) -> Result<TimeZone, SpeakerError> {
    TimeZone::get(name.trim()).map_err(|_| SpeakerError::UnknownTimeZone {
        name: name.to_owned(),
        suggestion: nearest_zone(name.trim()),
    })
}

/// Checks a call's language and optional timezone together (the language first).
pub fn check_call(language: &str, timezone: Option<&str>) -> Result<(), SpeakerError> {
    locale(language)?;
    if let Some(zone) = timezone {
        time_zone(zone)?;
    }
    Ok(())
}

/// True when CLDR has date data for the locale's language: its long month-day differs from the
/// root locale's (`M10 16`), which is what ICU falls back to for a language it does not know.
pub(crate) fn has_date_data(locale: &Locale) -> bool {
    if locale.id.language.is_unknown() {
        return false;
    }
    let probe = icu_calendar::Date::try_new_iso(2026, 10, 16);
    let (Ok(mine), Ok(root), Ok(probe)) = (
        DateTimeFormatter::try_new(locale.clone().into(), fieldsets::MD::long()),
        DateTimeFormatter::try_new(Locale::UNKNOWN.into(), fieldsets::MD::long()),
        probe,
    ) else {
        return false;
    };
    mine.format(&probe).to_string() != root.format(&probe).to_string()
}

/// Every two-letter language Hark can speak in, with its English name (`("en", "English")`),
/// found once, the first time a suggestion is wanted.
fn languages() -> &'static [(String, String)] {
    static LANGUAGES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    LANGUAGES.get_or_init(|| {
        let names = LanguageDisplayNames::try_new(
            icu_locale_core::locale!("en").into(),
            DisplayNamesOptions::default(),
        )
        .ok();
        let mut found = Vec::new();
        for a in b'a'..=b'z' {
            for b in b'a'..=b'z' {
                let code = String::from_utf8(vec![a, b]).unwrap_or_default();
                let Ok(language) = code.parse::<Language>() else {
                    continue;
                };
                if !has_date_data(&Locale::from(icu_locale_core::LanguageIdentifier::from((
                    language, None, None,
                )))) {
                    continue;
                }
                let name = names
                    .as_ref()
                    .and_then(|n| n.of(language))
                    .unwrap_or("")
                    .to_owned();
                found.push((code, name));
            }
        }
        found
    })
}

/// The language code nearest `tag`: the language whose English name it is (`english` → `en`,
/// letter case aside), else the one whose name it misspells by at most a letter or two, else the
/// tag's own language subtag when only its rest is wrong. Two- and three-letter codes that are
/// not languages get no guess: a letter off is another language, not a typo.
fn nearest_language(tag: &str) -> Option<String> {
    let word = tag.trim().to_lowercase();
    if word.is_empty() {
        return None;
    }
    let primary = word.split(['-', ' ']).next().unwrap_or("");
    let langs = languages();
    if let Some((code, _)) = langs.iter().find(|(code, _)| code == primary) {
        return Some(code.clone());
    }
    let by_name = |w: &str| {
        langs
            .iter()
            .filter(|(_, name)| !name.is_empty())
            .map(|(code, name)| (strsim::levenshtein(w, &name.to_lowercase()), code))
            .min()
            .filter(|(d, _)| *d <= (w.chars().count() / 4).max(if w.len() > 3 { 1 } else { 0 }))
            .map(|(_, code)| code.clone())
    };
    by_name(&word).or_else(|| (primary != word).then(|| by_name(primary)).flatten())
}

/// The tz database name nearest `name`: the same name in another letter case, the one zone
/// whose last part it is (`Paris` → `Europe/Paris`), else the name at the smallest edit distance
/// when it is a quarter of the name's letters away at most (one to three edits).
fn nearest_zone(name: &str) -> Option<String> {
    if name.is_empty() {
        return None;
    }
    let wanted = name.to_lowercase();
    let zones: Vec<String> = jiff::tz::db()
        .available()
        .map(|z| z.as_str().to_owned())
        .collect();
    let mut by_city = zones.iter().filter(|z| {
        z.rsplit('/')
            .next()
            .is_some_and(|city| city.to_lowercase() == wanted.replace(' ', "_"))
            && z.contains('/')
    });
    if let (Some(one), None) = (by_city.next(), by_city.next()) {
        return Some(one.clone());
    }
    zones
        .iter()
        .map(|z| (strsim::levenshtein(&wanted, &z.to_lowercase()), z))
        .min()
        .filter(|(d, _)| *d <= (wanted.chars().count() / 4).clamp(1, 3))
        .map(|(_, z)| z.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_underscore_tag_is_read_as_bcp_47() {
        assert_eq!(language_tag("en_US").unwrap(), "en-US");
        assert_eq!(language_tag("fr_ca").unwrap(), "fr-CA");
        assert_eq!(language_tag("es").unwrap(), "es");
    }

    #[test]
    fn unknown_languages_are_refused_with_the_nearest() {
        let text = |tag: &str| language_tag(tag).unwrap_err().to_string();
        assert_eq!(
            text("xx"),
            "language \"xx\" is not a language Hark can speak values in. \
             Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" (en_US is read as en-US)."
        );
        assert_eq!(
            text("english"),
            "language \"english\" is not a language Hark can speak values in; did you mean \"en\"? \
             Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" (en_US is read as en-US)."
        );
        assert!(text("Spanish").contains("did you mean \"es\"?"));
        assert!(text("klingon").starts_with("language \"klingon\" is not a language Hark can"));
        assert!(text("").starts_with("language \"\" is not a language"));
    }

    #[test]
    fn unknown_timezones_are_refused_with_the_nearest() {
        let text = |name: &str| time_zone(name).unwrap_err().to_string();
        assert_eq!(
            text("Europe/Pariss"),
            "timezone \"Europe/Pariss\" is not a timezone of the tz database; did you mean \"Europe/Paris\"? \
             Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
        );
        assert!(text("Madrid").contains("did you mean \"Europe/Madrid\"?"));
        assert_eq!(
            text("Mars/Olympus_Mons"),
            "timezone \"Mars/Olympus_Mons\" is not a timezone of the tz database. \
             Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
        );
        assert!(time_zone("Europe/Paris").is_ok());
        assert!(time_zone("UTC").is_ok());
    }
}
