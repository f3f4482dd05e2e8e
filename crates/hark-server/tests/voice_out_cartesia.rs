//! `hark serve --agent FILE` with `[tts] provider = "cartesia"` speaks over Cartesia's WebSocket:
//! an agent file whose `[llm]` points at `hark_llm::testing::ScriptedServer` and whose `[tts]`
//! points at `hark_voice::testing::CartesiaServer` (base64 PCM16 chunks at 24 kHz per context),
//! talked to over the WebSocket as Pipecat's client talks.
//!
//! A text turn's line goes out as the audio frames the client plays, every sample Cartesia sent,
//! between the speaking events; a second `send-text` while the bot speaks cuts the line off and
//! Cartesia gets the cancel for its context, and the next reply is heard on the same connection.

mod common;

use std::time::Duration;

use common::voice::*;
use common::*;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::ServerConfig;
use hark_voice::testing::{CartesiaServer, CartesiaStep};
use serde_json::json;

/// `seconds` of 24 kHz PCM16 in 100 ms chunks, then `done`; with `pace`, each chunk after the
/// first waits that long (a line still being made when the caller cuts it off).
fn pcm(seconds: f64, pace: Option<Duration>) -> Vec<CartesiaStep> {
    let samples = (24_000.0 * seconds) as usize;
    let all: Vec<i16> = (0..samples).map(|i| (i % 200) as i16 * 50).collect();
    let mut steps = Vec::new();
    for (i, chunk) in all.chunks(2_400).enumerate() {
        if let (Some(pace), true) = (pace, i > 0) {
            steps.push(CartesiaStep::Delay(pace));
        }
        steps.push(CartesiaStep::samples(chunk));
    }
    steps.push(CartesiaStep::Done);
    steps
}

async fn serve(llm: &ScriptedServer, cartesia: &CartesiaServer, name: &str) -> (TestServer, Ws) {
    let dir = std::env::temp_dir().join(format!(
        "hark-voice-out-cartesia-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("desk.toml");
    std::fs::write(
        &path,
        format!(
            r#"
name = "desk"
system_prompt = "You answer for the front desk."
language = "en-US"

[llm]
provider = "openai-compatible"
base_url = "{}"
model = "desk-model"

[tts]
provider = "cartesia"
base_url = "{}"
voice = "a0e99841-438c-4a64-b679-ae501e7d6091"
api_key_env = "PATH"
"#,
            llm.base_url(),
            cartesia.url()
        ),
    )
    .unwrap();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the agent file builds");
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    let mut ws = connect(&server).await;
    handshake(&mut ws, "r1").await;
    (server, ws)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cartesia_line_plays_and_a_cut_cancels_its_context() {
    let llm = ScriptedServer::start(vec![
        Turn::text_reply(&["Hello there."]),
        Turn::text_reply(&["This is a long answer that goes on."]),
        Turn::text_reply(&["Okay."]),
    ])
    .await
    .unwrap();
    let cartesia = CartesiaServer::start(vec![
        pcm(0.5, None),
        // 20 s made at real-time pace: Cartesia's context is still open when the cut comes,
        // however late a loaded machine lets the test send it (with 3 s, a test starved for
        // seconds cut a line Cartesia had already finished: nothing left to cancel).
        pcm(20.0, Some(Duration::from_millis(100))),
        pcm(0.2, None),
    ])
    .await;
    let (server, mut ws) = serve(&llm, &cartesia, "plays").await;

    // A line plays in full, in the frames the client's player takes.
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "hi"})),
    )
    .await;
    let got = until(&mut ws, "bot-stopped-speaking").await;
    assert_eq!(audio_bytes(&got), 24_000, "every sample Cartesia sent");
    for g in &got {
        if let Got::Audio {
            bytes,
            rate,
            channels,
        } = g
        {
            assert_eq!((*bytes, *rate, *channels), (960, 24_000, 1));
        }
    }
    let requests = cartesia.requests();
    assert_eq!(requests[0].json["transcript"], "Hello there.");
    assert_eq!(requests[0].json["language"], "en");
    assert_eq!(requests[0].json["output_format"]["sample_rate"], 24_000);

    // A long line, made at real-time pace and cut off by the caller's next turn: its context,
    // still open on Cartesia's side, is cancelled.
    send_json(
        &mut ws,
        &envelope("send-text", "t2", json!({"content": "tell me"})),
    )
    .await;
    let _ = until(&mut ws, "bot-started-speaking").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    send_json(
        &mut ws,
        &envelope("send-text", "t3", json!({"content": "stop"})),
    )
    .await;
    let _ = until(&mut ws, "bot-stopped-speaking").await;
    let long = cartesia.requests()[1].json["context_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        cartesia.wait_cancel(&long, Duration::from_secs(5)).await,
        "no cancel for the cut line: {:?}",
        cartesia.messages()
    );

    // The next reply is heard in full, on the same connection.
    let next = until(&mut ws, "bot-stopped-speaking").await;
    assert_eq!(audio_bytes(&next), (0.2 * 48_000.0) as usize);
    assert_eq!(
        cartesia.connections().len(),
        1,
        "one connection for the call"
    );
    assert_eq!(
        cartesia.connections()[0].header("x-api-key"),
        Some(std::env::var("PATH").unwrap().as_str())
    );
    server.stop().await;
}
