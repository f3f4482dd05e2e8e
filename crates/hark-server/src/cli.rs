//! Command line of the `hark` binary (clap, every flag also settable from the environment).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::{self, ServerConfig};

/// `hark`: a toolkit and server for voice agents.
#[derive(Debug, Parser)]
#[command(
    name = "hark",
    version,
    about = "Hark: voice agents with typed tools and a UI worker."
)]
pub struct Cli {
    /// Log filter in `tracing` EnvFilter syntax (e.g. `info`, `hark_server=debug`). Hark never
    /// logs what the caller says or types; at debug/trace the WebSocket library's frame logs
    /// (which carry it) stay at info unless named: `--log trace,tungstenite=trace`.
    #[arg(long, env = "RUST_LOG", default_value = "info", global = true)]
    pub log: String,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `hark`.
// Parsed once at start: the size of `serve`'s many flags does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve RTVI over WebSocket at /ws (Pipecat's JS client) and, with --demo, the demo page at /.
    Serve(ServeArgs),
    /// Check an agent file: every build-time check, each problem printed with its fix; exit
    /// code 1 on any error, 0 and a one-line summary when it is clean.
    Check(CheckArgs),
    /// Serve as the UI worker on Pipecat's Redis bus: a Pipecat voice agent's `screen`
    /// (and, with --respond-model, `respond`) jobs answered by Hark's UI worker.
    Worker(WorkerArgs),
}

/// Flags of `hark worker`.
#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// The Redis server of the bus: redis://host:port[/db] or unix:///path/to/socket.
    #[arg(long, env = "HARK_BUS", value_name = "URL")]
    pub bus: String,
    /// The pub/sub channel, as given to Pipecat's RedisBus (its default: pipecat:bus). A Redis
    /// glob pattern (with *, ? or [, like 'call:*') serves many calls: one UI worker per
    /// matching channel, made on its first message, dropped when its call ends
    /// (BusEndMessage/BusCancelMessage on that channel) or goes idle (--idle-timeout).
    #[arg(long, env = "HARK_BUS_CHANNEL", default_value = "pipecat:bus",
          value_parser = not_blank)]
    pub channel: String,
    /// The worker's name, the one the voice agent addresses (`screen_tools("ui")`).
    #[arg(long, env = "HARK_WORKER_NAME", default_value = "ui", value_parser = not_blank)]
    pub name: String,
    /// The runner name it announces; must be unique on the channel (default:
    /// hark-<pid>-<epoch ms>).
    #[arg(long, env = "HARK_WORKER_RUNNER", value_parser = not_blank)]
    pub runner: Option<String>,
    /// Bus messages larger than this many bytes are dropped with a warning.
    #[arg(long, env = "HARK_BUS_MAX_MESSAGE_BYTES",
          default_value_t = hark_bus::redis_bus::DEFAULT_MAX_MESSAGE_BYTES,
          value_parser = message_bytes)]
    pub max_message_bytes: usize,
    /// With a channel pattern: a call's UI worker whose channel carries nothing for this many
    /// seconds is dropped, its held jobs answered cancelled.
    #[arg(long, env = "HARK_WORKER_IDLE_TIMEOUT", value_name = "SECONDS",
          default_value_t = 600.0, value_parser = positive_seconds)]
    pub idle_timeout: f64,
    /// Answer `screen` jobs without a classifier (only list, selection and actions on refs);
    /// by default the local classifier answers find, check and select.
    #[arg(long)]
    pub no_classifier: bool,
    /// Serve `respond` jobs with this model of an OpenAI-compatible server (key from
    /// OPENAI_API_KEY); without it `respond` is not served.
    #[arg(long, env = "HARK_RESPOND_MODEL", value_name = "MODEL")]
    pub respond_model: Option<String>,
    /// Give the respond turn's LLM the reply tool: one spoken answer plus scroll_to,
    /// highlight, select_text, fills and click on the page (Pipecat's ReplyToolMixin); the
    /// job then answers {"answer": …, "speak": true}. Without it the reply text is the answer.
    #[arg(long, env = "HARK_REPLY_TOOL", requires = "respond_model")]
    pub reply_tool: bool,
    /// The OpenAI-compatible server of --respond-model.
    #[arg(
        long,
        env = "HARK_LLM_BASE_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub llm_base_url: String,
}

