//! OpenAI-compatible chat completions (OpenAI, Groq, vLLM, llama.cpp server, Ollama, …):
//! `POST {base_url}/chat/completions` with `stream: true`.
//!
//! Wire format: OpenAI "Create chat completion" and "The chat completion chunk object". Tool
//! calls stream as `choices[0].delta.tool_calls[]` pieces keyed by `index`: the first piece of a
//! call holds `id` and `function.name`, later ones add `function.arguments` text; pieces of
//! parallel calls may interleave. `finish_reason` closes the turn; with
//! `stream_options.include_usage` a last chunk with empty `choices` carries `usage`; `data: [DONE]`
//! ends the stream.
//!
//! Servers differ; assembly tolerates: a missing `index` (the piece goes to the call with its
//! `id`, else the last call), every call sent as index 0 with a new `id` (a new `id` at a used
//! index opens a new call), `finish_reason: "stop"` with tool calls (reported as
//! [`FinishReason::ToolCalls`]), `[DONE]` without a `finish_reason`, and an `error` object inside
//! the stream (reported as [`LlmError::Http`]).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use futures::stream::BoxStream;
use hark_schema::Dialect;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::Provider;
use crate::error::{LlmError, OpenCall, ProviderLabel};
use crate::messages;
use crate::retry::Pause;
use crate::sse::SseEvent;
use crate::tool_schema::parameters_for;
use crate::transport::{self, Decoder, HttpOptions, Transport, cut, decode};
use crate::types::{
    ChatRequest, FinishReason, Message, ResponseFormat, StreamEvent, TokenLogprob, ToolCall,
    ToolChoice, Usage,
};

/// Which field carries [`ChatRequest::max_tokens`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaxTokensField {
    /// `max_tokens`: understood by every compatible server (the default).
    #[default]
    MaxTokens,
    /// `max_completion_tokens`: what OpenAI's reasoning models require.
    MaxCompletionTokens,
}

/// Which chat roles, and where, an OpenAI-compatible server takes ([`OpenAiCompatible::with_roles`]).
///
/// OpenAI takes a `developer` role and `system` messages anywhere in the history. Many chat
/// templates of self-hosted servers (vLLM, llama.cpp, Ollama) refuse a `developer` role, a
/// system message after the first, or two user messages in a row. [`Roles::Portable`] sends
/// what every template takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Roles {
    /// One `system` message first, then `user`/`assistant`/`tool` turns (the default). The
    /// [`Message::System`] and [`Message::Developer`] texts before every other message are
    /// joined into that one system message; a later one (a `<ui_state>`, a late tool result, a
    /// note of the turn loop) keeps its place in time and goes as `user` text marked as
    /// context from the application ([`messages::context_note`]), joined with a user message
    /// next to it so user and assistant turns alternate.
    #[default]
    Portable,
    /// OpenAI's roles: `developer` messages (`system` with
    /// [`OpenAiCompatible::developer_as_system`]) and `system` messages anywhere, as given.
    OpenAi,
}

/// A client for an OpenAI-compatible chat completions endpoint.
///
/// `base_url` is the API root the provider documents, e.g. `https://api.openai.com/v1`,
/// `https://api.groq.com/openai/v1`, `http://localhost:11434/v1` (Ollama),
/// `http://localhost:8080/v1` (llama.cpp, vLLM). The key, when given, is sent as
/// `Authorization: Bearer …`, marked sensitive, and redacted from error excerpts.
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    transport: Arc<Transport>,
    base_url: String,
    developer_as_system: bool,
    roles: Roles,
    include_usage: bool,
    max_tokens_field: MaxTokensField,
    extra_headers: HeaderMap,
}

impl OpenAiCompatible {
    /// A client for `base_url` (trailing `/` optional) with an optional key (read by the caller,
    /// e.g. from `OPENAI_API_KEY`; local servers need none).
    pub fn new(base_url: impl Into<String>, api_key: Option<String>) -> Self {
        let base_url = base_url.into().trim_end_matches('/').to_owned();
        let label = ProviderLabel::new("openai-compatible", &base_url);
        Self {
            transport: Arc::new(Transport::new(label, api_key)),
            base_url,
            developer_as_system: false,
            roles: Roles::default(),
            include_usage: true,
            max_tokens_field: MaxTokensField::default(),
            extra_headers: HeaderMap::new(),
        }
    }

    /// Sets time limits and retries.
    pub fn with_http_options(mut self, options: HttpOptions) -> Self {
        Arc::make_mut(&mut self.transport).set_options(options);
        self
    }

