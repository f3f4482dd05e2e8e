//! The generator's side of the wire, made cheap (the generator shares the server's two
//! cores, so every microsecond it spends is taken from the server it measures).
//!
//! - Reading: [`message_json`] finds the RTVI JSON inside a binary `pipecat.Frame` without
//!   copying it (a protobuf walk over the bytes; `hark_rtvi::frame::decode_frame` as the
//!   fallback, so the same frames are accepted), and [`Head::parse`] reads only the fields the
//!   session's checks need — `type`, `data.payload.ref` — borrowing them from the frame instead
//!   of building a `serde_json::Value` tree per message.
//! - Writing: [`send_text`] and [`client_ready`] write the same bytes as
//!   `serde_json::json!(…).to_string()` did (same keys, same order, same escaping; pinned by
//!   tests), without a `Value` tree.

use std::borrow::Cow;

use serde::Deserialize;

/// The RTVI JSON text of a binary `pipecat.Frame` whose `frame` oneof is `message = 4`
/// (`MessageFrame { string data = 1; }`), borrowed from `bytes`; `None` for a frame of another
/// kind or one that does not decode.
///
/// Fast path: the bytes are walked as protobuf fields (varint, 64-bit, length-delimited,
/// 32-bit); the last `message` field and its last `data` field win, as protobuf's merge rules
/// say for these scalar / oneof fields. Anything the walk does not expect (a group, a
/// truncated field, non-UTF-8 text, several oneof members) falls back to `decode_frame`, whose
/// answer is then owned.
pub fn message_json(bytes: &[u8]) -> Option<Cow<'_, str>> {
    match fast_message_json(bytes) {
        Fast::Json(s) => Some(Cow::Borrowed(s)),
        Fast::NotMessage => None,
        Fast::Unsure => {
            let f = hark_rtvi::frame::decode_frame(bytes).ok()?;
            f.message_json().map(|s| Cow::Owned(s.to_owned()))
        }
    }
}

enum Fast<'a> {
    Json(&'a str),
    NotMessage,
    Unsure,
}

/// Reads a base-128 varint at `*at`, advancing it.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// One protobuf field: `(field number, length-delimited payload if any)`, advancing `*at`.
/// `None` for a wire type this walk does not handle or a truncated field.
fn field<'a>(bytes: &'a [u8], at: &mut usize) -> Option<(u64, Option<&'a [u8]>)> {
    let key = varint(bytes, at)?;
    let number = key >> 3;
    match key & 7 {
        0 => {
            varint(bytes, at)?;
            Some((number, None))
        }
        1 => {
            *at = at.checked_add(8).filter(|&e| e <= bytes.len())?;
            Some((number, None))
        }
        2 => {
            let len = usize::try_from(varint(bytes, at)?).ok()?;
            let end = at.checked_add(len).filter(|&e| e <= bytes.len())?;
            let payload = &bytes[*at..end];
            *at = end;
            Some((number, Some(payload)))
        }
        5 => {
            *at = at.checked_add(4).filter(|&e| e <= bytes.len())?;
            Some((number, None))
        }
        _ => None,
    }
}

fn fast_message_json(bytes: &[u8]) -> Fast<'_> {
    if bytes.len() > hark_rtvi::frame::MAX_FRAME_BYTES {
        return Fast::Unsure;
    }
    let mut at = 0;
    let mut message = None;
    let mut kinds = 0;
    while at < bytes.len() {
        match field(bytes, &mut at) {
            Some((4, Some(m))) => {
                message = Some(m);
                kinds += 1;
            }
            Some((1..=5, Some(_))) => kinds += 1,
            Some((1..=5, None)) | None => return Fast::Unsure,
            Some(_) => {}
        }
    }
    let Some(m) = message else {
        return if kinds == 0 {
            Fast::Unsure
        } else {
            Fast::NotMessage
        };
    };
    if kinds > 1 {
        return Fast::Unsure;
    }
    let mut at = 0;
    let mut data: &[u8] = b"";
    while at < m.len() {
        match field(m, &mut at) {
            Some((1, Some(d))) => data = d,
            Some((1, None)) | None => return Fast::Unsure,
            Some(_) => {}
        }
    }
    match std::str::from_utf8(data) {
        Ok(s) => Fast::Json(s),
        Err(_) => Fast::Unsure,
    }
}

/// The fields of a server RTVI message the session's checks read: its `type` and, for a
/// `ui-command`, `data.payload.ref` ([`Head::into_parts`]), borrowed from the JSON text.
/// Everything else is skipped unparsed. A `type` or `ref` written with escapes does not parse
/// here (the session then reads a `serde_json::Value`).
#[derive(Debug, Deserialize)]
pub struct Head<'a> {
    /// The message's `type` (`""` when missing).
    #[serde(rename = "type", default, borrow)]
    pub kind: &'a str,
    #[serde(default, borrow)]
    data: Option<HeadData<'a>>,
}

#[derive(Debug, Deserialize)]
struct HeadData<'a> {
    #[serde(default, borrow)]
    payload: Option<HeadPayload<'a>>,
}

#[derive(Debug, Deserialize)]
struct HeadPayload<'a> {
    #[serde(rename = "ref", default, borrow)]
    r#ref: Option<&'a str>,
}

