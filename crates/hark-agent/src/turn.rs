//! One turn of a call: the conductor's first word on the user text, then rounds of model
//! request → spoken text → tool calls → results, until a reply without tool calls.
//!
//! Parallel calls all run, their results in call order before the next request. Interrupted
//! while tools run, `continue` tools keep running, the others end cancelled, and every call has
//! exactly one result. Tool calls of a discarded generation never run. Text and a tool call in
//! one reply: the text is said once, and it precedes the tool result in the history.
//!
//! What an interruption (`stop`) does at each point of a round:
//!
//! | interrupted while | the round records | tools |
//! | --- | --- | --- |
//! | streaming, nothing said yet | nothing (the generation is discarded) | none run |
//! | streaming, some text said | the text streamed so far, no tool calls | none run |
//! | between the stream and the tools | the text if any was said, no tool calls | none run |
//! | tools running | the text, every call that ran and its one result | `continue` tools keep running (their result comes once, later); the others end cancelled |
//!
//! What a provider fault does:
//!
//! | fault | what happens |
//! | --- | --- |
//! | no first byte, 408, 429, 5xx, refused connection | the provider client retries ([`hark_llm::RetryPolicy`]); on its first retry of a turn the caller hears [`messages::hold_line`] (in the call's language) |
//! | the stream breaks after its first byte (cut, or silent past the idle limit), nothing said yet | no call of the broken reply runs; the request is sent again once per turn, after the hold line |
//! | the stream breaks otherwise, or the retries run out | no call of the broken reply runs; the client gets an [`AgentEvent::Error`] (an RTVI `error`); the caller hears [`messages::model_failed_line`] unless text was said and no tool call was under way; the text said is recorded, without calls |
//! | tool-call arguments that are not valid JSON | read once where the call is assembled, repaired where that is safe ([`hark_llm::read_arguments`]), and the call runs; otherwise it does not run and its one result is the registry's refusal, which the model reads |

use std::sync::Arc;

use futures::StreamExt;
use futures::future::join_all;
use hark_llm::{ChatRequest, LlmError, Message, StreamEvent, TimeoutPhase, ToolCall, ToolChoice};
use hark_tools::{CallResult, Discarded, Generation, ToolRegistry};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::{Shared, lock};
use crate::conductor::{PolicyContext, ToolCallPlan, UserTurn};
use crate::event::AgentEvent;
use crate::messages;
use crate::speech::SentenceSplitter;

/// What starts a turn.
#[derive(Debug, Clone)]
pub(crate) enum TurnInput {
    /// The user said or typed this.
    User(String),
    /// Late results of `continue` tools are waiting in the notes: the model reads them.
    Late,
}

/// How a round or a step of a turn ended.
enum Next {
    /// Ask the model again.
    Model,
    /// The turn is over.
    Done,
}

/// Runs one turn to its end (or its interruption), then watches for late results.
pub(crate) async fn run(shared: Arc<Shared>, input: TurnInput, stop: CancellationToken) {
    let next = match input {
        TurnInput::User(text) => user_step(&shared, text, &stop).await,
        TurnInput::Late => Next::Model,
    };
    if let Next::Model = next {
        rounds(&shared, &stop).await;
    }
    *lock(&shared.generation) = None;
    shared.watch_late();
}

/// A snapshot of the history for the conductor.
fn history(shared: &Shared) -> Vec<Message> {
    lock(&shared.history).clone()
}

/// A new generation for the next piece of the bot's speech, visible to interruptions.
fn begin_generation(shared: &Shared) -> Generation {
    let generation = shared.live.generation();
    shared.speech.begin(&generation);
    *lock(&shared.generation) = Some(generation.clone());
    generation
}

async fn say_all(shared: &Shared, lines: &[String]) {
    for line in lines {
        if shared.speech.say_segment(line).await.is_err() {
            return;
        }
    }
}

