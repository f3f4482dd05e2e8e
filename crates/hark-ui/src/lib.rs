//! # hark-ui
//!
//! The screen side of a voice/UI split (spec `ui-worker.md`): the UI worker keeps the latest
//! accessibility snapshot of the user's page, renders it for an LLM as `<ui_state>` (byte for
//! byte as pipecat-ai 1.14.0 does), renders client events as `<ui_event>`, applies the context
//! injection rules, and drives the page with UI commands.
//!
//! - [`UiWorker`]: `on_snapshot`, `snapshot`, `selection`, `render_ui_state`,
//!   `render_ui_event`, `send_command` and the typed helpers `scroll_to`, `highlight`, `focus`,
//!   `click`, `set_input_value`, `select_text`, `toast`, `navigate`. A command for a ref that is
//!   not in the latest snapshot is refused, not sent ([`CommandError::StaleRef`] when an
//!   earlier snapshot had it, case U1; [`CommandError::UnknownRef`] when none did, case U4).
//! - [`render`]: [`render_ui_state`], [`render_ui_state_value`] (pipecat's dict path),
//!   [`render_ui_event`]; [`pyjson`]: Python's `json.dumps` / `repr` text.
//! - [`context`]: [`UiContext`] and the pure rules (`<ui_event>` before the handler, `<ui_state>`
//!   only on a user turn, per-job reset unless `keep_history`, the prompt guide kept in the
//!   system instruction).
//! - [`decode`]: [`snapshot_from_json`], snapshot JSON into the typed tree (hark-rtvi's
//!   streaming decoder, with its size and depth limits).
//! - [`messages`]: every text hark-ui says, including the prompt guide.
//! - [`respond`]: the `respond` job ([`Responder`], single-flight, `respond_to_job` through a
//!   [`RespondHandle`], the shared [`WorkerContext`]); [`reply_tool`]: the `reply` tool.
//! - [`events`]: UI event handlers by name ([`UiEvents`]; an example with one handler is in
//!   that module's docs).
//! - [`bus`]: named workers in one process ([`Bus`], [`JobHandler`]); [`job_group`]: job groups
//!   reported to the client as `ui-job-group` ([`JobGroups`]). Both live in the `hark-bus`
//!   crate and are re-exported here, so a UI worker's users reach them from one crate.
//!
//! Snapshot and command types come from `hark-rtvi` ([`A11ySnapshot`], [`UiCommand`]); commands
//! leave as [`hark_rtvi::ServerMessage::UiCommand`] through a [`CommandSink`].
//!
//! ## Example: a worker, a snapshot, an event and a command
//!
//! ```
//! use std::sync::Arc;
//! use hark_rtvi::{A11ySnapshot, ServerMessage, UiEvent};
//! use hark_ui::{CommandError, UiContext, UiContextOptions, UiWorker};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Commands for the client go to the session's outbound queue.
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
//! let worker = UiWorker::new("ui", Arc::new(tx));
//!
//! // The client's `ui-snapshot` (decoded by hark-rtvi at the edge).
//! let snapshot = A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"generic","children":[
//!     {"ref":"e2","role":"checkbox","name":"Gift wrap"},
//!     {"ref":"e3","role":"button","name":"Pay now","state":["offscreen"]}]},
//!     "captured_at":1767225600000}"#)?;
//! worker.on_snapshot(snapshot);
//! assert_eq!(worker.render_ui_state(), "<ui_state>
//! - generic [ref=e1]:
//!   - checkbox \"Gift wrap\" [ref=e2]
//!   - button \"Pay now\" [offscreen] [ref=e3]
//! </ui_state>");
//!
//! // A UI event goes into the LLM context as a developer message before any handler runs.
//! let mut ctx = UiContext::new(UiContextOptions::default(), Some("Answer in one sentence."));
//! let event = UiEvent { event: "nav_click".into(), payload: Some(serde_json::json!({"view": "cart"}).into()) };
//! ctx.on_ui_event(&worker.render_ui_event(&event));
//! assert_eq!(ctx.messages()[0].content, r#"<ui_event name="nav_click">{"view": "cart"}</ui_event>"#);
//!
//! // A respond turn: the query, then <ui_state> right before the inference.
//! ctx.start_turn("is gift wrap on?");
//! assert!(ctx.before_inference(&worker.render_ui_state()));
//!
//! // Drive the page: refs of the latest snapshot only.
//! worker.click("e2")?;
//! let Some(ServerMessage::UiCommand(cmd)) = rx.try_recv().ok() else { panic!("sent") };
//! assert_eq!(cmd.command, "click");
//! assert_eq!(cmd.payload, serde_json::json!({"ref": "e2", "target_id": null}));
//! // A ref no snapshot had (made up): refused as unknown, not sent.
//! let unknown = worker.click("e7").unwrap_err();
//! assert!(matches!(unknown, CommandError::UnknownRef { .. }));
//! assert!(unknown.to_string().starts_with("e7 is not a ref the page has shown"));
//!
//! // The page changed: e3 was on the screen before, so it is refused as stale.
//! worker.on_snapshot(A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"generic","children":[
//!     {"ref":"e2","role":"checkbox","name":"Gift wrap"}]},"captured_at":1767225601000}"#)?);
//! let stale = worker.click("e3").unwrap_err();
//! assert!(matches!(stale, CommandError::StaleRef { .. }));
//! assert!(stale.to_string().starts_with("e3 is not on the screen any more"));
//! # Ok(()) }
//! ```

pub use hark_classify as classifier;
pub mod context;
pub mod decode;
pub mod events;
pub mod messages;
pub mod offline;
pub mod pyjson;
pub mod render;
pub mod reply_tool;
pub mod respond;
pub mod screen;
pub mod screen_tool;
mod single_flight;
pub mod worker;

pub use context::{ContextMessage, Role, UiContext, UiContextOptions};
pub use decode::snapshot_from_json;
pub use events::{Dispatched, UiEvents};
pub use hark_bus::{
    Bus, JobGroupParams, JobGroupReport, JobGroups, JobHandler, JobReply, JobRequest, JobResponse,
    JobRoutes, JobUpdates, bus, job, job_group,
};
pub use hark_classify::{Classifier, ClassifierError, ClassifyState, LlmClassifier, ScreenState};
pub use hark_rtvi::{A11yNode, A11ySelection, A11ySnapshot, UiCommand, UiEvent};
pub use render::{
    render_ui_event, render_ui_event_payload, render_ui_state, render_ui_state_value,
};
pub use respond::{RespondHandle, Responder, WorkerContext};
pub use screen::{
    ElementMatch, FoundElement, ListedElement, ScreenAction, ScreenError, ScreenErrorKind,
};
pub use screen_tool::{
    BusScreenJobs, DEFAULT_SCREEN_TIMEOUT, ScreenJobHandler, ScreenJobs, screen_tools,
};
pub use worker::{CommandError, CommandSink, Screen, SinkClosed, UiSelection, UiWorker};
