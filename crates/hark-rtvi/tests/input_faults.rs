//! Input-parsing faults found by driving `hark serve` with the real demo page and a hostile
//! client (lone surrogates, error texts, snapshot size, duplicate refs), each
//! pinned at the protocol level.

use hark_rtvi::snapshot::{MAX_SNAPSHOT_NODES, MAX_TREE_DEPTH};
use hark_rtvi::{
    A11ySnapshot, ClientMessage, ParseError, ServerMessage, SnapshotLimits, parse_client_message,
    parse_client_message_with, parse_server_message,
};

fn snapshot_msg(id: &str, tree: &str) -> String {
    format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"{id}","data":{{"tree":{tree}}}}}"#)
}

fn snapshot_of(json: &str) -> A11ySnapshot {
    match parse_client_message(json).expect(json).message {
        ClientMessage::UiSnapshot(s) => *s,
        other => panic!("{other:?}"),
    }
}

fn invalid_detail(json: &str) -> (Option<String>, String) {
    match parse_client_message(json) {
        Err(ParseError::Invalid { id, detail, .. }) => (id, detail),
        other => panic!("{json}: {other:?}"),
    }
}

// ---- Lone surrogates ------------------------------------------------------------------------

#[test]
fn f1_a_lone_high_surrogate_in_send_text_is_accepted_as_a_replacement_character() {
    let m = parse_client_message(
        r#"{"label":"rtvi-ai","type":"send-text","id":"ls000001","data":{"content":"\ud800x"}}"#,
    )
    .unwrap();
    assert_eq!(m.id.as_deref(), Some("ls000001"));
    let ClientMessage::SendText(t) = m.message else {
        panic!()
    };
    assert_eq!(t.content, "\u{FFFD}x");
}

#[test]
fn f1_a_snapshot_name_cut_inside_an_emoji_is_accepted() {
    // A lone low surrogate, and client-js's `slice(0, 99) + "…"` keeping half of 😀.
    let snap = snapshot_of(&snapshot_msg(
        "ls000002",
        r#"{"root":{"ref":"e1","role":"generic","name":"\udc00","children":[
            {"ref":"e2","role":"button","name":"Buy \ud83d\u2026"},
            {"ref":"e3","role":"button","name":"Pair \ud83d\ude00 kept"}]},"captured_at":1}"#,
    ));
    assert_eq!(snap.root.name.as_deref(), Some("\u{FFFD}"));
    assert_eq!(snap.root.children[0].name.as_deref(), Some("Buy \u{FFFD}…"));
    assert_eq!(snap.root.children[1].name.as_deref(), Some("Pair 😀 kept"));
    // The same through the direct snapshot decoder and the server-message parser.
    let direct = A11ySnapshot::from_json(
        r#"{"root":{"ref":"e1","role":"g","name":"\udc00"},"captured_at":1}"#,
    )
    .unwrap();
    assert_eq!(direct.root.name.as_deref(), Some("\u{FFFD}"));
    let (_, msg) = parse_server_message(
        r#"{"label":"rtvi-ai","type":"error","data":{"error":"a\ud800","fatal":false}}"#,
    )
    .unwrap();
    assert_eq!(
        msg,
        ServerMessage::Error {
            error: "a\u{FFFD}".into(),
            fatal: false
        }
    );
}

// ---- Clear errors ---------------------------------------------------------------------------

#[test]
fn f3_invalid_json_keeps_the_id_when_a_top_level_scan_can_read_it() {
    // client-js order: label, type, data, id — the id comes after the broken data.
    let e = parse_client_message(
        r#"{"label":"rtvi-ai","type":"send-text","data":{"content":"a\q"},"id":"ab12cd34"}"#,
    )
    .unwrap_err();
    let ParseError::NotJson { id, type_, detail } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(id.as_deref(), Some("ab12cd34"));
    assert_eq!(type_.as_deref(), Some("send-text"));
    assert_eq!(detail, "invalid escape at line 1 column 60");
    assert_eq!(e.id(), Some("ab12cd34"));
    assert_eq!(
        e.to_string(),
        "Invalid RTVI message: not valid JSON (invalid escape at line 1 column 60). Send each \
         message as one JSON object."
    );
    assert_eq!(
        e.error_response().unwrap().to_json(e.id()),
        r#"{"label":"rtvi-ai","type":"error-response","id":"ab12cd34","data":{"error":"Invalid RTVI message: not valid JSON (invalid escape at line 1 column 60). Send each message as one JSON object."}}"#
    );
}

