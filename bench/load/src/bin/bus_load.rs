//! `hark-bus-load`: one `hark worker --channel 'PREFIX:call:*'` process serving N calls on
//! pipecat's Redis bus, the "Workers on Redis" section of `docs/PERFORMANCE.md` (issue 20).
//!
//! It starts the worker itself (`--hark`), then plays every call's Pipecat voice side with
//! hark-bus's [`RedisBus`], so each message is pipecat-ai 1.14's envelope exactly as
//! `crates/hark-server/tests/bus_worker*.rs` send it: `__ui_snapshot` as a
//! `BusUIEventMessage` from `voice`, `screen` jobs as `BusJobRequestMessage`s from `voice` to
//! `ui`, `BusEndMessage` to end a call. One pattern subscription (`PREFIX:call:*`) reads every
//! call's answers.
//!
//! 1. A probe call (`PREFIX:call:probe`) gets the page and one find job, then its
//!    `BusEndMessage`: the worker is subscribed and its classifier warm. After `--settle` the
//!    worker's RSS is read: the idle RSS.
//! 2. `--channels` calls start at `--ramp` per second; each sends the page first (the worker
//!    makes the call's UI worker on it) and waits for the worker's registry on its channel.
//! 3. Every call then sends the page every `--snapshot-every` and one `find` job every
//!    `--job-every`, each at its own random phase. After `--warmup`, the jobs sent during
//!    `--duration` are measured: request published → its `BusJobResponseMessage` read.
//! 4. Sending stops, answers are awaited (`--job-timeout`), every call is ended with a
//!    `BusEndMessage`, and after `--settle` the RSS is read again.
//!
//! Every job is tracked by id: one unanswered after `--job-timeout` is lost, an answer for an
//! id already answered is a double answer, one after the timeout is late. Everything is on
//! loopback and bounded (a call count, a ramp, a duration, a timeout for every wait).
//!
//! ```text
//! cargo build --release -p hark-server
//! cargo build --release -p hark-load --bin hark-bus-load
//! target/release/hark-bus-load --redis unix:///tmp/bench-redis/r.sock --channels 1000 --duration 60s
//! ```

#[path = "../procfs.rs"]
mod procfs;

/// jemalloc, as the `hark` binary and `hark-load` use.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use clap::Parser;
use hark_bus::WireMessage;
use hark_bus::wire::{Shutdown, UI_SNAPSHOT_EVENT, UiEventMessage};
use hark_bus::{BusMessage, ChannelEvent, JobRequest, JobResult, RedisBus, RedisBusConfig};
use hark_rtvi::JobStatus;
use hdrhistogram::Histogram;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// The requester's name on every call (pipecat's `screen_tools` runs in the `voice` worker).
const VOICE: &str = "voice";
/// The worker's name (`screen_tools("ui")`).
const UI: &str = "ui";