    /// Sets the jitter source and sleep between retries (tests use a recording pause).
    pub fn with_pause(mut self, pause: Arc<dyn Pause>) -> Self {
        Arc::make_mut(&mut self.transport).pause = pause;
        self
    }

    /// Which roles the server takes (default [`Roles::Portable`]).
    pub fn with_roles(mut self, roles: Roles) -> Self {
        self.roles = roles;
        self
    }

    /// With [`Roles::OpenAi`], sends [`Message::Developer`] with role `system`, for servers
    /// whose chat template knows no `developer` role but takes system messages anywhere.
    pub fn developer_as_system(mut self, yes: bool) -> Self {
        self.developer_as_system = yes;
        self
    }

    /// Whether to ask for `stream_options.include_usage` (default true; turn off for a server
    /// that refuses the field).
    pub fn include_usage(mut self, yes: bool) -> Self {
        self.include_usage = yes;
        self
    }

    /// Which field carries the token limit.
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    /// Adds a header to every request (e.g. `OpenAI-Organization`, or a gateway's own key).
    /// The value is marked sensitive, so it is never printed; a value that is not a valid
    /// header value is skipped.
    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        if let Some(v) = transport::secret_header(value) {
            self.extra_headers.insert(name, v);
        }
        self
    }

    fn headers(&self) -> HeaderMap {
        let mut h = self.extra_headers.clone();
        if let Some(v) = self
            .transport
            .secret
            .as_ref()
            .and_then(|k| transport::secret_header(&format!("Bearer {}", k.expose())))
        {
            h.insert(AUTHORIZATION, v);
        }
        h
    }
}

impl Provider for OpenAiCompatible {
    fn label(&self) -> &ProviderLabel {
        &self.transport.label
    }

    fn request_body(&self, request: &ChatRequest) -> Result<Value, LlmError> {
        request_body(
            request,
            self.developer_as_system,
            self.roles,
            self.include_usage,
            self.max_tokens_field,
            &self.transport.label,
        )
    }

    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
        transport::run(
            self.transport.clone(),
            format!("{}/chat/completions", self.base_url),
            self.headers(),
            self.request_body(request),
            OpenAiDecoder::new(self.transport.label.clone()),
        )
    }
}

fn request_body(
    request: &ChatRequest,
    developer_as_system: bool,
    roles: Roles,
    include_usage: bool,
    max_tokens_field: MaxTokensField,
    label: &ProviderLabel,
) -> Result<Value, LlmError> {
    let messages = match roles {
        Roles::OpenAi => request
            .messages
            .iter()
            .map(|m| wire_message(m, developer_as_system))
            .collect(),
        Roles::Portable => portable_messages(&request.messages),
    };
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    let tools = request
        .tools
        .iter()
        .filter_map(|t| {
            let dialect = if t.strict {
                Dialect::OpenAiStrict
            } else {
                Dialect::OpenAi
            };
            let mut f = Map::new();
            f.insert("name".into(), json!(t.name));
            f.insert("description".into(), json!(t.description));
            f.insert("parameters".into(), parameters_for(t, dialect, label)?);
            if t.strict {
                f.insert("strict".into(), json!(true));
            }
            Some(json!({"type": "function", "function": f}))
        })
        .collect::<Vec<Value>>();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
        match &request.tool_choice {
            ToolChoice::Auto => {}
            ToolChoice::None => {
                body.insert("tool_choice".into(), json!("none"));
            }
            ToolChoice::Required => {
                body.insert("tool_choice".into(), json!("required"));
            }
            ToolChoice::Tool(name) => {
                body.insert(
                    "tool_choice".into(),
                    json!({"type": "function", "function": {"name": name}}),
                );
            }
        }
        if let Some(p) = request.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), json!(p));
        }
    }
    if let Some(t) = request.temperature.filter(|t| t.is_finite()) {
        body.insert("temperature".into(), crate::types::f32_json(t));
    }
    if let Some(n) = request.max_tokens {
        let field = match max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(n));
    }
    match &request.response_format {
        None => {}
        Some(ResponseFormat::JsonObject) => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        Some(ResponseFormat::JsonSchema {
            name,
            schema,
            strict,
        }) => {
            // Structured outputs hold a strict schema to strict mode's rules, as a strict
            // tool's: brought into the dialect in the same one place.
            let schema = if *strict {
                &crate::tool_schema::response_schema_for(name, schema, label)?
            } else {
                schema
            };
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema",
                       "json_schema": {"name": name, "schema": schema, "strict": strict}}),
            );
        }
    }
    if let Some(n) = request.top_logprobs {
        body.insert("logprobs".into(), json!(true));
        body.insert("top_logprobs".into(), json!(n));
    }
    body.insert("stream".into(), json!(true));
    if include_usage {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Value::Object(body))
}

