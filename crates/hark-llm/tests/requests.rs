//! The exact request body each provider mapping sends, pinned for one conversation: a system
//! prompt, a user turn, an assistant turn with text and a tool call, the tool's result, a
//! follow-up user turn, and two tools. Plus the mapping rules that differ between providers.

use hark_llm::{
    Anthropic, ChatRequest, Gemini, GeminiSchemaField, LlmError, MaxTokensField, Message,
    OpenAiCompatible, Provider, Roles, ToolCall, ToolChoice, ToolDefinition, messages,
};
use serde_json::{Value, json};

fn lookup_schema() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string", "description": "Guest name."}}, "required": ["name"]})
}

fn availability_schema() -> Value {
    json!({"type": "object", "properties": {"party": {"type": "integer", "minimum": 1, "maximum": 12}, "time": {"type": "string"}}, "required": ["party", "time"]})
}

fn conversation() -> ChatRequest {
    ChatRequest {
        model: "m".into(),
        messages: vec![
            Message::System("You are the booking line of Trattoria Roma.".into()),
            Message::User("Is there a table for four at eight?".into()),
            Message::Assistant {
                content: "Let me check.".into(),
                tool_calls: vec![ToolCall::new(
                    "call_1",
                    "availability",
                    "{\"party\": 4, \"time\": \"20:00\"}",
                )],
            },
            Message::Tool {
                tool_call_id: "call_1".into(),
                content: "{\"free\": true}".into(),
            },
            Message::User("Great, book it.".into()),
        ],
        tools: vec![
            ToolDefinition::new("lookup", "Finds a booking by name.", lookup_schema()),
            ToolDefinition::new("availability", "Lists free tables.", availability_schema()),
        ],
        temperature: Some(0.7),
        max_tokens: Some(300),
        ..ChatRequest::default()
    }
}

#[test]
fn openai_compatible_request_is_pinned() {
    let body = OpenAiCompatible::new("http://localhost:8080/v1", None)
        .request_body(&conversation())
        .unwrap();
    assert_eq!(
        body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "You are the booking line of Trattoria Roma."},
                {"role": "user", "content": "Is there a table for four at eight?"},
                {"role": "assistant", "content": "Let me check.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "availability", "arguments": "{\"party\": 4, \"time\": \"20:00\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "{\"free\": true}"},
                {"role": "user", "content": "Great, book it."}
            ],
            "tools": [
                {"type": "function", "function": {"name": "lookup", "description": "Finds a booking by name.", "parameters": lookup_schema()}},
                {"type": "function", "function": {"name": "availability", "description": "Lists free tables.", "parameters": availability_schema()}}
            ],
            "temperature": 0.7,
            "max_tokens": 300,
            "stream": true,
            "stream_options": {"include_usage": true}
        })
    );
}

#[test]
fn anthropic_request_is_pinned() {
    let body = Anthropic::new("k").request_body(&conversation()).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "m",
            "max_tokens": 300,
            "system": "You are the booking line of Trattoria Roma.",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Is there a table for four at eight?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me check."},
                    {"type": "tool_use", "id": "call_1", "name": "availability", "input": {"party": 4, "time": "20:00"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "{\"free\": true}"},
                    {"type": "text", "text": "Great, book it."}
                ]}
            ],
            "tools": [
                {"name": "lookup", "description": "Finds a booking by name.", "input_schema": lookup_schema()},
                {"name": "availability", "description": "Lists free tables.", "input_schema": availability_schema()}
            ],
            "temperature": 0.7,
            "stream": true
        })
    );
}

