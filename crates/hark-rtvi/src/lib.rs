//! hark-rtvi (work in progress)
