//! Voice activity detection (feature `vad`): Silero VAD under tract, and the turns Pipecat 1.14's
//! `VADAnalyzer` makes of it.
//!
//! [`Vad`] takes PCM16 mono chunks of any size at any rate in
//! [`MIN_SAMPLE_RATE`]..=[`MAX_SAMPLE_RATE`] (8 kHz and 16 kHz go to the model as they are,
//! other rates through [`Resampler`] to 16 kHz) and returns [`VadEvent`]s with their stream
//! times. Per window (32 ms at 16 kHz, as Pipecat's `SileroVADAnalyzer`): the model's
//! confidence and the smoothed volume ([`volume`]) decide whether the window is speech, and
//! the turn machine ([`machine`]) confirms a start after `round(start_secs / window)` speech
//! windows in a row and a stop after `round(stop_secs / window)` non-speech windows in a row.
//! Like Pipecat's analyzer, the model's recurrent state is reset after 2 s of audio at the first
//! clearly quiet moment (the VAD quiet and 5 windows in a row under 0.1).
//!
//! The model file is [`VAD_MODEL_FILE`] in the model directory ([`model_dir`]), put there and
//! checked by `scripts/fetch-model.sh` (from PyPI `silero-vad` 6.2.3, the same file as in
//! pipecat-ai 1.14.0's wheel). Memory per stream is bounded: one window, 400 ms for the volume,
//! the resampler's 20 ms, whatever the stream's length.

pub mod machine;
mod onnx_if;
pub mod silero;
pub mod volume;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use machine::{Transition, TurnMachine, VadState};
pub use silero::{SileroModel, SileroState};
pub use volume::VolumeMeter;

use crate::audio::{AudioChunk, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
use crate::error::VoiceError;
use crate::resample::Resampler;

/// The Silero VAD model's file in the model directory.
pub const VAD_MODEL_FILE: &str = "silero_vad.onnx";
/// The environment variable naming the model directory.
pub const MODEL_DIR_ENV: &str = "HARK_MODEL_DIR";

/// Pipecat 1.14's `VAD_CONFIDENCE`.
pub const DEFAULT_CONFIDENCE: f32 = 0.7;
/// Pipecat 1.14's `VAD_START_SECS`.
pub const DEFAULT_START_SECS: f32 = 0.2;
/// Pipecat 1.14's `VAD_STOP_SECS`.
pub const DEFAULT_STOP_SECS: f32 = 0.2;
/// Pipecat 1.14's `VAD_MIN_VOLUME`.
pub const DEFAULT_MIN_VOLUME: f32 = 0.6;

/// Seconds of audio between model resets (Pipecat's `_MODEL_RESET_INTERVAL_SECS`).
const RESET_INTERVAL_SECS: u64 = 2;
/// A due reset waits for this many windows in a row under [`RESET_MAX_CONFIDENCE`].
const RESET_LOW_WINDOWS: u32 = 5;
const RESET_MAX_CONFIDENCE: f32 = 0.1;

/// The model directory: `$HARK_MODEL_DIR`, else `$XDG_CACHE_HOME/hark/models`, else
/// `$HOME/.cache/hark/models` (the rule of `scripts/fetch-model.sh` and of hark-classify's
/// embedding model); `None` when none of these variables is set.
pub fn model_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(MODEL_DIR_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("hark/models")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/hark/models")))
}

/// Pipecat's `VADParams`, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VadParams {
    /// Lowest model confidence that counts as speech.
    pub confidence: f32,
    /// Speech this long (in windows, rounded) confirms a start.
    pub start_secs: f32,
    /// Non-speech this long (in windows, rounded) confirms a stop.
    pub stop_secs: f32,
    /// Lowest smoothed volume (0..1) that counts as speech.
    pub min_volume: f32,
}

impl Default for VadParams {
    fn default() -> Self {
        Self {
            confidence: DEFAULT_CONFIDENCE,
            start_secs: DEFAULT_START_SECS,
            stop_secs: DEFAULT_STOP_SECS,
            min_volume: DEFAULT_MIN_VOLUME,
        }
    }
}

