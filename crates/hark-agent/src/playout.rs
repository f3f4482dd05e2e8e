//! The call's voice: lines said with a TTS are queued and played to the caller one after the
//! other, as Pipecat's TTS service and output transport play them to a WebSocket client.
//!
//! [`Speaker`] owns a queue of lines. Each line's synthesis starts when it is queued (at most
//! [`SYNTHESIS_AHEAD`] lines at once, in order), so the next sentence's audio is ready when the
//! one playing ends. One task plays the queue: each line is resampled to the rate the client
//! plays, cut into [`FRAME_MS`] frames and sent at real-time pace, at most [`PLAYOUT_LEAD`]
//! ahead of what the caller hears. A line is said once its last frame was sent at that pace.
//!
//! Per line: `TtsStarted`, `Spoken` (its text), `BotStartedSpeaking` with the first frame
//! unless the bot was already speaking, the `Audio` frames, `TtsStopped`. `BotStoppedSpeaking`
//! comes once the audio sent has played out and no new audio followed within
//! [`BOT_STOPPED_AFTER`] (Pipecat's output transport waits the same), or at once on a cut.
//!
//! [`Speaker::cut`] (the caller talked over the bot) stops the line playing at once and drops the
//! lines waiting, their synthesis cancelled; a line said `uncut` (`announce_wait`, a goodbye)
//! plays on, and so do uncut lines waiting. Until [`Speaker::release`] (the next turn), lines
//! queued after the cut are dropped too: nothing of the interrupted turn plays after it. What the
//! caller did not hear is returned ([`Unheard`]) so the history can keep only what was heard.
//!
//! [`Speaker::pause`] holds the frames of a line that a cut would stop, for at most the time
//! given, without dropping anything: the caller may be starting to talk (the VAD heard speech it
//! has not confirmed yet), so the bot goes quiet at once; [`Speaker::resume`] (it was a cough, a
//! false start) plays on from where it stopped, and a cut (the speech was confirmed) ends it.
//! Lines said `uncut` are never paused.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hark_voice::{AudioChunk, Tts, VoiceError, resampled};
use tokio::sync::{Notify, Semaphore, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::event::AgentEvent;
use crate::output::{AgentOutput, OutputClosed};

/// The length of one audio frame sent to the client.
pub const FRAME_MS: u32 = 20;

/// How far ahead of real time frames may be sent: the client's player buffers this much, so a
/// late wake-up of the server is no gap the caller hears, and a cut leaves at most this much
/// audio in flight.
pub const PLAYOUT_LEAD: Duration = Duration::from_millis(40);

/// How long after its audio played out the bot counts as stopped speaking, when no new audio
/// came (Pipecat's `BOT_VAD_STOP_SECS`).
pub const BOT_STOPPED_AFTER: Duration = Duration::from_millis(350);

/// Lines synthesized at once: the one playing and the next.
pub const SYNTHESIS_AHEAD: usize = 2;

/// What the caller did not hear of one line: never played (`heard` empty) or cut off after
/// `heard`, its first words in proportion to the share of its audio sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unheard {
    /// The line as said.
    pub text: String,
    /// What the caller heard of it.
    pub heard: String,
}

/// A line waiting to play, its audio already being made.
struct Line {
    text: String,
    segment: i64,
    uncut: bool,
    audio: mpsc::UnboundedReceiver<Result<AudioChunk, VoiceError>>,
    /// The synthesis task; aborted (the provider's stream dropped) when the line is dropped.
    synthesis: AbortOnDrop,
}

struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The line playing now.
struct Playing {
    uncut: bool,
    /// Cancelled once the line is over (played, cut or failed).
    done: CancellationToken,
}

#[derive(Default)]
struct Queue {
    lines: VecDeque<Line>,
    playing: Option<Playing>,
    /// Cancelled by [`Speaker::cut`]; replaced by a fresh one after each cut.
    cut: CancellationToken,
    /// Lines cut off while playing since the last [`Speaker::cut`] collected them.
    unheard: Vec<Unheard>,
    /// Lines dropped unplayed since the last [`Speaker::cut`] collected them.
    dropped: Vec<Unheard>,
    /// Set by a cut until [`Speaker::release`]: lines queued meanwhile (by the interrupted turn
    /// before it saw the stop, a late reply) are dropped, not played after the cut.
    held: bool,
    closed: bool,
}

