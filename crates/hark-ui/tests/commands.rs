//! UI commands and the stale-ref guard (a ref of an earlier snapshot is refused, not sent).

use std::sync::{Arc, Mutex};

use hark_rtvi::ServerMessage;
use hark_rtvi::ui::Toast;
use hark_ui::{A11ySnapshot, CommandError, CommandSink, SinkClosed, UiSelection, UiWorker};
use serde_json::{Value, json};

#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<Value>>);

impl CommandSink for Recorder {
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed> {
        let ServerMessage::UiCommand(cmd) = message else {
            panic!("only ui-command is sent")
        };
        self.0
            .lock()
            .unwrap()
            .push(json!({"command": cmd.command, "payload": cmd.payload}));
        Ok(())
    }
}

fn worker() -> (UiWorker, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    (UiWorker::new("ui", rec.clone()), rec)
}

fn snap(json: Value) -> A11ySnapshot {
    A11ySnapshot::from_value(json, "").expect("valid snapshot")
}

fn snapshot_a() -> A11ySnapshot {
    snap(
        json!({"root": {"ref": "e1", "role": "generic", "children": [
        {"ref": "e5", "role": "textbox", "name": "Email", "value": "ana@example.com"},
        {"ref": "e6", "role": "checkbox", "name": "Gift wrap"},
        {"ref": "e7", "role": "button", "name": "Save"},
        {"ref": "", "role": "text", "name": "Total"}]},
        "captured_at": 1767225600000_i64,
        "selection": {"ref": "e5", "text": "  ana  ", "start_offset": 2, "end_offset": 7}}),
    )
}

#[test]
fn typed_helpers_send_the_pipecat_payloads() {
    let (w, rec) = worker();
    w.on_snapshot(snapshot_a());
    w.scroll_to("e5").unwrap();
    w.highlight("e6").unwrap();
    w.focus("e5").unwrap();
    w.click("e6").unwrap();
    w.set_input_value("e5", "zoë@example.com", true).unwrap();
    w.set_input_value("e5", "!", false).unwrap();
    w.select_text("e5", None, None).unwrap();
    w.select_text("e5", Some(0), Some(3)).unwrap();
    w.toast(&Toast {
        title: "Saved".into(),
        ..Default::default()
    })
    .unwrap();
    let mut params = serde_json::Map::new();
    params.insert("id".into(), json!(7));
    w.navigate("cart", Some(params)).unwrap();
    let sent = rec.0.lock().unwrap().clone();
    assert_eq!(
        sent,
        vec![
            json!({"command": "scroll_to", "payload": {"ref": "e5", "target_id": null, "behavior": null}}),
            json!({"command": "highlight", "payload": {"ref": "e6", "target_id": null, "duration_ms": null}}),
            json!({"command": "focus", "payload": {"ref": "e5", "target_id": null}}),
            json!({"command": "click", "payload": {"ref": "e6", "target_id": null}}),
            json!({"command": "set_input_value", "payload":
                {"value": "zoë@example.com", "ref": "e5", "target_id": null, "replace": true}}),
            json!({"command": "set_input_value", "payload":
                {"value": "!", "ref": "e5", "target_id": null, "replace": false}}),
            json!({"command": "select_text", "payload":
                {"ref": "e5", "target_id": null, "start_offset": null, "end_offset": null}}),
            json!({"command": "select_text", "payload":
                {"ref": "e5", "target_id": null, "start_offset": 0, "end_offset": 3}}),
            json!({"command": "toast", "payload": {"title": "Saved", "subtitle": null,
                "description": null, "image_url": null, "duration_ms": null}}),
            json!({"command": "navigate", "payload": {"view": "cart", "params": {"id": 7}}}),
        ]
    );
    // Key order on the wire is pipecat's model field order.
    let wire = serde_json::to_string(&sent[4]["payload"]).unwrap();
    assert_eq!(
        wire,
        r#"{"value":"zoë@example.com","ref":"e5","target_id":null,"replace":true}"#
    );
}

#[test]
fn send_command_takes_any_name_and_null_payload_is_empty_object() {
    let (w, rec) = worker();
    w.send_command("add_note", json!({"text": "hi"})).unwrap();
    w.send_command("refresh", Value::Null).unwrap();
    assert_eq!(
        rec.0.lock().unwrap().clone(),
        vec![
            json!({"command": "add_note", "payload": {"text": "hi"}}),
            json!({"command": "refresh", "payload": {}}),
        ]
    );
}

