//! The scripted server as the real APIs: every tool schema of every request it receives is
//! checked against the rules of the provider the path names (`hark_schema::provider_rule_breaks`,
//! written from each provider's API documentation), and a schema that breaks one is answered as the
//! provider answers it, a 400 naming the tool, the schema's place and the rule. So every test in
//! the workspace that sends tools through a [`ScriptedServer`](super::ScriptedServer) is also a
//! conformance test, and a new tool cannot skip its provider's dialect unnoticed.
//!
//! | path | provider | schemas checked |
//! | --- | --- | --- |
//! | `…/chat/completions` | OpenAI-compatible | `tools[].function.parameters` (`strict: true`: OpenAI strict mode); a strict `response_format.json_schema.schema` (strict mode) |
//! | `…/messages` | Anthropic | `tools[].input_schema` (`strict: true`: strict tool use) |
//! | `…:streamGenerateContent`, `…:generateContent` | Gemini | `tools[].functionDeclarations[].parameters` / `parametersJsonSchema` |

use hark_schema::{Dialect, provider_rule_breaks};
use serde_json::{Value, json};

use super::RecordedRequest;
use crate::messages;

/// Which provider's API a request path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST …/chat/completions`.
    OpenAiCompatible,
    /// `POST …/messages`.
    Anthropic,
    /// `POST …/models/{model}:streamGenerateContent` (or `:generateContent`).
    Gemini,
}

impl Api {
    /// The API of `path`, `None` for any other path.
    pub fn of_path(path: &str) -> Option<Api> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/chat/completions") {
            Some(Api::OpenAiCompatible)
        } else if path.ends_with("/messages") {
            Some(Api::Anthropic)
        } else if path.ends_with(":streamGenerateContent") || path.ends_with(":generateContent") {
            Some(Api::Gemini)
        } else {
            None
        }
    }
}

/// One schema of a request body (a tool's, or a strict response format's): its name, where the schema sits in the body, the
/// schema, and the dialect its API reads it in.
#[derive(Debug, Clone, PartialEq)]
pub struct SentSchema {
    /// The tool's name.
    pub tool: String,
    /// Where the schema sits, e.g. `tools[0].function.parameters`.
    pub field: String,
    /// The schema as sent.
    pub schema: Value,
    /// The dialect whose rules apply.
    pub dialect: Dialect,
}

/// Every tool schema in `body`, a request to `api`.
pub fn sent_schemas(api: Api, body: &Value) -> Vec<SentSchema> {
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let name = |v: &Value| {
        v.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let strict = |v: &Value| v.get("strict") == Some(&Value::Bool(true));
    let mut out = Vec::new();
    // OpenAI structured outputs: a strict response format is held to strict mode's rules.
    if api == Api::OpenAiCompatible
        && let Some(format) = body
            .get("response_format")
            .and_then(|f| f.get("json_schema"))
        && strict(format)
        && let Some(schema) = format.get("schema")
    {
        out.push(SentSchema {
            tool: name(format),
            field: "response_format.json_schema.schema".into(),
            schema: schema.clone(),
            dialect: Dialect::OpenAiStrict,
        });
    }
    for (i, tool) in tools.iter().enumerate() {
        match api {
            Api::OpenAiCompatible => {
                let Some(f) = tool.get("function") else {
                    continue;
                };
                if let Some(schema) = f.get("parameters") {
                    out.push(SentSchema {
                        tool: name(f),
                        field: format!("tools[{i}].function.parameters"),
                        schema: schema.clone(),
                        dialect: if strict(f) {
                            Dialect::OpenAiStrict
                        } else {
                            Dialect::OpenAi
                        },
                    });
                }
            }
            Api::Anthropic => {
                if let Some(schema) = tool.get("input_schema") {
                    out.push(SentSchema {
                        tool: name(tool),
                        field: format!("tools.{i}.custom.input_schema"),
                        schema: schema.clone(),
                        dialect: if strict(tool) {
                            Dialect::AnthropicStrict
                        } else {
                            Dialect::Anthropic
                        },
                    });
                }
            }
            Api::Gemini => {
                let decls = tool
                    .get("functionDeclarations")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for (j, d) in decls.iter().enumerate() {
                    for (key, dialect) in [
                        ("parameters", Dialect::GeminiParameters),
                        ("parametersJsonSchema", Dialect::GeminiJsonSchema),
                    ] {
                        if let Some(schema) = d.get(key) {
                            out.push(SentSchema {
                                tool: name(d),
                                field: format!("tools[{i}].function_declarations[{j}].{key}"),
                                schema: schema.clone(),
                                dialect,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every rule the tool schemas of `request` break, one line each (`tool at field: pointer:
/// rule`); empty when its API takes them all (or the path is no provider's).
pub fn rule_breaks(request: &RecordedRequest) -> Vec<String> {
    let Some(api) = Api::of_path(&request.path) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for sent in sent_schemas(api, &request.body) {
        let breaks = provider_rule_breaks(&sent.schema, sent.dialect);
        if !breaks.is_empty() {
            let text: Vec<String> = breaks.iter().map(ToString::to_string).collect();
            lines.push(messages::scripted_schema_refused(
                &sent.tool,
                &sent.field,
                &text.join("; "),
            ));
        }
    }
    lines
}

/// The 400 body `api` answers a refused schema with (its own error shape).
pub fn refusal_body(api: Api, message: &str) -> String {
    match api {
        Api::OpenAiCompatible => json!({"error": {"message": message,
            "type": "invalid_request_error", "param": "tools", "code": "invalid_function_parameters"}}),
        Api::Anthropic => json!({"type": "error",
            "error": {"type": "invalid_request_error", "message": message}}),
        Api::Gemini => json!({"error": {"code": 400, "message": message,
            "status": "INVALID_ARGUMENT"}}),
    }
    .to_string()
}
