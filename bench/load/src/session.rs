//! One client session: connect, the RTVI handshake as Pipecat's JS client does it
//! (`client-ready` → `bot-ready`, every message a binary pipecat.Frame), one snapshot, then —
//! once the run starts — a snapshot every `snapshot_every` and a text turn every `turn_every`
//! (±50 %), measuring each turn.
//!
//! Turns alternate between two kinds (the first kind is chosen per session):
//! - **click**: a fresh snapshot (generation `g`), then at once `send-text` "click `<name>`" for a
//!   random "Add … to cart" button of it. Measured: snapshot → command, from the snapshot's send
//!   until the `ui-command` whose `payload.ref` is that button's ref in generation `g` arrives.
//!   A ref from a later generation counts as right but late, from an earlier one as stale, of
//!   another element as wrong.
//! - **text**: `send-text` "what do you sell?". Measured: text → first bot text, from the send
//!   until the first `bot-llm-text` or `bot-output`, whichever comes first.
//!
//! A turn is sent only when the previous one was answered or timed out, so each answer belongs
//! to exactly one turn.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior, sleep_until};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Bytes, Message};

use crate::snapshot::{GENERATIONS, Page, decode_ref};
use crate::stats::Counts;
use crate::wire::{self, Head};

/// The client's WebSocket read buffer, in bytes. tungstenite's default is 128 KiB, and it
/// zero-fills the whole buffer on every read attempt (`FrameCodec::read_in`), which was a fifth
/// of the generator's CPU at 500 sessions; server messages are small (a frame larger than the
/// buffer still arrives whole: the buffer grows for it). Nothing on the wire changes.
pub const READ_BUFFER_BYTES: usize = 4 * 1024;

/// The text of a click turn for the button named `name`.
fn click_text(name: &str) -> String {
    format!("click {name}")
}

/// The text of a text turn.
pub const TEXT_TURN: &str = "what do you sell?";

/// What every session shares.
#[derive(Debug)]
pub struct Plan {
    /// `ws://host:port/ws`.
    pub url: String,
    /// Every snapshot generation, pre-encoded.
    pub pages: Vec<Page>,
    /// Interval between snapshots.
    pub snapshot_every: Duration,
    /// Mean interval between turns.
    pub turn_every: Duration,
    /// Longest wait for a turn's answer.
    pub turn_timeout: Duration,
    /// Longest wait for connect and for `bot-ready`.
    pub connect_timeout: Duration,
    /// Sessions that finished the handshake (before their first snapshot).
    pub handshaken: AtomicUsize,
    /// Sessions that finished the handshake and sent their first snapshot.
    pub idle: AtomicUsize,
    /// Sessions that gave up before the run (connect or handshake failed).
    pub failed: AtomicUsize,
}

/// What one session measured: latencies in microseconds and its counts.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Snapshot → command latencies (µs) of right commands (turn's or a later snapshot).
    pub snapshot_to_command: Vec<u64>,
    /// Text → first bot text latencies (µs).
    pub text_to_first_text: Vec<u64>,
    /// Counts.
    pub counts: Counts,
    /// The first server `error` text seen, if any.
    pub first_error: Option<String>,
    /// Up to two timed-out turns: what the turn asked and every message the server sent while
    /// it waited.
    pub timeout_samples: Vec<String>,
}

/// A tiny xorshift generator (per session; no need for a crate).
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The turn a session waits on.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Click {
        generation: u32,
        element: u32,
        sent: Instant,
    },
    Text {
        sent: Instant,
    },
}

impl Pending {
    fn sent(&self) -> Instant {
        match *self {
            Pending::Click { sent, .. } | Pending::Text { sent } => sent,
        }
    }
}

fn frame(json: &str) -> Message {
    Message::Binary(hark_rtvi::frame::encode_message_json(json).into())
}

/// What the checks read of one server message: its `type` and `data.payload.ref`.
#[derive(Debug)]
struct Parsed<'a> {
    kind: Cow<'a, str>,
    payload_ref: Option<Cow<'a, str>>,
}

