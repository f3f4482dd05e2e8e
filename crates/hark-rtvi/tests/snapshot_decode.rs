//! The snapshot decoder on the load generator's 200-node page: names come
//! out byte-identical to the text, and a lone surrogate in one name becomes U+FFFD while every
//! other name stays as sent. Then the one-pass read of a `ui-snapshot` message (its `data`
//! decoded while the envelope is read): every unusual message gives exactly what the two-step
//! read gives (data before type, duplicate keys, a wrong label or trailing text after a good
//! snapshot, nesting at serde_json's limit).

use hark_rtvi::{A11yNode, A11ySnapshot, ClientMessage, ParseError, parse_client_message};
use serde_json::Value;

#[path = "support/shop_page.rs"]
mod shop_page;

fn snapshot_of(json: &str) -> Box<A11ySnapshot> {
    match parse_client_message(json).expect("a ui-snapshot").message {
        ClientMessage::UiSnapshot(s) => s,
        other => panic!("not a ui-snapshot: {other:?}"),
    }
}

/// Every node's name, depth first, from the decoded tree.
fn names(node: &A11yNode, out: &mut Vec<Option<String>>) {
    out.push(node.name.as_deref().map(str::to_owned));
    for c in &node.children {
        names(c, out);
    }
}

/// Every node's name, depth first, read from the JSON text with `serde_json::Value`.
fn value_names(node: &Value, out: &mut Vec<Option<String>>) {
    out.push(node.get("name").and_then(Value::as_str).map(str::to_owned));
    for c in node
        .get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        value_names(c, out);
    }
}

#[test]
fn a_200_node_page_without_escapes_decodes_names_byte_identical() {
    let json = shop_page::page(7, 200);
    assert!(!json.contains('\\'), "the page has no escapes");
    let snap = snapshot_of(&json);
    assert_eq!(snap.root.count(), 200);
    let mut got = Vec::new();
    names(&snap.root, &mut got);
    let v: Value = serde_json::from_str(&json).unwrap();
    let mut want = Vec::new();
    value_names(&v["data"]["tree"]["root"], &mut want);
    assert_eq!(got, want);
    // And the whole tree round-trips to the same JSON.
    assert_eq!(serde_json::to_value(&*snap).unwrap(), v["data"]["tree"]);
}

#[test]
fn a_lone_surrogate_in_one_name_of_a_200_node_page_becomes_a_replacement_character() {
    let json = shop_page::page(7, 200);
    // client-js cutting "Add Aeropress Go to cart" inside an emoji: half of 😀 (U+1F600).
    let cut = json.replacen("\"Add Aeropress Go to cart\"", r#""Add \ud83d…""#, 1);
    assert_ne!(cut, json);
    let snap = snapshot_of(&cut);
    assert_eq!(snap.root.count(), 200);
    let mut got = Vec::new();
    names(&snap.root, &mut got);
    let mut want = Vec::new();
    value_names(
        &serde_json::from_str::<Value>(&json).unwrap()["data"]["tree"]["root"],
        &mut want,
    );
    let changed: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    assert_eq!(changed.len(), 1, "exactly one name differs");
    assert_eq!(got[changed[0]].as_deref(), Some("Add \u{FFFD}…"));
    assert_eq!(
        want[changed[0]].as_deref(),
        Some("Add Aeropress Go to cart")
    );
}

/// A small tree as `ui-snapshot` data.
const DATA: &str = r#"{"tree":{"root":{"ref":"e1","role":"generic","children":[{"ref":"e2","role":"button","name":"Save"}]},"captured_at":5}}"#;

fn err(json: &str) -> ParseError {
    parse_client_message(json).expect_err(json)
}

#[test]
fn data_before_type_decodes_the_same_snapshot() {
    let type_first =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{DATA}}}"#);
    let data_first =
        format!(r#"{{"data":{DATA},"id":"a","type":"ui-snapshot","label":"rtvi-ai"}}"#);
    let a = parse_client_message(&type_first).unwrap();
    let b = parse_client_message(&data_first).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.id.as_deref(), Some("a"));
    let ClientMessage::UiSnapshot(s) = a.message else {
        panic!("a ui-snapshot");
    };
    assert_eq!(s.root.children[0].name.as_deref(), Some("Save"));
    assert_eq!(s.captured_at, 5);
}

#[test]
fn a_second_type_after_a_decoded_snapshot_is_the_type_that_counts() {
    // The last `type` wins, as for every message: this is a send-text without `content`.
    let e = err(&format!(
        r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{DATA},"type":"send-text"}}"#
    ));
    assert_eq!(
        e.to_string(),
        "Invalid message: data.content: missing field"
    );
    assert_eq!(e.id(), Some("a"));
}

#[test]
fn with_two_data_keys_the_last_one_counts() {
    let bad = r#"{"tree":{"root":{"ref":"e1"},"captured_at":5}}"#;
    let good_last = format!(
        r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{bad},"data":{DATA}}}"#
    );
    let m = parse_client_message(&good_last).unwrap();
    assert!(matches!(m.message, ClientMessage::UiSnapshot(_)));
    let bad_last = format!(
        r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{DATA},"data":{bad}}}"#
    );
    assert_eq!(
        err(&bad_last).to_string(),
        "Invalid message: data.tree.root.role: missing field"
    );
}

#[test]
fn a_good_snapshot_does_not_hide_a_wrong_label_or_trailing_text() {
    let wrong_label = format!(r#"{{"type":"ui-snapshot","id":"a","data":{DATA},"label":"other"}}"#);
    assert_eq!(err(&wrong_label), ParseError::WrongLabel("other".into()));
    let trailing =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{DATA}}} x"#);
    assert!(matches!(err(&trailing), ParseError::NotJson { id: Some(ref id), .. } if id == "a"));
    let cut = format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a","data":{DATA}"#);
    assert!(matches!(err(&cut), ParseError::NotJson { .. }));
}

#[test]
fn nesting_is_counted_from_data_as_before() {
    // `data` is level 1 (data, tree, root, then the arrays of an extra key): 124 arrays make
    // 127 levels, which serde_json reads; 125 make 128, refused. Read in the message's own pass
    // the same value sits one level deeper, so this checks the fallback keeps the old limit.
    let msg = |n: usize| {
        format!(
            r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"d","data":{{"tree":{{"root":{{"ref":"e1","role":"g","deep":{}{}}},"captured_at":1}}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    let ok = parse_client_message(&msg(124)).unwrap();
    let ClientMessage::UiSnapshot(s) = ok.message else {
        panic!("a ui-snapshot");
    };
    assert!(s.root.extra().contains_key("deep"));
    assert_eq!(
        err(&msg(125)).to_string(),
        "Invalid message: data.tree.root.deep: the JSON is nested 128 or more levels deep, more \
         than the parser reads (127); send flatter data"
    );
}
