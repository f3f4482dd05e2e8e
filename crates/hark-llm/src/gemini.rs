//! Gemini `generateContent`, streamed: `POST {base_url}/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Wire format: Gemini API "Generating content" and "Function calling". Request:
//! `systemInstruction.parts[].text`, `contents[]` of `user`/`model` turns made of `parts`
//! (`text`, `functionCall {name, args, id}`, `functionResponse {name, response, id}`), `tools[0]
//! .functionDeclarations[] {name, description, parameters | parametersJsonSchema}`,
//! `toolConfig.functionCallingConfig {mode: AUTO|ANY|NONE, allowedFunctionNames}`,
//! `generationConfig {temperature, maxOutputTokens}`. Stream: each SSE `data` is a whole
//! `GenerateContentResponse`; a `functionCall` part arrives complete (never split), with an
//! optional `thoughtSignature` beside it; `finishReason` and `usageMetadata` come on the last
//! chunk; there is no `[DONE]`.
//!
//! Mapping notes: `System`/`Developer` messages before the first other message become
//! `systemInstruction` (one part each); later ones become user text parts, in place.
//! Consecutive messages of one role share one turn, so parallel function responses form one
//! `user` turn. A `functionResponse` needs the tool's name, looked up from the nearest earlier
//! assistant call with that id ([`LlmError::InvalidRequest`] when there is none); its
//! `response` is the tool's JSON object, or `{"output": <result>}` for any other result. A tool
//! with no arguments is declared without parameters (Gemini refuses an empty object schema).
//! Ids Gemini did not send are made up as `hark_call_<index>` and not sent back.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::stream::BoxStream;
use hark_schema::{Dialect, takes_no_arguments};
use reqwest::header::{HeaderMap, HeaderName};
use serde_json::{Map, Value, json};

use crate::Provider;
use crate::error::{LlmError, ProviderLabel};
use crate::messages;
use crate::retry::Pause;
use crate::sse::SseEvent;
use crate::tool_schema::parameters_for;
use crate::transport::{self, Decoder, HttpOptions, Transport, cut, decode};
use crate::types::{ChatRequest, FinishReason, Message, StreamEvent, ToolCall, ToolChoice, Usage};

/// Which `FunctionDeclaration` field carries a tool's schema; the schema must be in the
/// matching dialect (`hark_schema::Dialect::GeminiParameters` or `GeminiJsonSchema`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GeminiSchemaField {
    /// `parameters`: the OpenAPI subset every Gemini model and the Live API take (the default).
    #[default]
    Parameters,
    /// `parametersJsonSchema`: JSON Schema, Gemini 2.5 and later.
    ParametersJsonSchema,
}

/// Prefix of the ids made up for calls Gemini sent without one.
const MADE_UP_ID: &str = "hark_call_";

/// A client for the Gemini API (Google AI Studio / Developer API).
///
/// `base_url` defaults to `https://generativelanguage.googleapis.com/v1beta`; the key goes in
/// `x-goog-api-key` (never in the URL), marked sensitive and redacted from error excerpts.
#[derive(Debug, Clone)]
pub struct Gemini {
    transport: Arc<Transport>,
    base_url: String,
    schema_field: GeminiSchemaField,
}

impl Gemini {
    /// The public API with `api_key` (read by the caller, e.g. from `GEMINI_API_KEY`).
    pub fn new(api_key: impl Into<String>) -> Self {
        Self::with_base_url("https://generativelanguage.googleapis.com/v1beta", api_key)
    }

    /// Another endpoint speaking the same API (a proxy, a test server).
    pub fn with_base_url(base_url: impl Into<String>, api_key: impl Into<String>) -> Self {
        let base_url = base_url.into().trim_end_matches('/').to_owned();
        let api_key = api_key.into();
        let label = ProviderLabel::new("gemini", &base_url);
        Self {
            transport: Arc::new(Transport::new(label, Some(api_key))),
            base_url,
            schema_field: GeminiSchemaField::default(),
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

    /// Chooses the declaration field for tool schemas.
    pub fn with_schema_field(mut self, field: GeminiSchemaField) -> Self {
        self.schema_field = field;
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
            h.insert(HeaderName::from_static("x-goog-api-key"), v);
        }
        h
    }
}

impl Provider for Gemini {
    fn label(&self) -> &ProviderLabel {
        &self.transport.label
    }

