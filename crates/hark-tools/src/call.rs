//! What a call carries, and the hooks that own a call's background work.
//!
//! Spec: `tools-reference.md`, "Use it in your agent" (state.call), "Locked arguments"
//! (`{{call.name}}`), "Time and size limits" (background webhooks finish when the call ends).

use std::future::Future;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_util::task::TaskTracker;

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

/// The hooks of one call: they own the call's background work (webhooks that do not wait for
/// their answer) and let it finish, within a bounded drain time, when the call ends.
///
/// Cloning is cheap; all clones share one set of tasks.
#[derive(Debug, Clone, Default)]
pub struct CallHooks {
    tracker: TaskTracker,
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
    /// New hooks with no background work.
    pub fn new() -> Self {
        Self::default()
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