/// The call's TTS and the queue of lines it plays (see the module docs).
pub struct Speaker {
    tts: Arc<dyn Tts>,
    rate: u32,
    queue: Arc<Mutex<Queue>>,
    wake: Arc<Notify>,
    /// Lines queued or playing.
    pending: watch::Sender<usize>,
    synthesis: Arc<Semaphore>,
    /// Until when frames of lines a cut would stop are held ([`Speaker::pause`]); `None`: play.
    paused: watch::Sender<Option<Instant>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Speaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Speaker")
            .field("tts_rate", &self.tts.sample_rate())
            .field("rate", &self.rate)
            .field("pending", &*self.pending.borrow())
            .finish()
    }
}

impl Speaker {
    /// A speaker that synthesizes with `tts` and sends audio at `rate` Hz (the rate the client
    /// plays) to `output`. Must be made inside a tokio runtime: its playing task starts here.
    pub fn new(tts: Arc<dyn Tts>, rate: u32, output: Arc<dyn AgentOutput>) -> Self {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let wake = Arc::new(Notify::new());
        let (pending, _) = watch::channel(0usize);
        let (paused, paused_rx) = watch::channel(None);
        let player = Player {
            output,
            rate: rate.max(1),
            queue: queue.clone(),
            wake: wake.clone(),
            pending: pending.clone(),
            pacer: Pacer::default(),
            speaking: false,
            paused: paused_rx,
        };
        let task = tokio::spawn(player.run());
        Speaker {
            tts,
            rate: rate.max(1),
            queue,
            wake,
            pending,
            synthesis: Arc::new(Semaphore::new(SYNTHESIS_AHEAD)),
            paused,
            task: Mutex::new(Some(task)),
        }
    }

    /// Queues `text` (segment `segment`) to be played after the lines before it; its synthesis
    /// starts now. `uncut`: a cut does not stop it.
    ///
    /// # Errors
    /// [`OutputClosed`] once the client is gone (nothing more plays).
    pub fn queue(&self, text: &str, segment: i64, uncut: bool) -> Result<(), OutputClosed> {
        {
            let mut queue = lock(&self.queue);
            if queue.closed {
                return Err(OutputClosed);
            }
            if queue.held && !uncut {
                queue.dropped.push(Unheard {
                    text: text.to_owned(),
                    heard: String::new(),
                });
                return Ok(());
            }
        }
        let (tx, audio) = mpsc::unbounded_channel();
        let stream = resampled(self.tts.synthesize(text), self.rate);
        let permits = self.synthesis.clone();
        let synthesis = AbortOnDrop(tokio::spawn(async move {
            // Fair: lines are synthesized in the order they were queued.
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            let mut stream = stream;
            while let Some(item) = stream.next().await {
                let failed = item.is_err();
                if tx.send(item).is_err() || failed {
                    return;
                }
            }
        }));
        let mut queue = lock(&self.queue);
        if queue.closed {
            return Err(OutputClosed);
        }
        queue.lines.push_back(Line {
            text: text.to_owned(),
            segment,
            uncut,
            audio,
            synthesis,
        });
        self.pending.send_modify(|n| *n += 1);
        drop(queue);
        self.wake.notify_one();
        Ok(())
    }

    /// Resolves once every line queued so far has been played (or cut off).
    pub async fn wait_playout(&self) {
        let mut pending = self.pending.subscribe();
        let _ = pending.wait_for(|n| *n == 0).await;
    }

    /// Cuts the bot off at once, without waiting: the line playing stops at its next frame
    /// unless it is uncut, the lines waiting are dropped (uncut ones stay). What the caller did
    /// not hear is kept for the next [`Speaker::cut`].
    pub fn cut_now(&self) {
        let dropped = cut_queue(&mut lock(&self.queue));
        self.dropped(dropped);
        self.resume();
    }

    /// Holds the audio of lines a cut would stop, at once, for at most `at_most` (then it plays
    /// on by itself): nothing is dropped, and [`Speaker::resume`] goes on from the frame where
    /// it stopped. A cut ends the pause. Lines said `uncut` play on.
    pub fn pause(&self, at_most: Duration) {
        self.paused.send_replace(Some(Instant::now() + at_most));
    }

    /// Ends a [`Speaker::pause`]: the line plays on from where it stopped.
    pub fn resume(&self) {
        self.paused.send_if_modified(|p| p.take().is_some());
    }

