//! Every tool schema reaches its provider in that provider's dialect, whoever built it,
//! and the scripted server refuses one that breaks the provider's rules as
//! the real API does.

use std::sync::{Arc, Mutex};

use hark_llm::testing::{RecordingPause, ScriptedServer, Turn};
use hark_llm::{
    Anthropic, ChatRequest, Gemini, Message, OpenAiCompatible, Provider, ToolDefinition,
};
use serde_json::{Value, json};

/// Optional values as JSON Schema type lists, as the UI worker's `reply` tool writes them.
fn reply_like() -> ToolDefinition {
    ToolDefinition::new(
        "reply",
        "Answer the user.",
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string"},
                "scroll_to": {"type": ["string", "null"]},
                "click": {"type": ["array", "null"], "items": {"type": "string"}}
            },
            "required": ["answer"]
        }),
    )
}

fn request() -> ChatRequest {
    ChatRequest::new("m", vec![Message::User("What is on screen?".into())])
        .with_tools(vec![reply_like()])
}

#[tokio::test]
async fn a_type_list_reaches_gemini_as_one_type() {
    let server = ScriptedServer::start(vec![Turn::gemini_text("Hi.")])
        .await
        .unwrap();
    let gemini = Gemini::with_base_url(server.base_url(), "k");
    let done = gemini.complete(&request()).await.unwrap();
    assert_eq!(done.text, "Hi.");
    assert_eq!(server.schema_refusals(), Vec::<String>::new());
    let sent = &server.bodies()[0]["tools"][0]["functionDeclarations"][0]["parameters"];
    // One type each: the optional values lose their null branch (the model leaves them out).
    assert_eq!(sent["properties"]["scroll_to"], json!({"type": "string"}));
    assert_eq!(sent["properties"]["click"]["type"], "array");
}

#[tokio::test]
async fn anthropic_and_openai_take_the_schema_as_written() {
    let server = ScriptedServer::start(vec![
        Turn::anthropic_text("Hi."),
        Turn::text_reply(&["Hi."]),
    ])
    .await
    .unwrap();
    let anthropic = Anthropic::with_base_url(server.base_url(), "k");
    assert_eq!(anthropic.complete(&request()).await.unwrap().text, "Hi.");
    let openai = OpenAiCompatible::new(server.base_url(), None);
    assert_eq!(openai.complete(&request()).await.unwrap().text, "Hi.");
    assert_eq!(server.schema_refusals(), Vec::<String>::new());
    let bodies = server.bodies();
    assert_eq!(
        bodies[0]["tools"][0]["input_schema"],
        reply_like().parameters
    );
    assert_eq!(
        bodies[1]["tools"][0]["function"]["parameters"],
        reply_like().parameters
    );
}

#[tokio::test]
async fn a_strict_tool_is_closed_for_openai_strict_mode() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Hi."])])
        .await
        .unwrap();
    let mut tool = reply_like();
    tool.strict = true;
    let openai = OpenAiCompatible::new(server.base_url(), None);
    openai
        .complete(&ChatRequest::new("m", vec![Message::User("Hi".into())]).with_tools(vec![tool]))
        .await
        .unwrap();
    assert_eq!(server.schema_refusals(), Vec::<String>::new());
    let sent = &server.bodies()[0]["tools"][0]["function"]["parameters"];
    assert_eq!(sent["additionalProperties"], false);
    assert_eq!(sent["required"], json!(["answer", "scroll_to", "click"]));
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A tool as a tester wrote it: an array without `items` and an object without fields,
/// which Gemini `parameters` cannot express.
fn odd() -> ToolDefinition {
    ToolDefinition::new(
        "odd",
        "Takes odd things.",
        json!({"type": "object", "properties": {
            "list": {"type": "array"},
            "meta": {"type": "object"}
        }}),
    )
}

