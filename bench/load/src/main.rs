//! `hark-load`: the load generator behind the "Load" section of `docs/PERFORMANCE.md`.
//!
//! It starts its own scripted provider (a loopback OpenAI-compatible streaming server,
//! [`provider`]), writes an agent file pointing at it and starts `hark serve --agent FILE` (or
//! aims at `--url`), then opens `--sessions` RTVI sessions over WebSocket at `--ramp` per
//! second. Each session does Pipecat's handshake and sends one 200-node snapshot; with every
//! session idle the server's RSS is read (the idle RSS per session). Then, for `--duration`,
//! each session sends a snapshot every 300 ms and a text turn every 3 s (±50 %), alternately a
//! click turn (measured: snapshot → command) and a text turn (measured: text → first bot text),
//! see [`session`]. The report ([`report`]) gives p50/p90/p99/max, server RSS, CPU and errors.
//!
//! ```text
//! cargo build --release -p hark-server   # hark alone: built together with hark-load, it gets
//! cargo build --release -p hark-load     # hark-load's features (~60 KiB more per session)
//! target/release/hark-load --sessions 1000 --duration 30s          # table
//! target/release/hark-load --sessions 100 --duration 30s --json    # JSON
//! ```
//!
//! Everything is on loopback and bounded: a session count, a ramp rate, a duration, a timeout
//! for every awaited step. Results and commands: docs/PERFORMANCE.md, section "Load".

mod cli;
mod procfs;
mod provider;
mod report;
mod server;
mod session;
mod snapshot;
mod stats;
mod wire;

