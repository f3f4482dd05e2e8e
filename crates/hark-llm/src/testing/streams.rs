//! Whole Anthropic and Gemini replies for [`Turn`], written as those APIs stream them
//! (Anthropic "Streaming Messages", Gemini `streamGenerateContent?alt=sse`), so tests of other
//! crates can script any provider, not only OpenAI-compatible ones.

use serde_json::{Value, json};

use super::Turn;

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn anthropic(blocks: &[(Value, Vec<Value>)], stop_reason: &str) -> String {
    let mut out = event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message",
            "role": "assistant", "model": "scripted", "content": [], "stop_reason": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    for (i, (start, deltas)) in blocks.iter().enumerate() {
        out.push_str(&event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": i, "content_block": start}),
        ));
        for d in deltas {
            out.push_str(&event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": i, "delta": d}),
            ));
        }
        out.push_str(&event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": i}),
        ));
    }
    out.push_str(&event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 5}}),
    ));
    out.push_str(&event("message_stop", &json!({"type": "message_stop"})));
    out
}

fn gemini(parts: Value) -> String {
    let v = json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5}});
    format!("data: {v}\n\n")
}

impl Turn {
    /// An Anthropic Messages stream of one text block, `stop_reason: end_turn`.
    pub fn anthropic_text(text: &str) -> Turn {
        let block = (
            json!({"type": "text", "text": ""}),
            vec![json!({"type": "text_delta", "text": text})],
        );
        Turn::stream().raw(anthropic(&[block], "end_turn"))
    }

    /// An Anthropic Messages stream of one `tool_use` block (`arguments`: the input's JSON
    /// text), `stop_reason: tool_use`.
    pub fn anthropic_tool_call(id: &str, name: &str, arguments: &str) -> Turn {
        let block = (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            vec![json!({"type": "input_json_delta", "partial_json": arguments})],
        );
        Turn::stream().raw(anthropic(&[block], "tool_use"))
    }

    /// A Gemini stream of one chunk with one text part, `finishReason: STOP`.
    pub fn gemini_text(text: &str) -> Turn {
        Turn::stream().raw(gemini(json!([{"text": text}])))
    }

    /// A Gemini stream of one chunk with one `functionCall` part (`args`: the arguments
    /// object; `id` as Gemini 2.5+ sends it), `finishReason: STOP`.
    pub fn gemini_tool_call(id: &str, name: &str, args: Value) -> Turn {
        Turn::stream().raw(gemini(
            json!([{"functionCall": {"id": id, "name": name, "args": args}}]),
        ))
    }
}
