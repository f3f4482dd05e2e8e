//! One RTVI session: the connection loop (reader → session → writer) and the handler seam.
//!
//! A connection runs three stages joined in one task, linked by bounded queues:
//!
//! ```text
//! socket Stream ─► reader ─(inbound queue)─► session ─(outbound queue)─► writer ─► socket Sink
//!                  decode frame + RTVI        handshake, registry,         encode frame
//!                  refuse bad input           SessionHandler
//! ```
//!
//! When a queue is full the stage feeding it waits; the reader then stops reading and TCP
//! pushes back on the client, so memory per session stays bounded (case P3). The loop is
//! written against a generic `Stream`/`Sink` of [`WsMessage`] so tests drive it with channels.
//!
//! The files, each importing only those above it: `outbox` (the outbound queue), `limits`,
//! `wait`, `handler` (the seam), `reader`, `writer`, and this module (the connection
//! loop, the handshake and the session's own duties).

mod handler;
mod limits;
pub(crate) mod outbox;
pub(crate) mod reader;
mod wait;
mod writer;

pub use handler::{HandlerFactory, NoAgentHandler, SessionHandler, SessionInput};
pub use limits::SessionLimits;
pub use outbox::{HandlerLimits, Outbound, Outbox, Outgoing, SendError};
pub(crate) use reader::ReaderItem;
use reader::{ReaderLinks, read_loop};
use writer::{WriterLinks, write_loop};

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::{Sink, Stream};
use hark_rtvi::SharedSnapshot;
use hark_rtvi::audio::InputAudio;
use hark_rtvi::message::{BotCapabilities, ClientMessage, Inbound};
use hark_rtvi::version::check_client_version;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::messages;
use crate::sessions::{CloseCause, Counters, SessionEventKind, SessionId, Sessions};
use crate::socket::{CloseInfo, RawConn, RecvError, WsMessage};
use crate::wire;

/// The `about.library` the server reports in `bot-ready`.
pub const LIBRARY: &str = "hark";

/// Everything [`run_connection`] needs besides the socket.
#[derive(Debug)]
pub struct ConnectionSetup {
    /// The session's id (from the registry).
    pub id: SessionId,
    /// The registry the session registers in and publishes events to.
    pub sessions: Sessions,
    /// The session's logic.
    pub handler: Box<dyn SessionHandler>,
    /// Queue bounds and frame limit.
    pub limits: SessionLimits,
    /// Cancelled at server shutdown: the session sends close 1001 and ends.
    pub shutdown: CancellationToken,
    /// The TCP connection under the socket, when there is one: after the server refuses the
    /// client's input (an oversize frame, a message flood) and sends its close frame, what the
    /// client still sends is read and discarded, so the client reads the close frame instead of
    /// a connection reset. Its byte count also tells a client that reads slowly from one that
    /// stopped reading (a write then moves no byte for
    /// [`SessionLimits::stalled_write_window`]: 1011).
    /// `None` (channel-driven tests): not drained, and one write may wait that long in all.
    pub raw: Option<RawConn>,
}