/// Command line.
#[derive(Debug, Clone, Parser)]
#[command(name = "hark-bus-load", about)]
struct Args {
    /// The Redis server: redis://host:port or unix:///path (loopback only).
    #[arg(long, env = "HARK_TEST_REDIS_URL")]
    redis: String,
    /// The `hark` binary to start as `hark worker --channel 'PREFIX:call:*'`.
    #[arg(long, default_value = "target/release/hark")]
    hark: PathBuf,
    /// The worker's `--log` filter.
    #[arg(long, default_value = "warn")]
    worker_log: String,
    /// How many calls (channels).
    #[arg(long, default_value_t = 1000)]
    channels: usize,
    /// Calls started per second.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    ramp: u32,
    /// Interval between two snapshots of one call.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    snapshot_every: Duration,
    /// Interval between two find jobs of one call.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    job_every: Duration,
    /// Steady state before the measured window.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    warmup: Duration,
    /// The measured window.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    duration: Duration,
    /// Longest wait for a job's answer; after it the job is lost.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    job_timeout: Duration,
    /// Longest wait for a call's registry after its first snapshot, and for the probe.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    ready_timeout: Duration,
    /// Wait before each RSS reading that follows a change (probe ended, calls ended).
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    settle: Duration,
    /// The page each call sends (pipecat `__ui_snapshot` payload).
    #[arg(long, default_value = "crates/hark-ui/benches/data/snapshot_200.json")]
    page: PathBuf,
    /// What each find job looks for.
    #[arg(long, default_value = "open my cart")]
    target: String,
    /// The label of the element it must find.
    #[arg(long, default_value = "Cart (3)")]
    label: String,
    /// The Redis server's pid, for its CPU use over the window (optional).
    #[arg(long)]
    redis_pid: Option<u32>,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A job sent and not yet answered.
#[derive(Debug)]
struct Pending {
    sent: Instant,
    measured: bool,
}

/// Every job by id, and what came back.
#[derive(Debug)]
struct Jobs {
    pending: HashMap<String, Pending>,
    answered: HashSet<String>,
    timed_out: HashSet<String>,
    latencies: Histogram<u64>,
    sent: u64,
    measured_sent: u64,
    lost: u64,
    measured_lost: u64,
    doubled: u64,
    late: u64,
    unknown: u64,
    wrong: u64,
    not_completed: u64,
    first_wrong: Option<String>,
}

impl Jobs {
    fn new() -> Self {
        Jobs {
            pending: HashMap::new(),
            answered: HashSet::new(),
            timed_out: HashSet::new(),
            latencies: Histogram::new_with_bounds(1, 3_600_000_000, 3)
                .expect("1 µs .. 1 h at 3 significant digits are valid bounds"),
            sent: 0,
            measured_sent: 0,
            lost: 0,
            measured_lost: 0,
            doubled: 0,
            late: 0,
            unknown: 0,
            wrong: 0,
            not_completed: 0,
            first_wrong: None,
        }
    }

    fn answer(&mut self, result: &JobResult, label: &str) {
        let Some(pending) = self.pending.remove(&result.job_id) else {
            if self.answered.contains(&result.job_id) {
                self.doubled += 1;
            } else if self.timed_out.contains(&result.job_id) {
                self.late += 1;
            } else {
                self.unknown += 1;
            }
            return;
        };
        self.answered.insert(result.job_id.clone());
        if pending.measured {
            let us = pending.sent.elapsed().as_micros() as u64;
            self.latencies.saturating_record(us.clamp(1, 3_600_000_000));
        }
        let response = result.response();
        let right = response.status == JobStatus::Completed
            && response
                .response
                .as_ref()
                .and_then(|r| r.get("label"))
                .and_then(Value::as_str)
                == Some(label);
        if response.status != JobStatus::Completed {
            self.not_completed += 1;
        } else if !right {
            self.wrong += 1;
        }
        if !right && self.first_wrong.is_none() {
            self.first_wrong = Some(format!("{response:?}"));
        }
    }

    /// Moves the jobs older than `timeout` to lost.
    fn expire(&mut self, timeout: Duration) {
        let now = Instant::now();
        let old: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| now.duration_since(p.sent) >= timeout)
            .map(|(id, _)| id.clone())
            .collect();
        for id in old {
            if let Some(p) = self.pending.remove(&id) {
                self.lost += 1;
                self.measured_lost += u64::from(p.measured);
                self.timed_out.insert(id);
            }
        }
    }
}

/// What the driver shares between its calls and its reader.
struct Driver {
    args: Args,
    prefix: String,
    bus: RedisBus,
    page: WireMessage,
    jobs: Mutex<Jobs>,
    /// Calls waiting for the worker's registry on their channel.
    waiting: Mutex<HashMap<String, oneshot::Sender<()>>>,
    /// Jobs sent now are measured.
    measuring: AtomicBool,
    publish_failed: AtomicU64,
    snapshots: AtomicU64,
    reconnects: AtomicU64,
}

impl Driver {
    fn channel(&self, call: &str) -> String {
        format!("{}:call:{call}", self.prefix)
    }

    async fn publish(&self, channel: &str, message: &WireMessage) {
        if let Err(e) = self.bus.publish_on(channel, message).await
            && self.publish_failed.fetch_add(1, Ordering::Relaxed) == 0
        {
            eprintln!("hark-bus-load: a publish failed: {e}");
        }
    }

