//! The session's reader: decodes each frame and RTVI message, refuses bad input, applies the
//! message rate and the keep-alive and `client-ready` deadlines, and drains the socket after a
//! refusal that closes it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::{Stream, StreamExt};
use hark_rtvi::SharedSnapshot;
use hark_rtvi::audio::{AudioFrameError, AudioLimits, AudioPace, InputAudio};
use hark_rtvi::message::{ClientMessage, Inbound};
use hark_rtvi::snapshot::SnapshotLimits;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::config::FLOOD_FACTOR;
use crate::messages;
use crate::sessions::events::{CloseCause, Counters};
use crate::socket::{
    CLOSE_POLICY, CLOSE_TOO_BIG, CLOSE_UNEXPECTED, CloseInfo, RawConn, RecvError, WsMessage,
};
use crate::wire::{self, Decoded};

use super::limits::SessionLimits;
use super::wait::{tick, until};

/// What the reader hands the session: a decoded message, or a refusal to send back.
///
/// Both boxed (per-session memory): the inbound queue's first 32-slot block is
/// allocated when the session starts, 16 B a slot boxed against 128 B for an inline
/// [`Inbound`].
#[derive(Debug)]
pub(crate) enum ReaderItem {
    Message(Box<Inbound>),
    /// A `ui-snapshot` (kept as its frame's JSON, the tree held until the handler had it).
    Snapshot(SharedSnapshot),
    /// Microphone audio (checked).
    Audio(Box<InputAudio>),
    Refused(Box<wire::Refusal>),
}

/// The reader's channels: decoded input to the session, a close frame and ping requests to the
/// writer.
pub(super) struct ReaderLinks {
    pub(super) in_tx: mpsc::Sender<ReaderItem>,
    pub(super) close_tx: mpsc::Sender<Box<CloseInfo>>,
    pub(super) ping_tx: mpsc::Sender<()>,
    /// The TCP connection, to drain after a refusal that closes the socket.
    pub(super) raw: Option<RawConn>,
    /// Cancelled by the writer when the client stopped reading.
    pub(super) stalled: CancellationToken,
}

/// How long the input must have been quiet, once a refused frame's announced payload is in,
/// before the drain stops.
pub(super) const DRAIN_QUIET: Duration = Duration::from_millis(250);

/// What the rate limiter says about one client message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Under the rate: handle it.
    Admit,
    /// Over the rate: drop it; `tell`: this is the first drop of an episode, send the error.
    Drop { tell: bool },
    /// Over [`FLOOD_FACTOR`] × the rate for `flood_close_after`: close the session.
    Flood,
}

/// A token bucket of client data messages (`per_sec` sustained, `burst` at
/// once) and flood detection in whole-second windows.
#[derive(Debug)]
pub(super) struct RateLimiter {
    pub(super) per_sec: f64,
    pub(super) burst: f64,
    pub(super) tokens: f64,
    pub(super) last: Instant,
    /// Messages in one second above which that second counts as flooding.
    pub(super) flood_threshold: u64,
    /// Consecutive flooding seconds that close the session (0: never).
    pub(super) flood_seconds: u64,
    pub(super) window_start: Instant,
    pub(super) window_count: u64,
    pub(super) flooding_for: u64,
    /// Inside an episode of drops: since `episode_start`, `dropped` messages, last at `last_drop`.
    pub(super) episode: Option<(Instant, u64, Instant)>,
    /// When the rate error was last sent, and the least time between two.
    pub(super) last_told: Option<Instant>,
    pub(super) tell_every: Duration,
}

impl RateLimiter {
    /// `None` when `limits` set no rate.
    pub(super) fn new(limits: &SessionLimits, now: Instant) -> Option<Self> {
        if limits.max_messages_per_sec == 0 {
            return None;
        }
        let burst = f64::from(limits.message_burst.max(1));
        let after = limits.flood_close_after;
        Some(Self {
            per_sec: f64::from(limits.max_messages_per_sec),
            burst,
            tokens: burst,
            last: now,
            flood_threshold: u64::from(limits.max_messages_per_sec) * u64::from(FLOOD_FACTOR),
            flood_seconds: after.as_secs() + u64::from(after.subsec_nanos() > 0),
            window_start: now,
            window_count: 0,
            flooding_for: 0,
            episode: None,
            last_told: None,
            tell_every: limits.error_repeat_window.max(Duration::from_secs(1)),
        })
    }

