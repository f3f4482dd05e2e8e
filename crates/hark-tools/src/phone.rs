//! `Phone`: a phone number argument, normalised to E.164.
//!
//! Guide: `docs/guide/inputs-and-outputs.md` ("a clean Phone").

use std::borrow::Cow;
use std::fmt;

use phonenumber::Mode;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::messages;

/// A valid phone number in E.164 (`+14155550123`).
///
/// Deserialises from text in international format (`"+1 415-555-0123"`, `"+34 612 34 56 78"`);
/// spaces, dashes, dots and brackets are allowed. Text that is not a valid number fails with
/// "is not a phone number: give it in international format, like +14155550123", which the
/// registry shows the model with the field's name. Serialises as the E.164 text.
///
/// Its JSON Schema is `{"type": "string", "format": "phone", "description": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phone(String);

/// Why a text is not a phone number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PhoneError(String);

impl Phone {
    /// Parses a number in international format (with its `+` country code).
    pub fn parse(text: &str) -> Result<Self, PhoneError> {
        let invalid = || PhoneError(messages::not_a_phone_number());
        let number = phonenumber::parse(None, text).map_err(|_| invalid())?;
        if !phonenumber::is_valid(&number) {
            return Err(invalid());
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
    fn deserialises_inside_json() {
        let phone: Phone = serde_json::from_str("\"+1 (415) 555-0123\"").unwrap();
        assert_eq!(phone.to_string(), "+14155550123");
        assert!(serde_json::from_str::<Phone>("\"12\"").is_err());
    }
}