    /// Whether audio is held by a [`Speaker::pause`] now.
    pub fn is_paused(&self) -> bool {
        self.paused
            .borrow()
            .is_some_and(|until| until > Instant::now())
    }

    /// Cuts the bot off ([`Speaker::cut_now`]) and returns what the caller did not hear since
    /// the last cut, in the order said, once the line playing has stopped.
    pub async fn cut(&self) -> Vec<Unheard> {
        let (dropped, playing) = {
            let mut queue = lock(&self.queue);
            let dropped = cut_queue(&mut queue);
            let playing = queue
                .playing
                .as_ref()
                .filter(|p| !p.uncut)
                .map(|p| p.done.clone());
            (dropped, playing)
        };
        self.dropped(dropped);
        self.resume();
        if let Some(done) = playing {
            done.cancelled().await;
        }
        let mut queue = lock(&self.queue);
        // The line that was playing is reported by the player, before the ones that waited.
        let mut unheard = std::mem::take(&mut queue.unheard);
        unheard.append(&mut queue.dropped);
        unheard
    }

    /// Lines queued from now on play again (a new turn began, or the caller's words were taken):
    /// after a cut, lines not said `uncut` are dropped until this.
    pub fn release(&self) {
        lock(&self.queue).held = false;
    }

    /// `count` lines were dropped from the queue: they no longer wait to play.
    fn dropped(&self, count: usize) {
        if count > 0 {
            self.pending.send_modify(|n| *n = n.saturating_sub(count));
        }
    }

    /// Stops everything for good (the call is over): nothing more plays.
    pub fn close(&self) {
        let mut queue = lock(&self.queue);
        queue.closed = true;
        queue.lines.clear();
        queue.cut.cancel();
        if let Some(playing) = queue.playing.take() {
            playing.done.cancel();
        }
        drop(queue);
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
        self.pending.send_replace(0);
    }
}

impl Drop for Speaker {
    fn drop(&mut self) {
        self.close();
    }
}

/// Real-time pace over consecutive lines: frames go out no earlier than [`PLAYOUT_LEAD`] before
/// the audio already sent has played.
#[derive(Default)]
struct Pacer {
    start: Option<Instant>,
    sent: usize,
}

impl Pacer {
    /// When the audio sent so far has played out.
    fn played_at(&self, rate: u32) -> Option<Instant> {
        self.start
            .map(|s| s + Duration::from_secs_f64(self.sent as f64 / f64::from(rate)))
    }

    /// When the next frame may go (`None`: now).
    fn due(&self, rate: u32) -> Option<Instant> {
        let played = self.played_at(rate)?;
        let due = played.checked_sub(PLAYOUT_LEAD).unwrap_or(played);
        (Instant::now() < due).then_some(due)
    }

    /// `samples` are sent now. After a gap (the audio sent had played out) the clock restarts.
    fn sent(&mut self, samples: usize, rate: u32) {
        let now = Instant::now();
        if self.played_at(rate).is_none_or(|played| played <= now) {
            self.start = Some(now);
            self.sent = 0;
        }
        self.sent += samples;
    }
}

/// The playing task's own state.
struct Player {
    output: Arc<dyn AgentOutput>,
    rate: u32,
    queue: Arc<Mutex<Queue>>,
    wake: Arc<Notify>,
    pending: watch::Sender<usize>,
    pacer: Pacer,
    speaking: bool,
    /// [`Speaker::pause`]'s deadline.
    paused: watch::Receiver<Option<Instant>>,
}

/// How a line ended.
enum Ended {
    Played,
    /// Cut after `sent` of `made` samples.
    Cut {
        sent: usize,
        made: usize,
    },
}

impl Player {
    async fn run(mut self) {
        loop {
            let next = {
                let mut queue = lock(&self.queue);
                if queue.closed {
                    return;
                }
                let line = queue.lines.pop_front();
                if let Some(line) = &line {
                    queue.playing = Some(Playing {
                        uncut: line.uncut,
                        done: CancellationToken::new(),
                    });
                }
                line.map(|line| (line, queue.cut.clone()))
            };
            let Some((line, cut)) = next else {
                if self.idle().await.is_err() {
                    self.closed();
                    return;
                }
                continue;
            };
            let text = line.text.clone();
            let result = self.play(line, &cut).await;
            let done = {
                let mut queue = lock(&self.queue);
                if let Ok(Ended::Cut { sent, made }) = &result {
                    queue.unheard.push(Unheard {
                        heard: heard_words(&text, *sent as f64 / (*made).max(1) as f64),
                        text,
                    });
                }
                queue.playing.take().map(|p| p.done)
            };
            self.pending.send_modify(|n| *n = n.saturating_sub(1));
            if let Some(done) = done {
                done.cancel();
            }
            if result.is_err() {
                self.closed();
                return;
            }
        }
    }

