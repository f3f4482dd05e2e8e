//! Every sentence this crate writes: errors the caller (and its logs) read, and the refusals a
//! model reads when its tool-call arguments cannot be read.
//!
//! Errors name the provider and the status with a short excerpt of the provider's message;
//! malformed tool-call JSON gets a clear error for the model.
//! Tests in `tests/messages.rs` pin these texts.

use std::time::Duration;

use crate::error::{OpenCall, TimeoutPhase};

/// How many characters of a provider's error message an error keeps.
pub const EXCERPT_CHARS: usize = 200;

/// `openai-compatible at http://127.0.0.1:8080/v1` (just the kind when the endpoint is empty).
pub fn provider_label(kind: &str, endpoint: &str) -> String {
    if endpoint.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind} at {endpoint}")
    }
}

/// `<provider>: HTTP 429: Rate limit reached` (without the last part when there is no message).
pub fn http_error(provider: &impl std::fmt::Display, status: u16, message: &str) -> String {
    if message.is_empty() {
        format!("{provider}: HTTP {status}")
    } else {
        format!("{provider}: HTTP {status}: {message}")
    }
}

/// The connection failed before any reply.
pub fn connect_error(provider: &impl std::fmt::Display, detail: &str) -> String {
    format!(
        "{provider}: could not connect ({detail}). Check the base URL and that the server is running."
    )
}

/// [`connect_error`] as an end user's client reads it (no address, no detail).
pub fn connect_failed_for_client(provider: &impl std::fmt::Display) -> String {
    format!("{provider}: could not connect. The server's log has the details.")
}

/// [`decode_error`] as an end user's client reads it (no quote of the reply).
pub fn decode_failed_for_client(provider: &impl std::fmt::Display) -> String {
    format!("{provider}: unreadable reply. The server's log has the details.")
}

/// A time limit ran out.
pub fn timeout(provider: &impl std::fmt::Display, phase: &TimeoutPhase, after: Duration) -> String {
    let ms = after.as_millis();
    match phase {
        TimeoutPhase::FirstByte => format!(
            "{provider}: no reply within {ms} ms. The provider may be overloaded; try again or raise the timeout."
        ),
        TimeoutPhase::NextChunk => {
            format!("{provider}: the stream stalled: no data for {ms} ms.")
        }
    }
}

/// The stream ended before the turn finished; names the tool call that was still arriving.
pub fn stream_cut(provider: &impl std::fmt::Display, open_call: Option<&OpenCall>) -> String {
    match open_call {
        Some(c) => {
            let name = if c.name.is_empty() {
                "unnamed"
            } else {
                c.name.as_str()
            };
            let id = if c.id.is_empty() {
                "none"
            } else {
                c.id.as_str()
            };
            format!(
                "{provider}: the stream ended in the middle of tool call {} ({name}, id {id}). \
The call is incomplete: do not run it; ask the model again.",
                c.index
            )
        }
        None => {
            format!("{provider}: the stream ended before the turn finished. Ask the model again.")
        }
    }
}

/// The provider sent something unreadable.
pub fn decode_error(provider: &impl std::fmt::Display, detail: &str) -> String {
    format!("{provider}: unreadable reply: {detail}")
}

/// The request cannot be built for this provider.
pub fn invalid_request(provider: &impl std::fmt::Display, detail: &str) -> String {
    format!("{provider}: cannot build the request: {detail}")
}

/// Detail of [`invalid_request`]: a tool result whose call is not in the history (Gemini needs
/// the call to know the tool's name).
pub fn tool_result_without_call(tool_call_id: &str) -> String {
    format!(
        "the tool result for call {tool_call_id} answers no tool call of an earlier assistant \
message. Keep each tool result after the assistant message that made the call."
    )
}

/// Detail of a decode error: a stream that ended without its finish event, seen by a consumer.
pub fn stream_without_finish() -> String {
    "the stream ended without a finish event".to_owned()
}

/// Detail of a decode error: an SSE event larger than the limit.
pub fn event_too_large(limit_bytes: usize) -> String {
    format!("a stream event is larger than {limit_bytes} bytes")
}

/// Detail of a decode error: a `200` reply that is one JSON document, not an event stream.
/// `excerpt` is the start of the body.
pub fn not_an_event_stream(excerpt: &str) -> String {
    format!(
        "the reply is JSON, not an event stream; the server may not support streaming. It said: {excerpt}"
    )
}

/// Detail of a decode error: a `200` reply that is neither JSON nor an event stream (usually a
/// `base_url` that reaches a web page or another service, not the provider's API).
pub fn not_a_chat_stream(mime: &str, excerpt: &str) -> String {
    format!(
        "the reply is {mime}, not an event stream of chat completions. Check base_url: it must be the API's \
base (an OpenAI-compatible one usually ends in /v1). It said: {excerpt}"
    )
}

/// Detail of a decode error: a stream chunk that is not the JSON the provider documents.
pub fn bad_chunk(what: &str, error: &str) -> String {
    format!("{what} is not valid: {error}")
}

/// Detail of a decode error: a tool-call delta for a call that never started.
pub fn delta_without_start(index: usize) -> String {
    format!("arguments arrived for tool call {index} before its id and name")
}

/// What a model reads when its tool-call arguments are not JSON, even after repair.
/// `detail` is the parser's complaint (`expected value at line 1 column 9`).
pub fn arguments_not_json(detail: &str) -> String {
    format!(
        "The arguments are not valid JSON ({detail}). Call the tool again with its arguments as \
one JSON object."
    )
}

/// What a model reads when its arguments are JSON but not an object. `found` is the JSON type
/// (`an array`, `a number`, …).
pub fn arguments_not_object(found: &str) -> String {
    format!(
        "The arguments must be a JSON object, not {found}. Call the tool again with its arguments \
as one JSON object."
    )
}

/// The scripted server's reply when a test sent more requests than it scripted turns.
pub fn script_exhausted(request_number: usize) -> String {
    format!("scripted server: no turn left for request {request_number}. Add a turn to the script.")
}

/// A tool left out of a request because the provider's dialect cannot express its
/// parameters (`detail`: every keyword, `/`-pointer first); logged, the other tools are sent.
pub fn tool_left_out(tool: &str, dialect: &str, detail: &str) -> String {
    format!(
        "tool {tool} left out of this request: its parameters cannot be sent in the {dialect} dialect ({detail}); hark check names what to change"
    )
}

/// A strict response format whose schema OpenAI strict mode cannot express.
pub fn response_schema_refused(name: &str, dialect: &str, detail: &str) -> String {
    format!("the response format {name} cannot be sent in the {dialect} dialect: {detail}")
}

/// The scripted server's 400 for a tool schema the real API would refuse: the tool, where its
/// schema sits in the body, and the rules it breaks.
pub fn scripted_schema_refused(tool: &str, field: &str, breaks: &str) -> String {
    format!("Invalid schema for tool {tool} at {field}: {breaks}")
}

/// A system or developer text that comes after the conversation began, sent as user-role
/// text to a provider or server that takes system text only first (OpenAI-compatible with
/// `Roles::Portable`, Anthropic, Gemini): marked so the model reads it as the application's
/// context, not as something the user said.
pub fn context_note(text: &str) -> String {
    format!("[Context from the application, not said by the user]\n{text}")
}