impl VadParams {
    fn check(&self) -> Result<(), VoiceError> {
        let bad = |detail: String| Err(VoiceError::Vad { detail });
        for (name, v) in [
            ("confidence", self.confidence),
            ("min_volume", self.min_volume),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return bad(format!("{name} is {v}; use a value from 0 to 1"));
            }
        }
        for (name, v) in [
            ("start_secs", self.start_secs),
            ("stop_secs", self.stop_secs),
        ] {
            if !(v.is_finite() && (0.0..=60.0).contains(&v)) {
                return bad(format!("{name} is {v}; use seconds from 0 to 60"));
            }
        }
        Ok(())
    }

    /// Windows in a row that confirm a start and a stop at `rate`: Pipecat's
    /// `round(secs / (window / rate))` (Python rounds halves to even, as here).
    pub fn frames(&self, rate: u32) -> (u32, u32) {
        let window = silero::window_len(rate) as f64 / f64::from(rate);
        let count = |secs: f32| (f64::from(secs) / window).round_ties_even() as u32;
        (count(self.start_secs), count(self.stop_secs))
    }
}

/// A turn boundary, at its stream time: the audio's time (from the first sample pushed) at the
/// end of the window that confirmed it, when Pipecat's analyzer would report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VadEvent {
    /// Speech confirmed (it began about `start_secs` earlier).
    SpeechStarted {
        /// Stream time.
        at: Duration,
    },
    /// Speech over (it ended about `stop_secs` earlier).
    SpeechStopped {
        /// Stream time.
        at: Duration,
    },
}

/// One stream's voice activity detection.
#[derive(Debug)]
pub struct Vad {
    input_rate: u32,
    model_rate: u32,
    params: VadParams,
    resampler: Option<Resampler>,
    model: SileroState,
    volume: VolumeMeter,
    machine: TurnMachine,
    /// Samples at the model rate not yet a whole window.
    pending: Vec<f32>,
    window: Vec<f32>,
    windows: u64,
    since_reset: u64,
    low_windows: u32,
}

impl Vad {
    /// Loads [`VAD_MODEL_FILE`] from the model directory ([`model_dir`]) for a stream at
    /// `input_rate`.
    pub fn from_model_dir(input_rate: u32, params: VadParams) -> Result<Self, VoiceError> {
        let dir = model_dir().ok_or_else(|| VoiceError::VadModel {
            path: VAD_MODEL_FILE.into(),
            reason: "no model directory (set HARK_MODEL_DIR or HOME)".into(),
        })?;
        Self::load(&dir.join(VAD_MODEL_FILE), input_rate, params)
    }

    /// Loads the model at `path` for a stream at `input_rate`.
    pub fn load(path: &Path, input_rate: u32, params: VadParams) -> Result<Self, VoiceError> {
        check_rate(input_rate)?;
        let model = SileroModel::load(path, model_rate(input_rate))?;
        Self::with_model(model, input_rate, params)
    }

    /// A stream at `input_rate` over an already loaded model (one model serves many streams;
    /// its rate must be the one [`Vad::model_rate_for`] gives for `input_rate`).
    pub fn with_model(
        model: SileroModel,
        input_rate: u32,
        params: VadParams,
    ) -> Result<Self, VoiceError> {
        check_rate(input_rate)?;
        params.check()?;
        let model_rate = model_rate(input_rate);
        if model.rate() != model_rate {
            return Err(VoiceError::Vad {
                detail: format!(
                    "the model is planned for {} Hz but a stream at {input_rate} Hz needs it at {model_rate} Hz",
                    model.rate()
                ),
            });
        }
        let resampler = (input_rate != model_rate)
            .then(|| Resampler::new(input_rate, model_rate))
            .transpose()?;
        let (start, stop) = params.frames(model_rate);
        Ok(Self {
            input_rate,
            model_rate,
            params,
            resampler,
            model: SileroState::new(model),
            volume: VolumeMeter::new(model_rate),
            machine: TurnMachine::new(start, stop),
            pending: Vec::with_capacity(silero::window_len(model_rate)),
            window: Vec::with_capacity(silero::window_len(model_rate)),
            windows: 0,
            since_reset: 0,
            low_windows: 0,
        })
    }

    /// The rate the model runs at for a stream at `input_rate`: 8 000 Hz for 8 kHz audio,
    /// 16 000 Hz for every other rate.
    pub fn model_rate_for(input_rate: u32) -> u32 {
        model_rate(input_rate)
    }

