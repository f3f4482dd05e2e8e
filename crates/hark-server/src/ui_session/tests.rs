//! The UI session's unit tests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_rtvi::message::ServerMessage;
use hark_ui::{
    CommandSink, JobHandler, JobReply, JobRequest, JobResponse, JobUpdates, SinkClosed, UiEvent,
    UiWorker,
};
use tokio::sync::mpsc;

use super::job_limit::*;
use super::sink::*;
use super::*;
use crate::messages;
use crate::session::{HandlerLimits, NoAgentHandler, Outbox, SessionHandler, SessionInput};
use crate::sessions::SessionId;
use hark_rtvi::JobStatus;
use hark_rtvi::snapshot::A11ySnapshot;
use hark_rtvi::ui::{JobGroupEnvelope, UiCancelJobGroup};
use hark_ui::job_group::JobGroupParams;
use serde_json::json;

use crate::session::Outbound;

/// A peer that never answers (until the group is torn down).
#[derive(Debug)]
struct Never;
impl JobHandler for Never {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(futures::future::pending())
    }
}

/// A peer that answers `{"from": name}` at once.
#[derive(Debug)]
struct Echo;
impl JobHandler for Echo {
    fn handle(&self, job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(
            async move { JobReply::Response(JobResponse::completed(json!({"from": job.target}))) },
        )
    }
}

fn snapshot() -> Arc<A11ySnapshot> {
    Arc::new(
        A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"form","children":[
            {"ref":"e2","role":"checkbox","name":"Gift wrap"}]},"captured_at":1}"#,
        )
        .unwrap(),
    )
}

async fn next(rx: &mut mpsc::Receiver<Outbound>) -> ServerMessage {
    *tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("a message in time")
        .expect("outbox open")
        .rtvi()
        .expect("an RTVI message")
        .message
}

#[tokio::test]
async fn snapshots_events_and_commands_go_through_the_worker() {
    let factory = UiHandlerFactory::new(UiSessionConfig::new()).unwrap();
    let mut h = factory.handler(SessionId(7));
    assert_eq!(factory.session_ids(), vec![SessionId(7)]);
    let (outbox, mut rx) = Outbox::channel(SessionId(7), 8);
    let session = factory.session(SessionId(7)).expect("registered");
    assert!(session.worker().snapshot().is_none());

    h.handle(SessionInput::Snapshot(snapshot().into()), &outbox)
        .await;
    assert_eq!(
        session.worker().render_ui_state(),
        "<ui_state>\n- form [ref=e1]:\n  - checkbox \"Gift wrap\" [ref=e2]\n</ui_state>"
    );

    // No handler: the event is only recorded into the worker's context.
    let event = UiEvent {
        event: "add_to_cart".into(),
        payload: Some(json!({"product": "Travel mug"}).into()),
    };
    h.handle(SessionInput::UiEvent(event), &outbox).await;
    let recorded: Vec<String> = session
        .context()
        .messages()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(
        recorded,
        vec![r#"<ui_event name="add_to_cart">{"product": "Travel mug"}</ui_event>"#.to_string()]
    );

    // The worker's commands reach the session's outbox.
    session.worker().click("e2").unwrap();
    let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
        panic!("a ui-command")
    };
    assert_eq!(
        (cmd.command.as_str(), &cmd.payload),
        ("click", &json!({"ref": "e2", "target_id": null}))
    );

    // A text turn keeps the no-agent behaviour: the same messages as NoAgentHandler's.
    h.handle(SessionInput::UserText { text: "hi".into() }, &outbox)
        .await;
    let mut ours = Vec::new();
    while let Ok(out) = rx.try_recv() {
        ours.push(out.rtvi().unwrap().message);
    }
    let (plain, mut plain_rx) = Outbox::channel(SessionId(8), 8);
    NoAgentHandler
        .handle(SessionInput::UserText { text: "hi".into() }, &plain)
        .await;
    let mut expected = Vec::new();
    while let Ok(out) = plain_rx.try_recv() {
        expected.push(out.rtvi().unwrap().message);
    }
    assert_eq!(ours, expected);
    assert!(
        ours.iter()
            .any(|m| m.to_json(None).contains(&messages::no_agent_reply()))
    );

    drop(h);
    assert!(
        factory.session(SessionId(7)).is_none(),
        "an ended session leaves the map"
    );
    assert_eq!(
        session.worker().click("e2").unwrap_err(),
        hark_ui::CommandError::Closed {
            command: "click".into()
        },
        "after the session, commands are refused"
    );
}

