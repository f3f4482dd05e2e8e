//! The volume Pipecat 1.14's `VADAnalyzer` gates speech on: ITU-R BS.1770 loudness (K-weighted,
//! one 400 ms gating block, absolute gate at −70 LUFS) of the last 400 ms of audio, mapped from
//! −110..−10 LUFS to 0..1 and smoothed exponentially (factor 0.2) window by window.
//!
//! As Pipecat's `AudioVolumeTracker`: the volume reads 0 until 400 ms of audio have arrived;
//! each measure filters the window from a rested filter (pipecat's `loudness` call on the
//! window alone). The K-weighting filter is libebur128's, designed for any sample rate.

use std::collections::VecDeque;

/// Seconds of audio the volume is measured over (a BS.1770 gating block).
pub const VOLUME_WINDOW_SECS: f64 = 0.4;
/// Pipecat's smoothing factor: `volume = prev + 0.2 * (measured - prev)`.
pub const SMOOTHING_FACTOR: f64 = 0.2;
/// BS.1770's absolute gate.
const ABSOLUTE_GATE_LUFS: f64 = -70.0;

#[derive(Debug, Clone, Copy)]
struct Biquad {
    b: [f64; 3],
    a: [f64; 2],
}

impl Biquad {
    fn run(&self, x: &[f64], out: &mut Vec<f64>) {
        out.clear();
        let (mut x1, mut x2, mut y1, mut y2) = (0.0, 0.0, 0.0, 0.0);
        for &x0 in x {
            let y0 =
                self.b[0] * x0 + self.b[1] * x1 + self.b[2] * x2 - self.a[0] * y1 - self.a[1] * y2;
            x2 = x1;
            x1 = x0;
            y2 = y1;
            y1 = y0;
            out.push(y0);
        }
    }
}

/// The two K-weighting stages (high shelf, then high pass) at `rate`, as libebur128 designs
/// them.
fn k_weighting(rate: u32) -> [Biquad; 2] {
    let rate = f64::from(rate);
    let f0 = 1_681.974_450_955_533;
    let g = 3.999_843_853_973_347;
    let q = 0.707_175_236_955_419_6;
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let vh = 10f64.powf(g / 20.0);
    let vb = vh.powf(0.499_666_774_154_541_6);
    let a0 = 1.0 + k / q + k * k;
    let shelf = Biquad {
        b: [
            (vh + vb * k / q + k * k) / a0,
            2.0 * (k * k - vh) / a0,
            (vh - vb * k / q + k * k) / a0,
        ],
        a: [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    let f0 = 38.135_470_876_024_44;
    let q = 0.500_327_037_323_877_3;
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let a0 = 1.0 + k / q + k * k;
    let high_pass = Biquad {
        b: [1.0, -2.0, 1.0],
        a: [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    [shelf, high_pass]
}

/// BS.1770 loudness of one gating block of samples (−1..1), or `None` below the absolute gate.
fn block_loudness(
    filters: &[Biquad; 2],
    block: &[f64],
    scratch: &mut [Vec<f64>; 2],
) -> Option<f64> {
    if block.is_empty() {
        return None;
    }
    let [a, b] = scratch;
    filters[0].run(block, a);
    filters[1].run(a, b);
    let energy = b.iter().map(|y| y * y).sum::<f64>() / b.len() as f64;
    let lufs = -0.691 + 10.0 * energy.log10();
    (lufs.is_finite() && lufs >= ABSOLUTE_GATE_LUFS).then_some(lufs)
}

/// Pipecat's volume of `block`: loudness mapped from −110..−10 LUFS to 0..1 (0 below the gate).
pub fn block_volume(rate: u32, block: &[i16]) -> f64 {
    let filters = k_weighting(rate);
    let x: Vec<f64> = block.iter().map(|&s| f64::from(s) / 32768.0).collect();
    let mut scratch = [Vec::new(), Vec::new()];
    normalize(block_loudness(&filters, &x, &mut scratch))
}

fn normalize(lufs: Option<f64>) -> f64 {
    lufs.map_or(0.0, |l| ((l + 110.0) / 100.0).clamp(0.0, 1.0))
}

/// The rolling 400 ms window and the smoothed volume. Holds at most 400 ms of samples.
#[derive(Debug)]
pub struct VolumeMeter {
    filters: [Biquad; 2],
    len: usize,
    window: VecDeque<f64>,
    block: Vec<f64>,
    scratch: [Vec<f64>; 2],
    smoothed: f64,
}

impl VolumeMeter {
    /// A meter for audio at `rate`.
    pub fn new(rate: u32) -> Self {
        let len = (VOLUME_WINDOW_SECS * f64::from(rate)).ceil() as usize;
        Self {
            filters: k_weighting(rate),
            len,
            window: VecDeque::with_capacity(len),
            block: Vec::with_capacity(len),
            scratch: [Vec::with_capacity(len), Vec::with_capacity(len)],
            smoothed: 0.0,
        }
    }

    /// Adds one model window of samples (−1..1) and returns the smoothed volume after it.
    pub fn push(&mut self, samples: &[f32]) -> f64 {
        for &s in samples {
            if self.window.len() == self.len {
                self.window.pop_front();
            }
            self.window.push_back(f64::from(s));
        }
        let measured = if self.window.len() == self.len {
            self.block.clear();
            self.block.extend(self.window.iter().copied());
            normalize(block_loudness(
                &self.filters,
                &self.block,
                &mut self.scratch,
            ))
        } else {
            0.0
        };
        self.smoothed += SMOOTHING_FACTOR * (measured - self.smoothed);
        self.smoothed
    }

    /// Samples held (at most 400 ms' worth).
    pub fn held(&self) -> usize {
        self.window.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_is_zero_and_a_full_scale_tone_is_loud() {
        assert_eq!(block_volume(16_000, &[0; 6400]), 0.0);
        let tone: Vec<i16> = (0..6400)
            .map(|i| {
                ((i as f64 * 2.0 * std::f64::consts::PI * 1000.0 / 16_000.0).sin() * 32767.0) as i16
            })
            .collect();
        // A 1 kHz sine at full scale: about −3 LUFS (K-weighting gains ~0.7 dB at 1 kHz), so 1.
        assert_eq!(block_volume(16_000, &tone), 1.0);
    }

    #[test]
    fn the_window_never_holds_more_than_400_ms() {
        let mut m = VolumeMeter::new(16_000);
        for _ in 0..100 {
            m.push(&[0.1; 512]);
        }
        assert_eq!(m.held(), 6400);
    }
}
