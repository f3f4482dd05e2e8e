//! WebSocket behaviour of `/ws` with a real client (tokio-tungstenite): the handshake and every
//! later message reaching the client, a `ui-event` that names its event in `name`, garbage on
//! the socket, pipecat's version rules, the handler seam, slow and silent clients, and graceful
//! shutdown.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures::future::BoxFuture;
use futures::{SinkExt, StreamExt};
use hark_rtvi::message::ServerMessage;
use hark_rtvi::ui::{JobGroupEnvelope, UiCommand};
use hark_server::{
    CloseCause, Outbox, ServerConfig, SessionEventKind, SessionHandler, SessionId, SessionInput,
    messages,
};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

fn local_config() -> ServerConfig {
    ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
}

/// `client-ready` → `bot-ready` with the same id, in a binary protobuf frame.
#[tokio::test]
async fn handshake_answers_bot_ready_with_the_same_id_in_a_binary_frame() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    send_json(
        &mut ws,
        &envelope(
            "client-ready",
            "a1b2c3d4",
            json!({"version": "2.1.0", "about": {"library": "@pipecat-ai/client-js", "library_version": "1.13.1"}}),
        ),
    )
    .await;
    // recv_json fails on anything but a binary pipecat.Frame.
    let ready = recv_json(&mut ws).await;
    assert_eq!(
        ready,
        json!({"label": "rtvi-ai", "type": "bot-ready", "id": "a1b2c3d4",
               "data": {"version": "2.2.0",
                        "about": {"library": "hark", "library_version": env!("CARGO_PKG_VERSION")},
                        "capabilities": {"audio_in": false, "audio_out": false, "video_in": false,
                                         "screen_in": false, "video_out": false, "metrics": false}}})
    );
    let (version, library) = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Ready {
            client_version,
            client_library,
        } => Some((client_version.clone(), client_library.clone())),
        _ => None,
    })
    .await;
    assert_eq!(version.as_deref(), Some("2.1.0"));
    assert_eq!(library.as_deref(), Some("@pipecat-ai/client-js"));
    server.stop().await;
}

/// Pipecat's version rules: version warnings come as an `error-response` with the client-ready
/// id before `bot-ready`; a 1.x client gets its own version echoed.
#[tokio::test]
async fn handshake_applies_the_version_rules() {
    let server = TestServer::local();
    let cases = [
        (
            json!({"version": "0.3.0"}),
            Some(
                "RTVI version 0.3.0 is not compatible with server protocol 2.2.0. Compatibility issues may occur.",
            ),
            "2.2.0",
        ),
        (
            json!({"version": "1.2"}),
            Some("Invalid client version format (1.2). Compatibility issues may occur."),
            "2.2.0",
        ),
        (
            json!({}),
            Some("Client version unknown. Compatibility issues may occur."),
            "2.2.0",
        ),
        (json!({"version": "1.0.0"}), None, "1.0.0"),
        (json!({"version": "2.9.1"}), None, "2.2.0"),
    ];
    for (n, (data, warning, bot_version)) in cases.into_iter().enumerate() {
        let mut ws = connect(&server).await;
        let id = format!("v{n}");
        send_json(&mut ws, &envelope("client-ready", &id, data)).await;
        if let Some(warning) = warning {
            let err = recv_json(&mut ws).await;
            assert_eq!(err["type"], "error-response", "{err}");
            assert_eq!(err["id"], id.as_str());
            assert_eq!(err["data"]["error"], warning);
        }
        let ready = recv_json(&mut ws).await;
        assert_eq!(ready["type"], "bot-ready", "{ready}");
        assert_eq!(ready["id"], id.as_str());
        assert_eq!(ready["data"]["version"], bot_version);
    }
    server.stop().await;
}

/// Every later server message reaches the client, in order, as binary frames.
#[tokio::test]
async fn every_server_message_reaches_the_client() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    let sent = vec![
        ServerMessage::UiCommand(UiCommand::set_input_value("e5", "ana@example.com")),
        ServerMessage::UiJobGroup(JobGroupEnvelope::GroupCompleted {
            job_id: "J1".into(),
            at: 1_767_225_601_300,
        }),
        ServerMessage::BotLlmStarted,
        ServerMessage::BotLlmText {
            text: "Hello".into(),
        },
        ServerMessage::BotOutput {
            text: "Hello there.".into(),
            aggregated_by: "sentence".into(),
            segment_id: Some(3),
            will_be_spoken: Some(true),
            spoken_status: None,
            spoken_progress: None,
            spoken: None,
        },
        ServerMessage::BotTtsText {
            text: "Hello there.".into(),
        },
        ServerMessage::BotLlmStopped,
        ServerMessage::ServerMessage(json!({"kind": "hello"})),
        ServerMessage::Error {
            error: "LLM failed".into(),
            fatal: false,
        },
    ];
    for m in &sent {
        server
            .sessions
            .send(id, m.clone())
            .await
            .expect("session open");
    }
    for m in &sent {
        let got = recv_json(&mut ws).await;
        let want: serde_json::Value = serde_json::from_str(&m.to_json(None)).unwrap();
        assert_eq!(got, want);
    }
    server.stop().await;
}

