//! The scripted provider: a loopback OpenAI-compatible streaming server (axum) that answers from
//! the request's content, so every session can share it.
//!
//! `POST /v1/chat/completions` with a chat request:
//! - the last message is a tool result (`role: "tool"`): a short text reply ("Done.");
//! - else the last user message has a line `click <name>`: a streamed `screen` tool call with
//!   arguments `{"action": "click", "target": "<name>"}` (hark-ui's `screen` tool),
//!   `finish_reason: "tool_calls"`;
//! - else a streamed two-piece text reply ([`TEXT_REPLY`]).
//!
//! Streams are OpenAI's `data: {chunk}` lines ending with `data: [DONE]`, as
//! `hark_llm::testing::ScriptedServer` sends them. A body that is not a chat request gets 400 with
//! OpenAI's error shape naming what was wrong.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// The text reply's pieces (two chunks).
pub const TEXT_REPLY: [&str; 2] = ["Sure, ", "happy to help."];

/// The reply after a tool result.
pub const AFTER_TOOL: &str = "Done.";

/// What the provider answers to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A `screen` tool call clicking the element named `target`.
    Click {
        /// The element's accessible name, as the user said it.
        target: String,
    },
    /// A text reply made of these pieces.
    Text(Vec<String>),
}

/// Reads a chat request body and decides the answer (see the module docs).
///
/// # Errors
/// A sentence naming what the body lacks (not JSON, no `messages` array, no message).
pub fn answer_for(body: &[u8]) -> Result<Answer, String> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| format!("the request body is not JSON: {e}"))?;
    let messages = v
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("the request has no \"messages\" array")?;
    let last = messages
        .last()
        .ok_or("the request's \"messages\" is empty")?;
    if last.get("role").and_then(Value::as_str) == Some("tool") {
        return Ok(Answer::Text(vec![AFTER_TOOL.to_owned()]));
    }
    let user = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let text = user
        .map(|m| content_text(&m["content"]))
        .unwrap_or_default();
    Ok(answer_to(&text))
}

/// The answer to a user message's text: a click on the name of its first `click <name>` line,
/// else the text reply.
fn answer_to(text: &str) -> Answer {
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line
            .get(..6)
            .filter(|head| head.eq_ignore_ascii_case("click "))
            .map(|_| line[6..].trim())
            .filter(|rest| !rest.is_empty())
        {
            return Answer::Click {
                target: rest.to_owned(),
            };
        }
    }
    Answer::Text(TEXT_REPLY.iter().map(|s| s.to_string()).collect())
}

/// What the provider reads of a chat request in one pass: each message's role and text,
/// borrowed from the body where it has no escapes; every other field (the tools' schemas, the
/// model, …) is skipped unparsed.
#[derive(Debug, Deserialize)]
struct ChatRequest<'a> {
    #[serde(borrow)]
    messages: Vec<ChatMessage<'a>>,
}

#[derive(Debug, Deserialize)]
struct ChatMessage<'a> {
    /// Borrowed: a role written with escapes makes the typed pass give up (the `Value`
    /// functions then read the body).
    #[serde(default, borrow)]
    role: Option<&'a str>,
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Parts(#[serde(borrow)] Vec<Part<'a>>),
    Other(IgnoredAny),
}

/// A content part: its `text` when it is an object with a string `text`, else nothing (as
/// [`content_text`] skips it).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Part<'a> {
    Text {
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    Other(IgnoredAny),
}

impl ChatMessage<'_> {
    fn is(&self, role: &str) -> bool {
        self.role == Some(role)
    }

    /// As [`content_text`].
    fn text(&self) -> Cow<'_, str> {
        match &self.content {
            Some(Content::Text(s)) => Cow::Borrowed(s),
            Some(Content::Parts(parts)) => Cow::Owned(
                parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text { text } => Some(&**text),
                        Part::Other(_) => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => Cow::Borrowed(""),
        }
    }
}

/// [`answer_for`] and [`tool_error`] of one request body, reading it once: a typed pass that
/// skips what it does not need; a body it cannot read (not JSON, no messages, odd shapes) is
/// read by those two functions instead, so the answers and errors are theirs exactly.
///
/// # Errors
/// As [`answer_for`].
pub fn read_request(body: &[u8]) -> Result<(Answer, Option<String>), String> {
    if let Ok(req) = serde_json::from_slice::<ChatRequest>(body)
        && let Some(last) = req.messages.last()
    {
        if last.is("tool") {
            let error = serde_json::from_str::<Value>(&last.text())
                .ok()
                .and_then(|answer| {
                    answer
                        .get("error")
                        .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned))
                });
            return Ok((Answer::Text(vec![AFTER_TOOL.to_owned()]), error));
        }
        let user = req.messages.iter().rev().find(|m| m.is("user"));
        let text = user.map(ChatMessage::text).unwrap_or_default();
        return Ok((answer_to(&text), None));
    }
    Ok((answer_for(body)?, tool_error(body)))
}