#[tokio::test]
async fn an_event_handler_acts_on_the_page() {
    let config =
        UiSessionConfig::new().on_event("wrap_it", |worker: Arc<UiWorker>, _event| async move {
            let _ = worker.click("e2");
        });
    let factory = UiHandlerFactory::new(config).unwrap();
    let mut h = factory.handler(SessionId(1));
    let (outbox, mut rx) = Outbox::channel(SessionId(1), 8);
    h.handle(SessionInput::Snapshot(snapshot().into()), &outbox)
        .await;
    h.handle(
        SessionInput::UiEvent(UiEvent {
            event: "wrap_it".into(),
            payload: None,
        }),
        &outbox,
    )
    .await;
    let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
        panic!("a ui-command")
    };
    assert_eq!(cmd.command, "click");
    let session = h.session().clone();
    assert_eq!(
        session.context().messages()[0].content,
        r#"<ui_event name="wrap_it">null</ui_event>"#
    );
}

#[tokio::test]
async fn the_client_cancels_a_group_and_the_unfinished_worker_reads_cancelled() {
    let config = UiSessionConfig::new()
        .peer_worker("fast", Arc::new(Echo))
        .peer_worker("slow", Arc::new(Never));
    let factory = UiHandlerFactory::new(config).unwrap();
    let mut h = factory.handler(SessionId(2));
    let (outbox, mut rx) = Outbox::channel(SessionId(2), 16);
    h.handle(SessionInput::Snapshot(snapshot().into()), &outbox)
        .await;
    let session = h.session().clone();
    let groups = session.job_groups().clone();
    let run = tokio::spawn(async move {
        groups
            .run(
                &["fast", "slow"],
                JobGroupParams::new("research", json!({"q": "mugs"})).label("Research"),
            )
            .await
    });
    let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted {
        job_id, workers, ..
    }) = next(&mut rx).await
    else {
        panic!("group_started first")
    };
    assert_eq!(workers, vec!["fast", "slow"]);
    let ServerMessage::UiJobGroup(JobGroupEnvelope::JobCompleted {
        worker_name,
        status,
        ..
    }) = next(&mut rx).await
    else {
        panic!("fast completes")
    };
    assert_eq!(
        (worker_name.as_str(), status),
        ("fast", JobStatus::Completed)
    );

    h.handle(
        SessionInput::CancelJobGroup {
            request_id: Some("k1".into()),
            cancel: UiCancelJobGroup {
                job_id: job_id.clone(),
                reason: None,
            },
        },
        &outbox,
    )
    .await;
    let ServerMessage::UiJobGroup(JobGroupEnvelope::JobCompleted {
        worker_name,
        status,
        response,
        ..
    }) = next(&mut rx).await
    else {
        panic!("slow is cancelled")
    };
    assert_eq!(
        (worker_name.as_str(), status, response),
        ("slow", JobStatus::Cancelled, None)
    );
    let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupCompleted { job_id: done, .. }) =
        next(&mut rx).await
    else {
        panic!("then group_completed")
    };
    assert_eq!(done, job_id);
    run.await.unwrap().unwrap();
}

