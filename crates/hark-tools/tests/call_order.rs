//! The tool calls of one model turn start in the order the model made them,
//! also the `continue` tools, which run in a task of their own so they outlive an
//! interruption: a tool that takes a place in a line when it starts (the UI worker's `respond`
//! job behind `ask_screen`) must not find the last call of the turn ahead of the first.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::join_all;
use hark_tools::{
    CallInfo, CallState, CallType, InMemorySpeech, Interruption, LiveCall, ToolError, ToolRegistry,
    ToolSpec,
};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Ask {
    /// Which call this is.
    n: u32,
}

fn live() -> LiveCall {
    let info = CallInfo {
        session_id: "s-1".into(),
        remote_number: None,
        carrier_call_id: None,
        participant: None,
        call_type: CallType::Inbound,
        end_reason: None,
    };
    LiveCall::new(
        CallState::new(info, "en-US", None),
        Arc::new(InMemorySpeech::new()),
    )
    .unwrap()
}

/// Three calls of a `continue` tool in one turn, run together as the turn runs them (all at
/// once, results in call order), many times over on a runtime with two workers: each time the
/// tools start in call order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_tools_of_one_turn_start_in_the_order_called() {
    let started: Arc<Mutex<Vec<u32>>> = Arc::default();
    let seen = started.clone();
    let ask = ToolSpec::local("ask", "Ask the screen.", move |q: Ask| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(q.n);
            tokio::time::sleep(Duration::from_millis(1)).await;
            Ok::<_, ToolError>(json!({"n": q.n}))
        }
    })
    .unwrap()
    .interruption(Interruption::Continue);
    let registry = ToolRegistry::new(vec![ask]).unwrap();
    let live = live();
    for round in 0..30 {
        started.lock().unwrap().clear();
        let generation = live.generation();
        let arguments: Vec<String> = (1..=3).map(|n| format!(r#"{{"n": {n}}}"#)).collect();
        let calls = arguments
            .iter()
            .map(|a| registry.call_live("ask", a.as_str(), &live, &generation));
        let results = join_all(calls).await;
        let answered: Vec<_> = results
            .into_iter()
            .map(|r| r.unwrap().outcome.model_result["n"].clone())
            .collect();
        assert_eq!(answered, [json!(1), json!(2), json!(3)]);
        assert_eq!(
            *started.lock().unwrap(),
            [1, 2, 3],
            "round {round}: the tools started in call order"
        );
    }
}
