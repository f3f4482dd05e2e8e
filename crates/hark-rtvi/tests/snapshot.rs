//! Accessibility snapshots: round trips, unknown fields kept, pydantic-like tolerance, depth
//! limits against hostile nesting, and at the protocol level a first snapshot right after
//! `bot-ready` and a `value` edited by a command.

use hark_rtvi::snapshot::MAX_TREE_DEPTH;
use hark_rtvi::{A11yNode, A11ySnapshot, ClientMessage, ParseError, parse_client_message};
use serde_json::{Value, json};

fn value(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn the_checkout_example_round_trips() {
    let text = include_str!("fixtures/checkout_snapshot.json");
    let snap: A11ySnapshot = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_value(&snap).unwrap(), value(text));
    assert_eq!(snap.root.count(), 11);
    let main = &snap.root.children[0];
    assert_eq!(main.children[0].level(), Some(1));
    assert_eq!(main.children[2].value(), Some("ana@example.com"));
    assert_eq!(main.children[6].state(), ["disabled", "offscreen"]);
    assert_eq!(main.children[5].ref_, "");
    let sel = snap.selection.as_ref().unwrap();
    assert_eq!(
        (sel.ref_.as_str(), sel.text.as_str()),
        ("e4", "Review your order")
    );
}

#[test]
fn unknown_fields_are_kept_at_every_level() {
    let text = r#"{"root":{"ref":"e1","role":"grid","colcount":8,"rowcount":2,"aria_busy":true,
        "children":[{"ref":"e2","role":"cell","bbox":[1,2,3,4],"data":{"k":null}}]},
        "captured_at":5,"url":"https://example.com/",
        "selection":{"ref":"e2","text":"x","start_offset":0,"end_offset":1,"direction":"forward"}}"#;
    let snap = A11ySnapshot::from_json(text).unwrap();
    assert_eq!(snap.extra["url"], "https://example.com/");
    assert_eq!(snap.root.extra()["aria_busy"], true);
    assert_eq!(snap.root.children[0].extra()["data"], json!({"k": null}));
    assert_eq!(
        snap.selection.as_ref().unwrap().extra["direction"],
        "forward"
    );
    assert_eq!(serde_json::to_value(&snap).unwrap(), value(text));
    // And through a whole ui-snapshot message.
    let msg =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"1","data":{{"tree":{text}}}}}"#);
    let inbound = parse_client_message(&msg).unwrap();
    assert_eq!(value(&inbound.message.to_json(Some("1"))), value(&msg));
}

#[test]
fn tolerant_like_pydantic() {
    // null for optional fields, empty lists, integral floats and numeric strings for ints.
    let snap = A11ySnapshot::from_json(
        r#"{"root":{"ref":"e1","role":"heading","name":null,"value":null,"state":null,
            "children":null,"level":"2","colcount":3.0},"captured_at":"17","selection":null}"#,
    )
    .unwrap();
    let root = &snap.root;
    assert_eq!(root.name, None);
    assert!(root.state().is_empty() && root.children.is_empty());
    assert_eq!((root.level(), root.colcount()), (Some(2), Some(3)));
    assert_eq!(snap.captured_at, 17);
    assert_eq!(snap.selection, None);
    // Written back with the empty/None fields omitted (exclude_none).
    assert_eq!(
        serde_json::to_string(&snap).unwrap(),
        r#"{"root":{"ref":"e1","role":"heading","level":2,"colcount":3},"captured_at":17}"#
    );
}