/// Arguments of `hark check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The agent file (TOML) to check, like examples/shop.toml. Its local tools are looked up
    /// in the demo shop's catalogue, the tools `hark serve` provides.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Flags of `hark serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (host:port; port 0 picks a free one).
    #[arg(long, env = "HARK_ADDR", default_value = config::DEFAULT_ADDR)]
    pub addr: SocketAddr,
    /// Serve the demo page (from --web-dir) at /; without it / only names the /ws endpoint.
    /// Without --agent, the demo shop's agent (examples/shop.toml) runs: on a real LLM when
    /// OPENAI_API_KEY is set, else in the offline screen mode.
    #[arg(long)]
    pub demo: bool,
    /// An agent file (TOML, like examples/shop.toml) whose voice agent runs in every session,
    /// beside a UI worker; its LLM key is read from the variable named by its api_key_env.
    #[arg(long, env = "HARK_AGENT", value_name = "FILE")]
    pub agent: Option<PathBuf>,
    /// Directory of the built demo page [default: web/dist under the current directory, else
    /// under the workspace hark was built in].
    #[arg(long, env = "HARK_WEB_DIR")]
    pub web_dir: Option<PathBuf>,
    /// Largest incoming WebSocket frame, in bytes; a larger one closes the session with code 1009.
    #[arg(long, env = "HARK_MAX_FRAME_BYTES", default_value_t = config::DEFAULT_MAX_FRAME_BYTES,
          value_parser = parse_frame_limit)]
    pub max_frame_bytes: usize,
    /// Longest wait for a connection's complete HTTP request head (e.g. 10s, 500ms); a silent
    /// or trickling connection is dropped after it.
    #[arg(long, env = "HARK_HEADER_READ_TIMEOUT", default_value = "10s",
          value_parser = parse_positive_duration)]
    pub header_read_timeout: Duration,
    /// Longest wait for the client's client-ready after the WebSocket upgrade; then the socket
    /// is closed with 1008.
    #[arg(long, env = "HARK_CLIENT_READY_TIMEOUT", default_value = "30s",
          value_parser = parse_positive_duration)]
    pub client_ready_timeout: Duration,
    /// Interval of WebSocket keep-alive pings (0: no pings). Browsers answer them by themselves.
    /// A client that stops reading is closed with 1011 once one write moves no byte for this
    /// interval plus --pong-timeout; with 0 (no pings), for 30s plus --pong-timeout.
    #[arg(long, env = "HARK_PING_INTERVAL", default_value = "30s", value_parser = parse_duration)]
    pub ping_interval: Duration,
    /// Longest wait for the pong to a keep-alive ping; then the socket is closed with 1011.
    /// Also part of the wait for a client that stops reading, pings or not (see
    /// --ping-interval).
    #[arg(long, env = "HARK_PONG_TIMEOUT", default_value = "20s",
          value_parser = parse_positive_duration)]
    pub pong_timeout: Duration,
    /// An `error` text identical to one sent to the same session less than this long ago is not
    /// sent again (the first always is; the answer to a request always is; 0: send every error).
    #[arg(long, env = "HARK_ERROR_REPEAT_WINDOW", default_value = "5s",
          value_parser = parse_duration)]
    pub error_repeat_window: Duration,
    /// An origin (scheme://host[:port]) whose pages may open /ws, besides this server's own
    /// pages and clients sending no Origin; repeat the flag for more, `*` allows every origin.
    /// Others get 403.
    #[arg(long = "allow-origin", value_name = "URL", env = "HARK_ALLOW_ORIGINS",
          value_delimiter = ',', value_parser = parse_origin)]
    pub allow_origins: Vec<String>,
    /// Most nodes accepted in one ui-snapshot (the root included); a larger snapshot is refused
    /// with an error naming the count and the limit.
    #[arg(long, env = "HARK_MAX_SNAPSHOT_NODES",
          default_value_t = hark_rtvi::snapshot::MAX_SNAPSHOT_NODES,
          value_parser = parse_node_limit)]
    pub max_snapshot_nodes: usize,
    /// Deepest node level accepted in one ui-snapshot (the root is 1; at most 60); a deeper
    /// snapshot is refused with an error naming the path and the limit.
    #[arg(long, env = "HARK_MAX_SNAPSHOT_DEPTH",
          default_value_t = hark_rtvi::snapshot::MAX_TREE_DEPTH,
          value_parser = parse_depth_limit)]
    pub max_snapshot_depth: usize,
    /// Largest ui-snapshot message, in bytes of RTVI JSON; a larger one is refused with an
    /// error naming its size and the limit, without decoding its tree.
    #[arg(long, env = "HARK_MAX_SNAPSHOT_BYTES",
          default_value_t = config::DEFAULT_MAX_SNAPSHOT_BYTES, value_parser = parse_frame_limit)]
    pub max_snapshot_bytes: usize,
    /// Messages a session may send per second, sustained (0: no limit); messages over it are
    /// dropped and the client gets one error saying so.
    #[arg(long, env = "HARK_MAX_MESSAGES_PER_SEC",
          default_value_t = config::DEFAULT_MAX_MESSAGES_PER_SEC)]
    pub max_messages_per_sec: u32,
    /// Messages a session may send at once above the rate (the token bucket's size).
    #[arg(long, env = "HARK_MESSAGE_BURST", default_value_t = config::DEFAULT_MESSAGE_BURST,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub message_burst: u32,
    /// A session sending over 10 times the message rate every second for this long is closed
    /// with 1008 (0: never).
    #[arg(long, env = "HARK_FLOOD_CLOSE_AFTER", default_value = "5s", value_parser = parse_duration)]
    pub flood_close_after: Duration,
    /// Most UI jobs (screen, respond) waiting or running per session; more are answered at once
    /// with an error the model reads.
    #[arg(long, env = "HARK_MAX_PENDING_JOBS", default_value_t = config::DEFAULT_MAX_PENDING_JOBS,
          value_parser = parse_count)]
    pub max_pending_jobs: usize,
    /// Most UI event handlers running per session; a ui-event beyond it is refused with an error.
    #[arg(long, env = "HARK_MAX_UI_EVENTS", default_value_t = config::DEFAULT_MAX_UI_EVENTS_IN_FLIGHT,
          value_parser = parse_count)]
    pub max_ui_events: usize,
    /// Most job groups running at once per session; one more is refused with an error for the
    /// app that started it, and the running groups go on.
    #[arg(long, env = "HARK_MAX_JOB_GROUPS", default_value_t = config::DEFAULT_MAX_JOB_GROUPS,
          value_parser = parse_count)]
    pub max_job_groups: usize,
    /// Most open WebSocket sessions; beyond it /ws answers 503 with Retry-After, and open
    /// sessions are not affected.
    #[arg(long, env = "HARK_MAX_CONNECTIONS", default_value_t = config::DEFAULT_MAX_CONNECTIONS,
          value_parser = parse_count)]
    pub max_connections: usize,
    /// Longest wait at shutdown for background webhooks still running; each one abandoned after
    /// it is logged by tool name.
    #[arg(long, env = "HARK_DRAIN_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub drain_timeout: Duration,
    /// Put each session's bus on this Redis server (redis://host:port[/db] or
    /// unix:///path/to/socket), on its own channel: the session's screen and respond jobs go to
    /// the ui worker on that channel (hark worker, or Pipecat's UIWorker). Needs --agent or
    /// --demo; without it the UI worker runs in process.
    #[arg(long, env = "HARK_SERVE_BUS", value_name = "URL")]
    pub bus: Option<String>,
    /// With --demo (no --agent): the demo shop's agent speaks with espeak-ng and hears the
    /// microphone through the STT at this OpenAI-compatible URL (the local
    /// scripts/stt-server.py prints its http://127.0.0.1:PORT/v1), also offline; scripts/demo.sh
    /// sets it. With --agent, give the file [tts] and [stt] tables instead.
    #[arg(long, env = "HARK_DEMO_STT_URL", value_name = "URL")]
    pub demo_stt_url: Option<String>,
    /// With --bus: each session's channel is this prefix and the session id (e.g. hark:s7).
    #[arg(long, env = "HARK_BUS_CHANNEL_PREFIX",
          default_value = crate::ui_session::DEFAULT_CHANNEL_PREFIX)]
    pub bus_channel_prefix: String,
}