/// Runs one session over a socket until the client leaves or sends `disconnect-bot`, the
/// client breaks a limit or a deadline (frame size, `client-ready`, keep-alive pong), or
/// `setup.shutdown` fires. Registers the session in `setup.sessions` for its lifetime and
/// publishes its events. Never panics on client input.
pub async fn run_connection<W, R>(sink: W, stream: R, setup: ConnectionSetup) -> CloseCause
where
    W: Sink<WsMessage> + Unpin,
    W::Error: fmt::Display,
    R: Stream<Item = Result<WsMessage, RecvError>> + Unpin,
{
    let ConnectionSetup {
        id,
        sessions,
        handler,
        limits,
        shutdown,
        raw,
    } = setup;
    let counters = Arc::new(Counters::default());
    let (in_tx, in_rx) = mpsc::channel::<ReaderItem>(limits.inbound_queue);
    let (out_tx, out_rx) = mpsc::channel::<Outbound>(limits.outbound_queue);
    let (close_tx, close_rx) = mpsc::channel::<Box<CloseInfo>>(1);
    let (ping_tx, ping_rx) = mpsc::channel::<()>(1);
    let ended = CancellationToken::new();
    let outbox = Outbox {
        session: id,
        tx: out_tx,
        counters: counters.clone(),
        legacy: Arc::default(),
        ended: ended.clone(),
        policy: limits.handler,
    };
    // Cancelled by the writer when one write to the client moved no byte for the stalled-write
    // window: the client does not read, the session ends.
    let stalled = CancellationToken::new();
    sessions.register(
        id,
        outbox.clone(),
        in_tx.downgrade(),
        limits.inbound_queue,
        counters.clone(),
    );
    let session_done = CancellationToken::new();
    // Cancelled by the session after `disconnect-bot`: the reader stops, the writer closes
    // with 1000 once the queued answers are out.
    let disconnect = CancellationToken::new();

    let reader = read_loop(
        stream,
        ReaderLinks {
            in_tx,
            close_tx,
            ping_tx,
            raw: raw.clone(),
            stalled: stalled.clone(),
        },
        &counters,
        &shutdown,
        &disconnect,
        &ended,
        limits,
    );
    let session = async {
        session_loop(
            id,
            &sessions,
            handler,
            in_rx,
            outbox,
            &shutdown,
            &disconnect,
        )
        .await;
        session_done.cancel();
    };
    let writer = write_loop(
        sink,
        WriterLinks {
            out_rx,
            close_rx,
            ping_rx,
            ended: ended.clone(),
            stalled,
            progress: raw,
        },
        &counters,
        &shutdown,
        &session_done,
        &disconnect,
        limits,
    );
    let (cause, (), ()) = tokio::join!(reader, session, writer);
    sessions.unregister(id, cause.clone());
    cause
}

async fn session_loop(
    id: SessionId,
    sessions: &Sessions,
    mut handler: Box<dyn SessionHandler>,
    mut in_rx: mpsc::Receiver<ReaderItem>,
    outbox: Outbox,
    shutdown: &CancellationToken,
    disconnect: &CancellationToken,
) {
    let ended = outbox.ended.clone();
    loop {
        let item = tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            () = ended.cancelled() => {
                // The bot ended the call: the writer sends what is queued, then closes.
                disconnect.cancel();
                return;
            }
            item = in_rx.recv() => item,
        };
        let Some(item) = item else { return };
        let input = match item {
            ReaderItem::Refused(refusal) => {
                info!(error = %refusal.text, "input refused");
                sessions.publish(
                    id,
                    SessionEventKind::Refused {
                        error: refusal.text.clone(),
                    },
                );
                if send_refusal(&outbox, *refusal).await.is_err() {
                    return;
                }
                continue;
            }
            ReaderItem::Audio(audio) => {
                let InputAudio {
                    samples,
                    sample_rate,
                } = *audio;
                SessionInput::Audio(hark_voice::AudioChunk::new(samples, sample_rate))
            }
            ReaderItem::Snapshot(snapshot) => accept_snapshot(id, sessions, snapshot),
            ReaderItem::Message(inbound) => {
                let capabilities = handler.capabilities();
                match accept(id, sessions, &outbox, *inbound, capabilities).await {
                    Ok(Some(input)) => input,
                    Ok(None) => continue,
                    Err(SendError { .. }) => return,
                }
            }
        };
        let last = matches!(input, SessionInput::Disconnect);
        // A snapshot's tree, decoded on arrival, is let go once the handler has had it: the
        // session and its holders keep the text (memory per idle session).
        let arrived = match &input {
            SessionInput::Snapshot(snapshot) => Some(snapshot.clone()),
            _ => None,
        };
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            () = ended.cancelled() => {
                disconnect.cancel();
                return;
            }
            () = handler.handle(input, &outbox) => {}
        }
        if let Some(snapshot) = arrived {
            snapshot.release_tree();
        }
        if last {
            // The handler was told; inputs after disconnect-bot are not served.
            disconnect.cancel();
            return;
        }
    }
}

async fn send_refusal(outbox: &Outbox, refusal: wire::Refusal) -> Result<(), SendError> {
    match refusal.id {
        Some(id) => {
            outbox
                .respond(Some(id), wire::error_response(&refusal.text))
                .await
        }
        None => outbox.send(wire::error(&refusal.text)).await,
    }
}

