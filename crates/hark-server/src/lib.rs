//! hark-server (work in progress)
