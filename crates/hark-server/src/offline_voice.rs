//! The offline screen mode, aloud: with `[stt]` or `[tts]` and no LLM, each session runs a voice
//! agent whose model is the offline screen mode itself ([`OfflineModel`]), so hearing, barge-in
//! and playout are the voice agent's own and no cloud is asked.
//!
//! ```text
//! caller's words (speech or typed) ─► OfflineModel: call offline_screen {text}
//!                                      │
//!                                      ▼
//!   offline_screen tool: one OfflineScreen turn over the session's `screen` job
//!   (the verb picks the action, the local classifier the element; UI commands to the page)
//!                                      │ {"sentence": …}
//!                                      ▼
//!   its reply line says the sentence (spoken with [tts]); no second model request
//! ```

use std::fmt;
use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use hark_llm::{
    ChatRequest, FinishReason, LlmError, Message, Provider, ProviderLabel, StreamEvent, ToolCall,
};
use hark_tools::{
    Arguments, BuildError, Output, ToolContext, ToolError, ToolExecutor, ToolReply, ToolSpec,
};
use hark_ui::offline::OfflineScreen;
use serde_json::{Value, json};

/// The tool the offline model calls with the caller's words.
pub const OFFLINE_SCREEN_TOOL: &str = "offline_screen";
/// The offline model's name, as a voice agent's `model`.
pub const OFFLINE_MODEL: &str = "offline-screen";

/// A [`Provider`] that answers every user turn with one call of [`OFFLINE_SCREEN_TOOL`]
/// carrying the user's words, and anything else (the tool's result, a late note) with an
/// empty reply: the tool's reply line has said its sentence already.
#[derive(Debug)]
pub struct OfflineModel {
    label: ProviderLabel,
}

impl OfflineModel {
    /// The offline model.
    pub fn new() -> Self {
        Self {
            label: ProviderLabel::new(OFFLINE_MODEL, "local"),
        }
    }
}

impl Default for OfflineModel {
    fn default() -> Self {
        Self::new()
    }
}

impl Provider for OfflineModel {
    fn label(&self) -> &ProviderLabel {
        &self.label
    }

    fn request_body(&self, request: &ChatRequest) -> Result<Value, LlmError> {
        // Nothing is sent anywhere; this is what a log of the request shows.
        Ok(json!({"model": request.model, "messages": request.messages.len()}))
    }

    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
        let events = match users_words(&request.messages) {
            Some(text) => {
                let id = format!("offline_{}", request.messages.len());
                let arguments = json!({ "text": text }).to_string();
                vec![
                    StreamEvent::ToolCallStarted {
                        index: 0,
                        id: id.clone(),
                        name: OFFLINE_SCREEN_TOOL.into(),
                    },
                    StreamEvent::ToolCallArgumentsDelta {
                        index: 0,
                        delta: arguments.clone(),
                    },
                    StreamEvent::ToolCallDone {
                        index: 0,
                        call: ToolCall::new(id, OFFLINE_SCREEN_TOOL, arguments),
                    },
                    StreamEvent::Finished(FinishReason::ToolCalls),
                ]
            }
            None => vec![StreamEvent::Finished(FinishReason::Stop)],
        };
        futures::stream::iter(events.into_iter().map(Ok)).boxed()
    }
}

/// What the user said since the bot last answered: the user messages at the end of the
/// history (notes the agent adds after them skipped), joined; `None` when the bot answered
/// last (the tool's result, a reply).
fn users_words(messages: &[Message]) -> Option<String> {
    let mut said = Vec::new();
    for message in messages.iter().rev() {
        match message {
            Message::System(_) | Message::Developer(_) => continue,
            Message::User(text) => said.push(text.as_str()),
            Message::Assistant { .. } | Message::Tool { .. } => break,
        }
    }
    if said.is_empty() {
        return None;
    }
    said.reverse();
    Some(said.join(" "))
}

/// The [`OFFLINE_SCREEN_TOOL`] over `screen` (one session's): runs one offline turn for the
/// `text` it is given and says the turn's sentence.
///
/// # Errors
/// [`BuildError`] only if hark-tools refused the fixed schema (a test pins that it builds).
pub fn offline_screen_tool(screen: OfflineScreen) -> Result<ToolSpec, BuildError> {
    let spec = ToolSpec::new(
        OFFLINE_SCREEN_TOOL,
        "Carries out what the user said on the screen, offline, and answers in one sentence.",
        json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What the user said."}},
            "required": ["text"]
        }),
        Output::json(
            "OfflineAnswer",
            json!({
                "type": "object",
                "properties": {"sentence": {"type": "string"}},
                "required": ["sentence"]
            }),
        ),
        Arc::new(OfflineTurn(screen)),
    )?;
    Ok(spec.replies([ToolReply::say(["{{result.sentence}}"])]))
}

struct OfflineTurn(OfflineScreen);

impl fmt::Debug for OfflineTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OfflineTurn")
    }
}

impl ToolExecutor for OfflineTurn {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move {
            let text = arguments
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let turn = self.0.turn(&text).await;
            // debug: the intent and the answer carry what the user said.
            tracing::debug!(intent = ?turn.intent, jobs = turn.calls.len(), answer = %turn.sentence, "offline screen turn (voice)");
            Ok(json!({ "sentence": turn.sentence }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offline_model_calls_the_tool_with_the_users_words_and_then_says_nothing_more() {
        let model = OfflineModel::new();
        let mut request = ChatRequest::new(
            OFFLINE_MODEL,
            vec![Message::User("add the blue mug".into())],
        );
        let events = futures::executor::block_on(model.stream(&request).collect::<Vec<_>>());
        let call = events.iter().find_map(|e| match e {
            Ok(StreamEvent::ToolCallDone { call, .. }) => Some(call.clone()),
            _ => None,
        });
        let call = call.expect("a tool call");
        assert_eq!(call.name, OFFLINE_SCREEN_TOOL);
        assert_eq!(
            serde_json::from_str::<Value>(&call.raw_arguments).unwrap(),
            json!({"text": "add the blue mug"})
        );
        assert!(matches!(
            events.last(),
            Some(Ok(StreamEvent::Finished(FinishReason::ToolCalls)))
        ));
        request.messages.push(Message::Tool {
            tool_call_id: call.id.clone(),
            content: json!({"sentence": "Done."}).to_string(),
        });
        let events = futures::executor::block_on(model.stream(&request).collect::<Vec<_>>());
        assert!(matches!(
            events.as_slice(),
            [Ok(StreamEvent::Finished(FinishReason::Stop))]
        ));
    }

    #[test]
    fn notes_after_the_users_words_are_skipped_and_words_said_in_pieces_are_joined() {
        let history = vec![
            Message::System("You are the shop.".into()),
            Message::User("add the blue mug".into()),
            Message::User("to my cart".into()),
            Message::System("check_order finished: {}".into()),
        ];
        assert_eq!(
            users_words(&history).as_deref(),
            Some("add the blue mug to my cart")
        );
        let answered = vec![
            Message::User("hi".into()),
            Message::Assistant {
                content: "Hello.".into(),
                tool_calls: Vec::new(),
            },
        ];
        assert_eq!(users_words(&answered), None);
    }
}
