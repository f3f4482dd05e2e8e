//! The UI worker's outbound side on a network bus: commands and job-group reports become
//! pipecat's `BusUICommandMessage` and UI job-group messages, queued for the bus's publisher.

use hark_bus::wire::UiCommandMessage;
use hark_bus::{BusMessage, CommandSink, SinkClosed, WireMessage};
use hark_rtvi::ServerMessage;

use super::outbox::Outbox;

/// A [`CommandSink`] that turns what the UI worker sends the client into bus messages from
/// the worker `source`, to everyone (the pipeline worker that owns the client forwards them
/// as RTVI). Other server messages have no bus form and are dropped (logged at debug).
#[derive(Debug)]
pub struct BusSink {
    source: String,
    out: Outbox,
}

impl BusSink {
    /// Messages from `source` into `out` (the bus's publish queue, for one channel).
    pub fn new(source: impl Into<String>, out: Outbox) -> Self {
        BusSink {
            source: source.into(),
            out,
        }
    }
}

/// The bus form of one message for the client; `None` when it has none.
pub fn to_wire(source: &str, message: ServerMessage) -> Option<WireMessage> {
    match message {
        ServerMessage::UiCommand(cmd) => Some(WireMessage::UiCommand(UiCommandMessage {
            source: source.to_owned(),
            target: None,
            command_name: cmd.command,
            payload: cmd.payload,
        })),
        ServerMessage::UiJobGroup(envelope) => Some(WireMessage::Job(BusMessage::job_group(
            source, None, envelope,
        ))),
        _ => None,
    }
}

impl CommandSink for BusSink {
    fn send(&self, message: ServerMessage) -> Result<(), SinkClosed> {
        match to_wire(&self.source, message) {
            Some(wire) => self.out.send(wire).map_err(|_| SinkClosed),
            None => {
                tracing::debug!("a server message with no bus form was not sent");
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hark_rtvi::{JobGroupEnvelope, UiCommand};
    use serde_json::json;

    #[test]
    fn commands_and_job_groups_become_pipecat_messages() {
        let click = to_wire(
            "ui",
            ServerMessage::UiCommand(UiCommand {
                command: "click".into(),
                payload: json!({"ref": "e2"}),
            }),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(click.encode()).unwrap(),
            r#"{"__type__":"pipecat.bus.ui.messages.BusUICommandMessage","__data__":{"source":"ui","command_name":"click","payload":{"ref":"e2"}}}"#
        );
        let done = to_wire(
            "ui",
            ServerMessage::UiJobGroup(JobGroupEnvelope::GroupCompleted {
                job_id: "g1".into(),
                at: 5,
            }),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(done.encode()).unwrap(),
            r#"{"__type__":"pipecat.bus.ui.messages.BusUIJobGroupCompletedMessage","__data__":{"source":"ui","job_id":"g1","at":5}}"#
        );
    }
}