/// The conductor's first word on a user text.
async fn user_step(shared: &Arc<Shared>, text: String, stop: &CancellationToken) -> Next {
    let past = history(shared);
    let cx = PolicyContext {
        live: &shared.live,
        history: &past,
    };
    let decision = shared.settings.conductor.on_user_turn(&text, &cx).await;
    lock(&shared.history).push(Message::User(text));
    match decision {
        UserTurn::Ask => Next::Model,
        UserTurn::Answer { say } => {
            begin_generation(shared);
            say_all(shared, &say).await;
            if !say.is_empty() {
                lock(&shared.history).push(Message::Assistant {
                    content: say.join(" "),
                    tool_calls: Vec::new(),
                });
            }
            Next::Done
        }
        UserTurn::Call { say, call } => {
            let generation = begin_generation(shared);
            say_all(shared, &say).await;
            if stop.is_cancelled() {
                record_text(shared, &say.join(" "));
                return Next::Done;
            }
            let registry = shared.settings.conductor.tools(&cx);
            let result = run_call(&registry, &call, shared, &generation).await;
            let Ok(result) = result else {
                return Next::Done;
            };
            {
                let mut history = lock(&shared.history);
                history.push(Message::Assistant {
                    content: with_announced(&say.join(" "), [&result]),
                    tool_calls: vec![crate::history::call_for_history(&call)],
                });
                history.push(Message::Tool {
                    tool_call_id: call.id.clone(),
                    content: result.outcome.model_text(),
                });
                record_said(&mut history, [&result]);
            }
            let past = history(shared);
            let cx = PolicyContext {
                live: &shared.live,
                history: &past,
            };
            shared
                .settings
                .conductor
                .after_tool_call(&call, &result, &cx)
                .await;
            if result.ends_conversation {
                shared.end_call().await;
                return Next::Done;
            }
            if stop.is_cancelled() || !result.ask_model_reply {
                Next::Done
            } else {
                Next::Model
            }
        }
    }
}

/// The text of a reply that called tools, as the caller heard it: the reply's own text, then
/// the announce line each call said before it ran (in call order). The line belongs to the
/// reply that made the call, before the results: the model reads that it was said while the
/// tool ran, as the LiveKit adapter places it.
fn with_announced<'r>(text: &str, results: impl IntoIterator<Item = &'r CallResult>) -> String {
    let mut content = text.to_string();
    for line in results.into_iter().filter_map(|r| r.announced.as_deref()) {
        let kept = content.trim_end().len();
        content.truncate(kept);
        if !content.is_empty() {
            content.push(' ');
        }
        content.push_str(line.trim());
    }
    content
}

/// Records the reply lines the tool layer said for the results (after the results, as the
/// caller heard them), so the model knows what the caller was told.
fn record_said<'r>(history: &mut Vec<Message>, results: impl IntoIterator<Item = &'r CallResult>) {
    let said: Vec<&str> = results
        .into_iter()
        .flat_map(|r| r.said.iter().map(|line| line.trim()))
        .filter(|line| !line.is_empty())
        .collect();
    if !said.is_empty() {
        history.push(Message::Assistant {
            content: said.join(" "),
            tool_calls: Vec::new(),
        });
    }
}

/// Records bot text that was said, with no tool calls (blank text records nothing).
fn record_text(shared: &Shared, text: &str) {
    if !text.trim().is_empty() {
        lock(&shared.history).push(Message::Assistant {
            content: text.to_string(),
            tool_calls: Vec::new(),
        });
    }
}

/// Runs one call on `registry` with the arguments as the provider's stream read them (once): an
/// object, or unreadable, which the registry refuses in words the model can act on.
async fn run_call(
    registry: &ToolRegistry,
    call: &ToolCall,
    shared: &Shared,
    generation: &Generation,
) -> Result<CallResult, Discarded> {
    registry
        .call_live(&call.name, &call.arguments, &shared.live, generation)
        .await
}

/// One model reply as streamed.
struct Reply {
    text: String,
    calls: Vec<ToolCall>,
    interrupted: bool,
    /// The provider's error, when the reply failed (not yet reported: [`report_failure`]).
    error: Option<LlmError>,
    /// A tool call had started streaming (whether or not it was complete).
    call_started: bool,
}

impl Reply {
    fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// The stream broke after its first byte with nothing said and no tool run: asking again
    /// repeats nothing. Errors before the first byte were already retried
    /// by the provider client; a reply the provider refused or that did not decode would fail
    /// the same way again.
    fn worth_asking_again(&self) -> bool {
        !self.interrupted
            && self.text.trim().is_empty()
            && matches!(
                self.error,
                Some(
                    LlmError::StreamCut { .. }
                        | LlmError::Timeout {
                            phase: TimeoutPhase::NextChunk,
                            ..
                        }
                )
            )
    }
}

/// Says [`messages::hold_line`] once per turn (`held` remembers), so a caller waiting on a
/// retry hears something. False when the speech was interrupted.
async fn hold(shared: &Shared, held: &mut bool) -> bool {
    if *held {
        return true;
    }
    *held = true;
    shared
        .speech
        .say_segment(&messages::hold_line_in(&shared.live.state.language()))
        .await
        .is_ok()
}

