//! The caller's speech, heard: microphone audio in, turns out.
//!
//! [`Hearing`] is what every call of an agent shares (the Silero VAD model, its parameters and
//! the STT); [`crate::AgentSettings::with_hearing`] gives it to a [`crate::VoiceAgent`], which
//! then listens to the audio handed to [`crate::VoiceAgent::hear`] in two tasks of its own:
//!
//! ```text
//! hear(chunk) ─(bounded queue)─► listen: VAD ──► user-started/-stopped-speaking (at once)
//!                                 │ utterance audio (1 s before the start, to the stop)
//!                                 ▼
//!                          take turns: barge-in, STT, user-transcription, user turn
//! ```
//!
//! - **Speech, not yet confirmed** (the VAD's first window of speech, its `starting` state):
//!   the bot's audio is paused at once ([`crate::OutputSpeech::pause`]), so a caller who talks
//!   over the bot is heard as the bot going quiet within a window or two of their first
//!   syllable, not only `start_secs` later. Nothing is dropped: when the VAD goes back to quiet
//!   without confirming (a cough, a door), the bot plays on from where it paused; the pause ends
//!   by itself after `start_secs` + [`PAUSE_MARGIN`] in any case. Lines said with
//!   `announce_wait` are never paused.
//! - **Speech start** (the VAD confirmed `start_secs` of speech): the bot's audio is cut off
//!   and [`AgentEvent::UserStartedSpeaking`] goes out at once (Pipecat's client drops the bot
//!   audio it still holds; lines the interrupted turn queues after it are dropped, though one
//!   frame already on its way may follow), then the barge-in:
//!   the running turn is interrupted and the bot's audio cut off by the same path as a typed
//!   interruption (`continue` tools run on, lines said with `announce_wait` play on, the history
//!   keeps what the caller heard); [`AgentEvent::BotInterrupted`] when that stopped something.
//! - **Speech stop** (`stop_secs` of silence): [`AgentEvent::UserStoppedSpeaking`], and the
//!   utterance goes to the STT (Pipecat's `SegmentedSTTService` keeps the same 1 s before the
//!   start). Its transcript is sent as a final [`AgentEvent::UserTranscription`], then it is the
//!   user's turn ([`crate::VoiceAgent::user_turn`]). When the caller spoke again before the
//!   transcript came back, the texts wait and go as one turn when the caller stops (as Pipecat's
//!   user aggregator joins them).
//! - Speech longer than [`MAX_PIECE`] is transcribed piece by piece while it goes on (memory
//!   stays bounded); the pieces are one turn. Silence keeps only [`PRE_ROLL`].
//! - No audio for [`AUDIO_GAP`] (after the last chunk's own length) while the caller speaks (a
//!   muted microphone, a stalled client) is a speech stop.
//! - From the speech start until what was said is taken as a turn (or found empty), the caller
//!   has the floor: late results of `continue` tools that ask the model wait, then get their
//!   own turn when the transcript was empty (a late result with a reply line of its own is
//!   dropped from the audio while the bot is held after a cut; its note stays in the history).
//! - A transcript that fails is an [`AgentEvent::Error`] (not fatal) naming the provider; an
//!   empty one is no turn.
//! - A chunk at a new sample rate starts a new VAD stream (what was being said is transcribed
//!   first).
//!
//! **With a streaming STT** ([`Recognizer::Streaming`], e.g. Deepgram's live API) the audio is
//! not held until the stop: from the speech start (the pre-roll first) each chunk goes to the
//! provider's [`hark_voice::SttStream`] of the utterance while the caller speaks; its interim
//! results go out as [`AgentEvent::UserTranscription`] with `is_final: false`; at the stop the
//! stream is finished and each final text is a final `UserTranscription` and part of the turn,
//! taken by the same rules as above (floor, barge-in, texts joined while the caller speaks
//! again, errors and empty utterances). A stream that fails mid-utterance keeps the finals it
//! gave; no new one is opened until the next speech start.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_voice::vad::SileroModel;
use hark_voice::{
    AudioChunk, StreamingStt, Stt, SttStream, Transcript, Vad, VadEvent, VadParams, VadState,
    VoiceError,
};
use tokio::sync::mpsc;
use tokio_util::task::AbortOnDropHandle;

