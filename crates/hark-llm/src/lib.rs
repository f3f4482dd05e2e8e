//! LLM provider clients for Hark: OpenAI-compatible chat completions (OpenAI, Groq, vLLM,
//! llama.cpp server, Ollama), Anthropic Messages and Gemini `generateContent`, all streamed.
//!
//! Provider clients: requests, streams, tool-call assembly, argument repair, errors, retries;
//! tool definitions come in as plain JSON (see `docs/ARCHITECTURE.md`, "Crates").
//!
//! - Build a [`ChatRequest`] from [`Message`]s and [`ToolDefinition`]s. Each provider brings
//!   every tool schema (and a strict response format's) into its own dialect where it builds the
//!   body (`hark_schema::conform`: sent as it is when it keeps the API's rules), so no caller can
//!   skip it.
//! - [`OpenAiCompatible::with_roles`]: the roles the server takes; the default
//!   [`Roles::Portable`] sends one system message first, what every chat template of vLLM,
//!   llama.cpp and Ollama takes.
//! - [`Provider::stream`] yields [`StreamEvent`]s: text deltas, tool calls assembled by index
//!   (parallel calls may interleave), usage, and the finish reason. [`Provider::complete`]
//!   collects them into a [`Completion`].
//! - Failures are [`LlmError`]s naming the provider, the endpoint and the status with a short
//!   excerpt of the provider's message; keys are never logged nor shown.
//! - Requests are retried with backoff on connection errors, time-to-first-byte timeouts, 408,
//!   429 and 5xx, only before the first streamed byte ([`RetryPolicy`]); each retry is announced
//!   in the stream as [`StreamEvent::Retrying`], so a voice agent can say a holding line.
//!   [`HttpOptions::for_voice`] gives up on a silent provider after 10 s rather than 30 s.
//! - Each assembled [`ToolCall`] carries its arguments read once ([`read_arguments`]: a
//!   [`ToolArguments`] object, or unreadable for the tool layer to refuse);
//!   [`repair_arguments`], the one place that repairs, reads small models' broken tool-call JSON
//!   where that is safe. The model's own text stays in [`ToolCall::raw_arguments`] for the history.
//! - [`testing::ScriptedServer`] is the test double for a provider (OpenAI-compatible, and
//!   Anthropic and Gemini through their stream builders); it checks every tool schema it
//!   receives against the provider's rules and answers a break with the API's 400.
//!
//! # Example
//!
//! A text reply and a tool call from the scripted server:
//!
//! ```
//! use hark_llm::testing::{ScriptedServer, Turn};
//! use hark_llm::{ChatRequest, FinishReason, Message, OpenAiCompatible, Provider, ToolDefinition};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = ScriptedServer::start(vec![
//!     Turn::stream()
//!         .text("Let me check.")
//!         .tool_call_start(0, "call_1", "lookup")
//!         .tool_call_args(0, "{\"city\":")
//!         .tool_call_args(0, " \"Paris\"}")
//!         .finish("tool_calls")
//!         .usage(42, 9)
//!         .done(),
//! ])
//! .await?;
//! let provider = OpenAiCompatible::new(server.base_url(), Some("sk-test".into()));
//! let lookup = ToolDefinition::new(
//!     "lookup",
//!     "Looks up the weather in a city.",
//!     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
//! );
//! let request = ChatRequest::new("gpt-4.1-mini", vec![Message::User("Weather in Paris?".into())])
//!     .with_tools(vec![lookup]);
//!
//! let done = provider.complete(&request).await?;
//! assert_eq!(done.text, "Let me check.");
//! assert_eq!(done.tool_calls[0].name, "lookup");
//! assert_eq!(done.tool_calls[0].parse_arguments()?, json!({"city": "Paris"}));
//! assert_eq!(done.finish_reason, FinishReason::ToolCalls);
//! assert_eq!(server.bodies()[0]["tools"][0]["function"]["name"], "lookup");
//! # Ok(())
//! # }
//! ```

#[doc(hidden)]
#[path = "fuzz.rs"]
pub mod __fuzz;
mod anthropic;
mod error;
mod gemini;
pub mod messages;
mod openai;
mod repair;
mod retry;
mod sse;
pub mod testing;
mod tool_schema;
mod transport;
mod types;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use hark_schema::Dialect;
use serde_json::Value;

pub use anthropic::{ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION, Anthropic};
pub use error::{LlmError, OpenCall, ProviderLabel, TimeoutPhase};
pub use gemini::{Gemini, GeminiSchemaField};
pub use hark_schema::{ToolArguments, ToolDefinition, no_arguments};
pub use openai::{MaxTokensField, OpenAiCompatible, Roles};
pub use repair::{RepairError, read_arguments, repair_arguments};
pub use retry::{Pause, RetryPolicy, TokioPause, is_retryable_status};
pub use transport::{HttpOptions, VOICE_FIRST_BYTE_TIMEOUT};
pub use types::{
    ChatRequest, Completion, FinishReason, Message, ResponseFormat, StreamEvent, TokenLogprob,
    ToolCall, ToolChoice, Usage,
};

/// A model provider: maps a [`ChatRequest`] to its wire format and streams the reply.
///
/// Implemented by [`OpenAiCompatible`], [`Anthropic`] and [`Gemini`]; object safe, so an agent
/// can hold `Arc<dyn Provider>`.
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// Who this is, for errors and logs (`openai-compatible at http://…/v1`).
    fn label(&self) -> &ProviderLabel;

    /// The schema dialect this provider's API reads tool parameters in, by the provider's type
    /// (OpenAI-compatible servers: [`Dialect::OpenAi`], the default; [`Anthropic`]:
    /// [`Dialect::Anthropic`]; [`Gemini`]: [`Dialect::GeminiParameters`]). An agent sends its
    /// tools in it unless told otherwise.
    fn dialect(&self) -> Dialect {
        Dialect::OpenAi
    }

    /// The exact JSON body this provider sends for `request` (streaming on).
    ///
    /// # Errors
    /// [`LlmError::InvalidRequest`] when the request cannot be expressed for this provider.
    fn request_body(&self, request: &ChatRequest) -> Result<Value, LlmError>;

    /// Streams one turn. The stream owns everything it needs (it outlives `self`'s borrow);
    /// dropping it cancels the request. It yields events in wire order and ends after
    /// [`StreamEvent::Finished`], or after one `Err`.
    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>>;

    /// Streams one turn and collects it.
    ///
    /// # Errors
    /// The stream's error.
    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(Completion::collect(self.stream(request)))
    }
}