/// `--max-snapshot-nodes`: a whole number, at least 1.
fn parse_node_limit(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 node".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{text:?} is not a whole number of nodes (e.g. 5000)"
        )),
    }
}

/// `--max-snapshot-depth`: a whole number of node levels, 1 to 60.
fn parse_depth_limit(text: &str) -> Result<usize, String> {
    let max = hark_rtvi::snapshot::MAX_TREE_DEPTH;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be from 1 to {max} node levels")),
        Err(_) => Err(format!(
            "{text:?} is not a whole number of levels (e.g. 60)"
        )),
    }
}

/// A count of at least 1 (`--max-pending-jobs`, `--max-ui-events`, `--max-job-groups`,
/// `--max-connections`).
fn parse_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text:?} is not a whole number (e.g. 8)")),
    }
}

/// `--max-frame-bytes`: a whole number of bytes, at least 1.
fn parse_frame_limit(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 byte".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{text:?} is not a whole number of bytes (e.g. 1048576)"
        )),
    }
}

/// A duration: a whole number followed by `ms`, `s` or `m` (a bare number is seconds).
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

/// A duration more than zero (see [`parse_duration`]).
fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d.is_zero() {
        return Err("must be more than zero (e.g. 10s)".to_owned());
    }
    Ok(d)
}

