//! UI event handlers: app code that runs when the client sends a named `ui-event`.
//!
//! Guide: `docs/guide/ui-worker.md`, "UI events" (pipecat's `@ui_event`; reserved names are
//! not handler names).
//!
//! - Handlers are registered by event name on a [`UiEventsBuilder`]; [`UiEventsBuilder::build`]
//!   refuses two handlers for one name, a reserved name and an empty name, listing every
//!   problem at once, each naming the event.
//! - [`UiEvents::dispatch`] first appends the `<ui_event>` developer message to the worker's
//!   context ([`WorkerContext::on_ui_event`], when a context is attached and `inject_events` is
//!   on), then starts the event's handler in its own task. An event with no handler is still
//!   injected.
//! - Reserved names ([`UI_SNAPSHOT_EVENT_NAME`] `__ui_snapshot`,
//!   [`UI_CANCEL_JOB_GROUP_EVENT_NAME`] `__cancel_job_group`) never reach a handler nor the
//!   context: snapshots go to [`crate::UiWorker::on_snapshot`] and cancels to
//!   [`hark_bus::job_group::JobGroups::cancel`].
//! - The handler tasks are owned: [`UiEvents::wait_idle`] waits for them, dropping the
//!   [`UiEvents`] aborts those still running. A handler that panics is logged and does not stop
//!   the others.
//!
//! ## Example: a UI worker with one event handler
//!
//! ```
//! use std::sync::Arc;
//! use hark_rtvi::{A11ySnapshot, ServerMessage, UiEvent};
//! use hark_ui::events::{Dispatched, UiEvents};
//! use hark_ui::respond::WorkerContext;
//! use hark_ui::UiWorker;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
//! let worker = Arc::new(UiWorker::new("ui", Arc::new(tx)));
//! worker.on_snapshot(A11ySnapshot::from_json(
//!     r#"{"root":{"ref":"e1","role":"generic","children":[
//!         {"ref":"e12","role":"paragraph","name":"Note"}]},"captured_at":0}"#,
//! )?);
//!
//! // The worker's LLM context, shared with its respond job (`Responder::builder(..).context(..)`).
//! let context = Arc::new(WorkerContext::new(worker.options().clone(), Some("Be brief.")));
//!
//! // On `note_click`, scroll to the note and select its text.
//! let w = worker.clone();
//! let events = UiEvents::builder()
//!     .context(context.clone())
//!     .on("note_click", move |event: UiEvent| {
//!         let w = w.clone();
//!         async move {
//!             let payload = event.payload.unwrap_or_default();
//!             if let Some(r) = payload.get("ref").and_then(|r| r.as_str()) {
//!                 // A stale ref is refused, never sent: nothing to clean up here.
//!                 let _ = w.scroll_to(r).and_then(|()| w.select_text(r, None, None));
//!             }
//!         }
//!     })
//!     .build()?;
//!
//! // The session hands each client `ui-event` to the worker's events.
//! let click = UiEvent { event: "note_click".into(), payload: Some(serde_json::json!({"ref": "e12"}).into()) };
//! assert_eq!(events.dispatch(click), Dispatched::Handled);
//! events.wait_idle().await;
//!
//! // The event went into the context first, then the handler drove the page.
//! assert_eq!(context.messages()[0].content, r#"<ui_event name="note_click">{"ref": "e12"}</ui_event>"#);
//! let Some(ServerMessage::UiCommand(first)) = rx.recv().await else { panic!() };
//! let Some(ServerMessage::UiCommand(second)) = rx.recv().await else { panic!() };
//! assert_eq!((first.command.as_str(), second.command.as_str()), ("scroll_to", "select_text"));
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use hark_rtvi::UiEvent;
use hark_rtvi::ui::{UI_CANCEL_JOB_GROUP_EVENT_NAME, UI_SNAPSHOT_EVENT_NAME};
use tokio::task::JoinSet;

use crate::messages;
use crate::render;
use crate::respond::WorkerContext;

/// The names the bus keeps for itself; no handler may take them.
pub const RESERVED_EVENT_NAMES: [&str; 2] =
    [UI_SNAPSHOT_EVENT_NAME, UI_CANCEL_JOB_GROUP_EVENT_NAME];

/// Whether `name` is reserved ([`RESERVED_EVENT_NAMES`]).
pub fn is_reserved(name: &str) -> bool {
    RESERVED_EVENT_NAMES.contains(&name)
}

type Handler = Arc<dyn Fn(UiEvent) -> BoxFuture<'static, ()> + Send + Sync>;

/// Collects handlers before [`build`](Self::build) checks them.
#[derive(Default)]
pub struct UiEventsBuilder {
    handlers: Vec<(String, Handler)>,
    context: Option<Arc<WorkerContext>>,
}

