//! The demo page in headless Chromium (driven by chromedriver through fantoccini) against an
//! in-process server: the real Pipecat client reaches `bot-ready` (P1), its first snapshot
//! holds the page's "Add to cart" buttons (U7), and `set_input_value` / `click` commands show in
//! the next snapshots (U8). A text turn typed in the page gets the no-agent line.
//!
//! Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is missing
//! the test FAILS with the command that installs or builds it.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use hark_rtvi::message::ServerMessage;
use hark_rtvi::snapshot::{A11yNode, A11ySnapshot};
use hark_rtvi::ui::UiCommand;
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, SessionEventKind, SessionId, messages};
use serde_json::json;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Kills chromedriver and everything it started (its process group) when dropped, and removes
/// the browser profile directory: runs on failure too.
struct Chromedriver {
    child: Child,
    port: u16,
    profile: PathBuf,
}

impl Chromedriver {
    fn start(profile: PathBuf) -> Chromedriver {
        // A free port: bind :0, read it, release it (chromedriver takes it right after).
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut cmd = Command::new(CHROMEDRIVER);
        cmd.arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {CHROMEDRIVER}: {e}. {}", install_hint()));
        Chromedriver {
            child,
            port,
            profile,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn wait_listening(&mut self) {
        let deadline = tokio::time::Instant::now() + STEP;
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("chromedriver exited early ({status}). {}", install_hint());
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "chromedriver did not listen on {}",
                self.port
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and the Chromium it launched (by our child's id).
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn install_hint() -> &'static str {
    "Install Debian's browser and driver: `apt-get update && apt-get install -y chromium chromium-driver` \
     (scripts/test.sh does this)."
}

fn check_prerequisites(web_dir: &Path) {
    for bin in [CHROMIUM, CHROMEDRIVER] {
        assert!(
            Path::new(bin).is_file(),
            "{bin} is missing. {}",
            install_hint()
        );
    }
    assert!(
        web_dir.join("index.html").is_file(),
        "{} has no index.html: build the demo page first with `{}` (from the repository root).",
        web_dir.display(),
        messages::DEMO_BUILD_COMMAND
    );
}

fn find<'a>(node: &'a A11yNode, role: &str, name: &str) -> Vec<&'a A11yNode> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.role == role && n.name.as_deref() == Some(name) {
            out.push(n);
        }
        stack.extend(n.children.iter().rev());
    }
    out
}

fn one<'a>(snapshot: &'a A11ySnapshot, role: &str, name: &str) -> &'a A11yNode {
    let found = find(&snapshot.root, role, name);
    assert_eq!(
        found.len(),
        1,
        "expected one {role} {name:?} in the snapshot, found {}",
        found.len()
    );
    found[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_page_handshakes_snapshots_and_obeys_commands() {
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);

    let server = TestServer::start(ServerConfig {
        web_dir: Some(web_dir),
        ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
    });
    let mut events = server.sessions.subscribe();

    let profile =
        std::env::temp_dir().join(format!("hark-chromium-profile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let mut driver = Chromedriver::start(profile.clone());
    driver.wait_listening().await;

    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                "--autoplay-policy=no-user-gesture-required",
                format!("--user-data-dir={}", profile.display()),
            ]
        }),
    );
    let browser = fantoccini::ClientBuilder::rustls()
        .expect("rustls connector")
        .capabilities(caps)
        .connect(&driver.url())
        .await
        .unwrap_or_else(|e| {
            panic!(
                "chromedriver could not start Chromium: {e}. {}",
                install_hint()
            )
        });

    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");

    // P1: the real client's client-ready is answered; the server sees the session ready.
    let (id, library) = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Ready { client_library, .. } => Some((e.session, client_library.clone())),
        _ => None,
    })
    .await;
    assert_eq!(library.as_deref(), Some("@pipecat-ai/client-js"));

    // U7: a snapshot arrives after bot-ready with no DOM change, holding the products.
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

    // U8: set the Email textbox and tick Gift wrap by ref; later snapshots show both.
    let email = one(&first, "textbox", "Email").ref_.clone();
    let gift = one(&first, "checkbox", "Gift wrap");
    assert!(
        !gift.state.iter().any(|s| s == "checked"),
        "Gift wrap starts unchecked"
    );
    let gift = gift.ref_.clone();
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
            .and_then(|n| n.value.as_deref())
            == Some("ana@example.com")
            && find(&s.root, "checkbox", "Gift wrap")
                .first()
                .is_some_and(|n| n.state.iter().any(|s| s == "checked"))
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

/// The next snapshot of session `id` for which `pick` holds.
async fn next_snapshot(
    events: &mut tokio::sync::broadcast::Receiver<hark_server::SessionEvent>,
    id: SessionId,
    mut pick: impl FnMut(&A11ySnapshot) -> bool,
) -> Arc<A11ySnapshot> {
    wait_for(events, |e| match &e.kind {
        SessionEventKind::Snapshot(s) if e.session == id && pick(s) => Some(s.clone()),
        _ => None,
    })
    .await
}