/// A cancel the worker cannot honour is answered with an error-response on the request id
/// naming the group and why: unknown (or finished) groups, and groups started as not
/// cancellable (which keep running).
#[tokio::test]
async fn a_cancel_that_cannot_be_honoured_gets_an_error_response() {
    let config = UiSessionConfig::new().peer_worker("slow", Arc::new(Never));
    let factory = UiHandlerFactory::new(config).unwrap();
    let mut h = factory.handler(SessionId(3));
    let (outbox, mut rx) = Outbox::channel(SessionId(3), 16);
    h.handle(SessionInput::Snapshot(snapshot().into()), &outbox)
        .await;
    let cancel = |id: &str, job: &str| SessionInput::CancelJobGroup {
        request_id: Some(id.into()),
        cancel: UiCancelJobGroup {
            job_id: job.into(),
            reason: None,
        },
    };

    h.handle(cancel("k1", "J-nope"), &outbox).await;
    let out = rx.recv().await.unwrap().rtvi().unwrap();
    assert_eq!(out.id.as_deref(), Some("k1"));
    assert_eq!(
        *out.message,
        ServerMessage::ErrorResponse {
            error: messages::cancel_unknown_group("J-nope")
        }
    );

    let groups = h.session().job_groups().clone();
    let run = tokio::spawn(async move {
        groups
            .run(
                &["slow"],
                JobGroupParams::new("research", json!({})).cancellable(false),
            )
            .await
    });
    let ServerMessage::UiJobGroup(JobGroupEnvelope::GroupStarted { job_id, .. }) =
        next(&mut rx).await
    else {
        panic!("group_started first")
    };
    h.handle(cancel("k2", &job_id), &outbox).await;
    let out = rx.recv().await.unwrap().rtvi().unwrap();
    assert_eq!(out.id.as_deref(), Some("k2"));
    assert_eq!(
        *out.message,
        ServerMessage::ErrorResponse {
            error: messages::cancel_not_cancellable(&job_id)
        }
    );
    assert!(!run.is_finished(), "a not-cancellable group keeps running");
    run.abort();
}

/// The offline screen mode: the session announces it once when ready, and a text turn is
/// one offline turn over the session's `screen` job, answered as one bot reply.
#[tokio::test]
async fn offline_mode_announces_itself_and_answers_text_with_screen_jobs() {
    let factory = UiHandlerFactory::new(UiSessionConfig::offline_demo()).unwrap();
    let mut h = factory.handler(SessionId(4));
    let (outbox, mut rx) = Outbox::channel(SessionId(4), 16);
    let version = hark_rtvi::version::check_client_version(Some("2.1.0"));
    h.handle(SessionInput::Ready { version }, &outbox).await;
    let ServerMessage::ServerMessage(notice) = next(&mut rx).await else {
        panic!("the mode's server-message")
    };
    assert_eq!(notice, hark_ui::offline::mode_message());
    h.handle(SessionInput::Snapshot(snapshot().into()), &outbox)
        .await;

    h.handle(
        SessionInput::UserText {
            text: "tick the gift wrap checkbox".into(),
        },
        &outbox,
    )
    .await;
    let reply = crate::wire::bot_reply(
        &hark_ui::messages::offline_toggled("Gift wrap", Some(true)),
        outbox.legacy(),
    );
    // The click first, then the answer that reports it in a box's words.
    let ServerMessage::UiCommand(cmd) = next(&mut rx).await else {
        panic!("the click first")
    };
    assert_eq!(
        (cmd.command.as_str(), &cmd.payload),
        ("click", &json!({"ref": "e2", "target_id": null}))
    );
    let mut texts = Vec::new();
    for _ in 0..reply.len() {
        texts.push(next(&mut rx).await);
    }
    assert_eq!(
        texts, reply,
        "one bot reply, and the mode announced only once"
    );
    assert!(rx.try_recv().is_err(), "nothing more");
}

/// At most `limit` jobs of a name wait or run at once; one more is
/// answered at once with the refusal the model reads; a finished (or dropped) job frees its
/// place.
#[tokio::test]
async fn jobs_over_the_pending_limit_are_refused_at_once() {
    let limited = JobLimit {
        job: "screen",
        inner: Arc::new(Never),
        pending: Arc::default(),
        limit: Arc::new(AtomicUsize::new(2)),
    };
    let job = || JobRequest::new("voice-screen-1", "voice", "ui", "screen", json!({}));
    let first = limited.handle(job(), JobUpdates::discard(&job()));
    let second = limited.handle(job(), JobUpdates::discard(&job()));
    let JobReply::Response(refused) = limited.handle(job(), JobUpdates::discard(&job())).await
    else {
        panic!("an answer")
    };
    assert_eq!(
        refused,
        JobResponse::error(messages::too_many_jobs("screen", 2))
    );
    drop(first);
    let third = limited.handle(job(), JobUpdates::discard(&job()));
    assert_eq!(limited.pending.load(Ordering::Relaxed), 2);
    drop((second, third));
    assert_eq!(limited.pending.load(Ordering::Relaxed), 0);
}

