//! Headless Chromium through chromedriver (fantoccini) for the browser tests, and snapshot
//! helpers. Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is
//! missing the test FAILS with the command that installs or builds it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hark_rtvi::snapshot::{A11yNode, A11ySnapshot};
use hark_server::{SessionEventKind, SessionId, messages};
use serde_json::{Value, json};

use super::{STEP, wait_for};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Kills chromedriver and everything it started (its process group) when dropped, and removes
/// the browser profile directory: runs on failure too.
pub struct Chromedriver {
    child: Child,
    port: u16,
    profile: PathBuf,
}

impl Chromedriver {
    pub fn start(profile: PathBuf) -> Chromedriver {
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

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub async fn wait_listening(&mut self) {
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

pub fn install_hint() -> &'static str {
    "Install Debian's browser and driver: `apt-get update && apt-get install -y chromium chromium-driver` \
     (scripts/test.sh does this)."
}

pub fn check_prerequisites(web_dir: &Path) {
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

pub fn find<'a>(node: &'a A11yNode, role: &str, name: &str) -> Vec<&'a A11yNode> {
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

pub fn one<'a>(snapshot: &'a A11ySnapshot, role: &str, name: &str) -> &'a A11yNode {
    let found = find(&snapshot.root, role, name);
    assert_eq!(
        found.len(),
        1,
        "expected one {role} {name:?} in the snapshot, found {}",
        found.len()
    );
    found[0]
}

/// Starts chromedriver and a headless Chromium with a fresh profile named after `tag`; the
/// driver (kept alive by the caller) kills both and removes the profile when dropped.
///
/// No fake-media flags: Chromium runs as on a machine with no microphone (the demo page must
/// connect without one).
pub async fn start_browser(tag: &str) -> (Chromedriver, fantoccini::Client) {
    start_browser_with(tag, &[]).await
}

/// [`start_browser`] with `extra` Chromium arguments after the usual ones (e.g. a fake
/// microphone: `--use-fake-device-for-media-stream`, `--use-file-for-fake-audio-capture=…`).
pub async fn start_browser_with(tag: &str, extra: &[String]) -> (Chromedriver, fantoccini::Client) {
    let profile = std::env::temp_dir().join(format!("hark-chromium-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let mut driver = Chromedriver::start(profile.clone());
    driver.wait_listening().await;

    let mut args: Vec<String> = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--autoplay-policy=no-user-gesture-required",
    ]
    .map(String::from)
    .into();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.extend_from_slice(extra);
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": CHROMIUM, "args": args }),
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

    (driver, browser)
}

/// The next snapshot of session `id` for which `pick` holds.
pub async fn next_snapshot(
    events: &mut tokio::sync::broadcast::Receiver<hark_server::SessionEvent>,
    id: SessionId,
    mut pick: impl FnMut(&A11ySnapshot) -> bool,
) -> Arc<A11ySnapshot> {
    wait_for(events, |e| match &e.kind {
        SessionEventKind::Snapshot(s) if e.session == id => Some(s.tree()).filter(|s| pick(s)),
        _ => None,
    })
    .await
}

/// The script that reads the demo page's conversation log: what a failed wait shows.
pub const PAGE_LOG: &str = "return document.getElementById('log')?.innerText ?? null";

/// Evaluates `script` in the page until it returns `true`; on timeout, fails showing the
/// page's conversation log.
pub async fn page_until(browser: &fantoccini::Client, what: &str, script: &str) {
    page_until_showing(browser, what, script, PAGE_LOG).await;
}

/// Evaluates `script` in the page until it returns `true`; on timeout, fails showing what the
/// script `show` returns.
pub async fn page_until_showing(
    browser: &fantoccini::Client,
    what: &str,
    script: &str,
    show: &str,
) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let v = browser
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{what}: script failed: {e}"));
        if v == json!(true) {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            let seen = browser.execute(show, vec![]).await.unwrap_or(Value::Null);
            panic!("{what}: never true; the page shows {seen}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Types `text` into the demo page's message box and sends it (the page's own submit handler
/// calls client-js `sendText`).
pub async fn type_message(browser: &fantoccini::Client, text: &str) {
    browser
        .execute(
            "const m = document.getElementById('message'); m.value = arguments[0];\
             document.getElementById('message-form').requestSubmit(); return true;",
            vec![json!(text)],
        )
        .await
        .expect("type a message");
}