/// A ref no snapshot of the session had (made up, or not a ref at all) is refused with
/// its own text, which sends the model to the latest `<ui_state>`, not to re-read the page;
/// a ref of an earlier snapshot keeps the stale text.
#[test]
fn u4_a_ref_never_shown_is_unknown_not_stale() {
    let (w, rec) = worker();
    w.on_snapshot(snapshot_a());
    for r in ["e999", "button \"Save\"", "#save", "E7", "e7 "] {
        let err = w.click(r).unwrap_err();
        assert_eq!(
            err,
            CommandError::UnknownRef {
                command: "click".into(),
                ref_: r.into()
            },
            "{r:?}"
        );
        assert!(!w.has_seen_ref(r), "{r:?}");
    }
    assert_eq!(
        w.click("e999").unwrap_err().to_string(),
        "e999 is not a ref the page has shown: no recent snapshot had it. Use only refs that \
         appear in the latest <ui_state>, and send click again with one of them."
    );
    // Every ref-taking path tells the two apart, the free-form one too.
    assert!(matches!(
        w.send_command("add_note", json!({"ref": "e999"})),
        Err(CommandError::UnknownRef { .. })
    ));
    assert!(matches!(
        w.scroll_to("e998"),
        Err(CommandError::UnknownRef { .. })
    ));
    // The page changes: e7 was shown, so it is stale; e999 still was never shown.
    w.on_snapshot(snap(
        json!({"root": {"ref": "e1", "role": "generic", "children": [
        {"ref": "e19", "role": "button", "name": "Save"}]}, "captured_at": 1767225601000_i64}),
    ));
    assert!(w.has_seen_ref("e7") && w.has_seen_ref("e19") && w.has_seen_ref("e1"));
    assert!(matches!(w.click("e7"), Err(CommandError::StaleRef { .. })));
    assert!(matches!(
        w.highlight("e999"),
        Err(CommandError::UnknownRef { .. })
    ));
    assert!(!w.has_seen_ref(""), "the empty ref is never a ref");
    assert!(rec.0.lock().unwrap().is_empty(), "nothing was sent");
}

/// The memory of refs is bounded (a session lives for hours): the refs of the last
/// `REMEMBERED_REFS` are always known, much older ones are forgotten, and so read as unknown.
#[test]
fn the_memory_of_refs_shown_is_bounded_and_keeps_the_latest() {
    use hark_ui::worker::REMEMBERED_REFS;
    let (w, _rec) = worker();
    // 200-node pages whose every ref changes, as the load generator sends them.
    let page = |g: usize| {
        let children: Vec<Value> = (0..199)
            .map(|i| json!({"ref": format!("e{}", 256 * g + i + 2), "role": "button", "name": "Add"}))
            .collect();
        snap(
            json!({"root": {"ref": format!("e{}", 256 * g + 1), "role": "main",
                     "children": children}, "captured_at": g}),
        )
    };
    let pages = 200;
    for g in 0..pages {
        w.on_snapshot(page(g));
    }
    // The latest REMEMBERED_REFS refs (five pages and more) are all known, stale when gone.
    let recent = REMEMBERED_REFS / 200;
    for g in pages - recent..pages - 1 {
        for i in 0..200 {
            let r = format!("e{}", 256 * g + i + 1);
            assert!(w.has_seen_ref(&r), "{r}");
        }
        assert!(matches!(
            w.click(&format!("e{}", 256 * g + 5)),
            Err(CommandError::StaleRef { .. })
        ));
    }
    // The first pages are forgotten: at most one in ten of their refs still reads as seen (a
    // Bloom filter may say yes to a ref it never had, never no to one it has).
    let old: Vec<String> = (0..10)
        .flat_map(|g| (0..200).map(move |i| format!("e{}", 256 * g + i + 1)))
        .collect();
    let still = old.iter().filter(|r| w.has_seen_ref(r)).count();
    assert!(still * 10 < old.len(), "{still} of {} old refs", old.len());
    // And so do refs never shown at all.
    let never = (0..2000)
        .filter(|k| w.has_seen_ref(&format!("x{k}")))
        .count();
    assert!(never < 200, "{never} of 2000 never-shown refs read as seen");
}

