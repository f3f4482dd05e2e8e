//! Sample-rate conversion of a PCM16 mono stream, chunk by chunk, with rubato's FFT resampler
//! (a fixed ratio: a provider's rate to the rate the client plays).

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Fft, FixedSync, Indexing, Resampler as _};

use crate::audio::{AudioChunk, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
use crate::error::VoiceError;

/// Converts a stream of chunks at one rate to another. Feed chunks with [`Resampler::push`];
/// call [`Resampler::finish`] at the end of the stream for the samples still inside the filter.
/// The output has no start-up delay: the first output sample lines up with the first input one,
/// and the whole output is `input_len * to / from` samples (rounded).
pub struct Resampler {
    from: u32,
    to: u32,
    inner: Option<Inner>,
}

struct Inner {
    fft: Fft<f32>,
    pending: Vec<f32>,
    out: Vec<f32>,
    /// Output frames still to drop (the filter's delay).
    skip: usize,
    input_total: u64,
    output_total: u64,
}

impl std::fmt::Debug for Resampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resampler")
            .field("from", &self.from)
            .field("to", &self.to)
            .finish_non_exhaustive()
    }
}

/// Input frames per FFT call: 20 ms at the input rate.
fn chunk_frames(rate: u32) -> usize {
    (rate as usize / 50).max(1)
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz. Both must be within
    /// [`MIN_SAMPLE_RATE`]..=[`MAX_SAMPLE_RATE`]; equal rates pass samples through unchanged.
    pub fn new(from: u32, to: u32) -> Result<Self, VoiceError> {
        for rate in [from, to] {
            if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
                return Err(VoiceError::SampleRate { rate });
            }
        }
        if from == to {
            return Ok(Self {
                from,
                to,
                inner: None,
            });
        }
        let fft = Fft::<f32>::new(
            from as usize,
            to as usize,
            chunk_frames(from),
            1,
            FixedSync::Input,
        )
        .map_err(|e| VoiceError::Resample {
            detail: e.to_string(),
        })?;
        let skip = fft.output_delay();
        let out = vec![0.0; fft.output_frames_max()];
        Ok(Self {
            from,
            to,
            inner: Some(Inner {
                fft,
                pending: Vec::new(),
                out,
                skip,
                input_total: 0,
                output_total: 0,
            }),
        })
    }

    /// The input rate.
    pub fn from_rate(&self) -> u32 {
        self.from
    }

    /// The output rate.
    pub fn to_rate(&self) -> u32 {
        self.to
    }

    /// Resamples `samples` (at the input rate); returns what is ready at the output rate
    /// (possibly nothing yet: the filter works on 20 ms at a time).
    pub fn push(&mut self, samples: &[i16]) -> AudioChunk {
        let Some(inner) = self.inner.as_mut() else {
            return AudioChunk::new(samples.to_vec(), self.to);
        };
        inner.input_total += samples.len() as u64;
        inner
            .pending
            .extend(samples.iter().map(|&s| f32::from(s) / 32768.0));
        let mut produced = Vec::new();
        loop {
            let need = inner.fft.input_frames_next();
            if inner.pending.len() < need {
                break;
            }
            inner.run(need, None, &mut produced);
            inner.pending.drain(..need);
        }
        AudioChunk::new(produced, self.to)
    }

    /// The rest of the stream: the pending input and the filter's tail, so that the output holds
    /// exactly `input_len * to / from` samples (rounded). The resampler is ready for a new
    /// stream afterwards.
    pub fn finish(&mut self) -> AudioChunk {
        let (from, to) = (self.from, self.to);
        let Some(inner) = self.inner.as_mut() else {
            return AudioChunk::new(Vec::new(), to);
        };
        let expected = (inner.input_total * u64::from(to) + u64::from(from) / 2) / u64::from(from);
        let mut produced = Vec::new();
        // Feed silence (partial chunks) until the output has caught up with the input.
        let mut guard = 0;
        while inner.output_total < expected && guard < 64 {
            let need = inner.fft.input_frames_next();
            let have = inner.pending.len().min(need);
            inner.pending.resize(need, 0.0);
            inner.run(need, Some(have), &mut produced);
            inner.pending.clear();
            guard += 1;
        }
        let over = inner.output_total.saturating_sub(expected) as usize;
        produced.truncate(produced.len().saturating_sub(over));
        inner.fft.reset();
        inner.skip = inner.fft.output_delay();
        inner.input_total = 0;
        inner.output_total = 0;
        AudioChunk::new(produced, to)
    }
}

impl Inner {
    fn run(&mut self, frames: usize, partial: Option<usize>, produced: &mut Vec<i16>) {
        let Ok(input) = InterleavedSlice::new(&self.pending[..frames], 1, frames) else {
            return;
        };
        let capacity = self.out.len();
        let Ok(mut output) = InterleavedSlice::new_mut(&mut self.out, 1, capacity) else {
            return;
        };
        let indexing = partial.map(|n| Indexing::new().partial_len(n));
        let Ok((_, written)) = self
            .fft
            .process_into_buffer(&input, &mut output, indexing.as_ref())
        else {
            return;
        };
        let dropped = self.skip.min(written);
        self.skip -= dropped;
        for &s in &self.out[dropped..written] {
            produced.push(to_i16(s));
        }
        self.output_total += (written - dropped) as u64;
    }
}

fn to_i16(s: f32) -> i16 {
    (s * 32768.0).round().clamp(-32768.0, 32767.0) as i16
}

/// Resamples a whole chunk to `to` Hz (a chunk already at `to` is returned unchanged).
pub fn resample_chunk(chunk: &AudioChunk, to: u32) -> Result<AudioChunk, VoiceError> {
    let mut r = Resampler::new(chunk.sample_rate, to)?;
    let mut out = r.push(&chunk.samples);
    out.samples.extend(r.finish().samples);
    Ok(out)
}