    /// The stream's rate.
    pub fn input_rate(&self) -> u32 {
        self.input_rate
    }

    /// The parameters in use.
    pub fn params(&self) -> VadParams {
        self.params
    }

    /// The turn state after the last window.
    pub fn state(&self) -> VadState {
        self.machine.state()
    }

    /// Stream time analysed so far (whole windows).
    pub fn analysed(&self) -> Duration {
        window_end(self.windows, self.model_rate)
    }

    /// Samples held between calls (less than a window, plus the volume's 400 ms): constant
    /// however long the stream.
    pub fn held_samples(&self) -> usize {
        self.pending.len() + self.volume.held()
    }

    /// Analyses `chunk` (its rate must be the stream's) and returns the turn boundaries it
    /// confirmed, in order.
    pub fn push(&mut self, chunk: &AudioChunk) -> Result<Vec<VadEvent>, VoiceError> {
        if chunk.sample_rate != self.input_rate {
            return Err(VoiceError::Vad {
                detail: format!(
                    "a chunk at {} Hz in a stream at {} Hz; start a new Vad for a new rate",
                    chunk.sample_rate, self.input_rate
                ),
            });
        }
        self.push_samples(&chunk.samples)
    }

    /// Analyses samples at the stream's rate.
    pub fn push_samples(&mut self, samples: &[i16]) -> Result<Vec<VadEvent>, VoiceError> {
        let mut events = Vec::new();
        let resampled;
        let at_model_rate: &[i16] = match self.resampler.as_mut() {
            Some(r) => {
                resampled = r.push(samples);
                &resampled.samples
            }
            None => samples,
        };
        let w = silero::window_len(self.model_rate);
        for chunk in at_model_rate.chunks(w) {
            let room = w - self.pending.len();
            let (now, later) = chunk.split_at(room.min(chunk.len()));
            self.pending
                .extend(now.iter().map(|&s| f32::from(s) / 32768.0));
            if self.pending.len() == w {
                std::mem::swap(&mut self.pending, &mut self.window);
                self.pending.clear();
                if let Some(e) = self.run_window()? {
                    events.push(e);
                }
                self.pending
                    .extend(later.iter().map(|&s| f32::from(s) / 32768.0));
            }
        }
        Ok(events)
    }

    fn run_window(&mut self) -> Result<Option<VadEvent>, VoiceError> {
        let confidence = self.model.run(&self.window)?;
        self.maybe_reset_model(confidence);
        let volume = self.volume.push(&self.window);
        self.windows += 1;
        let speaking =
            confidence >= self.params.confidence && volume >= f64::from(self.params.min_volume);
        let at = window_end(self.windows, self.model_rate);
        Ok(self.machine.window(speaking).map(|t| match t {
            Transition::Started => VadEvent::SpeechStarted { at },
            Transition::Stopped => VadEvent::SpeechStopped { at },
        }))
    }

    /// Pipecat's `_maybe_reset_model`: after 2 s of audio, the first window where the VAD is
    /// quiet (its state before this window) and 5 windows in a row scored under 0.1.
    fn maybe_reset_model(&mut self, confidence: f32) {
        self.since_reset += 1;
        if confidence < RESET_MAX_CONFIDENCE {
            self.low_windows += 1;
        } else {
            self.low_windows = 0;
        }
        let w = silero::window_len(self.model_rate) as u64;
        if self.since_reset * w >= RESET_INTERVAL_SECS * u64::from(self.model_rate)
            && self.machine.state() == VadState::Quiet
            && self.low_windows >= RESET_LOW_WINDOWS
        {
            self.model.reset();
            self.since_reset = 0;
        }
    }
}

fn check_rate(rate: u32) -> Result<(), VoiceError> {
    if (MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
        Ok(())
    } else {
        Err(VoiceError::SampleRate { rate })
    }
}

fn model_rate(input_rate: u32) -> u32 {
    if input_rate == 8_000 { 8_000 } else { 16_000 }
}

fn window_end(windows: u64, rate: u32) -> Duration {
    let samples = windows * silero::window_len(rate) as u64;
    Duration::from_nanos(samples * 1_000_000_000 / u64::from(rate))
}
