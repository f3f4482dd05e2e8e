//! What the Redis tests of hark-bus and hark-server share (the `test-support` feature): the
//! shared test server's URL, a `redis-server` of a test's own that it can kill and restart,
//! and captured log lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn skip_or_fail(test: &str, why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{why} under CI: scripts/test.sh installs and starts redis-server"
    );
    eprintln!("skipping {test}: {why} (scripts/test.sh installs and starts a redis-server)");
}

/// The shared test server's URL (`HARK_TEST_REDIS_URL`), or `None` with the reason printed
/// when a developer runs without one. Under `CI=true` a missing server is a failure.
pub fn redis_url(test: &str) -> Option<String> {
    match std::env::var("HARK_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            skip_or_fail(test, "HARK_TEST_REDIS_URL is not set");
            None
        }
    }
}

/// A channel name that no other test (or run) uses.
pub fn channel(prefix: &str, test: &str) -> String {
    format!("{prefix}:{test}:{}", std::process::id())
}

/// A `redis-server` of one test's own, on a unix socket in a fresh temporary directory, so the
/// test can kill and restart it without touching anyone else's. Killed when dropped.
#[derive(Debug)]
pub struct OwnRedis {
    dir: PathBuf,
    child: Option<Child>,
}

impl OwnRedis {
    /// Starts one, or `None` (printed; a failure under `CI=true`) when `redis-server` is not on
    /// `PATH`.
    pub fn start(test: &str) -> Option<OwnRedis> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let on_path = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !on_path {
            skip_or_fail(test, "redis-server is not on PATH");
            return None;
        }
        let dir = std::env::temp_dir().join(format!(
            "hark-own-redis-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut server = OwnRedis { dir, child: None };
        server.restart();
        Some(server)
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("sock")
    }

    /// Starts the server again (after [`OwnRedis::kill`]) on the same socket; waits until it
    /// answers.
    pub fn restart(&mut self) {
        self.kill();
        let _ = std::fs::remove_file(self.socket());
        let child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(self.socket())
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        for _ in 0..200 {
            if std::os::unix::net::UnixStream::connect(self.socket()).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis-server did not listen on {}", self.socket().display());
    }

    /// Stops the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Its URL: `unix:///…/sock`.
    pub fn url(&self) -> String {
        format!("unix://{}", self.socket().display())
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Log lines written while a test runs, to pin what was logged.
#[derive(Debug, Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Captures this thread's log lines at `level` and above (plain text, no colours) until the
/// guard drops; the tests run on a current-thread runtime, so the worker's lines are caught.
pub fn capture_logs(level: tracing::Level) -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time() // a timestamp's digits could hold a value the test says is absent
        .with_writer(move || writer.clone())
        .with_max_level(level)
        .with_ansi(false)
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}
