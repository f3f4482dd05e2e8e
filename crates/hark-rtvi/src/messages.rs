//! Every text a client (or the person reading its logs) reads from this crate.
//!
//! Texts are functions with named inputs so a reviewer can read every sentence in one place;
//! tests pin them to pipecat-ai's exact words where pipecat defines them (its
//! `processor.py`, and the warnings the real client shows).

/// `error-response` text for a message `type` the server does not handle (pipecat
/// `processor.py::_handle_message`): `Unsupported type <t>`.
pub fn unsupported_type(message_type: &str) -> String {
    format!("Unsupported type {message_type}")
}

/// `error-response` text for a message whose `data` does not fit its type:
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
/// instead of `event`: pipecat's code reads `event`.
pub fn ui_event_uses_name() -> String {
    "data.event is required (ui-event names its event in \"event\", not \"name\")".to_string()
}

/// Detail for a `dtmf` that names its key in `button` (protocol 2.0) instead of `buttons`.
pub fn dtmf_uses_button(path: &str) -> String {
    format!(
        "{}missing field (protocol 2.1.0 replaced \"button\" with \"buttons\", a list: send \
         {{\"buttons\": [\"1\"]}})",
        at(path)
    )
}

/// Detail for a `dtmf` whose `buttons` list is empty.
pub fn dtmf_no_keys(path: &str) -> String {
    format!(
        "{}no keys; send at least one keypad key (\"0\" to \"9\", \"*\" or \"#\")",
        at(path)
    )
}

/// Detail for a `dtmf` entry that is not one keypad key (`found`: the string as JSON, or the
/// kind of value).
pub fn dtmf_not_a_key(path: &str, found: &str) -> String {
    format!(
        "{}{found} is not a keypad key; send each key as its own string: \"0\" to \"9\", \
         \"*\" or \"#\"",
        at(path)
    )
}

/// Detail for an accessibility tree nested deeper than the limit (`snapshot::MAX_TREE_DEPTH`),
/// counted in node levels (the root is level 1): `<path>: the tree is nested deeper than <max>
/// node levels; …`.
pub fn tree_too_deep(path: &str, max_depth: usize) -> String {
    format!(
        "{}the tree is nested deeper than {max_depth} node levels; send a shallower snapshot \
         (client-js's walker stops at 10 levels)",
        at(path)
    )
}

/// Detail for a snapshot with more nodes than the limit (`snapshot::MAX_SNAPSHOT_NODES` by
/// default): `<path>: the snapshot has <count> nodes, more than the limit of <max>; …`.
pub fn too_many_nodes(path: &str, count: usize, max_nodes: usize) -> String {
    format!(
        "{}the snapshot has {count} nodes, more than the limit of {max_nodes}; send a smaller \
         snapshot (client-js's walker sends at most 200 nodes)",
        at(path)
    )
}

/// Detail for an integer field given a whole float outside `i64` (`level: 1e30`,
/// `captured_at: 1e400`), which pydantic refuses too. (An integer literal or string beyond `i64`
/// is accepted and kept, as pydantic keeps it.)
pub fn integer_out_of_range(path: &str) -> String {
    format!(
        "{}integer out of range; send a whole number from -9223372036854775808 to \
         9223372036854775807",
        at(path)
    )
}

/// Detail for a JSON number too large for a 64-bit float (`1e400`) where no integer was
/// expected.
pub fn number_out_of_range(path: &str) -> String {
    format!(
        "{}number out of range; JSON numbers must fit a 64-bit float (at most about 1.8e308)",
        at(path)
    )
}

/// Detail for JSON nested deeper than serde_json's recursion limit (128 levels: 127 are read).
pub fn json_too_deep(path: &str) -> String {
    format!(
        "{}the JSON is nested 128 or more levels deep, more than the parser reads (127); \
         send flatter data",
        at(path)
    )
}

/// Detail for JSON that does not parse, with serde_json's own words: `<path>: not valid JSON
/// (<serde detail>)`.
pub fn json_syntax(path: &str, serde_detail: &str) -> String {
    format!("{}not valid JSON ({serde_detail})", at(path))
}

/// Detail for one of serde_json's own errors at `path`, by its kind: nesting
/// ([`json_too_deep`]), a number beyond `f64` ([`number_out_of_range`]), anything else
/// ([`json_syntax`]).
pub fn json_error_detail(path: &str, serde_detail: &str) -> String {
    if serde_detail.starts_with("recursion limit exceeded") {
        json_too_deep(path)
    } else if serde_detail.starts_with("number out of range") {
        number_out_of_range(path)
    } else {
        json_syntax(path, serde_detail)
    }
}

/// Text for an inbound message that is not valid JSON. `id_known`: whether the message id was
/// recovered (then this text goes out as an `error-response` with that id; otherwise as an
/// `error`, and the text says the id could not be read).
pub fn not_valid_json(detail: &str, id_known: bool) -> String {
    let id_note = if id_known {
        ""
    } else {
        "; its id could not be read"
    };
    format!(
        "Invalid RTVI message: not valid JSON ({detail}){id_note}. Send each message as one \
         JSON object."
    )
}

/// Text for an inbound message that is valid JSON but not an object (`found`: `an array`, …).
pub fn not_json_object(found: &str) -> String {
    format!(
        "Invalid RTVI message: not a JSON object (got {found}). Send each message as one JSON \
         object."
    )
}