/// Reads one server message's RTVI JSON (see [`wire::Head`]); a JSON text whose fields have
/// unexpected shapes is read as a `serde_json::Value`, as before, so it is judged the same
/// (`type` not a string reads as `""`, `ref` not a string as none). `None`: not JSON.
fn parse_message(json: &str) -> Option<Parsed<'_>> {
    if let Some(h) = Head::parse(json) {
        let (kind, payload_ref) = h.into_parts();
        return Some(Parsed {
            kind: Cow::Borrowed(kind),
            payload_ref: payload_ref.map(Cow::Borrowed),
        });
    }
    let v: Value = serde_json::from_str(json).ok()?;
    Some(Parsed {
        kind: Cow::Owned(v["type"].as_str().unwrap_or("").to_owned()),
        payload_ref: v["data"]["payload"]["ref"]
            .as_str()
            .map(|r| Cow::Owned(r.to_owned())),
    })
}

/// The `data.error` of a server message as JSON text (`null` when missing), as the report
/// shows it.
fn error_text(json: &str) -> String {
    serde_json::from_str::<Value>(json)
        .map_or_else(|_| "null".to_owned(), |v| v["data"]["error"].to_string())
}

/// Waits until `signal` is true, reading the socket meanwhile (pings, late messages); `false`
/// when the socket closed or the signal's sender is gone.
async fn idle_until(ws: &mut Ws, signal: &mut watch::Receiver<bool>, out: &mut Outcome) -> bool {
    while !*signal.borrow() {
        tokio::select! {
            changed = signal.changed() => if changed.is_err() { return false },
            msg = ws.next() => match msg {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                    out.counts.closed_early += 1;
                    return false;
                }
                Some(Ok(_)) => {}
            },
        }
    }
    true
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The run's signals, in order: send the first snapshot, start loading, stop.
#[derive(Debug, Clone)]
pub struct Signals {
    /// Send the first snapshot.
    pub snapshot: watch::Receiver<bool>,
    /// Start the measured phase.
    pub go: watch::Receiver<bool>,
    /// End it.
    pub stop: watch::Receiver<bool>,
}