/// Applies the session's own duties for one message (handshake, registry, events) and turns
/// it into the handler's input.
async fn accept(
    id: SessionId,
    sessions: &Sessions,
    outbox: &Outbox,
    inbound: Inbound,
    capabilities: BotCapabilities,
) -> Result<Option<SessionInput>, SendError> {
    let request_id = inbound.id.clone();
    let type_name = inbound.message.type_name();
    Ok(Some(match inbound.message {
        ClientMessage::ClientReady(ready) => {
            let check = check_client_version(ready.version.as_deref());
            outbox.legacy.store(check.is_legacy(), Ordering::Relaxed);

            if let Some(warning) = check.warning() {
                warn!(client_version = ?ready.version, "{warning}");
                outbox
                    .respond(request_id.clone(), wire::error_response(warning))
                    .await?;
            }
            outbox
                .respond(request_id, wire::bot_ready(&check, capabilities))
                .await?;
            let library = ready
                .about
                .as_ref()
                .and_then(|about| about.get("library"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            info!(client_version = ?ready.version, library = ?library, "bot-ready sent");
            sessions.publish(
                id,
                SessionEventKind::Ready {
                    client_version: ready.version.clone(),
                    client_library: library,
                },
            );
            SessionInput::Ready { version: check }
        }
        ClientMessage::SendText(send) => {
            sessions.publish(id, SessionEventKind::UserText(send.content.clone()));
            SessionInput::UserText { text: send.content }
        }
        ClientMessage::ClientMessage(m) => {
            sessions.publish(id, SessionEventKind::ClientMessage { t: m.t.clone() });
            SessionInput::ClientMessage {
                request_id,
                t: m.t,
                d: m.d,
            }
        }
        ClientMessage::UiSnapshot(snapshot) => accept_snapshot(id, sessions, snapshot.into()),
        ClientMessage::UiEvent(event) => {
            debug!(event = %event.event, "ui-event");
            sessions.publish(id, SessionEventKind::UiEvent(event.clone()));
            SessionInput::UiEvent(event)
        }
        ClientMessage::UiCancelJobGroup(cancel) => {
            debug!(job_id = %cancel.job_id, "ui-cancel-job-group");
            sessions.publish(id, SessionEventKind::CancelJobGroup(cancel.clone()));
            SessionInput::CancelJobGroup { request_id, cancel }
        }
        ClientMessage::DisconnectBot => {
            info!("disconnect-bot: the client ends the session");
            SessionInput::Disconnect
        }
        ClientMessage::Dtmf(dtmf) => {
            let keys = dtmf.keys();
            // Keys can be a PIN or card digits: their count is logged, never the keys.
            debug!(keys = keys.len(), "dtmf");
            let text = messages::dtmf_user_text(&keys);
            sessions.publish(id, SessionEventKind::UserText(text.clone()));
            SessionInput::UserText { text }
        }
        ClientMessage::LlmFunctionCallResult(_) => {
            debug!("llm-function-call-result refused: no client-side functions");
            let text = messages::function_call_result_unsupported();
            outbox
                .respond(request_id, wire::error_response(&text))
                .await?;
            return Ok(None);
        }
        ClientMessage::RawAudio(_) | ClientMessage::RawAudioBatch(_) => {
            debug!(type_name, "audio refused: audio comes in binary frames");
            let text = messages::audio_unsupported(type_name);
            outbox
                .respond(request_id, wire::error_response(&text))
                .await?;
            return Ok(None);
        }
    }))
}

/// A `ui-snapshot`: stored as the session's latest, published, and handed to the handler.
fn accept_snapshot(id: SessionId, sessions: &Sessions, snapshot: SharedSnapshot) -> SessionInput {
    // At debug, as ui-event: a client sends several a second, and the count walks the tree
    // (evaluated only when the line is on).
    debug!(
        nodes = snapshot.tree().root.count(),
        captured_at = snapshot.captured_at(),
        "ui-snapshot"
    );
    sessions.store_snapshot(id, snapshot.clone());
    sessions.publish(id, SessionEventKind::Snapshot(snapshot.clone()));
    SessionInput::Snapshot(snapshot)
}

#[cfg(test)]
mod tests;
