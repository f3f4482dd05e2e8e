//! The WebSocket as the session sees it: a `Stream` of [`WsMessage`]s in, a `Sink` of them out.
//!
//! The connection loop ([`crate::session::run_connection`]) is written against these generic
//! halves, not against axum, so unit tests drive it with channels. [`split_axum`] adapts an axum
//! `WebSocket` ([`axum::extract::ws::WebSocket`]).

use axum::body::Bytes;
use axum::extract::ws::{self, WebSocket};
use futures::{Sink, SinkExt, Stream, StreamExt};

/// Close code 1000: normal closure (RFC 6455 §7.4.1).
pub const CLOSE_NORMAL: u16 = 1000;
/// Close code 1001: the server is going away (used at shutdown).
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code 1008: policy violation (used when no `client-ready` arrived in time).
pub const CLOSE_POLICY: u16 = 1008;
/// Close code 1011: the server cannot go on (used when a keep-alive ping got no pong in time).
pub const CLOSE_UNEXPECTED: u16 = 1011;
/// Close code 1009: a message too big to process (used for an oversize frame, case P3).
pub const CLOSE_TOO_BIG: u16 = 1009;

/// One WebSocket message, independent of the WebSocket library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsMessage {
    /// A binary frame: for RTVI, a protobuf `pipecat.Frame`.
    Binary(Bytes),
    /// A text frame (refused by RTVI sessions: the transport sends binary frames).
    Text(String),
    /// A ping (the WebSocket library answers it).
    Ping(Bytes),
    /// A pong.
    Pong(Bytes),
    /// A close frame with an optional code and reason.
    Close(Option<CloseInfo>),
}

/// The code and reason of a close frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseInfo {
    /// Close code (RFC 6455 §7.4), e.g. [`CLOSE_TOO_BIG`].
    pub code: u16,
    /// Reason text, at most 123 bytes.
    pub reason: String,
}

/// Why reading the next message failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecvError {
    /// The client sent a frame or message larger than the limit; `size` is what the frame
    /// header announced, in bytes. The frame's payload was not read.
    #[error("frame of {size} bytes is over the limit of {limit} bytes")]
    TooLarge {
        /// Announced size, in bytes.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// Any other failure (protocol violation, connection reset); the socket is unusable.
    #[error("websocket error: {0}")]
    Other(String),
}

/// Splits an axum WebSocket into the generic halves the connection loop takes.
pub fn split_axum(
    socket: WebSocket,
) -> (
    impl Sink<WsMessage, Error = axum::Error> + Send + Unpin,
    impl Stream<Item = Result<WsMessage, RecvError>> + Send + Unpin,
) {
    let (sink, stream) = socket.split();
    let sink = sink.with(|m: WsMessage| futures::future::ready(Ok::<_, axum::Error>(to_axum(m))));
    let stream = stream.map(|item| item.map(from_axum).map_err(recv_error));
    (Box::pin(sink), stream)
}

fn to_axum(m: WsMessage) -> ws::Message {
    match m {
        WsMessage::Binary(b) => ws::Message::Binary(b),
        WsMessage::Text(t) => ws::Message::Text(t.into()),
        WsMessage::Ping(b) => ws::Message::Ping(b),
        WsMessage::Pong(b) => ws::Message::Pong(b),
        WsMessage::Close(c) => ws::Message::Close(c.map(|c| ws::CloseFrame {
            code: c.code,
            reason: c.reason.into(),
        })),
    }
}

fn from_axum(m: ws::Message) -> WsMessage {
    match m {
        ws::Message::Binary(b) => WsMessage::Binary(b),
        ws::Message::Text(t) => WsMessage::Text(t.as_str().to_owned()),
        ws::Message::Ping(b) => WsMessage::Ping(b),
        ws::Message::Pong(b) => WsMessage::Pong(b),
        ws::Message::Close(c) => WsMessage::Close(c.map(|c| CloseInfo {
            code: c.code,
            reason: c.reason.as_str().to_owned(),
        })),
    }
}

/// Recognises tungstenite's capacity error inside axum's opaque error.
fn recv_error(err: axum::Error) -> RecvError {
    let inner = err.into_inner();
    match inner.downcast_ref::<tungstenite::Error>() {
        Some(tungstenite::Error::Capacity(tungstenite::error::CapacityError::MessageTooLong {
            size,
            max_size,
        })) => RecvError::TooLarge {
            size: *size,
            limit: *max_size,
        },
        _ => RecvError::Other(inner.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_error_is_recognised() {
        let err = axum::Error::new(tungstenite::Error::Capacity(
            tungstenite::error::CapacityError::MessageTooLong {
                size: 20_000_000,
                max_size: 1_048_576,
            },
        ));
        assert_eq!(
            recv_error(err),
            RecvError::TooLarge {
                size: 20_000_000,
                limit: 1_048_576
            }
        );
        let other = axum::Error::new(tungstenite::Error::ConnectionClosed);
        assert!(matches!(recv_error(other), RecvError::Other(_)));
    }

    #[test]
    fn messages_round_trip_through_axum_types() {
        let all = [
            WsMessage::Binary(Bytes::from_static(b"\x22\x02{}")),
            WsMessage::Text("hi".into()),
            WsMessage::Ping(Bytes::new()),
            WsMessage::Pong(Bytes::new()),
            WsMessage::Close(Some(CloseInfo {
                code: CLOSE_TOO_BIG,
                reason: "big".into(),
            })),
            WsMessage::Close(None),
        ];
        for m in all {
            assert_eq!(from_axum(to_axum(m.clone())), m);
        }
    }
}