/// A text turn is answered with the no-agent line, framed like a Pipecat reply.
#[tokio::test]
async fn send_text_reaches_the_session_and_gets_the_no_agent_reply() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    send_json(
        &mut ws,
        &envelope(
            "send-text",
            "t1",
            json!({"content": "hello", "options": {"audio_response": false}}),
        ),
    )
    .await;
    let text = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::UserText(t) => Some(t.clone()),
        _ => None,
    })
    .await;
    assert_eq!(text, "hello");
    let line = messages::no_agent_reply();
    let mut types = Vec::new();
    for _ in 0..5 {
        let m = recv_json(&mut ws).await;
        match m["type"].as_str().unwrap() {
            "bot-llm-text" | "bot-transcription" => assert_eq!(m["data"]["text"], line.as_str()),
            "bot-output" => {
                assert_eq!(m["data"]["text"], line.as_str());
                assert_eq!(m["data"]["aggregated_by"], "sentence");
            }
            _ => {}
        }
        types.push(m["type"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        types,
        [
            "bot-llm-started",
            "bot-llm-text",
            "bot-output",
            "bot-transcription",
            "bot-llm-stopped"
        ]
    );
    server.stop().await;
}

/// `client-message` → `server-response` (for `ping`) or `error-response`, with the request id.
#[tokio::test]
async fn client_message_gets_server_response_or_error_response() {
    let server = TestServer::local();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    assert_alive(&mut ws, "c1").await;
    send_json(
        &mut ws,
        &envelope("client-message", "c2", json!({"t": "get-weather"})),
    )
    .await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(reply["type"], "error-response");
    assert_eq!(reply["id"], "c2");
    assert_eq!(
        reply["data"]["error"],
        messages::unhandled_client_message("get-weather").as_str()
    );
    // Missing `t`: the field is named.
    send_json(&mut ws, &envelope("client-message", "c3", json!({"d": 1}))).await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(reply["type"], "error-response");
    assert_eq!(reply["id"], "c3");
    assert_eq!(
        reply["data"]["error"],
        "Invalid message: data.t: missing field"
    );
    server.stop().await;
}

/// The server reads `event`; a `ui-event` with only `name` is refused naming `event`.
#[tokio::test]
async fn ui_event_with_name_only_is_refused_and_event_is_read() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    send_json(
        &mut ws,
        &envelope(
            "ui-event",
            "u1",
            json!({"name": "nav_click", "payload": {"view": "home"}}),
        ),
    )
    .await;
    let reply = recv_json(&mut ws).await;
    assert_eq!(reply["type"], "error-response", "{reply}");
    assert_eq!(reply["id"], "u1");
    assert_eq!(
        reply["data"]["error"],
        "Invalid message: data.event is required (ui-event names its event in \"event\", not \"name\")"
    );

    send_json(
        &mut ws,
        &envelope(
            "ui-event",
            "u2",
            json!({"event": "nav_click", "payload": {"view": "home"}}),
        ),
    )
    .await;
    let event = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::UiEvent(ev) => Some(ev.clone()),
        _ => None,
    })
    .await;
    assert_eq!(event.event, "nav_click");
    assert_eq!(event.payload, Some(json!({"view": "home"}).into()));
    server.stop().await;
}