/// Streams one model reply: text deltas go out as [`AgentEvent::TextDelta`] and, sentence by
/// sentence, as spoken segments; tool calls are collected. A retry of the provider client
/// ([`StreamEvent::Retrying`]) before anything was said makes the caller hear the hold line
/// (once per turn, `held`).
async fn stream_reply(
    shared: &Shared,
    request: &ChatRequest,
    stop: &CancellationToken,
    held: &mut bool,
) -> Reply {
    let output = shared.output();
    let mut reply = Reply {
        text: String::new(),
        calls: Vec::new(),
        interrupted: false,
        error: None,
        call_started: false,
    };
    if output.send(AgentEvent::LlmStarted).await.is_err() {
        reply.interrupted = true;
        return reply;
    }
    let mut stream = shared.settings.provider.stream(request);
    let mut splitter = SentenceSplitter::new();
    loop {
        let event = tokio::select! {
            biased;
            () = stop.cancelled() => {
                reply.interrupted = true;
                break;
            }
            event = stream.next() => event,
        };
        match event {
            Some(Ok(StreamEvent::TextDelta(delta))) => {
                reply.text.push_str(&delta);
                let sent = output.send(AgentEvent::TextDelta(delta.clone())).await;
                if sent.is_err() {
                    reply.interrupted = true;
                    break;
                }
                for sentence in splitter.push(&delta) {
                    if shared.speech.say_segment(&sentence).await.is_err() {
                        reply.interrupted = true;
                        break;
                    }
                }
            }
            Some(Ok(StreamEvent::ToolCallStarted { .. })) => reply.call_started = true,
            Some(Ok(StreamEvent::ToolCallDone { call, .. })) => {
                reply.call_started = true;
                reply.calls.push(call);
            }
            Some(Ok(StreamEvent::Retrying { retry, wait, error })) => {
                tracing::warn!(%error, retry, wait_ms = wait.as_millis() as u64,
                    "model request retried");
                if reply.text.is_empty() && !hold(shared, held).await {
                    reply.interrupted = true;
                    break;
                }
            }
            Some(Ok(StreamEvent::Finished(reason))) => {
                tracing::debug!(?reason, "model reply finished");
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(error)) => {
                tracing::warn!(%error, "model request failed");
                reply.error = Some(error);
                break;
            }
            None => {
                tracing::warn!("model stream ended without a finish event");
                break;
            }
        }
    }
    drop(stream);
    if !reply.interrupted
        && let Some(rest) = splitter.finish()
    {
        let _ = shared.speech.say_segment(&rest).await;
    }
    let _ = output.send(AgentEvent::LlmStopped).await;
    reply
}

/// A reply failed for good: the client gets an [`AgentEvent::Error`] (not fatal) naming the provider
/// and the status; the caller hears [`messages::model_failed_line`] unless the reply already
/// said something and was not about to run a tool (a tool call cut off means what the caller
/// asked for will not happen).
async fn report_failure(shared: &Shared, reply: &Reply) {
    let Some(error) = reply.error.as_ref().filter(|_| !reply.interrupted) else {
        return;
    };
    // The log has the whole error (above, where it failed); the client (an end user's page)
    // reads no endpoint and no text the provider sent.
    let _ = shared
        .output()
        .send(AgentEvent::Error {
            text: messages::model_failed(&error.for_client()),
            fatal: false,
        })
        .await;
    if reply.text.trim().is_empty() || reply.call_started {
        let _ = shared
            .speech
            .say_segment(&messages::model_failed_line_in(
                &shared.live.state.language(),
            ))
            .await;
    }
}

