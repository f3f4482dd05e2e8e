//! Hark's own overhead per turn, the voice agent and the UI worker together: the time from a user's
//! text to the first bot text, and to the first UI command, with a provider that answers at once.
//!
//! Two providers:
//! - `in-process`: a [`Provider`] that yields its scripted events without any I/O, so the
//!   figure is the turn loop alone (history, request building, tool definitions, the stream
//!   loop, speech, `call_live`, the `screen` tool, the UI worker's click, the outputs);
//! - `loopback HTTP`: `hark_llm::testing::ScriptedServer` on 127.0.0.1, so the figure adds
//!   hark-llm's HTTP client, its SSE decoding and the loopback round trip.
//!
//! Each sample is one turn of a call whose history grows over 20 turns (then a new call). The
//! UI worker holds a 9-product snapshot and a classifier that answers at once (the classifier's
//! own cost is measured in hark-ui's benches).
//!
//! Run: `cargo bench -p hark-server --bench turn` (`HARK_BENCH_TURNS=N` sets the samples per
//! figure; default 2000 in process, a quarter of that over HTTP).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream};
use hark_agent::AgentEvent;
use hark_agent::{AgentSettings, ChannelOutput, VoiceAgent};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{
    ChatRequest, FinishReason, LlmError, Message, OpenAiCompatible, Provider, ProviderLabel,
    StreamEvent, ToolCall,
};
use hark_rtvi::message::ServerMessage;
use hark_tools::{CallInfo, CallState, ToolRegistry};
use hark_ui::classifier::{
    Answer, ChoiceResult, Classifier, ClassifierError, ClassifyState, Question,
};
use hark_ui::{A11ySnapshot, UiWorker, screen_tools};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

/// Picks the first option, surely, at once.
#[derive(Debug)]
struct First;

impl Classifier for First {
    fn ask<'a>(
        &'a self,
        _state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        let answers = questions
            .iter()
            .map(|(name, q)| {
                let Question::Choice(c) = q else {
                    return Err(ClassifierError::new("choices only"));
                };
                let first = c.options[0].0.clone();
                Ok((
                    name.clone(),
                    Answer::Choice(ChoiceResult {
                        choice: first.clone(),
                        probabilities: vec![(first, 1.0)],
                        confidence: 1.0,
                    }),
                ))
            })
            .collect();
        Box::pin(async move { answers })
    }
}

/// Answers at once: a `screen` click when the user asks to add something, then (after the
/// tool result) a sentence; a sentence for any other user text.
#[derive(Debug)]
struct InProcess {
    label: ProviderLabel,
}

impl Provider for InProcess {
    fn label(&self) -> &ProviderLabel {
        &self.label
    }

    fn request_body(&self, _request: &ChatRequest) -> Result<Value, LlmError> {
        Ok(json!({}))
    }

    fn stream(&self, request: &ChatRequest) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
        let wants_click =
            matches!(request.messages.last(), Some(Message::User(t)) if t.starts_with("add"));
        let events = if wants_click {
            let call = ToolCall::new(
                "call_1",
                "screen",
                r#"{"action":"click","target":"add to cart for the blue mug"}"#,
            );
            vec![
                Ok(StreamEvent::ToolCallStarted {
                    index: 0,
                    id: call.id.clone(),
                    name: call.name.clone(),
                }),
                Ok(StreamEvent::ToolCallDone { index: 0, call }),
                Ok(StreamEvent::Finished(FinishReason::ToolCalls)),
            ]
        } else {
            vec![
                Ok(StreamEvent::TextDelta("Done, it is in your cart.".into())),
                Ok(StreamEvent::Finished(FinishReason::Stop)),
            ]
        };
        Box::pin(stream::iter(events))
    }
}

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"main","children":[
  {"ref":"e2","role":"link","name":"Cart (0)"},
  {"ref":"e3","role":"list","children":[
    {"ref":"e10","role":"listitem","name":"Espresso cup €9.50","children":[{"ref":"e11","role":"button","name":"Add to cart"}]},
    {"ref":"e12","role":"listitem","name":"French press €34.00","children":[{"ref":"e13","role":"button","name":"Add to cart"}]},
    {"ref":"e14","role":"listitem","name":"Coffee grinder €59.00","children":[{"ref":"e15","role":"button","name":"Add to cart"}]},
    {"ref":"e16","role":"listitem","name":"Pour-over kettle €45.00","children":[{"ref":"e17","role":"button","name":"Add to cart"}]},
    {"ref":"e18","role":"listitem","name":"Paper filters €6.00","children":[{"ref":"e19","role":"button","name":"Add to cart"}]},
    {"ref":"e20","role":"listitem","name":"Travel mug €19.00","children":[{"ref":"e21","role":"button","name":"Add to cart"}]},
    {"ref":"e22","role":"listitem","name":"Milk frother €28.00","children":[{"ref":"e23","role":"button","name":"Add to cart"}]},
    {"ref":"e24","role":"listitem","name":"Tea infuser €8.00","children":[{"ref":"e25","role":"button","name":"Add to cart"}]},
    {"ref":"e26","role":"listitem","name":"Blue mug €22.00","children":[{"ref":"e27","role":"button","name":"Add to cart"}]}]},
  {"ref":"e30","role":"textbox","name":"Email"}]},"captured_at":1}"#;