/// `ui-snapshot` is parsed, kept as the latest snapshot and published; `ui-cancel-job-group` too.
#[tokio::test]
async fn snapshots_and_cancels_reach_the_registry() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    assert!(server.sessions.latest_snapshot(id).is_none());
    let tree = json!({"root": {"ref": "e1", "role": "generic", "children": [
        {"ref": "e2", "role": "button", "name": "Add to cart"},
        {"ref": "e3", "role": "textbox", "name": "Email", "value": "a@b.c", "future_field": 1}]},
        "captured_at": 1_767_225_600_000_i64});
    send_json(
        &mut ws,
        &envelope("ui-snapshot", "s1", json!({"tree": tree})),
    )
    .await;
    let snap = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Snapshot(s) => Some(s.tree()),
        _ => None,
    })
    .await;
    assert_eq!(snap.captured_at, 1_767_225_600_000);
    assert_eq!(snap.root.count(), 3);
    let latest = server.sessions.latest_snapshot(id).expect("kept");
    assert_eq!(latest.root.children[1].value(), Some("a@b.c"));

    send_json(
        &mut ws,
        &envelope("ui-cancel-job-group", "k1", json!({"job_id": "J1"})),
    )
    .await;
    let cancel = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::CancelJobGroup(c) => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(cancel.job_id, "J1");
    assert_eq!(cancel.reason_or_default(), "cancelled by user");
    // No job group runs here: the client is told which and why, on its request id.
    assert_eq!(
        recv_json(&mut ws).await,
        json!({"label": "rtvi-ai", "type": "error-response", "id": "k1",
               "data": {"error": messages::cancel_unknown_group("J1")}})
    );
    server.stop().await;
}

/// Garbage on the socket gets a clear `error` or `error-response`; the session stays up
/// and a second session is unaffected.
#[tokio::test]
async fn garbage_gets_clear_errors_and_the_session_stays_up() {
    let server = TestServer::local();
    let mut ws = connect(&server).await;
    let mut other = connect(&server).await;
    handshake(&mut ws, "h1").await;
    handshake(&mut other, "h2").await;

    // A text frame.
    ws.send(Message::Text(
        envelope("client-message", "x", json!({"t": "ping"})).into(),
    ))
    .await
    .unwrap();
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error");
    assert_eq!(m["data"]["error"], messages::text_frame_refused().as_str());
    assert_eq!(m["data"]["fatal"], false);

    // A truncated protobuf frame.
    let full = hark_rtvi::frame::encode_message_json(&envelope(
        "client-message",
        "x",
        json!({"t": "ping"}),
    ));
    ws.send(Message::Binary(full[..full.len() - 7].to_vec().into()))
        .await
        .unwrap();
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error");
    let text = m["data"]["error"].as_str().unwrap();
    assert!(
        text.starts_with("Invalid frame: not a pipecat.Frame protobuf message"),
        "{text}"
    );

    // Bytes that are no protobuf at all.
    ws.send(Message::Binary(vec![0xff; 16].into()))
        .await
        .unwrap();
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error");
    assert!(
        m["data"]["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid frame:"),
        "{m}"
    );

    // Valid protobuf, invalid JSON inside.
    send_json(&mut ws, "{\"label\": \"rtvi-ai\", \"type\": ").await;
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error");
    assert!(
        m["data"]["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid RTVI message:"),
        "{m}"
    );

    // An unknown type.
    send_json(&mut ws, &envelope("foo", "f1", json!({}))).await;
    let m = recv_json(&mut ws).await;
    assert_eq!(
        m,
        json!({"label": "rtvi-ai", "type": "error-response", "id": "f1", "data": {"error": "Unsupported type foo"}})
    );

    // Bad data naming the field.
    send_json(&mut ws, &envelope("send-text", "b1", json!({"content": 5}))).await;
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error-response");
    assert_eq!(m["id"], "b1");
    assert_eq!(
        m["data"]["error"],
        "Invalid message: data.content: expected a string, got a number"
    );

    // Unknown fields are ignored: the message is served.
    send_json(
        &mut ws,
        r#"{"label":"rtvi-ai","type":"client-message","id":"u1","extra":true,"data":{"t":"ping","d":{"n":1},"zzz":[1]}}"#,
    )
    .await;
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "server-response", "{m}");
    assert_eq!(m["id"], "u1");

    assert_alive(&mut ws, "alive1").await;
    assert_alive(&mut other, "alive2").await;
    server.stop().await;
}

async fn expect_close(ws: &mut Ws) -> (u16, String) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let next = tokio::time::timeout_at(deadline, ws.next())
            .await
            .expect("a close frame in time");
        match next {
            Some(Ok(Message::Close(Some(frame)))) => {
                return (u16::from(frame.code), frame.reason.to_string());
            }
            Some(Ok(Message::Close(None))) => panic!("close frame without a code"),
            Some(Ok(_)) => continue,
            Some(Err(err)) => panic!("socket failed before a close frame: {err}"),
            None => panic!("socket ended without a close frame"),
        }
    }
}

