//! # hark-bus
//!
//! Jobs between named workers, as plain values: a requester sends a job to a worker by name,
//! the worker streams progress and answers once; a job group fans one job out to several
//! workers and reports it to the client as `ui-job-group`.
//!
//! - [`message`]: [`BusMessage`] and its parts (requests, updates, responses, streams,
//!   cancels, the UI job-group messages), each with a job id, a source and a target, in
//!   pipecat-ai 1.14's bus message shapes and JSON envelope.
//! - [`bus`]: [`JobHandler`] (a worker), [`Transport`] (what reaches workers) and [`Bus`], the
//!   in-process transport; [`JobRoutes`] serves several job names under one worker.
//! - [`job`]: [`JobResponse`], a job's status and answer.
//! - [`job_group`]: [`JobGroups`], job groups reported through a [`CommandSink`] ([`sink`]).
//! - [`wire`]: [`WireMessage`], everything a network bus carries (the job messages and
//!   pipecat's registry, UI event, UI command and shutdown messages) in pipecat's envelope.
//! - [`redis_bus`]: [`RedisBus`], pipecat's Redis bus (one pub/sub channel, or every channel
//!   of a pattern on one connection), also a [`Transport`] with a job timeout.
//! - [`names`]: the UI worker's job names and the `screen` tool's name.
//! - [`messages`]: every text hark-bus says.
//!
//! ## Example: a worker on the bus answers one job
//!
//! ```
//! use std::sync::Arc;
//! use futures::future::BoxFuture;
//! use hark_bus::{Bus, JobHandler, JobReply, JobRequest, JobResponse, JobUpdates};
//! use serde_json::json;
//!
//! #[derive(Debug)]
//! struct Echo;
//! impl JobHandler for Echo {
//!     fn handle(&self, job: JobRequest, _updates: JobUpdates) -> BoxFuture<'_, JobReply> {
//!         Box::pin(async move { JobResponse::completed(job.payload).into() })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let bus = Bus::new();
//! bus.register("ui", Arc::new(Echo)).unwrap();
//! let job = JobRequest::new("j1", "voice", "ui", "respond", json!({"query": "hi"}));
//! let updates = JobUpdates::discard(&job);
//! let reply = bus.request(job, updates).await;
//! assert_eq!(reply, JobReply::Response(JobResponse::completed(json!({"query": "hi"}))));
//! # }
//! ```

pub mod bus;
pub mod job;
pub mod job_group;
pub mod message;
pub mod messages;
pub mod names;
pub mod redis_bus;
pub mod sink;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod wire;

pub use bus::{Bus, BusError, JobHandler, JobReply, JobRoutes, JobUpdates, RouteTaken, Transport};
pub use job::JobResponse;
pub use job_group::{JobGroupParams, JobGroupReport, JobGroups};
pub use message::{
    BusMessage, JobCancel, JobRequest, JobResult, JobStream, JobUpdate, JobUpdateRequest,
};
pub use redis_bus::{
    BusEvent, ChannelBus, ChannelEvent, PublishError, RedisBus, RedisBusConfig, is_channel_pattern,
};
pub use sink::{CommandSink, SinkClosed};
pub use wire::{Decoded, WireMessage};
