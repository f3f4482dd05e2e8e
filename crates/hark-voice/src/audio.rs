//! PCM16 mono audio: one chunk of samples with its sample rate, and the byte carry that turns a
//! network byte stream (which may split a sample between two reads) into whole samples.

use std::time::Duration;

/// Lowest sample rate Hark takes for speech (telephone audio).
pub const MIN_SAMPLE_RATE: u32 = 8_000;
/// Highest sample rate Hark takes for speech.
pub const MAX_SAMPLE_RATE: u32 = 48_000;

/// A run of 16-bit signed mono samples at `sample_rate` samples per second.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AudioChunk {
    /// The samples, in order.
    pub samples: Vec<i16>,
    /// Samples per second.
    pub sample_rate: u32,
}

impl AudioChunk {
    /// A chunk of `samples` at `sample_rate`.
    pub fn new(samples: Vec<i16>, sample_rate: u32) -> Self {
        Self {
            samples,
            sample_rate,
        }
    }

    /// The samples of little-endian PCM16 bytes (`s16le`); `None` when the length is odd
    /// (half a sample: not PCM16).
    pub fn from_le_bytes(bytes: &[u8], sample_rate: u32) -> Option<Self> {
        if !bytes.len().is_multiple_of(2) {
            return None;
        }
        let samples = bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        Some(Self::new(samples, sample_rate))
    }

    /// The samples as little-endian PCM16 bytes, what the wire and the providers carry.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.samples.iter().flat_map(|s| s.to_le_bytes()).collect()
    }

    /// How long the chunk plays (zero for a rate of 0).
    pub fn duration(&self) -> Duration {
        if self.sample_rate == 0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(self.samples.len() as f64 / f64::from(self.sample_rate))
    }

    /// Whether the chunk has no samples.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The largest absolute sample value (0 for silence).
    pub fn peak(&self) -> u16 {
        self.samples
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap_or(0)
    }

    /// Root mean square of the samples, on the 0..=32768 scale (0 for silence or no samples).
    pub fn rms(&self) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.samples.iter().map(|&s| f64::from(s).powi(2)).sum();
        (sum / self.samples.len() as f64).sqrt()
    }
}

/// Joins byte reads into whole PCM16 samples: a read that ends in the middle of a sample keeps
/// its last byte for the next one.
#[derive(Debug, Default)]
pub struct Pcm16Carry {
    odd: Option<u8>,
    total_bytes: u64,
}

impl Pcm16Carry {
    /// A carry with nothing kept.
    pub fn new() -> Self {
        Self::default()
    }

    /// The whole samples of `bytes` after any byte kept from the last read.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<i16> {
        self.total_bytes += bytes.len() as u64;
        let mut out = Vec::with_capacity(bytes.len() / 2 + 1);
        let mut rest = bytes;
        if let Some(first) = self.odd.take() {
            match rest.split_first() {
                Some((&second, tail)) => {
                    out.push(i16::from_le_bytes([first, second]));
                    rest = tail;
                }
                None => {
                    self.odd = Some(first);
                    return out;
                }
            }
        }
        let mut pairs = rest.chunks_exact(2);
        out.extend(pairs.by_ref().map(|b| i16::from_le_bytes([b[0], b[1]])));
        self.odd = pairs.remainder().first().copied();
        out
    }

    /// Whether half a sample is still kept (a stream that ends here was cut inside a sample).
    pub fn has_partial(&self) -> bool {
        self.odd.is_some()
    }

    /// Every byte pushed so far.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
}
