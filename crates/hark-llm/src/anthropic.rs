//! Anthropic Messages: `POST {base_url}/messages` with `stream: true`.
//!
//! Wire format: Anthropic "Messages" and "Streaming Messages". Request: top-level `system`,
//! `messages` of `user`/`assistant` turns whose `content` is a list of blocks (`text`,
//! `tool_use {id, name, input}`, `tool_result {tool_use_id, content}`), `tools` of
//! `{name, description, input_schema}`, `tool_choice` of `{type: auto|any|tool|none}`, required
//! `max_tokens`. Stream: `message_start` (input usage), `content_block_start` (a `text` or
//! `tool_use` block at `index`), `content_block_delta` (`text_delta` or `input_json_delta` with
//! `partial_json`), `content_block_stop`, `message_delta` (`stop_reason`, output usage),
//! `message_stop`, `ping`, and `error`.
//!
//! Mapping notes: `System`/`Developer` messages before the first other message become `system`
//! (joined by a blank line); later ones become user text blocks, in place. Consecutive messages
//! of one role share one turn, so parallel tool results form one `user` turn, as Anthropic
//! requires. Tool-call arguments that are not a JSON object after repair are sent as `{}` (the
//! tool layer answered that call with an error the model reads). Thinking blocks are not kept.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use futures::stream::BoxStream;
use hark_schema::Dialect;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value, json};

use crate::Provider;
use crate::error::{LlmError, OpenCall, ProviderLabel};
use crate::messages;
use crate::retry::Pause;
use crate::sse::SseEvent;
use crate::tool_schema::parameters_for;
use crate::transport::{self, Decoder, HttpOptions, Transport, cut, decode};
use crate::types::{ChatRequest, FinishReason, Message, StreamEvent, ToolCall, ToolChoice, Usage};

/// The `max_tokens` sent when [`ChatRequest::max_tokens`] is `None` (Anthropic requires one).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 1024;

/// The `anthropic-version` header sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A client for the Anthropic Messages API.
///
/// `base_url` defaults to `https://api.anthropic.com/v1` ([`Anthropic::new`]); the key goes in
/// `x-api-key`, marked sensitive and redacted from error excerpts.
#[derive(Debug, Clone)]
pub struct Anthropic {
    transport: Arc<Transport>,
    base_url: String,
}

impl Anthropic {
    /// The public API with `api_key` (read by the caller, e.g. from `ANTHROPIC_API_KEY`).
    pub fn new(api_key: impl Into<String>) -> Self {
        Self::with_base_url("https://api.anthropic.com/v1", api_key)
    }

    /// Another endpoint speaking the same API (a proxy, a gateway, a test server).
    pub fn with_base_url(base_url: impl Into<String>, api_key: impl Into<String>) -> Self {
        let base_url = base_url.into().trim_end_matches('/').to_owned();
        let api_key = api_key.into();
        let label = ProviderLabel::new("anthropic", &base_url);
        Self {
            transport: Arc::new(Transport::new(label, Some(api_key))),
            base_url,
        }
    }

    /// Sets time limits and retries.
    pub fn with_http_options(mut self, options: HttpOptions) -> Self {
        Arc::make_mut(&mut self.transport).set_options(options);
        self
    }

    /// Sets the jitter source and sleep between retries.
    pub fn with_pause(mut self, pause: Arc<dyn Pause>) -> Self {
        Arc::make_mut(&mut self.transport).pause = pause;
        self
    }

    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = self
            .transport
            .secret
            .as_ref()
            .and_then(|k| transport::secret_header(k.expose()))
        {
            h.insert(HeaderName::from_static("x-api-key"), v);
        }
        h.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        h
    }
}

impl Provider for Anthropic {
    fn label(&self) -> &ProviderLabel {
        &self.transport.label
    }

    fn dialect(&self) -> hark_schema::Dialect {
        hark_schema::Dialect::Anthropic
    }

    fn request_body(&self, request: &ChatRequest) -> Result<Value, LlmError> {
        request_body(request, &self.transport.label)
    }

    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
        transport::run(
            self.transport.clone(),
            format!("{}/messages", self.base_url),
            self.headers(),
            self.request_body(request),
            AnthropicDecoder::new(self.transport.label.clone()),
        )
    }
}

/// Appends `blocks` as a turn of `role`, joining the previous turn when it has the same role.
fn push_turn(turns: &mut Vec<(String, Vec<Value>)>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    match turns.last_mut() {
        Some((r, b)) if r == role => b.extend(blocks),
        _ => turns.push((role.to_owned(), blocks)),
    }
}

