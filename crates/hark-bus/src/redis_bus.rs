//! Pipecat's Redis bus: one pub/sub channel that carries every [`WireMessage`] in pipecat's
//! JSON envelope, the wire of pipecat-ai 1.14's `RedisBus`.
//!
//! [`RedisBus::start`] connects (and reconnects with backoff, forever, until dropped or
//! [`RedisBus::close`]d) and gives the [`BusEvent`]s it reads: [`BusEvent::Connected`] after
//! every (re)subscription, so a worker can announce itself again, and each message that is
//! for this process. Dropped without a word to the reader: messages whose `source` is one of
//! this process's own names ([`RedisBus::add_own_name`]; Redis echoes every publish to its
//! sender), envelopes of classes Hark does not read (logged at debug), bytes that are not an
//! envelope and messages larger than [`RedisBusConfig::max_message_bytes`] (both logged as
//! warnings).
//!
//! **Many channels on one connection**: [`RedisBus::start_pattern`] takes a Redis glob pattern
//! as the channel (`call:*`; [`is_channel_pattern`]) and PSUBSCRIBEs it, giving each message
//! with the channel it came on ([`ChannelEvent`]); [`RedisBus::publish_on`],
//! [`RedisBus::request_on`] and [`RedisBus::on_channel`] (a [`Transport`] for one channel) send
//! on one channel. Still one subscribing and one publishing connection, whatever the number of
//! channels.
//!
//! [`RedisBus`] is also a [`Transport`]: [`Transport::request`] publishes the job and waits
//! for its worker's answer (updates forwarded) at most [`RedisBusConfig::job_timeout`]; on
//! expiry it sends pipecat's `BusJobCancelMessage` (reason `timeout`) and answers status
//! `error` with a text naming the worker, the job and the channel. A job answered once is
//! forgotten, so a late or repeated answer reaches nobody.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use redis::AsyncCommands;
use redis::aio::MultiplexedConnection;
use tokio::sync::{mpsc, watch};

use crate::bus::{JobReply, JobUpdates, Transport};
use crate::job::JobResponse;
use crate::message::{BusMessage, JobCancel, JobRequest};
use crate::messages;
use crate::wire::{Decoded, WireMessage, decode};

/// The largest message a bus takes by default, in bytes (a page snapshot is far smaller).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// How a [`RedisBus`] connects and how long it waits.
#[derive(Debug, Clone)]
pub struct RedisBusConfig {
    /// `redis://host:port[/db]` or `unix:///path/to/socket`.
    pub url: String,
    /// The pub/sub channel (pipecat's default: `pipecat:bus`).
    pub channel: String,
    /// Messages larger than this are dropped on the way in and refused on the way out.
    pub max_message_bytes: usize,
    /// How long a job sent with [`Transport::request`] waits for its answer.
    pub job_timeout: Duration,
    /// The first wait before reconnecting; doubled after each failure.
    pub backoff_min: Duration,
    /// The longest wait between reconnects.
    pub backoff_max: Duration,
    /// How long one publish may take.
    pub publish_timeout: Duration,
    /// The setting that raises [`RedisBusConfig::max_message_bytes`] (`--max-message-bytes`),
    /// named in the line logged for a message too large; `None` names none.
    pub limit_setting: Option<String>,
}

impl RedisBusConfig {
    /// `url` and `channel` with the defaults: 4 MiB messages, 30 s jobs (pipecat's `screen`
    /// tool timeout), reconnects from 100 ms up to 5 s, 5 s publishes.
    pub fn new(url: impl Into<String>, channel: impl Into<String>) -> Self {
        RedisBusConfig {
            url: url.into(),
            channel: channel.into(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            job_timeout: Duration::from_secs(30),
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_secs(5),
            publish_timeout: Duration::from_secs(5),
            limit_setting: None,
        }
    }
}

/// What the bus read.
#[derive(Debug, Clone, PartialEq)]
pub enum BusEvent {
    /// Subscribed to the channel (first time or after a reconnect): nothing sent before
    /// reaches this process, so announce yourself again.
    Connected,
    /// A message for this process.
    Message(WireMessage),
}

/// Whether `channel` is a Redis glob pattern (it holds `*`, `?` or `[`), which
/// [`RedisBus::start_pattern`] PSUBSCRIBEs, rather than one channel's name.
pub fn is_channel_pattern(channel: &str) -> bool {
    channel.contains(['*', '?', '['])
}

/// What a bus started with [`RedisBus::start_pattern`] read.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelEvent {
    /// Subscribed to the pattern (first time or after a reconnect): announce yourself again on
    /// every channel you serve.
    Connected,
    /// A message for this process, with the channel it came on.
    Message {
        /// The channel (one that matches the pattern).
        channel: String,
        /// The message (boxed: the event stays small in the queue).
        message: Box<WireMessage>,
    },
}

