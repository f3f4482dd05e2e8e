//! The rule every history the turn loop sends must keep, as a check.
//!
//! Every tool call in the history has exactly one
//! result, in the order of the calls, right after the assistant message that made them, before
//! the next request. Every provider refuses a history that breaks it (OpenAI: "An assistant
//! message with 'tool_calls' must be followed by tool messages responding to each
//! 'tool_call_id'"; Anthropic: "tool_use ids were found without tool_result blocks").

use hark_llm::{Message, ToolCall};

/// Where a history breaks the tool-result rule: the message index and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("message {index}: {problem}")]
pub struct HistoryProblem {
    /// Index of the offending message in the history.
    pub index: usize,
    /// What is wrong, naming the call id.
    pub problem: String,
}

/// Checks that each assistant message's tool calls are answered by exactly one
/// [`Message::Tool`] each, in call order, immediately after it, and that no tool result stands
/// anywhere else.
///
/// # Errors
/// The first [`HistoryProblem`].
pub fn check_tool_results(history: &[Message]) -> Result<(), HistoryProblem> {
    let mut i = 0;
    while i < history.len() {
        match &history[i] {
            Message::Assistant { tool_calls, .. } => {
                for (k, call) in tool_calls.iter().enumerate() {
                    let at = i + 1 + k;
                    match history.get(at) {
                        Some(Message::Tool { tool_call_id, .. }) if *tool_call_id == call.id => {}
                        Some(Message::Tool { tool_call_id, .. }) => {
                            return Err(HistoryProblem {
                                index: at,
                                problem: format!(
                                    "the result of {tool_call_id} stands where the result of {} ({}) must",
                                    call.id, call.name
                                ),
                            });
                        }
                        _ => {
                            return Err(HistoryProblem {
                                index: at,
                                problem: format!(
                                    "the tool call {} ({}) has no result",
                                    call.id, call.name
                                ),
                            });
                        }
                    }
                }
                i += 1 + tool_calls.len();
            }
            Message::Tool { tool_call_id, .. } => {
                return Err(HistoryProblem {
                    index: i,
                    problem: format!("the result of {tool_call_id} answers no tool call before it"),
                });
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Keeps in the bot's recorded messages only what the caller heard: each line of `unheard`
/// (cut off by an interruption, or dropped before it played) is looked for in the assistant
/// messages from the latest back, and its text replaced by what was heard of it. A message left
/// with no text and no tool calls is removed. A line not found changes nothing.
pub fn keep_heard(history: &mut Vec<Message>, unheard: &[crate::playout::Unheard]) {
    let mut emptied = Vec::new();
    for line in unheard.iter().rev() {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        for (index, message) in history.iter_mut().enumerate().rev() {
            let Message::Assistant {
                content,
                tool_calls,
            } = message
            else {
                continue;
            };
            if let Some(at) = content.rfind(text) {
                let rest = content.split_off(at + text.len());
                content.truncate(at);
                let (before, rest) = (content.trim_end(), rest.trim_start());
                *content = [before, line.heard.trim(), rest]
                    .into_iter()
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                if content.is_empty() && tool_calls.is_empty() {
                    emptied.push(index);
                }
                break;
            }
        }
    }
    emptied.sort_unstable();
    emptied.dedup();
    for index in emptied.into_iter().rev() {
        history.remove(index);
    }
}

/// The tool call as the history sent back to the provider keeps it: arguments that are empty,
/// blank or the JSON `null` (small models send both for a call without arguments) become `"{}"`,
/// since strict providers refuse an assistant message whose `arguments` is not a JSON object
/// text. Any other text is kept exactly as the model wrote it.
pub fn call_for_history(call: &ToolCall) -> ToolCall {
    let mut kept = call.clone();
    if hark_llm::no_arguments(&call.raw_arguments) {
        kept.raw_arguments = "{}".to_string();
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_null_arguments_are_kept_as_an_empty_object() {
        for raw in ["", "  ", "null", " null\n"] {
            let call = ToolCall::new("c1", "t", raw);
            assert_eq!(call_for_history(&call).raw_arguments, "{}", "{raw:?}");
        }
        let call = ToolCall::new("c1", "t", r#"{"q":1}"#);
        assert_eq!(call_for_history(&call), call);
    }

    fn assistant(ids: &[&str]) -> Message {
        Message::Assistant {
            content: String::new(),
            tool_calls: ids.iter().map(|id| ToolCall::new(*id, "t", "{}")).collect(),
        }
    }

    fn tool(id: &str) -> Message {
        Message::Tool {
            tool_call_id: id.into(),
            content: "{}".into(),
        }
    }

    #[test]
    fn results_in_call_order_pass_and_every_other_shape_fails() {
        let ok = [
            Message::User("hi".into()),
            assistant(&["a", "b"]),
            tool("a"),
            tool("b"),
        ];
        assert_eq!(check_tool_results(&ok), Ok(()));
        let swapped = [assistant(&["a", "b"]), tool("b"), tool("a")];
        assert_eq!(check_tool_results(&swapped).unwrap_err().index, 1);
        let missing = [assistant(&["a", "b"]), tool("a"), Message::User("x".into())];
        assert!(
            check_tool_results(&missing)
                .unwrap_err()
                .problem
                .contains("b (t) has no result")
        );
        let twice = [assistant(&["a"]), tool("a"), tool("a")];
        assert!(
            check_tool_results(&twice)
                .unwrap_err()
                .problem
                .contains("answers no tool call")
        );
    }

    #[test]
    fn only_what_was_heard_stays_in_the_bot_messages() {
        use crate::playout::Unheard;
        let said = |text: &str| Message::Assistant {
            content: text.into(),
            tool_calls: Vec::new(),
        };
        let mut history = vec![
            Message::User("hi".into()),
            said("Hello there. How can I help?"),
            Message::User("my order".into()),
            said("Sure. Your order ships today. It comes Friday."),
        ];
        keep_heard(
            &mut history,
            &[
                Unheard {
                    text: "Your order ships today.".into(),
                    heard: "Your order".into(),
                },
                Unheard {
                    text: "It comes Friday.".into(),
                    heard: String::new(),
                },
            ],
        );
        assert_eq!(history[3], said("Sure. Your order"));
        assert_eq!(history[1], said("Hello there. How can I help?"));
        // A message none of whose words were heard goes; a line not found changes nothing.
        keep_heard(
            &mut history,
            &[
                Unheard {
                    text: "Sure. Your order".into(),
                    heard: String::new(),
                },
                Unheard {
                    text: "One moment.".into(),
                    heard: String::new(),
                },
            ],
        );
        assert_eq!(history.len(), 3);
        assert_eq!(history[2], Message::User("my order".into()));
    }
}