/// jemalloc, as the `hark` binary uses: glibc's malloc (`_int_malloc`, `malloc_consolidate`)
/// was about a tenth of the generator's CPU at 500 sessions, CPU the server then lacked.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clap::Parser;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::cli::Args;
use crate::report::Report;
use crate::session::{Outcome, Plan};
use crate::stats::{Counts, Latencies};

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if args.provider_only {
        return provider_only(&args).await;
    }
    match run(&args).await {
        Ok(report) => {
            if args.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => println!("{text}"),
                    Err(e) => {
                        eprintln!("hark-load: cannot write the report as JSON: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                print!("{}", report.table());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hark-load: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--provider-only`: the scripted provider and its agent file, until Ctrl-C.
async fn provider_only(args: &Args) -> ExitCode {
    let llm = match provider::start(args.llm_delay).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("hark-load: the scripted provider cannot listen: {e}");
            return ExitCode::FAILURE;
        }
    };
    match server::write_agent_file(&llm.base_url()) {
        Ok(path) => {
            println!("scripted provider at {}", llm.base_url());
            println!(
                "run: {}=x hark serve --agent {}   then: hark-load --url ws://ADDR/ws --pid PID",
                server::KEY_ENV,
                path.display()
            );
        }
        Err(e) => {
            eprintln!("hark-load: cannot write the agent file: {e}");
            return ExitCode::FAILURE;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    ExitCode::SUCCESS
}

/// One whole run: provider, server, ramp, idle RSS, measured phase, report.
async fn run(args: &Args) -> Result<Report, String> {
    let mut report = Report {
        sessions: args.sessions,
        loadavg_start: procfs::loadavg(),
        ..Report::default()
    };
    let pages = snapshot::pages(args.nodes);
    report.snapshot_nodes = pages[0].nodes;
    report.snapshot_json_bytes = pages[0].json_bytes;

    let (url, pid, spawned, llm) = match &args.url {
        Some(url) => (url.clone(), args.pid, None, None),
        None => {
            let llm = provider::start(args.llm_delay)
                .await
                .map_err(|e| format!("the scripted provider cannot listen: {e}"))?;
            let agent = server::write_agent_file(&llm.base_url())
                .map_err(|e| format!("cannot write the agent file: {e}"))?;
            let agent = (!args.no_agent).then_some(agent.as_path());
            let s = server::spawn(&args.hark, agent, args).await?;
            (s.url.clone(), Some(s.pid), Some(s), Some(llm))
        }
    };
    let hz = procfs::clock_ticks();
    // Let the server settle (its model is loaded before it listens).
    tokio::time::sleep(Duration::from_secs(1)).await;
    report.rss_before_kib = pid.and_then(procfs::rss_kib);

    let plan = Arc::new(Plan {
        url,
        pages,
        snapshot_every: args.snapshot_every,
        turn_every: args.turn_every,
        turn_timeout: args.turn_timeout,
        connect_timeout: args.connect_timeout,
        handshaken: AtomicUsize::new(0),
        idle: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
    });
    let (snap_tx, snap_rx) = watch::channel(false);
    let (go_tx, go_rx) = watch::channel(false);
    let (stop_tx, stop_rx) = watch::channel(false);

    // Ramp: `--ramp` sessions per second.
    let ramp_start = Instant::now();
    let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(args.ramp)));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut handles = Vec::with_capacity(args.sessions);
    for n in 0..args.sessions {
        every.tick().await;
        let signals = session::Signals {
            snapshot: snap_rx.clone(),
            go: go_rx.clone(),
            stop: stop_rx.clone(),
        };
        handles.push(tokio::spawn(session::run(n, plan.clone(), signals)));
    }
    let ramp_limit = args.connect_timeout * 2 + Duration::from_secs(10);
    let waited = Instant::now();
    let all_in = |n: &AtomicUsize| {
        n.load(Ordering::Relaxed) + plan.failed.load(Ordering::Relaxed) >= args.sessions
    };
    while !all_in(&plan.handshaken) && waited.elapsed() < ramp_limit {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    report.ramp_s = ramp_start.elapsed().as_secs_f64();
    let up = plan.handshaken.load(Ordering::Relaxed);
    tokio::time::sleep(args.settle).await;
    report.rss_handshaken_kib = pid.and_then(procfs::rss_kib);
    // The first snapshot of every session.
    let _ = snap_tx.send(true);
    let waited = Instant::now();
    while !all_in(&plan.idle) && waited.elapsed() < ramp_limit {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    report.sessions_up = plan.idle.load(Ordering::Relaxed);
    tokio::time::sleep(args.settle).await;
    report.rss_idle_kib = pid.and_then(procfs::rss_kib);
    let per = |after: Option<u64>, n: usize| match (report.rss_before_kib, after) {
        (Some(before), Some(after)) if n > 0 => Some((after as f64 - before as f64) / n as f64),
        _ => None,
    };
    report.rss_per_session_handshaken_kib = per(report.rss_handshaken_kib, up);
    report.rss_per_idle_session_kib = per(report.rss_idle_kib, report.sessions_up);

    // The measured phase.
    let server_cpu = pid.and_then(|p| procfs::CpuMeter::start(p, hz));
    let own_cpu = procfs::CpuMeter::start(std::process::id(), hz);
    let started = Instant::now();
    let _ = go_tx.send(true);
    let mut peak = report.rss_idle_kib;
    while started.elapsed() < args.duration {
        let left = args.duration.saturating_sub(started.elapsed());
        tokio::time::sleep(left.min(Duration::from_secs(1))).await;
        if let Some(r) = pid.and_then(procfs::rss_kib) {
            peak = Some(peak.map_or(r, |p| p.max(r)));
        }
    }
    report.duration_s = started.elapsed().as_secs_f64();
    report.server_cpu_percent = server_cpu.and_then(|m| m.percent()).map(|(p, _)| p);
    report.generator_cpu_percent = own_cpu.and_then(|m| m.percent()).map(|(p, _)| p);
    report.rss_peak_kib = peak;
    report.loadavg_end = procfs::loadavg();
    let _ = stop_tx.send(true);

    let mut counts = Counts::default();
    let mut to_command = Latencies::new();
    let mut to_text = Latencies::new();
    let mut first_error = None;
    let mut timeout_samples = Vec::new();
    for h in handles {
        match tokio::time::timeout(Duration::from_secs(30), h).await {
            Ok(Ok(Outcome {
                snapshot_to_command,
                text_to_first_text,
                counts: c,
                first_error: e,
                timeout_samples: t,
            })) => {
                if timeout_samples.len() < 4 {
                    timeout_samples.extend(t);
                }
                to_command.record_micros(&snapshot_to_command);
                to_text.record_micros(&text_to_first_text);
                counts.add(&c);
                if first_error.is_none() {
                    first_error = e;
                }
            }
            // A session task that did not end in time or failed: counted as closed.
            _ => counts.closed_early += 1,
        }
    }
    report.snapshot_to_command_ms = to_command.percentiles();
    report.text_to_first_text_ms = to_text.percentiles();
    report.errors = counts.errors();
    report.counts = counts;
    if let Some(e) = first_error {
        report.error_samples.push(format!("server error text: {e}"));
    }
    report.error_samples.extend(
        timeout_samples
            .into_iter()
            .take(4)
            .map(|t| format!("timed out: {t}")),
    );
    if let Some(llm) = &llm {
        report.provider_requests = [
            llm.counts.clicks.load(Ordering::Relaxed),
            llm.counts.texts.load(Ordering::Relaxed),
            llm.counts.refused.load(Ordering::Relaxed),
        ];
        report.screen_tool_errors = llm.counts.tool_errors.load(Ordering::Relaxed);
        if let Ok(samples) = llm.counts.tool_error_samples.lock() {
            report
                .error_samples
                .extend(samples.iter().map(|s| format!("screen tool error: {s}")));
        }
    }
    if let Some(s) = spawned {
        report.server_log_warn_error = [
            s.log.warn.load(Ordering::Relaxed),
            s.log.error.load(Ordering::Relaxed),
        ];
        if let Ok(samples) = s.log.samples.lock() {
            report
                .error_samples
                .extend(samples.iter().map(|l| format!("server log: {l}")));
        }
        s.stop().await;
    }
    Ok(report)
}