fn request_body(request: &ChatRequest, label: &ProviderLabel) -> Result<Value, LlmError> {
    let mut system: Vec<&str> = Vec::new();
    let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
    for m in &request.messages {
        match m {
            Message::System(t) | Message::Developer(t) if turns.is_empty() => system.push(t),
            Message::System(t) | Message::Developer(t) => {
                let note = messages::context_note(t);
                push_turn(
                    &mut turns,
                    "user",
                    vec![json!({"type": "text", "text": note})],
                );
            }
            Message::User(t) => {
                push_turn(&mut turns, "user", vec![json!({"type": "text", "text": t})]);
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for c in tool_calls {
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                       "input": c.arguments_object()}));
                }
                push_turn(&mut turns, "assistant", blocks);
            }
            Message::Tool {
                tool_call_id,
                content,
            } => push_turn(
                &mut turns,
                "user",
                vec![
                    json!({"type": "tool_result", "tool_use_id": tool_call_id, "content": content}),
                ],
            ),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert(
        "max_tokens".into(),
        json!(request.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)),
    );
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    let tools = request
        .tools
        .iter()
        .filter_map(|t| {
            let dialect = if t.strict {
                Dialect::AnthropicStrict
            } else {
                Dialect::Anthropic
            };
            let mut m = Map::new();
            m.insert("name".into(), json!(t.name));
            m.insert("description".into(), json!(t.description));
            m.insert("input_schema".into(), parameters_for(t, dialect, label)?);
            if t.strict {
                m.insert("strict".into(), json!(true));
            }
            Some(Value::Object(m))
        })
        .collect::<Vec<Value>>();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
        let mut choice = match &request.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
        };
        let no_parallel = request.parallel_tool_calls == Some(false);
        if no_parallel && request.tool_choice != ToolChoice::None {
            choice["disable_parallel_tool_use"] = json!(true);
        }
        if request.tool_choice != ToolChoice::Auto || no_parallel {
            body.insert("tool_choice".into(), choice);
        }
    }
    if let Some(t) = request.temperature.filter(|t| t.is_finite()) {
        body.insert("temperature".into(), crate::types::f32_json(t));
    }
    body.insert("stream".into(), json!(true));
    Ok(Value::Object(body))
}

#[derive(Debug, Default)]
struct Block {
    call: usize,
    id: String,
    name: String,
    args: String,
}

/// Turns Anthropic stream events into stream events.
#[derive(Debug)]
pub(crate) struct AnthropicDecoder {
    label: ProviderLabel,
    /// Open `tool_use` blocks by content-block index.
    open: HashMap<u64, Block>,
    calls: usize,
    usage: Usage,
    stop_reason: Option<String>,
    stopped: bool,
    last_block: Option<u64>,
}

impl AnthropicDecoder {
    pub(crate) fn new(label: ProviderLabel) -> Self {
        Self {
            label,
            open: HashMap::new(),
            calls: 0,
            usage: Usage::default(),
            stop_reason: None,
            stopped: false,
            last_block: None,
        }
    }

    fn bad(&self, what: &str) -> LlmError {
        decode(
            &self.label,
            messages::bad_chunk(what, "missing or wrong fields"),
        )
    }
}

fn error_status(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "overloaded_error" => 529,
        _ => 500,
    }
}

fn u64_at(v: &Value, ptr: &str) -> Option<u64> {
    v.pointer(ptr).and_then(Value::as_u64)
}

