//! The names both sides of a voice/UI split address: the UI worker's built-in jobs and the
//! voice LLM's tool that sends the `screen` job.
//!
//! The voice agent asks; the UI worker answers. Neither needs the other's crate to agree on
//! these names.

/// The UI worker's `respond` job: `{"query": question}` in, the worker's own LLM turn over the
/// screen, `{"answer": …}` (or `{"answer": …, "speak": true}`) out.
pub const RESPOND_JOB: &str = "respond";

/// The UI worker's `screen` job: `{"action", "target"?, "value"?}` in, answered with the
/// worker's classifier, no LLM turn.
pub const SCREEN_JOB: &str = "screen";

/// The voice LLM's tool that sends the UI worker a `screen` job.
pub const SCREEN_TOOL: &str = "screen";
