//! One WebSocket to Cartesia shared by the lines of a client: the task that owns the socket,
//! writes each line's request and cancel, and routes every reply to its line by `context_id`.
//!
//! The task ends when the socket ends (Cartesia closes idle connections after some minutes, a
//! network cut, a close frame): every line still open on it gets an error naming the provider,
//! and the next line opens a new connection ([`super::CartesiaTts`] sees the task gone).

use std::collections::HashMap;

use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream, tungstenite};

use super::wire::{self, Incoming};
use crate::error::{ProviderLabel, TimeoutPhase, VoiceError};
use crate::http::Secret;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What a line hears from the connection.
#[derive(Debug)]
pub(super) enum Event {
    /// Audio bytes (PCM16 little-endian, possibly an odd count).
    Audio(Vec<u8>),
    /// The line is finished.
    Done,
    /// The line failed: the provider's error, an unreadable reply, or the connection ended.
    Failed(Failure),
}

/// Why a line failed, turned into a [`VoiceError`] by the line (which knows its byte count).
#[derive(Debug)]
pub(super) enum Failure {
    /// Cartesia's own error message.
    Provider { status: u16, message: String },
    /// A reply this client cannot read.
    Unreadable(String),
    /// The connection ended or broke while the line was open.
    Lost(String),
}

/// Asks of the connection task.
#[derive(Debug)]
pub(super) enum Command {
    /// Send this request and route `context_id`'s replies to `events`.
    Start {
        context_id: String,
        request: String,
        events: mpsc::UnboundedSender<Event>,
    },
    /// The line was dropped before its end: tell Cartesia to stop, forget the context.
    Cancel { context_id: String },
}

/// A live connection: its task's inbox.
#[derive(Debug, Clone)]
pub(super) struct Conn {
    pub commands: mpsc::UnboundedSender<Command>,
}

impl Conn {
    /// Whether the task is gone (the socket ended).
    pub fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }
}

/// Where and how to connect.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub url: String,
    pub secret: Option<Secret>,
    pub version: String,
    pub key_env: Option<String>,
    pub label: ProviderLabel,
    pub connect_timeout: std::time::Duration,
    /// Longest wait to write one message (a server that stops reading ends the connection).
    pub send_timeout: std::time::Duration,
}

impl Target {
    pub fn redact(&self, text: &str) -> String {
        match self.secret.as_ref().map(Secret::expose) {
            Some(k) if k.len() >= 4 => text.replace(k, "[redacted]"),
            _ => text.to_owned(),
        }
    }
}

/// Opens the WebSocket (TCP, TLS for `wss://`, the upgrade, all within `connect_timeout`) and
/// starts its task.
pub(super) async fn connect(target: &Target) -> Result<Conn, VoiceError> {
    let connect_error = |detail: String| VoiceError::Connect {
        provider: target.label.clone(),
        detail: target.redact(&detail),
    };
    let mut request = target
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| connect_error(format!("base_url is not a WebSocket URL: {e}")))?;
    let headers = request.headers_mut();
    if let Some(secret) = &target.secret {
        let mut value = HeaderValue::from_str(secret.expose())
            .map_err(|_| connect_error("the key holds characters a header cannot".to_owned()))?;
        value.set_sensitive(true);
        headers.insert("X-API-Key", value);
    }
    let version = HeaderValue::from_str(&target.version).map_err(|_| {
        connect_error("the Cartesia-Version holds characters a header cannot".into())
    })?;
    headers.insert("Cartesia-Version", version);

    let connector = if target.url.starts_with("wss://") {
        Some(Connector::Rustls(crate::ws::tls_config().map_err(|e| {
            connect_error(format!("TLS setup failed: {e}"))
        })?))
    } else {
        None
    };
    let opened = tokio_tungstenite::connect_async_tls_with_config(request, None, true, connector);
    let socket = match tokio::time::timeout(target.connect_timeout, opened).await {
        Err(_) => {
            return Err(VoiceError::Timeout {
                provider: target.label.clone(),
                phase: TimeoutPhase::Connect,
                after: target.connect_timeout,
            });
        }
        Ok(Err(tungstenite::Error::Http(response))) => {
            return Err(refused(target, &response));
        }
        Ok(Err(e)) => return Err(connect_error(e.to_string())),
        Ok(Ok((socket, _response))) => socket,
    };
    tracing::debug!(provider = %target.label, "connected");
    let (commands, inbox) = mpsc::unbounded_channel();
    let label = target.label.clone();
    tokio::spawn(run(socket, inbox, label, target.send_timeout));
    Ok(Conn { commands })
}

/// The error for a handshake answered with an HTTP status instead of the upgrade.
fn refused(target: &Target, response: &tungstenite::http::Response<Option<Vec<u8>>>) -> VoiceError {
    let status = response.status().as_u16();
    let body = response
        .body()
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let message = target.redact(&body_words(&body));
    provider_error(target, status, message)
}

