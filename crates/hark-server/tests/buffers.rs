//! Each connection's WebSocket read buffer starts at 4 KiB (not
//! tungstenite's 128 KiB), and frames far larger than that still arrive whole: the buffer
//! grows to the frame. A real client (tokio-tungstenite) against a real server on loopback.

mod common;

use common::*;
use hark_server::SessionEventKind;
use serde_json::{Value, json};

/// A `ui-snapshot` envelope of a little under `bytes` bytes (under the 512 KiB snapshot limit
/// and the 1 MiB frame limit): a list of `count` buttons with long names, the last one `Last`.
fn big_snapshot(id: &str, count: usize, bytes: usize) -> String {
    let name_len = bytes / count - 48;
    let button = |n: usize| {
        let name = format!("{n:06}").repeat(name_len / 6);
        json!({"ref": format!("e{}", n + 2), "role": "button", "name": name})
    };
    let mut children: Vec<Value> = (0..count - 1).map(button).collect();
    children.push(json!({"ref": format!("e{}", count + 1), "role": "button", "name": "Last"}));
    let tree = json!({"root": {"ref": "e1", "role": "list", "children": children},
                      "captured_at": 1});
    envelope("ui-snapshot", id, json!({ "tree": tree }))
}

#[tokio::test]
async fn snapshots_much_larger_than_the_read_buffer_arrive_whole() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;

    // ~490 KiB: about 120 times the 4 KiB read buffer, and over the old 128 KiB default too; twice,
    // so a grown buffer is reused, then a small one after them.
    for (request, count) in [("big1", 1_000), ("big2", 800)] {
        let text = big_snapshot(request, count, 500 * 1024);
        assert!(
            text.len() > 480 * 1024 && text.len() < 512 * 1024,
            "{}",
            text.len()
        );
        send_json(&mut ws, &text).await;
        let nodes = wait_for(&mut events, |e| match &e.kind {
            SessionEventKind::Snapshot(s) => Some(s.tree().root.count()),
            _ => None,
        })
        .await;
        assert_eq!(nodes, count + 1, "{request}: every node arrived");
        let latest = server.sessions.latest_snapshot(id).expect("kept");
        let last = latest.root.children.last().expect("children");
        assert_eq!(
            last.name.as_deref(),
            Some("Last"),
            "{request}: the tail arrived"
        );
    }
    let small = json!({"tree": {"root": {"ref": "e1", "role": "main", "children": [
        {"ref": "e2", "role": "button", "name": "Save"}]}, "captured_at": 2}});
    send_json(&mut ws, &envelope("ui-snapshot", "small", small)).await;
    assert_alive(&mut ws, "alive").await;
    assert_eq!(
        server.sessions.latest_snapshot(id).map(|s| s.root.count()),
        Some(2)
    );
    server.stop().await;
}
