//! Snapshot decoding and rendering: `hark_ui::snapshot_from_json` (hark-rtvi's streaming decoder
//! with its node and depth limits) and `render_ui_state` / `render_ui_state_value` on arbitrary
//! text.
//!
//! Checks, besides "never panics":
//! - a decoded snapshot holds to the limits it was decoded under (default limits, and small
//!   ones: 8 nodes, 3 levels); a refusal has a non-empty text;
//! - the streaming decoder agrees with decoding the same JSON as a `serde_json::Value` whenever
//!   both accept it, and a decoded snapshot written back as JSON decodes to itself;
//! - the typed renderer and the `Value` renderer give the same `<ui_state>` for a decoded
//!   snapshot, and the block is `<ui_state>` … `</ui_state>` and never longer than the input
//!   text plus two bytes of indent per node level (rendering cannot blow up);
//! - `render_ui_state_value` on the raw JSON (what pipecat renders from its dict) never panics.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --features ui snapshot corpus/snapshot seeds/snapshot -- -dict=snapshot.dict -max_len=8192`
#![no_main]

use hark_rtvi::SnapshotLimits;
use hark_rtvi::snapshot::{MAX_SNAPSHOT_NODES, MAX_TREE_DEPTH};
use hark_ui::{A11yNode, A11ySnapshot, render_ui_state, render_ui_state_value, snapshot_from_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// (deepest level with the root at 1, sum over nodes of their 0-based depth).
fn shape(root: &A11yNode) -> (usize, usize) {
    let (mut deepest, mut indent) = (0, 0);
    let mut stack = vec![(root, 0usize)];
    while let Some((node, d)) = stack.pop() {
        deepest = deepest.max(d + 1);
        indent += d;
        stack.extend(node.children.iter().map(|c| (c, d + 1)));
    }
    (deepest, indent)
}

fn check_decoded(text: &str, snapshot: &A11ySnapshot, limits: &SnapshotLimits) {
    let (deepest, indent) = shape(&snapshot.root);
    assert!(snapshot.root.count() <= limits.max_nodes, "node limit");
    assert!(deepest <= limits.max_depth, "depth limit");

    let rendered = render_ui_state(snapshot);
    assert!(rendered.starts_with("<ui_state>\n") && rendered.ends_with("\n</ui_state>"));
    // Every rendered byte comes from the text except indentation and a fixed frame; the
    // selection block adds at most 40 bytes of tags over its JSON keys.
    let bound = text.len() + 2 * indent + 64;
    assert!(
        rendered.len() <= bound,
        "rendered {} bytes from a {}-byte text ({} indent levels)",
        rendered.len(),
        text.len(),
        indent
    );
    let value = serde_json::to_value(snapshot).expect("a snapshot serialises");
    assert_eq!(
        render_ui_state_value(&value),
        rendered,
        "typed and Value renderers agree"
    );
    let again = A11ySnapshot::from_value_with(value, "", limits)
        .unwrap_or_else(|e| panic!("a decoded snapshot written back decodes: {e}"));
    assert_eq!(&again, snapshot, "written back and decoded again");
}

fn check(text: &str, parsed: Option<&Value>, limits: &SnapshotLimits) {
    let decoded = A11ySnapshot::from_json_with(text, limits);
    match &decoded {
        Ok(snapshot) => check_decoded(text, snapshot, limits),
        Err(error) => assert!(!error.to_string().trim().is_empty()),
    }
    if let (Ok(snapshot), Some(value)) = (&decoded, parsed) {
        if let Ok(from_value) = A11ySnapshot::from_value_with(value.clone(), "", limits) {
            assert_eq!(&from_value, snapshot, "text and Value decoders agree");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let default = snapshot_from_json(text);
    assert_eq!(default, A11ySnapshot::from_json(text));
    let parsed = serde_json::from_str::<Value>(text).ok();
    check(
        text,
        parsed.as_ref(),
        &SnapshotLimits {
            max_nodes: MAX_SNAPSHOT_NODES,
            max_depth: MAX_TREE_DEPTH,
        },
    );
    check(
        text,
        parsed.as_ref(),
        &SnapshotLimits {
            max_nodes: 8,
            max_depth: 3,
        },
    );
    if let Some(value) = &parsed {
        let _ = render_ui_state_value(value);
    }
});