/// Model rounds until a reply without tool calls, an interruption, the end of the call, or
/// [`crate::AgentSettings::max_tool_rounds`].
async fn rounds(shared: &Arc<Shared>, stop: &CancellationToken) {
    let settings = &shared.settings;
    let limit = settings.max_tool_rounds;
    // The hold line is said at most once per turn.
    let mut held = false;
    // A reply whose stream broke before anything was said is asked for again once per turn.
    let mut asked_again = false;
    for round in 0..=limit {
        if stop.is_cancelled() || shared.is_ended() {
            return;
        }
        let last = round == limit;
        let notes: Vec<String> = lock(&shared.notes).drain(..).collect();
        let past = {
            let mut history = lock(&shared.history);
            history.extend(notes.into_iter().map(Message::System));
            history.clone()
        };
        let cx = PolicyContext {
            live: &shared.live,
            history: &past,
        };
        let registry = settings.conductor.tools(&cx);
        let mut messages = Vec::with_capacity(past.len() + 2);
        messages.push(Message::System(settings.conductor.instructions(&cx)));
        messages.extend(past.iter().cloned());
        let mut request = ChatRequest::new(settings.model.clone(), messages);
        request.temperature = settings.temperature;
        request.max_tokens = settings.max_tokens;
        let definitions = shared.definitions(&registry);
        if !definitions.is_empty() {
            request.tools = definitions.as_ref().clone();
        }
        if last && !request.tools.is_empty() {
            request.tool_choice = ToolChoice::None;
            request
                .messages
                .push(Message::System(messages::tool_rounds_exhausted(limit)));
        }

        let generation = begin_generation(shared);
        if stop.is_cancelled() {
            return;
        }
        let mut reply = stream_reply(shared, &request, stop, &mut held).await;
        if reply.worth_asking_again() && !asked_again && !stop.is_cancelled() {
            asked_again = true;
            // Once per turn; nothing of the broken reply was said or runs (its calls are
            // dropped with it).
            tracing::warn!(error = ?reply.error, "model stream broke before anything was said; asking again");
            if hold(shared, &mut held).await && !stop.is_cancelled() {
                reply = stream_reply(shared, &request, stop, &mut held).await;
            } else {
                // The caller talked over the hold line: the turn is theirs now.
                reply.interrupted = true;
            }
        }
        report_failure(shared, &reply).await;
        if reply.interrupted || reply.failed() || reply.calls.is_empty() || last {
            if last && !reply.calls.is_empty() {
                tracing::warn!(
                    rounds = limit,
                    "the model still called tools after the most rounds per turn; those calls do not run"
                );
                // The request offered no tool; a model that calls one anyway and says nothing
                // must not leave the caller in silence.
                if reply.text.trim().is_empty()
                    && !reply.interrupted
                    && !reply.failed()
                    && !stop.is_cancelled()
                {
                    let line = messages::tool_rounds_exhausted_line();
                    let _ = shared.speech.say_segment(&line).await;
                    reply.text = line;
                }
            }
            if !generation.is_discarded() && (shared.speech.spoke() || !reply.interrupted) {
                record_text(shared, &reply.text);
            }
            return;
        }
        if stop.is_cancelled() {
            // Interrupted between the stream and the tools: none runs.
            if shared.speech.spoke() {
                record_text(shared, &reply.text);
            }
            return;
        }

        // The conductor sees each call first, in call order.
        let mut plans = Vec::with_capacity(reply.calls.len());
        for call in &reply.calls {
            plans.push(settings.conductor.before_tool_call(call, &cx).await);
        }
        for plan in &plans {
            if let ToolCallPlan::Answer { say, .. } = plan {
                say_all(shared, say).await;
            }
        }
        // Every call the registry runs starts at once; results come back in call order.
        let runs = reply
            .calls
            .iter()
            .zip(&plans)
            .filter(|(_, plan)| matches!(plan, ToolCallPlan::Run))
            .map(|(call, _)| run_call(&registry, call, shared, &generation));
        let mut ran = join_all(runs).await.into_iter();

        let calls = std::mem::take(&mut reply.calls);
        let mut answered: Vec<(ToolCall, String, Option<CallResult>, bool)> = Vec::new();
        for (call, plan) in calls.into_iter().zip(plans) {
            match plan {
                ToolCallPlan::Answer {
                    result,
                    ask_model_reply,
                    ..
                } => {
                    let text = match &result {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    answered.push((call, text, None, ask_model_reply));
                }
                _ => {
                    // A call of a discarded generation did not run and leaves no trace.
                    if let Some(Ok(result)) = ran.next() {
                        let text = result.outcome.model_text();
                        let ask = result.ask_model_reply;
                        answered.push((call, text, Some(result), ask));
                    }
                }
            }
        }
        if answered.is_empty() {
            if !generation.is_discarded() {
                record_text(shared, &reply.text);
            }
            return;
        }
        {
            let results = answered
                .iter()
                .filter_map(|(_, _, result, _)| result.as_ref());
            let mut history = lock(&shared.history);
            history.push(Message::Assistant {
                content: with_announced(&reply.text, results.clone()),
                tool_calls: answered
                    .iter()
                    .map(|(c, ..)| crate::history::call_for_history(c))
                    .collect(),
            });
            for (call, text, ..) in &answered {
                history.push(Message::Tool {
                    tool_call_id: call.id.clone(),
                    content: text.clone(),
                });
            }
            record_said(&mut history, results);
        }
        let past = history(shared);
        let cx = PolicyContext {
            live: &shared.live,
            history: &past,
        };
        for (call, _, result, _) in &answered {
            if let Some(result) = result {
                settings.conductor.after_tool_call(call, result, &cx).await;
            }
        }
        if answered
            .iter()
            .any(|(_, _, r, _)| r.as_ref().is_some_and(|r| r.ends_conversation))
        {
            shared.live.speech.wait_playout().await;
            shared.end_call().await;
            return;
        }
        if stop.is_cancelled() || !answered.iter().any(|(.., ask)| *ask) {
            return;
        }
    }
}
