//! Handshake version rules (pipecat's, with its warning texts) and `bot-ready` construction.

use hark_rtvi::{PROTOCOL_VERSION, ServerMessage, VersionCheck, check_client_version};

#[test]
fn protocol_constants() {
    // pipecat-ai 1.14.0's `RTVI.PROTOCOL_VERSION`.
    assert_eq!(PROTOCOL_VERSION, "2.2.0");
    assert_eq!(hark_rtvi::LABEL, "rtvi-ai");
}

#[test]
fn same_major_is_compatible() {
    for v in ["2.1.0", "2.0.0", "2.2.0", "2.99.7"] {
        assert_eq!(
            check_client_version(Some(v)),
            VersionCheck::Compatible,
            "{v}"
        );
    }
}

#[test]
fn major_1_is_legacy_and_bot_ready_echoes_the_client_version() {
    let check = check_client_version(Some("1.3.0"));
    assert_eq!(
        check,
        VersionCheck::Legacy {
            client_version: "1.3.0".into()
        }
    );
    assert!(check.is_legacy());
    assert_eq!(check.warning(), None);
    assert_eq!(
        ServerMessage::bot_ready(&check, "0.1.0").to_json(Some("a1b2c3d4")),
        r#"{"label":"rtvi-ai","type":"bot-ready","id":"a1b2c3d4","data":{"version":"1.3.0","about":{"library":"hark","library_version":"0.1.0"},"capabilities":{"audio_in":false,"audio_out":false,"video_in":false,"screen_in":false,"video_out":false,"metrics":false}}}"#
    );
}

#[test]
fn other_majors_warn_with_pipecats_text() {
    let check = check_client_version(Some("0.3.0"));
    assert_eq!(
        check.warning(),
        Some(
            "RTVI version 0.3.0 is not compatible with server protocol 2.2.0. Compatibility issues may occur."
        )
    );
    assert!(!check.is_legacy());
    assert_eq!(check.bot_ready_version(), "2.2.0");
    assert_eq!(
        check_client_version(Some("3.0.0")).warning(),
        Some(
            "RTVI version 3.0.0 is not compatible with server protocol 2.2.0. Compatibility issues may occur."
        )
    );
}

#[test]
fn unparsable_versions_warn_with_pipecats_text() {
    assert_eq!(
        check_client_version(Some("1.2")).warning(),
        Some("Invalid client version format (1.2). Compatibility issues may occur.")
    );
    for v in ["", "2.1.0-beta", "v2.1.0", "2.1.0.0", "two"] {
        assert_eq!(
            check_client_version(Some(v)),
            VersionCheck::Warn {
                message: format!(
                    "Invalid client version format ({v}). Compatibility issues may occur."
                )
            },
            "{v:?}"
        );
    }
}

#[test]
fn missing_version_warns_unknown() {
    let check = check_client_version(None);
    assert_eq!(
        check.warning(),
        Some("Client version unknown. Compatibility issues may occur.")
    );
    // The session still proceeds: bot-ready carries our version.
    assert_eq!(
        ServerMessage::bot_ready(&check, "0.1.0"),
        ServerMessage::BotReady {
            version: "2.2.0".into(),
            about: Some(hark_rtvi::About {
                library: "hark".into(),
                library_version: Some("0.1.0".into()),
                ..Default::default()
            }),
            capabilities: Some(hark_rtvi::BotCapabilities::HARK),
        }
    );
}

#[test]
fn compatible_bot_ready_carries_our_version_and_capabilities() {
    let check = check_client_version(Some("2.1.0"));
    assert_eq!(
        ServerMessage::bot_ready(&check, "0.1.0").to_json(Some("x")),
        r#"{"label":"rtvi-ai","type":"bot-ready","id":"x","data":{"version":"2.2.0","about":{"library":"hark","library_version":"0.1.0"},"capabilities":{"audio_in":false,"audio_out":false,"video_in":false,"screen_in":false,"video_out":false,"metrics":false}}}"#
    );
}

/// pipecat-ai 1.14.0's own `RTVI.BotReady(...).model_dump_json(exclude_none=True)` for the same
/// version, about and an all-false `BotCapabilities`, byte for byte.
#[test]
fn bot_ready_is_pipecat_1_14s_bytes() {
    let check = check_client_version(Some("2.2.0"));
    assert_eq!(
        ServerMessage::bot_ready(&check, "0.1.0").to_json(Some("a1b2c3d4")),
        r#"{"label":"rtvi-ai","type":"bot-ready","id":"a1b2c3d4","data":{"version":"2.2.0","about":{"library":"hark","library_version":"0.1.0"},"capabilities":{"audio_in":false,"audio_out":false,"video_in":false,"screen_in":false,"video_out":false,"metrics":false}}}"#
    );
}
