//! Retries with exponential backoff and jitter, and the injectable pause that sleeps between them.
//!
//! Retries with backoff on 429/5xx. A request is retried only before the
//! first streamed byte: on a connection error, a time-to-first-byte timeout, or HTTP 408, 429 or
//! 5xx. Once a stream has started, a failure ends it (re-asking would repeat spoken text; a voice
//! agent that has said nothing yet may ask again itself, as hark-agent's turn loop does). Each
//! retry is announced as [`crate::StreamEvent::Retrying`].

use std::fmt::Debug;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use futures::future::BoxFuture;

/// How often and how long to wait between attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 turns retrying off). Default 2.
    pub max_retries: u32,
    /// The backoff before the first retry, before jitter. Default 250 ms.
    pub initial_delay: Duration,
    /// The longest backoff, before jitter. Default 4 s.
    pub max_delay: Duration,
    /// The longest wait a provider's `Retry-After` can ask for; a longer ask is cut to this.
    /// Default 10 s.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 2,
            initial_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(4),
            retry_after_cap: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0 for the first retry).
    ///
    /// With `retry_after` (the provider's `Retry-After`): that, capped at `retry_after_cap`, with
    /// no jitter. Otherwise "equal jitter": `b / 2 + jitter * b / 2` where
    /// `b = min(initial_delay * 2^retry, max_delay)` and `jitter` is in `[0, 1]` (clamped).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.retry_after_cap);
        }
        let factor = 2u32.saturating_pow(retry.min(30));
        let base = self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_delay);
        let half = base / 2;
        half + half.mul_f64(jitter.clamp(0.0, 1.0))
    }
}

/// Is this HTTP status worth another attempt? 408, 429 and every 5xx (Anthropic's 529
/// "overloaded" included).
pub fn is_retryable_status(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
}

/// The source of jitter and the sleep between attempts: injected so tests neither wait nor
/// depend on chance.
pub trait Pause: Send + Sync + Debug {
    /// A number in `[0, 1]`.
    fn jitter(&self) -> f64;
    /// Waits `duration`.
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// The real pause: random jitter, `tokio::time::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioPause;

impl Pause for TokioPause {
    fn jitter(&self) -> f64 {
        // A fresh RandomState is randomly keyed per instance: enough entropy for jitter
        // without a dependency.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x9e37_79b9_7f4a_7c15);
        (h.finish() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_then_caps_with_equal_jitter() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(0, None, 0.0), Duration::from_millis(125));
        assert_eq!(p.delay(0, None, 1.0), Duration::from_millis(250));
        assert_eq!(p.delay(1, None, 0.5), Duration::from_millis(375));
        assert_eq!(p.delay(2, None, 1.0), Duration::from_secs(1));
        assert_eq!(p.delay(10, None, 1.0), Duration::from_secs(4));
        assert_eq!(p.delay(u32::MAX, None, 0.0), Duration::from_secs(2));
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3)), 0.9),
            Duration::from_secs(3)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(600)), 0.9),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn retryable_statuses() {
        for s in [408, 429, 500, 502, 503, 504, 529] {
            assert!(is_retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!is_retryable_status(s), "{s}");
        }
    }

    #[test]
    fn tokio_pause_jitter_is_in_range() {
        for _ in 0..100 {
            let j = TokioPause.jitter();
            assert!((0.0..=1.0).contains(&j));
        }
    }
}