#[test]
fn gemini_request_is_pinned() {
    let body = Gemini::new("k").request_body(&conversation()).unwrap();
    assert_eq!(
        body,
        json!({
            "systemInstruction": {"parts": [{"text": "You are the booking line of Trattoria Roma."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Is there a table for four at eight?"}]},
                {"role": "model", "parts": [
                    {"text": "Let me check."},
                    {"functionCall": {"name": "availability", "args": {"party": 4, "time": "20:00"}, "id": "call_1"}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "availability", "response": {"free": true}, "id": "call_1"}},
                    {"text": "Great, book it."}
                ]}
            ],
            "tools": [{"functionDeclarations": [
                {"name": "lookup", "description": "Finds a booking by name.", "parameters": lookup_schema()},
                {"name": "availability", "description": "Lists free tables.", "parameters": availability_schema()}
            ]}],
            "generationConfig": {"temperature": 0.7, "maxOutputTokens": 300}
        })
    );
}

#[test]
fn developer_messages_map_per_provider() {
    let req = ChatRequest::new(
        "m",
        vec![
            Message::Developer("Be brief.".into()),
            Message::User("Hi".into()),
            Message::Developer("<ui_event>cart opened</ui_event>".into()),
        ],
    );
    let openai = OpenAiCompatible::new("http://x/v1", None)
        .with_roles(Roles::OpenAi)
        .request_body(&req)
        .unwrap();
    assert_eq!(
        openai["messages"][0],
        json!({"role": "developer", "content": "Be brief."})
    );
    assert_eq!(
        openai["messages"][2],
        json!({"role": "developer", "content": "<ui_event>cart opened</ui_event>"})
    );
    let as_system = OpenAiCompatible::new("http://x/v1", None)
        .with_roles(Roles::OpenAi)
        .developer_as_system(true)
        .request_body(&req)
        .unwrap();
    assert_eq!(
        as_system["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );

    // The portable roles (the default): one system message first, later text as context.
    let portable = OpenAiCompatible::new("http://x/v1", None)
        .request_body(&req)
        .unwrap();
    assert_eq!(
        portable["messages"],
        json!([{"role": "system", "content": "Be brief."},
               {"role": "user", "content": format!("Hi\n\n{}", messages::context_note("<ui_event>cart opened</ui_event>"))}])
    );

    // Leading instructions become the system prompt; later ones stay in place as user text
    // marked as context.
    let anthropic = Anthropic::new("k").request_body(&req).unwrap();
    assert_eq!(anthropic["system"], json!("Be brief."));
    assert_eq!(
        anthropic["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "Hi"},
            {"type": "text", "text": messages::context_note("<ui_event>cart opened</ui_event>")}
        ]}])
    );
    let gemini = Gemini::new("k").request_body(&req).unwrap();
    assert_eq!(
        gemini["systemInstruction"],
        json!({"parts": [{"text": "Be brief."}]})
    );
    assert_eq!(
        gemini["contents"],
        json!([{"role": "user", "parts": [{"text": "Hi"}, {"text": messages::context_note("<ui_event>cart opened</ui_event>")}]}])
    );
}

#[test]
fn parallel_tool_results_share_one_user_turn_for_anthropic_and_gemini() {
    let req = ChatRequest::new(
        "m",
        vec![
            Message::User("Both please.".into()),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![
                    ToolCall::new("a", "lookup", "{\"name\": \"Rossi\"}"),
                    ToolCall::new("b", "availability", ""),
                ],
            },
            Message::Tool {
                tool_call_id: "a".into(),
                content: "not json".into(),
            },
            Message::Tool {
                tool_call_id: "b".into(),
                content: "[1, 2]".into(),
            },
        ],
    );
    let anthropic = Anthropic::new("k").request_body(&req).unwrap();
    assert_eq!(
        anthropic["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "lookup", "input": {"name": "Rossi"}},
            {"type": "tool_use", "id": "b", "name": "availability", "input": {}}
        ]})
    );
    assert_eq!(
        anthropic["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "not json"},
            {"type": "tool_result", "tool_use_id": "b", "content": "[1, 2]"}
        ]})
    );
    let gemini = Gemini::new("k").request_body(&req).unwrap();
    assert_eq!(
        gemini["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "lookup", "response": {"output": "not json"}, "id": "a"}},
            {"functionResponse": {"name": "availability", "response": {"output": [1, 2]}, "id": "b"}}
        ]})
    );
    let openai = OpenAiCompatible::new("http://x/v1", None)
        .request_body(&req)
        .unwrap();
    assert_eq!(
        openai["messages"][1]["content"],
        Value::Null,
        "no text: content is null"
    );
}