/// Cartesia's own words from an HTTP error body: `title: message`, or the older `error`, or the
/// body's text.
fn body_words(body: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let pick = |key: &str| {
        value
            .as_ref()
            .and_then(|v| v.get(key))
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let words = match (pick("title"), pick("message"), pick("error")) {
        (Some(t), Some(m), _) => format!("{t}: {m}"),
        (Some(one), None, _) | (None, Some(one), _) => one,
        (None, None, Some(e)) => e,
        (None, None, None) => body.trim().to_owned(),
    };
    crate::http::excerpt(&words)
}

/// A status from Cartesia (at the handshake or in an error message) as the error a line gets:
/// a refused key names its variable when the client knows it.
pub(super) fn provider_error(target: &Target, status: u16, message: String) -> VoiceError {
    match (&target.key_env, status) {
        (Some(key_env), 401 | 403) => VoiceError::KeyRefused {
            provider: target.label.clone(),
            status,
            message,
            key_env: key_env.clone(),
        },
        _ => VoiceError::Http {
            provider: target.label.clone(),
            status,
            message,
        },
    }
}

/// The task: commands out, replies routed in, until the socket ends or every sender is gone.
async fn run(
    mut socket: Socket,
    mut inbox: mpsc::UnboundedReceiver<Command>,
    label: ProviderLabel,
    send_timeout: std::time::Duration,
) {
    let send = async |socket: &mut Socket, text: String| -> Result<(), String> {
        match tokio::time::timeout(send_timeout, socket.send(Message::text(text))).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "Cartesia took no message for {}",
                crate::messages::seconds(send_timeout)
            )),
        }
    };
    let mut routes: HashMap<String, mpsc::UnboundedSender<Event>> = HashMap::new();
    let lost = loop {
        tokio::select! {
            command = inbox.recv() => match command {
                None => {
                    // The client and all its lines are gone.
                    let _ = tokio::time::timeout(send_timeout, socket.close(None)).await;
                    return;
                }
                Some(Command::Start { context_id, request, events }) => {
                    routes.insert(context_id, events);
                    if let Err(e) = send(&mut socket, request).await {
                        break format!("sending the line failed: {e}");
                    }
                }
                Some(Command::Cancel { context_id }) => {
                    if routes.remove(&context_id).is_some() {
                        tracing::debug!(provider = %label, %context_id, "cancel");
                        if let Err(e) = send(&mut socket, wire::cancel(&context_id)).await {
                            break format!("sending a cancel failed: {e}");
                        }
                    }
                }
            },
            message = socket.next() => match message {
                Some(Ok(Message::Text(text))) => {
                    // A line given up on for an unreadable reply: Cartesia stops its audio.
                    if let Some(context_id) = route(&mut routes, wire::read(&text), &label)
                        && let Err(e) = send(&mut socket, wire::cancel(&context_id)).await
                    {
                        break format!("sending a cancel failed: {e}");
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    break match frame {
                        Some(f) if !f.reason.is_empty() => format!(
                            "Cartesia closed the connection: code {}, {}",
                            u16::from(f.code),
                            crate::http::excerpt(&f.reason)
                        ),
                        Some(f) => format!(
                            "Cartesia closed the connection: code {}",
                            u16::from(f.code)
                        ),
                        None => "Cartesia closed the connection".to_owned(),
                    };
                }
                Some(Ok(_)) => {} // binary, ping, pong: nothing for a line
                Some(Err(e)) => break format!("the connection broke: {e}"),
                None => break "the connection ended".to_owned(),
            },
        }
        routes.retain(|_, events| !events.is_closed());
    };
    tracing::debug!(provider = %label, open_lines = routes.len(), reason = %lost, "connection ended");
    for (_, events) in routes.drain() {
        let _ = events.send(Event::Failed(Failure::Lost(lost.clone())));
    }
}

/// Hands one reply to its line; a reply for a line not open (cancelled, finished) is dropped.
/// The context to cancel when its line failed on a reply it could not read.
fn route(
    routes: &mut HashMap<String, mpsc::UnboundedSender<Event>>,
    incoming: Incoming,
    label: &ProviderLabel,
) -> Option<String> {
    match incoming {
        Incoming::Chunk {
            context_id,
            audio,
            done,
        } => {
            if let Some(events) = routes.get(&context_id) {
                let _ = events.send(Event::Audio(audio));
                if done {
                    let _ = events.send(Event::Done);
                    routes.remove(&context_id);
                }
            }
        }
        Incoming::Done { context_id } => {
            if let Some(events) = routes.remove(&context_id) {
                let _ = events.send(Event::Done);
            }
        }
        Incoming::Error {
            context_id: Some(context_id),
            status,
            message,
        } => {
            if let Some(events) = routes.remove(&context_id) {
                let _ = events.send(Event::Failed(Failure::Provider { status, message }));
            }
        }
        Incoming::Error {
            context_id: None,
            status,
            message,
        } => {
            // Not tied to a line: every open line hears it.
            for (_, events) in routes.drain() {
                let _ = events.send(Event::Failed(Failure::Provider {
                    status,
                    message: message.clone(),
                }));
            }
        }
        Incoming::Unreadable {
            context_id: Some(context_id),
            detail,
        } => {
            let events = routes.remove(&context_id)?;
            let _ = events.send(Event::Failed(Failure::Unreadable(detail)));
            return Some(context_id);
        }
        Incoming::Unreadable {
            context_id: None,
            detail,
        } => tracing::debug!(provider = %label, %detail, "reply ignored"),
        Incoming::Ignored => {}
    }
    None
}