/// Why a publish failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublishError {
    /// The message is larger than [`RedisBusConfig::max_message_bytes`].
    #[error("{}", messages::message_too_large(*bytes, *limit, channel))]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
        /// The channel.
        channel: String,
    },
    /// No connection to Redis right now (it reconnects by itself).
    #[error("{}", messages::redis_disconnected(url, channel))]
    Disconnected {
        /// The server.
        url: String,
        /// The channel.
        channel: String,
    },
    /// Redis refused the publish, or it timed out.
    #[error("{}", messages::redis_publish_failed(url, channel, detail))]
    Failed {
        /// The server.
        url: String,
        /// The channel.
        channel: String,
        /// What Redis said.
        detail: String,
    },
}

/// A URL the Redis client cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url} is not a Redis URL (redis://host:port or unix:///path): {detail}")]
pub struct BadRedisUrl {
    /// The URL.
    pub url: String,
    /// Why.
    pub detail: String,
}

/// Where the reader hands a running job's messages.
#[derive(Debug)]
struct PendingJob {
    worker: String,
    tx: mpsc::UnboundedSender<BusMessage>,
}

#[derive(Debug)]
struct Shared {
    config: RedisBusConfig,
    publisher: Mutex<Option<MultiplexedConnection>>,
    own_names: RwLock<HashSet<String>>,
    /// The workers each channel's registries named.
    known_workers: RwLock<HashMap<String, HashSet<String>>>,
    /// Running requests by channel and job id: requesters on different channels of one
    /// connection may use the same job id (ids are unique only per requester).
    pending: Mutex<HashMap<(String, String), PendingJob>>,
    /// The classes Hark does not read that were logged already (each is logged once).
    unknown_logged: Mutex<HashSet<String>>,
}

/// At most this many unknown classes are remembered as logged; past it they are not logged.
const MAX_UNKNOWN_CLASSES_LOGGED: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn is_own(&self, name: &str) -> bool {
        self.own_names
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
    }

    /// Hands a job's reply on `channel` to its waiting requester; `false` when no request
    /// waits for it.
    fn route_to_pending(&self, channel: &str, message: &WireMessage) -> bool {
        let WireMessage::Job(job) = message else {
            return false;
        };
        let finished = match job {
            BusMessage::JobResult(_) | BusMessage::JobStreamEnd(_) => true,
            BusMessage::JobUpdate(_)
            | BusMessage::JobStreamStart(_)
            | BusMessage::JobStreamData(_) => false,
            _ => return false,
        };
        let mut pending = lock(&self.pending);
        let key = (channel.to_owned(), job.job_id().to_owned());
        let Some(entry) = pending.get(&key) else {
            return false;
        };
        if entry.worker != job.source() {
            return false;
        }
        let _ = entry.tx.send(job.clone());
        if finished {
            pending.remove(&key);
        }
        true
    }
}

/// A connection to one Redis pub/sub channel, as pipecat's `RedisBus`. Cheap to clone; the
/// reader stops when every clone is dropped or on [`RedisBus::close`].
#[derive(Debug, Clone)]
pub struct RedisBus {
    shared: Arc<Shared>,
    stop: Arc<watch::Sender<bool>>,
}

impl RedisBus {
    /// Starts reading `config.channel` (connecting in the background, retried with backoff)
    /// and gives the bus and what it reads. Must run inside a tokio runtime.
    ///
    /// # Errors
    /// [`BadRedisUrl`] when the URL cannot be parsed.
    pub fn start(
        config: RedisBusConfig,
    ) -> Result<(RedisBus, mpsc::Receiver<BusEvent>), BadRedisUrl> {
        RedisBus::start_with(config, false, |event| match event {
            None => BusEvent::Connected,
            Some((_channel, message)) => BusEvent::Message(message),
        })
    }

