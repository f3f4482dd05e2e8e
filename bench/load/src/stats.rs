//! Latency samples and counters: each session records its own (a few samples per session), and
//! they are merged into HDR histograms at the end.

use hdrhistogram::Histogram;
use serde::Serialize;

/// The largest latency recorded: one hour, in microseconds.
const MAX_US: u64 = 3_600_000_000;

/// Latency percentiles in milliseconds (microsecond resolution, 3 significant digits).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Percentiles {
    /// Samples.
    pub count: u64,
    /// Median, ms.
    pub p50: f64,
    /// 90th percentile, ms.
    pub p90: f64,
    /// 99th percentile, ms.
    pub p99: f64,
    /// Largest sample, ms.
    pub max: f64,
}

/// An HDR histogram of latencies from 1 µs to 1 h, 3 significant digits.
#[derive(Debug, Clone)]
pub struct Latencies {
    hist: Histogram<u64>,
}

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

impl Latencies {
    /// An empty histogram.
    pub fn new() -> Self {
        let hist = Histogram::new_with_bounds(1, MAX_US, 3)
            .expect("1 µs .. 1 h at 3 significant digits are valid constant bounds");
        Latencies { hist }
    }

    /// Records samples given in microseconds.
    pub fn record_micros(&mut self, samples: &[u64]) {
        for &us in samples {
            self.hist.saturating_record(us.clamp(1, MAX_US));
        }
    }

    /// The percentiles (all zero when empty).
    pub fn percentiles(&self) -> Percentiles {
        if self.hist.is_empty() {
            return Percentiles::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Percentiles {
            count: self.hist.len(),
            p50: ms(self.hist.value_at_quantile(0.50)),
            p90: ms(self.hist.value_at_quantile(0.90)),
            p99: ms(self.hist.value_at_quantile(0.99)),
            max: ms(self.hist.max()),
        }
    }
}

/// What one session saw, merged at the end with [`Counts::add`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    /// Sessions whose WebSocket connect failed or timed out.
    pub connect_failed: u64,
    /// Sessions connected whose `bot-ready` never came (closed or timed out).
    pub handshake_failed: u64,
    /// Sessions the server closed (or whose socket broke) before the generator stopped.
    pub closed_early: u64,
    /// Sends that failed on an open session.
    pub send_failed: u64,
    /// Snapshots sent.
    pub snapshots: u64,
    /// Click turns sent / answered with the right command.
    pub click_turns: u64,
    /// Click turns answered with a `ui-command` for the right element from the turn's snapshot.
    pub clicks_ok: u64,
    /// Right element, but from a snapshot sent after the turn's (the turn outlived 300 ms).
    pub clicks_newer_snapshot: u64,
    /// A command whose ref was from an older snapshot than the turn's: a stale ref.
    pub clicks_stale_ref: u64,
    /// A command for another element, or a ref not made by the generator.
    pub clicks_wrong_element: u64,
    /// Click turns with no command within the turn timeout.
    pub click_timeouts: u64,
    /// Text turns sent.
    pub text_turns: u64,
    /// Text turns answered with bot text.
    pub texts_ok: u64,
    /// Text turns with no bot text within the turn timeout.
    pub text_timeouts: u64,
    /// `ui-command`s that arrived with no click turn waiting (e.g. after its timeout).
    pub unexpected_commands: u64,
    /// `error` messages from the server.
    pub server_errors: u64,
    /// `error-response` messages from the server.
    pub error_responses: u64,
    /// Frames that were not a pipecat.Frame with RTVI JSON.
    pub bad_frames: u64,
    /// Turns still waiting when the run ended (not errors).
    pub unfinished: u64,
}

impl Counts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, o: &Counts) {
        self.connect_failed += o.connect_failed;
        self.handshake_failed += o.handshake_failed;
        self.closed_early += o.closed_early;
        self.send_failed += o.send_failed;
        self.snapshots += o.snapshots;
        self.click_turns += o.click_turns;
        self.clicks_ok += o.clicks_ok;
        self.clicks_newer_snapshot += o.clicks_newer_snapshot;
        self.clicks_stale_ref += o.clicks_stale_ref;
        self.clicks_wrong_element += o.clicks_wrong_element;
        self.click_timeouts += o.click_timeouts;
        self.text_turns += o.text_turns;
        self.texts_ok += o.texts_ok;
        self.text_timeouts += o.text_timeouts;
        self.unexpected_commands += o.unexpected_commands;
        self.server_errors += o.server_errors;
        self.error_responses += o.error_responses;
        self.bad_frames += o.bad_frames;
        self.unfinished += o.unfinished;
    }

    /// Every count that is an error: failed handshakes and connects, early closes, failed
    /// sends, wrong or stale commands, timeouts, server errors, bad frames.
    pub fn errors(&self) -> u64 {
        self.connect_failed
            + self.handshake_failed
            + self.closed_early
            + self.send_failed
            + self.clicks_stale_ref
            + self.clicks_wrong_element
            + self.click_timeouts
            + self.text_timeouts
            + self.unexpected_commands
            + self.server_errors
            + self.error_responses
            + self.bad_frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_a_thousand_ms() {
        let mut l = Latencies::new();
        let samples: Vec<u64> = (1..=1000u64).map(|ms| ms * 1000).collect();
        l.record_micros(&samples);
        let p = l.percentiles();
        assert_eq!(p.count, 1000);
        // 3 significant digits: within 0.1 % of the exact rank.
        assert!((p.p50 - 500.0).abs() <= 0.5, "{p:?}");
        assert!((p.p90 - 900.0).abs() <= 0.9, "{p:?}");
        assert!((p.p99 - 990.0).abs() <= 1.0, "{p:?}");
        assert!((p.max - 1000.0).abs() <= 1.0, "{p:?}");
    }

    #[test]
    fn an_empty_histogram_reads_zero_and_micros_merge() {
        assert_eq!(Latencies::new().percentiles(), Percentiles::default());
        let mut l = Latencies::new();
        l.record_micros(&[250, 250, 250, 9_000]);
        let p = l.percentiles();
        assert_eq!(p.count, 4);
        assert!((p.p50 - 0.25).abs() < 0.001, "{p:?}");
        assert!((p.max - 9.0).abs() < 0.01, "{p:?}");
    }

    #[test]
    fn errors_sum_the_error_counts_only() {
        let mut a = Counts {
            clicks_ok: 5,
            click_timeouts: 1,
            server_errors: 2,
            ..Counts::default()
        };
        let b = Counts {
            handshake_failed: 3,
            unfinished: 4,
            ..Counts::default()
        };
        a.add(&b);
        assert_eq!(a.errors(), 6);
        assert_eq!(a.clicks_ok, 5);
        assert_eq!(a.unfinished, 4);
    }
}
