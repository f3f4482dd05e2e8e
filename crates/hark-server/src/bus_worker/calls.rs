//! Many calls per `hark worker` process: one [`Worker`] per channel matching the pattern, on
//! one Redis connection (see the module docs of [`super`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_bus::redis_bus::{BadRedisUrl, ChannelEvent};
use hark_bus::{RedisBus, WireMessage};
use tokio::sync::mpsc;
use tracing::{debug, info};

use super::outbox::{Outbox, Outgoing, publish_loop};
use super::{BusWorkerConfig, Ended, Worker, flush};

/// How often idle channels are looked for: a quarter of the timeout, within 50 ms and 30 s.
fn sweep_every(idle: Duration) -> Duration {
    (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30))
}

/// The calls' workers by channel.
struct Calls {
    config: Arc<BusWorkerConfig>,
    bus: RedisBus,
    tx: mpsc::UnboundedSender<Outgoing>,
    workers: HashMap<String, Worker>,
}

impl Calls {
    fn on_message(&mut self, channel: String, message: WireMessage) {
        let worker = match self.workers.entry(channel) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                if matches!(message, WireMessage::End(_) | WireMessage::Cancel(_)) {
                    debug!(channel = %e.key(), "an end for a call with no worker: nothing to stop");
                    return;
                }
                let transport = Arc::new(self.bus.on_channel(e.key().clone()));
                let outbox = Outbox::new(e.key().as_str(), self.tx.clone());
                let worker = Worker::new(self.config.clone(), transport, outbox);
                worker.announce();
                debug!(channel = %e.key(), "a call's UI worker started");
                e.insert(worker)
            }
        };
        worker.last_seen = Instant::now();
        if let Some(ended) = worker.on_message(message) {
            let channel = worker_channel(worker);
            self.end(&channel, &format!("{ended:?}"));
        }
    }

    /// Drops `channel`'s worker, answering its held jobs `cancelled`.
    fn end(&mut self, channel: &str, why: &str) {
        if let Some(mut worker) = self.workers.remove(channel) {
            worker.stop();
            self.bus.forget_channel(channel);
            info!(%channel, why, calls = self.workers.len(), "a call's UI worker stopped");
        }
    }

    fn end_idle(&mut self, idle: Duration) {
        let now = Instant::now();
        let silent: Vec<String> = self
            .workers
            .iter()
            .filter(|(_, w)| now.duration_since(w.last_seen) >= idle)
            .map(|(c, _)| c.clone())
            .collect();
        for channel in silent {
            self.end(&channel, &format!("idle for {} s", idle.as_secs_f64()));
        }
    }
}

fn worker_channel(worker: &Worker) -> String {
    worker.channel().to_owned()
}

/// Serves every channel matching `config.bus.channel` until `shutdown`.
pub async fn run(
    config: BusWorkerConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<Ended, BadRedisUrl> {
    let (bus, mut events) = RedisBus::start_pattern(config.bus.clone())?;
    bus.add_own_name(config.name.clone());
    bus.add_own_name(config.runner.clone());
    let (tx, rx) = mpsc::unbounded_channel();
    let publisher = tokio::spawn(publish_loop(bus.clone(), rx));
    info!(
        worker = %config.name, runner = %config.runner,
        pattern = %config.bus.channel, url = %config.bus.url,
        respond = config.respond.is_some(),
        idle_timeout_s = config.idle_timeout.as_secs_f64(),
        "UI workers on the Redis bus, one per call channel"
    );
    let idle = config.idle_timeout;
    let mut calls = Calls {
        config: Arc::new(config),
        bus: bus.clone(),
        tx,
        workers: HashMap::new(),
    };
    let mut sweep = tokio::time::interval(sweep_every(idle));
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            _ = sweep.tick() => calls.end_idle(idle),
            event = events.recv() => match event {
                None => break,
                Some(ChannelEvent::Connected) => {
                    for worker in calls.workers.values() {
                        worker.announce();
                    }
                }
                Some(ChannelEvent::Message { channel, message }) => {
                    calls.on_message(channel, *message);
                }
            },
        }
    }
    info!(calls = calls.workers.len(), "the UI workers are stopping");
    let channels: Vec<String> = calls.workers.keys().cloned().collect();
    for channel in channels {
        calls.end(&channel, "shutdown");
    }
    drop(calls);
    flush(publisher).await;
    bus.close();
    Ok(Ended::Signal)
}
