//! The call's hooks: its tool hooks (`wrap_tool`, `after_tool`) and its background work.
//! Vocabulary: imports nothing else of the crate but a call's outcome and its source.
//!
//! `call` is the call's `CallHooks`: it runs your tool hooks and lets background webhooks finish
//! when the call ends. The `wrap_tool` and `after_tool` hooks see the checked result; what a
//! hook puts in its place is not checked again. Guide: `docs/guide/sinks-and-hooks.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::task::TaskTracker;

use crate::outcome::ToolOutcome;
use crate::sink::Source;

/// What a tool hook sees of one call: the tool's name, its checked arguments (locked values
/// filled) and who called it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments after every check, locked values filled.
    pub arguments: Map<String, Value>,
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
    /// Background tasks running now, per tool name (shared by every clone).
    running: Arc<Mutex<BTreeMap<String, usize>>>,
    wraps: Vec<Arc<WrapFn>>,
    afters: Vec<Arc<AfterFn>>,
}

/// The tool name background work spawned with [`CallHooks::spawn_background`] (no tool named)
/// is counted under, in [`DrainReport::by_tool`] and the drain's log lines. Tool names never
/// hold parentheses, so it cannot be mistaken for one.
pub const UNNAMED_BACKGROUND: &str = "(unnamed)";

/// Counts one background task under its tool name while it lives: made when the task is
/// spawned, dropped with the task's future (finished, panicked or dropped with the runtime).
struct RunningGuard {
    running: Arc<Mutex<BTreeMap<String, usize>>>,
    tool: String,
}

impl RunningGuard {
    fn enter(running: &Arc<Mutex<BTreeMap<String, usize>>>, tool: String) -> Self {
        *lock(running).entry(tool.clone()).or_insert(0) += 1;
        Self {
            running: running.clone(),
            tool,
        }
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        let mut running = lock(&self.running);
        if let Some(n) = running.get_mut(&self.tool) {
            *n -= 1;
            if *n == 0 {
                running.remove(&self.tool);
            }
        }
    }
}

/// Locks `m`, also after a panic elsewhere (the counts stay meaningful).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
/// limit ran out (0 when everything finished), and of which tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DrainReport {
    /// Tasks still running when the limit ran out; they were left to finish or be dropped with
    /// the runtime, and each is logged as failed by its owner. The sum of
    /// [`by_tool`](Self::by_tool)'s counts.
    pub unfinished: usize,
    /// The unfinished tasks per tool name (sorted by name; no zero counts; tasks spawned with no
    /// tool name under [`UNNAMED_BACKGROUND`]). Names only, never argument values (a log
    /// line never carries argument values).
    pub by_tool: Vec<(String, usize)>,
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

    /// Runs `work` in the background, owned by this call, counted under no tool name
    /// ([`UNNAMED_BACKGROUND`]); prefer [`spawn_background_for`](Self::spawn_background_for),
    /// so a drain that gives up on it can say which tool it was. It must log its own failure:
    /// nothing reads its output.
    pub fn spawn_background<F>(&self, work: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.spawn_background_for(UNNAMED_BACKGROUND, work);
    }

    /// Runs `work` in the background for the tool named `tool` (the running tool's own name,
    /// e.g. a webhook that does not wait for its answer), owned by this call. While it runs it
    /// is counted under that name ([`background_by_tool`](Self::background_by_tool)), and a
    /// drain that gives up on it names the tool ([`DrainReport::by_tool`]). Pass the name only,
    /// never argument values. It must log its own failure: nothing reads its output.
    pub fn spawn_background_for<F>(&self, tool: &str, work: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let guard = RunningGuard::enter(&self.running, tool.to_owned());
        self.tracker.spawn(async move {
            let _counted = guard;
            work.await;
        });
    }

    /// How many background tasks are running now.
    pub fn background_len(&self) -> usize {
        self.tracker.len()
    }

    /// The background tasks running now, per tool name (sorted by name, no zero counts).
    pub fn background_by_tool(&self) -> Vec<(String, usize)> {
        lock(&self.running)
            .iter()
            .map(|(tool, n)| (tool.clone(), *n))
            .collect()
    }

    /// Called when the call ends: stops taking new background work and waits up to `limit` for
    /// the running work to finish. The report counts what still runs then, per tool name.
    pub async fn drain(&self, limit: Duration) -> DrainReport {
        self.tracker.close();
        let _ = tokio::time::timeout(limit, self.tracker.wait()).await;
        let by_tool = self.background_by_tool();
        DrainReport {
            unfinished: by_tool.iter().map(|(_, n)| n).sum(),
            by_tool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Background work is counted under the tool that spawned it while it runs (work with no
    /// tool name under `UNNAMED_BACKGROUND`); finished or panicked work leaves the count; the
    /// drain reports what still runs per tool, and its counts sum to `unfinished`.
    #[tokio::test]
    async fn background_work_is_counted_per_tool_and_the_drain_names_what_still_runs() {
        let hooks = CallHooks::new();
        let (release_tx, release_rx) = tokio::sync::oneshot::channel::<()>();
        hooks.spawn_background_for("notify_crm", async move {
            let _ = release_rx.await;
        });
        hooks.spawn_background_for("notify_crm", std::future::pending());
        hooks.spawn_background_for("log_call", std::future::pending());
        hooks.spawn_background(std::future::pending());
        let clone = hooks.clone();
        let (ran_tx, ran_rx) = tokio::sync::oneshot::channel::<()>();
        clone.spawn_background_for("boom", async move {
            let _ = ran_tx.send(());
            panic!("a background task that panics");
        });
        let _ = ran_rx.await;
        while hooks.background_len() > 4 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            hooks.background_by_tool(),
            [
                (UNNAMED_BACKGROUND.to_owned(), 1),
                ("log_call".to_owned(), 1),
                ("notify_crm".to_owned(), 2),
            ],
            "the panicked task left the count"
        );
        release_tx.send(()).unwrap();
        while hooks.background_len() > 3 {
            tokio::task::yield_now().await;
        }
        let report = hooks.drain(Duration::from_millis(50)).await;
        assert_eq!(
            report,
            DrainReport {
                unfinished: 3,
                by_tool: vec![
                    (UNNAMED_BACKGROUND.to_owned(), 1),
                    ("log_call".to_owned(), 1),
                    ("notify_crm".to_owned(), 1),
                ],
            }
        );

        let idle = CallHooks::new();
        idle.spawn_background_for("notify_crm", async {});
        assert_eq!(
            idle.drain(Duration::from_secs(30)).await,
            DrainReport::default()
        );
    }
}
