//! One session's UI side, wired: [`UiSession`] holds the session's [`UiWorker`], its bus, job
//! groups, worker context and UI event handlers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hark_tools::{BuildError, ToolSpec};
use hark_ui::{
    Bus, BusScreenJobs, JobGroups, ScreenJobs, UiEvents, UiWorker, WorkerContext, screen_tools,
};

use crate::sessions::id::SessionId;

use super::config::DEFAULT_SCREEN_SOURCE;
use super::remote::RemoteLink;

/// One session's UI side. Cheap to clone (all `Arc`s).
#[derive(Debug, Clone)]
pub struct UiSession {
    pub(super) id: SessionId,
    pub(super) worker: Arc<UiWorker>,
    pub(super) context: Arc<WorkerContext>,
    pub(super) bus: Arc<Bus>,
    pub(super) groups: Arc<JobGroups>,
    pub(super) events: Arc<UiEvents>,
    /// The session's bus on Redis (`hark serve --bus`), when it has one.
    pub(super) remote: Option<Arc<RemoteLink>>,
}

impl UiSession {
    /// The session this belongs to.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The session's UI worker: latest snapshot, `<ui_state>`, commands, screen questions.
    pub fn worker(&self) -> &Arc<UiWorker> {
        &self.worker
    }

    /// The worker's LLM context (UI events are recorded here).
    pub fn context(&self) -> &Arc<WorkerContext> {
        &self.context
    }

    /// The session's bus: the UI worker (jobs `screen`, and `respond` when configured) and the
    /// peers.
    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    /// The job groups the UI worker dispatches; reported to the client as `ui-job-group`, and
    /// cancelled by the client's `ui-cancel-job-group`.
    pub fn job_groups(&self) -> &Arc<JobGroups> {
        &self.groups
    }

    /// The session's Redis channel (`hark serve --bus`); `None`: its bus is in process.
    pub fn bus_channel(&self) -> Option<&str> {
        self.remote.as_deref().map(RemoteLink::channel)
    }

    /// The app's UI event handlers of this session.
    pub fn events(&self) -> &Arc<UiEvents> {
        &self.events
    }

    /// `screen` jobs from [`DEFAULT_SCREEN_SOURCE`] to the UI worker, through the bus.
    pub fn screen_jobs(&self) -> Arc<dyn ScreenJobs> {
        Arc::new(BusScreenJobs::new(
            self.bus.clone(),
            DEFAULT_SCREEN_SOURCE,
            self.worker.name(),
        ))
    }

    /// The `screen` tool for a voice LLM of this session (see [`hark_ui::screen_tools`]),
    /// waiting at most `timeout` for each answer (pipecat's default: 30 s,
    /// [`hark_ui::DEFAULT_SCREEN_TIMEOUT`]).
    ///
    /// # Errors
    /// [`BuildError`] only if hark-tools refused the fixed schema.
    pub fn screen_tools(&self, timeout: Duration) -> Result<Vec<ToolSpec>, BuildError> {
        screen_tools(self.screen_jobs(), timeout)
    }
}

/// The running sessions by id.
pub(super) type SessionMap = Mutex<HashMap<SessionId, UiSession>>;

/// The running sessions, locked (a poisoned lock is taken over).
pub(super) fn lock(map: &SessionMap) -> MutexGuard<'_, HashMap<SessionId, UiSession>> {
    map.lock().unwrap_or_else(|e| e.into_inner())
}