    /// Starts reading every channel that matches the pattern `config.channel` (`call:*`,
    /// PSUBSCRIBE) on one connection, and gives the bus and what it reads, each message with
    /// its channel. Publish with [`RedisBus::publish_on`]; must run inside a tokio runtime.
    ///
    /// # Errors
    /// [`BadRedisUrl`] when the URL cannot be parsed.
    pub fn start_pattern(
        config: RedisBusConfig,
    ) -> Result<(RedisBus, mpsc::Receiver<ChannelEvent>), BadRedisUrl> {
        RedisBus::start_with(config, true, |event| match event {
            None => ChannelEvent::Connected,
            Some((channel, message)) => ChannelEvent::Message {
                channel,
                message: Box::new(message),
            },
        })
    }

    fn start_with<E: Send + 'static>(
        config: RedisBusConfig,
        pattern: bool,
        make: fn(Option<(String, WireMessage)>) -> E,
    ) -> Result<(RedisBus, mpsc::Receiver<E>), BadRedisUrl> {
        let client = redis::Client::open(config.url.as_str()).map_err(|e| BadRedisUrl {
            url: config.url.clone(),
            detail: e.to_string(),
        })?;
        let shared = Arc::new(Shared {
            config,
            publisher: Mutex::new(None),
            own_names: RwLock::new(HashSet::new()),
            known_workers: RwLock::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            unknown_logged: Mutex::new(HashSet::new()),
        });
        let (stop, stopped) = watch::channel(false);
        let (tx, rx) = mpsc::channel(1024);
        let reader = Reader {
            client,
            shared: Arc::downgrade(&shared),
            pattern,
            events: tx,
            make,
        };
        tokio::spawn(reader.run(stopped));
        Ok((
            RedisBus {
                shared,
                stop: Arc::new(stop),
            },
            rx,
        ))
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &RedisBusConfig {
        &self.shared.config
    }

    /// Marks `name` as this process's: messages from it (Redis's echoes) are dropped.
    pub fn add_own_name(&self, name: impl Into<String>) {
        self.shared
            .own_names
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.into());
    }

    /// Forgets `name` as this process's (a session that ended): messages from it are read again.
    pub fn remove_own_name(&self, name: &str) {
        self.shared
            .own_names
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
    }

    /// Whether the bus is connected to Redis now.
    pub fn is_connected(&self) -> bool {
        lock(&self.shared.publisher).is_some()
    }

    /// Publishes one message on the channel.
    ///
    /// # Errors
    /// [`PublishError`]: too large, not connected, or Redis failed.
    pub async fn publish(&self, message: &WireMessage) -> Result<(), PublishError> {
        self.publish_on(&self.shared.config.channel, message).await
    }

    /// Publishes one message on `channel` (a bus started with [`RedisBus::start_pattern`]
    /// answers on the channel a message came on).
    ///
    /// # Errors
    /// [`PublishError`]: too large, not connected, or Redis failed.
    pub async fn publish_on(
        &self,
        channel: &str,
        message: &WireMessage,
    ) -> Result<(), PublishError> {
        let config = &self.shared.config;
        let bytes = message.encode();
        if bytes.len() > config.max_message_bytes {
            return Err(PublishError::TooLarge {
                bytes: bytes.len(),
                limit: config.max_message_bytes,
                channel: channel.to_owned(),
            });
        }
        let conn = lock(&self.shared.publisher).clone();
        let Some(mut conn) = conn else {
            return Err(PublishError::Disconnected {
                url: config.url.clone(),
                channel: channel.to_owned(),
            });
        };
        let failed = |detail: String| PublishError::Failed {
            url: config.url.clone(),
            channel: channel.to_owned(),
            detail,
        };
        let sent = tokio::time::timeout(
            config.publish_timeout,
            conn.publish::<_, _, i64>(channel, bytes),
        )
        .await;
        match sent {
            Ok(Ok(_receivers)) => Ok(()),
            Ok(Err(e)) => Err(failed(e.to_string())),
            Err(_) => Err(failed(format!(
                "no reply within {} s",
                config.publish_timeout.as_secs_f64()
            ))),
        }
    }

    /// Stops reading and drops the connection; publishes fail from then on.
    pub fn close(&self) {
        let _ = self.stop.send(true);
        lock(&self.shared.publisher).take();
    }

    /// Runs one job on its target over Redis (see the module docs).
    pub async fn request(&self, job: JobRequest, updates: JobUpdates) -> JobReply {
        let channel = self.shared.config.channel.clone();
        self.request_on(&channel, job, updates).await
    }

    /// Runs one job on its target over `channel`, as [`RedisBus::request`].
    pub async fn request_on(
        &self,
        channel: &str,
        job: JobRequest,
        updates: JobUpdates,
    ) -> JobReply {
        let config = &self.shared.config;
        self.add_own_name(job.source.clone());
        let (tx, mut rx) = mpsc::unbounded_channel();
        lock(&self.shared.pending).insert(
            (channel.to_owned(), job.job_id.clone()),
            PendingJob {
                worker: job.target.clone(),
                tx,
            },
        );
        let _forget = Forget {
            shared: &self.shared,
            channel,
            job_id: &job.job_id,
        };
        let request = WireMessage::Job(BusMessage::JobRequest(job.clone()));
        if let Err(e) = self.publish_on(channel, &request).await {
            return JobResponse::error_of_kind(
                messages::redis_job_not_sent(&job.target, &job.name, &e.to_string()),
                "unreachable",
            )
            .into();
        }
        let deadline = tokio::time::sleep(config.job_timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                message = rx.recv() => match message {
                    Some(BusMessage::JobResult(result)) => return result.response().into(),
                    Some(BusMessage::JobStreamEnd(_)) => return JobReply::StreamEnded,
                    Some(BusMessage::JobUpdate(update)) => { updates.send(update.data); }
                    Some(BusMessage::JobStreamData(data)) | Some(BusMessage::JobStreamStart(data)) => {
                        if let Some(data) = data.data { updates.send(data); }
                    }
                    Some(_) => {}
                    None => break,
                },
                () = &mut deadline => break,
            }
        }
        let cancel = WireMessage::Job(BusMessage::JobCancel(JobCancel {
            source: job.source.clone(),
            target: job.target.clone(),
            job_id: job.job_id.clone(),
            reason: Some("timeout".into()),
        }));
        if let Err(e) = self.publish_on(channel, &cancel).await {
            tracing::debug!(job_id = %job.job_id, "the timed-out job's cancel was not sent: {e}");
        }
        JobResponse::error_of_kind(
            messages::redis_job_timed_out(
                &job.target,
                &job.name,
                config.job_timeout.as_secs_f64(),
                channel,
            ),
            "timeout",
        )
        .into()
    }

    /// Whether a registry on `channel` named the worker `name`.
    pub fn has_worker_on(&self, channel: &str, name: &str) -> bool {
        self.shared
            .known_workers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(channel)
            .is_some_and(|names| names.contains(name))
    }

    /// Forgets the workers `channel`'s registries named (its call ended).
    pub fn forget_channel(&self, channel: &str) {
        self.shared
            .known_workers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(channel);
    }

    /// A [`Transport`] that sends jobs on `channel` of this bus.
    pub fn on_channel(&self, channel: impl Into<String>) -> ChannelBus {
        ChannelBus {
            bus: self.clone(),
            channel: channel.into(),
        }
    }
}