    /// The client is gone: nothing more is queued or played.
    fn closed(&self) {
        let mut queue = lock(&self.queue);
        queue.closed = true;
        queue.lines.clear();
        drop(queue);
        self.pending.send_replace(0);
    }

    /// Nothing to play: once the audio sent has played out and nothing new came within
    /// [`BOT_STOPPED_AFTER`], the bot stopped speaking. Returns when a line is queued.
    async fn idle(&mut self) -> Result<(), OutputClosed> {
        if self.speaking {
            let played = self.pacer.played_at(self.rate).unwrap_or_else(Instant::now);
            let stopped = played + BOT_STOPPED_AFTER;
            tokio::select! {
                () = self.wake.notified() => return Ok(()),
                () = tokio::time::sleep_until(stopped) => {}
            }
            self.stop_speaking().await?;
        }
        self.wake.notified().await;
        Ok(())
    }

    async fn stop_speaking(&mut self) -> Result<(), OutputClosed> {
        if self.speaking {
            self.speaking = false;
            self.output.send(AgentEvent::BotStoppedSpeaking).await?;
        }
        Ok(())
    }

    /// Plays one line to its end or its cut.
    async fn play(
        &mut self,
        mut line: Line,
        cut: &CancellationToken,
    ) -> Result<Ended, OutputClosed> {
        let frame = (self.rate * FRAME_MS / 1000).max(1) as usize;
        let uncut = line.uncut;
        let was_cut = || !uncut && cut.is_cancelled();
        if was_cut() {
            return Ok(Ended::Cut { sent: 0, made: 1 });
        }
        self.output.send(AgentEvent::TtsStarted).await?;
        self.output
            .send(AgentEvent::Spoken {
                text: line.text.clone(),
                segment: line.segment,
            })
            .await?;
        let mut pending: Vec<i16> = Vec::new();
        let (mut made, mut sent) = (0usize, 0usize);
        let mut ended = Ended::Played;
        'line: loop {
            let next = tokio::select! {
                biased;
                () = cut_signal(cut, uncut) => {
                    ended = Ended::Cut { sent, made };
                    break;
                }
                next = line.audio.recv() => next,
            };
            let last = match next {
                Some(Ok(chunk)) => {
                    made += chunk.samples.len();
                    pending.extend_from_slice(&chunk.samples);
                    false
                }
                Some(Err(error)) => {
                    tracing::warn!(%error, "a line's speech failed; its text went out without audio");
                    self.output
                        .send(AgentEvent::Error {
                            text: crate::messages::tts_failed(&error.to_string()),
                            fatal: false,
                        })
                        .await?;
                    true
                }
                None => true,
            };
            while pending.len() >= frame || (last && !pending.is_empty()) {
                if !uncut && !self.unpaused(cut).await {
                    ended = Ended::Cut { sent, made };
                    break 'line;
                }
                let take = frame.min(pending.len());
                let samples: Vec<i16> = pending.drain(..take).collect();
                if let Some(due) = self.pacer.due(self.rate) {
                    tokio::select! {
                        biased;
                        () = cut_signal(cut, uncut) => {
                            ended = Ended::Cut { sent, made };
                            break 'line;
                        }
                        () = tokio::time::sleep_until(due) => {}
                    }
                }
                if !self.speaking {
                    self.speaking = true;
                    self.output.send(AgentEvent::BotStartedSpeaking).await?;
                }
                sent += samples.len();
                self.pacer.sent(samples.len(), self.rate);
                self.output
                    .send(AgentEvent::Audio(AudioChunk::new(samples, self.rate)))
                    .await?;
            }
            if last {
                break;
            }
        }
        // Cut or done: the synthesis stops and nothing waiting is sent.
        drop(line.synthesis);
        if matches!(ended, Ended::Cut { .. }) {
            // The caller talked over the bot: it is silent from now on.
            self.pacer = Pacer::default();
            self.stop_speaking().await?;
        }
        self.output.send(AgentEvent::TtsStopped).await?;
        Ok(ended)
    }
}

