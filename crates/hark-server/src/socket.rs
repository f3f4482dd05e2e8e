//! The WebSocket as the session sees it: a `Stream` of [`WsMessage`]s in, a `Sink` of them out.
//!
//! The connection loop ([`crate::session::run_connection`]) is written against these generic
//! halves, not against axum, so unit tests drive it with channels. [`split_axum`] adapts an axum
//! `WebSocket` ([`axum::extract::ws::WebSocket`]).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{self, WebSocket};
use futures::{Sink, SinkExt, Stream, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Close code 1000: normal closure (RFC 6455 §7.4.1).
pub const CLOSE_NORMAL: u16 = 1000;
/// Close code 1001: the server is going away (used at shutdown).
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code 1008: policy violation (used when no `client-ready` arrived in time).
pub const CLOSE_POLICY: u16 = 1008;
/// Close code 1011: the server cannot go on (used when a keep-alive ping got no pong in time).
pub const CLOSE_UNEXPECTED: u16 = 1011;
/// Close code 1009: a message too big to process (used for an oversize frame).
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

/// The TCP connection under one HTTP/WebSocket connection, shared: hyper and the WebSocket read
/// and write it through [`SharedTcp`], and the session keeps a [`RawConn`] to discard what the
/// client still sends after the server refused a frame (the client must get to read
/// the 1009 close frame instead of a reset).
pub(crate) fn share(tcp: TcpStream) -> (SharedTcp, RawConn) {
    let conn = Arc::new(Conn {
        tcp,
        written: AtomicU64::new(0),
    });
    (SharedTcp(conn.clone()), RawConn(conn))
}

/// One TCP connection and the bytes written to it so far (what the kernel accepted; it stops
/// growing once the socket buffers are full, i.e. when the client stops reading).
#[derive(Debug)]
struct Conn {
    tcp: TcpStream,
    written: AtomicU64,
}

impl Conn {
    fn count(&self, result: io::Result<usize>) -> io::Result<usize> {
        if let Ok(n) = result {
            self.written.fetch_add(n as u64, Ordering::Relaxed);
        }
        result
    }
}

/// A [`TcpStream`] behind an `Arc`, read and written through `&TcpStream` (readiness +
/// `try_read`/`try_write`); what hyper serves the connection on. Counts the bytes written
/// ([`RawConn::bytes_written`]).
#[derive(Debug)]
pub(crate) struct SharedTcp(Arc<Conn>);

impl AsyncRead for SharedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            ready!(self.0.tcp.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match self.0.tcp.try_read(unfilled) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for SharedTcp {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.tcp.poll_write_ready(cx))?;
            match self.0.tcp.try_write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return Poll::Ready(self.0.count(other)),
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.tcp.poll_write_ready(cx))?;
            match self.0.tcp.try_write_vectored(bufs) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return Poll::Ready(self.0.count(other)),
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(socket2::SockRef::from(&self.0.tcp).shutdown(std::net::Shutdown::Write))
    }
}

/// Most bytes [`RawConn::discard_input`] reads after a refused frame: 64 MiB. A client that
/// announced more is cut off (it then sees a reset, not the close frame).
pub const DRAIN_MAX_BYTES: usize = 64 << 20;

/// A session's handle on its TCP connection, used only after the WebSocket layer gave up on the
/// input (an oversize frame).
#[derive(Debug, Clone)]
pub struct RawConn(Arc<Conn>);

impl RawConn {
    /// Bytes written to the connection so far (HTTP response head and WebSocket frames, as the
    /// kernel accepted them). The session's writer takes a count that stops moving while a
    /// write waits as the sign that the client stopped reading; a client
    /// that reads slowly still moves it.
    pub fn bytes_written(&self) -> u64 {
        self.0.written.load(Ordering::Relaxed)
    }

    /// Reads and discards what the client still sends, so its pending write finishes and it
    /// reads the close frame the server already sent (closing a socket with unread input makes
    /// the kernel send a reset, which browsers and tungstenite report as 1006).
    ///
    /// Stops at the client's end of stream, after `expect` bytes (the refused frame's announced
    /// size, at most [`DRAIN_MAX_BYTES`]) and then `quiet` without input, or at `max_wait`.
    /// Returns the bytes discarded.
    pub async fn discard_input(&self, expect: usize, quiet: Duration, max_wait: Duration) -> usize {
        let deadline = tokio::time::Instant::now() + max_wait;
        let expect = expect.min(DRAIN_MAX_BYTES);
        let mut scratch = vec![0u8; 64 * 1024];
        let mut total = 0usize;
        loop {
            // Before the announced payload is in, only the overall deadline stops the wait.
            let wait_until = if total >= expect {
                deadline.min(tokio::time::Instant::now() + quiet)
            } else {
                deadline
            };
            match tokio::time::timeout_at(wait_until, self.0.tcp.readable()).await {
                Err(_) | Ok(Err(_)) => break,
                Ok(Ok(())) => match self.0.tcp.try_read(&mut scratch) {
                    Ok(0) => break,
                    Ok(n) => {
                        total += n;
                        if total >= DRAIN_MAX_BYTES {
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(_) => break,
                },
            }
        }
        total
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
