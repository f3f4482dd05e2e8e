//! What a call carries, and the call's hooks: its tool hooks and its background work.
//!
//! Spec: `tools-reference.md`, "Use it in your agent" (point 3: `call` is the call's `CallHooks`;
//! it runs your tool hooks and lets background webhooks finish when the call ends), "Outputs"
//! (point 6: the `wrap_tool` and `after_tool` hooks see the checked result; what a hook puts in
//! its place is not checked again), "Locked arguments" (`{{call.name}}`), "Time and size limits"
//! (background webhooks finish when the call ends).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::task::TaskTracker;

use crate::executor::Arguments;
use crate::registry::ToolOutcome;
use crate::sink::Source;

/// The direction of a call: `inbound`, `outbound`, or `none` (a web session with no phone leg).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallType {
    /// The caller dialled in.
    Inbound,
    /// The agent dialled out.
    Outbound,
    /// No direction (browser session, test); serialises as `"none"`, spoken to the model as `null`.
    #[default]
    None,
}

/// What the call carries, read by `{{call.<name>}}` templates and the built-in tools.
///
/// Field names are the template names: `{{call.session_id}}`, `{{call.remote_number}}`,
/// `{{call.carrier_call_id}}`, `{{call.call_type}}`, `{{call.end_reason}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallInfo {
    /// Hark's own id of this call (one per RTVI session or phone call).
    pub session_id: String,
    /// The caller's number in E.164 (`+14155550123`), when the call has one.
    pub remote_number: Option<String>,
    /// The carrier's or telephony platform's id of the call, when it has one.
    pub carrier_call_id: Option<String>,
    /// Inbound, outbound or none.
    pub call_type: CallType,
    /// Why the call ended (`"hangup"`, `"transfer"`, …); set once it has ended.
    pub end_reason: Option<String>,
}

/// What a tool hook sees of one call: the tool's name, its checked arguments (locked values
/// filled) and who called it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments after every check, locked values filled.
    pub arguments: Arguments,
    /// The model or an event.
    pub source: Source,
}

/// The rest of the call path a `wrap_tool` hook wraps: awaiting it runs the tool (and the hooks
/// inside this one) and gives the checked outcome. Dropping it without awaiting it means the tool
/// never runs.
pub type Next<'a> = BoxFuture<'a, ToolOutcome>;

/// What a `wrap_tool` hook gives back.
#[derive(Debug, Clone)]
pub enum Wrapped {
    /// The outcome `next` gave (checked), kept as it is.
    Keep(ToolOutcome),
    /// A result the hook puts in the tool's place. It is not checked again ("Outputs", point 6):
    /// a result that reports an error (`error` or `refused` with text, `"ok": false`) is a
    /// failure, any other is a success; the model reads it after `show_result` and `hidden`.
    Replace(Value),
}

type WrapFn = dyn for<'a> Fn(&'a HookCall, Next<'a>) -> BoxFuture<'a, Wrapped> + Send + Sync;
type AfterFn = dyn Fn(&HookCall, &ToolOutcome) -> Option<Value> + Send + Sync;

/// The hooks of one call. They run the call's tool hooks (`wrap_tool` around each tool run,
/// `after_tool` after it, both seeing the checked result), and own the call's background work
/// (webhooks that do not wait for their answer), which they let finish, within a bounded drain
/// time, when the call ends.
///
/// Tool hooks run for every tool that runs, through [`ToolRegistry::call`](crate::ToolRegistry::call)
/// (from `context.hooks`) and [`ToolRegistry::call_live`](crate::ToolRegistry::call_live) (from
/// the [`LiveCall`](crate::LiveCall)'s hooks): the plain agent and flows alike. A refused call
/// and a precheck outcome run no hook (the tool does not run). A `continue` tool cut off by the
/// caller: the model reads that it is still running whatever a hook says; `after_tool` runs on
/// its late result.
///
/// Cloning is cheap; all clones share one set of tasks and the same hooks.
#[derive(Clone, Default)]
pub struct CallHooks {
    tracker: TaskTracker,
    wraps: Vec<Arc<WrapFn>>,
    afters: Vec<Arc<AfterFn>>,
}

impl fmt::Debug for CallHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallHooks")
            .field("background", &self.tracker.len())
            .field("wrap_tool", &self.wraps.len())
            .field("after_tool", &self.afters.len())
            .finish()
    }
}

/// What [`CallHooks::drain`] saw: how many background tasks were still running when the drain
/// limit ran out (0 when everything finished).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrainReport {
    /// Tasks still running when the limit ran out; they were left to finish or be dropped with
    /// the runtime, and each is logged as failed by its owner.
    pub unfinished: usize,
}

impl CallHooks {
    /// New hooks with no background work and no tool hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a `wrap_tool` hook: it gets the call and `next`, the rest of the call path; awaiting
    /// `next` runs the tool and gives its checked outcome. It returns [`Wrapped::Keep`] with that
    /// outcome, or [`Wrapped::Replace`] with a result in its place (not checked again). The
    /// first hook added is the outermost.
    ///
    /// ```
    /// use hark_tools::{CallHooks, Wrapped};
    /// let hooks = CallHooks::new().wrap_tool(|call, next| {
    ///     Box::pin(async move {
    ///         let outcome = next.await;
    ///         if call.tool == "quote" && outcome.succeeded() {
    ///             return Wrapped::Replace(serde_json::json!({"price": "on request"}));
    ///         }
    ///         Wrapped::Keep(outcome)
    ///     })
    /// });
    /// assert!(format!("{hooks:?}").contains("wrap_tool: 1"));
    /// ```
    pub fn wrap_tool<F>(mut self, hook: F) -> Self
    where
        F: for<'a> Fn(&'a HookCall, Next<'a>) -> BoxFuture<'a, Wrapped> + Send + Sync + 'static,
    {
        self.wraps.push(Arc::new(hook));
        self
    }

    /// Adds an `after_tool` hook: it sees each call's checked outcome after the `wrap_tool`
    /// hooks, and returns `Some(result)` to put a result in its place (not checked again) or
    /// `None` to keep it. Hooks run in the order added, each seeing the outcome so far.
    pub fn after_tool<F>(mut self, hook: F) -> Self
    where
        F: Fn(&HookCall, &ToolOutcome) -> Option<Value> + Send + Sync + 'static,
    {
        self.afters.push(Arc::new(hook));
        self
    }

    /// True when the call has at least one tool hook.
    pub fn has_tool_hooks(&self) -> bool {
        !self.wraps.is_empty() || !self.afters.is_empty()
    }

    /// The `wrap_tool` hooks, outermost first.
    pub(crate) fn wraps(&self) -> &[Arc<WrapFn>] {
        &self.wraps
    }

    /// The `after_tool` hooks, in order.
    pub(crate) fn afters(&self) -> &[Arc<AfterFn>] {
        &self.afters
    }

    /// Runs `work` in the background, owned by this call. It must log its own failure: nothing
    /// reads its output.
    pub fn spawn_background<F>(&self, work: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.tracker.spawn(work);
    }

    /// How many background tasks are running now.
    pub fn background_len(&self) -> usize {
        self.tracker.len()
    }

    /// Called when the call ends: stops taking new background work and waits up to `limit` for
    /// the running work to finish.
    pub async fn drain(&self, limit: Duration) -> DrainReport {
        self.tracker.close();
        let _ = tokio::time::timeout(limit, self.tracker.wait()).await;
        DrainReport {
            unfinished: self.tracker.len(),
        }
    }
}