/// A `ui-event` while the session's limit of handlers still run is
/// refused with an `error` and not recorded; once one finishes, events are taken again.
#[tokio::test]
async fn ui_events_over_the_in_flight_limit_are_refused() {
    let (release, released) = tokio::sync::watch::channel(false);
    let config = UiSessionConfig::new().on_event("slow", move |_w, _e| {
        let mut released = released.clone();
        async move {
            let _ = released.wait_for(|r| *r).await;
        }
    });
    let factory = UiHandlerFactory::new(config).unwrap();
    let mut h = factory.handler(SessionId(9));
    let limits = HandlerLimits {
        max_ui_events_in_flight: 2,
        ..HandlerLimits::default()
    };
    let (outbox, mut rx) = Outbox::channel_with(SessionId(9), 8, limits);
    let slow = || {
        SessionInput::UiEvent(UiEvent {
            event: "slow".into(),
            payload: None,
        })
    };
    h.handle(slow(), &outbox).await;
    h.handle(slow(), &outbox).await;
    assert!(rx.try_recv().is_err(), "two are taken");
    h.handle(slow(), &outbox).await;
    assert_eq!(
        next(&mut rx).await,
        crate::wire::error(&messages::too_many_ui_events(2))
    );
    assert_eq!(h.session().context().messages().len(), 2, "not recorded");
    release.send(true).unwrap();
    h.session().events().wait_idle().await;
    h.handle(slow(), &outbox).await;
    assert!(rx.try_recv().is_err(), "taken again");
    assert_eq!(h.session().context().messages().len(), 3);
}

/// The worker's sink: messages sent before the session's first input wait for its
/// outbox; over a full outbox they wait in order behind each other (none dropped, none
/// overtaking); once the session closed (or the handler dropped) sends are refused.
#[tokio::test]
async fn the_sink_keeps_order_over_a_full_outbox_and_refuses_once_closed() {
    let text = |n: usize| crate::wire::error(&format!("m{n}"));
    let sink = SessionSink::default();
    sink.send(text(0)).unwrap();
    sink.send(text(1)).unwrap();
    let (outbox, mut rx) = Outbox::channel(SessionId(11), 2);
    sink.attach(&outbox);
    // Two fit, the rest wait for room while the sink goes on accepting (never blocking).
    for n in 2..10 {
        sink.send(text(n)).unwrap();
    }
    for n in 0..10 {
        assert_eq!(next(&mut rx).await, text(n), "message {n} in order");
    }
    // An empty backlog again: straight into the outbox.
    sink.send(text(10)).unwrap();
    assert_eq!(next(&mut rx).await, text(10));

    // The backlog's task ends once the backlog is empty.
    tokio::time::timeout(Duration::from_secs(30), async {
        while lock_sink(&sink.state).drainer.is_some() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the backlog's task ended");
    drop(rx);
    assert_eq!(sink.send(text(11)), Err(SinkClosed), "the session closed");
    assert_eq!(sink.send(text(12)), Err(SinkClosed));

    let closed = SessionSink::default();
    let (outbox, _rx) = Outbox::channel(SessionId(12), 2);
    closed.attach(&outbox);
    closed.close();
    assert_eq!(
        closed.send(text(0)),
        Err(SinkClosed),
        "the handler was dropped"
    );
}

#[test]
fn a_bad_config_lists_every_problem() {
    let err = UiHandlerFactory::new(
        UiSessionConfig::new()
            .on_event("", |_, _| async {})
            .on_event("__ui_snapshot", |_, _| async {})
            .peer_worker("ui", Arc::new(Echo))
            .peer_worker("", Arc::new(Echo)),
    )
    .unwrap_err();
    assert_eq!(err.problems.len(), 4, "{err}");
    assert_eq!(err.problems[0], hark_ui::messages::event_name_empty());
    assert_eq!(
        err.problems[1],
        hark_ui::messages::event_name_reserved("__ui_snapshot")
    );
    assert_eq!(err.problems[2], hark_ui::messages::duplicate_worker("ui"));
    assert_eq!(err.problems[3], hark_ui::messages::empty_worker_name());
}