/// One channel of a [`RedisBus`] as a [`Transport`] ([`RedisBus::on_channel`]).
#[derive(Debug, Clone)]
pub struct ChannelBus {
    bus: RedisBus,
    channel: String,
}

impl ChannelBus {
    /// The channel.
    pub fn channel(&self) -> &str {
        &self.channel
    }
}

impl Transport for ChannelBus {
    fn request(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(self.bus.request_on(&self.channel, job, updates))
    }

    fn has_worker(&self, name: &str) -> bool {
        self.bus.has_worker_on(&self.channel, name)
    }
}

/// Forgets a job's pending entry when its request ends, however it ends.
struct Forget<'a> {
    shared: &'a Shared,
    channel: &'a str,
    job_id: &'a str,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(&self.shared.pending).remove(&(self.channel.to_owned(), self.job_id.to_owned()));
    }
}

impl Transport for RedisBus {
    fn request(&self, job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(RedisBus::request(self, job, updates))
    }

    fn has_worker(&self, name: &str) -> bool {
        self.has_worker_on(&self.shared.config.channel, name)
    }
}

/// The task that subscribes, reads until the connection drops, and reconnects with backoff,
/// until stopped or every [`RedisBus`] is gone.
struct Reader<E> {
    client: redis::Client,
    shared: std::sync::Weak<Shared>,
    /// PSUBSCRIBE the channel as a pattern.
    pattern: bool,
    events: mpsc::Sender<E>,
    /// An event from a message and its channel; `None`: connected.
    make: fn(Option<(String, WireMessage)>) -> E,
}

