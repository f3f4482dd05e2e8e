//! Provider-neutral request and reply types: what a caller hands to a [`Provider`](crate::Provider)
//! and what comes back.
//!
//! A call's turn goes history → `LlmProvider.stream` → text deltas and tool calls (see
//! `docs/ARCHITECTURE.md`, "The flow of one call"). Tool schemas are plain JSON; each
//! provider brings them into its dialect (`hark_schema::conform`) where it builds the request
//! body.

use std::collections::BTreeMap;

use futures::{Stream, StreamExt};
use hark_schema::{ToolArguments, ToolDefinition};
use serde_json::Value;

use crate::error::LlmError;

/// One request for a model turn.
///
/// Shape: a model name, the history in order, the tools the model may call, and sampling limits.
/// Tool schemas may be in any dialect `hark_schema::normalise` accepts: each provider brings
/// them into its own (`hark_schema::conform`) where it builds the body.
/// Each provider maps it to its own wire body (see [`OpenAiCompatible`](crate::OpenAiCompatible),
/// [`Anthropic`](crate::Anthropic), [`Gemini`](crate::Gemini)).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    /// The provider's model name (`gpt-4.1-mini`, `claude-sonnet-4-5`, `gemini-2.5-flash`, …).
    pub model: String,
    /// The history, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call, in the order the model should see them.
    pub tools: Vec<ToolDefinition>,
    /// Whether and which tool the model must call.
    pub tool_choice: ToolChoice,
    /// Sampling temperature (provider range, usually 0.0–2.0); `None` leaves the provider default.
    pub temperature: Option<f32>,
    /// Most tokens the reply may use; `None` leaves the provider default, except for Anthropic,
    /// which requires it and gets [`ANTHROPIC_DEFAULT_MAX_TOKENS`](crate::ANTHROPIC_DEFAULT_MAX_TOKENS).
    pub max_tokens: Option<u32>,
    /// `Some(false)` asks for at most one tool call per turn (OpenAI `parallel_tool_calls`,
    /// Anthropic `disable_parallel_tool_use`; Gemini has no such switch and ignores it).
    pub parallel_tool_calls: Option<bool>,
    /// The shape the reply text must take (OpenAI-compatible `response_format`). Anthropic and
    /// Gemini ignore it: ask for the shape in the prompt as well.
    pub response_format: Option<ResponseFormat>,
    /// `Some(n)` asks for the log-probability of every reply token and of the `n` most likely
    /// tokens at each position (OpenAI-compatible `logprobs: true`, `top_logprobs: n`; OpenAI
    /// allows `n` in 0..=20). They arrive as [`StreamEvent::Logprobs`] and in
    /// [`Completion::logprobs`]. Anthropic and Gemini ignore it; some OpenAI-compatible servers
    /// (and OpenAI's reasoning models) refuse the field with a 400.
    pub top_logprobs: Option<u8>,
}

/// The shape of the reply text (OpenAI "Structured Outputs").
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    /// Any JSON object: `{"type": "json_object"}`.
    JsonObject,
    /// JSON that fits `schema`: `{"type": "json_schema", "json_schema": {"name", "schema",
    /// "strict"}}`. With `strict`, the schema must be in the strict dialect (every property
    /// required, `additionalProperties: false`).
    JsonSchema {
        /// The schema's name (`[a-zA-Z0-9_-]{1,64}`).
        name: String,
        /// The JSON Schema the reply must fit.
        schema: Value,
        /// Sends `strict: true`: the provider guarantees the reply fits the schema.
        strict: bool,
    },
}

/// The log-probability of one reply token, with the most likely alternatives at its position.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogprob {
    /// The token's text as the provider wrote it.
    pub token: String,
    /// Its natural-log probability (`<= 0`).
    pub logprob: f64,
    /// The most likely tokens at this position with their log-probabilities, most likely first
    /// (as many as [`ChatRequest::top_logprobs`] asked for; may include `token` itself).
    pub top: Vec<(String, f64)>,
}

impl ChatRequest {
    /// A request for `model` with `messages`, no tools and provider defaults for the rest.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            ..Self::default()
        }
    }

    /// Adds tools (builder style).
    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }
}