#[test]
fn tool_choice_and_parallel_switch_per_provider() {
    let base = conversation();
    let with = |choice: ToolChoice, parallel: Option<bool>| ChatRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        ..base.clone()
    };
    let o = OpenAiCompatible::new("http://x/v1", None);
    let a = Anthropic::new("k");
    let g = Gemini::new("k");

    let r = with(ToolChoice::Auto, None);
    assert!(o.request_body(&r).unwrap().get("tool_choice").is_none());
    assert!(a.request_body(&r).unwrap().get("tool_choice").is_none());
    assert!(g.request_body(&r).unwrap().get("toolConfig").is_none());

    let r = with(ToolChoice::Required, Some(false));
    assert_eq!(
        o.request_body(&r).unwrap()["tool_choice"],
        json!("required")
    );
    assert_eq!(
        o.request_body(&r).unwrap()["parallel_tool_calls"],
        json!(false)
    );
    assert_eq!(
        a.request_body(&r).unwrap()["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    assert_eq!(
        g.request_body(&r).unwrap()["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY"}})
    );

    let r = with(ToolChoice::Tool("lookup".into()), None);
    assert_eq!(
        o.request_body(&r).unwrap()["tool_choice"],
        json!({"type": "function", "function": {"name": "lookup"}})
    );
    assert_eq!(
        a.request_body(&r).unwrap()["tool_choice"],
        json!({"type": "tool", "name": "lookup"})
    );
    assert_eq!(
        g.request_body(&r).unwrap()["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["lookup"]}})
    );

    let r = with(ToolChoice::None, None);
    assert_eq!(o.request_body(&r).unwrap()["tool_choice"], json!("none"));
    assert_eq!(
        a.request_body(&r).unwrap()["tool_choice"],
        json!({"type": "none"})
    );
    assert_eq!(
        g.request_body(&r).unwrap()["toolConfig"],
        json!({"functionCallingConfig": {"mode": "NONE"}})
    );

    let r = with(ToolChoice::Auto, Some(false));
    assert_eq!(
        a.request_body(&r).unwrap()["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
}

#[test]
fn strict_tools_max_tokens_field_and_anthropic_default_limit() {
    let mut req = ChatRequest::new("m", vec![Message::User("x".into())]);
    req.tools = vec![ToolDefinition {
        strict: true,
        ..ToolDefinition::new("t", "d", lookup_schema())
    }];
    let o = OpenAiCompatible::new("http://x/v1", None)
        .max_tokens_field(MaxTokensField::MaxCompletionTokens)
        .include_usage(false);
    let body = o
        .request_body(&ChatRequest {
            max_tokens: Some(50),
            ..req.clone()
        })
        .unwrap();
    assert_eq!(body["tools"][0]["function"]["strict"], json!(true));
    assert_eq!(body["max_completion_tokens"], json!(50));
    assert!(body.get("max_tokens").is_none() && body.get("stream_options").is_none());
    let a = Anthropic::new("k").request_body(&req).unwrap();
    assert_eq!(a["tools"][0]["strict"], json!(true));
    assert_eq!(
        a["max_tokens"],
        json!(hark_llm::ANTHROPIC_DEFAULT_MAX_TOKENS)
    );
    assert_eq!(a["max_tokens"], json!(1024));
    assert!(
        Gemini::new("k").request_body(&req).unwrap()["tools"][0]["functionDeclarations"][0]
            .get("strict")
            .is_none()
    );
}

#[test]
fn gemini_leaves_out_parameters_of_a_tool_without_arguments_and_can_send_json_schema() {
    let mut req = ChatRequest::new("m", vec![Message::User("x".into())]);
    req.tools = vec![
        ToolDefinition::new(
            "end_call",
            "Hangs up.",
            json!({"type": "object", "properties": {}}),
        ),
        ToolDefinition::new("lookup", "Finds.", lookup_schema()),
    ];
    let body = Gemini::new("k").request_body(&req).unwrap();
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0],
        json!({"name": "end_call", "description": "Hangs up."})
    );
    let body = Gemini::new("k")
        .with_schema_field(GeminiSchemaField::ParametersJsonSchema)
        .request_body(&req)
        .unwrap();
    assert_eq!(
        body["tools"][0]["functionDeclarations"][1]["parametersJsonSchema"],
        lookup_schema()
    );
    assert!(
        body["tools"][0]["functionDeclarations"][1]
            .get("parameters")
            .is_none()
    );
}

#[test]
fn gemini_sends_back_signatures_and_keeps_made_up_ids_to_itself() {
    let mut call = ToolCall::new("hark_call_0", "lookup", "{\"name\": \"Rossi\"}");
    call.signature = Some("CiwB0e2K".into());
    let req = ChatRequest::new(
        "m",
        vec![
            Message::User("x".into()),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![call],
            },
            Message::Tool {
                tool_call_id: "hark_call_0".into(),
                content: "{\"found\": false}".into(),
            },
        ],
    );
    let body = Gemini::new("k").request_body(&req).unwrap();
    assert_eq!(
        body["contents"][1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "lookup", "args": {"name": "Rossi"}}, "thoughtSignature": "CiwB0e2K"}]})
    );
    assert_eq!(
        body["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {"found": false}}}]})
    );
}

#[test]
fn gemini_refuses_a_tool_result_without_its_call() {
    let req = ChatRequest::new(
        "m",
        vec![
            Message::User("x".into()),
            Message::Tool {
                tool_call_id: "call_9".into(),
                content: "{}".into(),
            },
        ],
    );
    let err = Gemini::with_base_url(
        "https://generativelanguage.googleapis.com/v1beta?key=secret",
        "k",
    )
    .request_body(&req)
    .unwrap_err();
    assert!(matches!(err, LlmError::InvalidRequest { .. }));
    assert_eq!(
        err.to_string(),
        "gemini at https://generativelanguage.googleapis.com/v1beta: cannot build the request: the tool result for call call_9 \
answers no tool call of an earlier assistant message. Keep each tool result after the assistant message that made the call."
    );
}
