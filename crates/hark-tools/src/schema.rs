//! Schemas: building them from Rust types, the schema the model reads, provider dialects, and
//! schema helpers for argument types schemars does not know (jiff civil dates and times).
//!
//! Guide: `docs/guide/providers-and-schema-dialects.md`.
//! The normalisation itself lives in the `hark-schema` crate; this module is the one place the
//! tool layer calls it.

use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use serde_json::Value;

pub use hark_schema::Dialect;

/// The JSON Schema (draft 2020-12, nested types under `$defs`) of a Rust type, as schemars writes
/// it. Doc comments become descriptions; `#[schemars(range(..), length(..), regex(..))]` become
/// limits.
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    generator.into_root_schema_for::<T>().to_value()
}

/// The schema the model reads for a hand-written or generated parameters schema: optional
/// values with a null default lose that branch, `format`/`pattern` become words, local `$ref`s
/// are inlined, and hand-written-schema violations (`definitions`, `$id`, `nullable`, root
/// keywords) are refused, one line per problem naming the keyword and the fix.
pub fn model_schema(schema: &Value) -> Result<Value, Vec<String>> {
    hark_schema::normalise(schema)
        .map_err(|errors| errors.0.iter().map(|e| e.to_string()).collect())
}

/// A normalised schema in one provider's dialect; a keyword the dialect refuses moves into the
/// description. `Err` lines name the keyword a dialect cannot express, or a rule of the
/// provider the result still breaks (`hark_schema::provider_rule_breaks`: a Gemini array
/// without `items`, an object without fields), so the tool is left out here rather than
/// refused by the provider.
pub fn dialect_schema(normalised: &Value, dialect: Dialect) -> Result<Value, Vec<String>> {
    let converted = hark_schema::for_dialect(normalised, dialect)
        .map_err(|errors| errors.0.iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    // A tool without arguments goes to Gemini without `parameters` (the empty root is fine).
    if hark_schema::takes_no_arguments(&converted) {
        return Ok(converted);
    }
    let breaks = hark_schema::provider_rule_breaks(&converted, dialect);
    if breaks.is_empty() {
        Ok(converted)
    } else {
        Err(breaks.iter().map(|e| e.to_string()).collect())
    }
}

/// Drops the root `description` schemars writes for the arguments struct `#[tool]` generates
/// from its doc comment ("The arguments of the book_table tool…"): noise in every request; the
/// tool's own description says what it does. An input model of your own (`#[input]`) keeps its
/// description. (The root `title`, a Rust type's name, is dropped for every typed tool.)
#[doc(hidden)]
pub fn generated_arguments(schema: &mut Schema) {
    if let Some(root) = schema.as_object_mut() {
        root.remove("description");
    }
}

/// Schema of a `jiff::civil::Date` argument: `{"type": "string", "format": "date"}` (the model
/// reads "a date written year-month-day"). Use it on your own input models:
/// `#[schemars(schema_with = "hark_tools::schema::date")] day: jiff::civil::Date`.
/// The `#[tool]` macro adds it by itself to parameters typed `Date`.
pub fn date(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "date"})
}

/// Schema of an `Option<jiff::civil::Date>`: a date or `null`. On your own input model add
/// `#[serde(default)]` beside it, or the argument is required (a schema of its own hides the
/// `Option` from schemars); the `#[tool]` macro adds it by itself.
pub fn optional_date(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["string", "null"], "format": "date"})
}

/// Schema of a `jiff::civil::Time` argument: `{"type": "string", "format": "time"}`.
pub fn time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "time"})
}

/// Schema of an `Option<jiff::civil::Time>`: a time or `null` (with `#[serde(default)]`, as
/// for [`optional_date`]).
pub fn optional_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["string", "null"], "format": "time"})
}

/// Schema of a `jiff::civil::DateTime` argument: `{"type": "string", "format":
/// "local-date-time"}` (the model reads "a local date and time written
/// YYYY-MM-DDTHH:MM:SS, without a UTC offset"). A civil date-time has no zone to put an offset
/// in, and jiff's own reading drops one silently (`09:30-05:00` would reach you as 09:30), so
/// on your own input models pair it with
/// `#[serde(deserialize_with = "hark_tools::schema::deserialize_datetime")]`, which refuses
/// an offset; the `#[tool]` macro adds both by itself. Take a `jiff::Timestamp` for an instant.
pub fn datetime(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": LOCAL_DATE_TIME})
}

/// Schema of an `Option<jiff::civil::DateTime>`: a local date-time or `null` (with
/// `#[serde(default)]` and [`deserialize_optional_datetime`], as for [`datetime`] and
/// [`optional_date`]).
pub fn optional_datetime(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["string", "null"], "format": LOCAL_DATE_TIME})
}

/// The `format` of a civil date-time argument: a date and time of the call's own clock, with
/// no offset (hark's name; every provider reads it as words).
pub const LOCAL_DATE_TIME: &str = "local-date-time";

/// Reads a `jiff::civil::DateTime` argument, refusing one written with a UTC offset, `Z` or a
/// zone (see [`datetime`]); the model then reads the format's words.
///
/// # Errors
/// The deserializer's error when the value is no string, carries an offset or is no date and
/// time.
pub fn deserialize_datetime<'de, D>(deserializer: D) -> Result<jiff::civil::DateTime, D::Error>
where
    D: serde::Deserializer<'de>,
{
    deserializer.deserialize_str(LocalDateTime)
}

/// [`deserialize_datetime`] for an `Option<jiff::civil::DateTime>`: `null` is `None`.
///
/// # Errors
/// As [`deserialize_datetime`].
pub fn deserialize_optional_datetime<'de, D>(
    deserializer: D,
) -> Result<Option<jiff::civil::DateTime>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    deserializer.deserialize_option(OptionalLocalDateTime)
}

/// True when a date-time text carries an offset, `Z` or a zone after its time of day.
pub(crate) fn has_offset(text: &str) -> bool {
    let Some(at) = text.find(['T', 't', ' ']) else {
        return false;
    };
    text[at + 1..].contains(['+', '-', 'Z', 'z', '[', '\u{2212}'])
}

struct LocalDateTime;

impl serde::de::Visitor<'_> for LocalDateTime {
    type Value = jiff::civil::DateTime;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a local date and time without a UTC offset, like 2026-10-16T09:30:00")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if has_offset(text) {
            return Err(E::custom(
                "a local date and time has no UTC offset: give it like 2026-10-16T09:30:00",
            ));
        }
        text.parse().map_err(E::custom)
    }
}

struct OptionalLocalDateTime;

impl<'de> serde::de::Visitor<'de> for OptionalLocalDateTime {
    type Value = Option<jiff::civil::DateTime>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a local date and time, or null")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        deserialize_datetime(d).map(Some)
    }
}
