//! `dtmf` is read as pipecat-ai 1.14.0 reads it (`DTMFInputData`:
//! `buttons`, a list of at least one keypad key). Each case below was run through pipecat's own
//! `RTVI.DTMFInputData.model_validate`: what it accepts is accepted here with the same keys, what
//! it refuses is refused here with a detail naming the place and what to send.

use hark_rtvi::{ClientMessage, ParseError, parse_client_message};
use serde_json::{Value, json};

fn parse(data: Option<Value>) -> Result<String, String> {
    let mut env = json!({"label": "rtvi-ai", "type": "dtmf", "id": "d1"});
    if let Some(data) = data {
        env["data"] = data;
    }
    match parse_client_message(&env.to_string()) {
        Ok(inbound) => match inbound.message {
            ClientMessage::Dtmf(d) => Ok(d.keys()),
            other => panic!("not a dtmf: {other:?}"),
        },
        Err(e) => {
            assert!(
                matches!(&e, ParseError::Invalid { id: Some(id), .. } if id == "d1"),
                "{e:?}"
            );
            assert!(
                e.error_response().is_some(),
                "answered with an error-response"
            );
            Err(e.to_string())
        }
    }
}

#[test]
fn the_keys_pipecat_accepts_are_read_in_order() {
    assert_eq!(parse(Some(json!({"buttons": ["1"]}))), Ok("1".into()));
    assert_eq!(
        parse(Some(json!({"buttons": ["1", "#", "*"]}))),
        Ok("1#*".into())
    );
    assert_eq!(
        parse(Some(json!({"buttons": ["0", "9"], "x": 2}))),
        Ok("09".into()),
        "other fields are ignored"
    );
}

#[test]
fn what_pipecat_refuses_gets_an_error_response_naming_the_problem() {
    let key_help = r##"send each key as its own string: "0" to "9", "*" or "#""##;
    let cases: Vec<(Option<Value>, String)> = vec![
        (
            Some(json!({"buttons": [1]})),
            format!("Invalid message: data.buttons[0]: a number is not a keypad key; {key_help}"),
        ),
        (
            Some(json!({"buttons": [true]})),
            format!("Invalid message: data.buttons[0]: a boolean is not a keypad key; {key_help}"),
        ),
        (
            Some(json!({"buttons": ["1", "12"]})),
            format!("Invalid message: data.buttons[1]: \"12\" is not a keypad key; {key_help}"),
        ),
        (
            Some(json!({"buttons": [" 1"]})),
            format!("Invalid message: data.buttons[0]: \" 1\" is not a keypad key; {key_help}"),
        ),
        (
            Some(json!({"buttons": ["a"]})),
            format!("Invalid message: data.buttons[0]: \"a\" is not a keypad key; {key_help}"),
        ),
        (
            Some(json!({"buttons": "123"})),
            "Invalid message: data.buttons: expected an array of keypad keys, got a string".into(),
        ),
        (
            Some(json!({"buttons": null})),
            "Invalid message: data.buttons: expected an array of keypad keys, got null".into(),
        ),
        (
            Some(json!({"buttons": []})),
            "Invalid message: data.buttons: no keys; send at least one keypad key (\"0\" to \"9\", \"*\" or \"#\")".into(),
        ),
        (
            Some(json!({})),
            "Invalid message: data.buttons: missing field".into(),
        ),
        (
            Some(json!({"button": "1"})),
            "Invalid message: data.buttons: missing field (protocol 2.1.0 replaced \"button\" with \"buttons\", a list: send {\"buttons\": [\"1\"]})".into(),
        ),
        (
            None,
            "Invalid message: data: expected an object, got null".into(),
        ),
        (
            Some(json!("1")),
            "Invalid message: data: expected an object, got a string".into(),
        ),
    ];
    for (data, want) in cases {
        assert_eq!(parse(data.clone()), Err(want), "{data:?}");
    }
}

/// pipecat 1.14 no longer reads `append-to-context`: it answers `Unsupported type …`.
#[test]
fn append_to_context_is_unsupported_as_in_pipecat_1_14() {
    let e = parse_client_message(
        r#"{"label":"rtvi-ai","type":"append-to-context","id":"a1","data":{"role":"user","content":"x"}}"#,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "Unsupported type append-to-context");
    assert!(e.error_response().is_some());
}