    pub(super) fn check(&mut self, now: Instant) -> Verdict {
        let since = now.saturating_duration_since(self.window_start);
        if since >= Duration::from_secs(1) {
            let whole = since.as_secs();
            // A second with no message in between ends the flood.
            self.flooding_for = if whole == 1 && self.window_count > self.flood_threshold {
                self.flooding_for + 1
            } else {
                0
            };
            self.window_start += Duration::from_secs(whole);
            self.window_count = 0;
        }
        self.window_count += 1;
        if self.flood_seconds > 0
            && self.window_count > self.flood_threshold
            && self.flooding_for + 1 >= self.flood_seconds
        {
            return Verdict::Flood;
        }
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_sec).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            // The episode ends after a second without drops (not at every refill, which under
            // a flood comes every few ms).
            if let Some((_, dropped, last_drop)) = self.episode
                && now.saturating_duration_since(last_drop) >= Duration::from_secs(1)
            {
                info!(dropped, "client back under the message rate");
                self.episode = None;
            }
            return Verdict::Admit;
        }
        let tell = match &mut self.episode {
            Some((_, dropped, last_drop)) => {
                *dropped += 1;
                *last_drop = now;
                false
            }
            None => {
                warn!(
                    per_sec = self.per_sec,
                    burst = self.burst,
                    "client over the message rate; dropping its messages (logged once per episode)"
                );
                self.episode = Some((now, 1, now));
                self.last_told
                    .is_none_or(|told| now.saturating_duration_since(told) >= self.tell_every)
            }
        };
        if tell {
            self.last_told = Some(now);
        }
        Verdict::Drop { tell }
    }

    /// Logs an episode still open when the session ends.
    pub(super) fn finish(&self) {
        if let Some((start, dropped, _)) = self.episode {
            info!(dropped, over = ?start.elapsed(), "session ended while over the message rate");
        }
    }
}

/// How the reader stopped reading on the server's initiative.
pub(super) enum Stop {
    Shutdown,
    Disconnect,
}

