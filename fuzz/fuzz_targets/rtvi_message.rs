//! RTVI message decoding: `hark_rtvi::parse_client_message` (what every inbound WebSocket text
//! goes through) and `parse_server_message` (what test clients read) on arbitrary text.
//!
//! Checks, besides "never panics":
//! - every refusal has a non-empty client text, and `error_response` is given exactly for an
//!   unsupported type, invalid fields, or broken JSON whose id the recovery scan found; the
//!   `error-response` it builds is itself a server message that reads back with the same text;
//! - an accepted `ui-snapshot` holds to the limits it was decoded under (default limits, and
//!   small ones: 8 nodes, 3 levels);
//! - a server message that parses is a fixed point of `to_json` → `parse_server_message`
//!   (id and message equal).
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run rtvi_message corpus/rtvi_message seeds/rtvi_message -- -dict=rtvi.dict -max_len=4096`
#![no_main]

use hark_rtvi::snapshot::MAX_SNAPSHOT_NODES;
use hark_rtvi::{
    A11yNode, ClientMessage, ParseError, ServerMessage, SnapshotLimits, parse_client_message,
    parse_client_message_with, parse_server_message,
};
use libfuzzer_sys::fuzz_target;

/// Deepest node level of a tree (the root is 1), without recursion.
fn depth(root: &A11yNode) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root, 1)];
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        stack.extend(node.children.iter().map(|c| (c, level + 1)));
    }
    deepest
}

fn check_client(text: &str, limits: &SnapshotLimits) {
    match parse_client_message_with(text, limits) {
        Ok(inbound) => {
            if let ClientMessage::UiSnapshot(snapshot) = &inbound.message {
                assert!(snapshot.root.count() <= limits.max_nodes, "node limit");
                assert!(depth(&snapshot.root) <= limits.max_depth, "depth limit");
            }
        }
        Err(error) => check_refusal(&error),
    }
}

fn check_refusal(error: &ParseError) {
    let text = error.to_string();
    assert!(
        !text.trim().is_empty(),
        "a refusal says something: {error:?}"
    );
    let answered = matches!(
        error,
        ParseError::UnsupportedType { .. }
            | ParseError::Invalid { .. }
            | ParseError::NotJson { id: Some(_), .. }
    );
    let response = error.error_response();
    assert_eq!(response.is_some(), answered, "{error:?}");
    if let Some(response) = response {
        let json = response.to_json(error.id());
        let (id, back) = parse_server_message(&json).expect("an error-response reads back");
        assert_eq!(id.as_deref(), error.id());
        assert_eq!(back, response);
        let ServerMessage::ErrorResponse { error: said } = back else {
            panic!("not an error-response: {back:?}");
        };
        assert_eq!(said, text);
    }
}

fn check_server(text: &str) {
    let Ok((id, message)) = parse_server_message(text) else {
        return;
    };
    let again = message.to_json(id.as_deref());
    let (id2, message2) = parse_server_message(&again)
        .unwrap_or_else(|e| panic!("to_json of a parsed message reads back: {e} in {again}"));
    assert_eq!(id2, id, "the id survives");
    assert_eq!(message2, message, "the message survives: {again}");
    assert_eq!(message2.to_json(id2.as_deref()), again, "to_json is stable");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(error) = parse_client_message(text) {
        check_refusal(&error);
    }
    check_client(
        text,
        &SnapshotLimits {
            max_nodes: MAX_SNAPSHOT_NODES,
            max_depth: hark_rtvi::snapshot::MAX_TREE_DEPTH,
        },
    );
    check_client(
        text,
        &SnapshotLimits {
            max_nodes: 8,
            max_depth: 3,
        },
    );
    check_server(text);
});
