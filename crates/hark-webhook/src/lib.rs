//! hark-webhook (work in progress)