/// `--allow-origin`: `*` or `scheme://host[:port]`.
fn parse_origin(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t == "*" {
        return Ok(t.to_owned());
    }
    crate::server::normalize_origin(t).map(|_| t.to_owned())
}

impl ServeArgs {
    /// The server settings these flags ask for; `cwd` is where `web/dist` is looked for first.
    pub fn to_config(&self, cwd: &Path) -> ServerConfig {
        let web_dir = self.demo.then(|| {
            self.web_dir
                .clone()
                .unwrap_or_else(|| config::default_web_dir(cwd))
        });
        ServerConfig {
            addr: self.addr,
            web_dir,
            max_frame_bytes: self.max_frame_bytes,
            header_read_timeout: self.header_read_timeout,
            client_ready_timeout: self.client_ready_timeout,
            ping_interval: self.ping_interval,
            pong_timeout: self.pong_timeout,
            error_repeat_window: self.error_repeat_window,
            allowed_origins: self.allow_origins.clone(),
            max_snapshot_nodes: self.max_snapshot_nodes,
            max_snapshot_depth: self.max_snapshot_depth,
            max_snapshot_bytes: self.max_snapshot_bytes,
            max_messages_per_sec: self.max_messages_per_sec,
            message_burst: self.message_burst,
            flood_close_after: self.flood_close_after,
            max_pending_jobs: self.max_pending_jobs,
            max_ui_events_in_flight: self.max_ui_events,
            max_job_groups: self.max_job_groups,
            max_connections: self.max_connections,
            ..ServerConfig::default()
        }
    }
}

/// The "Environment" help section: every environment variable of `args`, once, with its flag.
fn environment_section<'a>(args: impl Iterator<Item = &'a clap::Arg>) -> String {
    let mut rows: Vec<(String, String)> = args
        .filter_map(|arg| {
            let env = arg.get_env()?.to_string_lossy().into_owned();
            let long = arg.get_long()?;
            let note = if env == "HARK_ALLOW_ORIGINS" {
                format!("--{long} (comma-separated)")
            } else {
                format!("--{long}")
            };
            Some((env, note))
        })
        .collect();
    rows.sort();
    rows.dedup();
    let mut out = String::from(
        "Environment (each sets the flag beside it; a flag given on the command line wins):\n",
    );
    for (env, flag) in rows {
        out.push_str(&format!("  {env:<27} {flag}\n"));
    }
    out
}

/// The clap command of `hark` (F10):
/// - `hark --help` lists the subcommands and every environment variable once;
/// - `hark serve --help` and `hark serve -h` both print the long form: every flag and the
///   Environment section.
pub fn command() -> clap::Command {
    let cli = Cli::command();
    let global: Vec<clap::Arg> = cli.get_arguments().cloned().collect();
    let serve_args: Vec<clap::Arg> = cli
        .find_subcommand("serve")
        .map(|s| s.get_arguments().cloned().collect())
        .unwrap_or_default();
    let everything = environment_section(global.iter().chain(serve_args.iter()));
    // The environment is listed in its own section, so not again beside each flag.
    cli.mut_args(|a| a.hide_env(true))
        .after_help(format!(
            "{everything}\nRun `hark serve --help` for what every flag of serve does."
        ))
        .mut_subcommand("serve", |serve| {
            serve
                .mut_args(|a| a.hide_env(true))
                .disable_help_flag(true)
                .arg(
                    clap::Arg::new("help")
                        .short('h')
                        .long("help")
                        .action(clap::ArgAction::HelpLong)
                        .help("Print help: every flag and environment variable"),
                )
                .after_help(everything.clone())
        })
}

