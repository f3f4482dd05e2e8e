//! UI event handlers (guide: `docs/guide/ui-worker.md`, "UI events").

use std::sync::Arc;

use hark_rtvi::UiEvent;
use hark_ui::context::{ContextMessage, Role, UiContextOptions};
use hark_ui::events::{Dispatched, UiEvents};
use hark_ui::respond::WorkerContext;
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

fn event(name: &str, payload: serde_json::Value) -> UiEvent {
    UiEvent {
        event: name.into(),
        payload: Some(payload.into()),
    }
}

fn context() -> Arc<WorkerContext> {
    Arc::new(WorkerContext::new(
        UiContextOptions::default(),
        Some("Be brief."),
    ))
}

#[test]
fn two_handlers_for_one_name_fail_the_build_naming_the_event() {
    let err = UiEvents::builder()
        .on("note_click", |_| async {})
        .on("nav_click", |_| async {})
        .on("note_click", |_| async {})
        .on("__ui_snapshot", |_| async {})
        .on("__cancel_job_group", |_| async {})
        .on("", |_| async {})
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems,
        [
            "the UI event note_click has two handlers: keep one handler per event name",
            "the UI event name __ui_snapshot is reserved for the bus (snapshots and job group \
             cancels) and never reaches a handler: choose another name",
            "the UI event name __cancel_job_group is reserved for the bus (snapshots and job \
             group cancels) and never reaches a handler: choose another name",
            "a UI event handler needs an event name: the empty name never arrives",
        ]
    );
    assert_eq!(err.to_string(), err.problems.join("\n"));
}

/// The `<ui_event>` is in the context before the handler starts.
#[tokio::test]
async fn the_event_is_injected_before_its_handler_runs() {
    let ctx = context();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let seen = ctx.clone();
    let events = UiEvents::builder()
        .context(ctx.clone())
        .on("note_click", move |e: UiEvent| {
            let (seen, tx) = (seen.clone(), tx.clone());
            async move {
                tx.send((e.payload, seen.messages())).unwrap();
            }
        })
        .build()
        .unwrap();
    assert_eq!(events.events(), ["note_click"]);
    assert_eq!(
        events.dispatch(event("note_click", json!({"ref": "e12"}))),
        Dispatched::Handled
    );
    let (payload, messages) = rx.recv().await.unwrap();
    assert_eq!(payload, Some(json!({"ref": "e12"}).into()));
    assert_eq!(
        messages,
        [ContextMessage::new(
            Role::Developer,
            r#"<ui_event name="note_click">{"ref": "e12"}</ui_event>"#
        )]
    );
    events.wait_idle().await;
    assert_eq!(events.in_flight(), 0);
}

#[tokio::test]
async fn an_event_without_a_handler_is_still_injected() {
    let ctx = context();
    let events = UiEvents::builder().context(ctx.clone()).build().unwrap();
    assert_eq!(
        events.dispatch(event("tab_change", json!(3))),
        Dispatched::NoHandler
    );
    assert_eq!(
        ctx.messages()[0].content,
        r#"<ui_event name="tab_change">3</ui_event>"#
    );

    // inject_events off: nothing goes into the context.
    let quiet = Arc::new(WorkerContext::new(
        UiContextOptions {
            inject_events: false,
            ..UiContextOptions::default()
        },
        None,
    ));
    let events = UiEvents::builder().context(quiet.clone()).build().unwrap();
    events.dispatch(event("tab_change", json!(3)));
    assert!(quiet.messages().is_empty());
}

/// Reserved names never reach a handler nor the context.
#[tokio::test]
async fn reserved_names_never_reach_handlers() {
    let ctx = context();
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let events = UiEvents::builder()
        .context(ctx.clone())
        .on("anything", move |e: UiEvent| {
            let tx = tx.clone();
            async move { tx.send(e.event).unwrap() }
        })
        .build()
        .unwrap();
    for name in ["__ui_snapshot", "__cancel_job_group"] {
        assert_eq!(
            events.dispatch(event(name, json!({}))),
            Dispatched::Reserved
        );
    }
    events.wait_idle().await;
    assert!(ctx.messages().is_empty());
    assert!(rx.try_recv().is_err());
}

/// Each handler runs in its own task: a slow one does not hold up the next event.
#[tokio::test]
async fn each_handler_runs_in_its_own_task() {
    let (release_tx, release_rx) = oneshot::channel::<()>();
    let release_rx = Arc::new(std::sync::Mutex::new(Some(release_rx)));
    let (tx, mut rx) = mpsc::unbounded_channel::<&'static str>();
    let tx2 = tx.clone();
    let events = UiEvents::builder()
        .on("slow", move |_| {
            let (gate, tx) = (release_rx.lock().unwrap().take(), tx.clone());
            async move {
                if let Some(gate) = gate {
                    gate.await.unwrap();
                }
                tx.send("slow done").unwrap();
            }
        })
        .on("fast", move |_| {
            let tx = tx2.clone();
            async move { tx.send("fast done").unwrap() }
        })
        .build()
        .unwrap();
    events.dispatch(event("slow", json!(null)));
    events.dispatch(event("fast", json!(null)));
    assert_eq!(
        rx.recv().await,
        Some("fast done"),
        "fast ran while slow waits"
    );
    release_tx.send(()).unwrap();
    events.wait_idle().await;
    assert_eq!(rx.recv().await, Some("slow done"));
}

/// A panicking handler is contained; dropping the events aborts handlers still running.
#[tokio::test]
async fn handlers_are_owned_panics_contained_and_drop_aborts() {
    struct Dropped(mpsc::UnboundedSender<&'static str>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send("handler dropped");
        }
    }
    let (tx, mut rx) = mpsc::unbounded_channel();
    let events = UiEvents::builder()
        .on("boom", |_| async { panic!("handler bug") })
        .on("forever", move |_| {
            let guard = Dropped(tx.clone());
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            }
        })
        .build()
        .unwrap();
    events.dispatch(event("boom", json!(null)));
    events.wait_idle().await;
    events.dispatch(event("forever", json!(null)));
    assert_eq!(events.in_flight(), 1);
    drop(events);
    assert_eq!(rx.recv().await, Some("handler dropped"));
}
