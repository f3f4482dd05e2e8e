//! Every `ParseError` and its text: a wrong label, unknown types, `data` that does not fit, a
//! `ui-event` naming its event in `name`, garbage.

use hark_rtvi::{ParseError, ServerMessage, parse_client_message};

fn err(json: &str) -> ParseError {
    parse_client_message(json).expect_err(json)
}

fn env(type_: &str, data: &str) -> String {
    format!(r#"{{"label":"rtvi-ai","type":"{type_}","id":"abc12345","data":{data}}}"#)
}

#[test]
fn unsupported_type_text_and_id() {
    let e = err(&env("foo", "{}"));
    assert_eq!(
        e,
        ParseError::UnsupportedType {
            id: Some("abc12345".into()),
            type_: "foo".into()
        }
    );
    assert_eq!(e.to_string(), "Unsupported type foo");
    // The answer is exactly pipecat's error-response for an unknown type.
    let reply = e.error_response().unwrap();
    assert_eq!(
        reply.to_json(e.id()),
        r#"{"label":"rtvi-ai","type":"error-response","id":"abc12345","data":{"error":"Unsupported type foo"}}"#
    );
}

#[test]
fn server_types_sent_by_a_client_are_unsupported() {
    assert_eq!(
        err(&env("ui-command", "{}")).to_string(),
        "Unsupported type ui-command"
    );
    assert_eq!(
        err(&env("bot-ready", "{}")).to_string(),
        "Unsupported type bot-ready"
    );
}

#[test]
fn invalid_names_the_json_path() {
    let cases = [
        (
            env("send-text", "{}"),
            "Invalid message: data.content: missing field",
        ),
        (
            env("send-text", r#"{"content":5}"#),
            "Invalid message: data.content: expected a string, got a number",
        ),
        (
            r#"{"label":"rtvi-ai","type":"send-text","id":"abc12345"}"#.to_string(),
            "Invalid message: data.content: missing field",
        ),
        (
            env("send-text", r#""hi""#),
            "Invalid message: data: expected an object, got a string",
        ),
        (
            env("send-text", r#"{"content":"x","options":[]}"#),
            "Invalid message: data.options: expected an object, got an array",
        ),
        (
            env(
                "send-text",
                r#"{"content":"x","options":{"run_immediately":"yes"}}"#,
            ),
            "Invalid message: data.options.run_immediately: expected a boolean or null, got a string",
        ),
        (
            env("client-message", r#"{"d":1}"#),
            "Invalid message: data.t: missing field",
        ),
        (
            env("client-ready", r#"{"version":2}"#),
            "Invalid message: data.version: expected a string or null, got a number",
        ),
        (
            env("ui-cancel-job-group", "{}"),
            "Invalid message: data.job_id: missing field",
        ),
        (
            env("ui-cancel-job-group", r#"{"job_id":"J","reason":false}"#),
            "Invalid message: data.reason: expected a string or null, got a boolean",
        ),
        (
            env("ui-event", "{}"),
            "Invalid message: data.event: missing field",
        ),
        (
            env("ui-event", r#"{"event":null}"#),
            "Invalid message: data.event: expected a string, got null",
        ),
        (
            env("ui-snapshot", "{}"),
            "Invalid message: data.tree: missing field",
        ),
        (
            env(
                "ui-snapshot",
                r#"{"tree":{"root":{"ref":"e1","role":"generic"}}}"#,
            ),
            "Invalid message: data.tree.captured_at: missing field",
        ),
        (
            env(
                "ui-snapshot",
                r#"{"tree":{"root":{"ref":"e1","role":"generic","children":[{"ref":"e2","role":"x"},{"ref":"e3"}]},"captured_at":1}}"#,
            ),
            "Invalid message: data.tree.root.children[1].role: missing field",
        ),
        (
            env(
                "ui-snapshot",
                r#"{"tree":{"root":{"ref":"e1","role":"generic","state":["focused",3]},"captured_at":1}}"#,
            ),
            "Invalid message: data.tree.root.state[1]: expected a string, got a number",
        ),
        (
            env(
                "ui-snapshot",
                r#"{"tree":{"root":{"ref":"e1","role":"g"},"captured_at":1,"selection":{"ref":"e1"}}}"#,
            ),
            "Invalid message: data.tree.selection.text: missing field",
        ),
        (
            r#"{"label":"rtvi-ai","id":"abc12345","data":{}}"#.to_string(),
            "Invalid message: type: missing field",
        ),
        (
            r#"{"label":"rtvi-ai","type":7,"id":"abc12345"}"#.to_string(),
            "Invalid message: type: expected a string, got a number",
        ),
        (
            r#"{"label":"rtvi-ai","type":"send-text","id":{},"data":{"content":"x"}}"#.to_string(),
            "Invalid message: id: expected a string, got an object",
        ),
    ];
    for (json, text) in cases {
        let e = err(&json);
        assert!(matches!(e, ParseError::Invalid { .. }), "{json}: {e:?}");
        assert_eq!(e.to_string(), text, "{json}");
        assert_eq!(
            e.error_response(),
            Some(ServerMessage::ErrorResponse {
                error: text.to_string()
            })
        );
    }
}

#[test]
fn invalid_keeps_the_id_and_type_for_the_error_response() {
    let e = err(&env("send-text", "{}"));
    assert_eq!(
        e,
        ParseError::Invalid {
            id: Some("abc12345".into()),
            type_: "send-text".into(),
            detail: "data.content: missing field".into()
        }
    );
    assert_eq!(e.id(), Some("abc12345"));
}

#[test]
fn p2_ui_event_with_name_instead_of_event_says_so() {
    let e = err(&env(
        "ui-event",
        r#"{"name":"note_click","payload":{"ref":"e12"}}"#,
    ));
    assert_eq!(
        e.to_string(),
        r#"Invalid message: data.event is required (ui-event names its event in "event", not "name")"#
    );
    assert_eq!(e.id(), Some("abc12345"));
    // With both, `event` wins and `name` is ignored like any unknown field.
    let ok =
        parse_client_message(&env("ui-event", r#"{"name":"x","event":"note_click"}"#)).unwrap();
    let hark_rtvi::ClientMessage::UiEvent(ev) = ok.message else {
        panic!()
    };
    assert_eq!(ev.event, "note_click");
}

#[test]
fn wrong_label_is_ignored_not_answered() {
    let e = err(r#"{"label":"other","type":"client-ready","id":"1"}"#);
    assert_eq!(e, ParseError::WrongLabel("other".into()));
    assert_eq!(
        e.to_string(),
        r#"Ignoring message with label "other": RTVI messages have label "rtvi-ai""#
    );
    assert_eq!(e.error_response(), None);
    assert_eq!(
        err(r#"{"type":"client-ready"}"#),
        ParseError::WrongLabel(String::new())
    );
    assert_eq!(
        err(r#"{"label":1,"type":"client-ready"}"#),
        ParseError::WrongLabel("1".into())
    );
}

#[test]
fn p3_not_json_and_not_an_object() {
    let e = err("hello");
    assert_eq!(
        e,
        ParseError::NotJson {
            id: None,
            type_: None,
            detail: "expected value at line 1 column 1".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "Invalid RTVI message: not valid JSON (expected value at line 1 column 1); its id could \
         not be read. Send each message as one JSON object."
    );
    assert_eq!(e.error_response(), None);
    assert_eq!(e.id(), None);
    assert_eq!(
        err("[1,2]").to_string(),
        "Invalid RTVI message: not a JSON object (got an array). Send each message as one JSON object."
    );
    assert_eq!(err("[1,2]"), ParseError::NotObject("an array".into()));
    assert_eq!(err(r#""x""#), ParseError::NotObject("a string".into()));
    assert_eq!(err("null"), ParseError::NotObject("null".into()));
    assert_eq!(
        err("").to_string(),
        "Invalid RTVI message: not valid JSON (EOF while parsing a value at line 1 column 0); its \
         id could not be read. Send each message as one JSON object."
    );
    assert!(matches!(
        err(r#"{"label":"rtvi-ai","#),
        ParseError::NotJson { id: None, .. }
    ));
    // Trailing text after the object is not valid JSON either.
    assert!(matches!(
        err(r#"{"label":"rtvi-ai","type":"disconnect-bot"} x"#),
        ParseError::NotJson { .. }
    ));
}

#[test]
fn numeric_ids_are_read_as_text_and_missing_ids_are_none() {
    let m = parse_client_message(r#"{"label":"rtvi-ai","type":"disconnect-bot","id":42}"#).unwrap();
    assert_eq!(m.id.as_deref(), Some("42"));
    let m = parse_client_message(r#"{"label":"rtvi-ai","type":"disconnect-bot"}"#).unwrap();
    assert_eq!(m.id, None);
}

#[test]
fn unknown_fields_in_data_are_ignored() {
    let m = parse_client_message(&env("send-text", r#"{"content":"hi","extra":1}"#)).unwrap();
    let hark_rtvi::ClientMessage::SendText(t) = m.message else {
        panic!()
    };
    assert_eq!(t.content, "hi");
}