impl<E> Reader<E> {
    async fn run(self, mut stopped: watch::Receiver<bool>) {
        let Some(first) = self.shared.upgrade() else {
            return;
        };
        let (url, channel, backoff_min, backoff_max) = (
            first.config.url.clone(),
            first.config.channel.clone(),
            first.config.backoff_min,
            first.config.backoff_max,
        );
        drop(first);
        let mut backoff = backoff_min;
        loop {
            if *stopped.borrow() {
                return;
            }
            match connect(&self.client, &channel, self.pattern).await {
                Ok((pubsub, conn)) => {
                    let Some(s) = self.shared.upgrade() else {
                        return;
                    };
                    *lock(&s.publisher) = Some(conn);
                    drop(s);
                    tracing::info!(%url, %channel, pattern = self.pattern, "connected to the Redis bus");
                    backoff = backoff_min;
                    if self.events.send((self.make)(None)).await.is_err() {
                        return;
                    }
                    let mut stream = pubsub.into_on_message();
                    loop {
                        tokio::select! {
                            msg = stream.next() => {
                                let Some(msg) = msg else { break };
                                let Some(s) = self.shared.upgrade() else { return };
                                let on = msg.get_channel_name();
                                if let Some(message) = accept(&s, on, msg.get_payload_bytes()) {
                                    drop(s);
                                    let event = (self.make)(Some((on.to_owned(), message)));
                                    if self.events.send(event).await.is_err() {
                                        return;
                                    }
                                }
                            }
                            _ = stopped.changed() => return,
                        }
                    }
                    if let Some(s) = self.shared.upgrade() {
                        lock(&s.publisher).take();
                    }
                    tracing::warn!(%url, %channel, "lost the connection to Redis; reconnecting");
                }
                Err(e) => {
                    tracing::warn!(
                        %url, %channel,
                        "cannot reach Redis: {e}; retrying in {} ms",
                        backoff.as_millis()
                    );
                }
            }
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                _ = stopped.changed() => return,
            }
            backoff = (backoff * 2).min(backoff_max);
        }
    }
}

async fn connect(
    client: &redis::Client,
    channel: &str,
    pattern: bool,
) -> redis::RedisResult<(redis::aio::PubSub, MultiplexedConnection)> {
    let mut pubsub = client.get_async_pubsub().await?;
    if pattern {
        pubsub.psubscribe(channel).await?;
    } else {
        pubsub.subscribe(channel).await?;
    }
    let conn = client.get_multiplexed_async_connection().await?;
    Ok((pubsub, conn))
}

/// What one message from Redis on `channel` becomes: `None` for what this process drops.
fn accept(shared: &Shared, channel: &str, bytes: &[u8]) -> Option<WireMessage> {
    let config = &shared.config;
    if bytes.len() > config.max_message_bytes {
        let text = match &config.limit_setting {
            Some(setting) => messages::message_too_large_set_by(
                bytes.len(),
                config.max_message_bytes,
                channel,
                setting,
            ),
            None => messages::message_too_large(bytes.len(), config.max_message_bytes, channel),
        };
        tracing::warn!("{text}");
        return None;
    }
    let message = match decode(bytes) {
        Ok(Decoded::Message(m)) => m,
        Ok(Decoded::Unknown(class)) => {
            let mut logged = lock(&shared.unknown_logged);
            if logged.len() < MAX_UNKNOWN_CLASSES_LOGGED && logged.insert(class.clone()) {
                tracing::debug!(%channel, "{}", messages::unknown_class_ignored(&class));
            }
            return None;
        }
        Err(e) => {
            tracing::warn!(%channel, "ignored a bus message: {e}");
            return None;
        }
    };
    if shared.is_own(message.source()) {
        return None;
    }
    if let WireMessage::Registry(registry) = &message {
        let mut known = shared
            .known_workers
            .write()
            .unwrap_or_else(|e| e.into_inner());
        known
            .entry(channel.to_owned())
            .or_default()
            .extend(registry.worker_names().map(str::to_owned));
    }
    if shared.route_to_pending(channel, &message) {
        return None;
    }
    Some(message)
}
