//! Job groups are capped per requester ([`JobGroups::max_open`], default 64).
//! One group over the cap is refused with a clear text before anything is dispatched or sent;
//! the running groups go on, and once one ends groups are taken again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use hark_bus::bus::{Bus, JobHandler, JobReply, JobUpdates};
use hark_bus::job_group::{
    CancelOutcome, DEFAULT_MAX_OPEN_GROUPS, GroupOutcome, JobGroupError, JobGroupParams, JobGroups,
};
use hark_bus::message::JobRequest;
use hark_bus::messages;
use hark_rtvi::{JobGroupEnvelope, ServerMessage, UiCancelJobGroup};
use serde_json::json;
use tokio::sync::mpsc;

/// Never answers; counts the jobs it was given.
#[derive(Debug, Default)]
struct Stuck(Arc<AtomicUsize>);

impl JobHandler for Stuck {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(std::future::pending())
    }
}

fn groups(jobs: Arc<AtomicUsize>) -> (Arc<JobGroups>, mpsc::UnboundedReceiver<ServerMessage>) {
    let bus = Bus::new();
    bus.register("stuck", Arc::new(Stuck(jobs))).unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Arc::new(JobGroups::new("ui", Arc::new(bus), Arc::new(tx))),
        rx,
    )
}

/// The job id of the next `group_started`.
async fn started(rx: &mut mpsc::UnboundedReceiver<ServerMessage>) -> String {
    loop {
        match rx.recv().await {
            Some(ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted { job_id, .. })) => {
                return job_id;
            }
            Some(_) => continue,
            None => panic!("the sink closed"),
        }
    }
}

#[test]
fn the_refusal_text_names_the_limit_and_what_to_do() {
    assert_eq!(
        messages::too_many_job_groups(64),
        "64 job groups are running already, the most one session may run at once: wait for \
         one to finish or cancel one, then start this group again"
    );
}

#[tokio::test]
async fn the_cap_defaults_to_64_and_is_at_least_one() {
    let (groups, _rx) = groups(Arc::default());
    assert_eq!(DEFAULT_MAX_OPEN_GROUPS, 64);
    assert_eq!(groups.max_open(), 64);
    groups.set_max_open(0);
    assert_eq!(groups.max_open(), 1);
    let (tx, _rx2) = mpsc::unbounded_channel::<ServerMessage>();
    let capped = JobGroups::new("ui", Arc::new(Bus::new()), Arc::new(tx)).with_max_open(3);
    assert_eq!(capped.max_open(), 3);
}

/// Two running (the cap): a third is refused at once with the text, dispatches nothing and
/// sends nothing; the two run on; cancelling one makes room for the next.
#[tokio::test]
async fn a_group_over_the_cap_is_refused_and_room_comes_back_when_one_ends() {
    let jobs = Arc::new(AtomicUsize::new(0));
    let (groups, mut rx) = groups(jobs.clone());
    groups.set_max_open(2);
    let run = |groups: &Arc<JobGroups>| {
        let groups = groups.clone();
        tokio::spawn(async move {
            groups
                .run(&["stuck"], JobGroupParams::new("research", json!({})))
                .await
        })
    };
    let first = run(&groups);
    let one = started(&mut rx).await;
    let _second = run(&groups);
    started(&mut rx).await;
    assert_eq!(groups.running().len(), 2);

    let refused = groups
        .run(&["stuck"], JobGroupParams::new("research", json!({})))
        .await;
    assert_eq!(
        refused.unwrap_err(),
        JobGroupError {
            problems: vec![messages::too_many_job_groups(2)]
        }
    );
    assert!(rx.try_recv().is_err(), "nothing sent for the refused group");
    assert_eq!(groups.running().len(), 2, "the running groups go on");
    assert_eq!(jobs.load(Ordering::SeqCst), 2, "nothing dispatched for it");

    // The other problems still come first, listed as before.
    let bad = groups
        .run(&["nobody"], JobGroupParams::new("research", json!({})))
        .await
        .unwrap_err();
    assert_eq!(bad.problems, vec![messages::unknown_worker("nobody")]);

    let cancel = UiCancelJobGroup {
        job_id: one,
        reason: None,
    };
    assert_eq!(groups.cancel(&cancel), CancelOutcome::Cancelled);
    let report = first.await.unwrap().unwrap();
    assert!(matches!(
        report.outcome,
        GroupOutcome::CancelledByClient { .. }
    ));
    assert_eq!(groups.running().len(), 1);

    let _third = run(&groups);
    started(&mut rx).await;
    assert_eq!(groups.running().len(), 2);
    assert_eq!(jobs.load(Ordering::SeqCst), 3);
}
