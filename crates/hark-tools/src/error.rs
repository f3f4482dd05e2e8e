//! The errors a tool call can end with, and the text the model reads for each.
//!
//! Model text and event text are kept apart. Guide: `docs/guide/refusals.md`,
//! `docs/guide/webhooks.md`.

use serde_json::{Map, Value, json};

/// Why a tool call did not produce a result.
///
/// `ToolError` is what a tool function, a custom [`ToolExecutor`](crate::ToolExecutor) or the
/// registry returns for a failure the model should read. Its [`model_text`](Self::model_text)
/// reaches the model exactly as written. Its [`event_text`](Self::event_text) is what sinks and
/// logs get: by default the same text, but a webhook sets it to the HTTP status only, so that text
/// another service sent never reaches a sink.
///
/// A refusal ([`ToolError::refused`]) is a `ToolError` whose JSON reads `{"refused": …}`; an
/// [`ArgumentsMissing`](ToolError::arguments_missing) refusal also lists the missing arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{model_text}")]
pub struct ToolError {
    model_text: String,
    event_text: Option<String>,
    kind: ToolErrorKind,
}

/// Which kind of [`ToolError`] this is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The tool ran, or tried to, and failed: the model reads `{"error": text}`.
    Failed,
    /// The tool did not run: the model reads `{"refused": text}` and acts on its hint.
    Refused,
    /// Required arguments were absent or blank: `{"refused": text, "missing": [names]}`.
    ArgumentsMissing(Vec<String>),
    /// Arguments failed the schema check or could not be decoded: one line per problem
    /// (`party: 40 is greater than the maximum of 12`). The model reads `{"refused": text}`; sinks
    /// get only field names and keywords.
    InvalidArguments(Vec<String>),
    /// Any failure the model must not read the details of: it reads "`<tool>` failed before
    /// completing. Do not claim success." and the details go only to the log.
    Internal,
    /// The call was cancelled (the caller talked over a tool whose interruption rule cancels):
    /// sinks see `tool.failed` with the error `cancelled`.
    Cancelled,
}

impl ToolError {
    /// A failure whose text the model reads as written, e.g.
    /// `"No table is free that day. Offer another day."`.
    pub fn new(model_text: impl Into<String>) -> Self {
        Self {
            model_text: model_text.into(),
            event_text: None,
            kind: ToolErrorKind::Failed,
        }
    }

    /// A refusal: the tool did not run; the model reads `{"refused": text}`.
    pub fn refused(model_text: impl Into<String>) -> Self {
        Self {
            model_text: model_text.into(),
            event_text: None,
            kind: ToolErrorKind::Refused,
        }
    }

    /// The `ArgumentsMissing` refusal: `{"refused": text, "missing": [names]}`.
    pub fn arguments_missing(model_text: impl Into<String>, missing: Vec<String>) -> Self {
        Self {
            model_text: model_text.into(),
            event_text: None,
            kind: ToolErrorKind::ArgumentsMissing(missing),
        }
    }

    /// Arguments that failed a check: `lines` are what the model reads (each `path: reason`),
    /// `event_text` what sinks and logs get (field names and keywords, never a value).
    pub fn invalid_arguments(lines: Vec<String>, event_text: impl Into<String>) -> Self {
        Self {
            model_text: lines.join("\n"),
            event_text: Some(event_text.into()),
            kind: ToolErrorKind::InvalidArguments(lines),
        }
    }

    /// A failure whose details the model must not read (a bug, a broken dependency). The
    /// registry shows the model "`<tool>` failed before completing. Do not claim success." and
    /// logs `details`.
    pub fn internal(details: impl std::fmt::Display) -> Self {
        let details = details.to_string();
        Self {
            model_text: details.clone(),
            event_text: Some(details),
            kind: ToolErrorKind::Internal,
        }
    }

    /// A cancelled call; the model reads `{"error": "cancelled"}`.
    pub fn cancelled() -> Self {
        Self {
            model_text: "cancelled".into(),
            event_text: None,
            kind: ToolErrorKind::Cancelled,
        }
    }

    /// Sets the text sinks and logs get instead of the model text (e.g. `"HTTP 500"`).
    pub fn with_event_text(mut self, event_text: impl Into<String>) -> Self {
        self.event_text = Some(event_text.into());
        self
    }

    /// The same error with the text the model reads replaced (the registry uses it to put the
    /// tool's name into the texts of `InvalidArguments` and `Internal`).
    pub(crate) fn with_model_text(mut self, model_text: String) -> Self {
        self.model_text = model_text;
        self
    }

    /// The text the model reads.
    pub fn model_text(&self) -> &str {
        &self.model_text
    }

    /// The text sinks and logs get: the event text if one was set, else the model text.
    pub fn event_text(&self) -> &str {
        self.event_text.as_deref().unwrap_or(&self.model_text)
    }

    /// Which kind of error this is.
    pub fn kind(&self) -> &ToolErrorKind {
        &self.kind
    }

    /// True for a refusal (`Refused` or `ArgumentsMissing`): the tool did not run.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self.kind,
            ToolErrorKind::Refused
                | ToolErrorKind::ArgumentsMissing(_)
                | ToolErrorKind::InvalidArguments(_)
        )
    }

    /// The JSON object the model reads for this error:
    /// `{"error": text}`, `{"refused": text}` or `{"refused": text, "missing": [..]}`.
    pub fn to_model_json(&self) -> Value {
        match &self.kind {
            ToolErrorKind::Failed | ToolErrorKind::Cancelled | ToolErrorKind::Internal => {
                json!({"error": self.model_text})
            }
            ToolErrorKind::Refused | ToolErrorKind::InvalidArguments(_) => {
                json!({"refused": self.model_text})
            }
            ToolErrorKind::ArgumentsMissing(missing) => {
                let mut map = Map::new();
                map.insert("refused".into(), Value::String(self.model_text.clone()));
                map.insert("missing".into(), json!(missing));
                Value::Object(map)
            }
        }
    }
}

/// Why a text is not a phone number, so the refusal can say what to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhoneFault {
    /// It has letters (`"call me maybe"`).
    Letters,
    /// It does not start with `+` and a country code (`"4155550123"`).
    NoCountryCode,
    /// It starts with `+` and digits that are no country code (`"+999 1234567"`).
    UnknownCountryCode,
    /// Too few digits for a phone number (`"+1 12"`).
    TooShort,
    /// More digits than a phone number has (more than 15).
    TooLong,
    /// Digits that fit no number of its country (`"+1 099 555 0123"`).
    NoSuchNumber,
}

pub use hark_schema::ArgumentsFault;
