//! hark-speak (work in progress)