/// One message of the history.
///
/// Mapping per provider:
///
/// | variant | OpenAI-compatible | Anthropic | Gemini |
/// | --- | --- | --- | --- |
/// | `System` | [`Roles::Portable`](crate::Roles::Portable) (the default): joined into the one leading `system` message while no other message came before it, else user text marked as context ([`messages::context_note`](crate::messages::context_note)) joined with a user message next to it; [`Roles::OpenAi`](crate::Roles::OpenAi): a `system` message | top-level `system` text while no other turn came before it, else a user text block marked as context | `systemInstruction` text while no other turn came before it, else a user text part marked as context |
/// | `Developer` | `Roles::Portable`: as `System`; `Roles::OpenAi`: a `developer` message (`system` when [`OpenAiCompatible::developer_as_system`](crate::OpenAiCompatible::developer_as_system) is set) | as `System` | as `System` |
/// | `User` | `user` message | `user` text block | `user` text part |
/// | `Assistant` | `assistant` message with `tool_calls` | `assistant` text and `tool_use` blocks | `model` text and `functionCall` parts |
/// | `Tool` | `tool` message | `tool_result` block in a `user` message (consecutive results share one message) | `functionResponse` part in a `user` turn, named after the call it answers |
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Instructions from the application.
    System(String),
    /// Instructions from the developer (OpenAI's `developer` role, which newer OpenAI models use
    /// in place of `system`).
    Developer(String),
    /// What the user said (a transcript in a voice call).
    User(String),
    /// An earlier model turn: its text (may be empty) and the tool calls it made, in call order.
    Assistant {
        /// The text the model produced.
        content: String,
        /// The tool calls it made.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, as the model should read it.
    Tool {
        /// The [`ToolCall::id`] this answers.
        tool_call_id: String,
        /// The result text (usually JSON).
        content: String,
    },
}

/// Whether the model may, must or must not call tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model decides (the default). Not sent when there are no tools.
    #[default]
    Auto,
    /// No tool call this turn.
    None,
    /// At least one tool call this turn.
    Required,
    /// A call of this tool this turn.
    Tool(String),
}

/// One complete tool call from the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The provider's call id (Gemini may send none: then `hark_call_<index>` is made up, unique within
    /// the turn; OpenAI-compatible servers that omit it get `call_<index>`). Echo it in [`Message::Tool::tool_call_id`].
    pub id: String,
    /// The tool's name as the model wrote it (may name no registered tool).
    pub name: String,
    /// The arguments, read once where the call was assembled: a JSON object (repaired where that
    /// is safe, `{}` for blank or `null`), or unreadable, which the tool layer refuses in a
    /// sentence the model reads. The turn loop hands this to the registry as it is.
    pub arguments: ToolArguments,
    /// The arguments text exactly as the model produced it: usually a JSON object text, but
    /// small models send `""`, `null`, trailing commas… Kept only so the history a provider
    /// reads back replays what the model sent (OpenAI-compatible `function.arguments`).
    pub raw_arguments: String,
    /// Gemini's `thoughtSignature` of the part that held this call: opaque, sent back with the
    /// call in later requests (Gemini 2.5+ thinking models refuse a history without it).
    pub signature: Option<String>,
}

impl ToolCall {
    /// A call with no signature, its arguments read from `raw_arguments`
    /// ([`crate::read_arguments`]).
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        raw_arguments: impl Into<String>,
    ) -> Self {
        let raw_arguments = raw_arguments.into();
        Self {
            id: id.into(),
            name: name.into(),
            arguments: crate::repair::read_arguments(&raw_arguments),
            raw_arguments,
            signature: None,
        }
    }

    /// A call whose arguments arrived as a JSON value (Gemini's `args`): read once, by the same
    /// rule as a text (`null` means `{}`; anything but an object is unreadable); `raw_arguments`
    /// is its JSON text.
    pub fn from_value(id: impl Into<String>, name: impl Into<String>, value: Value) -> Self {
        let raw_arguments = value.to_string();
        let arguments = match value {
            Value::Object(map) => ToolArguments::Object(map),
            Value::Null => ToolArguments::empty(),
            _ => crate::repair::read_arguments(&raw_arguments),
        };
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
            raw_arguments,
            signature: None,
        }
    }

    /// The arguments as a JSON object (always a `Value::Object`).
    ///
    /// # Errors
    /// [`crate::RepairError`] with a sentence the model can act on.
    pub fn parse_arguments(&self) -> Result<Value, crate::RepairError> {
        match &self.arguments {
            ToolArguments::Object(map) => Ok(Value::Object(map.clone())),
            ToolArguments::Unreadable { reason, fault } => Err(crate::RepairError {
                message: reason.clone(),
                fault: *fault,
            }),
        }
    }

    /// The arguments as the JSON object a provider wants in its history (`{}` when unreadable).
    pub(crate) fn arguments_object(&self) -> Value {
        Value::Object(self.arguments.as_object().cloned().unwrap_or_default())
    }
}

/// Token counts of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Tokens read (prompt), including cached ones.
    pub input_tokens: u64,
    /// Tokens written (completion), including reasoning tokens where the provider counts them.
    pub output_tokens: u64,
    /// Of `input_tokens`, how many were read from the provider's prompt cache (0 when unknown).
    pub cached_input_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// A natural end (OpenAI `stop`, Anthropic `end_turn`/`stop_sequence`, Gemini `STOP` without calls).
    Stop,
    /// The turn ends in tool calls (OpenAI `tool_calls`, Anthropic `tool_use`, Gemini `STOP` with
    /// calls). Also reported when a server says `stop` but sent tool calls.
    ToolCalls,
    /// The token limit was reached (`length`, `max_tokens`, `MAX_TOKENS`).
    Length,
    /// A safety filter stopped the reply (`content_filter`, `refusal`, `SAFETY`, `RECITATION`, …).
    ContentFilter,
    /// Any other reason, as the provider wrote it (e.g. Gemini `MALFORMED_FUNCTION_CALL`).
    Other(String),
}

