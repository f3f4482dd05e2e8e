//! A call whose run ends early ends at the sinks with `tool.failed` and the error `cancelled`,
//! however it ends: an interruption, or its future dropped (the task awaiting it cancelled, a
//! timeout, a `select!` that took another branch).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_tools::{
    CallInfo, CallState, InMemorySpeech, Interruption, LiveCall, SinkError, ToolContext, ToolError,
    ToolEvent, ToolRegistry, ToolSink, ToolSpec, ToolStage,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// What to look up.
    id: String,
}

/// A tool that never finishes; `dropped` turns true when its future is dropped.
fn hangs(name: &str, dropped: Arc<AtomicBool>) -> ToolSpec {
    ToolSpec::local(name, "Look up.", move |q: Query| {
        let dropped = dropped.clone();
        async move {
            struct Flag(Arc<AtomicBool>);
            impl Drop for Flag {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let _flag = Flag(dropped);
            let _ = q.id;
            futures::future::pending::<()>().await;
            Ok::<Value, ToolError>(json!({}))
        }
    })
    .unwrap()
}

type Events = Arc<Mutex<Vec<ToolEvent>>>;

fn listen(registry: &ToolRegistry) -> Events {
    let events: Events = Arc::default();
    let seen = events.clone();
    let sink = move |e: &ToolEvent| -> Result<(), SinkError> {
        seen.lock().unwrap().push(e.clone());
        Ok(())
    };
    registry.listen(Arc::new(sink) as Arc<dyn ToolSink>);
    events
}

fn stages(events: &Events) -> Vec<(ToolStage, String, Option<String>)> {
    events
        .lock()
        .unwrap()
        .iter()
        .map(|e| (e.stage, e.tool.clone(), e.error.clone()))
        .collect()
}

fn cancelled(tool: &str) -> Vec<(ToolStage, String, Option<String>)> {
    vec![
        (ToolStage::Started, tool.into(), None),
        (ToolStage::Failed, tool.into(), Some("cancelled".into())),
    ]
}

fn live() -> LiveCall {
    let state = CallState::new(
        CallInfo {
            session_id: "s-1".into(),
            ..CallInfo::default()
        },
        "en-US",
        None,
    );
    LiveCall::new(state, Arc::new(InMemorySpeech::new())).unwrap()
}

#[tokio::test]
async fn a_call_on_its_own_dropped_mid_run_ends_cancelled() {
    let dropped = Arc::new(AtomicBool::new(false));
    let registry = ToolRegistry::new(vec![hangs("lookup", dropped.clone())]).unwrap();
    let events = listen(&registry);
    let context = ToolContext::default();
    let run = registry.call("lookup", r#"{"id": "1"}"#, &context);
    assert!(
        tokio::time::timeout(Duration::from_millis(20), run)
            .await
            .is_err()
    );
    assert_eq!(stages(&events), cancelled("lookup"));
    assert!(dropped.load(Ordering::SeqCst));
    let ms = events.lock().unwrap()[1].ms;
    assert!(ms.is_some_and(|ms| ms >= 15), "{ms:?}");
}

#[tokio::test]
async fn a_live_call_dropped_mid_run_ends_cancelled_for_either_interruption_rule() {
    for rule in [Interruption::Cancel, Interruption::Continue] {
        let dropped = Arc::new(AtomicBool::new(false));
        let tool = hangs("lookup", dropped.clone()).interruption(rule);
        let registry = ToolRegistry::new(vec![tool]).unwrap();
        let events = listen(&registry);
        let live = live();
        let generation = live.generation();
        let run = registry.call_live("lookup", r#"{"id": "1"}"#, &live, &generation);
        assert!(
            tokio::time::timeout(Duration::from_millis(20), run)
                .await
                .is_err()
        );
        assert_eq!(stages(&events), cancelled("lookup"), "{rule:?}");
        // A `continue` tool's task is aborted too: nothing runs behind a cancelled call.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(dropped.load(Ordering::SeqCst), "{rule:?}");
        assert_eq!(live.late_len(), 0);
    }
}

#[tokio::test]
async fn an_interruption_reports_cancelled_once() {
    let registry = ToolRegistry::new(vec![hangs("lookup", Arc::default())]).unwrap();
    let events = listen(&registry);
    let live = live();
    let generation = live.generation();
    generation.mark_spoken();
    let interrupter = {
        let generation = generation.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            generation.interrupt();
        }
    };
    let (looked, ()) = tokio::join!(
        registry.call_live("lookup", r#"{"id": "1"}"#, &live, &generation),
        interrupter
    );
    assert_eq!(
        looked.unwrap().outcome.model_result,
        json!({"error": "cancelled"})
    );
    assert_eq!(stages(&events), cancelled("lookup"));
}

#[tokio::test]
async fn a_call_that_finished_is_not_reported_again_when_dropped_later() {
    let registry = ToolRegistry::new(vec![
        ToolSpec::local("quick", "Quick.", |_: Query| async {
            Ok::<_, ToolError>(json!({"ok": 1}))
        })
        .unwrap(),
    ])
    .unwrap();
    let events = listen(&registry);
    let outcome = registry
        .call("quick", r#"{"id": "1"}"#, &ToolContext::default())
        .await;
    drop(outcome);
    assert_eq!(
        stages(&events),
        vec![
            (ToolStage::Started, "quick".into(), None),
            (ToolStage::Succeeded, "quick".into(), None),
        ]
    );
}