use crate::agent::{Shared, lock};
use crate::event::AgentEvent;
use crate::output::AgentOutput;
use crate::speech::OutputSpeech;
use crate::turn::TurnInput;

/// Audio kept from before the speech start (the VAD confirms a start `start_secs` late, and the
/// first syllable is quieter): 1 s, as Pipecat's `SegmentedSTTService`.
pub const PRE_ROLL: Duration = Duration::from_secs(1);
/// Speech longer than this is sent to the STT in pieces of this length while it goes on.
pub const MAX_PIECE: Duration = Duration::from_secs(30);
/// Chunks waiting for the VAD per call; [`crate::VoiceAgent::hear`] waits when it is full.
pub const LISTEN_QUEUE: usize = 64;
/// No audio for this long while the caller speaks (the microphone was muted, the client
/// stalled): they stopped speaking (Pipecat's input transport waits the same,
/// `AUDIO_INPUT_TIMEOUT_SECS`).
pub const AUDIO_GAP: Duration = Duration::from_millis(500);

/// How much longer than the VAD's `start_secs` a pause for unconfirmed speech may last, at
/// most (the audio of the confirming windows arrives in real time, plus the queue's delay).
pub const PAUSE_MARGIN: Duration = Duration::from_millis(300);

/// The speech recognizer a call hears with.
#[derive(Clone)]
pub enum Recognizer {
    /// A batch STT: each utterance's audio, whole, after the speech stop.
    Batch(Arc<dyn Stt>),
    /// A streaming STT: the audio while the caller speaks, interim results as it goes.
    Streaming(Arc<dyn StreamingStt>),
}

impl fmt::Debug for Recognizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Recognizer::Batch(_) => "Recognizer::Batch",
            Recognizer::Streaming(_) => "Recognizer::Streaming",
        })
    }
}

/// What every call's listening shares: the VAD model (loaded once per native rate), the VAD's
/// parameters and the STT. Cheap to share in an `Arc`.
pub struct Hearing {
    model_path: PathBuf,
    models: Mutex<HashMap<u32, SileroModel>>,
    params: VadParams,
    stt: Recognizer,
}

impl fmt::Debug for Hearing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hearing")
            .field("model_path", &self.model_path)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl Hearing {
    /// Loads the Silero VAD model at `model_path`, planned now for both of its native rates
    /// (16 kHz, and 8 kHz for telephone audio), so no call plans it on the async workers; each
    /// call's stream shares them. Transcribes with `stt`.
    ///
    /// # Errors
    /// [`VoiceError::VadModel`] naming the file when it is missing or not Silero's model;
    /// [`VoiceError::Vad`] for parameters out of range.
    pub fn load(
        model_path: &Path,
        params: VadParams,
        stt: Arc<dyn Stt>,
    ) -> Result<Self, VoiceError> {
        Self::load_recognizer(model_path, params, Recognizer::Batch(stt))
    }

    /// [`Hearing::load`] with any [`Recognizer`], batch or streaming.
    ///
    /// # Errors
    /// As [`Hearing::load`].
    pub fn load_recognizer(
        model_path: &Path,
        params: VadParams,
        stt: Recognizer,
    ) -> Result<Self, VoiceError> {
        let mut models = HashMap::new();
        for input in [hark_rtvi::audio::CLIENT_RECORDER_RATE, 8_000] {
            let rate = Vad::model_rate_for(input);
            if let std::collections::hash_map::Entry::Vacant(slot) = models.entry(rate) {
                let model = SileroModel::load(model_path, rate)?;
                // The parameters are checked once, here, not at each call's first chunk.
                Vad::with_model(model.clone(), input, params)?;
                slot.insert(model);
            }
        }
        Ok(Self {
            model_path: model_path.to_owned(),
            models: Mutex::new(models),
            params,
            stt,
        })
    }

    /// [`Hearing::load`] of [`hark_voice::VAD_MODEL_FILE`] in the model directory
    /// ([`hark_voice::vad::model_dir`], where `scripts/fetch-model.sh` puts it).
    ///
    /// # Errors
    /// As [`Hearing::load`]; also when no model directory is known.
    pub fn from_model_dir(params: VadParams, stt: Arc<dyn Stt>) -> Result<Self, VoiceError> {
        Self::from_model_dir_with(params, Recognizer::Batch(stt))
    }

    /// [`Hearing::from_model_dir`] with any [`Recognizer`], batch or streaming.
    ///
    /// # Errors
    /// As [`Hearing::from_model_dir`].
    pub fn from_model_dir_with(params: VadParams, stt: Recognizer) -> Result<Self, VoiceError> {
        let dir = hark_voice::vad::model_dir().ok_or_else(|| VoiceError::VadModel {
            path: hark_voice::VAD_MODEL_FILE.into(),
            reason: "no model directory (set HARK_MODEL_DIR or HOME)".into(),
        })?;
        Self::load_recognizer(&dir.join(hark_voice::VAD_MODEL_FILE), params, stt)
    }

    /// The VAD's parameters.
    pub fn params(&self) -> VadParams {
        self.params
    }

    /// A VAD stream for audio at `rate`.
    fn vad(&self, rate: u32) -> Result<Vad, VoiceError> {
        let native = Vad::model_rate_for(rate);
        let cached = lock(&self.models).get(&native).cloned();
        let model = match cached {
            Some(model) => model,
            None => {
                let model = SileroModel::load(&self.model_path, native)?;
                lock(&self.models).insert(native, model.clone());
                model
            }
        };
        Vad::with_model(model, rate, self.params)
    }
}