pub(super) async fn read_loop<R>(
    mut stream: R,
    links: ReaderLinks,
    counters: &Counters,
    shutdown: &CancellationToken,
    disconnect: &CancellationToken,
    ended: &CancellationToken,
    limits: SessionLimits,
) -> CloseCause
where
    R: Stream<Item = Result<WsMessage, RecvError>> + Unpin,
{
    let ReaderLinks {
        in_tx,
        close_tx,
        ping_tx,
        raw,
        stalled,
    } = links;
    let decode_limits = wire::DecodeLimits {
        snapshot: SnapshotLimits {
            max_nodes: limits.max_snapshot_nodes,
            max_depth: limits.max_snapshot_depth,
        },
        max_snapshot_bytes: limits.max_snapshot_bytes,
        audio: AudioLimits::default(),
    };
    // When an unusable audio frame was last reported: a bad stream sends dozens a second, the
    // client hears of it once per repeat window.
    let mut audio_told: Option<Instant> = None;
    // Microphone audio faster than real time is dropped beyond a few seconds ahead.
    let mut pace = AudioPace::default();
    // An unusable frame is counted and dropped; the client is told why once per window.
    let mut drop_audio = |e: AudioFrameError| {
        counters
            .audio_frames_dropped
            .fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        if audio_told
            .is_some_and(|told| now.saturating_duration_since(told) < limits.error_repeat_window)
        {
            debug!(%e, "audio frame dropped");
            return None;
        }
        audio_told = Some(now);
        info!(%e, "audio frame dropped; the client is told (once per repeat window)");
        Some(ReaderItem::Refused(Box::new(wire::Refusal::error(
            messages::audio_frame_dropped(&e),
        ))))
    };
    let start = Instant::now();
    let mut rate = RateLimiter::new(&limits, start);
    // A client that never sends client-ready, or stops answering pings (gone, or stuck
    // in the middle of a frame), is closed instead of held open forever.
    let mut ready_deadline = Some(start + limits.client_ready_timeout);
    let mut pong_deadline: Option<Instant> = None;
    let mut ticker = (!limits.ping_interval.is_zero()).then(|| {
        let mut ticker =
            tokio::time::interval_at(start + limits.ping_interval, limits.ping_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker
    });
    let close = |code: u16, reason: String| {
        let _ = close_tx.try_send(Box::new(CloseInfo { code, reason }));
    };
    // After a refusal that closes the socket: the close frame is on its way (the writer sends
    // it); read and discard what the client still sends so it gets to read that frame.
    let drain = |expect: usize| {
        let raw = raw.clone();
        async move {
            if let Some(raw) = raw {
                let discarded = raw
                    .discard_input(expect, DRAIN_QUIET, limits.close_grace)
                    .await;
                debug!(discarded, "input after the close frame discarded");
            }
        }
    };
    // One write moved no byte for the stalled-write window (see `write_loop`).
    let stalled_cause = || CloseCause::PongTimeout {
        after: limits.stalled_write_window().unwrap_or_default(),
    };
    let stop = 'read: loop {
        let next = tokio::select! {
            biased;
            () = shutdown.cancelled() => break Stop::Shutdown,
            () = disconnect.cancelled() => break Stop::Disconnect,
            () = stalled.cancelled() => {
                if let Some(rate) = &rate { rate.finish(); }
                return stalled_cause();
            }
            () = until(ready_deadline) => {
                let after = limits.client_ready_timeout;
                warn!(?after, "no client-ready in time; closing with 1008");
                close(CLOSE_POLICY, messages::client_ready_timeout(after));
                return CloseCause::ClientReadyTimeout { after };
            }
            () = tick(&mut ticker) => {
                // The deadline runs from when the ping was due, so a writer stuck on a client
                // that does not read is caught too.
                pong_deadline.get_or_insert_with(|| Instant::now() + limits.pong_timeout);
                let _ = ping_tx.try_send(());
                continue;
            }
            next = stream.next() => next,
            // After the stream: a pong already buffered wins over an expired deadline.
            () = until(pong_deadline) => {
                let after = limits.pong_timeout;
                warn!(?after, "no pong to a keep-alive ping in time; closing with 1011");
                close(CLOSE_UNEXPECTED, messages::pong_timeout(after));
                return CloseCause::PongTimeout { after };
            }
        };
        let Some(next) = next else {
            if let Some(rate) = &rate {
                rate.finish();
            }
            return CloseCause::ClientGone;
        };
        counters.frames_received.fetch_add(1, Ordering::Relaxed);
        // The message rate is checked before anything is decoded.
        let mut over_rate = None;
        if matches!(next, Ok(WsMessage::Binary(_) | WsMessage::Text(_)))
            && let Some(limiter) = &mut rate
        {
            match limiter.check(Instant::now()) {
                Verdict::Admit => {}
                Verdict::Drop { tell } => {
                    counters
                        .messages_rate_limited
                        .fetch_add(1, Ordering::Relaxed);
                    if !tell {
                        continue;
                    }
                    over_rate = Some(ReaderItem::Refused(Box::new(wire::Refusal::error(
                        messages::message_rate_exceeded(
                            limits.max_messages_per_sec,
                            limits.message_burst,
                        ),
                    ))));
                }
                Verdict::Flood => {
                    counters
                        .messages_rate_limited
                        .fetch_add(1, Ordering::Relaxed);
                    let after = limits.flood_close_after;
                    warn!(
                        ?after,
                        per_sec = limits.max_messages_per_sec,
                        factor = FLOOD_FACTOR,
                        "message flood; closing with 1008"
                    );
                    limiter.finish();
                    close(
                        CLOSE_POLICY,
                        messages::message_flood(limits.max_messages_per_sec, FLOOD_FACTOR, after),
                    );
                    drain(0).await;
                    return CloseCause::MessageFlood {
                        per_sec: limits.max_messages_per_sec,
                        after,
                    };
                }
            }
        }
        let item = match over_rate {
            Some(item) => item,
            None => match next {
                Ok(WsMessage::Binary(bytes)) => match wire::decode(&bytes, &decode_limits) {
                    Ok(Some(Decoded::Message(inbound))) => {
                        if matches!(inbound.message, ClientMessage::ClientReady(_)) {
                            ready_deadline = None;
                        }
                        ReaderItem::Message(Box::new(inbound))
                    }
                    Ok(Some(Decoded::Snapshot { snapshot, .. })) => ReaderItem::Snapshot(snapshot),
                    Ok(Some(Decoded::Audio(audio))) => {
                        match pace.admit(&audio, Instant::now().into_std()) {
                            Ok(()) => ReaderItem::Audio(Box::new(audio)),
                            Err(e) => match drop_audio(e) {
                                Some(item) => item,
                                None => continue,
                            },
                        }
                    }
                    Ok(Some(Decoded::BadAudio(e))) => match drop_audio(e) {
                        Some(item) => item,
                        None => continue,
                    },
                    Ok(None) => continue,
                    Err(refusal) => ReaderItem::Refused(Box::new(refusal)),
                },
                Ok(WsMessage::Text(_)) => ReaderItem::Refused(Box::new(wire::Refusal::error(
                    messages::text_frame_refused(),
                ))),
                Ok(WsMessage::Pong(_)) => {
                    pong_deadline = None;
                    continue;
                }
                Ok(WsMessage::Ping(_)) => continue,
                Ok(WsMessage::Close(_)) => return CloseCause::ClientGone,
                Err(RecvError::TooLarge { size, limit }) => {
                    warn!(size, limit, "frame over the limit; closing with 1009");
                    close(CLOSE_TOO_BIG, messages::frame_too_large(limit));
                    drain(size).await;
                    return CloseCause::FrameTooLarge { size, limit };
                }
                Err(RecvError::Other(err)) => {
                    debug!(%err, "socket ended");
                    return CloseCause::ClientGone;
                }
            },
        };
        // Waits while the session is behind: this is what bounds memory under a flood. The
        // keep-alive still runs meanwhile; a writer stuck on a client that does not read ends
        // the session (`stalled`).
        let permit = loop {
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break 'read Stop::Shutdown,
                () = disconnect.cancelled() => break 'read Stop::Disconnect,
                () = stalled.cancelled() => return stalled_cause(),
                permit = in_tx.reserve() => break permit,
                () = tick(&mut ticker) => {
                    pong_deadline.get_or_insert_with(|| Instant::now() + limits.pong_timeout);
                    let _ = ping_tx.try_send(());
                }
            }
        };
        let Ok(permit) = permit else {
            return CloseCause::ClientGone;
        };
        permit.send(item);
        Counters::note_depth(
            &counters.inbound_high_water,
            in_tx.max_capacity() - in_tx.capacity(),
        );
    };
    if let Some(rate) = &rate {
        rate.finish();
    }
    // Shutdown or disconnect: the writer sends the close frame; read on (discarding) until the
    // client's answer, so the closing handshake completes, but no longer than the grace period.
    drop(in_tx);
    let _ = tokio::time::timeout(limits.close_grace, async {
        while let Some(Ok(m)) = stream.next().await {
            if matches!(m, WsMessage::Close(_)) {
                break;
            }
        }
    })
    .await;
    match stop {
        Stop::Shutdown => CloseCause::Shutdown,
        Stop::Disconnect if ended.is_cancelled() => CloseCause::CallEnded,
        Stop::Disconnect => CloseCause::ClientDisconnected,
    }
}
