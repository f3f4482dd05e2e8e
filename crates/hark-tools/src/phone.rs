//! `Phone`: a phone number argument, normalised to E.164.
//!
//! Guide: `docs/guide/inputs-and-outputs.md` ("a clean Phone").

use std::borrow::Cow;
use std::fmt;

use phonenumber::{Mode, ParseError};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::PhoneFault;
use crate::messages;

/// A valid phone number in E.164 (`+14155550123`).
///
/// Deserialises from text in international format (`"+1 415-555-0123"`, `"+34 612 34 56 78"`);
/// spaces, dashes, dots and brackets are allowed. Text that is not a valid number fails with
/// "is not a phone number: give it in international format, like +14155550123"; a tool's
/// argument refusal quotes the text and says what is wrong with it
/// (`phone: "12" has no country code: …`, see [`crate::format_refused`]). Serialises as the E.164 text.
///
/// Its JSON Schema is `{"type": "string", "format": "phone", "description": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phone(String);

/// Why a text is not a phone number. Its text never quotes the number (it may reach a log);
/// [`PhoneError::fault`] says what is wrong, for a refusal that quotes it
/// ([`crate::format_refused`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{words}")]
pub struct PhoneError {
    words: String,
    fault: PhoneFault,
}

impl PhoneError {
    /// What is wrong with the text: letters, no country code, too short…
    pub fn fault(&self) -> PhoneFault {
        self.fault
    }
}

/// Digits a phone number has at least and at most, with its country code (E.164 allows 15;
/// the shortest numbers in use have 7).
const FEWEST_DIGITS: usize = 7;
const MOST_DIGITS: usize = 15;

/// Why `text`, which is no valid number, was refused.
fn fault_of(text: &str, parsed: Result<&phonenumber::PhoneNumber, &ParseError>) -> PhoneFault {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    if text.chars().any(char::is_alphabetic) {
        PhoneFault::Letters
    } else if !text.trim_start().starts_with('+') {
        PhoneFault::NoCountryCode
    } else if matches!(parsed, Err(ParseError::InvalidCountryCode)) {
        PhoneFault::UnknownCountryCode
    } else if digits > MOST_DIGITS || matches!(parsed, Err(ParseError::TooLong)) {
        PhoneFault::TooLong
    } else if digits < FEWEST_DIGITS
        || matches!(
            parsed,
            Err(ParseError::TooShortNsn | ParseError::TooShortAfterIdd | ParseError::NoNumber)
        )
    {
        PhoneFault::TooShort
    } else {
        PhoneFault::NoSuchNumber
    }
}

impl Phone {
    /// Parses a number in international format (with its `+` country code).
    pub fn parse(text: &str) -> Result<Self, PhoneError> {
        let invalid = |fault| PhoneError {
            words: messages::not_a_phone_number(),
            fault,
        };
        let number =
            phonenumber::parse(None, text).map_err(|e| invalid(fault_of(text, Err(&e))))?;
        if !phonenumber::is_valid(&number) {
            return Err(invalid(fault_of(text, Ok(&number))));
        }
        Ok(Self(number.format().mode(Mode::E164).to_string()))
    }

    /// The number in E.164 (`+14155550123`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Phone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Phone {
    type Err = PhoneError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl Serialize for Phone {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Phone {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Phone {
    fn schema_name() -> Cow<'static, str> {
        "Phone".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "phone",
            "description": messages::PHONE_DESCRIPTION,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_to_e164() {
        assert_eq!(
            Phone::parse("+1 415-555-0123").unwrap().as_str(),
            "+14155550123"
        );
        assert_eq!(
            Phone::parse("+34 612 34 56 78").unwrap().as_str(),
            "+34612345678"
        );
    }

    #[test]
    fn refuses_garbage_without_echoing_it() {
        let error = Phone::parse("call me maybe").unwrap_err();
        assert_eq!(
            error.to_string(),
            "is not a phone number: give it in international format, like +14155550123"
        );
        assert!(Phone::parse("+1 12").is_err());
    }

    #[test]
    fn names_what_is_wrong() {
        let fault = |text: &str| Phone::parse(text).unwrap_err().fault();
        assert_eq!(fault("call me maybe"), PhoneFault::Letters);
        assert_eq!(fault("4155550123"), PhoneFault::NoCountryCode);
        assert_eq!(fault("+999 1234567"), PhoneFault::UnknownCountryCode);
        assert_eq!(fault("+1 12"), PhoneFault::TooShort);
        assert_eq!(fault("12"), PhoneFault::NoCountryCode);
        assert_eq!(fault("+1 415 555 0123 4567 89"), PhoneFault::TooLong);
        assert_eq!(fault("+1 099 555 0123"), PhoneFault::NoSuchNumber);
    }

    #[test]
    fn deserialises_inside_json() {
        let phone: Phone = serde_json::from_str("\"+1 (415) 555-0123\"").unwrap();
        assert_eq!(phone.to_string(), "+14155550123");
        assert!(serde_json::from_str::<Phone>("\"12\"").is_err());
    }
}
