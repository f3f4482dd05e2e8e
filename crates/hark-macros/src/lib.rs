//! hark-macros (work in progress)