/// One message as OpenAI takes it.
fn wire_message(m: &Message, developer_as_system: bool) -> Value {
    match m {
        Message::System(text) => json!({"role": "system", "content": text}),
        Message::Developer(text) => {
            let role = if developer_as_system {
                "system"
            } else {
                "developer"
            };
            json!({"role": role, "content": text})
        }
        Message::User(text) => json!({"role": "user", "content": text}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut m = Map::new();
            m.insert("role".into(), json!("assistant"));
            m.insert(
                "content".into(),
                if content.is_empty() && !tool_calls.is_empty() {
                    Value::Null
                } else {
                    json!(content)
                },
            );
            if !tool_calls.is_empty() {
                let calls: Vec<Value> = tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": c.raw_arguments}})
                    })
                    .collect();
                m.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(m)
        }
        Message::Tool {
            tool_call_id,
            content,
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

/// The history as every chat template takes it ([`Roles::Portable`]): one system message
/// first, later system and developer texts as user text marked as context, and consecutive
/// user texts joined.
fn portable_messages(history: &[Message]) -> Vec<Value> {
    let leading = history
        .iter()
        .take_while(|m| matches!(m, Message::System(_) | Message::Developer(_)))
        .count();
    let system: Vec<&str> = history[..leading]
        .iter()
        .filter_map(|m| match m {
            Message::System(t) | Message::Developer(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let mut out: Vec<Value> = Vec::with_capacity(history.len() + 1);
    if !system.is_empty() {
        out.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    for m in &history[leading..] {
        let user_text = match m {
            Message::System(t) | Message::Developer(t) => messages::context_note(t),
            Message::User(t) => t.clone(),
            other => {
                out.push(wire_message(other, false));
                continue;
            }
        };
        match out.last_mut() {
            Some(last) if last["role"] == "user" && last["content"].is_string() => {
                let joined = format!("{}\n\n{user_text}", last["content"].as_str().unwrap_or(""));
                last["content"] = Value::String(joined);
            }
            _ => out.push(json!({"role": "user", "content": user_text})),
        }
    }
    out
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    index: u32,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    logprobs: Option<WireLogprobs>,
}

/// `choices[0].logprobs`: `{"content": [{"token", "logprob", "top_logprobs": [...]}]}`.
#[derive(Debug, Deserialize)]
struct WireLogprobs {
    #[serde(default)]
    content: Option<Vec<WireToken>>,
}

#[derive(Debug, Deserialize)]
struct WireToken {
    #[serde(default)]
    token: String,
    #[serde(default)]
    logprob: Option<f64>,
    #[serde(default)]
    top_logprobs: Option<Vec<WireTop>>,
}

#[derive(Debug, Deserialize)]
struct WireTop {
    #[serde(default)]
    token: String,
    #[serde(default)]
    logprob: Option<f64>,
}

#[derive(Debug, Deserialize, Default)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Debug, Default)]
struct Slot {
    id: String,
    name: String,
    args: String,
    started: bool,
    done: bool,
}

/// Assembles OpenAI chunks into stream events.
#[derive(Debug)]
pub(crate) struct OpenAiDecoder {
    label: ProviderLabel,
    slots: Vec<Slot>,
    by_wire_index: HashMap<u64, usize>,
    last_touched: Option<usize>,
    finish: Option<FinishReason>,
    saw_done: bool,
}

impl OpenAiDecoder {
    pub(crate) fn new(label: ProviderLabel) -> Self {
        Self {
            label,
            slots: Vec::new(),
            by_wire_index: HashMap::new(),
            last_touched: None,
            finish: None,
            saw_done: false,
        }
    }

    fn slot_for(&mut self, d: &ToolCallDelta) -> Result<usize, LlmError> {
        let id = d.id.as_deref().filter(|s| !s.is_empty());
        let name = d
            .function
            .as_ref()
            .and_then(|f| f.name.as_deref())
            .filter(|s| !s.is_empty());
        let known = match d.index {
            Some(i) => self.by_wire_index.get(&i).copied(),
            None => match id {
                Some(id) => self.slots.iter().position(|s| s.id == id),
                None => self.last_touched,
            },
        };
        if let Some(k) = known {
            let s = &self.slots[k];
            // A new id at a used index: a server that numbers every call 0.
            let is_new = matches!(id, Some(id) if !s.id.is_empty() && s.id != id);
            if !is_new {
                return Ok(k);
            }
        }
        if id.is_none() && name.is_none() {
            let index = d.index.map_or(self.slots.len(), |i| i as usize);
            return Err(decode(&self.label, messages::delta_without_start(index)));
        }
        let k = self.slots.len();
        self.slots.push(Slot::default());
        if let Some(i) = d.index {
            self.by_wire_index.insert(i, k);
        }
        Ok(k)
    }

    fn tool_delta(
        &mut self,
        d: ToolCallDelta,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), LlmError> {
        let k = self.slot_for(&d)?;
        self.last_touched = Some(k);
        let slot = &mut self.slots[k];
        if let Some(id) = d.id.filter(|s| !s.is_empty())
            && slot.id.is_empty()
        {
            slot.id = id;
        }
        let (name, args) = match d.function {
            Some(f) => (f.name, f.arguments),
            None => (None, None),
        };
        if let Some(name) = name.filter(|s| !s.is_empty())
            && slot.name.is_empty()
        {
            slot.name = name;
        }
        let args = args.unwrap_or_default();
        if !slot.started && !slot.name.is_empty() {
            if slot.id.is_empty() {
                slot.id = format!("call_{k}");
            }
            slot.started = true;
            out.push_back(StreamEvent::ToolCallStarted {
                index: k,
                id: slot.id.clone(),
                name: slot.name.clone(),
            });
            // Argument text that came before the name.
            if !slot.args.is_empty() {
                out.push_back(StreamEvent::ToolCallArgumentsDelta {
                    index: k,
                    delta: slot.args.clone(),
                });
            }
        }
        if !args.is_empty() {
            slot.args.push_str(&args);
            if slot.started {
                out.push_back(StreamEvent::ToolCallArgumentsDelta {
                    index: k,
                    delta: args,
                });
            }
        }
        Ok(())
    }

    fn close_calls(&mut self, out: &mut VecDeque<StreamEvent>) {
        for (k, slot) in self.slots.iter_mut().enumerate() {
            if slot.done {
                continue;
            }
            if !slot.started {
                if slot.id.is_empty() {
                    slot.id = format!("call_{k}");
                }
                slot.started = true;
                out.push_back(StreamEvent::ToolCallStarted {
                    index: k,
                    id: slot.id.clone(),
                    name: slot.name.clone(),
                });
                // Argument text of a call whose name never came (found by the `llm_stream`
                // fuzz target: the deltas must add up to the done call's arguments).
                if !slot.args.is_empty() {
                    out.push_back(StreamEvent::ToolCallArgumentsDelta {
                        index: k,
                        delta: slot.args.clone(),
                    });
                }
            }
            slot.done = true;
            out.push_back(StreamEvent::ToolCallDone {
                index: k,
                call: ToolCall::new(slot.id.clone(), slot.name.clone(), slot.args.clone()),
            });
        }
    }

    fn finish_reason(&self, wire: &str) -> FinishReason {
        match wire {
            "stop" if !self.slots.is_empty() => FinishReason::ToolCalls,
            "stop" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

impl Decoder for OpenAiDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.saw_done = true;
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            decode(
                &self.label,
                messages::bad_chunk("a chat completion chunk", &e.to_string()),
            )
        })?;
        if let Some(err) = chunk.error {
            return Err(stream_error(&self.label, &err));
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            let delta = choice.delta.unwrap_or_default();
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                out.push_back(StreamEvent::TextDelta(text));
            }
            let tokens: Vec<TokenLogprob> = choice
                .logprobs
                .and_then(|l| l.content)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|t| {
                    Some(TokenLogprob {
                        logprob: t.logprob?,
                        top: t
                            .top_logprobs
                            .unwrap_or_default()
                            .into_iter()
                            .filter_map(|a| Some((a.token, a.logprob?)))
                            .collect(),
                        token: t.token,
                    })
                })
                .collect();
            if !tokens.is_empty() {
                out.push_back(StreamEvent::Logprobs(tokens));
            }
            for d in delta.tool_calls.unwrap_or_default() {
                self.tool_delta(d, out)?;
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish = Some(self.finish_reason(&reason));
                self.close_calls(out);
            }
        }
        if let Some(u) = chunk.usage {
            out.push_back(StreamEvent::Usage(Usage {
                input_tokens: u.prompt_tokens,
                output_tokens: u.completion_tokens,
                cached_input_tokens: u
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
            }));
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.saw_done
    }

    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let reason = match self.finish.take() {
            Some(r) => r,
            None if self.saw_done => self.finish_reason("stop"),
            None => {
                let open = self
                    .last_touched
                    .filter(|k| !self.slots[*k].done)
                    .or_else(|| self.slots.iter().position(|s| !s.done))
                    .map(|k| OpenCall {
                        index: k,
                        id: self.slots[k].id.clone(),
                        name: self.slots[k].name.clone(),
                    });
                return Err(cut(&self.label, open));
            }
        };
        self.close_calls(out);
        out.push_back(StreamEvent::Finished(reason));
        Ok(())
    }
}

/// An `error` object inside a stream: `{"message": …, "code": 500}` or a bare string.
pub(crate) fn stream_error(label: &ProviderLabel, err: &Value) -> LlmError {
    let status = err
        .get("code")
        .and_then(|c| {
            c.as_u64()
                .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|c| (400..600).contains(c))
        .unwrap_or(500) as u16;
    let body = json!({ "error": err }).to_string();
    LlmError::Http {
        provider: label.clone(),
        status,
        message: transport::excerpt(&body, None),
        retry_after: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(chunks: &[&str]) -> (Vec<StreamEvent>, Result<(), LlmError>) {
        let mut d = OpenAiDecoder::new(ProviderLabel::new("openai-compatible", "http://x/v1"));
        let mut out = VecDeque::new();
        for c in chunks {
            let ev = SseEvent {
                event: "message".into(),
                data: (*c).to_owned(),
            };
            if let Err(e) = d.event(ev, &mut out) {
                return (out.into(), Err(e));
            }
        }
        let r = d.end(&mut out);
        (out.into(), r)
    }

    fn delta(tc: Value) -> String {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}).to_string()
    }

    #[test]
    fn pieces_without_index_follow_their_id_or_the_last_call() {
        let (events, r) = feed(&[
            &delta(json!({"id": "a", "function": {"name": "lookup", "arguments": "{\"x\":"}})),
            &delta(json!({"function": {"arguments": " 1}"}})),
            &delta(json!({"id": "b", "function": {"name": "noop", "arguments": "{}"}})),
            r#"{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}"#,
            "[DONE]",
        ]);
        r.unwrap();
        let done: Vec<_> = events
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDone { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(
            done,
            vec![
                ToolCall::new("a", "lookup", "{\"x\": 1}"),
                ToolCall::new("b", "noop", "{}")
            ]
        );
    }

    #[test]
    fn arguments_before_the_name_are_sent_once_the_call_starts() {
        let (events, r) = feed(&[
            &delta(json!({"index": 0, "id": "a", "function": {"arguments": "{\"x\""}})),
            &delta(json!({"index": 0, "function": {"name": "lookup", "arguments": ": 1}"}})),
            r#"{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}"#,
        ]);
        r.unwrap();
        assert_eq!(
            events,
            vec![
                StreamEvent::ToolCallStarted {
                    index: 0,
                    id: "a".into(),
                    name: "lookup".into()
                },
                StreamEvent::ToolCallArgumentsDelta {
                    index: 0,
                    delta: "{\"x\"".into()
                },
                StreamEvent::ToolCallArgumentsDelta {
                    index: 0,
                    delta: ": 1}".into()
                },
                StreamEvent::ToolCallDone {
                    index: 0,
                    call: ToolCall::new("a", "lookup", "{\"x\": 1}")
                },
                StreamEvent::Finished(FinishReason::ToolCalls),
            ]
        );
    }

    #[test]
    fn a_piece_for_a_call_that_never_started_is_a_decode_error() {
        let (_, r) = feed(&[&delta(json!({"index": 3, "function": {"arguments": "{}"}}))]);
        assert_eq!(
            r.unwrap_err().to_string(),
            "openai-compatible at http://x/v1: unreadable reply: arguments arrived for tool call 3 before its id and name"
        );
    }

    #[test]
    fn finish_reasons_map() {
        for (wire, want) in [
            ("stop", FinishReason::Stop),
            ("length", FinishReason::Length),
            ("content_filter", FinishReason::ContentFilter),
            ("tool_calls", FinishReason::ToolCalls),
            ("eos", FinishReason::Other("eos".into())),
        ] {
            let chunk = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": wire}]});
            let (events, r) = feed(&[&chunk.to_string()]);
            r.unwrap();
            assert_eq!(events, vec![StreamEvent::Finished(want)]);
        }
    }

    #[test]
    fn in_stream_error_without_code_is_a_500() {
        let (_, r) = feed(&[r#"{"error": {"message": "context length exceeded"}}"#]);
        let e = r.unwrap_err();
        assert_eq!(e.status(), Some(500));
        assert!(e.to_string().ends_with("HTTP 500: context length exceeded"));
    }
}
