//! The demo page in headless Chromium (driven by chromedriver through fantoccini) against an
//! in-process server: the real Pipecat client reaches `bot-ready`, its first snapshot
//! holds the page's "Add to cart" buttons, and `set_input_value` / `click` commands show in
//! the next snapshots. A text turn typed in the page gets the no-agent line.
//!
//! Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is missing
//! the test FAILS with the command that installs or builds it.

mod common;

use std::time::Duration;

use common::chromium::*;
use common::*;
use hark_rtvi::message::ServerMessage;
use hark_rtvi::ui::UiCommand;
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, SessionEventKind, messages};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_page_handshakes_snapshots_and_obeys_commands() {
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);

    let server = TestServer::start(ServerConfig {
        web_dir: Some(web_dir),
        ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
    });
    let mut events = server.sessions.subscribe();

    let (driver, browser) = start_browser("browser").await;

    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");

    // The real client's client-ready is answered; the server sees the session ready.
    let (id, library) = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Ready { client_library, .. } => Some((e.session, client_library.clone())),
        _ => None,
    })
    .await;
    assert_eq!(library.as_deref(), Some("@pipecat-ai/client-js"));

    // A snapshot arrives after bot-ready with no DOM change, holding the products.
    let first = next_snapshot(&mut events, id, |s| {
        !find(&s.root, "button", "Add to cart").is_empty()
    })
    .await;
    let add_buttons = find(&first.root, "button", "Add to cart");
    assert!(
        add_buttons.len() >= 2,
        "the product rows' Add to cart buttons: {}",
        add_buttons.len()
    );
    assert!(server.sessions.latest_snapshot(id).is_some());

    // Set the Email textbox and tick Gift wrap by ref; later snapshots show both.
    let email = one(&first, "textbox", "Email").ref_.to_string();
    let gift = one(&first, "checkbox", "Gift wrap");
    assert!(!gift.has_state("checked"), "Gift wrap starts unchecked");
    let gift = gift.ref_.to_string();
    server
        .sessions
        .send(
            id,
            ServerMessage::UiCommand(UiCommand::set_input_value(&email, "ana@example.com")),
        )
        .await
        .unwrap();
    server
        .sessions
        .send(id, ServerMessage::UiCommand(UiCommand::click(&gift)))
        .await
        .unwrap();
    let after = next_snapshot(&mut events, id, |s| {
        find(&s.root, "textbox", "Email")
            .first()
            .and_then(|n| n.value())
            == Some("ana@example.com")
            && find(&s.root, "checkbox", "Gift wrap")
                .first()
                .is_some_and(|n| n.has_state("checked"))
    })
    .await;
    assert_eq!(
        one(&after, "textbox", "Email").ref_,
        email,
        "refs are stable across snapshots"
    );
    let dom_value = browser
        .execute("return document.getElementById('email').value", vec![])
        .await
        .unwrap();
    assert_eq!(dom_value, json!("ana@example.com"));

    // A text turn typed in the page reaches the session and the no-agent line is shown.
    browser
        .execute(
            "const m = document.getElementById('message'); m.value = 'hello hark'; \
             document.getElementById('send').click();",
            vec![],
        )
        .await
        .unwrap();
    let text = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::UserText(t) if e.session == id => Some(t.clone()),
        _ => None,
    })
    .await;
    assert_eq!(text, "hello hark");
    let line = messages::no_agent_reply();
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let log = browser
            .execute("return document.getElementById('log').innerText", vec![])
            .await
            .unwrap();
        if log.as_str().is_some_and(|t| t.contains(&line)) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the page never showed the bot line; log: {log}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    browser.close().await.expect("end the browser session");
    drop(driver);
    server.stop().await;
}