impl Decoder for AnthropicDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let v: Value = serde_json::from_str(&event.data).map_err(|e| {
            decode(
                &self.label,
                messages::bad_chunk("an Anthropic stream event", &e.to_string()),
            )
        })?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                let input = u64_at(&v, "/message/usage/input_tokens").unwrap_or(0);
                let cache_read = u64_at(&v, "/message/usage/cache_read_input_tokens").unwrap_or(0);
                let cache_write =
                    u64_at(&v, "/message/usage/cache_creation_input_tokens").unwrap_or(0);
                self.usage.input_tokens = input + cache_read + cache_write;
                self.usage.cached_input_tokens = cache_read;
                self.usage.output_tokens = u64_at(&v, "/message/usage/output_tokens").unwrap_or(0);
            }
            "content_block_start" => {
                let index = v
                    .get("index")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| self.bad("content_block_start"))?;
                let block = v
                    .get("content_block")
                    .ok_or_else(|| self.bad("content_block_start"))?;
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = block
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push_back(StreamEvent::TextDelta(t.to_owned()));
                        }
                    }
                    Some("tool_use") => {
                        let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                        let name = block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let call = self.calls;
                        self.calls += 1;
                        self.last_block = Some(index);
                        out.push_back(StreamEvent::ToolCallStarted {
                            index: call,
                            id: id.to_owned(),
                            name: name.to_owned(),
                        });
                        // A non-streaming proxy may put the whole input here.
                        let args = match block.get("input") {
                            Some(Value::Object(m)) if !m.is_empty() => {
                                Value::Object(m.clone()).to_string()
                            }
                            _ => String::new(),
                        };
                        if !args.is_empty() {
                            out.push_back(StreamEvent::ToolCallArgumentsDelta {
                                index: call,
                                delta: args.clone(),
                            });
                        }
                        self.open.insert(
                            index,
                            Block {
                                call,
                                id: id.to_owned(),
                                name: name.to_owned(),
                                args,
                            },
                        );
                    }
                    _ => {} // thinking, redacted_thinking, server tools: not kept
                }
            }
            "content_block_delta" => {
                let index = v
                    .get("index")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| self.bad("content_block_delta"))?;
                let delta = v
                    .get("delta")
                    .ok_or_else(|| self.bad("content_block_delta"))?;
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(t) = delta
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push_back(StreamEvent::TextDelta(t.to_owned()));
                        }
                    }
                    Some("input_json_delta") => {
                        let part = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let block = self.open.get_mut(&index).ok_or_else(|| {
                            decode(&self.label, messages::delta_without_start(index as usize))
                        })?;
                        self.last_block = Some(index);
                        if !part.is_empty() {
                            block.args.push_str(part);
                            out.push_back(StreamEvent::ToolCallArgumentsDelta {
                                index: block.call,
                                delta: part.to_owned(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = v
                    .get("index")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| self.bad("content_block_stop"))?;
                if let Some(b) = self.open.remove(&index) {
                    // A call without arguments (no `partial_json`, or only blanks) is done as
                    // `{}`, sent as a last delta so the deltas still add up to the arguments
                    // (found by the `llm_stream` fuzz target).
                    let mut args = b.args;
                    if args.trim().is_empty() {
                        args.push_str("{}");
                        out.push_back(StreamEvent::ToolCallArgumentsDelta {
                            index: b.call,
                            delta: "{}".to_owned(),
                        });
                    }
                    out.push_back(StreamEvent::ToolCallDone {
                        index: b.call,
                        call: ToolCall::new(b.id, b.name, args),
                    });
                }
            }
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_owned());
                }
                if let Some(o) = u64_at(&v, "/usage/output_tokens") {
                    self.usage.output_tokens = o;
                }
                if let Some(i) = u64_at(&v, "/usage/input_tokens") {
                    let cache_read = u64_at(&v, "/usage/cache_read_input_tokens")
                        .unwrap_or(self.usage.cached_input_tokens);
                    let cache_write = u64_at(&v, "/usage/cache_creation_input_tokens").unwrap_or(0);
                    self.usage.input_tokens = i + cache_read + cache_write;
                    self.usage.cached_input_tokens = cache_read;
                }
                out.push_back(StreamEvent::Usage(self.usage));
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let kind = v
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                return Err(LlmError::Http {
                    provider: self.label.clone(),
                    status: error_status(kind),
                    message: transport::excerpt(&event.data, None),
                    retry_after: None,
                });
            }
            _ => {} // ping and future events
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.stopped
    }

    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        if !self.open.is_empty() || self.stop_reason.is_none() {
            let open = self
                .last_block
                .and_then(|i| self.open.get(&i))
                .or_else(|| self.open.values().min_by_key(|b| b.call))
                .map(|b| OpenCall {
                    index: b.call,
                    id: b.id.clone(),
                    name: b.name.clone(),
                });
            return Err(cut(&self.label, open));
        }
        let reason = match self.stop_reason.as_deref().unwrap_or_default() {
            "end_turn" | "stop_sequence" => FinishReason::Stop,
            "tool_use" => FinishReason::ToolCalls,
            "max_tokens" => FinishReason::Length,
            "refusal" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        };
        out.push_back(StreamEvent::Finished(reason));
        Ok(())
    }
}