#[test]
fn f3_a_valid_object_with_a_huge_captured_at_names_the_field() {
    let (id, detail) = invalid_detail(&snapshot_msg(
        "n1",
        r#"{"root":{"ref":"e1","role":"generic"},"captured_at":1e400}"#,
    ));
    assert_eq!(id.as_deref(), Some("n1"));
    assert_eq!(
        detail,
        "data.tree.captured_at: integer out of range; send a whole number from \
         -9223372036854775808 to 9223372036854775807"
    );
}

#[test]
fn f3_floats_beyond_i64_say_out_of_range_not_wrong_type() {
    // Integers beyond i64 are kept, as pydantic keeps them.
    for level in [
        "99999999999999999999",
        "-99999999999999999999",
        "9223372036854775808",
        r#""99999999999999999999""#,
    ] {
        let snap = snapshot_of(&snapshot_msg(
            "n1",
            &format!(
                r#"{{"root":{{"ref":"e1","role":"heading","level":{level}}},"captured_at":1}}"#
            ),
        ));
        let kept = snap.root.wide().and_then(|w| w.level.as_deref());
        assert_eq!(kept, Some(level.trim_matches('"')), "{level}");
    }
    // A float beyond i64 pydantic refuses.
    for level in ["1e30", "-1e30", "9.3e18"] {
        let (_, detail) = invalid_detail(&snapshot_msg(
            "n2",
            &format!(
                r#"{{"root":{{"ref":"e1","role":"heading","level":{level}}},"captured_at":1}}"#
            ),
        ));
        assert!(
            detail.starts_with("data.tree.root.level: integer out of range;"),
            "{level}: {detail}"
        );
    }
    // The edges of i64 are accepted, fractions and words stay wrong types.
    let snap = snapshot_of(&snapshot_msg(
        "n3",
        r#"{"root":{"ref":"e1","role":"g","level":9223372036854775807,"colcount":-9223372036854775808,"rowcount":-9.223372036854776e18},"captured_at":1}"#,
    ));
    assert_eq!(
        (
            snap.root.level(),
            snap.root.colcount(),
            snap.root.rowcount()
        ),
        (Some(i64::MAX), Some(i64::MIN), Some(i64::MIN))
    );
    let (_, detail) = invalid_detail(&snapshot_msg(
        "n4",
        r#"{"root":{"ref":"e1","role":"g","level":1.5},"captured_at":1}"#,
    ));
    assert_eq!(
        detail,
        "data.tree.root.level: expected an integer, got a number"
    );
}