/// One call: an agent over `provider` with the screen tool on a UI worker, and the receivers
/// of the client's messages and of the worker's commands.
struct Call {
    agent: VoiceAgent,
    bot: UnboundedReceiver<AgentEvent>,
    commands: UnboundedReceiver<ServerMessage>,
}

fn call(provider: Arc<dyn Provider>) -> Call {
    let (tx, commands) = tokio::sync::mpsc::unbounded_channel();
    let worker = Arc::new(UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(First)));
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).expect("snapshot"));
    let tools = screen_tools(worker, Duration::from_secs(30)).expect("screen tool");
    let registry = Arc::new(ToolRegistry::new(tools).expect("registry"));
    let settings = AgentSettings::new(provider, "bench", "You run the shop.", registry);
    let (output, bot) = ChannelOutput::new();
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let agent = VoiceAgent::new(settings, state, Arc::new(output)).expect("agent");
    Call {
        agent,
        bot,
        commands,
    }
}

/// Waits for the first message `pick` accepts; panics after 10 s.
async fn first<T>(rx: &mut UnboundedReceiver<T>, pick: fn(&T) -> bool) {
    let found = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(m) = rx.recv().await {
            if pick(&m) {
                return;
            }
        }
        panic!("the channel closed");
    })
    .await;
    assert!(found.is_ok(), "no awaited message within 10 s");
}

fn is_text(m: &AgentEvent) -> bool {
    matches!(m, AgentEvent::TextDelta(_))
}

fn is_command(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::UiCommand(_))
}

/// Samples of (user text → first bot text) for text turns, and (user text → first UI command,
/// user text → first bot text) for screen turns.
struct Samples {
    text: Vec<Duration>,
    command: Vec<Duration>,
    after_command: Vec<Duration>,
}

async fn measure(
    turns: usize,
    mut provider: impl FnMut() -> (Arc<dyn Provider>, Option<ScriptedServer>),
) -> Samples {
    let mut samples = Samples {
        text: Vec::with_capacity(turns),
        command: Vec::with_capacity(turns),
        after_command: Vec::with_capacity(turns),
    };
    let mut done = 0;
    while done < turns {
        let (p, server) = provider();
        let mut c = call(p);
        for i in 0..20 {
            if done >= turns {
                break;
            }
            if let Some(server) = &server {
                if i % 2 == 0 {
                    server.push(Turn::text_reply(&["Sure, here it is."]));
                } else {
                    server.push(
                        Turn::stream()
                            .tool_call_start(0, &format!("call_{i}"), "screen")
                            .tool_call_args(
                                0,
                                r#"{"action":"click","target":"add to cart for the blue mug"}"#,
                            )
                            .finish("tool_calls")
                            .done(),
                    );
                    server.push(Turn::text_reply(&["Done, it is in your cart."]));
                }
            }
            let start = Instant::now();
            if i % 2 == 0 {
                c.agent.user_turn("what do you sell?").await;
                first(&mut c.bot, is_text).await;
                samples.text.push(start.elapsed());
            } else {
                c.agent.user_turn("add the blue mug to my cart").await;
                first(&mut c.commands, is_command).await;
                samples.command.push(start.elapsed());
                first(&mut c.bot, is_text).await;
                samples.after_command.push(start.elapsed());
            }
            c.agent.idle().await;
            while c.bot.try_recv().is_ok() {}
            while c.commands.try_recv().is_ok() {}
            done += 1;
        }
    }
    samples
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn row(provider: &str, what: &str, mut v: Vec<Duration>) {
    v.sort_unstable();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "| {provider} | {what} | {} | {:.0} µs | {:.0} µs | {:.0} µs |",
        v.len(),
        us(percentile(&v, 50.0)),
        us(percentile(&v, 99.0)),
        us(*v.last().unwrap_or(&Duration::ZERO)),
    );
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench`; `cargo bench` too. Both measure.
    let turns: usize = std::env::var("HARK_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let label = ProviderLabel::new("in-process", "bench");
        let in_process = measure(turns, || {
            (
                Arc::new(InProcess {
                    label: label.clone(),
                }) as Arc<dyn Provider>,
                None,
            )
        })
        .await;
        let mut servers = Vec::new();
        for _ in 0..(turns / 4).div_ceil(20) {
            servers.push(ScriptedServer::start(Vec::new()).await.expect("server"));
        }
        let mut servers = servers.into_iter();
        let http = measure(turns / 4, || {
            let server = servers.next().expect("a server per call");
            let provider = OpenAiCompatible::new(server.base_url(), None);
            (Arc::new(provider) as Arc<dyn Provider>, Some(server))
        })
        .await;
        println!("| provider | from the user's text to | turns | p50 | p99 | max |");
        println!("| --- | --- | --- | --- | --- | --- |");
        row("in-process", "first bot text", in_process.text);
        row("in-process", "first UI command", in_process.command);
        row(
            "in-process",
            "first bot text after a screen click",
            in_process.after_command,
        );
        row("loopback HTTP", "first bot text", http.text);
        row("loopback HTTP", "first UI command", http.command);
        row(
            "loopback HTTP",
            "first bot text after a screen click",
            http.after_command,
        );
    });
}
