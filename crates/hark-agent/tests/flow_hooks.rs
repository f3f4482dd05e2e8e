//! The call's hooks (`CallHooks`: `wrap_tool`, `after_tool`): they see the checked result, what a
//! hook puts in its place is not checked again, and the turn loop runs them for the plain agent
//! and for flows.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_agent::flow::{Flow, FlowSpec};
use hark_agent::{AgentEvent, AgentSettings, ChannelOutput, OutputSpeech, VoiceAgent};
use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_tools::{
    CallHooks, CallInfo, CallState, CallStatus, InMemorySpeech, LiveCall, Output, ToolError,
    ToolRegistry, ToolReply, ToolSpec, Wrapped,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// What to look up.
    q: String,
}

/// The output: `note` has a default, so the checked result always holds it.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Found {
    status: Status,
    #[serde(default = "default_note")]
    note: String,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Found,
    Missing,
}

fn default_note() -> String {
    "none".to_string()
}

/// A tool whose function leaves `note` out and adds a field `Found` does not declare: the check
/// fills the default and drops the extra field.
fn lookup(runs: Arc<AtomicUsize>) -> ToolSpec {
    ToolSpec::local_json(
        "lookup",
        "Look something up.",
        Output::of::<Found>(),
        move |q: Query| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolError>(json!({"status": "found", "secret": q.q}))
            }
        },
    )
    .unwrap()
}

fn live(hooks: CallHooks) -> (LiveCall, Arc<InMemorySpeech>) {
    let speech = Arc::new(InMemorySpeech::new());
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let live = LiveCall::new(state, speech.clone())
        .unwrap()
        .with_hooks(hooks);
    (live, speech)
}

#[tokio::test]
async fn hooks_see_the_checked_result_and_a_replacement_is_not_checked_again() {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let (wrap_seen, after_seen) = (seen.clone(), seen.clone());
    let hooks = CallHooks::new()
        .wrap_tool(move |call, next| {
            let seen = wrap_seen.clone();
            Box::pin(async move {
                assert_eq!(
                    call.arguments["q"], "A-17",
                    "the hook sees the checked arguments"
                );
                let outcome = next.await;
                seen.lock().unwrap().push(outcome.result.clone());
                // Not a value of Status, and a field Found does not declare: never checked.
                Wrapped::Replace(json!({"status": "rerouted", "extra": 1}))
            })
        })
        .after_tool(move |_call, outcome| {
            after_seen.lock().unwrap().push(outcome.result.clone());
            None
        });
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = ToolRegistry::new(vec![lookup(runs.clone())]).unwrap();
    let (live, _speech) = live(hooks);
    let done = registry
        .call_live("lookup", r#"{"q": "A-17"}"#, &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0],
        json!({"status": "found", "note": "none"}),
        "wrap_tool saw the checked result: default filled, undeclared field dropped"
    );
    assert_eq!(
        seen[1],
        json!({"status": "rerouted", "extra": 1}),
        "after_tool saw what the wrap hook put in its place"
    );
    assert_eq!(done.outcome.status, CallStatus::Succeeded);
    assert_eq!(
        done.outcome.model_result,
        json!({"status": "rerouted", "extra": 1}),
        "the replacement is not checked again"
    );
}

#[tokio::test]
async fn a_hook_that_never_awaits_next_keeps_the_tool_from_running() {
    let hooks = CallHooks::new().wrap_tool(|_call, _next| {
        Box::pin(async { Wrapped::Replace(json!({"error": "lookups are paused"})) })
    });
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = ToolRegistry::new(vec![lookup(runs.clone())]).unwrap();
    let (live, _speech) = live(hooks);
    let done = registry
        .call_live("lookup", r#"{"q": "x"}"#, &live, &live.generation())
        .await
        .unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(
        done.outcome.status,
        CallStatus::Failed,
        "an error result is a failure"
    );
    assert_eq!(
        done.outcome.model_result,
        json!({"error": "lookups are paused"})
    );
}

#[tokio::test]
async fn the_plain_call_path_runs_the_contexts_hooks_and_a_refusal_runs_none() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let hooks = CallHooks::new().after_tool(move |_call, _outcome| {
        counted.fetch_add(1, Ordering::SeqCst);
        Some(json!({"status": "found", "note": "from the hook"}))
    });
    let registry = ToolRegistry::new(vec![lookup(Arc::default())]).unwrap();
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let context = state.context(&hooks);
    let outcome = registry.call("lookup", r#"{"q": "x"}"#, &context).await;
    assert_eq!(outcome.model_result["note"], "from the hook");
    let refused = registry.call("lookup", "{}", &context).await;
    assert_eq!(refused.status, CallStatus::Refused);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "no hook runs for a call that did not run"
    );
}

