//! What the local speech servers' guards share: finding their Python in the environment (or
//! skipping), starting a script of `scripts/` on port 0 in a process group of its own, reading
//! the `NAME: listening on URL` line it prints, and killing the group when dropped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a server may take to print its address: importing its runtime and loading the
/// weights (a few seconds on 2 busy cores; a hang guard, not a timing assertion).
const START_LIMIT: Duration = Duration::from_secs(90);

/// Whether this run is a CI run (`CI` set to anything but empty, `0` or `false`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The repository's root (two levels above hark-voice).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python in `var`, or `None` (printed) outside CI; `env_script` (e.g. `stt-env.sh`) makes
/// the venv and `what` names it (e.g. `the local STT`).
///
/// # Panics
/// Under CI when `var` is not set.
pub(crate) fn python_from_env(
    var: &str,
    env_script: &str,
    what: &str,
    test: &str,
) -> Option<PathBuf> {
    match std::env::var_os(var).filter(|v| !v.is_empty()) {
        Some(python) => Some(PathBuf::from(python)),
        None => {
            assert!(
                !in_ci(),
                "{var} is not set under CI: set it to the python of the venv \
                 `scripts/{env_script}` makes (it prints the venv's path on its last line: \
                 {var}=\"$(scripts/{env_script} | tail -n 1)/bin/python\")"
            );
            println!(
                "skipping {test}: {var} is not set ({what}'s Python: \
                 {var}=\"$(scripts/{env_script} | tail -n 1)/bin/python\")"
            );
            None
        }
    }
}

/// A server script of `scripts/`, running; its process group is killed when dropped.
#[derive(Debug)]
pub(crate) struct LocalServer {
    child: Child,
    base_url: String,
    log: PathBuf,
}

impl LocalServer {
    /// Starts `scripts/{name}.py --port 0` with `python` and waits (at most [`START_LIMIT`]) for
    /// its `{name}: listening on URL` line; `var` names the Python's variable in messages. Its
    /// stderr goes to a file shown when it fails.
    ///
    /// # Panics
    /// When the script is missing, the server exits or prints no address in time.
    pub(crate) fn start(python: &Path, name: &str, var: &str, tag: &str) -> LocalServer {
        let script = repo_root().join(format!("scripts/{name}.py"));
        assert!(script.is_file(), "{} is missing", script.display());
        let log = std::env::temp_dir().join(format!(
            "hark-{name}-{tag}-{}-{:?}.log",
            std::process::id(),
            std::thread::current().id()
        ));
        let stderr = std::fs::File::create(&log).expect("the server's log file");
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
                "cannot run {} {}: {e} ({var}: the venv of scripts/{}-env.sh)",
                python.display(),
                script.display(),
                name.trim_end_matches("-server")
            )
        });
        // stdout is read on a thread of its own; the first line that names the address is
        // handed over, then the rest is drained so the server never blocks on a full pipe.
        let listening = format!("{name}: listening on ");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        let prefix = listening.clone();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix(&prefix)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let mut server = LocalServer {
            child,
            base_url: String::new(),
            log,
        };
        match rx.recv_timeout(START_LIMIT) {
            Ok(url) => server.base_url = url,
            Err(_) => {
                let status = server.child.try_wait().ok().flatten();
                panic!(
                    "scripts/{name}.py printed no `{listening}URL` line within {START_LIMIT:?} \
                     ({}); its stderr:\n{}",
                    status.map_or("still running".to_owned(), |s| format!("exited: {s}")),
                    server.stderr_tail()
                );
            }
        }
        server
    }

    /// The API root, e.g. `http://127.0.0.1:41234/v1`.
    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The end of what the server wrote to stderr (for a failure's message).
    pub(crate) fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// Whether the server process is still running.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for LocalServer {
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