/// Text for an inbound JSON message whose `label` is not `rtvi-ai` (ignored).
pub fn wrong_label(label: &str) -> String {
    format!("Ignoring message with label {label:?}: RTVI messages have label \"rtvi-ai\"")
}

/// Version warning for a client whose major version differs from ours and is not 1 (pipecat's
/// words).
pub fn version_incompatible(client_version: &str, server_version: &str) -> String {
    format!(
        "RTVI version {client_version} is not compatible with server protocol {server_version}. \
         Compatibility issues may occur."
    )
}

/// Version warning for a `version` that is not `MAJOR.MINOR.PATCH` (pipecat's words).
pub fn version_invalid_format(client_version: &str) -> String {
    format!("Invalid client version format ({client_version}). Compatibility issues may occur.")
}

/// Version warning for a `client-ready` without `version` (pipecat's words).
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

/// Audio frame error: a sample rate outside what the server takes.
pub fn audio_sample_rate(rate: u32, min: u32, max: u32) -> String {
    format!(
        "Invalid audio frame: sample_rate {rate} Hz is outside {min}..={max} Hz; send 16-bit \
         PCM at a rate in that range (the Pipecat client records at 16000 Hz)."
    )
}

/// Audio frame error: not mono.
pub fn audio_channels(channels: u32) -> String {
    format!(
        "Invalid audio frame: num_channels {channels}; the server takes mono audio \
         (num_channels 1)."
    )
}

/// Audio frame error: an odd number of bytes, which is not 16-bit PCM.
pub fn audio_odd_length(len: usize) -> String {
    format!(
        "Invalid audio frame: {len} audio bytes is not a whole number of 16-bit samples; \
         send little-endian PCM16."
    )
}

/// Audio frame error: more audio in one frame than the limit.
pub fn audio_too_long(len: usize, max: usize) -> String {
    format!(
        "Invalid audio frame: {len} audio bytes is more than the limit of {max} bytes per \
         frame; send audio in short frames (20 ms is 640 bytes at 16000 Hz)."
    )
}

/// Audio frame error: microphone audio faster than real time.
pub fn audio_too_fast(ahead_ms: u64, max_ms: u64) -> String {
    format!(
        "microphone audio arrives faster than real time: with this frame it would be {:.1} s \
         ahead of the clock, more than the {:.1} s allowed; send audio as it is recorded \
         (a 20 ms frame every 20 ms).",
        ahead_ms as f64 / 1000.0,
        max_ms as f64 / 1000.0
    )
}

/// Audio framer error: a frame length that holds no sample at this rate.
pub fn audio_frame_length(frame_ms: u32, rate: u32) -> String {
    format!("audio frames of {frame_ms} ms at {rate} Hz hold no sample; use 10 to 100 ms")
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
            version_incompatible("0.3.0", "2.2.0"),
            "RTVI version 0.3.0 is not compatible with server protocol 2.2.0. Compatibility issues may occur."
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

    #[test]
    fn dtmf_texts_say_what_is_wrong_and_what_to_do() {
        assert_eq!(
            dtmf_uses_button("data.buttons"),
            "data.buttons: missing field (protocol 2.1.0 replaced \"button\" with \"buttons\", \
             a list: send {\"buttons\": [\"1\"]})"
        );
        assert_eq!(
            dtmf_no_keys("data.buttons"),
            "data.buttons: no keys; send at least one keypad key (\"0\" to \"9\", \"*\" or \"#\")"
        );
        assert_eq!(
            dtmf_not_a_key("data.buttons[1]", "\"12\""),
            "data.buttons[1]: \"12\" is not a keypad key; send each key as its own string: \
             \"0\" to \"9\", \"*\" or \"#\""
        );
    }

    #[test]
    fn input_fault_texts_say_what_is_wrong_and_what_to_do() {
        assert_eq!(
            tree_too_deep("root", 60),
            "root: the tree is nested deeper than 60 node levels; send a shallower snapshot \
             (client-js's walker stops at 10 levels)"
        );
        assert_eq!(
            too_many_nodes("data.tree", 5001, 5000),
            "data.tree: the snapshot has 5001 nodes, more than the limit of 5000; send a \
             smaller snapshot (client-js's walker sends at most 200 nodes)"
        );
        assert_eq!(
            integer_out_of_range("level"),
            "level: integer out of range; send a whole number from -9223372036854775808 to \
             9223372036854775807"
        );
        assert_eq!(
            json_error_detail("data", "number out of range at line 1 column 9"),
            "data: number out of range; JSON numbers must fit a 64-bit float (at most about 1.8e308)"
        );
        assert_eq!(
            json_error_detail("data", "recursion limit exceeded at line 1 column 130"),
            "data: the JSON is nested 128 or more levels deep, more than the parser reads (127); \
             send flatter data"
        );
        assert_eq!(
            json_error_detail("", "EOF while parsing a value at line 1 column 0"),
            "not valid JSON (EOF while parsing a value at line 1 column 0)"
        );
        assert_eq!(
            not_valid_json("expected value at line 1 column 1", false),
            "Invalid RTVI message: not valid JSON (expected value at line 1 column 1); its id \
             could not be read. Send each message as one JSON object."
        );
        assert_eq!(
            not_valid_json("expected value at line 1 column 1", true),
            "Invalid RTVI message: not valid JSON (expected value at line 1 column 1). Send each \
             message as one JSON object."
        );
        assert_eq!(
            not_json_object("an array"),
            "Invalid RTVI message: not a JSON object (got an array). Send each message as one \
             JSON object."
        );
    }
}