/// A 20 MB frame is refused: the socket is closed with 1009 and a reason naming the limit;
/// its payload is not buffered; another session is unaffected.
#[tokio::test]
async fn oversize_frame_closes_with_1009_and_a_reason() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut other = connect(&server).await;
    handshake(&mut other, "o1").await;
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let (mut sink, mut stream) = ws.split();
    // The write may never finish (the server stops reading), so it runs beside the read.
    let writer = tokio::spawn(async move {
        let _ = sink
            .send(Message::Binary(vec![0x22; 20 * 1024 * 1024].into()))
            .await;
        sink
    });
    // The very next message must be the close frame: nothing else was pending.
    let (code, reason) = match tokio::time::timeout(STEP, stream.next())
        .await
        .expect("close in time")
    {
        Some(Ok(Message::Close(Some(f)))) => (u16::from(f.code), f.reason.to_string()),
        Some(Ok(m)) => panic!("unexpected {m:?}"),
        Some(Err(err)) => panic!("socket failed before the close frame: {err}"),
        None => panic!("no close frame"),
    };
    assert_eq!(code, 1009);
    assert_eq!(reason, "Frame too large: the limit is 1048576 bytes");
    writer.abort();
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c @ CloseCause::FrameTooLarge { .. }) => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        cause,
        CloseCause::FrameTooLarge {
            size: 20 * 1024 * 1024,
            limit: 1_048_576
        }
    );
    assert_alive(&mut other, "o2").await;
    server.stop().await;
}

/// Leftover: after refusing a 20 MB frame the server reads and discards the rest of it, so
/// the client's write of the whole frame finishes without a reset and the client then reads
/// the 1009 close frame (before, the server closed with unread input, the kernel sent a reset,
/// and tungstenite and browsers reported 1006). Done twice: the write awaited before reading,
/// as a browser's `send` buffers, and the read running while the write is pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_still_writing_a_20_mb_frame_reads_the_1009_close() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let big = || Message::Binary(vec![0x22; 20 * 1024 * 1024].into());

    // The whole write first, then the read.
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    tokio::time::timeout(STEP, ws.send(big()))
        .await
        .expect("the write finishes in time")
        .expect("the server read the whole frame: no reset while writing");
    assert_eq!(
        expect_close(&mut ws).await,
        (
            1009,
            "Frame too large: the limit is 1048576 bytes".to_owned()
        )
    );
    wait_for(&mut events, |e| {
        matches!(
            e.kind,
            SessionEventKind::Closed(CloseCause::FrameTooLarge { .. })
        )
        .then_some(())
    })
    .await;

    // The read while the write is pending.
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h2").await;
    let (mut sink, mut stream) = ws.split();
    let writer = tokio::spawn(async move { sink.send(big()).await.map(|()| sink) });
    let (code, reason) = match tokio::time::timeout(STEP, stream.next())
        .await
        .expect("close in time")
    {
        Some(Ok(Message::Close(Some(f)))) => (u16::from(f.code), f.reason.to_string()),
        Some(Ok(m)) => panic!("unexpected {m:?}"),
        Some(Err(err)) => panic!("socket failed before the close frame: {err}"),
        None => panic!("no close frame"),
    };
    assert_eq!(
        (code, reason.as_str()),
        (1009, "Frame too large: the limit is 1048576 bytes")
    );
    let written = tokio::time::timeout(STEP, writer)
        .await
        .expect("the write ends in time")
        .expect("writer task");
    assert!(
        written.is_ok(),
        "the 20 MB write ended with {written:?}",
        written = written.err()
    );
    server.stop().await;
}

/// The frame limit is configurable: just under passes, just over closes with 1009.
#[tokio::test]
async fn frame_limit_is_configurable() {
    let server = TestServer::start(ServerConfig {
        max_frame_bytes: 4096,
        ..local_config()
    });
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let padding = "x".repeat(3500);
    send_json(
        &mut ws,
        &envelope("client-message", "c1", json!({"t": "ping", "d": padding})),
    )
    .await;
    assert_eq!(recv_json(&mut ws).await["type"], "server-response");
    let padding = "x".repeat(5000);
    send_json(
        &mut ws,
        &envelope("client-message", "c2", json!({"t": "ping", "d": padding})),
    )
    .await;
    assert_eq!(
        expect_close(&mut ws).await,
        (1009, "Frame too large: the limit is 4096 bytes".to_owned())
    );
    server.stop().await;
}

