//! Cartesia's TTS WebSocket messages: the generation request and the cancel going out, and the
//! replies coming in (`chunk`, `done`, `error`; `timestamps`, `phoneme_timestamps` and
//! `flush_done` are read and ignored).

use base64::Engine as _;
use serde_json::{Value, json};

/// The settings every request of one client carries.
#[derive(Debug, Clone)]
pub(super) struct RequestShape {
    pub model: String,
    pub voice: String,
    pub language: Option<String>,
    pub sample_rate: u32,
}

/// The request for one whole line on `context_id`: raw PCM16 little-endian at the client's rate,
/// `continue: false` (the line is all the input of the context), no timestamps.
pub(super) fn request(shape: &RequestShape, context_id: &str, transcript: &str) -> String {
    let mut body = json!({
        "model_id": shape.model,
        "transcript": transcript,
        "voice": {"mode": "id", "id": shape.voice},
        "context_id": context_id,
        "output_format": {
            "container": "raw",
            "encoding": "pcm_s16le",
            "sample_rate": shape.sample_rate,
        },
        "continue": false,
        "add_timestamps": false,
    });
    if let Some(language) = &shape.language {
        body["language"] = json!(language);
    }
    body.to_string()
}

/// Stops the generation of `context_id`.
pub(super) fn cancel(context_id: &str) -> String {
    json!({"context_id": context_id, "cancel": true}).to_string()
}

/// One message from Cartesia, read.
#[derive(Debug, PartialEq)]
pub(super) enum Incoming {
    /// Audio of a context (`type: "chunk"`), decoded from base64; `done` when the message
    /// also ends the context.
    Chunk {
        context_id: String,
        audio: Vec<u8>,
        done: bool,
    },
    /// The context is finished (`type: "done"`, or any other message with `done: true`).
    Done { context_id: String },
    /// The provider's error (`type: "error"`); `context_id` absent when it concerns the whole
    /// connection.
    Error {
        context_id: Option<String>,
        status: u16,
        message: String,
    },
    /// Something for a context this client does not use (timestamps, flush markers, an unknown
    /// type that is not done).
    Ignored,
    /// A message this client cannot read (not JSON, no context, bad base64): `context_id` when
    /// it was known, and what was wrong.
    Unreadable {
        context_id: Option<String>,
        detail: String,
    },
}

/// Reads one text message. Never panics, whatever the text.
pub(super) fn read(text: &str) -> Incoming {
    let value: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Incoming::Unreadable {
                context_id: None,
                detail: format!(
                    "a message that is not a JSON object ({})",
                    crate::http::excerpt(text)
                ),
            };
        }
    };
    let context_id = value
        .get("context_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    let done = value.get("done").and_then(Value::as_bool).unwrap_or(false);
    if kind == "error" {
        return Incoming::Error {
            context_id,
            status: value
                .get("status_code")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .unwrap_or(0),
            message: error_text(&value),
        };
    }
    let Some(context_id) = context_id else {
        return Incoming::Unreadable {
            context_id: None,
            detail: format!(
                "a {} message without context_id",
                if kind.is_empty() { "typeless" } else { kind }
            ),
        };
    };
    match kind {
        "chunk" => {
            let data = value.get("data").and_then(Value::as_str).unwrap_or("");
            match base64::engine::general_purpose::STANDARD.decode(data) {
                Ok(audio) => Incoming::Chunk {
                    context_id,
                    audio,
                    done,
                },
                Err(e) => Incoming::Unreadable {
                    context_id: Some(context_id),
                    detail: format!("a chunk whose data is not base64 ({e})"),
                },
            }
        }
        "done" => Incoming::Done { context_id },
        _ if done => Incoming::Done { context_id },
        _ => Incoming::Ignored,
    }
}

/// The provider's words in an error message: `title: message` (Cartesia-Version 2026-03-01 and
/// later), else the older plain `error` string; cut to an excerpt.
fn error_text(value: &Value) -> String {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let words = match (text("title"), text("message"), text("error")) {
        (Some(title), Some(message), _) => format!("{title}: {message}"),
        (Some(only), None, _) | (None, Some(only), _) => only.to_owned(),
        (None, None, Some(error)) => error.to_owned(),
        (None, None, None) => String::new(),
    };
    crate::http::excerpt(&words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_carries_the_documented_fields() {
        let shape = RequestShape {
            model: "sonic-3.5".into(),
            voice: "v-1".into(),
            language: Some("en".into()),
            sample_rate: 24_000,
        };
        let v: Value = serde_json::from_str(&request(&shape, "hark-1", "Hi.")).unwrap();
        assert_eq!(
            v,
            json!({"model_id": "sonic-3.5", "transcript": "Hi.",
                   "voice": {"mode": "id", "id": "v-1"}, "context_id": "hark-1",
                   "output_format": {"container": "raw", "encoding": "pcm_s16le",
                                     "sample_rate": 24000},
                   "continue": false, "add_timestamps": false, "language": "en"})
        );
    }

    #[test]
    fn replies_are_read_without_panicking_on_anything() {
        assert_eq!(
            read(
                r#"{"type":"chunk","data":"AQACAA==","done":false,"status_code":206,"context_id":"c"}"#
            ),
            Incoming::Chunk {
                context_id: "c".into(),
                audio: vec![1, 0, 2, 0],
                done: false
            }
        );
        assert_eq!(
            read(r#"{"type":"done","done":true,"status_code":206,"context_id":"c"}"#),
            Incoming::Done {
                context_id: "c".into()
            }
        );
        assert_eq!(
            read(r#"{"type":"timestamps","done":false,"context_id":"c","word_timestamps":{}}"#),
            Incoming::Ignored
        );
        assert_eq!(
            read(
                r#"{"type":"error","done":true,"status_code":400,"title":"Invalid voice","message":"No such voice.","context_id":"c"}"#
            ),
            Incoming::Error {
                context_id: Some("c".into()),
                status: 400,
                message: "Invalid voice: No such voice.".into()
            }
        );
        assert_eq!(
            read(r#"{"type":"error","done":true,"status_code":400,"error":"Invalid model"}"#),
            Incoming::Error {
                context_id: None,
                status: 400,
                message: "Invalid model".into()
            }
        );
        assert!(matches!(
            read(r#"{"type":"chunk","data":"@@@","context_id":"c"}"#),
            Incoming::Unreadable {
                context_id: Some(_),
                ..
            }
        ));
        for junk in [
            "",
            "[]",
            "null",
            "{",
            r#"{"type":"chunk"}"#,
            r#"{"type":"error","status_code":99999999}"#,
        ] {
            let _ = read(junk);
        }
    }
}