/// One call's listening: the queue into its VAD and the two tasks (aborted when dropped).
pub(crate) struct Listener {
    tx: mpsc::Sender<AudioChunk>,
    _listen: AbortOnDropHandle<()>,
    _turns: AbortOnDropHandle<()>,
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listener").finish_non_exhaustive()
    }
}

/// The call no longer listens (it ended, or its listening failed for good).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this call is not listening: it has no speech input or it has ended")]
pub struct NotListening;

impl Listener {
    /// Starts listening for the call `shared` (must run inside a tokio runtime).
    pub(crate) fn start(hearing: Arc<Hearing>, shared: &Arc<Shared>) -> Self {
        let (tx, rx) = mpsc::channel(LISTEN_QUEUE);
        let (heard_tx, heard_rx) = mpsc::unbounded_channel();
        let output = shared.output().clone();
        let listen = Listen {
            streaming: matches!(hearing.stt, Recognizer::Streaming(_)),
            hearing: hearing.clone(),
            speech: shared.speech.clone(),
            output: output.clone(),
            heard: heard_tx,
            stream: None,
            paused: false,
        };
        let turns = TakeTurns {
            stt: hearing.stt.clone(),
            output,
            shared: Arc::downgrade(shared),
            speaking: false,
            queue: VecDeque::new(),
            said: Vec::new(),
            streams: VecDeque::new(),
            broken: false,
        };
        Listener {
            tx,
            _listen: AbortOnDropHandle::new(tokio::spawn(listen.run(rx))),
            _turns: AbortOnDropHandle::new(tokio::spawn(turns.run(heard_rx))),
        }
    }

    /// Hands `chunk` to the VAD; waits while its queue is full.
    pub(crate) async fn hear(&self, chunk: AudioChunk) -> Result<(), NotListening> {
        self.tx.send(chunk).await.map_err(|_| NotListening)
    }
}

/// What the VAD task tells the turn-taking task, in order.
#[derive(Debug)]
enum Heard {
    /// The caller began to speak.
    Started,
    /// A piece of speech still going on ([`MAX_PIECE`]).
    Piece(AudioChunk),
    /// Audio of the utterance while the caller speaks (a streaming STT: the pre-roll and each
    /// chunk since).
    Audio(AudioChunk),
    /// The caller stopped: the utterance's (last) audio.
    Stopped(AudioChunk),
}

/// One VAD stream and the audio of the utterance around it.
struct Stream {
    vad: Vad,
    rate: u32,
    audio: Vec<i16>,
    speaking: bool,
}

/// The VAD task.
struct Listen {
    /// Audio goes to the STT while the caller speaks ([`Heard::Audio`]), not in pieces.
    streaming: bool,
    hearing: Arc<Hearing>,
    /// The bot's voice, cut off the moment the caller's speech is confirmed.
    speech: Arc<OutputSpeech>,
    output: Arc<dyn AgentOutput>,
    heard: mpsc::UnboundedSender<Heard>,
    stream: Option<Stream>,
    /// The bot's audio is paused for speech the VAD has not confirmed yet.
    paused: bool,
}