#[test]
fn required_and_typed_fields_are_enforced() {
    let cases = [
        (
            r#"{"root":{"role":"x"},"captured_at":1}"#,
            "root.ref: missing field",
        ),
        (
            r#"{"root":{"ref":"e1","role":5},"captured_at":1}"#,
            "root.role: expected a string, got a number",
        ),
        (
            r#"{"root":{"ref":null,"role":"x"},"captured_at":1}"#,
            "root.ref: expected a string, got null",
        ),
        (
            r#"{"root":{"ref":"e1","role":"x","level":1.5},"captured_at":1}"#,
            "root.level: expected an integer, got a number",
        ),
        (
            r#"{"root":{"ref":"e1","role":"x","children":{}},"captured_at":1}"#,
            "root.children: expected an array or null, got an object",
        ),
        (
            r#"{"root":{"ref":"e1","role":"x","children":[3]},"captured_at":1}"#,
            "root.children[0]: expected an object, got a number",
        ),
        (r#"{"captured_at":1}"#, "root: missing field"),
        (
            r#"{"root":{"ref":"e1","role":"x"},"captured_at":"soon"}"#,
            "captured_at: expected an integer, got a string",
        ),
        (r#"[]"#, "expected an object, got an array"),
    ];
    for (text, detail) in cases {
        let err = A11ySnapshot::from_json(text).unwrap_err();
        assert_eq!(err.detail, detail, "{text}");
        // serde's Deserialize gives the same detail.
        let serde_err = serde_json::from_str::<A11ySnapshot>(text).unwrap_err();
        assert!(serde_err.to_string().starts_with(detail), "{serde_err}");
    }
}

/// `{"ref":"e1","role":"generic","children":[{…}]}` nested `depth` nodes deep.
fn nested(depth: usize) -> String {
    let mut s = String::new();
    for i in 0..depth {
        s.push_str(&format!(r#"{{"ref":"e{i}","role":"generic","children":["#));
    }
    for _ in 0..depth {
        s.push_str("]}");
    }
    s
}

#[test]
fn a_tree_at_the_depth_limit_is_accepted_and_one_deeper_is_refused() {
    assert_eq!(MAX_TREE_DEPTH, 60);
    let ok = format!(r#"{{"root":{},"captured_at":1}}"#, nested(MAX_TREE_DEPTH));
    let snap = A11ySnapshot::from_json(&ok).unwrap();
    assert_eq!(snap.root.count(), MAX_TREE_DEPTH);

    let deep = format!(
        r#"{{"root":{},"captured_at":1}}"#,
        nested(MAX_TREE_DEPTH + 1)
    );
    let err = A11ySnapshot::from_json(&deep).unwrap_err();
    let path = format!("root{}", ".children[0]".repeat(MAX_TREE_DEPTH));
    assert_eq!(err.path, path);
    assert_eq!(
        err.detail,
        format!(
            "{path}: the tree is nested deeper than 60 node levels; send a shallower snapshot \
             (client-js's walker stops at 10 levels)"
        )
    );
    // The limit applies to values built without serde_json's text parser too.
    let v: Value = serde_json::from_str(&deep).unwrap();
    assert_eq!(A11ySnapshot::from_value(v, "").unwrap_err(), err);
}

#[test]
fn the_node_level_limit_is_reached_before_the_json_limit_in_a_whole_message() {
    // A ui-snapshot message one node level too deep is refused by the tree limit (naming node
    // levels and the path), not by serde_json's 128-level limit.
    let tree = format!(
        r#"{{"root":{},"captured_at":1}}"#,
        nested(MAX_TREE_DEPTH + 1)
    );
    let msg =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"d1","data":{{"tree":{tree}}}}}"#);
    let e = parse_client_message(&msg).unwrap_err();
    assert_eq!(e.id(), Some("d1"));
    let ParseError::Invalid { detail, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(
        detail.starts_with(&format!(
            "data.tree.root{}: the tree is nested deeper than 60 node levels",
            ".children[0]".repeat(MAX_TREE_DEPTH)
        )),
        "{detail}"
    );
    // And at the limit the whole message is accepted.
    let tree = format!(r#"{{"root":{},"captured_at":1}}"#, nested(MAX_TREE_DEPTH));
    let msg =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"d2","data":{{"tree":{tree}}}}}"#);
    assert!(parse_client_message(&msg).is_ok());
}

#[test]
fn a_10000_deep_tree_is_an_error_not_a_stack_overflow() {
    let tree = format!(r#"{{"root":{},"captured_at":1}}"#, nested(10_000));
    // The node-level check runs before the decoder descends, so the tree limit answers.
    let err = A11ySnapshot::from_json(&tree).unwrap_err();
    assert!(
        err.detail
            .contains("the tree is nested deeper than 60 node levels"),
        "{}",
        err.detail
    );
    assert!(serde_json::from_str::<A11ySnapshot>(&tree).is_err());
    assert!(serde_json::from_str::<A11yNode>(&nested(10_000)).is_err());
    let msg =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"1","data":{{"tree":{tree}}}}}"#);
    match parse_client_message(&msg) {
        Err(ParseError::Invalid { id, detail, .. }) => {
            assert_eq!(id.as_deref(), Some("1"));
            assert!(
                detail.contains("nested deeper than 60 node levels"),
                "{detail}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn u7_a_snapshot_right_after_the_handshake_parses_on_its_own() {
    // client-js flushes the buffered snapshot as soon as it is ready, with no DOM change after.
    let ready = parse_client_message(
        r#"{"label":"rtvi-ai","type":"client-ready","id":"a1","data":{"version":"2.1.0","about":{"library":"@pipecat-ai/client-js","library_version":"1.13.1","platform_details":{}}}}"#,
    )
    .unwrap();
    assert!(matches!(ready.message, ClientMessage::ClientReady(_)));
    let snap = parse_client_message(
        r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"a2","data":{"tree":{"root":{"ref":"e1","role":"generic","children":[{"ref":"e2","role":"button","name":"Save"}]},"captured_at":1767225600000}}}"#,
    )
    .unwrap();
    let ClientMessage::UiSnapshot(tree) = snap.message else {
        panic!()
    };
    assert_eq!(tree.root.children[0].ref_, "e2");
}

#[test]
fn u8_a_filled_textbox_value_reaches_the_server() {
    let snap = parse_client_message(
        r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"a3","data":{"tree":{"root":{"ref":"e1","role":"generic","children":[{"ref":"e5","role":"textbox","name":"Email","value":"ana@example.com"}]},"captured_at":1767225601000}}}"#,
    )
    .unwrap();
    let ClientMessage::UiSnapshot(tree) = snap.message else {
        panic!()
    };
    assert_eq!(tree.root.children[0].value(), Some("ana@example.com"));
}

#[test]
fn rare_fields_are_written_in_the_pre_split_key_order() {
    // value, state, level, colcount, rowcount sit before children, unknown keys after them,
    // exactly as the flat struct (with `#[serde(flatten)] extra`) wrote them.
    let text = r#"{"ref":"e1","role":"grid","name":"G","value":"v","state":["focused","expanded"],"level":2,"colcount":8,"rowcount":3,"children":[{"ref":"","role":"text","name":"x","zz":1}],"aria_busy":true,"bbox":[1,2]}"#;
    let node: A11yNode = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&node).unwrap(), text);
    let built = A11yNode::new("e1", "grid")
        .with_name("G")
        .with_value("v")
        .with_state(["focused", "expanded"])
        .with_level(2)
        .with_colcount(8)
        .with_rowcount(3)
        .with_children(vec![
            A11yNode::new("", "text")
                .with_name("x")
                .with_extra("zz", json!(1)),
        ])
        .with_extra("aria_busy", json!(true))
        .with_extra("bbox", json!([1, 2]));
    assert_eq!(built, node);
    assert_eq!(serde_json::to_string(&built).unwrap(), text);
    assert_eq!(
        (built.value(), built.state(), built.level()),
        (
            Some("v"),
            &["focused".to_string(), "expanded".to_string()][..],
            Some(2)
        )
    );
    assert_eq!((built.colcount(), built.rowcount()), (Some(8), Some(3)));
    assert!(built.has_state("expanded") && !built.has_state("checked"));
}

#[test]
fn a_node_without_rare_fields_allocates_no_rare_part() {
    // Absent, null and empty rare fields leave `rare` unset (no allocation).
    let node: A11yNode = serde_json::from_str(
        r#"{"ref":"e1","role":"button","name":"Save","value":null,"state":[],"level":null,
            "children":[{"ref":"e2","role":"link","state":null}]}"#,
    )
    .unwrap();
    assert!(node.rare.is_none() && node.children[0].rare.is_none());
    assert_eq!(
        (node.value(), node.state(), node.level()),
        (None, &[][..], None)
    );
    assert!(node.extra().is_empty());
    // A repeated key still wins last, also when it clears an earlier value.
    let node: A11yNode =
        serde_json::from_str(r#"{"ref":"e1","role":"textbox","value":"a","value":null}"#).unwrap();
    assert_eq!(node.value(), None);
    assert_eq!(
        serde_json::to_string(&node).unwrap(),
        r#"{"ref":"e1","role":"textbox"}"#
    );
    // An empty rare part equals none at all.
    let mut empty = A11yNode::new("e1", "textbox");
    empty.rare_mut();
    assert_eq!(empty, node);
    assert!(std::mem::size_of::<A11yNode>() <= 104);
}
