//! The session's writer: encodes each outgoing message as a frame, sends keep-alive pings and
//! the close frame, holds back repeated error texts ([`ErrorDamper`]) and ends a session whose
//! client stopped reading ([`StallWatch`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::body::Bytes;
use futures::{Sink, SinkExt};
use hark_rtvi::message::ServerMessage;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::messages;
use crate::sessions::events::Counters;
use crate::socket::{
    CLOSE_GOING_AWAY, CLOSE_NORMAL, CLOSE_UNEXPECTED, CloseInfo, RawConn, WsMessage,
};
use crate::wire;

use super::limits::SessionLimits;
use super::outbox::Outbound;
use super::wait::until;

/// The writer's channels: answers from the session, a close frame and ping requests from the
/// reader.
pub(super) struct WriterLinks {
    pub(super) out_rx: mpsc::Receiver<Outbound>,
    pub(super) close_rx: mpsc::Receiver<Box<CloseInfo>>,
    pub(super) ping_rx: mpsc::Receiver<()>,
    /// Cancelled when the bot ended the call ([`Outbox::end_session`]).
    pub(super) ended: CancellationToken,
    /// Cancelled here when one write made no progress for
    /// [`SessionLimits::stalled_write_window`] (the client does not read); the reader then ends
    /// the session.
    pub(super) stalled: CancellationToken,
    /// The connection's byte count ([`RawConn::bytes_written`]): a write that is slow but
    /// moves bytes is waited for. Without it (sessions over channels), a write is allowed the
    /// stalled-write window in all.
    pub(super) progress: Option<RawConn>,
}

/// Most distinct error texts remembered per session by [`ErrorDamper`].
pub(super) const DAMPER_TEXTS: usize = 64;

/// Sends an `error` text to one session at most once per window (the first always goes out),
/// so a client that answers each error with new input that is refused again cannot make a loop
/// of refusals. Counts and logs what it holds back. An `error-response` is never held back: it
/// answers one request by its id, and a client awaiting that id (client-js's
/// `sendClientRequest`) would wait for nothing; the message-rate limit bounds a flood of them.
#[derive(Debug)]
pub(super) struct ErrorDamper {
    pub(super) window: Duration,
    /// Per text: when it was last sent, and how many identical ones were held back since.
    pub(super) seen: HashMap<String, (Instant, u64)>,
}

impl ErrorDamper {
    pub(super) fn new(window: Duration) -> Self {
        Self {
            window,
            seen: HashMap::new(),
        }
    }

    /// Whether `message` may be sent at `now`.
    pub(super) fn admit(&mut self, message: &ServerMessage, now: Instant) -> bool {
        let text = match message {
            ServerMessage::Error { error, .. } => error,
            _ => return true,
        };
        if self.window.is_zero() {
            return true;
        }
        if let Some((sent, held)) = self.seen.get_mut(text) {
            if now.duration_since(*sent) < self.window {
                *held += 1;
                debug!(error = %text, "identical error within the repeat window; not sent");
                return false;
            }
            if *held > 0 {
                info!(error = %text, suppressed = *held, window = ?self.window,
                      "identical errors were not sent within the repeat window");
            }
            *sent = now;
            *held = 0;
            return true;
        }
        if self.seen.len() >= DAMPER_TEXTS {
            let window = self.window;
            self.seen.retain(|text, (sent, held)| {
                let keep = now.duration_since(*sent) < window;
                if !keep && *held > 0 {
                    info!(error = %text, suppressed = *held, "identical errors were not sent within the repeat window");
                }
                keep
            });
            if self.seen.len() >= DAMPER_TEXTS
                && let Some(oldest) = self
                    .seen
                    .iter()
                    .min_by_key(|(_, (sent, _))| *sent)
                    .map(|(text, _)| text.clone())
            {
                self.seen.remove(&oldest);
            }
        }
        self.seen.insert(text.clone(), (now, 0));
        true
    }

    /// Logs the counts still held at the end of the session.
    pub(super) fn finish(&self) {
        for (text, (_, held)) in &self.seen {
            if *held > 0 {
                info!(error = %text, suppressed = *held, "identical errors were not sent within the repeat window");
            }
        }
    }
}