/// One tool a dialect cannot express is left out with a warning; the others are still sent
/// and the request reaches the model (one bad tool never breaks the others).
#[tokio::test]
async fn an_inexpressible_tool_is_left_out_and_the_others_are_sent() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time() // a timestamp's digits could hold a value the test says is absent
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = ScriptedServer::start(vec![Turn::gemini_text("Hi.")])
        .await
        .unwrap();
    let gemini = Gemini::with_base_url(server.base_url(), "k");
    let request = ChatRequest::new("m", vec![Message::User("Hi".into())])
        .with_tools(vec![odd(), reply_like()]);
    assert_eq!(gemini.complete(&request).await.unwrap().text, "Hi.");
    assert_eq!(server.schema_refusals(), Vec::<String>::new());
    let decls = &server.bodies()[0]["tools"][0]["functionDeclarations"];
    let names: Vec<&str> = decls
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["reply"]);

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let warnings: Vec<&str> = logs.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "{logs}");
    assert!(
        warnings[0].contains(
            "tool odd left out of this request: its parameters cannot be sent in the Gemini parameters dialect (/properties/list/items"
        ),
        "{logs}"
    );
    assert!(
        warnings[0].contains("/properties/meta/properties"),
        "{logs}"
    );
}

/// Every tool left out: the request still goes, without a `tools` field.
#[tokio::test]
async fn a_request_whose_only_tool_is_inexpressible_goes_without_tools() {
    let server = ScriptedServer::start(vec![Turn::gemini_text("Hi.")])
        .await
        .unwrap();
    let gemini = Gemini::with_base_url(server.base_url(), "k");
    let tool = ToolDefinition::new(
        "lookup",
        "Looks up.",
        json!({"type": "object", "properties": {"m": {"type": "object",
            "additionalProperties": {"type": "integer"}}}}),
    );
    let request = ChatRequest::new("m", vec![Message::User("Hi".into())]).with_tools(vec![tool]);
    assert_eq!(gemini.complete(&request).await.unwrap().text, "Hi.");
    assert_eq!(server.bodies()[0].get("tools"), None);
}

/// The checker inside the scripted server: a body that skipped the dialect gets Gemini's 400.
#[tokio::test]
async fn the_scripted_server_refuses_a_type_list_for_gemini_like_the_api() {
    let server = ScriptedServer::start(vec![Turn::gemini_text("Hi.")])
        .await
        .unwrap();
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [{"functionDeclarations": [{"name": "reply", "description": "Answer.",
            "parameters": reply_like().parameters}]}]});
    let url = format!(
        "{}/models/m:streamGenerateContent?alt=sse",
        server.base_url()
    );
    let reply = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status().as_u16(), 400);
    let answer: Value = reply.json().await.unwrap();
    assert_eq!(answer["error"]["status"], "INVALID_ARGUMENT");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Invalid schema for tool reply at tools[0].function_declarations[0].parameters: /properties/scroll_to/type: Gemini parameters take one type per schema"
        ),
        "{message}"
    );
    assert_eq!(server.schema_refusals(), [message]);
    // The scripted turn is kept for the next request, which keeps the rules.
    let gemini = Gemini::with_base_url(server.base_url(), "k")
        .with_pause(Arc::new(RecordingPause::new(0.0)));
    assert_eq!(gemini.complete(&request()).await.unwrap().text, "Hi.");
}

/// A sibling path: a strict response format (OpenAI structured outputs) is held to strict
/// mode's rules like a strict tool, and brought into them where the body is built.
#[tokio::test]
async fn a_strict_response_format_is_closed_for_openai_strict_mode() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["{}"])])
        .await
        .unwrap();
    let mut request = ChatRequest::new("m", vec![Message::User("Hi".into())]);
    request.response_format = Some(hark_llm::ResponseFormat::JsonSchema {
        name: "answers".into(),
        schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
        strict: true,
    });
    OpenAiCompatible::new(server.base_url(), None)
        .complete(&request)
        .await
        .unwrap();
    assert_eq!(server.schema_refusals(), Vec::<String>::new());
    let sent = &server.bodies()[0]["response_format"]["json_schema"]["schema"];
    assert_eq!(sent["additionalProperties"], false);
    assert_eq!(sent["required"], json!(["ok"]));
}

/// The dialect a provider reads is a property of its type, not of its label's text: an agent
/// asks the provider (`Provider::dialect`) and sends its tools in that dialect.
#[test]
fn each_provider_type_names_the_dialect_it_reads() {
    use hark_schema::Dialect;
    let providers: [(Box<dyn Provider>, Dialect); 3] = [
        (
            Box::new(OpenAiCompatible::new("http://127.0.0.1:9/v1", None)),
            Dialect::OpenAi,
        ),
        (Box::new(Anthropic::new("key")), Dialect::Anthropic),
        (Box::new(Gemini::new("key")), Dialect::GeminiParameters),
    ];
    for (provider, dialect) in providers {
        assert_eq!(provider.dialect(), dialect, "{}", provider.label());
    }
}
