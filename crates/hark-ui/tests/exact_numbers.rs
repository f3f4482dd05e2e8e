//! A `ui-event` payload reaches the model with its numbers as written. An
//! integer beyond 64 bits (`12345678901234567890123`) used to reach it as a float
//! (`1.2345678901234568e+22`); pipecat-ai 1.14.0 keeps Python's exact integer. The expected text
//! below is pipecat's own `UIWorker.render_ui_event` of the same payload (`json.loads` then
//! `json.dumps`): digits kept, `-0` as `0`, floats as `repr`, a repeated key in its first place
//! with its last value, non-ASCII escaped.

use hark_rtvi::{ClientMessage, parse_client_message};
use hark_ui::render_ui_event_payload;

const PAYLOAD: &str = r#"{"n": 12345678901234567890123, "f": 1.5, "s": "12345678901234567890123", "neg": -98765432109876543210, "z": -0, "nested": [1, {"m": 123456789012345678901, "m": 7}, 1e3], "u": "é"}"#;

/// pipecat 1.14's rendering of [`PAYLOAD`].
const PIPECAT: &str = r#"<ui_event name="big">{"n": 12345678901234567890123, "f": 1.5, "s": "12345678901234567890123", "neg": -98765432109876543210, "z": 0, "nested": [1, {"m": 7}, 1000.0], "u": "\u00e9"}</ui_event>"#;

fn event_from_the_wire(payload: &str) -> hark_rtvi::UiEvent {
    let wire = format!(
        r#"{{"label":"rtvi-ai","type":"ui-event","id":"u1","data":{{"event":"big","payload":{payload}}}}}"#
    );
    match parse_client_message(&wire)
        .expect("a valid ui-event")
        .message
    {
        ClientMessage::UiEvent(event) => event,
        other => panic!("not a ui-event: {other:?}"),
    }
}

#[test]
fn integers_beyond_64_bits_reach_the_model_as_written() {
    let event = event_from_the_wire(PAYLOAD);
    assert_eq!(
        render_ui_event_payload(&event.event, event.payload.as_ref()),
        PIPECAT
    );
}

#[test]
fn payloads_without_wide_integers_render_as_before() {
    let event = event_from_the_wire(r#"{"view": "home", "n": 123456789012345678, "x": 0.1}"#);
    let payload = event.payload.as_ref().expect("a payload");
    assert_eq!(
        payload.exact_text(),
        None,
        "no text kept: the value is exact"
    );
    assert_eq!(
        render_ui_event_payload(&event.event, Some(payload)),
        r#"<ui_event name="big">{"view": "home", "n": 123456789012345678, "x": 0.1}</ui_event>"#
    );
}
