//! One at a time, first come first served: the line the `respond` jobs of one worker wait in.
//!
//! A job takes its [`Place`] when it is asked ([`Line::join`], a plain call, not a future's
//! first poll), so the order of asking is the order of running whatever order the runtime
//! polls the waiting futures in. The place at the head of the line runs; dropping a
//! [`Place`] — the job answered, or its future dropped while it waited (cancellation) — leaves
//! the line, and the next place in line runs.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// A first-come first-served line of jobs.
#[derive(Debug, Default)]
pub(crate) struct Line {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    state: Mutex<State>,
    moved: Notify,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    waiting: VecDeque<u64>,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Line {
    /// Takes the last place in line, now.
    pub(crate) fn join(&self) -> Place {
        let mut state = self.inner.lock();
        let id = state.next;
        state.next += 1;
        state.waiting.push_back(id);
        Place {
            inner: self.inner.clone(),
            id,
        }
    }
}

/// A job's place in a [`Line`]; dropping it leaves the line.
#[derive(Debug)]
pub(crate) struct Place {
    inner: Arc<Inner>,
    id: u64,
}

impl Place {
    /// Waits until this place is at the head of the line (every place asked before it has
    /// left).
    pub(crate) async fn turn(&self) {
        loop {
            let moved = self.inner.moved.notified();
            tokio::pin!(moved);
            // Registered before the check, so a move between the check and the wait wakes it.
            moved.as_mut().enable();
            if self.inner.lock().waiting.front() == Some(&self.id) {
                return;
            }
            moved.await;
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut state = self.inner.lock();
        if let Some(at) = state.waiting.iter().position(|id| *id == self.id) {
            state.waiting.remove(at);
        }
        drop(state);
        self.inner.moved.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[test]
    fn places_run_in_the_order_taken_and_a_dropped_place_leaves_the_line() {
        let line = Line::default();
        let (a, b, c) = (line.join(), line.join(), line.join());
        assert!(c.turn().now_or_never().is_none());
        assert!(b.turn().now_or_never().is_none());
        assert!(a.turn().now_or_never().is_some());
        drop(b);
        assert!(c.turn().now_or_never().is_none(), "a still runs");
        drop(a);
        assert!(c.turn().now_or_never().is_some());
    }
}