pub(super) async fn write_loop<W>(
    mut sink: W,
    links: WriterLinks,
    counters: &Counters,
    shutdown: &CancellationToken,
    session_done: &CancellationToken,
    disconnect: &CancellationToken,
    limits: SessionLimits,
) where
    W: Sink<WsMessage> + Unpin,
    W::Error: fmt::Display,
{
    let WriterLinks {
        mut out_rx,
        mut close_rx,
        mut ping_rx,
        ended,
        stalled,
        progress,
    } = links;
    // A client that does not read: one write during which not a single byte went out for as
    // long as the keep-alive gives a peer (a ping interval, then the pong timeout; with pings
    // off, the default interval stands in) ends the session. A client that
    // reads slowly moves bytes and is waited for.
    let write_timeout = limits.stalled_write_window();
    let written = || progress.as_ref().map(RawConn::bytes_written);
    let mut damper = ErrorDamper::new(limits.error_repeat_window);
    let close = loop {
        let frame = tokio::select! {
            biased;
            Some(close) = close_rx.recv() => break Some(*close),
            () = shutdown.cancelled() => break Some(going_away()),
            Some(()) = ping_rx.recv() => WsMessage::Ping(Bytes::new()),
            // Answers already queued still go out after the session ends.
            out = out_rx.recv() => match out {
                Some(Outbound::Rtvi(out)) => {
                    if !damper.admit(&out.message, Instant::now()) {
                        counters.errors_suppressed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    WsMessage::Binary(wire::encode(out).into())
                }
                Some(Outbound::Audio(frame)) => WsMessage::Binary(Vec::from(frame).into()),
                None => break None,
            },
            () = session_done.cancelled() => break None,
        };
        let is_data = matches!(frame, WsMessage::Binary(_));
        let send = sink.send(frame);
        tokio::pin!(send);
        let mut watch = StallWatch::new(write_timeout, written(), Instant::now());
        let sent = loop {
            tokio::select! {
                biased;
                Some(close) = close_rx.recv() => break Err(Some(*close)),
                () = shutdown.cancelled() => break Err(Some(going_away())),
                sent = &mut send => break Ok(sent),
                () = until(watch.next_look()) => {
                    // Bytes that went out since the last look: the client reads, slowly.
                    let Some(after) = watch.look(written(), Instant::now()) else {
                        continue;
                    };
                    warn!(?after, "the client does not read: no byte went out for too long; closing with 1011");
                    stalled.cancel();
                    break Err(Some(CloseInfo { code: CLOSE_UNEXPECTED, reason: messages::client_not_reading(after) }));
                }
            }
        };
        let sent = match sent {
            Ok(sent) => sent,
            Err(close) => break close,
        };
        match sent {
            Ok(()) => {
                if is_data {
                    counters.messages_sent.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(err) => {
                debug!(%err, "socket write failed");
                damper.finish();
                return;
            }
        }
    };
    damper.finish();
    // After disconnect-bot (or the bot ending the call), the queue is drained: close with 1000.
    let close = close.or_else(|| {
        disconnect.is_cancelled().then(|| CloseInfo {
            code: CLOSE_NORMAL,
            reason: if ended.is_cancelled() {
                messages::call_ended()
            } else {
                messages::client_disconnected()
            },
        })
    });
    // Our close frame (limit, deadline, shutdown, disconnect), then a flush that also sends the
    // WebSocket library's answer to a close frame from the client.
    let _ = tokio::time::timeout(limits.close_grace, async {
        if let Some(close) = close {
            let _ = sink.send(WsMessage::Close(Some(close))).await;
        }
        let _ = sink.close().await;
    })
    .await;
}

/// How often, per stalled-write window, a waiting write looks at the connection's byte count.
pub(super) const STALL_LOOKS_PER_WINDOW: u32 = 8;

/// Tells a write that moves no byte for the stalled-write window
/// ([`SessionLimits::stalled_write_window`]) from one that moves bytes slowly: it looks at the
/// connection's byte count every eighth of the window (at least every millisecond), so a stalled
/// write is caught between one window and one window and an eighth after its last byte went
/// out, not up to two windows later. No window: it never looks.
#[derive(Debug)]
pub(super) struct StallWatch {
    pub(super) window: Option<Duration>,
    /// The byte count at the last look (`None`: no byte count, a session over channels).
    pub(super) mark: Option<u64>,
    /// When bytes were last seen moving (or the write began).
    pub(super) last_progress: Instant,
    /// When to look next; `None`: never.
    pub(super) next: Option<Instant>,
}

impl StallWatch {
    pub(super) fn new(window: Option<Duration>, written: Option<u64>, now: Instant) -> Self {
        let mut watch = Self {
            window,
            mark: written,
            last_progress: now,
            next: None,
        };
        watch.next = watch.schedule(now);
        watch
    }

    pub(super) fn schedule(&self, now: Instant) -> Option<Instant> {
        let window = self.window?;
        let end = self.last_progress.checked_add(window)?;
        let step = (window / STALL_LOOKS_PER_WINDOW).max(Duration::from_millis(1));
        Some(now.checked_add(step).map_or(end, |look| look.min(end)))
    }

    /// When the next look is due.
    pub(super) fn next_look(&self) -> Option<Instant> {
        self.next
    }

    /// A look at `written` bytes at `now`: `Some(window)` when no byte moved for the whole
    /// window (the write is stalled), else `None` and the next look is scheduled.
    pub(super) fn look(&mut self, written: Option<u64>, now: Instant) -> Option<Duration> {
        let window = self.window?;
        if written != self.mark {
            self.mark = written;
            self.last_progress = now;
        }
        if now.saturating_duration_since(self.last_progress) >= window {
            return Some(window);
        }
        self.next = self.schedule(now);
        None
    }
}

pub(super) fn going_away() -> CloseInfo {
    CloseInfo {
        code: CLOSE_GOING_AWAY,
        reason: messages::shutting_down(),
    }
}