impl<'a> Head<'a> {
    /// Reads `json`; `None` when it is not a JSON object or `type` / `data` / `payload` /
    /// `ref` have unexpected shapes (the session then reads it as a `serde_json::Value`, so
    /// such a message is judged exactly as before).
    pub fn parse(json: &'a str) -> Option<Self> {
        serde_json::from_str(json).ok()
    }

    /// `(type, data.payload.ref)`, borrowed from the JSON text.
    pub fn into_parts(self) -> (&'a str, Option<&'a str>) {
        let r = self.data.and_then(|d| d.payload).and_then(|p| p.r#ref);
        (self.kind, r)
    }
}

/// Appends `s` as a JSON string literal, escaped exactly as `serde_json` escapes it.
fn push_json_str(out: &mut String, s: &str) {
    // serde_json's own escaping into a String: infallible for a str.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\"")));
}

/// The `send-text` message's JSON:
/// `{"label":"rtvi-ai","type":"send-text","id":ID,"data":{"content":CONTENT,"options":{"audio_response":false}}}`.
pub fn send_text(id: &str, content: &str) -> String {
    let mut out = String::with_capacity(120 + content.len());
    out.push_str(r#"{"label":"rtvi-ai","type":"send-text","id":"#);
    push_json_str(&mut out, id);
    out.push_str(r#","data":{"content":"#);
    push_json_str(&mut out, content);
    out.push_str(r#","options":{"audio_response":false}}}"#);
    out
}

/// The `client-ready` message's JSON, as Pipecat's client-js 1.13.1 sends it (RTVI 2.1.0).
pub fn client_ready(id: &str) -> String {
    let mut out = String::with_capacity(160);
    out.push_str(r#"{"label":"rtvi-ai","type":"client-ready","id":"#);
    push_json_str(&mut out, id);
    out.push_str(
        r#","data":{"version":"2.1.0","about":{"library":"@pipecat-ai/client-js","library_version":"1.13.1"}}}"#,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn send_text_and_client_ready_write_the_bytes_json_wrote() {
        for content in [
            "click Add Aeropress Go to cart",
            "what do you sell?",
            "q\"\\\n é",
        ] {
            let old = json!({"label": "rtvi-ai", "type": "send-text", "id": "0badf00d",
                "data": {"content": content, "options": {"audio_response": false}}});
            assert_eq!(send_text("0badf00d", content), old.to_string());
        }
        let old = json!({"label": "rtvi-ai", "type": "client-ready", "id": "12345678",
            "data": {"version": "2.1.0",
                     "about": {"library": "@pipecat-ai/client-js", "library_version": "1.13.1"}}});
        assert_eq!(client_ready("12345678"), old.to_string());
    }

    #[test]
    fn message_json_borrows_the_text_of_a_message_frame_as_decode_frame_reads_it() {
        let text = r#"{"label":"rtvi-ai","type":"bot-ready","id":"x","data":{}}"#;
        let bytes = hark_rtvi::frame::encode_message_json(text);
        let got = message_json(&bytes).unwrap();
        assert!(matches!(got, Cow::Borrowed(_)));
        assert_eq!(got, text);
        // A long message (multi-byte varint lengths) too.
        let long = format!(
            r#"{{"type":"bot-output","data":{{"text":"{}"}}}}"#,
            "é".repeat(9000)
        );
        let bytes = hark_rtvi::frame::encode_message_json(&long);
        assert_eq!(message_json(&bytes).unwrap(), long);
        // Not a frame, an empty frame, a truncated frame: as decode_frame says (none).
        assert_eq!(message_json(b"\xff\xff"), None);
        assert_eq!(message_json(b""), None);
        assert_eq!(message_json(&bytes[..bytes.len() - 1]), None);
        // A text frame (kind 1) is not a message.
        let text_frame = [0x0a, 0x03, 0x1a, 0x01, b'a'];
        assert!(hark_rtvi::frame::decode_frame(&text_frame).is_ok());
        assert_eq!(message_json(&text_frame), None);
    }

    #[test]
    fn head_reads_the_type_and_the_commands_ref_only() {
        let m = r#"{"label":"rtvi-ai","type":"ui-command","id":"c1",
            "data":{"command":"click","payload":{"ref":"e42","target_id":null}}}"#;
        let (kind, r) = Head::parse(m).unwrap().into_parts();
        assert_eq!((kind, r), ("ui-command", Some("e42")));
        let h = Head::parse(r#"{"type":"bot-llm-text","data":{"text":"Sure, "}}"#).unwrap();
        let (kind, r) = h.into_parts();
        assert_eq!((kind, r), ("bot-llm-text", None));
        let h = Head::parse(r#"{"type":"ui-command","data":{"payload":{"ref":null}}}"#).unwrap();
        assert_eq!(h.into_parts().1, None);
        assert!(Head::parse("[1]").is_none());
        assert!(Head::parse(r#"{"type":"x","data":{"payload":{"ref":7}}}"#).is_none());
        // Escapes: not here (the session reads those as a Value).
        let escaped = r#"{"type":"ui-command","data":{"payload":{"ref":"\u0065"}}}"#;
        assert!(Head::parse(escaped).is_none());
    }
}
