//! The session handler of a UI worker: each session input to the worker, the job groups, the
//! voice agent or the offline screen mode (see the parent module's table).

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use hark_agent::VoiceAgent;
use hark_rtvi::message::{BotCapabilities, ServerMessage};
use hark_ui::CommandSink;
use hark_ui::job_group::CancelOutcome;
use hark_ui::offline::OfflineScreen;
use tracing::{debug, error, info};

use crate::agent_session::VoiceAgentConfig;
use crate::messages;
use crate::session::{HandlerLimits, NoAgentHandler, Outbox, SessionHandler, SessionInput};

use super::job_limit::server_job_group_limit;
use super::sink::SessionSink;
use super::worker::{SessionMap, UiSession, lock};

/// The session handler of a UI worker (see the module docs for what each input does).
///
/// Dropping it (the session ended) removes the session from its factory, stops forwarding the
/// worker's messages and aborts the running UI event handlers once no [`UiSession`] clone is
/// left.
pub struct UiSessionHandler {
    pub(super) session: UiSession,
    pub(super) sessions: Weak<SessionMap>,
    pub(super) sink: Arc<SessionSink>,
    /// Whether the worker's sink was given the session's outbox (on the first input).
    pub(super) attached: bool,
    /// The offline screen mode's turns, when configured.
    pub(super) offline: Option<OfflineScreen>,
    /// Whether the offline mode was announced to this session yet.
    pub(super) announced: bool,
    /// The voice agent's configuration (and whether the worker serves `respond`), until the
    /// agent is built on the first input (it needs the session's outbox).
    pub(super) agent_config: Option<(VoiceAgentConfig, bool)>,
    /// The session's voice agent, once built.
    pub(super) agent: Option<VoiceAgent>,
    /// The pending-jobs limit the session's [`JobLimit`]s read.
    pub(super) job_limit: Arc<AtomicUsize>,
    /// The session's handler limits (from its outbox, on the first input).
    pub(super) limits: HandlerLimits,
    /// [`UiSessionConfig::max_job_groups`], when the app set one (it wins over the server's).
    pub(super) max_job_groups: Option<usize>,
}

impl fmt::Debug for UiSessionHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiSessionHandler")
            .field("session", &self.session.id)
            .field("attached", &self.attached)
            .finish_non_exhaustive()
    }
}

impl UiSessionHandler {
    /// The UI side of this handler's session.
    pub fn session(&self) -> &UiSession {
        &self.session
    }

    /// The session's voice agent, when one is configured and could be built.
    pub fn voice_agent(&self) -> Option<&VoiceAgent> {
        self.agent.as_ref()
    }

    /// Starts moving the worker's messages into `outbox` and builds the voice agent (once, on
    /// the first input).
    pub(super) fn forward_to(&mut self, outbox: &Outbox) {
        if !self.attached {
            self.limits = outbox.handler_limits();
            self.job_limit
                .store(self.limits.max_pending_jobs, Ordering::Relaxed);
            if self.max_job_groups.is_none() {
                self.session
                    .groups
                    .set_max_open(server_job_group_limit(&self.limits));
            }
        }
        if let Some((config, respond)) = self.agent_config.take() {
            match config.agent(&self.session, outbox, respond) {
                Ok(agent) => self.agent = Some(agent),
                Err(e) => {
                    error!(session = %self.session.id, %e, "the voice agent cannot start; text turns get the no-agent answer")
                }
            }
        }
        if !self.attached {
            self.attached = true;
            self.sink.attach(outbox);
        }
    }

    /// Offline mode only: the mode's `server-message` and log line, once per session.
    pub(super) async fn announce_offline(&mut self, outbox: &Outbox) {
        if self.offline.is_none() || self.announced {
            return;
        }
        self.announced = true;
        info!(session = %self.session.id, "{}", hark_ui::messages::offline_mode_notice());
        let message = ServerMessage::ServerMessage(hark_ui::offline::mode_message());
        let _ = outbox.send(message).await;
    }
}