/// One event of a streamed turn, in wire order.
///
/// Order guarantees: `ToolCallStarted` for an index comes before its `ToolCallArgumentsDelta`s
/// and its `ToolCallDone`; every started call gets exactly one `ToolCallDone` before `Finished`
/// (calls done in index order when the provider finishes them together); `Finished` is the last
/// event of a stream that did not fail. A stream that fails yields one `Err` and ends.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The next piece of the reply text.
    TextDelta(String),
    /// A tool call began. `index` is its position among this turn's calls (0-based).
    ToolCallStarted {
        /// Position among this turn's calls.
        index: usize,
        /// The call id (see [`ToolCall::id`]).
        id: String,
        /// The tool name.
        name: String,
    },
    /// More argument text of the call at `index`.
    ToolCallArgumentsDelta {
        /// Position among this turn's calls.
        index: usize,
        /// The next piece of the arguments text.
        delta: String,
    },
    /// The call at `index` is complete.
    ToolCallDone {
        /// Position among this turn's calls.
        index: usize,
        /// The assembled call.
        call: ToolCall,
    },
    /// Token counts (may come more than once; the last one holds).
    Usage(Usage),
    /// Log-probabilities of the reply tokens that came since the last such event, in order
    /// (only when [`ChatRequest::top_logprobs`] asked for them and the provider sent them).
    Logprobs(Vec<TokenLogprob>),
    /// The turn ended.
    Finished(FinishReason),
    /// An attempt failed before the first byte and the request is sent again after `wait`
    /// ([`crate::RetryPolicy`]). Comes only before every other event, once per retry; a voice
    /// agent says a short holding line on it rather than staying silent.
    Retrying {
        /// Which retry this is (1 for the first).
        retry: u32,
        /// The wait before it (backoff, or the provider's `Retry-After`, capped).
        wait: std::time::Duration,
        /// Why the attempt failed (a timeout before the first byte, a refused connection,
        /// HTTP 408, 429 or 5xx).
        error: LlmError,
    },
}

/// A whole turn, assembled from its stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// All text deltas joined.
    pub text: String,
    /// The tool calls, in index order.
    pub tool_calls: Vec<ToolCall>,
    /// The last usage reported, if any.
    pub usage: Option<Usage>,
    /// Why the turn ended.
    pub finish_reason: FinishReason,
    /// The reply tokens' log-probabilities in order; empty unless
    /// [`ChatRequest::top_logprobs`] asked for them and the provider sent them.
    pub logprobs: Vec<TokenLogprob>,
}

impl Completion {
    /// Drains a stream of events into a completion.
    ///
    /// # Errors
    /// The stream's first error; [`LlmError::StreamCut`] is the stream's own business, so a
    /// stream that ends without `Finished` is reported as [`LlmError::Decode`] naming that.
    pub async fn collect<S>(stream: S) -> Result<Completion, LlmError>
    where
        S: Stream<Item = Result<StreamEvent, LlmError>>,
    {
        let mut stream = std::pin::pin!(stream);
        let mut text = String::new();
        let mut calls: BTreeMap<usize, ToolCall> = BTreeMap::new();
        let mut usage = None;
        let mut logprobs = Vec::new();
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::TextDelta(t) => text.push_str(&t),
                StreamEvent::ToolCallDone { index, call } => {
                    calls.insert(index, call);
                }
                StreamEvent::Usage(u) => usage = Some(u),
                StreamEvent::Logprobs(mut l) => logprobs.append(&mut l),
                StreamEvent::Finished(finish_reason) => {
                    return Ok(Completion {
                        text,
                        tool_calls: calls.into_values().collect(),
                        usage,
                        finish_reason,
                        logprobs,
                    });
                }
                StreamEvent::ToolCallStarted { .. }
                | StreamEvent::ToolCallArgumentsDelta { .. }
                | StreamEvent::Retrying { .. } => {}
            }
        }
        Err(LlmError::Decode {
            provider: crate::error::ProviderLabel::new("stream", ""),
            detail: crate::messages::stream_without_finish(),
        })
    }
}

/// An `f32` as the JSON number a person wrote (`0.7`, not `0.699999988079071`).
pub(crate) fn f32_json(v: f32) -> Value {
    v.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn collect_refuses_a_stream_without_finish() {
        let events = futures::stream::iter(vec![Ok(StreamEvent::TextDelta("hi".into()))]);
        let err = Completion::collect(events).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "stream: unreadable reply: the stream ended without a finish event"
        );
    }

    #[test]
    fn temperatures_are_sent_as_written() {
        assert_eq!(f32_json(0.7), serde_json::json!(0.7));
        assert_eq!(f32_json(1.0), serde_json::json!(1.0));
    }
}