/// Flood: 50 000 messages from a client that does not read its answers. The server's queues
/// fill to their bounds and it stops reading (TCP pushes back), instead of buffering; another
/// session is served meanwhile; once the client reads, every answer arrives, in order. (Pings,
/// not refused input: identical refusals are sent once per window.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_is_bounded_by_the_queues_and_every_answer_arrives() {
    const N: usize = 50_000;
    // The queues' bound is the subject here, not the message rate nor the keep-alive
    // (tests/hostile.rs). This client reads nothing until both queues are full, which can take
    // longer than `ping_interval + pong_timeout` on a loaded machine; a client that stops
    // reading that long is rightly closed (1011), so keep-alive and its deadlines are off.
    let server = TestServer::start(ServerConfig {
        max_messages_per_sec: 0,
        ping_interval: Duration::ZERO,
        pong_timeout: Duration::ZERO,
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    let (mut sink, mut stream) = ws.split();
    // A long ping payload makes each answer ~1 KB, so 50 000 answers (~50 MB) are far more than
    // the socket buffers hold while the client does not read.
    let long = "t".repeat(1000);
    let payload = long.clone();
    let writer = tokio::spawn(async move {
        for n in 0..N {
            let json = envelope(
                "client-message",
                &format!("f{n}"),
                json!({"t": "ping", "d": payload}),
            );
            sink.send(frame(&json)).await.expect("flood send");
        }
        sink
    });

    // Wait until both queues are full: reader → session → writer are all blocked.
    let stuck = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let s = server.sessions.stats(id).expect("session open");
            if s.inbound_len == s.inbound_capacity && s.outbound_len == s.outbound_capacity {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("queues fill while the client does not read");
    eprintln!("flood: queues full at {stuck:?}");
    assert!(
        (stuck.frames_received as usize) < N,
        "the server stopped reading before the flood ended: {stuck:?}"
    );
    assert_eq!(
        stuck.inbound_capacity,
        hark_server::config::DEFAULT_INBOUND_QUEUE
    );
    assert_eq!(
        stuck.outbound_capacity,
        hark_server::config::DEFAULT_OUTBOUND_QUEUE
    );

    // Another session is served while this one is stuck.
    let mut other = connect(&server).await;
    handshake(&mut other, "o1").await;
    assert_alive(&mut other, "o2").await;

    // Now read: every answer arrives, in order.
    for n in 0..N {
        let msg = tokio::time::timeout(STEP, stream.next())
            .await
            .expect("answer in time")
            .unwrap()
            .unwrap();
        let frame = hark_rtvi::frame::decode_frame(&msg.into_data()).unwrap();
        let json: serde_json::Value = serde_json::from_str(frame.message_json().unwrap()).unwrap();
        assert_eq!(json["id"], format!("f{n}"));
        assert_eq!(json["data"]["d"], long.as_str());
    }
    let sink = writer.await.unwrap();
    let mut ws = sink.reunite(stream).unwrap();
    assert_alive(&mut ws, "after").await;
    let s = server.sessions.stats(id).unwrap();
    assert!(s.inbound_high_water <= s.inbound_capacity, "{s:?}");
    assert!(s.outbound_high_water <= s.outbound_capacity, "{s:?}");
    assert_eq!(s.frames_received as usize, N + 2);
    server.stop().await;
}

/// A client's close frame is answered and the session ends and leaves the registry.
#[tokio::test]
async fn client_close_is_answered_and_the_session_ends() {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    ws.close(None).await.unwrap();
    let answer = tokio::time::timeout(STEP, ws.next())
        .await
        .expect("close answer in time");
    assert!(matches!(answer, Some(Ok(Message::Close(_)))), "{answer:?}");
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c) if e.session == id => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(cause, CloseCause::ClientGone);
    assert!(server.sessions.stats(id).is_none());
    assert!(
        server
            .sessions
            .send(id, ServerMessage::BotLlmStarted)
            .await
            .is_err()
    );
    server.stop().await;
}

/// Graceful shutdown: every open session gets a close frame (1001, "Server shutting down").
#[tokio::test]
async fn shutdown_sends_every_open_session_a_close_frame() {
    let server = TestServer::local();
    let mut a = connect(&server).await;
    let mut b = connect(&server).await;
    handshake(&mut a, "a").await;
    handshake(&mut b, "b").await;
    let sessions = server.sessions.clone();
    assert_eq!(sessions.ids().len(), 2);
    let stopping = tokio::spawn(server.stop());
    for ws in [&mut a, &mut b] {
        assert_eq!(expect_close(ws).await, (1001, messages::shutting_down()));
    }
    stopping.await.unwrap();
    assert!(sessions.ids().is_empty());
}

/// The handler seam: a plugged-in handler gets typed inputs and can send
/// any server message, e.g. a `ui-command` answering a user turn.
#[tokio::test]
async fn a_plugged_in_handler_gets_typed_inputs() {
    #[derive(Debug)]
    struct Clicker;
    impl SessionHandler for Clicker {
        fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
            Box::pin(async move {
                match input {
                    SessionInput::UserText { text } => {
                        let _ = outbox
                            .send(ServerMessage::UiCommand(UiCommand::click(text)))
                            .await;
                    }
                    SessionInput::Snapshot(s) => {
                        let _ = outbox
                            .send(ServerMessage::ServerMessage(
                                json!({"nodes": s.tree().root.count()}),
                            ))
                            .await;
                    }
                    _ => {}
                }
            })
        }
    }
    let factory: Arc<dyn hark_server::HandlerFactory> =
        Arc::new(|_: SessionId| Box::new(Clicker) as Box<dyn SessionHandler>);
    let server = TestServer::start_with(local_config(), Some(factory));
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "e42"})),
    )
    .await;
    let m = recv_json(&mut ws).await;
    assert_eq!(
        m,
        json!({"label": "rtvi-ai", "type": "ui-command", "data": {"command": "click", "payload": {"ref": "e42", "target_id": null}}})
    );
    let tree = json!({"root": {"ref": "e1", "role": "generic"}, "captured_at": 1});
    send_json(
        &mut ws,
        &envelope("ui-snapshot", "s1", json!({"tree": tree})),
    )
    .await;
    assert_eq!(recv_json(&mut ws).await["data"], json!({"nodes": 1}));
    server.stop().await;
}

