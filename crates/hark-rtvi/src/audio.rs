//! Audio in `pipecat.Frame`s, as `@pipecat-ai/websocket-transport` sends and plays it.
//!
//! **In** (the microphone): the client sends `Frame{audio: AudioRawFrame{name: "audio",
//! audio, sample_rate, num_channels: 1}}` with little-endian PCM16 at its recorder rate
//! (16 000 Hz by default). [`input_audio`] checks one against [`AudioLimits`]: a rate outside the
//! limits, stereo, an odd byte count or an oversized frame is an [`AudioFrameError`] (the server
//! drops the frame and says why), never a panic.
//!
//! **Out** (the bot): the client plays every audio frame's bytes as PCM16 at its *player* rate
//! (24 000 Hz by default), whatever `sample_rate` the frame says, and it reads the bytes as an
//! `Int16Array`, which throws on an odd byte count. So the server resamples to the player rate
//! first and [`AudioFramer`] cuts the samples into frames of whole samples, 20 ms each by
//! default, encoded exactly as the client's own serializer encodes audio (`id` 0, `name`
//! "audio", no `pts`).

use std::time::{Duration, Instant};

use crate::frame::{AudioRawFrame, Frame, FrameKind};
use crate::messages;

/// The client's default recorder (microphone) rate.
pub const CLIENT_RECORDER_RATE: u32 = 16_000;
/// The client's default player rate: bot audio must be sent at this rate.
pub const CLIENT_PLAYER_RATE: u32 = 24_000;
/// The default length of an outbound audio frame, in milliseconds.
pub const DEFAULT_FRAME_MS: u32 = 20;

/// What an inbound audio frame may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AudioLimits {
    /// Lowest `sample_rate`, Hz. Default 8 000.
    pub min_sample_rate: u32,
    /// Highest `sample_rate`, Hz. Default 48 000.
    pub max_sample_rate: u32,
    /// Most audio bytes in one frame. Default 96 000 (one second at 48 kHz; the client sends
    /// 512 bytes at a time).
    pub max_audio_bytes: usize,
}

impl Default for AudioLimits {
    fn default() -> Self {
        Self {
            min_sample_rate: 8_000,
            max_sample_rate: 48_000,
            max_audio_bytes: 96_000,
        }
    }
}

/// Why an audio frame is not usable. `Display` is a client-readable sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AudioFrameError {
    /// `sample_rate` outside the limits (0 included: the field was not set).
    #[error("{}", messages::audio_sample_rate(*rate, *min, *max))]
    SampleRate {
        /// The rate sent.
        rate: u32,
        /// Lowest accepted.
        min: u32,
        /// Highest accepted.
        max: u32,
    },
    /// `num_channels` other than 1.
    #[error("{}", messages::audio_channels(*channels))]
    Channels {
        /// The count sent.
        channels: u32,
    },
    /// An odd number of audio bytes.
    #[error("{}", messages::audio_odd_length(*len))]
    OddLength {
        /// Bytes sent.
        len: usize,
    },
    /// More audio bytes than [`AudioLimits::max_audio_bytes`].
    #[error("{}", messages::audio_too_long(*len, *max))]
    TooLong {
        /// Bytes sent.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Audio arriving faster than it can have been recorded: more than [`AudioPace`]'s limit
    /// ahead of the clock.
    #[error("{}", messages::audio_too_fast(*ahead_ms, *max_ms))]
    TooFast {
        /// How far ahead of real time the audio would be with this frame, ms.
        ahead_ms: u64,
        /// The limit, ms.
        max_ms: u64,
    },
    /// An [`AudioFramer`] asked for frames that hold no sample.
    #[error("{}", messages::audio_frame_length(*frame_ms, *rate))]
    FrameLength {
        /// The frame length asked for.
        frame_ms: u32,
        /// The rate.
        rate: u32,
    },
}

/// Microphone audio from one frame: samples and their rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputAudio {
    /// PCM16 samples (mono).
    pub samples: Vec<i16>,
    /// Samples per second.
    pub sample_rate: u32,
}