    fn dialect(&self) -> hark_schema::Dialect {
        hark_schema::Dialect::GeminiParameters
    }

    fn request_body(&self, request: &ChatRequest) -> Result<Value, LlmError> {
        request_body(request, self.schema_field, &self.transport.label)
    }

    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
        let model = request
            .model
            .strip_prefix("models/")
            .unwrap_or(&request.model);
        transport::run(
            self.transport.clone(),
            format!(
                "{}/models/{model}:streamGenerateContent?alt=sse",
                self.base_url
            ),
            self.headers(),
            self.request_body(request),
            GeminiDecoder::new(self.transport.label.clone()),
        )
    }
}

fn push_turn(turns: &mut Vec<(String, Vec<Value>)>, role: &str, parts: Vec<Value>) {
    if parts.is_empty() {
        return;
    }
    match turns.last_mut() {
        Some((r, p)) if r == role => p.extend(parts),
        _ => turns.push((role.to_owned(), parts)),
    }
}

fn request_body(
    request: &ChatRequest,
    field: GeminiSchemaField,
    label: &ProviderLabel,
) -> Result<Value, LlmError> {
    let mut system: Vec<Value> = Vec::new();
    let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
    for (pos, m) in request.messages.iter().enumerate() {
        match m {
            Message::System(t) | Message::Developer(t) if turns.is_empty() => {
                system.push(json!({"text": t}));
            }
            Message::System(t) | Message::Developer(t) => {
                let note = messages::context_note(t);
                push_turn(&mut turns, "user", vec![json!({"text": note})]);
            }
            Message::User(t) => {
                push_turn(&mut turns, "user", vec![json!({"text": t})]);
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut parts = Vec::new();
                if !content.is_empty() {
                    parts.push(json!({"text": content}));
                }
                for c in tool_calls {
                    let mut call = Map::new();
                    call.insert("name".into(), json!(c.name));
                    call.insert("args".into(), c.arguments_object());
                    if !c.id.starts_with(MADE_UP_ID) {
                        call.insert("id".into(), json!(c.id));
                    }
                    let mut part = Map::new();
                    part.insert("functionCall".into(), Value::Object(call));
                    if let Some(sig) = &c.signature {
                        part.insert("thoughtSignature".into(), json!(sig));
                    }
                    parts.push(Value::Object(part));
                }
                push_turn(&mut turns, "model", parts);
            }
            Message::Tool {
                tool_call_id,
                content,
            } => {
                let name = request.messages[..pos]
                    .iter()
                    .rev()
                    .find_map(|m| match m {
                        Message::Assistant { tool_calls, .. } => tool_calls
                            .iter()
                            .find(|c| &c.id == tool_call_id)
                            .map(|c| c.name.clone()),
                        _ => None,
                    })
                    .ok_or_else(|| LlmError::InvalidRequest {
                        provider: label.clone(),
                        detail: messages::tool_result_without_call(tool_call_id),
                    })?;
                let response = match serde_json::from_str::<Value>(content) {
                    Ok(Value::Object(o)) => Value::Object(o),
                    Ok(other) => json!({"output": other}),
                    Err(_) => json!({"output": content}),
                };
                let mut fr = Map::new();
                fr.insert("name".into(), json!(name));
                fr.insert("response".into(), response);
                if !tool_call_id.starts_with(MADE_UP_ID) {
                    fr.insert("id".into(), json!(tool_call_id));
                }
                push_turn(&mut turns, "user", vec![json!({"functionResponse": fr})]);
            }
        }
    }
    let mut body = Map::new();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": system}));
    }
    let contents: Vec<Value> = turns
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    body.insert("contents".into(), Value::Array(contents));
    let (key, dialect) = match field {
        GeminiSchemaField::Parameters => ("parameters", Dialect::GeminiParameters),
        GeminiSchemaField::ParametersJsonSchema => {
            ("parametersJsonSchema", Dialect::GeminiJsonSchema)
        }
    };
    let decls = request
        .tools
        .iter()
        .filter_map(|t| {
            let mut d = Map::new();
            d.insert("name".into(), json!(t.name));
            d.insert("description".into(), json!(t.description));
            if !takes_no_arguments(&t.parameters) {
                d.insert(key.into(), parameters_for(t, dialect, label)?);
            }
            Some(Value::Object(d))
        })
        .collect::<Vec<Value>>();
    if !decls.is_empty() {
        body.insert("tools".into(), json!([{"functionDeclarations": decls}]));
        let config = match &request.tool_choice {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(json!({"mode": "NONE"})),
            ToolChoice::Required => Some(json!({"mode": "ANY"})),
            ToolChoice::Tool(name) => Some(json!({"mode": "ANY", "allowedFunctionNames": [name]})),
        };
        if let Some(c) = config {
            body.insert("toolConfig".into(), json!({"functionCallingConfig": c}));
        }
    }
    let mut generation = Map::new();
    if let Some(t) = request.temperature.filter(|t| t.is_finite()) {
        generation.insert("temperature".into(), crate::types::f32_json(t));
    }
    if let Some(n) = request.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(n));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(Value::Object(body))
}

