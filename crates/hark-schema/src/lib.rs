//! hark-schema (work in progress)
