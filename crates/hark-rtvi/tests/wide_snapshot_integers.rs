//! A snapshot integer beyond 64 bits is accepted, as pipecat-ai 1.14.0's
//! pydantic model accepts it (Python's exact `int`), instead of refusing the whole snapshot
//! with "integer out of range". `level`, `colcount` and `rowcount` keep their exact decimal text
//! (what pipecat renders, checked against its own renderer in the `edge-state-wide-*` goldens);
//! their `i64` accessors, `captured_at` and the selection offsets saturate.

use hark_rtvi::{ClientMessage, parse_client_message};

fn snapshot(tree: &str) -> hark_rtvi::A11ySnapshot {
    let wire =
        format!(r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"s1","data":{{"tree":{tree}}}}}"#);
    match parse_client_message(&wire)
        .expect("pipecat accepts it")
        .message
    {
        ClientMessage::UiSnapshot(s) => *s,
        other => panic!("not a snapshot: {other:?}"),
    }
}

#[test]
fn integers_beyond_64_bits_are_kept_exactly() {
    let s = snapshot(
        r#"{"root":{"ref":"e1","role":"grid","level":18446744073709551616,"colcount":" +0099_999_999_999_999_999_999.0 ","rowcount":-100000000000000000000000000000},"captured_at":99999999999999999999,"selection":{"ref":"e1","text":"t","start_offset":-18446744073709551616,"end_offset":"18446744073709551616"}}"#,
    );
    let wide = s.root.wide().expect("the wide integers are kept");
    assert_eq!(wide.level.as_deref(), Some("18446744073709551616"));
    assert_eq!(wide.colcount.as_deref(), Some("99999999999999999999"));
    assert_eq!(
        wide.rowcount.as_deref(),
        Some("-100000000000000000000000000000")
    );
    assert_eq!(s.root.level(), Some(i64::MAX));
    assert_eq!(s.root.rowcount(), Some(i64::MIN));
    assert_eq!(s.captured_at, i64::MAX);
    let sel = s.selection.as_ref().expect("a selection");
    assert_eq!(
        (sel.start_offset, sel.end_offset),
        (Some(i64::MIN), Some(i64::MAX))
    );
    // Written back as the numbers they are.
    let json = serde_json::to_string(&s.root).unwrap();
    assert!(
        json.contains(r#""level":18446744073709551616,"colcount":99999999999999999999,"rowcount":-100000000000000000000000000000"#),
        "{json}"
    );
}

#[test]
fn integers_within_64_bits_keep_no_text() {
    let s = snapshot(
        r#"{"root":{"ref":"e1","role":"heading","level":9223372036854775807,"colcount":-9223372036854775808,"rowcount":"3"},"captured_at":1}"#,
    );
    assert_eq!(s.root.wide(), None);
    assert_eq!(s.root.level(), Some(i64::MAX));
    assert_eq!(s.root.colcount(), Some(i64::MIN));
    assert_eq!(s.root.rowcount(), Some(3));
}

#[test]
fn floats_beyond_64_bits_are_still_refused() {
    let wire = r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"s1","data":{"tree":{"root":{"ref":"e1","role":"heading","level":1e19},"captured_at":1}}}"#;
    let err = parse_client_message(wire).expect_err("pydantic refuses 1e19 as an int");
    assert!(err.to_string().contains("level"), "{err}");
}
