//! The two waits the reader and the writer share: a deadline that may be absent, a keep-alive
//! tick that may be off.

use tokio::time::Instant;

/// Sleeps until `deadline`, or forever without one.
pub(super) async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The next keep-alive tick, or never when keep-alive is off.
pub(super) async fn tick(ticker: &mut Option<tokio::time::Interval>) {
    match ticker {
        Some(ticker) => {
            ticker.tick().await;
        }
        None => std::future::pending().await,
    }
}