/// Runs session `n`: connects, handshakes, waits for `snapshot`, sends one snapshot and waits
/// for `go`; then loads until `stop`. Never panics on what the server sends: everything
/// unexpected is counted.
pub async fn run(n: usize, plan: Arc<Plan>, signals: Signals) -> Outcome {
    let Signals {
        snapshot: mut snap,
        mut go,
        mut stop,
    } = signals;
    let mut out = Outcome::default();
    let mut rng = Rng::new(n as u64 + 1);
    let connect = tokio::time::timeout(
        plan.connect_timeout,
        tokio_tungstenite::connect_async_with_config(
            plan.url.as_str(),
            Some(WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES)),
            false,
        ),
    )
    .await;
    let mut ws = match connect {
        Ok(Ok((ws, _))) => ws,
        _ => {
            out.counts.connect_failed += 1;
            plan.failed.fetch_add(1, Ordering::Relaxed);
            return out;
        }
    };
    let ready_id = format!("{:08x}", rng.next() as u32);
    let hello = wire::client_ready(&ready_id);
    let handshake = async {
        ws.send(frame(&hello)).await.ok()?;
        loop {
            match ws.next().await? {
                Ok(Message::Binary(b)) => {
                    let json = wire::message_json(&b);
                    if json
                        .as_deref()
                        .and_then(parse_message)
                        .is_some_and(|m| m.kind == "bot-ready")
                    {
                        return Some(());
                    }
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    };
    if !matches!(
        tokio::time::timeout(plan.connect_timeout, handshake).await,
        Ok(Some(()))
    ) {
        out.counts.handshake_failed += 1;
        plan.failed.fetch_add(1, Ordering::Relaxed);
        return out;
    }
    plan.handshaken.fetch_add(1, Ordering::Relaxed);
    if !idle_until(&mut ws, &mut snap, &mut out).await {
        return out;
    }
    let mut generation = rng.below(GENERATIONS as usize) as u32;
    if ws
        .send(Message::Binary(
            plan.pages[generation as usize].frame.clone(),
        ))
        .await
        .is_err()
    {
        out.counts.send_failed += 1;
        plan.failed.fetch_add(1, Ordering::Relaxed);
        return out;
    }
    out.counts.snapshots += 1;
    plan.idle.fetch_add(1, Ordering::Relaxed);

    if !idle_until(&mut ws, &mut go, &mut out).await {
        return out;
    }

    // The run: spread the sessions' snapshot ticks and first turns over one interval each.
    let start = Instant::now();
    let mut ticks = tokio::time::interval_at(
        start + plan.snapshot_every.mul_f64(rng.unit()),
        plan.snapshot_every,
    );
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut next_turn = start + plan.turn_every.mul_f64(rng.unit());
    let mut click_next = n.is_multiple_of(2);
    let mut pending: Option<Pending> = None;
    // The waiting turn's text and the frames the server sent since (for timed-out turns'
    // samples: described only when a turn times out).
    let mut asked = String::new();
    let mut seen: Vec<Bytes> = Vec::with_capacity(SEEN_KEPT);
    // One timer for the session, moved when its deadline changes (not a new timer entry per
    // wake-up).
    let timer = sleep_until(next_turn);
    tokio::pin!(timer);
    loop {
        let deadline = match pending {
            Some(p) => p.sent() + plan.turn_timeout,
            None => next_turn,
        };
        if timer.deadline() != deadline {
            timer.as_mut().reset(deadline);
        }
        tokio::select! {
            _ = stop.changed() => break,
            _ = ticks.tick() => {
                generation = (generation + 1) % GENERATIONS;
                let f = plan.pages[generation as usize].frame.clone();
                if ws.send(Message::Binary(f)).await.is_err() {
                    out.counts.send_failed += 1;
                    break;
                }
                out.counts.snapshots += 1;
            }
            () = &mut timer => {
                if let Some(p) = pending.take() {
                    match p {
                        Pending::Click { .. } => out.counts.click_timeouts += 1,
                        Pending::Text { .. } => out.counts.text_timeouts += 1,
                    }
                    if out.timeout_samples.len() < 2 {
                        let sent: Vec<String> = seen.iter().map(|b| describe(b)).collect();
                        out.timeout_samples
                            .push(format!("{asked}; the server sent: [{}]", sent.join(", ")));
                    }
                    continue;
                }
                // Send the next turn.
                let turn = if click_next {
                    generation = (generation + 1) % GENERATIONS;
                    let page = &plan.pages[generation as usize];
                    let pick = rng.below(page.targets.len());
                    let (name, r) = &page.targets[pick];
                    let element = decode_ref(r).map(|(_, i)| i).unwrap_or(u32::MAX);
                    let sent = Instant::now();
                    if ws.send(Message::Binary(page.frame.clone())).await.is_err() {
                        out.counts.send_failed += 1;
                        break;
                    }
                    out.counts.snapshots += 1;
                    out.counts.click_turns += 1;
                    (Pending::Click { generation, element, sent }, Cow::Owned(click_text(name)))
                } else {
                    out.counts.text_turns += 1;
                    (Pending::Text { sent: Instant::now() }, Cow::Borrowed(TEXT_TURN))
                };
                click_next = !click_next;
                let text = wire::send_text(&format!("{:08x}", rng.next() as u32), &turn.1);
                if ws.send(frame(&text)).await.is_err() {
                    out.counts.send_failed += 1;
                    break;
                }
                pending = Some(turn.0);
                asked = match turn.0 {
                    Pending::Click { generation, .. } => {
                        format!("{:?} on snapshot generation {generation}", turn.1)
                    }
                    Pending::Text { .. } => format!("{:?}", turn.1),
                };
                seen.clear();
                let jitter = 0.5 + rng.unit();
                next_turn = Instant::now().max(turn.0.sent()) + plan.turn_every.mul_f64(jitter);
            }
            msg = ws.next() => {
                let bytes = match msg {
                    Some(Ok(Message::Binary(b))) => b,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                        out.counts.closed_early += 1;
                        return out;
                    }
                    Some(Ok(_)) => continue,
                };
                let was_pending = pending.is_some();
                if !read_message(&bytes, &mut pending, &mut out) {
                    out.counts.bad_frames += 1;
                    continue;
                }
                if was_pending && seen.len() < SEEN_KEPT {
                    seen.push(bytes);
                }
            }
        }
    }
    if pending.is_some() {
        out.counts.unfinished += 1;
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), ws.close(None)).await;
    out
}