/// `/` without `--demo` names the endpoint; with a web dir lacking index.html it says how to
/// build the page.
#[tokio::test]
async fn root_page_says_what_to_do() {
    async fn get(addr: std::net::SocketAddr, path: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
        let mut out = String::new();
        tokio::time::timeout(STEP, s.read_to_string(&mut out))
            .await
            .unwrap()
            .unwrap();
        out
    }
    let server = TestServer::local();
    let page = get(server.addr, "/").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("hark serve --demo"), "{page}");
    server.stop().await;

    let empty = std::env::temp_dir().join(format!("hark-empty-web-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let server = TestServer::start(ServerConfig {
        web_dir: Some(empty.clone()),
        ..local_config()
    });
    let page = get(server.addr, "/").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("npm --prefix web ci &amp;&amp; npm --prefix web run build")
            || page.contains("npm --prefix web ci && npm --prefix web run build"),
        "{page}"
    );
    let missing = get(server.addr, "/nope.js").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");

    std::fs::write(empty.join("index.html"), "<p>built page</p>").unwrap();
    let page = get(server.addr, "/").await;
    assert!(page.contains("<p>built page</p>"), "{page}");
    server.stop().await;
    std::fs::remove_dir_all(&empty).unwrap();
}

/// Identical `error`s to one session are sent once per window (the first always goes out),
/// counted in the session's stats; other texts still go out; other sessions are not affected.
/// A refused request is always answered by its id (a client awaits it), however often.
#[tokio::test]
async fn identical_refusals_are_sent_once_per_window() {
    let server = TestServer::start(ServerConfig {
        error_repeat_window: Duration::from_secs(3600),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let id = wait_ready(&mut events).await;
    for n in 0..3 {
        send_json(&mut ws, &envelope("foo", &format!("r{n}"), json!({}))).await;
    }
    for n in 0..3 {
        assert_eq!(
            recv_json(&mut ws).await,
            json!({"label": "rtvi-ai", "type": "error-response", "id": format!("r{n}"), "data": {"error": "Unsupported type foo"}})
        );
    }
    // Text frames have no id: their `error` goes out once per window.
    for _ in 0..5 {
        ws.send(Message::Text(envelope("foo", "t", json!({})).into()))
            .await
            .unwrap();
    }
    send_json(&mut ws, &envelope("bar", "b1", json!({}))).await;
    let m = recv_json(&mut ws).await;
    assert_eq!(m["type"], "error");
    assert_eq!(m["data"]["error"], messages::text_frame_refused().as_str());
    // The four other text frames were held back: the next message is the other request's answer.
    assert_eq!(
        recv_json(&mut ws).await["data"]["error"],
        "Unsupported type bar"
    );
    assert_alive(&mut ws, "p1").await;
    assert_eq!(server.sessions.stats(id).unwrap().errors_suppressed, 4);
    // Another session gets its own first refusal.
    let mut other = connect(&server).await;
    handshake(&mut other, "h2").await;
    send_json(&mut other, &envelope("foo", "o1", json!({}))).await;
    assert_eq!(recv_json(&mut other).await["id"], "o1");
    server.stop().await;

    // A zero window sends every refusal.
    let server = TestServer::start(ServerConfig {
        error_repeat_window: Duration::ZERO,
        ..local_config()
    });
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    for n in 0..3 {
        send_json(&mut ws, &envelope("foo", &format!("r{n}"), json!({}))).await;
    }
    for n in 0..3 {
        assert_eq!(recv_json(&mut ws).await["id"], format!("r{n}"));
    }
    server.stop().await;
}

/// Reads the raw connection until the server ends it; returns what it sent. A hang guard only.
async fn read_until_closed(tcp: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(STEP, tcp.read(&mut buf))
            .await
            .expect("the server ends the connection in time")
        {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// A silent TCP connection and a partial HTTP upgrade request are dropped after the header
/// read timeout; a complete request on a fresh connection is still served.
#[tokio::test]
async fn silent_and_partial_http_connections_are_dropped() {
    use tokio::io::AsyncWriteExt;
    let server = TestServer::start(ServerConfig {
        header_read_timeout: Duration::from_millis(200),
        ..local_config()
    });
    let mut silent = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    read_until_closed(&mut silent).await;

    let mut partial = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    partial
        .write_all(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut partial).await;
    assert!(
        !String::from_utf8_lossy(&answer).contains("101"),
        "no upgrade from a partial request"
    );

    // The timeout covers the request head only: a WebSocket session is unaffected.
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    assert_alive(&mut ws, "a1").await;
    server.stop().await;
}

/// An upgraded client that never sends client-ready is closed with 1008 and a reason
/// naming the deadline; the session ends with `ClientReadyTimeout`.
#[tokio::test]
async fn no_client_ready_closes_with_1008() {
    let server = TestServer::start(ServerConfig {
        client_ready_timeout: Duration::from_millis(200),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    assert_eq!(
        expect_close(&mut ws).await,
        (1008, "client-ready not received within 200 ms".to_owned())
    );
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c) => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        cause,
        CloseCause::ClientReadyTimeout {
            after: Duration::from_millis(200)
        }
    );
    server.stop().await;
}

/// A client stuck in the middle of a frame (a header announcing ~1 MB, then 10 bytes)
/// cannot answer keep-alive pings: its pongs land inside the unfinished frame. The server
/// closes with 1011 and a reason naming the pong deadline.
#[tokio::test]
async fn a_peer_stuck_mid_frame_is_closed_by_the_keepalive() {
    use tokio::io::AsyncWriteExt;
    use tokio_tungstenite::MaybeTlsStream;
    let server = TestServer::start(ServerConfig {
        ping_interval: Duration::from_millis(100),
        pong_timeout: Duration::from_millis(300),
        ..local_config()
    });
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    // A masked binary frame header: FIN + binary, mask bit + 64-bit length 1_000_000, the mask,
    // then 10 bytes of the payload, and nothing more.
    let mut raw = vec![0x82, 0xff];
    raw.extend_from_slice(&1_000_000u64.to_be_bytes());
    raw.extend_from_slice(&[1, 2, 3, 4]);
    raw.extend_from_slice(&[0u8; 10]);
    let MaybeTlsStream::Plain(tcp) = ws.get_mut() else {
        panic!("plain TCP")
    };
    tcp.write_all(&raw).await.unwrap();
    assert_eq!(
        expect_close(&mut ws).await,
        (
            1011,
            "No pong within 300 ms of a keep-alive ping: connection presumed dead".to_owned()
        )
    );
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c) => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        cause,
        CloseCause::PongTimeout {
            after: Duration::from_millis(300)
        }
    );
    server.stop().await;
}

/// A client that answers the keep-alive pings (as browsers and tungstenite do) stays open
/// through many ping rounds.
#[tokio::test]
async fn a_client_that_answers_pings_stays_open() {
    let server = TestServer::start(ServerConfig {
        ping_interval: Duration::from_millis(50),
        pong_timeout: Duration::from_secs(30),
        ..local_config()
    });
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let mut pings = 0;
    while pings < 5 {
        // Reading makes tungstenite answer each ping with a pong.
        match tokio::time::timeout(STEP, ws.next())
            .await
            .expect("pings in time")
        {
            Some(Ok(Message::Ping(_))) => pings += 1,
            other => panic!("expected pings, got {other:?}"),
        }
    }
    assert_alive(&mut ws, "a1").await;
    server.stop().await;
}

/// `disconnect-bot` ends the session like Pipecat: the handler is told, answers already
/// queued go out, then close 1000 "Client asked to disconnect"; the Closed event says why.
#[tokio::test]
async fn disconnect_bot_closes_the_session_cleanly() {
    #[derive(Debug)]
    struct Recorder(tokio::sync::mpsc::UnboundedSender<String>);
    impl SessionHandler for Recorder {
        fn handle<'a>(&'a mut self, input: SessionInput, outbox: &'a Outbox) -> BoxFuture<'a, ()> {
            let name = match &input {
                SessionInput::Disconnect => "disconnect".to_owned(),
                other => format!("{other:?}").chars().take(12).collect(),
            };
            let _ = self.0.send(name);
            Box::pin(async move {
                hark_server::NoAgentHandler.handle(input, outbox).await;
            })
        }
    }
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let factory: Arc<dyn hark_server::HandlerFactory> = Arc::new(move |_: SessionId| {
        Box::new(Recorder(seen_tx.clone())) as Box<dyn SessionHandler>
    });
    let server = TestServer::start_with(local_config(), Some(factory));
    let mut events = server.sessions.subscribe();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    send_json(
        &mut ws,
        &envelope("client-message", "c1", json!({"t": "ping", "d": 1})),
    )
    .await;
    send_json(&mut ws, &envelope("disconnect-bot", "d1", json!({}))).await;
    assert_eq!(recv_json(&mut ws).await["type"], "server-response");
    assert_eq!(
        expect_close(&mut ws).await,
        (1000, "Client asked to disconnect".to_owned())
    );
    let cause = wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(c) => Some(c.clone()),
        _ => None,
    })
    .await;
    assert_eq!(cause, CloseCause::ClientDisconnected);
    let mut inputs = Vec::new();
    while let Ok(name) = seen.try_recv() {
        inputs.push(name);
    }
    assert_eq!(
        inputs.last().map(String::as_str),
        Some("disconnect"),
        "{inputs:?}"
    );
    assert!(server.sessions.ids().is_empty());
    server.stop().await;
}