impl SessionHandler for UiSessionHandler {
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
        self.forward_to(outbox);
        Box::pin(async move {
            match input {
                SessionInput::Snapshot(snapshot) => {
                    if let Some(remote) = &self.session.remote {
                        remote.snapshot(&snapshot.tree());
                    }
                    self.session.worker.on_snapshot(snapshot);
                }
                SessionInput::UiEvent(event) => {
                    let limit = self.limits.max_ui_events_in_flight;
                    if self.session.events.running() >= limit {
                        info!(session = %self.session.id, event = %event.event, limit, "ui-event refused: too many handlers running");
                        let refusal = messages::too_many_ui_events(limit);
                        let _ = outbox.send(crate::wire::error(&refusal)).await;
                        return;
                    }
                    if let Some(remote) = &self.session.remote {
                        remote.event(&event);
                    }
                    let name = event.event.clone();
                    let dispatched = self.session.events.dispatch(event);
                    debug!(event = %name, ?dispatched, "ui-event");
                }
                SessionInput::CancelJobGroup { request_id, cancel } => {
                    let outcome = self.session.groups.cancel(&cancel);
                    if let Some(remote) = &self.session.remote {
                        // The groups of the workers on the bus are theirs to know: the cancel
                        // goes to them, as Pipecat's PipelineWorker sends it, with no refusal.
                        remote.cancel_group(&cancel);
                        if outcome != CancelOutcome::Cancelled {
                            debug!(job_id = %cancel.job_id, "ui-cancel-job-group sent to the bus");
                            return;
                        }
                    }
                    let refusal = match outcome {
                        CancelOutcome::Cancelled => {
                            info!(job_id = %cancel.job_id, reason = cancel.reason_or_default(), "job group cancelled by the client");
                            return;
                        }
                        CancelOutcome::UnknownGroup => {
                            messages::cancel_unknown_group(&cancel.job_id)
                        }
                        CancelOutcome::NotCancellable => {
                            messages::cancel_not_cancellable(&cancel.job_id)
                        }
                    };
                    info!(job_id = %cancel.job_id, outcome = ?outcome, "ui-cancel-job-group not honoured");
                    let _ = outbox
                        .respond(request_id, crate::wire::error_response(&refusal))
                        .await;
                }
                SessionInput::UserText { text } if self.agent.is_some() => {
                    if let Some(agent) = &self.agent {
                        agent.user_turn(text).await;
                    }
                }
                SessionInput::Audio(audio)
                    if self.agent.as_ref().is_some_and(VoiceAgent::listens) =>
                {
                    if let Some(agent) = &self.agent
                        && agent.hear(audio).await.is_err()
                    {
                        debug!(session = %self.session.id, "audio dropped: the call stopped listening");
                    }
                }
                SessionInput::Disconnect if self.agent.is_some() => {
                    if let Some(agent) = &self.agent {
                        agent.interrupt().await;
                    }
                }
                SessionInput::Ready { .. } if self.offline.is_some() => {
                    self.announce_offline(outbox).await;
                }
                SessionInput::UserText { text } if self.offline.is_some() => {
                    self.announce_offline(outbox).await;
                    let Some(offline) = &self.offline else { return };
                    let turn = offline.turn(&text).await;
                    // debug: the intent and the answer carry what the user typed.
                    debug!(session = %self.session.id, intent = ?turn.intent, jobs = turn.calls.len(), answer = %turn.sentence, "offline screen turn");
                    // Through the worker's sink, behind the turn's UI commands: the answer
                    // reaches the client after what it reports.
                    for m in crate::wire::bot_reply(&turn.sentence, outbox.legacy()) {
                        if self.sink.send(m).is_err() {
                            return;
                        }
                    }
                }
                other => NoAgentHandler.handle(other, outbox).await,
            }
        })
    }

    fn capabilities(&self) -> BotCapabilities {
        self.audio_capabilities()
    }
}

impl UiSessionHandler {
    /// `bot-ready.capabilities`: audio in when the voice agent hears (`[stt]`), audio out
    /// when it speaks (`[tts]`).
    fn audio_capabilities(&self) -> BotCapabilities {
        let (hears, speaks) = match (&self.agent, &self.agent_config) {
            (Some(agent), _) => (agent.listens(), agent.settings().tts.is_some()),
            (None, Some((config, _))) => (config.hears(), config.speaks()),
            (None, None) => (false, false),
        };
        BotCapabilities::HARK.with_audio(hears, speaks)
    }
}

impl Drop for UiSessionHandler {
    fn drop(&mut self) {
        // A job group started by a tool or app task ends with the session.
        self.session.groups.close();
        self.sink.close();
        if let Some(remote) = &self.session.remote {
            remote.close();
        }
        if let Some(sessions) = self.sessions.upgrade() {
            lock(&sessions).remove(&self.session.id);
        }
    }
}