    /// Sends the page and waits for the worker's registry on `channel`.
    async fn open(&self, channel: &str) -> bool {
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(channel.to_owned(), tx);
        self.publish(channel, &self.page).await;
        let ready = tokio::time::timeout(self.args.ready_timeout, rx).await;
        lock(&self.waiting).remove(channel);
        matches!(ready, Ok(Ok(())))
    }

    async fn find(&self, channel: &str, job_id: String) {
        let job = JobRequest::new(
            job_id.clone(),
            VOICE,
            UI,
            hark_bus::names::SCREEN_JOB,
            json!({"action": "find", "target": self.args.target}),
        );
        let measured = self.measuring.load(Ordering::Relaxed);
        {
            let mut jobs = lock(&self.jobs);
            jobs.sent += 1;
            jobs.measured_sent += u64::from(measured);
            jobs.pending.insert(
                job_id,
                Pending {
                    sent: Instant::now(),
                    measured,
                },
            );
        }
        self.publish(channel, &WireMessage::Job(BusMessage::JobRequest(job)))
            .await;
    }

    async fn end(&self, channel: &str) {
        let end = WireMessage::End(Shutdown {
            source: VOICE.into(),
            target: None,
            reason: Some("the call ended".into()),
        });
        self.publish(channel, &end).await;
    }

    /// Reads every call's messages until the bus stops.
    async fn read(self: Arc<Self>, mut events: mpsc::Receiver<ChannelEvent>) {
        let mut connected = false;
        while let Some(event) = events.recv().await {
            match event {
                ChannelEvent::Connected => {
                    if connected {
                        self.reconnects.fetch_add(1, Ordering::Relaxed);
                    }
                    connected = true;
                }
                ChannelEvent::Message { channel, message } => match *message {
                    WireMessage::Registry(r) if r.worker_names().any(|n| n == UI) => {
                        if let Some(tx) = lock(&self.waiting).remove(&channel) {
                            let _ = tx.send(());
                        }
                    }
                    WireMessage::Job(BusMessage::JobResult(result)) if result.target == VOICE => {
                        lock(&self.jobs).answer(&result, &self.args.label);
                    }
                    _ => {}
                },
            }
        }
    }

    /// One call: the page, then snapshots and jobs at its own phase until `stop`.
    async fn call(self: Arc<Self>, index: usize, mut stop: watch::Receiver<bool>) -> bool {
        let channel = self.channel(&index.to_string());
        if !self.open(&channel).await {
            return false;
        }
        // Phases spread evenly over the interval (golden-ratio steps), the same every run.
        let phase = |every: Duration| every.mul_f64((index as f64 * 0.618_033_988_75).fract());
        let start = Instant::now();
        let mut snapshots = tokio::time::interval_at(
            start + phase(self.args.snapshot_every),
            self.args.snapshot_every,
        );
        let mut jobs =
            tokio::time::interval_at(start + phase(self.args.job_every), self.args.job_every);
        for tick in [&mut snapshots, &mut jobs] {
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        }
        let mut seq = 0u64;
        loop {
            tokio::select! {
                _ = stop.changed() => break,
                _ = snapshots.tick() => {
                    self.publish(&channel, &self.page).await;
                    self.snapshots.fetch_add(1, Ordering::Relaxed);
                }
                _ = jobs.tick() => {
                    seq += 1;
                    self.find(&channel, format!("j{index}-{seq}")).await;
                }
            }
        }
        true
    }
}

/// RSS readings of the worker during the window.
#[derive(Debug, Default)]
struct RssSamples {
    kib: Vec<u64>,
}

impl RssSamples {
    fn median(&self) -> u64 {
        let mut v = self.kib.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or_default()
    }
    fn max(&self) -> u64 {
        self.kib.iter().copied().max().unwrap_or_default()
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hark-bus-load: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.page)
        .map_err(|e| format!("cannot read the page {}: {e}", args.page.display()))?;
    let payload: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the page {} is not JSON: {e}", args.page.display()))?;
    let page = WireMessage::UiEvent(UiEventMessage {
        source: VOICE.into(),
        target: None,
        event_name: UI_SNAPSHOT_EVENT.into(),
        payload,
    });
    let prefix = format!("hark-bus-load:{}", std::process::id());
    let pattern = format!("{prefix}:call:*");