impl Listen {
    async fn run(mut self, mut rx: mpsc::Receiver<AudioChunk>) {
        // How long the last chunk plays: a client sending long chunks is no gap between them.
        let mut last = Duration::ZERO;
        loop {
            let speaking = self.stream.as_ref().is_some_and(|s| s.speaking);
            let next = if speaking {
                match tokio::time::timeout(AUDIO_GAP + last, rx.recv()).await {
                    Ok(next) => next,
                    Err(_) => {
                        if !self.audio_stopped().await {
                            break;
                        }
                        continue;
                    }
                }
            } else {
                rx.recv().await
            };
            // The queue closed (the call is over): what was being said is not transcribed.
            let Some(chunk) = next else { break };
            if chunk.samples.is_empty() {
                continue;
            }
            last = Duration::from_secs_f64(
                chunk.samples.len() as f64 / f64::from(chunk.sample_rate.max(1)),
            );
            if !self.push(chunk).await {
                break;
            }
        }
    }

    /// No audio came for [`AUDIO_GAP`] while the caller spoke: they stopped, and the VAD
    /// starts afresh with the next audio.
    async fn audio_stopped(&mut self) -> bool {
        tracing::debug!("no microphone audio while the caller spoke: they stopped speaking");
        match self.stream.take() {
            Some(old) if old.speaking => self.stopped(old.audio, old.rate).await,
            _ => true,
        }
    }

    /// Analyses one chunk; `false` once nothing more can be told (the client or the
    /// turn-taking task is gone).
    async fn push(&mut self, chunk: AudioChunk) -> bool {
        if self
            .stream
            .as_ref()
            .is_some_and(|s| s.rate != chunk.sample_rate)
        {
            tracing::info!(
                rate = chunk.sample_rate,
                "microphone audio changed its sample rate; the VAD starts again"
            );
            if let Some(old) = self.stream.take()
                && old.speaking
                && !self.stopped(old.audio, old.rate).await
            {
                return false;
            }
        }
        if self.stream.is_none() {
            self.resume();
        }
        let stream = match &mut self.stream {
            Some(stream) => stream,
            None => match self.hearing.vad(chunk.sample_rate) {
                Ok(vad) => self.stream.insert(Stream {
                    vad,
                    rate: chunk.sample_rate,
                    audio: Vec::new(),
                    speaking: false,
                }),
                Err(e) => {
                    tracing::warn!(rate = chunk.sample_rate, error = %e, "microphone audio dropped: no VAD for its rate");
                    return true;
                }
            },
        };
        let events = match stream.vad.push_samples(&chunk.samples) {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(error = %e, "microphone audio dropped: the VAD failed");
                return true;
            }
        };
        stream.audio.extend_from_slice(&chunk.samples);
        let rate = stream.rate;
        let mut tell = Vec::new();
        for event in events {
            match event {
                VadEvent::SpeechStarted { .. } => {
                    stream.speaking = true;
                    tell.push(Heard::Started);
                }
                VadEvent::SpeechStopped { .. } => {
                    stream.speaking = false;
                    let audio = std::mem::take(&mut stream.audio);
                    tell.push(Heard::Stopped(AudioChunk::new(audio, rate)));
                }
            }
        }
        let unconfirmed = stream.vad.state() == VadState::Starting;
        let samples = |d: Duration| (d.as_secs_f64() * f64::from(rate)) as usize;
        if !stream.speaking {
            let keep = samples(PRE_ROLL);
            if stream.audio.len() > keep {
                stream.audio.drain(..stream.audio.len() - keep);
            }
        } else if self.streaming {
            let audio = std::mem::take(&mut stream.audio);
            tell.push(Heard::Audio(AudioChunk::new(audio, rate)));
        } else if stream.audio.len() >= samples(MAX_PIECE) {
            let audio = std::mem::take(&mut stream.audio);
            tell.push(Heard::Piece(AudioChunk::new(audio, rate)));
        }
        if tell.is_empty() {
            self.unconfirmed(unconfirmed);
        }
        for heard in tell {
            if !self.tell(heard).await {
                return false;
            }
        }
        true
    }

    /// The VAD hears speech it has not confirmed (`true`) or none: the bot's audio is paused
    /// for the first and plays on when it goes back to quiet.
    fn unconfirmed(&mut self, speech: bool) {
        if speech && !self.paused {
            let params = self.hearing.params;
            self.speech
                .pause(Duration::from_secs_f32(params.start_secs) + PAUSE_MARGIN);
            self.paused = true;
        } else if !speech {
            self.resume();
        }
    }

    /// Ends a pause for unconfirmed speech, if one is on.
    fn resume(&mut self) {
        if std::mem::take(&mut self.paused) {
            self.speech.resume();
        }
    }

    async fn stopped(&mut self, audio: Vec<i16>, rate: u32) -> bool {
        self.tell(Heard::Stopped(AudioChunk::new(audio, rate)))
            .await
    }

    /// Sends the speaking events at once, then hands the turn-taking task its part.
    async fn tell(&mut self, heard: Heard) -> bool {
        let event = match &heard {
            Heard::Started => {
                self.paused = false;
                // The bot goes silent first, before the event the client flushes its player
                // on (a frame already on its way may still follow it). The cut ends a pause.
                self.speech.cut_now();
                Some(AgentEvent::UserStartedSpeaking)
            }
            Heard::Stopped(_) => Some(AgentEvent::UserStoppedSpeaking),
            Heard::Piece(_) | Heard::Audio(_) => None,
        };
        if let Some(event) = event
            && self.output.send(event).await.is_err()
        {
            return false;
        }
        self.heard.send(heard).is_ok()
    }
}

