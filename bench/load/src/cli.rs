//! Command line of `hark-load` (clap). Every run is bounded: a session count, a ramp rate, a
//! measured duration and timeouts for each awaited step.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// `hark-load`: opens N RTVI sessions over WebSocket to `hark serve` and measures snapshot →
/// command and text → first bot text latencies, server RSS and CPU.
#[derive(Debug, Clone, Parser)]
#[command(name = "hark-load", version, about)]
pub struct Args {
    /// How many sessions to open.
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    /// How long the measured (active) phase lasts, e.g. 30s, 500ms, 2m.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Sessions opened per second while ramping up (at least 1).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub ramp: u32,
    /// Interval between two `ui-snapshot`s of one session.
    #[arg(long, default_value = "300ms", value_parser = parse_duration)]
    pub snapshot_every: Duration,
    /// Mean interval between two text turns of one session (each jittered by ±50 %).
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub turn_every: Duration,
    /// Longest wait for a turn's measured answer (the `ui-command` or the first bot text);
    /// after it the turn counts as a timeout.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub turn_timeout: Duration,
    /// Longest wait for the WebSocket connect and for `bot-ready` after `client-ready`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub connect_timeout: Duration,
    /// Wait after the last session is open and idle before the idle RSS is read.
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub settle: Duration,
    /// Nodes in each snapshot (the root included; 200 is client-js's cap).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(30..=255))]
    pub nodes: u32,
    /// Delay of the scripted provider before each reply (time to first token).
    #[arg(long, default_value = "0ms", value_parser = parse_duration)]
    pub llm_delay: Duration,
    /// The `hark` binary to start (`hark serve --agent FILE --addr 127.0.0.1:0`).
    #[arg(long, default_value = "target/release/hark")]
    pub hark: PathBuf,
    /// The server's `--log` filter (the server's own default is `info`).
    #[arg(long, default_value = "info")]
    pub server_log: String,
    /// One more argument for `hark serve` (repeat the flag for more), e.g.
    /// `--server-arg=--max-connections=5000`.
    #[arg(long = "server-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub server_args: Vec<String>,
    /// An environment variable for the server, `NAME=VALUE` (repeat for more), e.g.
    /// `--server-env MALLOC_ARENA_MAX=2`.
    #[arg(long = "server-env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub server_env: Vec<(String, String)>,
    /// Start `hark serve` without `--agent` (the no-agent handler: no voice agent, no UI
    /// worker): for comparing memory; turns then get no command.
    #[arg(long)]
    pub no_agent: bool,
    /// Aim at an already running server (`ws://host:port/ws`) instead of starting one; its
    /// agent must use this generator's scripted provider, so this is for `--provider-only` runs.
    #[arg(long)]
    pub url: Option<String>,
    /// With `--url`: the server's process id, for its RSS and CPU (else they are not reported).
    #[arg(long)]
    pub pid: Option<u32>,
    /// Only start the scripted provider and print its agent file, then wait for Ctrl-C: for a
    /// server started by hand and aimed at with `--url`.
    #[arg(long)]
    pub provider_only: bool,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `NAME=VALUE`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

/// A duration: a whole number followed by `ms`, `s` or `m` (a bare number is seconds), as
/// `hark serve` reads its durations.
///
/// # Errors
/// A sentence naming the accepted forms.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let bad = || format!("{text:?} is not a duration: write e.g. 30s, 500ms or 2m");
    let n: u64 = number.parse().map_err(|_| bad())?;
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(n)),
        "" | "s" => Ok(Duration::from_secs(n)),
        "m" => n.checked_mul(60).map(Duration::from_secs).ok_or_else(bad),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_ms_s_and_m() {
        assert_eq!(parse_duration("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert!(parse_duration("5h").is_err());
        assert!(parse_duration("").is_err());
    }
}
