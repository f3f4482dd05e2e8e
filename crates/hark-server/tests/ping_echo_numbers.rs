//! A `client-message` payload Hark writes back (the built-in `ping` echo,
//! `server-response {t, d}`) keeps its numbers as the client wrote them. An integer beyond
//! 64 bits used to come back as a float (`12345678901234567890123` → `1.2345678901234568e22`)
//! and `-0` as `-0.0`. Each expected text is pipecat-ai 1.14.0's own
//! `ServerResponse(id=…, data=RawServerResponseData(t="ping", d=json.loads(d))).model_dump_json()`
//! (run in its venv): digits kept, `1.0` a float, `-0` the integer `0`, a repeated key in its
//! first place with its last value.

mod common;

use common::*;
use futures::StreamExt;
use hark_rtvi::frame::decode_frame;
use tokio_tungstenite::tungstenite::Message;

/// The next RTVI message's JSON text, exactly as the server wrote it (not through a `Value`).
async fn recv_text(ws: &mut Ws) -> String {
    loop {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("a server message in time")
            .expect("socket open")
            .expect("socket ok");
        match msg {
            Message::Binary(bytes) => {
                let frame = decode_frame(&bytes).expect("server frames are pipecat.Frame");
                return frame.message_json().expect("a MessageFrame").to_owned();
            }
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected a binary frame, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_ping_echo_sends_back_the_numbers_as_written() {
    let server = TestServer::local();
    let mut ws = connect(&server).await;
    handshake(&mut ws, "h1").await;
    let cases = [
        (
            "12345678901234567890123",
            r#"{"label":"rtvi-ai","type":"server-response","id":"p1","data":{"t":"ping","d":12345678901234567890123}}"#,
        ),
        (
            "1.0",
            r#"{"label":"rtvi-ai","type":"server-response","id":"p1","data":{"t":"ping","d":1.0}}"#,
        ),
        (
            "-0",
            r#"{"label":"rtvi-ai","type":"server-response","id":"p1","data":{"t":"ping","d":0}}"#,
        ),
        (
            r#"{"n": 12345678901234567890123, "f": 1.0, "z": -0, "l": [-0, -98765432109876543210, 2.50], "k": 2, "s": "-0", "k": 3}"#,
            r#"{"label":"rtvi-ai","type":"server-response","id":"p1","data":{"t":"ping","d":{"n":12345678901234567890123,"f":1.0,"z":0,"l":[0,-98765432109876543210,2.5],"k":3,"s":"-0"}}}"#,
        ),
    ];
    for (d, pipecat) in cases {
        let ping = format!(
            r#"{{"label":"rtvi-ai","type":"client-message","id":"p1","data":{{"t":"ping","d":{d}}}}}"#
        );
        send_json(&mut ws, &ping).await;
        assert_eq!(recv_text(&mut ws).await, pipecat, "d = {d}");
    }
    server.stop().await;
}
