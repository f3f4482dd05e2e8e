//! Where messages for the client go: a session's outbound queue of RTVI server messages.
//!
//! The UI worker's commands and the job groups' `ui-job-group` reports leave through a
//! [`CommandSink`]; a server session implements it over its outbox (straight in while there is
//! room, else through an ordered backlog), and a tokio channel implements it for tests.

use hark_rtvi::ServerMessage;

/// Where a worker's commands and a job group's reports go: the client session's outbound
/// queue.
///
/// Implemented for `tokio::sync::mpsc::UnboundedSender<ServerMessage>`; implement it for any
/// other transport (a bus, a test recorder). `send` must not block.
pub trait CommandSink: Send + Sync + std::fmt::Debug {
    /// Queues one message for the client. Errors with [`SinkClosed`] when the session is gone.
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed>;
}

/// The client session behind a [`CommandSink`] has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the client session has ended")]
pub struct SinkClosed;

impl CommandSink for tokio::sync::mpsc::UnboundedSender<ServerMessage> {
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed> {
        tokio::sync::mpsc::UnboundedSender::send(self, message).map_err(|_| SinkClosed)
    }
}
