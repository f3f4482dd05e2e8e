//! Hark's UI worker as a worker on pipecat's Redis bus (`hark worker`): a Python Pipecat
//! voice agent (`screen_tools("ui")`, `UIWorker`'s jobs) is served by Hark's renderer and
//! classifier from another process.
//!
//! What [`run`] does on the channel, as pipecat-ai 1.14's `WorkerRunner` and `UIWorker` do:
//! - announces itself as a runner (`BusWorkerRegistryMessage`, runner [`BusWorkerConfig::runner`],
//!   one worker [`BusWorkerConfig::name`]) on every (re)connect and whenever a runner it has not
//!   seen announces itself;
//! - answers `screen` jobs (and `respond` jobs when an LLM is configured; single-flight, with
//!   the reply tool when [`BusWorkerConfig::reply_tool`]) sent to its name, each as its own
//!   task, updates then one `BusJobResponseMessage`;
//! - a `BusJobCancelMessage` for a job it holds aborts it and answers `cancelled`; one for a
//!   job it does not hold (done, or never seen) is ignored;
//! - keeps the latest `__ui_snapshot`, cancels job groups on `__cancel_job_group`, records
//!   other UI events for the `respond` context;
//! - sends UI commands as `BusUICommandMessage` and job-group reports as pipecat's UI
//!   job-group messages ([`sink::BusSink`]);
//! - honours `BusActivateWorkerMessage` / `BusDeactivateWorkerMessage` for its name (while
//!   inactive it takes no jobs);
//! - ends on `BusEndMessage` or `BusCancelMessage` from another process, or on the caller's
//!   shutdown signal, answering every job it still holds `cancelled` first.
//!
//! **Many calls per process**: when the channel is a Redis glob pattern (`call:*`,
//! [`is_channel_pattern`]) one process PSUBSCRIBEs it on one connection and runs one such
//! worker per matching channel (`calls.rs`): made on that channel's first message (a
//! `BusEndMessage`/`BusCancelMessage` makes none), dropped when its call ends (those two
//! messages on that channel end only its worker, not the process) or when the channel is
//! silent for [`BusWorkerConfig::idle_timeout`]; either way its held jobs are answered
//! `cancelled`. The process then ends only on the shutdown signal.

mod calls;
pub mod cli;
mod held;
pub mod outbox;
pub mod sink;
mod worker;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hark_bus::redis_bus::{BadRedisUrl, BusEvent};
use hark_bus::{RedisBus, RedisBusConfig, is_channel_pattern};
use hark_classify::Classifier;
use hark_llm::Provider;
use tokio::sync::mpsc;
use tracing::{info, warn};

use outbox::{Outbox, publish_loop};
use worker::Worker;

/// How long a call's channel may stay silent before its worker is dropped, by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// How a bus worker is named and what it answers with.
#[derive(Debug, Clone)]
pub struct BusWorkerConfig {
    /// The Redis server and channel.
    pub bus: RedisBusConfig,
    /// The worker's name, the one requesters address (pipecat's `screen_tools("ui")`: `ui`).
    pub name: String,
    /// The runner name it announces; unique per process.
    pub runner: String,
    /// The classifier of `screen` jobs (`find`, `check`, `select`, …); `None`: only the
    /// jobs that need none (`list`, `selection`, actions on refs).
    pub classifier: Option<Arc<dyn Classifier>>,
    /// The LLM and model of `respond` jobs; `None`: `respond` is not served.
    pub respond: Option<(Arc<dyn Provider>, String)>,
    /// The `respond` turn's system instruction.
    pub instruction: Option<String>,
    /// The `respond` turn's LLM gets the reply tool ([`hark_ui::reply_tool`]): one spoken
    /// answer plus `scroll_to`, `highlight`, `select_text`, `fills` and `click` on the page,
    /// as pipecat's `ReplyToolMixin`; its answer is `{"answer": …, "speak": true}`. Without
    /// it the turn has no tools and its reply text is the answer (`{"answer": …}`).
    pub reply_tool: bool,
    /// With a channel pattern: how long a call's channel may be silent before its worker is
    /// dropped (its held jobs answered `cancelled`). Unused on a plain channel.
    pub idle_timeout: Duration,
}

/// Why [`run`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The caller's shutdown signal.
    Signal,
    /// A `BusEndMessage` from `source`.
    End {
        /// Who asked.
        source: String,
    },
    /// A `BusCancelMessage` from `source`.
    Cancel {
        /// Who asked.
        source: String,
    },
}

/// A runner name unique to this process: `hark-<pid>-<epoch ms>`.
pub fn default_runner_name() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("hark-{}-{ms}", std::process::id())
}

/// Serves as the UI worker on the bus until a `BusEndMessage`/`BusCancelMessage` or
/// `shutdown` completes (see the module docs).
///
/// # Errors
/// [`BadRedisUrl`] when the URL cannot be used; an unreachable server is retried, not an error.
pub async fn run(
    config: BusWorkerConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<Ended, BadRedisUrl> {
    if is_channel_pattern(&config.bus.channel) {
        return calls::run(config, shutdown).await;
    }
    let (bus, mut events) = RedisBus::start(config.bus.clone())?;
    bus.add_own_name(config.name.clone());
    bus.add_own_name(config.runner.clone());
    let (out, out_rx) = mpsc::unbounded_channel();
    let publisher = tokio::spawn(publish_loop(bus.clone(), out_rx));
    info!(
        worker = %config.name, runner = %config.runner,
        channel = %config.bus.channel, url = %config.bus.url,
        respond = config.respond.is_some(),
        "UI worker on the Redis bus"
    );
    let outbox = Outbox::new(config.bus.channel.as_str(), out);
    let mut worker = Worker::new(Arc::new(config), Arc::new(bus.clone()), outbox);
    tokio::pin!(shutdown);
    let ended = loop {
        tokio::select! {
            () = &mut shutdown => break Ended::Signal,
            event = events.recv() => match event {
                None => break Ended::Signal,
                Some(BusEvent::Connected) => worker.announce(),
                Some(BusEvent::Message(message)) => {
                    if let Some(ended) = worker.on_message(message) {
                        break ended;
                    }
                }
            },
        }
    };
    info!(?ended, "the UI worker is stopping");
    worker.stop();
    drop(worker);
    flush(publisher).await;
    bus.close();
    Ok(ended)
}

/// Waits until everything queued (the held jobs' `cancelled` answers) went out, at most 5 s;
/// every [`Outbox`] must be gone.
async fn flush(publisher: tokio::task::JoinHandle<()>) {
    if tokio::time::timeout(Duration::from_secs(5), publisher)
        .await
        .is_err()
    {
        warn!("the last bus messages were not all sent within 5 s");
    }
}