/// Connects to `/ws` with an `Origin` header; `Err((status, body))` when refused.
async fn connect_with_origin(server: &TestServer, origin: &str) -> Result<Ws, (u16, String)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = server.ws_url().into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", origin.parse().unwrap());
    match tokio::time::timeout(STEP, tokio_tungstenite::connect_async(request))
        .await
        .expect("an answer in time")
    {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => Err((
            response.status().as_u16(),
            String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()).into_owned(),
        )),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

/// An upgrade from a foreign page gets 403 with a body naming the origin and the flag;
/// same-origin pages and clients without Origin get in; `--allow-origin` and `*` let others in.
#[tokio::test]
async fn foreign_origins_are_refused_unless_allowed() {
    let server = TestServer::local();
    let (status, body) = connect_with_origin(&server, "http://evil.example")
        .await
        .expect_err("refused");
    assert_eq!(status, 403);
    assert_eq!(body, messages::origin_refused("http://evil.example"));
    let mut same = connect_with_origin(&server, &format!("http://{}", server.addr))
        .await
        .expect("same origin");
    handshake(&mut same, "s1").await;
    let mut plain = connect(&server).await;
    handshake(&mut plain, "p1").await;
    server.stop().await;

    let server = TestServer::start(ServerConfig {
        allowed_origins: vec!["http://evil.example".into()],
        ..local_config()
    });
    let mut listed = connect_with_origin(&server, "http://evil.example")
        .await
        .expect("listed origin");
    handshake(&mut listed, "l1").await;
    assert_eq!(
        connect_with_origin(&server, "http://other.example")
            .await
            .err()
            .map(|(status, _)| status),
        Some(403)
    );
    server.stop().await;

    let server = TestServer::start(ServerConfig {
        allowed_origins: vec!["*".into()],
        ..local_config()
    });
    let mut any = connect_with_origin(&server, "http://other.example")
        .await
        .expect("* allows every origin");
    handshake(&mut any, "a1").await;
    server.stop().await;
}
