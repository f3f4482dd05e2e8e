//! The tool round limit limits on every provider: with a model that always
//! calls a tool, the tool runs for the documented 8 rounds, the request after them carries the
//! provider's "no tool call" setting, the call in its reply does not run, and the caller hears
//! an answer.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{drain, said, tool};
use hark_agent::{AgentSettings, ChannelOutput, DEFAULT_MAX_TOOL_ROUNDS, VoiceAgent, messages};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{Anthropic, Gemini, OpenAiCompatible, Provider};
use hark_tools::{CallInfo, CallState, ToolRegistry};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug)]
enum Api {
    OpenAi,
    Anthropic,
    Gemini,
}

fn always_a_tool_call(api: Api, n: usize) -> Vec<Turn> {
    (0..n)
        .map(|i| match api {
            Api::OpenAi => Turn::stream()
                .tool_call_start(0, &format!("call_{i}"), "again")
                .tool_call_args(0, "{}")
                .finish("tool_calls")
                .done(),
            Api::Anthropic => Turn::anthropic_tool_call(&format!("toolu_{i}"), "again", "{}"),
            Api::Gemini => Turn::gemini_tool_call(&format!("g_{i}"), "again", json!({})),
        })
        .collect()
}

fn provider(api: Api, server: &ScriptedServer) -> Arc<dyn Provider> {
    match api {
        Api::OpenAi => Arc::new(OpenAiCompatible::new(server.base_url(), None)),
        Api::Anthropic => Arc::new(Anthropic::with_base_url(server.base_url(), "k")),
        Api::Gemini => Arc::new(Gemini::with_base_url(server.base_url(), "k")),
    }
}

/// The provider's "no tool call" setting in a request body, if any.
fn no_tools_setting(api: Api, body: &Value) -> bool {
    match api {
        Api::OpenAi => body["tool_choice"] == "none",
        Api::Anthropic => body["tool_choice"] == json!({"type": "none"}),
        Api::Gemini => body["toolConfig"]["functionCallingConfig"]["mode"] == "NONE",
    }
}

#[tokio::test]
async fn after_the_last_round_no_provider_can_call_a_tool_and_the_caller_hears_an_answer() {
    assert_eq!(DEFAULT_MAX_TOOL_ROUNDS, 8);
    for api in [Api::OpenAi, Api::Anthropic, Api::Gemini] {
        let server = ScriptedServer::start(always_a_tool_call(api, DEFAULT_MAX_TOOL_ROUNDS + 1))
            .await
            .unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let again = tool("again", move |_| {
            let ran = r.clone();
            async move {
                ran.fetch_add(1, Ordering::SeqCst);
                Ok(json!({}))
            }
        });
        let registry = Arc::new(ToolRegistry::new(vec![again]).unwrap());
        let settings = AgentSettings::new(
            provider(api, &server),
            "test-model",
            "You are a test agent.",
            registry,
        );
        let (output, mut rx) = ChannelOutput::new();
        let state = CallState::new(CallInfo::default(), "en-US", None);
        let agent = VoiceAgent::new(settings, state, Arc::new(output)).unwrap();
        agent.user_turn("Go.").await;
        agent.idle().await;

        assert_eq!(server.schema_refusals(), Vec::<String>::new(), "{api:?}");
        assert_eq!(
            ran.load(Ordering::SeqCst),
            DEFAULT_MAX_TOOL_ROUNDS,
            "{api:?}"
        );
        let bodies = server.bodies();
        assert_eq!(bodies.len(), DEFAULT_MAX_TOOL_ROUNDS + 1, "{api:?}");
        let (last, earlier) = bodies.split_last().unwrap();
        assert!(no_tools_setting(api, last), "{api:?}: {last:#}");
        assert!(
            earlier.iter().all(|b| !no_tools_setting(api, b)),
            "{api:?}: only the request after the limit says no tools"
        );
        assert_eq!(
            said(&drain(&mut rx)),
            [messages::tool_rounds_exhausted_line()],
            "{api:?}"
        );
    }
}