async fn said_after(
    agent: &VoiceAgent,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    text: &str,
) -> Vec<String> {
    agent.user_turn(text).await;
    tokio::time::timeout(Duration::from_secs(20), agent.idle())
        .await
        .expect("the turn ends");
    let mut said = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let AgentEvent::Spoken { text, .. } = m {
            said.push(text);
        }
    }
    said
}

fn call(id: &str, name: &str, arguments: &str) -> Turn {
    Turn::stream()
        .tool_call_start(0, id, name)
        .tool_call_args(0, arguments)
        .finish("tool_calls")
        .done()
}

fn replacing_hooks() -> CallHooks {
    CallHooks::new().after_tool(|call, outcome| {
        (call.tool == "lookup" && outcome.succeeded())
            .then(|| json!({"status": "missing", "note": "hooked", "extra": true}))
    })
}

#[tokio::test]
async fn the_turn_loop_runs_the_hooks_for_the_plain_agent() {
    let server = ScriptedServer::start(vec![
        call("c1", "lookup", r#"{"q": "A-17"}"#),
        Turn::text_reply(&["It is missing."]),
    ])
    .await
    .unwrap();
    let provider = Arc::new(OpenAiCompatible::new(server.base_url(), None));
    let registry = Arc::new(ToolRegistry::new(vec![lookup(Arc::default())]).unwrap());
    let settings = AgentSettings::new(provider, "m", "You look things up.", registry);
    let (output, mut rx) = ChannelOutput::new();
    let speech = Arc::new(OutputSpeech::new(Arc::new(output)));
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let live = LiveCall::new(state, speech.clone())
        .unwrap()
        .with_hooks(replacing_hooks());
    let agent = VoiceAgent::with_live(settings, live, speech);
    assert_eq!(
        said_after(&agent, &mut rx, "Where is A-17?").await,
        ["It is missing."]
    );
    let bodies = server.bodies();
    let result = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(
        result,
        json!({"status": "missing", "note": "hooked", "extra": true})
    );
}

#[tokio::test]
async fn the_turn_loop_runs_the_hooks_for_a_flow_and_the_finish_rule_reads_the_replacement() {
    let spec: FlowSpec = toml::from_str(
        r#"
        first = "find"
        [[steps]]
        name = "find"
        tools = ["lookup"]
        replies = [{ tool = "lookup", when = { status = ["missing"] }, say = ["It is {{result.note}}."] }]
        closing = { tool = "lookup", finish = { status = ["missing"] } }
        "#,
    )
    .unwrap();
    let registry = ToolRegistry::new(vec![
        lookup(Arc::default()).replies([ToolReply::say(["Found it."]).when("status", ["found"])]),
    ])
    .unwrap();
    let flow = Arc::new(Flow::build(&spec, &registry).unwrap());
    let server = ScriptedServer::start(vec![call("c1", "lookup", r#"{"q": "A-17"}"#)])
        .await
        .unwrap();
    let provider = Arc::new(OpenAiCompatible::new(server.base_url(), None));
    let conductor = Arc::new(flow.conductor());
    let settings = AgentSettings::new(provider, "m", "unused", flow.registry())
        .with_conductor(conductor.clone());
    let (output, mut rx) = ChannelOutput::new();
    let speech = Arc::new(OutputSpeech::new(Arc::new(output)));
    let state = CallState::new(CallInfo::default(), "en-US", None);
    let live = LiveCall::new(state, speech.clone())
        .unwrap()
        .with_hooks(replacing_hooks());
    let agent = VoiceAgent::with_live(settings, live, speech);
    assert_eq!(
        said_after(&agent, &mut rx, "Where is A-17?").await,
        ["It is hooked."],
        "the step's reply read the hook's result"
    );
    assert!(
        conductor.is_finished(),
        "the finish rule read the replacement"
    );
    assert_eq!(server.requests().len(), 1);
}
