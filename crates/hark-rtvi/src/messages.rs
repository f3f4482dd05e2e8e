//! Every text a client (or the person reading its logs) reads from this crate.
//!
//! Texts are functions with named inputs so a reviewer can read every sentence in one place;
//! tests pin them to the exact words of the reference (`rtvi-ui.md` §1.3, §10) where pipecat
//! defines them.

/// `error-response` text for a message `type` the server does not handle (rtvi-ui.md §1.3,
/// pipecat `processor.py::_handle_message`): `Unsupported type <t>`.
pub fn unsupported_type(message_type: &str) -> String {
    format!("Unsupported type {message_type}")
}

/// `error-response` text for a message whose `data` does not fit its type (rtvi-ui.md §1.3):
/// `Invalid message: <detail>`, where `detail` names the JSON path and what was wrong.
pub fn invalid_message(detail: &str) -> String {
    format!("Invalid message: {detail}")
}

/// Detail for a required field that is absent: `<path>: missing field`.
pub fn missing_field(path: &str) -> String {
    format!("{}missing field", at(path))
}

/// Detail for a field of the wrong JSON type: `<path>: expected <expected>, got <found>`.
/// (Without the `<path>: ` prefix when the value is the whole input.)
pub fn wrong_type(path: &str, expected: &str, found: &str) -> String {
    format!("{}expected {expected}, got {found}", at(path))
}

/// `"<path>: "`, or nothing for the whole input (empty path).
fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// Detail for a `ui-event` that names its event in `name` (as pipecat PR #4407's description did)
/// instead of `event` (case P2).
pub fn ui_event_uses_name() -> String {
    "data.event is required (ui-event names its event in \"event\", not \"name\")".to_string()
}

/// Detail for an accessibility tree nested deeper than the limit (`snapshot::MAX_TREE_DEPTH`).
pub fn tree_too_deep(path: &str, max_depth: usize) -> String {
    format!(
        "{}the tree is nested deeper than {max_depth} levels; send a shallower snapshot",
        at(path)
    )
}

/// Text for an inbound message that is not a JSON object.
pub fn not_json(detail: &str) -> String {
    format!("Invalid RTVI message: not a JSON object ({detail})")
}

/// Text for an inbound JSON message whose `label` is not `rtvi-ai` (ignored, rtvi-ui.md §1.1).
pub fn wrong_label(label: &str) -> String {
    format!("Ignoring message with label {label:?}: RTVI messages have label \"rtvi-ai\"")
}

/// Version warning for a client whose major version differs from ours and is not 1
/// (rtvi-ui.md §1.3, §10).
pub fn version_incompatible(client_version: &str, server_version: &str) -> String {
    format!(
        "RTVI version {client_version} is not compatible with server protocol {server_version}. \
         Compatibility issues may occur."
    )
}

/// Version warning for a `version` that is not `MAJOR.MINOR.PATCH` (rtvi-ui.md §10).
pub fn version_invalid_format(client_version: &str) -> String {
    format!("Invalid client version format ({client_version}). Compatibility issues may occur.")
}

/// Version warning for a `client-ready` without `version` (rtvi-ui.md §10).
pub fn version_unknown() -> String {
    "Client version unknown. Compatibility issues may occur.".to_string()
}

/// Frame error: the bytes are not a `pipecat.Frame` protobuf message (truncated or corrupt).
pub fn frame_invalid(detail: &str) -> String {
    format!(
        "Invalid frame: not a pipecat.Frame protobuf message ({detail}). \
         Send binary WebSocket frames holding one pipecat.Frame each."
    )
}

/// Frame error: a well-formed `pipecat.Frame` with none of its `frame` oneof fields set.
pub fn frame_empty() -> String {
    "Invalid frame: no frame kind is set; a pipecat.Frame carries one of text, audio, \
     transcription, message or interruption."
        .to_string()
}

/// Frame error: the frame is larger than the limit.
pub fn frame_too_large(len: usize, max: usize) -> String {
    format!(
        "Invalid frame: {len} bytes is more than the limit of {max} bytes; send smaller frames."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_match_pipecat_words() {
        assert_eq!(unsupported_type("foo"), "Unsupported type foo");
        assert_eq!(
            invalid_message(&missing_field("data.content")),
            "Invalid message: data.content: missing field"
        );
        assert_eq!(
            invalid_message(&ui_event_uses_name()),
            "Invalid message: data.event is required (ui-event names its event in \"event\", not \"name\")"
        );
        assert_eq!(
            version_incompatible("0.3.0", "2.1.0"),
            "RTVI version 0.3.0 is not compatible with server protocol 2.1.0. Compatibility issues may occur."
        );
        assert_eq!(
            version_invalid_format("1.2"),
            "Invalid client version format (1.2). Compatibility issues may occur."
        );
        assert_eq!(
            version_unknown(),
            "Client version unknown. Compatibility issues may occur."
        );
    }
}