/// The turn-taking task: barge-in, transcripts in order, user turns.
struct TakeTurns {
    stt: Recognizer,
    output: Arc<dyn AgentOutput>,
    shared: Weak<Shared>,
    /// The caller is speaking (a start not yet followed by a stop).
    speaking: bool,
    /// Audio waiting for the STT, oldest first; `true`: the end of an utterance.
    queue: VecDeque<(AudioChunk, bool)>,
    /// Transcribed text not yet taken as a turn.
    said: Vec<String>,
    /// A streaming STT's utterances, oldest first (read in order); the last one is still fed
    /// audio while it is not finished.
    streams: VecDeque<Utterance>,
    /// The utterance being spoken lost its stream: no new one until the next speech start.
    broken: bool,
}

/// One utterance's stream to a streaming STT.
struct Utterance {
    stream: SttStream,
    /// Its end was given ([`SttStream::finish`]).
    finished: bool,
}

type Transcribing = BoxFuture<'static, Result<Transcript, VoiceError>>;

impl TakeTurns {
    async fn run(self, rx: mpsc::UnboundedReceiver<Heard>) {
        match self.stt.clone() {
            Recognizer::Batch(stt) => self.run_batch(stt, rx).await,
            Recognizer::Streaming(stt) => self.run_streaming(stt, rx).await,
        }
    }

    async fn run_batch(mut self, stt: Arc<dyn Stt>, mut rx: mpsc::UnboundedReceiver<Heard>) {
        let mut transcribing: Option<(Transcribing, bool)> = None;
        loop {
            if transcribing.is_none()
                && let Some((audio, end)) = self.queue.pop_front()
            {
                transcribing = Some((stt.transcribe(audio), end));
            }
            tokio::select! {
                // What the VAD heard first: a transcript must not be taken as a turn while a
                // speech start waits unread.
                biased;
                heard = rx.recv() => match heard {
                    Some(Heard::Started) => {
                        self.speaking = true;
                        if !self.barge_in().await { return; }
                    }
                    Some(Heard::Piece(audio) | Heard::Audio(audio)) => {
                        self.queue.push_back((audio, false));
                    }
                    Some(Heard::Stopped(audio)) => {
                        self.speaking = false;
                        self.queue.push_back((audio, true));
                    }
                    None => return,
                },
                result = async { (&mut transcribing.as_mut().expect("guarded").0).await },
                    if transcribing.is_some() =>
                {
                    let end = transcribing.take().is_some_and(|(_, end)| end);
                    if !self.transcribed(result, end).await { return; }
                }
            }
        }
    }

    async fn run_streaming(
        mut self,
        stt: Arc<dyn StreamingStt>,
        mut rx: mpsc::UnboundedReceiver<Heard>,
    ) {
        loop {
            tokio::select! {
                // What the VAD heard first, as in the batch path.
                biased;
                heard = rx.recv() => match heard {
                    Some(Heard::Started) => {
                        self.speaking = true;
                        self.broken = false;
                        if !self.barge_in().await { return; }
                    }
                    Some(Heard::Piece(audio) | Heard::Audio(audio)) => {
                        self.feed(&stt, &audio, false);
                    }
                    Some(Heard::Stopped(audio)) => {
                        self.speaking = false;
                        if !self.feed(&stt, &audio, true) && !self.end_of_speech().await {
                            return;
                        }
                    }
                    None => return,
                },
                item = async {
                    self.streams.front_mut().expect("guarded").stream.next().await
                }, if !self.streams.is_empty() => {
                    if !self.streamed(item).await { return; }
                }
            }
        }
    }

