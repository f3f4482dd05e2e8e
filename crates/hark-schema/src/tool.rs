//! A tool as a provider receives it, and a tool call's arguments as the model meant them: the two
//! plain types the provider clients (`hark-llm`) and the tool layer (`hark-tools`) share, so
//! neither crate depends on the other.

use serde_json::{Map, Value};

/// A tool the model may call. `parameters` is a JSON Schema object; the provider it is sent to
/// brings it into its dialect ([`conform`](crate::conform)), so a schema written once reaches
/// every provider in a form it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The tool's name (`[a-zA-Z0-9_-]{1,64}` for every provider).
    pub name: String,
    /// What the tool does, as the model reads it.
    pub description: String,
    /// The arguments' JSON Schema (root `type: object`). Sent as it is when it keeps the
    /// provider's rules, else in the provider's dialect ([`conform`](crate::conform)).
    pub parameters: Value,
    /// Sends `strict: true` (OpenAI structured outputs, Anthropic strict tool use); ignored by
    /// Gemini. The schema must then be in the strict dialect.
    pub strict: bool,
}

impl ToolDefinition {
    /// A non-strict tool definition.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            strict: false,
        }
    }
}

/// The arguments of one tool call, read once where they arrive (the provider's stream): a JSON
/// object, or a text that is none even after repair, which the tool layer refuses in a sentence
/// the model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolArguments {
    /// The arguments as a JSON object (`{}` for a call without arguments, see
    /// [`no_arguments`]).
    Object(Map<String, Value>),
    /// Not a JSON object, even after repair: the tool does not run.
    Unreadable {
        /// Why, in a sentence for the log (never a value of the arguments).
        reason: String,
    },
}

impl ToolArguments {
    /// No arguments: `{}`.
    pub fn empty() -> Self {
        Self::Object(Map::new())
    }

    /// The object, when the arguments could be read.
    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Self::Object(map) => Some(map),
            Self::Unreadable { .. } => None,
        }
    }
}

/// The one rule for arguments that say nothing: a text that is blank or the JSON `null` (spaces
/// around allowed) means `{}`. Every provider's stream, the history a provider reads back and the
/// tool layer's own entry ask this; a parsed `null` value means `{}` by the same rule.
pub fn no_arguments(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text == "null"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_and_null_mean_no_arguments_and_nothing_else_does() {
        for text in ["", "  ", "null", " null\n"] {
            assert!(no_arguments(text), "{text:?}");
        }
        for text in ["{}", "\"\"", "nul", "[]", "0"] {
            assert!(!no_arguments(text), "{text:?}");
        }
    }
}