impl Player {
    /// Waits while [`Speaker::pause`] holds the audio; `false` when the line was cut meanwhile
    /// (or before).
    async fn unpaused(&mut self, cut: &CancellationToken) -> bool {
        loop {
            if cut.is_cancelled() {
                return false;
            }
            let until = *self.paused.borrow_and_update();
            let Some(until) = until.filter(|u| *u > Instant::now()) else {
                return true;
            };
            tokio::select! {
                biased;
                () = cut.cancelled() => return false,
                changed = self.paused.changed() => {
                    if changed.is_err() {
                        return true;
                    }
                }
                () = tokio::time::sleep_until(until) => return true,
            }
        }
    }
}

/// Locks `m`, also after a panic elsewhere (the queue stays usable).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Cuts `queue`: the lines waiting are dropped into [`Queue::dropped`] (uncut ones stay) and the
/// line playing is told to stop (unless uncut). Returns how many lines were dropped.
fn cut_queue(queue: &mut Queue) -> usize {
    let waiting = std::mem::take(&mut queue.lines);
    let before = queue.dropped.len();
    for line in waiting {
        if line.uncut {
            queue.lines.push_back(line);
        } else {
            queue.dropped.push(Unheard {
                text: line.text,
                heard: String::new(),
            });
        }
    }
    queue.cut.cancel();
    queue.cut = CancellationToken::new();
    queue.held = true;
    queue.dropped.len() - before
}

/// Resolves when `cut` is cancelled, or never for an `uncut` line.
async fn cut_signal(cut: &CancellationToken, uncut: bool) {
    if uncut {
        std::future::pending::<()>().await;
    } else {
        cut.cancelled().await;
    }
}