#[test]
fn f3_numbers_beyond_f64_elsewhere_name_where_they_are() {
    let (id, detail) = invalid_detail(
        r#"{"label":"rtvi-ai","type":"client-message","id":"c1","data":{"t":"x","d":{"n":1e400}}}"#,
    );
    assert_eq!(id.as_deref(), Some("c1"));
    assert_eq!(
        detail,
        "data: number out of range; JSON numbers must fit a 64-bit float (at most about 1.8e308)"
    );
    let (_, detail) = invalid_detail(&snapshot_msg(
        "n5",
        r#"{"root":{"ref":"e1","role":"g","children":[{"ref":"e2","role":"g","bbox":[1e400]}]},"captured_at":1}"#,
    ));
    assert!(
        detail.starts_with("data.tree.root.children[0].bbox: number out of range;"),
        "{detail}"
    );
    // A numeric id too big for f64 is still echoed as sent.
    let m =
        parse_client_message(r#"{"label":"rtvi-ai","type":"disconnect-bot","id":1e400}"#).unwrap();
    assert_eq!(m.id.as_deref(), Some("1e400"));
}

#[test]
fn f3_json_nesting_states_the_parser_limit_and_keeps_the_id() {
    // `data` is read on its own: the data object is level 1, so 126 arrays inside are 127 levels
    // (read) and 127 arrays are 128 (refused).
    let msg = |n: usize| {
        format!(
            r#"{{"label":"rtvi-ai","type":"client-message","id":"deep","data":{{"t":"x","d":{}{}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(parse_client_message(&msg(126)).is_ok());
    let (id, detail) = invalid_detail(&msg(127));
    assert_eq!(id.as_deref(), Some("deep"));
    assert_eq!(
        detail,
        "data: the JSON is nested 128 or more levels deep, more than the parser reads (127); \
         send flatter data"
    );
    // Even 100,000 levels: an answer with the id, no stack overflow.
    let (id, _) = invalid_detail(&msg(100_000));
    assert_eq!(id.as_deref(), Some("deep"));
}

// ---- Snapshot size --------------------------------------------------------------------------

/// A snapshot whose root has `n - 1` button children (`n` nodes in all).
fn wide(n: usize) -> String {
    let kids: Vec<String> = (2..=n)
        .map(|i| format!(r#"{{"ref":"e{i}","role":"button","name":"B{i}"}}"#))
        .collect();
    format!(
        r#"{{"root":{{"ref":"e1","role":"generic","children":[{}]}},"captured_at":1}}"#,
        kids.join(",")
    )
}

#[test]
fn f4_snapshots_over_the_node_limit_are_refused_naming_count_and_limit() {
    assert_eq!(MAX_SNAPSHOT_NODES, 5_000);
    assert_eq!(
        snapshot_of(&snapshot_msg("w1", &wide(5_000))).root.count(),
        5_000
    );
    let (id, detail) = invalid_detail(&snapshot_msg("w2", &wide(15_000)));
    assert_eq!(id.as_deref(), Some("w2"));
    assert_eq!(
        detail,
        "data.tree: the snapshot has 15000 nodes, more than the limit of 5000; send a smaller \
         snapshot (client-js's walker sends at most 200 nodes)"
    );
    let e = A11ySnapshot::from_json(&wide(5_001)).unwrap_err();
    assert_eq!(e.path, "");
    assert!(
        e.detail
            .starts_with("the snapshot has 5001 nodes, more than the limit of 5000;"),
        "{}",
        e.detail
    );
}

#[test]
fn f4_the_node_limit_is_set_per_decode() {
    let limits = SnapshotLimits {
        max_nodes: 10,
        ..SnapshotLimits::default()
    };
    assert!(parse_client_message_with(&snapshot_msg("l1", &wide(10)), &limits).is_ok());
    // Nodes past the limit are still counted, at every depth, for the text.
    let nested = r#"{"root":{"ref":"e1","role":"g","children":[
        {"ref":"e2","role":"g","children":[{"ref":"e3","role":"g"},{"ref":"e4","role":"g"}]},
        {"ref":"e5","role":"g","children":[{"ref":"e6","role":"g","children":[{"ref":"e7","role":"g"}]}]}
        ]},"captured_at":1}"#;
    let small = SnapshotLimits {
        max_nodes: 3,
        ..SnapshotLimits::default()
    };
    let e = A11ySnapshot::from_json_with(nested, &small).unwrap_err();
    assert!(
        e.detail
            .starts_with("the snapshot has 7 nodes, more than the limit of 3;"),
        "{}",
        e.detail
    );
    assert!(A11ySnapshot::from_json(nested).is_ok());
    // Depth can be lowered, not raised past MAX_TREE_DEPTH.
    let shallow = SnapshotLimits {
        max_depth: 3,
        ..SnapshotLimits::default()
    };
    let e = A11ySnapshot::from_json_with(nested, &shallow).unwrap_err();
    assert_eq!(e.path, "root.children[1].children[0].children[0]");
    let deeper = SnapshotLimits {
        max_depth: 10_000,
        ..SnapshotLimits::default()
    };
    let mut text = String::from(r#"{"ref":"x","role":"g"}"#);
    for _ in 0..MAX_TREE_DEPTH {
        text = format!(r#"{{"ref":"e","role":"g","children":[{text}]}}"#);
    }
    let text = format!(r#"{{"root":{text},"captured_at":1}}"#);
    let e = A11ySnapshot::from_json_with(&text, &deeper).unwrap_err();
    assert!(
        e.detail.contains("deeper than 60 node levels"),
        "{}",
        e.detail
    );
}

// ---- Duplicate refs -------------------------------------------------------------------------

#[test]
fn f11_duplicate_refs_are_accepted_and_reported() {
    let snap = snapshot_of(&snapshot_msg(
        "d1",
        r#"{"root":{"ref":"e1","role":"generic","children":[
            {"ref":"e2","role":"button","name":"A"},
            {"ref":"","role":"text","name":"x"},
            {"ref":"e3","role":"group","children":[{"ref":"e2","role":"button"},{"ref":"","role":"text"}]},
            {"ref":"e3","role":"button"},
            {"ref":"e2","role":"button"}]},"captured_at":1}"#,
    ));
    assert_eq!(snap.root.count(), 8);
    assert_eq!(snap.duplicate_refs(), ["e2", "e3"]);
    assert!(
        snapshot_of(&snapshot_msg("d2", &wide(50)))
            .duplicate_refs()
            .is_empty()
    );
}
