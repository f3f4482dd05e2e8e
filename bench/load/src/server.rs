//! The server under test: `hark serve --agent FILE --addr 127.0.0.1:0` started as a child
//! process, its address read from its log line `hark listening: RTVI at ws://ADDR/ws`, its
//! stderr drained (WARN/ERROR lines counted) so it never blocks on a full pipe.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::cli::Args;

/// The environment variable the agent file names for its key; set only for the child.
pub const KEY_ENV: &str = "HARK_LOAD_LLM_KEY";

/// The agent file the server runs: its `[llm]` is the scripted provider at `base_url`, its
/// UI worker uses the local classifier (the default).
pub fn agent_file(base_url: &str) -> String {
    format!(
        r#"# Written by hark-load (bench/load): the scripted provider on loopback.
name = "load"
system_prompt = "You are the voice of a small shop. Answer in one short sentence. To act on the page, use the screen tool."
language = "en-US"
timezone = "Europe/Madrid"

[llm]
provider = "openai-compatible"
base_url = "{base_url}"
model = "load-model"
api_key_env = "{KEY_ENV}"

[tools]
builtin = ["current_datetime"]

[ui]
worker = true
classifier = "local"
"#
    )
}

/// Writes the agent file into a fresh directory under the system temp dir; returns its path.
///
/// # Errors
/// The file system's error.
pub fn write_agent_file(base_url: &str) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("hark-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("load.toml");
    std::fs::write(&path, agent_file(base_url))?;
    Ok(path)
}

/// The server's WARN / ERROR log lines, counted, and the first few kept.
#[derive(Debug, Default)]
pub struct LogCounts {
    /// WARN lines.
    pub warn: AtomicU64,
    /// ERROR lines.
    pub error: AtomicU64,
    /// The first WARN/ERROR lines.
    pub samples: Mutex<Vec<String>>,
}

/// A running `hark serve`.
#[derive(Debug)]
pub struct Spawned {
    child: Child,
    /// Its process id.
    pub pid: u32,
    /// `ws://ADDR/ws`.
    pub url: String,
    /// Its WARN/ERROR log lines.
    pub log: Arc<LogCounts>,
}

/// Starts `hark serve [--agent <agent>] --addr 127.0.0.1:0 --log <--server-log>
/// <--server-arg…>` with the `--server-env` variables and waits (at
/// most 120 s: the classifier's model loads first) for its listening line.
///
/// # Errors
/// A sentence: the binary cannot start (build it with `cargo build --release -p hark-server`),
/// or it exited or stayed silent, with its last log lines.
pub async fn spawn(hark: &Path, agent: Option<&Path>, args: &Args) -> Result<Spawned, String> {
    let mut command = Command::new(hark);
    command.arg("serve");
    if let Some(agent) = agent {
        command.arg("--agent").arg(agent);
    }
    let mut child = command
        .args(["--addr", "127.0.0.1:0", "--log", &args.server_log])
        .args(&args.server_args)
        .envs(args.server_env.iter().map(|(k, v)| (k, v)))
        .env(KEY_ENV, "hark-load-key")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start {}: {e}. Build it with `cargo build --release -p hark-server` or \
                 pass --hark PATH.",
                hark.display()
            )
        })?;
    let pid = child.id().ok_or("the server exited at once")?;
    let stderr = child
        .stderr
        .take()
        .ok_or("the server's stderr is not piped")?;
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(Duration::from_secs(120), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("ws://") {
                let url: String = line[at..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != '"')
                    .collect();
                if line.contains("hark listening") {
                    return Some(url);
                }
            }
            seen.push(line);
            if seen.len() > 40 {
                seen.remove(0);
            }
        }
        None
    })
    .await;
    let url = match found {
        Ok(Some(url)) => url,
        _ => {
            let _ = child.start_kill();
            return Err(format!(
                "{} serve did not report its address; its last log lines:\n{}",
                hark.display(),
                seen.join("\n")
            ));
        }
    };
    let counts = Arc::new(LogCounts::default());
    let drain = counts.clone();
    // The server logs a line per snapshot at `info`: read them as bytes into one reused buffer
    // (no `String` per line), looking only for the level.
    let mut stderr = lines.into_inner();
    tokio::spawn(async move {
        let mut line = Vec::with_capacity(512);
        loop {
            line.clear();
            match stderr.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let level = if has(&line, b" ERROR ") {
                &drain.error
            } else if has(&line, b" WARN ") {
                &drain.warn
            } else {
                continue;
            };
            level.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut s) = drain.samples.lock()
                && s.len() < 3
            {
                let text = String::from_utf8_lossy(&line);
                s.push(
                    text.trim_end_matches(['\n', '\r'])
                        .chars()
                        .take(300)
                        .collect(),
                );
            }
        }
    });
    Ok(Spawned {
        child,
        pid,
        url,
        log: counts,
    })
}

/// Whether `needle` occurs in `line`.
fn has(line: &[u8], needle: &[u8]) -> bool {
    line.windows(needle.len()).any(|w| w == needle)
}

impl Spawned {
    /// SIGTERM (through `kill -TERM <pid>`), then SIGKILL after 15 s.
    pub async fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status()
            .await;
        if tokio::time::timeout(Duration::from_secs(15), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_file_points_at_the_provider_with_the_key_variable() {
        let text = agent_file("http://127.0.0.1:4242/v1");
        assert!(text.contains("base_url = \"http://127.0.0.1:4242/v1\""));
        assert!(text.contains(&format!("api_key_env = \"{KEY_ENV}\"")));
    }
}
