//! What goes from the turn loop to the client: the [`AgentOutput`] trait, the RTVI messages a
//! bot turn is made of, and [`ChannelOutput`] for tests and embedding.
//!
//! Spec: rtvi-ui.md §1 (`bot-llm-started`, `bot-llm-text`, `bot-llm-stopped`, `bot-output`,
//! `bot-tts-text`, `error`); DESIGN.md ("What a call looks like": `◄── bot-output,
//! bot-tts-text, ui-command, …`). hark-agent does not depend on the server: hark-server
//! implements [`AgentOutput`] over its session outbox.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use hark_rtvi::message::ServerMessage;
use tokio::sync::mpsc;

/// The client went away: nothing more can be sent to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the client's session is closed; nothing more can be sent to it")]
pub struct OutputClosed;

/// Where one call's messages to the client go (a session's outbound queue).
pub trait AgentOutput: Send + Sync + fmt::Debug {
    /// Queues `message` for the client, in order; waits while the queue is full.
    ///
    /// # Errors
    /// [`OutputClosed`] once the client is gone.
    fn send(&self, message: ServerMessage) -> BoxFuture<'_, Result<(), OutputClosed>>;

    /// True for a protocol 1.x client (v1 `bot-output`, with `spoken` in place of
    /// `will_be_spoken`).
    fn legacy(&self) -> bool {
        false
    }

    /// Ends the session from the bot's side (the call ended, `ends_conversation`): what is
    /// queued still goes out, then the connection closes normally. Resolves once the close is
    /// under way; later [`send`](Self::send)s fail.
    fn end(&self) -> BoxFuture<'_, ()>;
}

/// An [`AgentOutput`] over a tokio channel: every message lands in the receiver, in order;
/// [`end`](AgentOutput::end) drops the sender (the receiver then ends after the queued
/// messages). For tests and for embedding the agent behind another transport.
#[derive(Debug, Clone)]
pub struct ChannelOutput {
    tx: Arc<std::sync::Mutex<Option<mpsc::UnboundedSender<ServerMessage>>>>,
    ended: Arc<AtomicBool>,
    legacy: bool,
}

impl ChannelOutput {
    /// An output and the receiver of its messages.
    pub fn new() -> (ChannelOutput, mpsc::UnboundedReceiver<ServerMessage>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            ChannelOutput {
                tx: Arc::new(std::sync::Mutex::new(Some(tx))),
                ended: Arc::default(),
                legacy: false,
            },
            rx,
        )
    }

    /// True once [`AgentOutput::end`] was called.
    pub fn is_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

impl AgentOutput for ChannelOutput {
    fn send(&self, message: ServerMessage) -> BoxFuture<'_, Result<(), OutputClosed>> {
        let sent = match &*self.tx.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(tx) => tx.send(message).map_err(|_| OutputClosed),
            None => Err(OutputClosed),
        };
        Box::pin(async move { sent })
    }

    fn legacy(&self) -> bool {
        self.legacy
    }

    fn end(&self) -> BoxFuture<'_, ()> {
        self.ended.store(true, Ordering::SeqCst);
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).take();
        Box::pin(async {})
    }
}

/// One spoken segment as `bot-output` (aggregated by sentence, segment `segment_id`, to be
/// spoken) for a v2 client, or v1's `bot-output` with `spoken: true` for a `legacy` one.
pub fn bot_output(text: &str, segment_id: i64, legacy: bool) -> ServerMessage {
    ServerMessage::BotOutput {
        text: text.to_owned(),
        aggregated_by: "sentence".to_owned(),
        segment_id: (!legacy).then_some(segment_id),
        will_be_spoken: (!legacy).then_some(true),
        spoken_status: None,
        spoken_progress: None,
        spoken: legacy.then_some(true),
    }
}

/// The messages of one spoken segment: `bot-output` ([`bot_output`]) then `bot-tts-text` with
/// the same text (the words as spoken; no TTS runs in Hark yet, so the text is "spoken" when
/// sent).
pub fn spoken_segment(text: &str, segment_id: i64, legacy: bool) -> [ServerMessage; 2] {
    [
        bot_output(text, segment_id, legacy),
        ServerMessage::BotTtsText {
            text: text.to_owned(),
        },
    ]
}

/// One complete bot text reply without speech, the way Pipecat frames it for a text turn:
/// `bot-llm-started`, `bot-llm-text`, `bot-output` (one sentence-aggregated segment, not to be
/// spoken), `bot-llm-stopped`. `legacy`: a protocol 1.x client (v1 `bot-output` with `spoken`).
/// No `bot-tts-text` is sent: nothing is spoken.
pub fn bot_reply(line: &str, legacy: bool) -> Vec<ServerMessage> {
    let output = ServerMessage::BotOutput {
        text: line.to_owned(),
        aggregated_by: "sentence".to_owned(),
        segment_id: (!legacy).then_some(0),
        will_be_spoken: (!legacy).then_some(false),
        spoken_status: None,
        spoken_progress: None,
        spoken: legacy.then_some(false),
    };
    vec![
        ServerMessage::BotLlmStarted,
        ServerMessage::BotLlmText {
            text: line.to_owned(),
        },
        output,
        ServerMessage::BotLlmStopped,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spoken_segments_carry_the_version_fields() {
        let [output, tts] = spoken_segment("Hi there.", 3, false);
        let json = output.to_json(None);
        assert!(json.contains(r#""aggregated_by":"sentence""#), "{json}");
        assert!(json.contains(r#""segment_id":3"#), "{json}");
        assert!(json.contains(r#""will_be_spoken":true"#), "{json}");
        assert!(!json.contains("\"spoken\""), "{json}");
        assert_eq!(tts.type_name(), "bot-tts-text");
        let v1 = bot_output("Hi there.", 3, true).to_json(None);
        assert!(v1.contains(r#""spoken":true"#), "{v1}");
        assert!(!v1.contains("segment_id"), "{v1}");
    }

    #[test]
    fn bot_reply_mimics_a_pipecat_text_turn() {
        let types: Vec<String> = bot_reply("Hi.", false)
            .iter()
            .map(ServerMessage::type_name)
            .collect();
        assert_eq!(
            types,
            [
                "bot-llm-started",
                "bot-llm-text",
                "bot-output",
                "bot-llm-stopped"
            ]
        );
        let json = bot_reply("Hi.", false)[2].to_json(None);
        assert!(json.contains(r#""will_be_spoken":false"#), "{json}");
        let v1 = bot_reply("Hi.", true)[2].to_json(None);
        assert!(v1.contains(r#""spoken":false"#), "{v1}");
    }

    #[tokio::test]
    async fn a_channel_output_refuses_after_end() {
        let (out, mut rx) = ChannelOutput::new();
        out.send(ServerMessage::BotLlmStarted).await.unwrap();
        out.end().await;
        assert_eq!(
            out.send(ServerMessage::BotLlmStopped).await,
            Err(OutputClosed)
        );
        assert!(out.is_ended());
        assert_eq!(
            rx.recv().await.map(|m| m.type_name()),
            Some("bot-llm-started".into())
        );
        assert!(rx.recv().await.is_none());
    }
}