    let mut config = RedisBusConfig::new(args.redis.clone(), pattern.clone());
    config.job_timeout = args.job_timeout;
    let (bus, mut events) = RedisBus::start_pattern(config).map_err(|e| e.to_string())?;
    bus.add_own_name(VOICE);
    match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        Ok(Some(ChannelEvent::Connected)) => {}
        _ => {
            return Err(format!(
                "no connection to Redis at {} within 10 s",
                args.redis
            ));
        }
    }

    let mut worker = tokio::process::Command::new(&args.hark)
        .args([
            "worker",
            "--bus",
            &args.redis,
            "--channel",
            &pattern,
            "--name",
            UI,
        ])
        .args(["--log", &args.worker_log])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", args.hark.display()))?;
    let pid = worker
        .id()
        .ok_or("the worker ended as it started (see its log above)")?;

    let driver = Arc::new(Driver {
        args: args.clone(),
        prefix,
        bus: bus.clone(),
        page,
        jobs: Mutex::new(Jobs::new()),
        waiting: Mutex::new(HashMap::new()),
        measuring: AtomicBool::new(false),
        publish_failed: AtomicU64::new(0),
        snapshots: AtomicU64::new(0),
        reconnects: AtomicU64::new(0),
    });
    let reader = tokio::spawn(driver.clone().read(events));
    let expiry = {
        let driver = driver.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(500));
            loop {
                tick.tick().await;
                lock(&driver.jobs).expire(driver.args.job_timeout);
            }
        })
    };
    let outcome = drive(&driver, pid).await;
    expiry.abort();

    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    if tokio::time::timeout(Duration::from_secs(10), worker.wait())
        .await
        .is_err()
    {
        let _ = worker.kill().await;
    }
    bus.close();
    reader.abort();
    outcome
}