/// Turns Gemini response chunks into stream events.
#[derive(Debug)]
pub(crate) struct GeminiDecoder {
    label: ProviderLabel,
    calls: usize,
    usage: Option<Usage>,
    finish: Option<String>,
}

impl GeminiDecoder {
    pub(crate) fn new(label: ProviderLabel) -> Self {
        Self {
            label,
            calls: 0,
            usage: None,
            finish: None,
        }
    }
}

impl Decoder for GeminiDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let v: Value = serde_json::from_str(&event.data).map_err(|e| {
            decode(
                &self.label,
                messages::bad_chunk("a GenerateContentResponse", &e.to_string()),
            )
        })?;
        if let Some(err) = v.get("error") {
            return Err(crate::openai::stream_error(&self.label, err));
        }
        if let Some(candidate) = v.pointer("/candidates/0") {
            let parts = candidate
                .pointer("/content/parts")
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                if let Some(fc) = part.get("functionCall") {
                    let index = self.calls;
                    self.calls += 1;
                    let id = fc
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map_or_else(|| format!("{MADE_UP_ID}{index}"), str::to_owned);
                    let name = fc
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let args = match fc.get("args") {
                        None | Some(Value::Null) => Value::Object(Map::new()),
                        Some(a) => a.clone(),
                    };
                    let mut call = ToolCall::from_value(id.clone(), name.clone(), args);
                    out.push_back(StreamEvent::ToolCallStarted {
                        index,
                        id: id.clone(),
                        name: name.clone(),
                    });
                    out.push_back(StreamEvent::ToolCallArgumentsDelta {
                        index,
                        delta: call.raw_arguments.clone(),
                    });
                    call.signature = part
                        .get("thoughtSignature")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    out.push_back(StreamEvent::ToolCallDone { index, call });
                } else if part.get("thought").and_then(Value::as_bool) != Some(true)
                    && let Some(t) = part
                        .get("text")
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                {
                    // Thought summaries (`thought: true`) are not reply text.
                    out.push_back(StreamEvent::TextDelta(t.to_owned()));
                }
            }
            if let Some(r) = candidate.get("finishReason").and_then(Value::as_str) {
                self.finish = Some(r.to_owned());
            }
        } else if let Some(block) = v
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            // The prompt itself was blocked: no candidates at all.
            self.finish = Some(format!("BLOCKED:{block}"));
        }
        if let Some(u) = v.get("usageMetadata") {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage {
                input_tokens: n("promptTokenCount"),
                output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
                cached_input_tokens: n("cachedContentTokenCount"),
            });
        }
        Ok(())
    }

    fn done(&self) -> bool {
        false
    }

    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let Some(finish) = self.finish.take() else {
            // Calls arrive whole, so no call is ever open.
            return Err(cut(&self.label, None));
        };
        if let Some(u) = self.usage {
            out.push_back(StreamEvent::Usage(u));
        }
        let reason = match finish.as_str() {
            "STOP" if self.calls > 0 => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
            | "IMAGE_SAFETY" => FinishReason::ContentFilter,
            b if b.starts_with("BLOCKED:") => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        };
        out.push_back(StreamEvent::Finished(reason));
        Ok(())
    }
}
