//! The per-session caps on the worker's jobs: at most so many `screen` (and `respond`) jobs
//! waiting or running at once, and the server's job-group cap.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use hark_ui::{JobHandler, JobReply, JobRequest, JobResponse, JobUpdates};
use tracing::info;

use crate::messages;
use crate::session::HandlerLimits;

/// At most `limit` jobs named `job` waiting or running at once in one
/// session; one more is answered at once with status `error` and [`messages::too_many_jobs`].
#[derive(Debug)]
pub(super) struct JobLimit {
    pub(super) job: &'static str,
    pub(super) inner: Arc<dyn JobHandler>,
    pub(super) pending: Arc<AtomicUsize>,
    /// Set from the session's [`HandlerLimits`] on its first input.
    pub(super) limit: Arc<AtomicUsize>,
}

/// Frees one place of a [`JobLimit`] when the job ends (answered or dropped).
pub(super) struct PendingJob(Arc<AtomicUsize>);

impl Drop for PendingJob {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl JobHandler for JobLimit {
    fn handle(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        let limit = self.limit.load(Ordering::Relaxed).max(1);
        let admitted = self
            .pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .is_ok();
        if !admitted {
            info!(job = self.job, limit, source = %job.source, "job refused: too many waiting");
            let refusal = JobResponse::error(messages::too_many_jobs(self.job, limit));
            return Box::pin(std::future::ready(JobReply::Response(refusal)));
        }
        let place = PendingJob(self.pending.clone());
        let running = self.inner.handle(job, updates);
        Box::pin(async move {
            let _place = place;
            running.await
        })
    }
}

/// The job-group cap of a session whose [`UiSessionConfig`] sets none: the server's
/// ([`crate::ServerConfig::max_job_groups`], `--max-job-groups`).
pub(super) fn server_job_group_limit(limits: &HandlerLimits) -> usize {
    limits.max_job_groups
}