/// The first words of `text` in proportion `share` (0.0 to 1.0) of its audio: what a caller
/// heard of a line cut off, by the share of its audio sent (words taken as equally long).
pub(crate) fn heard_words(text: &str, share: f64) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let n = (words.len() as f64 * share.clamp(0.0, 1.0)).floor() as usize;
    words[..n.min(words.len())].join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ChannelOutput;

    /// 60 ms of tone per word, at 24 kHz.
    #[derive(Debug)]
    struct Words;

    impl Tts for Words {
        fn synthesize(&self, text: &str) -> hark_voice::TtsStream {
            let items: Vec<Result<AudioChunk, VoiceError>> = text
                .split_whitespace()
                .map(|_| Ok(AudioChunk::new(vec![1000; 1_440], 24_000)))
                .collect();
            Box::pin(futures::stream::iter(items))
        }

        fn sample_rate(&self) -> u32 {
            24_000
        }
    }

    #[tokio::test]
    async fn after_a_cut_lines_are_held_back_until_released() {
        let (output, mut rx) = ChannelOutput::new();
        let speaker = Speaker::new(Arc::new(Words), 24_000, Arc::new(output));
        speaker
            .queue("one two three four five six seven eight", 0, false)
            .unwrap();
        // Its first audio, then the cut.
        loop {
            if let Some(AgentEvent::Audio(_)) = rx.recv().await {
                break;
            }
        }
        speaker.cut_now();
        // Queued by the interrupted turn before it saw the stop: never played.
        speaker.queue("late line", 1, false).unwrap();
        // Said uncut: plays.
        speaker.queue("goodbye now", 2, true).unwrap();
        let mut spoken = Vec::new();
        while spoken.last().is_none_or(|t| t != "goodbye now") {
            if let Some(AgentEvent::Spoken { text, .. }) = rx.recv().await {
                spoken.push(text);
            }
        }
        let unheard = speaker.cut().await;
        assert_eq!(unheard.len(), 2, "{unheard:?}");
        assert!(unheard[0].text.starts_with("one two"), "{unheard:?}");
        assert_eq!(unheard[1].text, "late line");
        speaker.release();
        speaker.queue("next turn", 3, false).unwrap();
        speaker.wait_playout().await;
        while let Ok(event) = rx.try_recv() {
            if let AgentEvent::Spoken { text, .. } = event {
                spoken.push(text);
            }
        }
        assert_eq!(spoken, ["goodbye now", "next turn"]);
    }

    /// Samples of the `Audio` events that came, and whether the bot stopped speaking among them.
    fn drain(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> (usize, bool) {
        let (mut samples, mut stopped) = (0, false);
        while let Ok(event) = rx.try_recv() {
            match event {
                AgentEvent::Audio(chunk) => samples += chunk.samples.len(),
                AgentEvent::BotStoppedSpeaking => stopped = true,
                _ => {}
            }
        }
        (samples, stopped)
    }

    async fn first_audio(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> usize {
        loop {
            if let Some(AgentEvent::Audio(chunk)) = rx.recv().await {
                return chunk.samples.len();
            }
        }
    }

    const WORD: usize = 1_440;
    const FRAME: usize = 480;

    #[tokio::test]
    async fn a_pause_holds_the_audio_and_resume_plays_on_from_there() {
        let (output, mut rx) = ChannelOutput::new();
        let speaker = Speaker::new(Arc::new(Words), 24_000, Arc::new(output));
        let line = "one two three four five six seven eight nine ten";
        speaker.queue(line, 0, false).unwrap();
        let mut samples = first_audio(&mut rx).await;
        speaker.pause(Duration::from_secs(10));
        assert!(speaker.is_paused());
        // A frame already past its check may follow; then nothing while paused.
        tokio::time::sleep(Duration::from_millis(40)).await;
        samples += drain(&mut rx).0;
        let held_at = samples;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (during, stopped) = drain(&mut rx);
        assert_eq!(during, 0, "audio was sent while paused");
        assert!(!stopped, "a pause is not the bot stopping");
        // At most the frames the lead lets out at once, and one past its check.
        assert!(
            held_at <= 4 * FRAME,
            "{held_at} samples went out before the pause held"
        );
        speaker.resume();
        assert!(!speaker.is_paused());
        speaker.wait_playout().await;
        samples += drain(&mut rx).0;
        // Nothing of the line was dropped: it played on from the frame where it paused.
        assert_eq!(samples, 10 * WORD);
        assert_eq!(speaker.cut().await, Vec::<Unheard>::new());
    }

    #[tokio::test]
    async fn a_pause_nobody_ends_ends_by_itself() {
        let (output, mut rx) = ChannelOutput::new();
        let speaker = Speaker::new(Arc::new(Words), 24_000, Arc::new(output));
        speaker.pause(Duration::from_millis(150));
        speaker.queue("one two three", 0, false).unwrap();
        tokio::time::timeout(Duration::from_secs(5), speaker.wait_playout())
            .await
            .expect("the line played once the pause ran out");
        assert_eq!(drain(&mut rx).0, 3 * WORD);
        assert!(!speaker.is_paused());
    }

    #[tokio::test]
    async fn a_line_said_uncut_is_not_paused() {
        let (output, mut rx) = ChannelOutput::new();
        let speaker = Speaker::new(Arc::new(Words), 24_000, Arc::new(output));
        speaker.pause(Duration::from_secs(30));
        speaker.queue("one moment please", 0, true).unwrap();
        tokio::time::timeout(Duration::from_secs(5), speaker.wait_playout())
            .await
            .expect("an uncut line plays through a pause");
        assert_eq!(drain(&mut rx).0, 3 * WORD);
    }

    #[tokio::test]
    async fn a_cut_during_a_pause_stops_the_line_where_it_paused() {
        let (output, mut rx) = ChannelOutput::new();
        let speaker = Speaker::new(Arc::new(Words), 24_000, Arc::new(output));
        speaker
            .queue("one two three four five six seven eight", 0, false)
            .unwrap();
        let mut samples = first_audio(&mut rx).await;
        speaker.pause(Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(100)).await;
        let unheard = tokio::time::timeout(Duration::from_secs(2), speaker.cut())
            .await
            .expect("a cut ends the pause at once");
        samples += drain(&mut rx).0;
        assert!(samples <= 4 * FRAME, "{samples} samples played");
        assert_eq!(unheard.len(), 1, "{unheard:?}");
        assert!(unheard[0].text.starts_with("one two"), "{unheard:?}");
        assert!(!speaker.is_paused(), "the cut ended the pause");
    }

    #[test]
    fn a_cut_line_keeps_the_words_in_proportion() {
        assert_eq!(heard_words("one two three four", 0.5), "one two");
        assert_eq!(heard_words("one two three four", 0.99), "one two three");
        assert_eq!(heard_words("one two", 0.0), "");
        assert_eq!(heard_words("one two", 1.0), "one two");
    }
}
