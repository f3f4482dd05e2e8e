//! The jobs a bus worker holds: each runs as its own task until it answers, is cancelled, or
//! the worker stops; exactly one answer leaves per job.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use hark_bus::{
    BusMessage, JobHandler, JobReply, JobRequest, JobResult, JobRoutes, JobStream, JobUpdates,
    WireMessage,
};
use hark_rtvi::JobStatus;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::outbox::Outbox;

#[derive(Debug)]
struct HeldJob {
    request: JobRequest,
    task: AbortHandle,
}

/// The running jobs by id. Whoever removes a job from here sends its one answer.
#[derive(Debug, Clone, Default)]
pub struct Held(Arc<Mutex<HashMap<String, HeldJob>>>);

impl Held {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, HeldJob>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on `routes` as its own task: its updates, then its answer, go to `out` (from
    /// `worker`). A second request with the id of a running job is ignored.
    pub fn start(&self, job: JobRequest, routes: Arc<JobRoutes>, out: Outbox, worker: &str) {
        let mut held = self.lock();
        if held.contains_key(&job.job_id) {
            tracing::debug!(job_id = %job.job_id, "a second request for a running job was ignored");
            return;
        }
        let this = self.clone();
        let request = job.clone();
        let worker = worker.to_owned();
        let task = tokio::spawn(async move {
            let (updates_tx, mut updates) = mpsc::unbounded_channel::<BusMessage>();
            let reply = {
                let handling = routes.handle(job.clone(), JobUpdates::new(&job, updates_tx));
                tokio::pin!(handling);
                loop {
                    tokio::select! {
                        reply = &mut handling => break reply,
                        Some(update) = updates.recv() => { let _ = out.send(update.into()); }
                    }
                }
            };
            while let Ok(update) = updates.try_recv() {
                let _ = out.send(update.into());
            }
            // Still held: nobody cancelled it, so this task answers.
            if this.lock().remove(&job.job_id).is_some() {
                let message = match reply {
                    JobReply::Response(r) => {
                        answer(&worker, &job.source, &job.job_id, r.status, r.response)
                    }
                    JobReply::StreamEnded => {
                        WireMessage::Job(BusMessage::JobStreamEnd(JobStream {
                            source: worker.clone(),
                            target: job.source.clone(),
                            job_id: job.job_id.clone(),
                            data: None,
                        }))
                    }
                };
                let _ = out.send(message);
            }
        });
        held.insert(
            request.job_id.clone(),
            HeldJob {
                request,
                task: task.abort_handle(),
            },
        );
    }

    /// Aborts the held job `job_id`; `false` when this worker does not hold it.
    pub fn cancel(&self, job_id: &str) -> bool {
        match self.lock().remove(job_id) {
            Some(job) => {
                job.task.abort();
                true
            }
            None => false,
        }
    }

    /// Aborts every held job and gives their requests.
    pub fn take_all(&self) -> Vec<JobRequest> {
        self.lock()
            .drain()
            .map(|(_, job)| {
                job.task.abort();
                job.request
            })
            .collect()
    }
}

/// A job's answer from `worker` to `requester`.
pub fn answer(
    worker: &str,
    requester: &str,
    job_id: &str,
    status: JobStatus,
    response: Option<Value>,
) -> WireMessage {
    WireMessage::Job(BusMessage::JobResult(JobResult {
        source: worker.to_owned(),
        target: requester.to_owned(),
        job_id: job_id.to_owned(),
        status,
        response,
    }))
}