/// A message's text: a string, or the `text` of each `{"type": "text"}` part, one per line.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn chunk(choices: Value) -> String {
    let v = json!({"id": "chatcmpl-load", "object": "chat.completion.chunk", "created": 0,
                   "model": "load", "choices": choices});
    format!("data: {v}\n\n")
}

/// The event-stream body of `answer`; `call_id` names the tool call.
pub fn stream_body(answer: &Answer, call_id: &str) -> String {
    let mut out = String::new();
    match answer {
        Answer::Click { target } => {
            let args = json!({"action": "click", "target": target}).to_string();
            out.push_str(&chunk(json!([{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": call_id, "type": "function",
                 "function": {"name": "screen", "arguments": ""}}]}, "finish_reason": null}])));
            out.push_str(&chunk(json!([{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": args}}]}, "finish_reason": null}])));
            out.push_str(&chunk(
                json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
            ));
        }
        Answer::Text(pieces) => {
            for p in pieces {
                out.push_str(&chunk(
                    json!([{"index": 0, "delta": {"content": p}, "finish_reason": null}]),
                ));
            }
            out.push_str(&chunk(
                json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            ));
        }
    }
    out.push_str("data: [DONE]\n\n");
    out
}

/// Counts of what the provider answered.
#[derive(Debug, Default)]
pub struct ProviderCounts {
    /// Requests answered with a tool call.
    pub clicks: AtomicU64,
    /// Requests answered with text.
    pub texts: AtomicU64,
    /// Requests refused with 400.
    pub refused: AtomicU64,
    /// Tool results (the `screen` tool's answers) that read `{"error": …}`.
    pub tool_errors: AtomicU64,
    /// The first few of those results.
    pub tool_error_samples: std::sync::Mutex<Vec<String>>,
}

/// The text of the last message when it is a tool result carrying an `"error"` key (the
/// `screen` tool's failure answer), else `None`.
pub fn tool_error(body: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let last = v.get("messages")?.as_array()?.last()?;
    if last.get("role")?.as_str()? != "tool" {
        return None;
    }
    let text = content_text(last.get("content")?);
    let answer: Value = serde_json::from_str(&text).ok()?;
    answer
        .get("error")
        .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned))
}

#[derive(Debug, Clone)]
struct Shared {
    counts: Arc<ProviderCounts>,
    delay: Duration,
    next_call: Arc<AtomicU64>,
    /// The two text replies' stream bodies (the same for every request), written once:
    /// [`TEXT_REPLY`] and [`AFTER_TOOL`].
    text_body: Bytes,
    after_tool_body: Bytes,
}

/// The running provider: its address and counts. It runs until the process ends.
#[derive(Debug, Clone)]
pub struct Provider {
    /// Where it listens (127.0.0.1, a free port).
    pub addr: SocketAddr,
    /// What it answered.
    pub counts: Arc<ProviderCounts>,
}

impl Provider {
    /// The `base_url` of an agent file's `[llm]` (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

/// Starts the provider on 127.0.0.1:0; each reply waits `delay` first.
///
/// # Errors
/// The bind error.
pub async fn start(delay: Duration) -> std::io::Result<Provider> {
    let counts = Arc::new(ProviderCounts::default());
    let shared = Shared {
        counts: counts.clone(),
        delay,
        next_call: Arc::new(AtomicU64::new(1)),
        text_body: stream_body(&answer_to(""), "").into(),
        after_tool_body: stream_body(&Answer::Text(vec![AFTER_TOOL.to_owned()]), "").into(),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("hark-load: the scripted provider stopped: {e}");
        }
    });
    Ok(Provider { addr, counts })
}