impl fmt::Debug for UiEventsBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiEventsBuilder")
            .field(
                "events",
                &self.handlers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("context", &self.context.is_some())
            .finish()
    }
}

impl UiEventsBuilder {
    /// Runs `handler` for each client event named `event`. The handler receives the
    /// [`UiEvent`] (read `payload` for the data) and runs in its own task; capture an
    /// `Arc<UiWorker>` to act on the page.
    pub fn on<F, Fut>(mut self, event: impl Into<String>, handler: F) -> Self
    where
        F: Fn(UiEvent) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |e| Box::pin(handler(e)));
        self.handlers.push((event.into(), handler));
        self
    }

    /// Injects each event into this context before its handler runs.
    pub fn context(mut self, context: Arc<WorkerContext>) -> Self {
        self.context = Some(context);
        self
    }

    /// Checks the handlers. Errors: every name registered twice, reserved, or empty, one line
    /// each in the [`EventsBuildError`].
    pub fn build(self) -> Result<UiEvents, EventsBuildError> {
        let mut problems = Vec::new();
        let mut handlers: HashMap<String, Handler> = HashMap::new();
        for (name, handler) in self.handlers {
            if name.is_empty() {
                problems.push(messages::event_name_empty().to_string());
            } else if is_reserved(&name) {
                problems.push(messages::event_name_reserved(&name));
            } else {
                match handlers.entry(name) {
                    Entry::Vacant(slot) => {
                        slot.insert(handler);
                    }
                    Entry::Occupied(taken) => {
                        let line = messages::event_handler_twice(taken.key());
                        if !problems.contains(&line) {
                            problems.push(line);
                        }
                    }
                }
            }
        }
        if !problems.is_empty() {
            return Err(EventsBuildError { problems });
        }
        Ok(UiEvents {
            handlers,
            context: self.context,
            tasks: Mutex::new(JoinSet::new()),
        })
    }
}

/// Handlers that could not be registered: one line per problem, each naming the event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("\n"))]
pub struct EventsBuildError {
    /// The problems.
    pub problems: Vec<String>,
}

/// What [`UiEvents::dispatch`] did with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatched {
    /// Injected (when a context is attached) and its handler started.
    Handled,
    /// Injected (when a context is attached); no handler has this name.
    NoHandler,
    /// A reserved name: neither injected nor handled.
    Reserved,
}

/// The worker's UI event handlers and their running tasks.
pub struct UiEvents {
    handlers: HashMap<String, Handler>,
    context: Option<Arc<WorkerContext>>,
    tasks: Mutex<JoinSet<()>>,
}

impl fmt::Debug for UiEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiEvents")
            .field("events", &self.events())
            .field("context", &self.context.is_some())
            .finish_non_exhaustive()
    }
}

impl UiEvents {
    /// A builder with no handlers.
    pub fn builder() -> UiEventsBuilder {
        UiEventsBuilder::default()
    }

    /// The event names that have a handler, sorted.
    pub fn events(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.handlers.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Handles one client event: injects `<ui_event>` into the context, then starts the
    /// handler in its own task. Must be called inside a tokio runtime.
    pub fn dispatch(&self, event: UiEvent) -> Dispatched {
        if is_reserved(&event.event) {
            return Dispatched::Reserved;
        }
        if let Some(context) = &self.context {
            context.on_ui_event(&render::render_ui_event_payload(
                &event.event,
                event.payload.as_ref(),
            ));
        }
        let Some(handler) = self.handlers.get(&event.event) else {
            return Dispatched::NoHandler;
        };
        let future = handler(event);
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        // Reap handlers that already finished, so the set does not grow.
        while let Some(done) = tasks.try_join_next() {
            log_panic(done);
        }
        tasks.spawn(future);
        Dispatched::Handled
    }

    /// Number of handler tasks not yet reaped (running, or finished since the last reap).
    pub fn in_flight(&self) -> usize {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Number of handler tasks still running: finished ones are reaped first. A server caps
    /// this per session (hark-server refuses a `ui-event` over its limit).
    pub fn running(&self) -> usize {
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(done) = tasks.try_join_next() {
            log_panic(done);
        }
        tasks.len()
    }

    /// Waits until every handler started so far (and any started meanwhile) has finished.
    pub async fn wait_idle(&self) {
        loop {
            let mut batch =
                std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
            if batch.is_empty() {
                return;
            }
            while let Some(done) = batch.join_next().await {
                log_panic(done);
            }
        }
    }
}

fn log_panic(done: Result<(), tokio::task::JoinError>) {
    if let Err(error) = done
        && error.is_panic()
    {
        tracing::warn!("a UI event handler panicked");
    }
}
