//! A session's id: 64 random bits, written `s` + lowercase Crockford base32.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Identifies one WebSocket session: 64 random bits per session ([`Sessions`](super::Sessions) draws them), so an
/// id does not come back after a restart or on another machine (a webhook keyed on
/// `call.session_id` sees each call once). Written `s` + the number in lowercase Crockford
/// base32: at most 14 characters (`s3k9x0w2m4q7za`); `SessionId(7)` is `s7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u64);

/// Crockford's base32 alphabet, lowercase (no `i`, `l`, `o`, `u`: nothing to misread).
const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut digits = [0u8; 13];
        let mut n = self.0;
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = CROCKFORD[(n & 31) as usize];
            n >>= 5;
            if n == 0 {
                break;
            }
        }
        // The digits are ASCII from the alphabet above.
        let text = std::str::from_utf8(&digits[start..]).unwrap_or("?");
        write!(f, "s{text}")
    }
}

/// 64 random bits, without a dependency: std's `RandomState` keys SipHash with random bits the
/// operating system gives each process, and each `RandomState::new` moves the key on; hashing
/// a process-wide counter, the time and the process id under it gives a fresh value per call.
pub(crate) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(DRAWS.fetch_add(1, Ordering::Relaxed));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.finish()
}