/// Snapshot A has Save as e7; the page re-renders and snapshot B has it as e19 and no e7.
#[test]
fn u1_stale_ref_is_refused_not_sent() {
    let (w, rec) = worker();
    w.on_snapshot(snapshot_a());
    w.click("e7").unwrap();
    w.on_snapshot(snap(
        json!({"root": {"ref": "e1", "role": "generic", "children": [
        {"ref": "e19", "role": "button", "name": "Save"}]}, "captured_at": 1767225601000_i64}),
    ));
    let err = w.click("e7").unwrap_err();
    assert_eq!(
        err,
        CommandError::StaleRef {
            command: "click".into(),
            ref_: "e7".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "e7 is not on the screen any more: the page changed since that ref was read. \
         Take the refs of the latest snapshot and send click again."
    );
    // Every ref-taking path is guarded, including the free-form one.
    assert!(matches!(
        w.scroll_to("e7"),
        Err(CommandError::StaleRef { .. })
    ));
    assert!(matches!(
        w.set_input_value("e5", "x", true),
        Err(CommandError::StaleRef { .. })
    ));
    assert!(matches!(
        w.send_command("add_note", json!({"ref": "e7"})),
        Err(CommandError::StaleRef { .. })
    ));
    w.click("e19").unwrap();
    let sent = rec.0.lock().unwrap().clone();
    assert_eq!(
        sent.len(),
        2,
        "only the two valid clicks went out: {sent:?}"
    );
    assert_eq!(sent[1]["payload"]["ref"], "e19");
}

#[test]
fn refs_before_any_snapshot_empty_refs_and_bad_offsets_are_refused() {
    let (w, rec) = worker();
    assert_eq!(
        w.highlight("e3").unwrap_err(),
        CommandError::NoSnapshot {
            command: "highlight".into(),
            ref_: "e3".into()
        }
    );
    w.on_snapshot(snapshot_a());
    assert_eq!(
        w.click("").unwrap_err(),
        CommandError::EmptyRef {
            command: "click".into()
        }
    );
    assert_eq!(
        w.send_command("x", json!({"ref": 5})).unwrap_err(),
        CommandError::RefNotAString {
            command: "x".into()
        }
    );
    assert_eq!(
        w.select_text("e5", Some(4), Some(1)).unwrap_err(),
        CommandError::BadOffsets { start: 4, end: 1 }
    );
    assert_eq!(
        w.select_text("e5", Some(-1), Some(1)).unwrap_err(),
        CommandError::BadOffsets { start: -1, end: 1 }
    );
    assert_eq!(
        w.select_text("e5", Some(1), None).unwrap_err(),
        CommandError::HalfOffsets
    );
    // A null ref is not a ref (pipecat payloads carry target_id instead).
    w.send_command("scroll_to", json!({"ref": null, "target_id": "main"}))
        .unwrap();
    assert_eq!(rec.0.lock().unwrap().len(), 1);
}

#[test]
fn a_closed_session_is_an_error_naming_the_command() {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    drop(rx);
    let w = UiWorker::new("ui", Arc::new(tx));
    let err = w
        .toast(&Toast {
            title: "t".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(
        err,
        CommandError::Closed {
            command: "toast".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "cannot send toast: the client session has ended, so no command can reach it."
    );
}

#[test]
fn snapshot_selection_and_render_follow_the_latest_snapshot() {
    let (w, _) = worker();
    assert!(w.snapshot().is_none());
    assert!(w.selection().is_none());
    assert_eq!(w.render_ui_state(), "");
    w.on_snapshot(snapshot_a());
    let screen = w.snapshot().unwrap();
    assert!(screen.has_ref("e7") && !screen.has_ref(""));
    assert_eq!(screen.ref_count(), 4);
    assert_eq!(
        w.selection(),
        Some(UiSelection {
            ref_: "e5".into(),
            text: "ana".into()
        })
    );
    assert!(
        w.render_ui_state()
            .ends_with("<selection ref=\"e5\">\n  ana  \n</selection>\n</ui_state>")
    );
    // Whitespace-only selection reads as none (pipecat strips the text).
    w.on_snapshot(snap(
        json!({"root": {"ref": "e1", "role": "generic"}, "captured_at": 1,
        "selection": {"ref": "e1", "text": " \n "}}),
    ));
    assert!(w.selection().is_none());
}

/// A snapshot sent right after bot-ready with no later DOM change is the worker's; after a
/// set_input_value, the next snapshot's value is what the worker renders.
#[test]
fn u7_u8_the_first_snapshot_counts_and_the_next_one_replaces_it() {
    let (w, _) = worker();
    w.on_snapshot(snapshot_a());
    assert!(
        w.render_ui_state()
            .contains("textbox \"Email\" = \"ana@example.com\" [ref=e5]")
    );
    w.set_input_value("e5", "zoe@example.com", true).unwrap();
    w.on_snapshot(snap(
        json!({"root": {"ref": "e1", "role": "generic", "children": [
        {"ref": "e5", "role": "textbox", "name": "Email", "value": "zoe@example.com"}]},
        "captured_at": 2}),
    ));
    let state = w.render_ui_state();
    assert!(state.contains("textbox \"Email\" = \"zoe@example.com\" [ref=e5]"));
    assert!(!state.contains("ana@example.com"));
}