async fn complete(State(shared): State<Shared>, body: Bytes) -> Response {
    let (answer, tool_error) = match read_request(&body) {
        Ok(a) => a,
        Err(text) => {
            shared.counts.refused.fetch_add(1, Ordering::Relaxed);
            let body = json!({"error": {"message": text, "type": "invalid_request_error",
                                        "code": 400}});
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    };
    if let Some(error) = tool_error {
        shared.counts.tool_errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut samples) = shared.counts.tool_error_samples.lock()
            && samples.len() < 3
        {
            samples.push(error);
        }
    }
    match answer {
        Answer::Click { .. } => shared.counts.clicks.fetch_add(1, Ordering::Relaxed),
        Answer::Text(_) => shared.counts.texts.fetch_add(1, Ordering::Relaxed),
    };
    if !shared.delay.is_zero() {
        tokio::time::sleep(shared.delay).await;
    }
    // Every request takes a number, as before, so the tool calls' ids are the same.
    let n = shared.next_call.fetch_add(1, Ordering::Relaxed);
    let body: Bytes = match &answer {
        Answer::Click { .. } => stream_body(&answer, &format!("call_{n}")).into(),
        Answer::Text(pieces) if pieces.len() == 1 && pieces[0] == AFTER_TOOL => {
            shared.after_tool_body.clone()
        }
        Answer::Text(pieces) if pieces.iter().eq(TEXT_REPLY.iter()) => shared.text_body.clone(),
        Answer::Text(_) => stream_body(&answer, "").into(),
    };
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/event-stream")],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(messages: Value) -> Vec<u8> {
        json!({"model": "m", "stream": true, "messages": messages})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn a_click_line_becomes_a_screen_click_on_that_name() {
        let body = req(json!([{"role": "system", "content": "be brief"},
                               {"role": "user", "content": "click Add Aeropress Go to cart"}]));
        assert_eq!(
            answer_for(&body),
            Ok(Answer::Click {
                target: "Add Aeropress Go to cart".into()
            })
        );
        // Content parts, other lines around it, any case.
        let body = req(json!([{"role": "user", "content": [
            {"type": "text", "text": "<ui_state>\n- button \"x\"\n</ui_state>"},
            {"type": "text", "text": "CLICK  Search "}]}]));
        assert_eq!(
            answer_for(&body),
            Ok(Answer::Click {
                target: "Search".into()
            })
        );
    }

    #[test]
    fn a_tool_result_gets_done_and_other_text_gets_the_text_reply() {
        let body = req(json!([{"role": "user", "content": "click Search"},
                               {"role": "assistant", "tool_calls": []},
                               {"role": "tool", "tool_call_id": "c", "content": "{}"}]));
        assert_eq!(answer_for(&body), Ok(Answer::Text(vec!["Done.".into()])));
        let body = req(json!([{"role": "user", "content": "what do you sell?"}]));
        assert_eq!(
            answer_for(&body),
            Ok(Answer::Text(vec!["Sure, ".into(), "happy to help.".into()]))
        );
        // "click" alone names nothing: a text reply.
        let body = req(json!([{"role": "user", "content": "click"}]));
        assert!(matches!(answer_for(&body), Ok(Answer::Text(_))));
    }

    #[test]
    fn a_screen_error_in_the_tool_result_is_read() {
        let body = req(json!([{"role": "user", "content": "click Search"},
            {"role": "tool", "tool_call_id": "c", "content": "{\"error\": \"e7 is gone\"}"}]));
        assert_eq!(tool_error(&body).as_deref(), Some("e7 is gone"));
        let ok = req(json!([{"role": "tool", "tool_call_id": "c",
                              "content": "{\"done\": true, \"label\": \"Search\"}"}]));
        assert_eq!(tool_error(&ok), None);
        assert_eq!(
            tool_error(&req(json!([{"role": "user", "content": "hi"}]))),
            None
        );
    }

    #[test]
    fn one_typed_read_answers_as_answer_for_and_tool_error_do() {
        let bodies: Vec<Vec<u8>> = vec![
            req(json!([{"role": "system", "content": "You are a shop."},
                       {"role": "user", "content": "click Add Aeropress Go to cart"}])),
            req(
                json!([{"role": "user", "content": [{"type": "text", "text": "hi"},
                                                    {"type": "text", "text": "CLICK  Search "}]}]),
            ),
            req(json!([{"role": "user", "content": "click Search"},
                       {"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]},
                       {"role": "tool", "tool_call_id": "c",
                        "content": "{\"error\": \"e7 is gone\"}"}])),
            req(json!([{"role": "tool", "content": "{\"done\": true}"}])),
            req(json!([{"role": "user", "content": "what do you sell?"}])),
            req(json!([{"role": "user", "content": "say \"click\"\nclick Search"}])),
            // Odd shapes: the typed pass gives up, the Value functions answer.
            req(json!([{"role": 7, "content": "click Search"}, {"role": "user"}])),
            req(json!([{"role": "user", "content": [1, {"text": "click Search"}]}])),
            req(json!([{"role": "user", "content": {"text": "click x"}}])),
            req(json!(["not a message"])),
            req(json!([])),
            b"{}".to_vec(),
            b"nope".to_vec(),
        ];
        for body in bodies {
            let old = answer_for(&body).map(|a| (a, tool_error(&body)));
            assert_eq!(
                read_request(&body),
                old,
                "{}",
                String::from_utf8_lossy(&body)
            );
        }
    }

    #[test]
    fn a_body_that_is_not_a_chat_request_is_refused_with_its_reason() {
        assert!(
            answer_for(b"nope")
                .unwrap_err()
                .starts_with("the request body is not JSON")
        );
        assert_eq!(
            answer_for(b"{}").unwrap_err(),
            "the request has no \"messages\" array"
        );
        assert_eq!(
            answer_for(br#"{"messages": []}"#).unwrap_err(),
            "the request's \"messages\" is empty"
        );
    }

    #[test]
    fn the_tool_call_stream_carries_the_screen_arguments() {
        let body = stream_body(
            &Answer::Click {
                target: "Search".into(),
            },
            "call_1",
        );
        let events: Vec<Value> = body
            .split("\n\n")
            .filter_map(|e| e.strip_prefix("data: "))
            .filter(|d| *d != "[DONE]")
            .map(|d| serde_json::from_str(d).unwrap())
            .collect();
        assert_eq!(events.len(), 3);
        let call = &events[0]["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], "screen");
        let args = events[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(args).unwrap(),
            json!({"action": "click", "target": "Search"})
        );
        assert_eq!(events[2]["choices"][0]["finish_reason"], "tool_calls");
        assert!(body.ends_with("data: [DONE]\n\n"));
    }
}