/// Parses `args` (the first item is the program name).
///
/// # Errors
/// clap's error, which prints the usage problem (or the help/version text) when `exit()`ed.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = command().try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// A number of seconds above zero (and finite), for `--idle-timeout`.
/// A name or channel with something in it (an empty one names nothing a voice agent can
/// address).
fn not_blank(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty value names nothing on the bus: give a name, like ui or pipecat:bus".into())
    } else if text.trim() != text || text.contains(char::is_whitespace) {
        Err(format!(
            "{text:?} has spaces, which no Pipecat worker or channel name has (a voice agent \
             addressing \"ui\" never reaches \" ui\"): give it without them"
        ))
    } else {
        Ok(text.to_owned())
    }
}

/// The smallest message limit that lets the bus's own messages through (a registry or a job's
/// answer is a few hundred bytes; a snapshot tens of KiB).
const MIN_MESSAGE_BYTES: usize = 4096;

fn message_bytes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= MIN_MESSAGE_BYTES => Ok(n),
        _ => Err(format!(
            "{text} is below {MIN_MESSAGE_BYTES} bytes: the worker's own registry and answers \
             would be dropped, and a page's snapshot takes tens of KiB (the default is {})",
            hark_bus::redis_bus::DEFAULT_MAX_MESSAGE_BYTES
        )),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(s),
        Ok(s) if s >= 1e9 => Err(format!(
            "{text} seconds is more than 30 years: give a number of seconds below 1000000000 \
             (like 600, or 0.5)"
        )),
        _ => Err(format!(
            "{text} is not a number of seconds above zero (like 600, or 0.5)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag and environment variable of `hark serve`.
    const SERVE_FLAGS: &[&str] = &[
        "--addr",
        "--demo",
        "--web-dir",
        "--max-frame-bytes",
        "--header-read-timeout",
        "--client-ready-timeout",
        "--ping-interval",
        "--pong-timeout",
        "--error-repeat-window",
        "--allow-origin",
        "--max-snapshot-nodes",
        "--max-snapshot-depth",
        "--max-snapshot-bytes",
        "--max-messages-per-sec",
        "--message-burst",
        "--flood-close-after",
        "--max-pending-jobs",
        "--max-ui-events",
        "--max-job-groups",
        "--max-connections",
        "--drain-timeout",
        "--bus",
        "--bus-channel-prefix",
        "--agent",
        "--log",
    ];
    const ENV_VARS: &[&str] = &[
        "HARK_ADDR",
        "HARK_WEB_DIR",
        "HARK_MAX_FRAME_BYTES",
        "HARK_HEADER_READ_TIMEOUT",
        "HARK_CLIENT_READY_TIMEOUT",
        "HARK_PING_INTERVAL",
        "HARK_PONG_TIMEOUT",
        "HARK_ERROR_REPEAT_WINDOW",
        "HARK_ALLOW_ORIGINS",
        "HARK_MAX_SNAPSHOT_NODES",
        "HARK_MAX_SNAPSHOT_DEPTH",
        "HARK_MAX_SNAPSHOT_BYTES",
        "HARK_MAX_MESSAGES_PER_SEC",
        "HARK_MESSAGE_BURST",
        "HARK_FLOOD_CLOSE_AFTER",
        "HARK_MAX_PENDING_JOBS",
        "HARK_MAX_UI_EVENTS",
        "HARK_MAX_JOB_GROUPS",
        "HARK_MAX_CONNECTIONS",
        "HARK_DRAIN_TIMEOUT",
        "HARK_SERVE_BUS",
        "HARK_BUS_CHANNEL_PREFIX",
        "HARK_DEMO_STT_URL",
        "HARK_AGENT",
        "RUST_LOG",
    ];

    fn help_of(args: &[&str]) -> String {
        parse_from(args.iter().copied()).unwrap_err().to_string()
    }

    /// `hark worker` flags that could not work are refused with the reason (a new user's
    /// `--channel ''` and `--name ''` ran silently, and `--max-message-bytes 0` dropped even the
    /// worker's own registry).
    #[test]
    fn worker_flags_that_cannot_work_are_refused() {
        let bus = ["hark", "worker", "--bus", "redis://127.0.0.1:6379"];
        for (flag, value, words) in [
            ("--channel", "", "an empty value names nothing on the bus"),
            ("--name", " ", "an empty value names nothing on the bus"),
            ("--max-message-bytes", "0", "0 is below 4096 bytes"),
            ("--runner", "", "an empty value names nothing on the bus"),
            ("--name", " ui", "\" ui\" has spaces"),
            ("--channel", "a b", "\"a b\" has spaces"),
            (
                "--idle-timeout",
                "1e12",
                "1e12 seconds is more than 30 years",
            ),
        ] {
            let args = bus.iter().copied().chain([flag, value]);
            let error = parse_from(args).unwrap_err().to_string();
            assert!(error.contains(words), "{flag} {value:?}: {error}");
        }
        let args = bus.iter().copied().chain(["--max-message-bytes", "4096"]);
        assert!(parse_from(args).is_ok());
    }

    #[test]
    fn serve_help_long_and_short_document_every_flag_and_env_var() {
        for flag in ["--help", "-h"] {
            let help = help_of(&["hark", "serve", flag]);
            for needle in SERVE_FLAGS.iter().chain(ENV_VARS) {
                assert!(
                    help.contains(needle),
                    "`hark serve {flag}` lacks {needle}:\n{help}"
                );
            }
            for default in [
                "127.0.0.1:7860",
                "1048576",
                "30s",
                "20s",
                "10s",
                "5s",
                "5000",
            ] {
                assert!(
                    help.contains(default),
                    "`hark serve {flag}` lacks {default}:\n{help}"
                );
            }
        }
        // Every environment variable the parser reads is listed (none forgotten above).
        let cmd = command();
        let serve = cmd.find_subcommand("serve").unwrap();
        for arg in serve.get_arguments().chain(cmd.get_arguments()) {
            if let Some(env) = arg.get_env() {
                assert!(
                    ENV_VARS.contains(&env.to_str().unwrap()),
                    "{env:?} not pinned"
                );
            }
        }
    }

    #[test]
    fn top_help_lists_subcommands_and_each_env_var_once() {
        let help = help_of(&["hark", "--help"]);
        assert!(help.contains("serve"), "{help}");
        for env in ENV_VARS {
            assert_eq!(help.matches(env).count(), 1, "{env} in:\n{help}");
        }
    }

    #[test]
    fn durations_and_origins_parse() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        for bad in ["", "s", "1h", "-1s", "1.5s"] {
            assert!(
                parse_duration(bad)
                    .unwrap_err()
                    .contains("is not a duration"),
                "{bad}"
            );
        }
        assert!(parse_positive_duration("0s").is_err());
        assert_eq!(parse_origin("*"), Ok("*".to_owned()));
        assert!(parse_origin("evil.example").is_err());
    }

    #[test]
    fn serve_defaults_and_flags() {
        let cli = parse_from(["hark", "serve"]).unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("serve")
        };
        assert_eq!(args.addr.to_string(), "127.0.0.1:7860");
        assert!(!args.demo);
        assert_eq!(args.max_frame_bytes, 1_048_576);
        assert!(args.to_config(Path::new("/")).web_dir.is_none());

        let cli = parse_from([
            "hark",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--demo",
            "--web-dir",
            "/srv/page",
            "--max-frame-bytes",
            "4096",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("serve")
        };
        let config = args.to_config(Path::new("/"));
        assert_eq!(config.addr.port(), 0);
        assert_eq!(config.web_dir, Some(PathBuf::from("/srv/page")));
        assert_eq!(config.max_frame_bytes, 4096);

        let cli = parse_from([
            "hark",
            "serve",
            "--header-read-timeout",
            "2s",
            "--client-ready-timeout=500ms",
            "--ping-interval=0",
            "--pong-timeout=3s",
            "--error-repeat-window=1m",
            "--allow-origin",
            "http://localhost:5173",
            "--allow-origin=https://app.example",
            "--max-snapshot-nodes=300",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("serve")
        };
        let config = args.to_config(Path::new("/"));
        assert_eq!(config.header_read_timeout, Duration::from_secs(2));
        assert_eq!(config.client_ready_timeout, Duration::from_millis(500));
        assert_eq!(config.ping_interval, Duration::ZERO);
        assert_eq!(config.pong_timeout, Duration::from_secs(3));
        assert_eq!(config.error_repeat_window, Duration::from_secs(60));
        assert_eq!(
            config.allowed_origins,
            ["http://localhost:5173", "https://app.example"]
        );
        assert_eq!(config.max_snapshot_nodes, 300);

        let cli = parse_from([
            "hark",
            "serve",
            "--max-snapshot-depth=12",
            "--max-snapshot-bytes=65536",
            "--max-messages-per-sec=50",
            "--message-burst=70",
            "--flood-close-after=2s",
            "--max-pending-jobs=3",
            "--max-ui-events=4",
            "--max-job-groups=5",
            "--max-connections=256",
            "--drain-timeout=1500ms",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("serve")
        };
        assert_eq!(args.drain_timeout, Duration::from_millis(1500));
        let config = args.to_config(Path::new("/"));
        assert_eq!(
            (config.max_snapshot_depth, config.max_snapshot_bytes),
            (12, 65_536)
        );
        assert_eq!(
            (config.max_messages_per_sec, config.message_burst),
            (50, 70)
        );
        assert_eq!(config.flood_close_after, Duration::from_secs(2));
        assert_eq!(
            (
                config.max_pending_jobs,
                config.max_ui_events_in_flight,
                config.max_connections
            ),
            (3, 4, 256)
        );
        assert_eq!(config.max_job_groups, 5);
        let defaults = parse_from(["hark", "serve"]).unwrap();
        let Command::Serve(args) = defaults.command else {
            panic!("serve")
        };
        assert_eq!(args.drain_timeout, hark_agent::DEFAULT_DRAIN_LIMIT);
        let c = args.to_config(Path::new("/"));
        let d = ServerConfig::default();
        assert_eq!(
            (
                c.header_read_timeout,
                c.client_ready_timeout,
                c.ping_interval,
                c.pong_timeout,
                c.error_repeat_window
            ),
            (
                d.header_read_timeout,
                d.client_ready_timeout,
                d.ping_interval,
                d.pong_timeout,
                d.error_repeat_window
            )
        );
        assert_eq!(
            (
                c.max_snapshot_depth,
                c.max_snapshot_bytes,
                c.max_messages_per_sec,
                c.message_burst,
                c.flood_close_after,
                c.max_pending_jobs,
                c.max_ui_events_in_flight,
                c.max_job_groups,
                c.max_connections
            ),
            (
                d.max_snapshot_depth,
                d.max_snapshot_bytes,
                d.max_messages_per_sec,
                d.message_burst,
                d.flood_close_after,
                d.max_pending_jobs,
                d.max_ui_events_in_flight,
                d.max_job_groups,
                d.max_connections
            )
        );
    }

    #[test]
    fn bad_flags_are_refused_with_the_flag_name() {
        let err = parse_from(["hark", "serve", "--addr", "nowhere"]).unwrap_err();
        assert!(err.to_string().contains("--addr"), "{err}");
        for bad in ["--max-frame-bytes=lots", "--max-frame-bytes=0"] {
            let err = parse_from(["hark", "serve", bad]).unwrap_err();
            assert!(err.to_string().contains("--max-frame-bytes"), "{err}");
        }
        for (bad, flag) in [
            ("--pong-timeout=0", "--pong-timeout"),
            ("--client-ready-timeout=soon", "--client-ready-timeout"),
            ("--allow-origin=evil.example", "--allow-origin"),
            ("--max-snapshot-nodes=0", "--max-snapshot-nodes"),
            ("--max-snapshot-depth=61", "--max-snapshot-depth"),
            ("--message-burst=0", "--message-burst"),
            ("--max-connections=0", "--max-connections"),
            ("--max-pending-jobs=many", "--max-pending-jobs"),
            ("--max-job-groups=0", "--max-job-groups"),
        ] {
            let err = parse_from(["hark", "serve", bad]).unwrap_err().to_string();
            assert!(err.contains(flag), "{err}");
        }
    }
}
