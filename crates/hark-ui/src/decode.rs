//! Decoding snapshot JSON text into hark-rtvi's [`A11ySnapshot`].
//!
//! hark-rtvi's decoder streams the text straight into the typed tree (no intermediate
//! `serde_json::Value`, a JSON path built only for a refusal) and applies the snapshot limits
//! ([`hark_rtvi::snapshot::MAX_TREE_DEPTH`] node levels, `MAX_SNAPSHOT_NODES` nodes). This module
//! keeps the worker's entry point to it.

use hark_rtvi::{A11ySnapshot, FieldError};

/// Decodes snapshot JSON text (the `tree` of a `ui-snapshot`) into an [`A11ySnapshot`]:
/// `hark_rtvi::A11ySnapshot::from_json(json)`, with its errors (a [`FieldError`] naming the JSON
/// path, e.g. `root.children[0].role: missing field`) and its size and depth limits.
pub fn snapshot_from_json(json: &str) -> Result<A11ySnapshot, FieldError> {
    A11ySnapshot::from_json(json)
}
