//! The handler seam: the typed [`SessionInput`]s a [`SessionHandler`] is handed, the
//! [`HandlerFactory`] that makes one per session, and the built-in [`NoAgentHandler`].

use std::fmt;

use futures::future::BoxFuture;
use hark_rtvi::SharedSnapshot;
use hark_rtvi::message::BotCapabilities;
use hark_rtvi::ui::{UiCancelJobGroup, UiEvent};
use hark_rtvi::version::VersionCheck;

use crate::messages;
use crate::sessions::id::SessionId;
use crate::wire;

use super::outbox::Outbox;

/// What a [`SessionHandler`] is handed, one input at a time, in the order the client sent them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SessionInput {
    /// The handshake finished: `bot-ready` was sent.
    Ready {
        /// Outcome of the client's version check (legacy clients get v1 `bot-output`).
        version: VersionCheck,
    },
    /// A `send-text`, or a `dtmf` written as [`crate::messages::dtmf_user_text`]
    /// (`DTMF: 12#`): a user turn.
    UserText {
        /// `data.content` (for a `dtmf`: `DTMF: ` and its keys).
        text: String,
    },
    /// A `client-message` to answer with `server-response` or `error-response` (with
    /// [`Outbox::respond`] and `request_id`).
    ClientMessage {
        /// The request's `id`, to put on the answer.
        request_id: Option<String>,
        /// `data.t`, the message type.
        t: String,
        /// `data.d`, the payload (`None` when absent), its numbers as sent (a `ping` echo
        /// writes them back unchanged).
        d: Option<hark_rtvi::Payload>,
    },
    /// A `ui-snapshot`, already stored as the session's latest. Its tree
    /// ([`SharedSnapshot::tree`]) is held for the handler; once [`SessionHandler::handle`]
    /// returns, the session lets it go and the snapshot is kept as its JSON
    /// ([`SharedSnapshot::release_tree`]), decoded again when read.
    Snapshot(SharedSnapshot),
    /// A `ui-event`.
    UiEvent(UiEvent),
    /// A `ui-cancel-job-group`. A cancel the handler cannot honour (unknown or not
    /// cancellable group) is answered with an `error-response` carrying `request_id`.
    CancelJobGroup {
        /// The request's `id`, to put on an `error-response`.
        request_id: Option<String>,
        /// `data`: the group and the reason.
        cancel: UiCancelJobGroup,
    },
    /// Microphone audio: one checked `AudioRawFrame`'s samples (PCM16 mono at its rate).
    Audio(hark_voice::AudioChunk),
    /// A `disconnect-bot`: the client ends the session (as Pipecat does). After this input the
    /// session sends what is queued, closes with 1000 "Client asked to disconnect" and ends
    /// with [`CloseCause::ClientDisconnected`](crate::CloseCause::ClientDisconnected).
    Disconnect,
}

/// The per-session logic plugged into the connection loop: an agent, a UI
/// worker, or the built-in [`NoAgentHandler`].
///
/// The session awaits each `handle` before taking the next input, so a slow handler slows the
/// reader (bounded memory) but never reorders inputs. The future is dropped at shutdown or when
/// the client leaves; work that must outlive one input belongs in a task the handler owns.
pub trait SessionHandler: Send + 'static {
    /// Handles one input; answers go through `outbox`.
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()>;

    /// What the session does, for `bot-ready.capabilities` (default: text only,
    /// [`BotCapabilities::HARK`]).
    fn capabilities(&self) -> BotCapabilities {
        BotCapabilities::HARK
    }
}

/// Makes the handler of each new session.
pub trait HandlerFactory: Send + Sync + 'static {
    /// A handler for the session `session`.
    fn create(&self, session: SessionId) -> Box<dyn SessionHandler>;
}

impl<F> HandlerFactory for F
where
    F: Fn(SessionId) -> Box<dyn SessionHandler> + Send + Sync + 'static,
{
    fn create(&self, session: SessionId) -> Box<dyn SessionHandler> {
        self(session)
    }
}

impl fmt::Debug for dyn HandlerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HandlerFactory")
    }
}

/// The handler used until an agent exists: a text turn gets [`messages::no_agent_reply`] as one
/// bot reply; a `client-message` of type `ping` gets `server-response {t: "ping", d}` (its `d`
/// echoed), any other type an `error-response`; a `ui-cancel-job-group` gets an
/// `error-response` ([`messages::cancel_unknown_group`]: no job group runs without a UI worker);
/// audio is dropped with an `error` ([`messages::audio_not_heard`], once per repeat window).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAgentHandler;

impl SessionHandler for NoAgentHandler {
    fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A send fails only when the client is gone; nothing is left to do then.
            match input {
                SessionInput::UserText { .. } => {
                    for m in wire::bot_reply(&messages::no_agent_reply(), outbox.legacy()) {
                        if outbox.send(m).await.is_err() {
                            return;
                        }
                    }
                }
                SessionInput::ClientMessage { request_id, t, d } => {
                    let answer = if t == "ping" {
                        wire::server_response(&t, d)
                    } else {
                        wire::error_response(&messages::unhandled_client_message(&t))
                    };
                    let _ = outbox.respond(request_id, answer).await;
                }
                SessionInput::CancelJobGroup { request_id, cancel } => {
                    let text = messages::cancel_unknown_group(&cancel.job_id);
                    let _ = outbox
                        .respond(request_id, wire::error_response(&text))
                        .await;
                }
                SessionInput::Audio(_) => {
                    // The outbox sends one identical error per repeat window.
                    let _ = outbox.send(wire::error(&messages::audio_not_heard())).await;
                }
                _ => {}
            }
        })
    }
}

impl fmt::Debug for dyn SessionHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionHandler")
    }
}
