//! The run's report: one table, or JSON with `--json`.

use serde::Serialize;

use crate::stats::{Counts, Percentiles};

/// Everything a run measured. Memory in KiB, CPU in % of one core (200 % = both cores of a
/// 2-core machine), latencies in ms.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Sessions asked for.
    pub sessions: usize,
    /// Sessions that finished the handshake and sent a snapshot.
    pub sessions_up: usize,
    /// Seconds the sessions took to come up (connect, handshake, first snapshot).
    pub ramp_s: f64,
    /// Seconds of the measured phase.
    pub duration_s: f64,
    /// Nodes per snapshot.
    pub snapshot_nodes: usize,
    /// Bytes of one snapshot's RTVI JSON.
    pub snapshot_json_bytes: usize,
    /// Snapshot → command latency (click turns).
    pub snapshot_to_command_ms: Percentiles,
    /// Text → first bot text latency (text turns).
    pub text_to_first_text_ms: Percentiles,
    /// Server RSS before any session, KiB.
    pub rss_before_kib: Option<u64>,
    /// Server RSS with every session after its handshake, before any snapshot, KiB.
    pub rss_handshaken_kib: Option<u64>,
    /// (handshaken − before) / sessions: a session before its first snapshot, KiB.
    pub rss_per_session_handshaken_kib: Option<f64>,
    /// Server RSS with every session idle (handshake + one snapshot), KiB.
    pub rss_idle_kib: Option<u64>,
    /// (idle − before) / sessions up, KiB.
    pub rss_per_idle_session_kib: Option<f64>,
    /// Highest server RSS seen during the run (sampled every second), KiB.
    pub rss_peak_kib: Option<u64>,
    /// Server CPU over the measured phase, % of one core.
    pub server_cpu_percent: Option<f64>,
    /// The generator's own CPU over the measured phase, % of one core (it shares the machine).
    pub generator_cpu_percent: Option<f64>,
    /// Load average (1, 5, 15 min) when the run started.
    pub loadavg_start: String,
    /// Load average when the run ended.
    pub loadavg_end: String,
    /// Requests the scripted provider answered: tool calls, texts, refused.
    pub provider_requests: [u64; 3],
    /// `screen` tool results the provider read that were `{"error": …}` (the click was not
    /// done; the turn then gets no command).
    pub screen_tool_errors: u64,
    /// Server log lines at WARN / ERROR level (when the generator started the server).
    pub server_log_warn_error: [u64; 2],
    /// All counts; `errors` is their error sum.
    pub counts: Counts,
    /// Sum of the error counts.
    pub errors: u64,
    /// The first error text the server sent, and the first WARN/ERROR log lines.
    pub error_samples: Vec<String>,
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| v.to_string())
}

fn lat(p: &Percentiles) -> String {
    format!(
        "p50 {:.2} / p90 {:.2} / p99 {:.2} / max {:.2} ms ({} turns)",
        p.p50, p.p90, p.p99, p.max, p.count
    )
}

impl Report {
    /// The report as one two-column table.
    pub fn table(&self) -> String {
        let c = &self.counts;
        let mib = |k: Option<u64>| opt(k.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)));
        let rows: Vec<(&str, String)> = vec![
            (
                "sessions",
                format!(
                    "{} up of {} (ramp {:.1} s)",
                    self.sessions_up, self.sessions, self.ramp_s
                ),
            ),
            (
                "measured",
                format!(
                    "{:.1} s, snapshots of {} nodes ({} B JSON)",
                    self.duration_s, self.snapshot_nodes, self.snapshot_json_bytes
                ),
            ),
            ("snapshot → command", lat(&self.snapshot_to_command_ms)),
            ("text → first bot text", lat(&self.text_to_first_text_ms)),
            (
                "server RSS",
                format!(
                    "before {} / handshaken {} / idle {} / peak {}",
                    mib(self.rss_before_kib),
                    mib(self.rss_handshaken_kib),
                    mib(self.rss_idle_kib),
                    mib(self.rss_peak_kib)
                ),
            ),
            (
                "RSS per idle session",
                format!(
                    "{} ({} after the handshake, before the first snapshot)",
                    opt(self.rss_per_idle_session_kib.map(|k| format!("{k:.1} KiB"))),
                    opt(self
                        .rss_per_session_handshaken_kib
                        .map(|k| format!("{k:.1} KiB")))
                ),
            ),
            (
                "CPU (100 % = 1 core)",
                format!(
                    "server {} / generator {}",
                    opt(self.server_cpu_percent.map(|p| format!("{p:.0} %"))),
                    opt(self.generator_cpu_percent.map(|p| format!("{p:.0} %")))
                ),
            ),
            (
                "load average",
                format!("{} → {}", self.loadavg_start, self.loadavg_end),
            ),
            (
                "traffic",
                format!(
                    "{} snapshots, {} click turns, {} text turns; provider {} tool calls, {} texts",
                    c.snapshots,
                    c.click_turns,
                    c.text_turns,
                    self.provider_requests[0],
                    self.provider_requests[1]
                ),
            ),
            (
                "clicks",
                format!(
                    "{} right, {} from a later snapshot, {} stale ref, {} wrong element, {} timed out; \
                     {} screen tool results were errors",
                    c.clicks_ok,
                    c.clicks_newer_snapshot,
                    c.clicks_stale_ref,
                    c.clicks_wrong_element,
                    c.click_timeouts,
                    self.screen_tool_errors
                ),
            ),
            (
                "errors",
                format!(
                    "{} (connect {}, handshake {}, closed {}, send {}, text timeouts {}, \
                     unexpected commands {}, server errors {}, error-responses {}, bad frames {}, \
                     provider refused {}); server log WARN {} ERROR {}; unfinished at end {}",
                    self.errors,
                    c.connect_failed,
                    c.handshake_failed,
                    c.closed_early,
                    c.send_failed,
                    c.text_timeouts,
                    c.unexpected_commands,
                    c.server_errors,
                    c.error_responses,
                    c.bad_frames,
                    self.provider_requests[2],
                    self.server_log_warn_error[0],
                    self.server_log_warn_error[1],
                    c.unfinished
                ),
            ),
        ];
        let width = rows
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for (k, v) in rows {
            let pad = width - k.chars().count();
            out.push_str(&format!("{k}{}  {v}\n", " ".repeat(pad)));
        }
        for s in &self.error_samples {
            out.push_str(&format!("  sample: {s}\n"));
        }
        out
    }
}