    /// Hands `audio` to the utterance's stream (opened at its first audio); `end`: the caller
    /// stopped, the stream is finished. Whether a stream took the utterance's end (else there
    /// is none to wait for).
    fn feed(&mut self, stt: &Arc<dyn StreamingStt>, audio: &AudioChunk, end: bool) -> bool {
        let feeding = self.streams.back().is_some_and(|u| !u.finished);
        if !feeding {
            if self.broken || (audio.is_empty() && end) {
                return false;
            }
            self.streams.push_back(Utterance {
                stream: stt.open(audio.sample_rate),
                finished: false,
            });
        }
        let Some(utterance) = self.streams.back_mut() else {
            return false;
        };
        utterance.stream.push(&audio.samples);
        if end {
            utterance.stream.finish();
            utterance.finished = true;
        }
        true
    }

    /// One item of the oldest utterance's stream.
    async fn streamed(&mut self, item: Option<Result<Transcript, VoiceError>>) -> bool {
        match item {
            Some(Ok(transcript)) if !transcript.is_final => {
                let text = transcript.text.trim();
                if text.is_empty() {
                    return true;
                }
                let event = AgentEvent::UserTranscription {
                    text: text.to_owned(),
                    is_final: false,
                };
                self.output.send(event).await.is_ok()
            }
            Some(result) => self.heard_text(result).await,
            None => {
                let Some(done) = self.streams.pop_front() else {
                    return true;
                };
                if !done.finished {
                    // It ended while the caller still speaks (its error was sent): the rest of
                    // this utterance is not heard.
                    self.broken = true;
                    return true;
                }
                self.end_of_speech().await
            }
        }
    }

    /// The caller began to speak: stop what the bot is doing.
    async fn barge_in(&self) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        shared.caller_took_floor();
        if shared.barge_in().await {
            tracing::debug!("barge-in: the caller talked over the bot");
            return self.output.send(AgentEvent::BotInterrupted).await.is_ok();
        }
        true
    }

    /// One transcript back; at the end of what the caller said (no speech since, no other
    /// utterance waiting), the text so far is the user's turn.
    async fn transcribed(&mut self, result: Result<Transcript, VoiceError>, end: bool) -> bool {
        if !self.heard_text(result).await {
            return false;
        }
        if end {
            return self.end_of_speech().await;
        }
        true
    }

    /// A final transcript (sent, and kept for the turn) or the STT's error (sent).
    async fn heard_text(&mut self, result: Result<Transcript, VoiceError>) -> bool {
        match result {
            Ok(transcript) => {
                let text = transcript.text.trim();
                if !text.is_empty() {
                    let event = AgentEvent::UserTranscription {
                        text: text.to_owned(),
                        is_final: true,
                    };
                    if self.output.send(event).await.is_err() {
                        return false;
                    }
                    self.said.push(text.to_owned());
                }
            }
            Err(e) => {
                // The error names the provider and what to do; what was said is lost.
                tracing::warn!(error = %e, "an utterance could not be transcribed");
                let event = AgentEvent::Error {
                    text: e.to_string(),
                    fatal: false,
                };
                if self.output.send(event).await.is_err() {
                    return false;
                }
            }
        }
        true
    }

    /// An utterance's text is all in: at the end of what the caller said (no speech since, no
    /// other utterance waiting), the text so far is the user's turn.
    async fn end_of_speech(&mut self) -> bool {
        let more_coming = self.speaking
            || self.queue.iter().any(|(_, end)| *end)
            || self.streams.iter().any(|u| u.finished);
        if !more_coming {
            let Some(shared) = self.shared.upgrade() else {
                return false;
            };
            if !self.said.is_empty() {
                let text = std::mem::take(&mut self.said).join(" ");
                shared.start(TurnInput::User(text)).await;
            }
            shared.floor_back().await;
        }
        true
    }
}
