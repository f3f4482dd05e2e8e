//! JSON round trips of every message example of pipecat's RTVI protocol (the basic messages, the
//! UI channel's messages, the UI command payloads), copied verbatim into `tests/fixtures/`, plus
//! the wire shape of every server message type.

use hark_rtvi::message::{SpokenProgress, SpokenStatus};
use hark_rtvi::ui::{CommandPayload, ScrollBehavior, ScrollTo, SetInputValue, Toast};
use hark_rtvi::{
    ClientMessage, ClientMessageData, ClientReadyData, JobGroupEnvelope, JobStatus, SendTextData,
    ServerMessage, UiCancelJobGroup, UiCommand, UiEvent, parse_client_message,
    parse_server_message,
};
use serde_json::{Value, json};

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim().is_empty())
}

fn value(s: &str) -> Value {
    serde_json::from_str(s).expect("test JSON")
}

#[test]
fn every_client_example_round_trips() {
    let examples = include_str!("fixtures/client_examples.jsonl");
    let mut types = Vec::new();
    for line in lines(examples) {
        let inbound = parse_client_message(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let out = inbound.message.to_json(inbound.id.as_deref());
        assert_eq!(value(&out), value(line), "round trip of {line}");
        assert_eq!(out, line, "key order of {line}");
        types.push(inbound.message.type_name());
    }
    assert_eq!(
        types,
        [
            "client-ready",
            "send-text",
            "ui-event",
            "ui-snapshot",
            "ui-cancel-job-group"
        ]
    );
}

#[test]
fn every_server_example_round_trips_byte_for_byte() {
    let examples = include_str!("fixtures/server_examples.jsonl");
    let mut n = 0;
    for line in lines(examples) {
        let (id, message) = parse_server_message(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(message.to_json(id.as_deref()), line);
        n += 1;
    }
    assert_eq!(n, 10);
}

#[test]
fn client_examples_parse_to_the_typed_values() {
    let examples: Vec<_> = lines(include_str!("fixtures/client_examples.jsonl")).collect();
    let ready = parse_client_message(examples[0]).unwrap();
    assert_eq!(ready.id.as_deref(), Some("a1b2c3d4"));
    let ClientMessage::ClientReady(ClientReadyData { version, about }) = ready.message else {
        panic!("not client-ready")
    };
    assert_eq!(version.as_deref(), Some("2.1.0"));
    assert_eq!(about.unwrap()["library"], "@pipecat-ai/client-js");

    let ClientMessage::SendText(text) = parse_client_message(examples[1]).unwrap().message else {
        panic!("not send-text")
    };
    assert_eq!(text.content, "hi");
    assert!(
        text.run_immediately() && text.audio_response(),
        "defaults are true"
    );

    let ClientMessage::UiEvent(ev) = parse_client_message(examples[2]).unwrap().message else {
        panic!("not ui-event")
    };
    assert_eq!(
        ev,
        UiEvent {
            event: "note_click".into(),
            payload: Some(json!({"ref":"e12"}).into())
        }
    );

    let ClientMessage::UiSnapshot(snap) = parse_client_message(examples[3]).unwrap().message else {
        panic!("not ui-snapshot")
    };
    assert_eq!(snap.captured_at, 1_767_225_600_000);
    assert_eq!(snap.root.children[0].name.as_deref(), Some("Save"));

    let ClientMessage::UiCancelJobGroup(c) = parse_client_message(examples[4]).unwrap().message
    else {
        panic!("not ui-cancel-job-group")
    };
    assert_eq!(c.job_id, "9c1e…");
    assert_eq!(c.reason_or_default(), "user closed card");
}

#[test]
fn send_text_options_are_read() {
    let m = parse_client_message(
        r#"{"label":"rtvi-ai","type":"send-text","id":"1","data":{"content":"hi","options":{"run_immediately":false,"audio_response":false}}}"#,
    )
    .unwrap();
    let ClientMessage::SendText(t) = m.message else {
        panic!()
    };
    assert!(!t.run_immediately());
    assert!(!t.audio_response());
}

#[test]
fn every_client_message_type_round_trips() {
    let all = [
        ClientMessage::ClientReady(ClientReadyData {
            version: Some("2.1.0".into()),
            about: None,
        }),
        ClientMessage::SendText(SendTextData {
            content: "hi".into(),
            options: None,
        }),
        ClientMessage::ClientMessage(ClientMessageData {
            t: "get_cart".into(),
            d: Some(json!({"x": null, "n": 1}).into()),
        }),
        ClientMessage::UiEvent(UiEvent {
            event: "nav_click".into(),
            payload: None,
        }),
        ClientMessage::UiCancelJobGroup(UiCancelJobGroup {
            job_id: "J1".into(),
            reason: None,
        }),
        ClientMessage::DisconnectBot,
        ClientMessage::Dtmf(hark_rtvi::DtmfData {
            buttons: vec!['5', '#'],
        }),
        ClientMessage::LlmFunctionCallResult(json!({"function_name": "f", "result": {}})),
        ClientMessage::RawAudio(json!({"base64Audio": "AAA=", "sampleRate": 16000})),
        ClientMessage::RawAudioBatch(json!({"base64AudioBatch": []})),
    ];
    for m in all {
        let text = m.to_json(Some("abcd1234"));
        let back = parse_client_message(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.id.as_deref(), Some("abcd1234"));
        assert_eq!(back.message, m, "{text}");
    }
    assert_eq!(
        ClientMessage::DisconnectBot.to_json(Some("1")),
        r#"{"label":"rtvi-ai","type":"disconnect-bot","id":"1"}"#
    );
}

#[test]
fn every_server_message_type_has_its_wire_shape() {
    let t = |s: &str| s.to_string();
    let mut types = std::collections::BTreeSet::new();
    let cases: Vec<(ServerMessage, &str)> = vec![
        (
            ServerMessage::BotReady {
                version: t("2.1.0"),
                about: None,
                capabilities: None,
            },
            r#"{"label":"rtvi-ai","type":"bot-ready","id":"r1","data":{"version":"2.1.0"}}"#,
        ),
        (
            ServerMessage::ErrorResponse { error: t("x") },
            r#"{"label":"rtvi-ai","type":"error-response","id":"r1","data":{"error":"x"}}"#,
        ),
        (
            ServerMessage::Error {
                error: t("LLM failed"),
                fatal: true,
            },
            r#"{"label":"rtvi-ai","type":"error","id":"r1","data":{"error":"LLM failed","fatal":true}}"#,
        ),
        (
            ServerMessage::ServerResponse {
                t: t("get_cart"),
                d: Some(json!({"items": [], "note": null}).into()),
            },
            r#"{"label":"rtvi-ai","type":"server-response","id":"r1","data":{"t":"get_cart","d":{"items":[],"note":null}}}"#,
        ),
        (
            ServerMessage::ServerResponse {
                t: t("ping"),
                d: None,
            },
            r#"{"label":"rtvi-ai","type":"server-response","id":"r1","data":{"t":"ping"}}"#,
        ),
        (
            ServerMessage::ServerMessage(json!({"kind": "hello", "x": null})),
            r#"{"label":"rtvi-ai","type":"server-message","id":"r1","data":{"kind":"hello","x":null}}"#,
        ),
        (
            ServerMessage::BotLlmText { text: t("Hel") },
            r#"{"label":"rtvi-ai","type":"bot-llm-text","id":"r1","data":{"text":"Hel"}}"#,
        ),
        (
            ServerMessage::BotTtsText { text: t("Hello") },
            r#"{"label":"rtvi-ai","type":"bot-tts-text","id":"r1","data":{"text":"Hello"}}"#,
        ),
        (
            ServerMessage::BotLlmStarted,
            r#"{"label":"rtvi-ai","type":"bot-llm-started","id":"r1"}"#,
        ),
        (
            ServerMessage::BotLlmStopped,
            r#"{"label":"rtvi-ai","type":"bot-llm-stopped","id":"r1"}"#,
        ),
        (
            ServerMessage::BotTtsStarted,
            r#"{"label":"rtvi-ai","type":"bot-tts-started","id":"r1"}"#,
        ),
        (
            ServerMessage::BotTtsStopped,
            r#"{"label":"rtvi-ai","type":"bot-tts-stopped","id":"r1"}"#,
        ),
        (
            ServerMessage::BotStartedSpeaking,
            r#"{"label":"rtvi-ai","type":"bot-started-speaking","id":"r1"}"#,
        ),
        (
            ServerMessage::BotStoppedSpeaking,
            r#"{"label":"rtvi-ai","type":"bot-stopped-speaking","id":"r1"}"#,
        ),
        (
            ServerMessage::UserStartedSpeaking,
            r#"{"label":"rtvi-ai","type":"user-started-speaking","id":"r1"}"#,
        ),
        (
            ServerMessage::UserStoppedSpeaking,
            r#"{"label":"rtvi-ai","type":"user-stopped-speaking","id":"r1"}"#,
        ),
        (
            ServerMessage::UserMuteStarted,
            r#"{"label":"rtvi-ai","type":"user-mute-started","id":"r1"}"#,
        ),
        (
            ServerMessage::UserMuteStopped,
            r#"{"label":"rtvi-ai","type":"user-mute-stopped","id":"r1"}"#,
        ),
        (
            ServerMessage::BotInterrupted,
            r#"{"label":"rtvi-ai","type":"bot-interrupted","id":"r1"}"#,
        ),
        (
            ServerMessage::UserTranscription {
                text: t("hi"),
                user_id: t("u1"),
                timestamp: t("2026-01-01T00:00:00Z"),
                r#final: true,
            },
            r#"{"label":"rtvi-ai","type":"user-transcription","id":"r1","data":{"text":"hi","user_id":"u1","timestamp":"2026-01-01T00:00:00Z","final":true}}"#,
        ),
        (
            ServerMessage::UserLlmText { text: t("hi") },
            r#"{"label":"rtvi-ai","type":"user-llm-text","id":"r1","data":{"text":"hi"}}"#,
        ),
        (
            ServerMessage::BotTranscription { text: t("hi") },
            r#"{"label":"rtvi-ai","type":"bot-transcription","id":"r1","data":{"text":"hi"}}"#,
        ),
        (
            ServerMessage::Metrics(json!({"ttfb": []})),
            r#"{"label":"rtvi-ai","type":"metrics","id":"r1","data":{"ttfb":[]}}"#,
        ),
        (
            ServerMessage::BotOutput {
                text: t("Hi."),
                aggregated_by: t("sentence"),
                segment_id: None,
                will_be_spoken: None,
                spoken_status: Some(SpokenStatus::InProgress),
                spoken_progress: Some(SpokenProgress {
                    accumulated_text: t("H"),
                    remaining_text: t("i."),
                }),
                spoken: None,
            },
            r#"{"label":"rtvi-ai","type":"bot-output","id":"r1","data":{"text":"Hi.","aggregated_by":"sentence","spoken_status":"in-progress","spoken_progress":{"accumulated_text":"H","remaining_text":"i."}}}"#,
        ),
        (
            ServerMessage::BotOutput {
                text: t("Hi."),
                aggregated_by: t("sentence"),
                segment_id: None,
                will_be_spoken: None,
                spoken_status: None,
                spoken_progress: None,
                spoken: Some(true),
            },
            r#"{"label":"rtvi-ai","type":"bot-output","id":"r1","data":{"text":"Hi.","aggregated_by":"sentence","spoken":true}}"#,
        ),
        (
            ServerMessage::UiCommand(UiCommand::click("e3")),
            r#"{"label":"rtvi-ai","type":"ui-command","id":"r1","data":{"command":"click","payload":{"ref":"e3","target_id":null}}}"#,
        ),
        (
            ServerMessage::UiJobGroup(JobGroupEnvelope::GroupCompleted {
                job_id: t("J"),
                at: 5,
            }),
            r#"{"label":"rtvi-ai","type":"ui-job-group","id":"r1","data":{"kind":"group_completed","job_id":"J","at":5}}"#,
        ),
    ];
    for (message, wire) in cases {
        let out = message.to_json(Some("r1"));
        assert_eq!(out, wire);
        let (id, back) = parse_server_message(&out).unwrap_or_else(|e| panic!("{out}: {e}"));
        assert_eq!(id.as_deref(), Some("r1"));
        assert_eq!(back, message);
        assert!(wire.contains(&format!(r#""type":"{}""#, message.type_name())));
        types.insert(message.type_name());
    }
    assert_eq!(
        types.len(),
        25,
        "every ServerMessage variant has a case: {types:?}"
    );
}

#[test]
fn id_is_omitted_when_none() {
    let out = ServerMessage::BotStartedSpeaking.to_json(None);
    assert_eq!(out, r#"{"label":"rtvi-ai","type":"bot-started-speaking"}"#);
}

#[test]
fn to_frame_wraps_to_json_in_a_message_frame() {
    let m = ServerMessage::ErrorResponse {
        error: "Unsupported type foo".into(),
    };
    let frame = hark_rtvi::decode_frame(&m.to_frame(Some("a1b2c3d4"))).unwrap();
    assert_eq!(
        frame.message_json(),
        Some(m.to_json(Some("a1b2c3d4")).as_str())
    );
    let c = ClientMessage::DisconnectBot;
    let frame = hark_rtvi::decode_frame(&c.to_frame(None)).unwrap();
    assert_eq!(frame.message_json(), Some(c.to_json(None).as_str()));
}

// ---- ui-command payloads: every key present, nulls kept ----

#[test]
fn scroll_to_keeps_nulls_like_model_dump() {
    let cmd = UiCommand::scroll_to("e42");
    assert_eq!(
        serde_json::to_string(&cmd.payload).unwrap(),
        r#"{"ref":"e42","target_id":null,"behavior":null}"#
    );
    assert_eq!(
        ServerMessage::UiCommand(cmd).to_json(None),
        r#"{"label":"rtvi-ai","type":"ui-command","data":{"command":"scroll_to","payload":{"ref":"e42","target_id":null,"behavior":null}}}"#
    );
}

#[test]
fn set_input_value_matches_the_spec_example() {
    let cmd = UiCommand::set_input_value("e5", "ana@example.com");
    assert_eq!(
        serde_json::to_string(&cmd).unwrap(),
        r#"{"command":"set_input_value","payload":{"value":"ana@example.com","ref":"e5","target_id":null,"replace":true}}"#
    );
    // replace defaults to true when deserialising too.
    let p: SetInputValue = serde_json::from_str(r#"{"ref":"e5"}"#).unwrap();
    assert!(p.replace);
    assert_eq!(p.value, "");
}

#[test]
fn every_standard_command_payload_has_all_keys() {
    let cases = [
        (
            UiCommand::scroll_to("e1"),
            "scroll_to",
            r#"{"ref":"e1","target_id":null,"behavior":null}"#,
        ),
        (
            UiCommand::highlight("e1"),
            "highlight",
            r#"{"ref":"e1","target_id":null,"duration_ms":null}"#,
        ),
        (
            UiCommand::focus("e1"),
            "focus",
            r#"{"ref":"e1","target_id":null}"#,
        ),
        (
            UiCommand::click("e1"),
            "click",
            r#"{"ref":"e1","target_id":null}"#,
        ),
        (
            UiCommand::set_input_value("e1", "x"),
            "set_input_value",
            r#"{"value":"x","ref":"e1","target_id":null,"replace":true}"#,
        ),
        (
            UiCommand::select_text("e1", Some(0), Some(6)),
            "select_text",
            r#"{"ref":"e1","target_id":null,"start_offset":0,"end_offset":6}"#,
        ),
        (
            UiCommand::select_text("e1", None, None),
            "select_text",
            r#"{"ref":"e1","target_id":null,"start_offset":null,"end_offset":null}"#,
        ),
        (
            UiCommand::toast("Saved"),
            "toast",
            r#"{"title":"Saved","subtitle":null,"description":null,"image_url":null,"duration_ms":null}"#,
        ),
        (
            UiCommand::navigate("home", None),
            "navigate",
            r#"{"view":"home","params":null}"#,
        ),
    ];
    for (cmd, name, payload) in cases {
        assert_eq!(cmd.command, name);
        assert_eq!(
            serde_json::to_string(&cmd.payload).unwrap(),
            payload,
            "{name}"
        );
    }
    let smooth: UiCommand = ScrollTo {
        ref_: Some("e2".into()),
        target_id: None,
        behavior: Some(ScrollBehavior::Instant),
    }
    .into();
    assert_eq!(
        smooth.payload,
        json!({"ref":"e2","target_id":null,"behavior":"instant"})
    );
    assert_eq!(Toast::COMMAND, "toast");
    let custom = UiCommand::new("add_note", json!({"text": "hi", "at": null}));
    assert_eq!(
        ServerMessage::UiCommand(custom).to_json(None),
        r#"{"label":"rtvi-ai","type":"ui-command","data":{"command":"add_note","payload":{"text":"hi","at":null}}}"#
    );
}

// ---- ui-job-group envelopes ----

#[test]
fn job_group_envelopes_built_in_rust_match_the_examples() {
    let examples: Vec<_> = lines(include_str!("fixtures/server_examples.jsonl"))
        .skip(6)
        .collect();
    let built = [
        JobGroupEnvelope::GroupStarted {
            job_id: "J1".into(),
            workers: vec!["clarity".into(), "tone".into()],
            label: Some("Reviewing ¶ e7".into()),
            cancellable: true,
            at: 1_767_225_600_123,
        },
        JobGroupEnvelope::JobUpdate {
            job_id: "J1".into(),
            worker_name: "tone".into(),
            data: Some(json!({"text": "checking tone"})),
            at: 1_767_225_600_500,
        },
        JobGroupEnvelope::JobCompleted {
            job_id: "J1".into(),
            worker_name: "tone".into(),
            status: JobStatus::Completed,
            response: Some(json!({"feedback": "Tone reads as measured."})),
            at: 1_767_225_601_200,
        },
        JobGroupEnvelope::GroupCompleted {
            job_id: "J1".into(),
            at: 1_767_225_601_300,
        },
    ];
    assert_eq!(examples.len(), built.len());
    for (env, wire) in built.into_iter().zip(examples) {
        assert_eq!(ServerMessage::UiJobGroup(env).to_json(None), wire);
    }
}

#[test]
fn job_group_label_and_response_are_omitted_when_none() {
    let started = JobGroupEnvelope::GroupStarted {
        job_id: "J".into(),
        workers: vec![],
        label: None,
        cancellable: false,
        at: 1,
    };
    assert_eq!(
        serde_json::to_string(&started).unwrap(),
        r#"{"kind":"group_started","job_id":"J","workers":[],"cancellable":false,"at":1}"#
    );
    let cancelled = JobGroupEnvelope::JobCompleted {
        job_id: "J".into(),
        worker_name: "w".into(),
        status: JobStatus::Cancelled,
        response: None,
        at: 2,
    };
    assert_eq!(
        serde_json::to_string(&cancelled).unwrap(),
        r#"{"kind":"job_completed","job_id":"J","worker_name":"w","status":"cancelled","at":2}"#
    );
}

#[test]
fn job_status_values_are_the_four_of_pipecat() {
    let all = [
        JobStatus::Completed,
        JobStatus::Cancelled,
        JobStatus::Failed,
        JobStatus::Error,
    ];
    let names: Vec<String> = all
        .iter()
        .map(|s| serde_json::to_string(s).unwrap())
        .collect();
    assert_eq!(
        names,
        [
            r#""completed""#,
            r#""cancelled""#,
            r#""failed""#,
            r#""error""#
        ]
    );
    assert!(serde_json::from_str::<JobStatus>(r#""running""#).is_err());
}

#[test]
fn group_started_defaults_when_fields_are_absent_or_null() {
    let env: JobGroupEnvelope =
        serde_json::from_str(r#"{"kind":"group_started","job_id":"J","workers":null,"at":1}"#)
            .unwrap();
    assert_eq!(
        env,
        JobGroupEnvelope::GroupStarted {
            job_id: "J".into(),
            workers: vec![],
            label: None,
            cancellable: true,
            at: 1
        }
    );
}