/// How many server messages a waiting turn keeps for its timeout sample.
const SEEN_KEPT: usize = 16;

/// A server message (a binary pipecat.Frame) in a few words: its type, and its text, command
/// or error.
fn describe(bytes: &[u8]) -> String {
    let Some(m) = wire::message_json(bytes).and_then(|j| serde_json::from_str::<Value>(&j).ok())
    else {
        return "(not an RTVI message)".to_owned();
    };
    let t = m["type"].as_str().unwrap_or("?");
    let d = &m["data"];
    let detail = match t {
        "ui-command" => format!("{} {}", d["command"], d["payload"]),
        "bot-llm-text" | "bot-output" | "bot-tts-text" => d["text"].to_string(),
        "error" | "error-response" => d["error"].to_string(),
        "llm-function-call" | "llm-function-call-in-progress" | "llm-function-call-started" => {
            format!("{} {}", d["function_name"], d["arguments"])
        }
        _ => String::new(),
    };
    let detail: String = detail.chars().take(160).collect();
    if detail.is_empty() {
        t.to_owned()
    } else {
        format!("{t} {detail}")
    }
}

/// Reads one server message (a binary pipecat.Frame) and applies it to the waiting turn;
/// `false` when it is not an RTVI message (not a message frame, or its text not JSON).
fn read_message(bytes: &[u8], pending: &mut Option<Pending>, out: &mut Outcome) -> bool {
    let Some(json) = wire::message_json(bytes) else {
        return false;
    };
    on_message(&json, pending, out)
}