async fn drive(driver: &Arc<Driver>, pid: u32) -> Result<(), String> {
    let args = &driver.args;
    let hz = procfs::clock_ticks();
    let rss = || procfs::rss_kib(pid).unwrap_or_default();

    // 1. The probe: the worker subscribed, its classifier warm, then ended.
    let started = Instant::now();
    let probe = driver.channel("probe");
    let mut probe_ready = false;
    while started.elapsed() < args.ready_timeout * 4 {
        if driver.open(&probe).await {
            probe_ready = true;
            break;
        }
    }
    if !probe_ready {
        return Err("the worker never announced itself on the probe channel".into());
    }
    driver.find(&probe, "probe-1".into()).await;
    let waited = Instant::now();
    while !lock(&driver.jobs).pending.is_empty() && waited.elapsed() < args.job_timeout {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    driver.end(&probe).await;
    tokio::time::sleep(args.settle).await;
    let rss_idle = rss();
    eprintln!(
        "hark-bus-load: worker up after {:.1} s, idle RSS {:.1} MiB; starting {} calls at {}/s",
        started.elapsed().as_secs_f64(),
        mib(rss_idle),
        args.channels,
        args.ramp
    );
    *lock(&driver.jobs) = Jobs::new();

    // 2. The calls.
    let (stop_tx, stop_rx) = watch::channel(false);
    let ramp_start = Instant::now();
    let mut calls = Vec::with_capacity(args.channels);
    let gap = Duration::from_secs_f64(1.0 / f64::from(args.ramp));
    for i in 0..args.channels {
        tokio::time::sleep_until(ramp_start + gap * i as u32).await;
        calls.push(tokio::spawn(driver.clone().call(i, stop_rx.clone())));
    }
    let ramp_took = ramp_start.elapsed();

    // 3. Steady state, then the measured window.
    tokio::time::sleep(args.warmup).await;
    let load_before = procfs::loadavg();
    let worker_cpu = procfs::CpuMeter::start(pid, hz);
    let driver_cpu = procfs::CpuMeter::start(std::process::id(), hz);
    let redis_cpu = args.redis_pid.and_then(|p| procfs::CpuMeter::start(p, hz));
    let snapshots_before = driver.snapshots.load(Ordering::Relaxed);
    driver.measuring.store(true, Ordering::Relaxed);
    let window = Instant::now();
    let mut samples = RssSamples::default();
    while window.elapsed() < args.duration {
        tokio::time::sleep(Duration::from_secs(1)).await;
        samples.kib.push(rss());
    }
    driver.measuring.store(false, Ordering::Relaxed);
    let window_s = window.elapsed().as_secs_f64();
    let snapshots_in_window = driver.snapshots.load(Ordering::Relaxed) - snapshots_before;
    let cpu = |m: Option<procfs::CpuMeter>| m.and_then(|m| m.percent()).map(|(p, _)| p);
    let (worker_cpu, driver_cpu, redis_cpu) = (cpu(worker_cpu), cpu(driver_cpu), cpu(redis_cpu));
    let load_after = procfs::loadavg();
    let rss_loaded = samples.median();

    // 4. Stop, drain, end every call.
    let _ = stop_tx.send(true);
    let mut opened = 0usize;
    for call in calls {
        opened += usize::from(call.await.unwrap_or(false));
    }
    let drain = Instant::now();
    while !lock(&driver.jobs).pending.is_empty() && drain.elapsed() < args.job_timeout * 2 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Late or doubled answers still on their way.
    tokio::time::sleep(Duration::from_secs(1)).await;
    lock(&driver.jobs).expire(Duration::ZERO);
    for i in 0..args.channels {
        driver.end(&driver.channel(&i.to_string())).await;
    }
    tokio::time::sleep(args.settle).await;
    let rss_ended = rss();

    let jobs = lock(&driver.jobs);
    let ms = |q: f64| jobs.latencies.value_at_quantile(q) as f64 / 1000.0;
    let per_channel_kib = rss_loaded.saturating_sub(rss_idle) as f64 / args.channels.max(1) as f64;
    let pct = |p: Option<f64>| p.map_or("?".to_owned(), |p| format!("{p:.0} %"));
    println!(
        "hark worker --channel 'PREFIX:call:*': {opened}/{} calls, a {} snapshot every {} s and a find job every {} s each",
        args.channels,
        args.page.display(),
        args.snapshot_every.as_secs_f64(),
        args.job_every.as_secs_f64(),
    );
    println!(
        "ramp {:.1} s, warm-up {} s, measured window {window_s:.1} s; load average {load_before} → {load_after}",
        ramp_took.as_secs_f64(),
        args.warmup.as_secs_f64(),
    );
    println!(
        "jobs in the window: {} sent, {} answered ({:.1}/s); snapshots in the window {snapshots_in_window} ({:.1}/s)",
        jobs.measured_sent,
        jobs.latencies.len(),
        jobs.latencies.len() as f64 / window_s,
        snapshots_in_window as f64 / window_s,
    );
    println!(
        "job latency (ms): p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
        ms(0.50),
        ms(0.90),
        ms(0.99),
        jobs.latencies.max() as f64 / 1000.0
    );
    println!(
        "all jobs: {} sent, {} lost (unanswered after {} s; {} of them in the window), {} answered twice, {} answered late, {} unknown answers, {} not completed, {} wrong element",
        jobs.sent,
        jobs.lost,
        args.job_timeout.as_secs_f64(),
        jobs.measured_lost,
        jobs.doubled,
        jobs.late,
        jobs.unknown,
        jobs.not_completed,
        jobs.wrong,
    );
    if let Some(wrong) = &jobs.first_wrong {
        println!("first answer that was not the element: {wrong}");
    }
    println!(
        "worker RSS: idle {:.1} MiB, with the calls {:.1} MiB (median of {} readings, max {:.1}), after ending them {:.1} MiB; per call {:.1} KiB",
        mib(rss_idle),
        mib(rss_loaded),
        samples.kib.len(),
        mib(samples.max()),
        mib(rss_ended),
        per_channel_kib,
    );
    println!(
        "CPU over the window (100 % = one core): worker {}, driver {}, redis {}",
        pct(worker_cpu),
        pct(driver_cpu),
        pct(redis_cpu)
    );
    println!(
        "publishes failed {}, driver reconnects {}",
        driver.publish_failed.load(Ordering::Relaxed),
        driver.reconnects.load(Ordering::Relaxed)
    );
    Ok(())
}
