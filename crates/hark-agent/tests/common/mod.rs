//! Shared pieces of the turn-loop tests: tools from closures, an agent over a scripted
//! provider, and readers of what the client and the provider received.
#![allow(dead_code)]

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_agent::AgentEvent;
use hark_agent::{AgentSettings, ChannelOutput, VoiceAgent, check_tool_results};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{Message, OpenAiCompatible, Roles, ToolCall};
use hark_tools::{
    Arguments, CallInfo, CallState, Output, ToolContext, ToolError, ToolEvent, ToolExecutor,
    ToolRegistry, ToolSpec,
};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

type RunFn = dyn Fn(Arguments) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync;

struct FnExecutor(Arc<RunFn>);

impl fmt::Debug for FnExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnExecutor")
    }
}

impl ToolExecutor for FnExecutor {
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        (self.0)(arguments)
    }
}

/// A tool named `name` with optional string argument `q`, any object as output, running `run`.
pub fn tool<F, Fut>(name: &str, run: F) -> ToolSpec
where
    F: Fn(Arguments) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    let run: Arc<RunFn> = Arc::new(move |a| Box::pin(run(a)));
    ToolSpec::new(
        name,
        format!("The {name} tool."),
        json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        Output::json(
            "Answer",
            json!({"type": "object", "properties": {"name": {"type": "string"}},
                   "additionalProperties": true}),
        ),
        Arc::new(FnExecutor(run)),
    )
    .expect("the test tool builds")
}

/// Every tool event a registry emitted, in order (`stage tool error`).
#[derive(Clone, Default)]
pub struct Events(Arc<Mutex<Vec<String>>>);

impl Events {
    pub fn listen(registry: &ToolRegistry) -> Events {
        let events = Events::default();
        let store = events.0.clone();
        registry.listen(Arc::new(move |e: &ToolEvent| {
            store.lock().unwrap().push(format!(
                "{} {} {}",
                e.stage.as_str(),
                e.tool,
                e.error.clone().unwrap_or_default()
            ));
            Ok(())
        }));
        events
    }

    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// A scripted provider serving `turns`, an agent with `tools` over it, and the client's side.
pub struct Rig {
    pub server: ScriptedServer,
    pub agent: VoiceAgent,
    pub output: ChannelOutput,
    pub rx: UnboundedReceiver<AgentEvent>,
    pub registry: Arc<ToolRegistry>,
    pub events: Events,
}

pub async fn rig(turns: Vec<Turn>, tools: Vec<ToolSpec>) -> Rig {
    rig_with(turns, ToolRegistry::new(tools).expect("registry"), |s| s).await
}

pub async fn rig_with(
    turns: Vec<Turn>,
    registry: ToolRegistry,
    settings: impl FnOnce(AgentSettings) -> AgentSettings,
) -> Rig {
    rig_in("en-US", turns, registry, settings).await
}

/// [`rig_with`] for a call in `language`.
pub async fn rig_in(
    language: &str,
    turns: Vec<Turn>,
    registry: ToolRegistry,
    settings: impl FnOnce(AgentSettings) -> AgentSettings,
) -> Rig {
    let server = ScriptedServer::start(turns).await.expect("scripted server");
    // OpenAI roles send the history as the agent keeps it (system notes in place), which is
    // what these tests read back; the portable default is pinned in agent_file_roles.rs and
    // tool_round_limit.rs.
    let provider = Arc::new(
        OpenAiCompatible::new(server.base_url(), Some("sk-test".into())).with_roles(Roles::OpenAi),
    );
    let registry = Arc::new(registry);
    let events = Events::listen(&registry);
    let settings = settings(AgentSettings::new(
        provider,
        "test-model",
        "You are a test agent.",
        registry.clone(),
    ));
    let (output, rx) = ChannelOutput::new();
    let state = CallState::new(CallInfo::default(), language, None);
    let agent = VoiceAgent::new(settings, state, Arc::new(output.clone())).expect("agent");
    Rig {
        server,
        agent,
        output,
        rx,
        registry,
        events,
    }
}

/// Everything the client received so far.
pub fn drain(rx: &mut UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut all = Vec::new();
    while let Ok(m) = rx.try_recv() {
        all.push(m);
    }
    all
}

/// The texts of the spoken segments: what the bot said, in order (an RTVI session sends each
/// as `bot-output` + `bot-tts-text`).
pub fn said(messages: &[AgentEvent]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            AgentEvent::Spoken { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// The `messages` of one recorded OpenAI request body.
pub fn wire_messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// A recorded request's history read back into hark-llm messages (system included), so the
/// tool-result rule can be checked on what the provider actually received.
pub fn history_of(body: &Value) -> Vec<Message> {
    wire_messages(body)
        .iter()
        .map(|m| match m["role"].as_str().unwrap_or_default() {
            "system" => Message::System(m["content"].as_str().unwrap_or_default().into()),
            "user" => Message::User(m["content"].as_str().unwrap_or_default().into()),
            "tool" => Message::Tool {
                tool_call_id: m["tool_call_id"].as_str().unwrap_or_default().into(),
                content: m["content"].as_str().unwrap_or_default().into(),
            },
            _ => Message::Assistant {
                content: m["content"].as_str().unwrap_or_default().into(),
                tool_calls: m["tool_calls"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|c| {
                        ToolCall::new(
                            c["id"].as_str().unwrap_or_default(),
                            c["function"]["name"].as_str().unwrap_or_default(),
                            c["function"]["arguments"].as_str().unwrap_or_default(),
                        )
                    })
                    .collect(),
            },
        })
        .collect()
}

/// Asserts every recorded request kept the rule: every tool call has exactly one result, in
/// call order.
pub fn assert_valid_histories(server: &ScriptedServer) {
    for (i, body) in server.bodies().iter().enumerate() {
        if let Err(problem) = check_tool_results(&history_of(body)) {
            panic!("request {i} breaks the tool-result rule: {problem}\n{body:#}");
        }
    }
}

/// Waits (up to 20 s) until `server` received `n` requests.
pub async fn requests(server: &ScriptedServer, n: usize) {
    let waited = tokio::time::timeout(Duration::from_secs(20), async {
        while server.requests().len() < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "expected {n} requests, got {}",
        server.requests().len()
    );
}

/// Waits (up to 20 s) until `check` holds.
pub async fn until(mut check: impl FnMut() -> bool) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while !check() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the condition in time");
}

/// A scripted reply with these tool calls (`(id, name, arguments)`), `finish_reason:
/// tool_calls`.
pub fn calls(text: Option<&str>, calls: &[(&str, &str, &str)]) -> Turn {
    let mut turn = Turn::stream();
    if let Some(text) = text {
        turn = turn.text(text);
    }
    for (i, (id, name, args)) in calls.iter().enumerate() {
        turn = turn
            .tool_call_start(i as u32, id, name)
            .tool_call_args(i as u32, args);
    }
    turn.finish("tool_calls").done()
}