/// Applies one server message's RTVI JSON to the waiting turn; `false` when it is not JSON.
fn on_message(json: &str, pending: &mut Option<Pending>, out: &mut Outcome) -> bool {
    let Some(m) = parse_message(json) else {
        return false;
    };
    let now = Instant::now();
    match &*m.kind {
        "ui-command" => {
            let Some(Pending::Click {
                generation,
                element,
                sent,
            }) = *pending
            else {
                out.counts.unexpected_commands += 1;
                return true;
            };
            let got = m.payload_ref.as_deref().and_then(decode_ref);
            match got {
                Some((g, e)) if e == element => {
                    // Generations cycle: "later" is within half the cycle ahead.
                    let ahead = (g + GENERATIONS - generation) % GENERATIONS;
                    if ahead == 0 {
                        out.counts.clicks_ok += 1;
                    } else if ahead < GENERATIONS / 2 {
                        out.counts.clicks_newer_snapshot += 1;
                    } else {
                        out.counts.clicks_stale_ref += 1;
                        *pending = None;
                        return true;
                    }
                    out.snapshot_to_command
                        .push(u64::try_from((now - sent).as_micros()).unwrap_or(u64::MAX));
                }
                _ => out.counts.clicks_wrong_element += 1,
            }
            *pending = None;
        }
        "bot-llm-text" | "bot-output" => {
            if let Some(Pending::Text { sent }) = *pending {
                out.text_to_first_text
                    .push(u64::try_from((now - sent).as_micros()).unwrap_or(u64::MAX));
                out.counts.texts_ok += 1;
                *pending = None;
            }
        }
        "error" => {
            out.counts.server_errors += 1;
            if out.first_error.is_none() {
                out.first_error = Some(error_text(json));
            }
        }
        "error-response" => {
            out.counts.error_responses += 1;
            if out.first_error.is_none() {
                out.first_error = Some(error_text(json));
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::page;
    use serde_json::json;

    /// Sends `m` through the whole read path: a pipecat.Frame around its JSON text.
    fn on(m: &Value, pending: &mut Option<Pending>, out: &mut Outcome) {
        let bytes = hark_rtvi::frame::encode_message_json(&m.to_string());
        assert!(read_message(&bytes, pending, out));
    }

    fn command(r: &str) -> Value {
        json!({"label": "rtvi-ai", "type": "ui-command",
               "data": {"command": "click", "payload": {"ref": r, "target_id": null}}})
    }

    fn click_on(generation: u32) -> (Option<Pending>, String) {
        let p = page(generation, 200);
        let (_, r) = &p.targets[3];
        let element = decode_ref(r).unwrap().1;
        (
            Some(Pending::Click {
                generation,
                element,
                sent: Instant::now(),
            }),
            r.clone(),
        )
    }

    #[tokio::test]
    async fn a_command_for_the_turns_ref_is_counted_right_and_timed() {
        let mut out = Outcome::default();
        let (mut pending, r) = click_on(10);
        on(&command(&r), &mut pending, &mut out);
        assert!(pending.is_none());
        assert_eq!(out.counts.clicks_ok, 1);
        assert_eq!(out.snapshot_to_command.len(), 1);
    }

    #[tokio::test]
    async fn stale_later_and_wrong_refs_are_told_apart() {
        let mut out = Outcome::default();
        let (mut pending, _) = click_on(10);
        let older = &page(9, 200).targets[3].1;
        on(&command(older), &mut pending, &mut out);
        assert_eq!(out.counts.clicks_stale_ref, 1);

        let (mut pending, _) = click_on(GENERATIONS - 1);
        let later = &page(0, 200).targets[3].1; // wraps around
        on(&command(later), &mut pending, &mut out);
        assert_eq!(out.counts.clicks_newer_snapshot, 1);

        let (mut pending, _) = click_on(10);
        let other = &page(10, 200).targets[4].1;
        on(&command(other), &mut pending, &mut out);
        assert_eq!(out.counts.clicks_wrong_element, 1);

        on(&command(other), &mut None, &mut out);
        assert_eq!(out.counts.unexpected_commands, 1);
        assert_eq!(out.snapshot_to_command.len(), 1);
    }

    #[tokio::test]
    async fn the_first_bot_text_answers_a_text_turn_once() {
        let mut out = Outcome::default();
        let mut pending = Some(Pending::Text {
            sent: Instant::now(),
        });
        let text = json!({"label": "rtvi-ai", "type": "bot-llm-text", "data": {"text": "Sure, "}});
        on(&text, &mut pending, &mut out);
        on(&text, &mut pending, &mut out);
        assert_eq!(out.counts.texts_ok, 1);
        assert_eq!(out.text_to_first_text.len(), 1);
        let err = json!({"label": "rtvi-ai", "type": "error", "data": {"error": "LLM failed", "fatal": false}});
        on(&err, &mut pending, &mut out);
        assert_eq!(out.counts.server_errors, 1);
        assert_eq!(out.first_error.as_deref(), Some("\"LLM failed\""));
    }

    #[tokio::test]
    async fn odd_shapes_are_judged_as_a_value_reads_them_and_non_messages_are_bad_frames() {
        let mut out = Outcome::default();
        // `ref` not a string: a wrong element, as `Value::as_str` read it.
        let (mut pending, _) = click_on(10);
        let odd = json!({"type": "ui-command", "data": {"payload": {"ref": 7}}});
        on(&odd, &mut pending, &mut out);
        assert_eq!(out.counts.clicks_wrong_element, 1);
        // `type` not a string: ignored.
        let (mut pending, _) = click_on(10);
        on(&json!({"type": 3, "data": 1}), &mut pending, &mut out);
        assert!(pending.is_some());
        // An escaped ref is unescaped before it is judged.
        let (mut pending, r) = click_on(10);
        let escaped = format!(
            r#"{{"type":"ui-command","data":{{"payload":{{"ref":"\u0065{}"}}}}}}"#,
            &r[1..]
        );
        let bytes = hark_rtvi::frame::encode_message_json(&escaped);
        assert!(read_message(&bytes, &mut pending, &mut out));
        assert_eq!(out.counts.clicks_ok, 1);
        // Not JSON, not a frame: not a message.
        let not_json = hark_rtvi::frame::encode_message_json("{nope");
        assert!(!read_message(&not_json, &mut None, &mut out));
        assert!(!read_message(b"\xff", &mut None, &mut out));
        // The timeout sample still describes what came.
        let c = hark_rtvi::frame::encode_message_json(&command("e5").to_string());
        assert_eq!(
            describe(&c),
            r#"ui-command "click" {"ref":"e5","target_id":null}"#
        );
    }
}