/// The samples of an inbound `AudioRawFrame`, checked against `limits`.
pub fn input_audio(
    frame: &AudioRawFrame,
    limits: &AudioLimits,
) -> Result<InputAudio, AudioFrameError> {
    let rate = frame.sample_rate;
    if !(limits.min_sample_rate..=limits.max_sample_rate).contains(&rate) {
        return Err(AudioFrameError::SampleRate {
            rate,
            min: limits.min_sample_rate,
            max: limits.max_sample_rate,
        });
    }
    if frame.num_channels != 1 {
        return Err(AudioFrameError::Channels {
            channels: frame.num_channels,
        });
    }
    let len = frame.audio.len();
    if len > limits.max_audio_bytes {
        return Err(AudioFrameError::TooLong {
            len,
            max: limits.max_audio_bytes,
        });
    }
    if !len.is_multiple_of(2) {
        return Err(AudioFrameError::OddLength { len });
    }
    let samples = frame
        .audio
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    Ok(InputAudio {
        samples,
        sample_rate: rate,
    })
}

/// How far microphone audio may run ahead of real time by default: 10 s (a client catching up
/// after a network stall sends faster than it records, for a while).
pub const MAX_AUDIO_AHEAD: Duration = Duration::from_secs(10);

/// Keeps one call's microphone audio to the pace it can be recorded at: the audio received, less
/// the time gone by since it started (never below zero: silence banks no credit), may be at
/// most [`AudioPace::max_ahead`] ahead. A frame beyond that is [`AudioFrameError::TooFast`]:
/// a client pushing audio faster than real time would otherwise make the server run its VAD
/// (and the STT) as fast as it sends.
#[derive(Debug, Clone)]
pub struct AudioPace {
    max_ahead: Duration,
    ahead: Duration,
    last: Option<Instant>,
}

impl Default for AudioPace {
    fn default() -> Self {
        Self::new(MAX_AUDIO_AHEAD)
    }
}

impl AudioPace {
    /// A pace that lets audio run at most `max_ahead` ahead of real time.
    pub fn new(max_ahead: Duration) -> Self {
        Self {
            max_ahead,
            ahead: Duration::ZERO,
            last: None,
        }
    }

    /// The limit.
    pub fn max_ahead(&self) -> Duration {
        self.max_ahead
    }

    /// Takes `audio` (its length at its rate) arriving at `now`, or refuses it (then it does not
    /// count).
    ///
    /// # Errors
    /// [`AudioFrameError::TooFast`] when it would put the audio more than the limit ahead.
    pub fn admit(&mut self, audio: &InputAudio, now: Instant) -> Result<(), AudioFrameError> {
        let gone = self
            .last
            .map_or(Duration::ZERO, |last| now.saturating_duration_since(last));
        self.last = Some(now);
        self.ahead = self.ahead.saturating_sub(gone);
        let ahead = self.ahead + audio.duration();
        if ahead > self.max_ahead {
            return Err(AudioFrameError::TooFast {
                ahead_ms: ahead.as_millis() as u64,
                max_ms: self.max_ahead.as_millis() as u64,
            });
        }
        self.ahead = ahead;
        Ok(())
    }
}

impl InputAudio {
    /// How long the samples play.
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.samples.len() as f64 / f64::from(self.sample_rate.max(1)))
    }
}

impl Frame {
    /// The `AudioRawFrame` if this is an `audio` frame.
    pub fn audio_frame(&self) -> Option<&AudioRawFrame> {
        match &self.frame {
            Some(FrameKind::Audio(a)) => Some(a),
            _ => None,
        }
    }
}

/// Cuts bot audio (PCM16 mono at the client's player rate) into `pipecat.Frame` bytes of a
/// fixed length. Samples that do not fill a frame wait for the next [`AudioFramer::push`] or
/// leave as a shorter last frame on [`AudioFramer::flush`].
#[derive(Debug, Clone)]
pub struct AudioFramer {
    sample_rate: u32,
    frame_samples: usize,
    pending: Vec<i16>,
}

impl AudioFramer {
    /// Frames of `frame_ms` milliseconds at `sample_rate`.
    pub fn new(sample_rate: u32, frame_ms: u32) -> Result<Self, AudioFrameError> {
        let frame_samples = (u64::from(sample_rate) * u64::from(frame_ms) / 1000) as usize;
        if frame_samples == 0 {
            return Err(AudioFrameError::FrameLength {
                frame_ms,
                rate: sample_rate,
            });
        }
        Ok(Self {
            sample_rate,
            frame_samples,
            pending: Vec::new(),
        })
    }

    /// Samples per frame.
    pub fn frame_samples(&self) -> usize {
        self.frame_samples
    }

    /// The frames `samples` completes, encoded (binary WebSocket messages).
    pub fn push(&mut self, samples: &[i16]) -> Vec<Vec<u8>> {
        self.pending.extend_from_slice(samples);
        let whole = self.pending.len() / self.frame_samples * self.frame_samples;
        let out = self
            .pending
            .chunks_exact(self.frame_samples)
            .map(|f| encode_audio(f, self.sample_rate))
            .collect();
        self.pending.drain(..whole);
        out
    }

    /// The samples still waiting, as one shorter frame (`None` when there are none). For the end
    /// of a line.
    pub fn flush(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            return None;
        }
        let frame = encode_audio(&self.pending, self.sample_rate);
        self.pending.clear();
        Some(frame)
    }

    /// Drops the samples still waiting (the line was cut off).
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

/// One `audio` frame of `samples` at `sample_rate`, encoded as the client's serializer encodes
/// audio.
pub fn encode_audio(samples: &[i16], sample_rate: u32) -> Vec<u8> {
    let pcm = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    Frame::audio(pcm, sample_rate, 1).to_bytes()
}

#[cfg(test)]
mod pace_tests {
    use super::*;

    fn seconds(s: f64) -> InputAudio {
        InputAudio {
            samples: vec![0; (s * 16_000.0) as usize],
            sample_rate: 16_000,
        }
    }

    #[test]
    fn audio_at_real_time_pace_is_never_refused() {
        let mut pace = AudioPace::new(Duration::from_secs(1));
        let start = Instant::now();
        for i in 0..1_000u64 {
            let now = start + Duration::from_millis(20 * i);
            pace.admit(&seconds(0.02), now).unwrap();
        }
    }

    #[test]
    fn audio_beyond_the_limit_ahead_is_refused_and_the_clock_lets_it_in_again() {
        let mut pace = AudioPace::new(Duration::from_secs(10));
        let start = Instant::now();
        for _ in 0..3 {
            pace.admit(&seconds(3.0), start).unwrap();
        }
        let refused = pace.admit(&seconds(3.0), start).unwrap_err();
        assert_eq!(
            refused,
            AudioFrameError::TooFast {
                ahead_ms: 12_000,
                max_ms: 10_000
            }
        );
        assert!(
            refused
                .to_string()
                .starts_with("microphone audio arrives faster than real time: with this frame it would be 12.0 s ahead of the clock, more than the 10.0 s allowed"),
            "{refused}"
        );
        // A refused frame does not count: 1 s still fits.
        pace.admit(&seconds(1.0), start).unwrap();
        // Two seconds later, two more seconds fit, not three.
        let later = start + Duration::from_secs(2);
        pace.admit(&seconds(2.0), later).unwrap();
        assert!(pace.admit(&seconds(0.1), later).is_err());
    }

    #[test]
    fn silence_on_the_wire_banks_no_credit() {
        let mut pace = AudioPace::new(Duration::from_secs(1));
        let start = Instant::now();
        pace.admit(&seconds(0.5), start).unwrap();
        // A minute without audio, then a burst: only the limit fits.
        let later = start + Duration::from_secs(60);
        pace.admit(&seconds(1.0), later).unwrap();
        assert!(pace.admit(&seconds(0.02), later).is_err());
    }
}
