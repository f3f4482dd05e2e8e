//! `hark serve --agent FILE` with a `[tts]` table speaks: an agent file whose `[llm]` points at
//! `hark_llm::testing::ScriptedServer` and whose `[tts]` points at
//! `hark_voice::testing::ScriptedSpeechServer` (OpenAI's `/audio/speech`, `audio/pcm` at
//! 24 kHz), talked to over the WebSocket as Pipecat's client talks.
//!
//! A text turn's line is sent as binary `pipecat.Frame` audio frames the client plays
//! (`AudioRawFrame`, `name` "audio", 24 000 Hz, mono, 20 ms = 960 bytes each), between
//! `bot-tts-started` / `bot-started-speaking` and `bot-tts-stopped` / `bot-stopped-speaking`, with
//! every sample the provider sent. A second `send-text` while the bot speaks cuts its audio off:
//! `bot-stopped-speaking` comes at once and no frame of the cut line follows it. A voice whose
//! stream stalls holds nothing: the cut drops its stream and the next reply is heard.

mod common;

use std::time::Duration;

use common::voice::*;
use common::*;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::ServerConfig;
use hark_voice::testing::{Reply, ScriptedSpeechServer, Step};
use serde_json::json;

/// `seconds` of 24 kHz PCM16 in 100 ms body chunks.
fn pcm(seconds: f64) -> Vec<Step> {
    let samples = (24_000.0 * seconds) as usize;
    let bytes: Vec<u8> = (0..samples)
        .flat_map(|i| ((i % 200) as i16 * 50).to_le_bytes())
        .collect();
    bytes
        .chunks(4_800)
        .map(|c| Step::Bytes(c.to_vec()))
        .collect()
}

async fn serve(
    llm: &ScriptedServer,
    speech: &ScriptedSpeechServer,
    name: &str,
) -> (TestServer, Ws) {
    let dir = std::env::temp_dir().join(format!("hark-voice-out-{name}-{}", std::process::id()));
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
provider = "openai-compatible"
base_url = "{}"
model = "tts-1"
voice = "nova"
api_key_env = "PATH"
"#,
            llm.base_url(),
            speech.base_url()
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

fn types(got: &[Got]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in got {
        match g {
            Got::Rtvi(m) => {
                let t = m["type"].as_str().unwrap_or_default();
                // The model's events run beside the speaker's: their order against it varies.
                if !t.starts_with("bot-llm-") {
                    out.push(t.to_string());
                }
            }
            Got::Audio { .. } => {
                if out.last().map(String::as_str) != Some("audio") {
                    out.push("audio".into());
                }
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_goes_out_as_audio_frames_the_client_plays_between_the_speaking_events() {
    let llm = ScriptedServer::start(vec![Turn::text_reply(&["Hello there."])])
        .await
        .unwrap();
    let speech = ScriptedSpeechServer::start(vec![Reply::audio(pcm(0.5))]).await;
    let (server, mut ws) = serve(&llm, &speech, "plays").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "hi"})),
    )
    .await;
    let got = until(&mut ws, "bot-stopped-speaking").await;
    assert_eq!(
        types(&got),
        [
            "bot-tts-started",
            "bot-output",
            "bot-transcription",
            "bot-tts-text",
            "bot-started-speaking",
            "audio",
            "bot-tts-stopped",
            "bot-stopped-speaking",
        ]
        .map(String::from),
        "{got:?}"
    );
    // Every sample the provider sent, in frames the client's player takes.
    assert_eq!(audio_bytes(&got), 24_000);
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
    // The speech request carried the line.
    let asked = speech.requests();
    assert_eq!(asked.len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_user_turn_while_the_bot_speaks_cuts_its_audio_at_once() {
    let llm = ScriptedServer::start(vec![
        Turn::text_reply(&["This is a long answer that goes on."]),
        Turn::text_reply(&["Okay."]),
    ])
    .await
    .unwrap();
    let speech =
        ScriptedSpeechServer::start(vec![Reply::audio(pcm(3.0)), Reply::audio(pcm(0.2))]).await;
    let (server, mut ws) = serve(&llm, &speech, "cut").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "tell me"})),
    )
    .await;
    let mut got = until(&mut ws, "bot-started-speaking").await;
    // Half a second of the three-second line plays, then the caller speaks.
    let started = tokio::time::Instant::now();
    while started.elapsed() < Duration::from_millis(500) {
        got.push(recv(&mut ws).await);
    }
    send_json(
        &mut ws,
        &envelope("send-text", "t2", json!({"content": "stop"})),
    )
    .await;
    let cut = until(&mut ws, "bot-stopped-speaking").await;
    let after = until(&mut ws, "bot-llm-started").await;
    // Nothing of the cut line after the bot stopped speaking, and far less than all of it sent.
    assert_eq!(audio_bytes(&after), 0, "{after:?}");
    let sent = audio_bytes(&got) + audio_bytes(&cut);
    assert!(sent < 3 * 48_000 / 2, "{sent} bytes of 144000 sent");
    // The new reply is heard in full.
    let next = until(&mut ws, "bot-stopped-speaking").await;
    assert_eq!(audio_bytes(&next), (0.2 * 48_000.0) as usize);
    // The model's second request holds only the words heard of the cut line.
    let asked = &llm.bodies()[1];
    let bot: Vec<&str> = asked["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect();
    assert!(
        bot.iter().all(|c| !c.contains("goes on")),
        "the history holds what was heard: {bot:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voice_that_stalls_never_holds_the_call_and_its_stream_is_dropped_on_a_cut() {
    let llm = ScriptedServer::start(vec![
        Turn::text_reply(&["This line never gets its audio."]),
        Turn::text_reply(&["Still here."]),
    ])
    .await
    .unwrap();
    // The first line's audio stalls after 100 ms of it; the second line's comes at once.
    let stall = hark_voice::testing::Gate::new();
    let mut first = pcm(0.1);
    first.push(Step::Wait(stall));
    let speech =
        ScriptedSpeechServer::start(vec![Reply::audio(first), Reply::audio(pcm(0.2))]).await;
    let (server, mut ws) = serve(&llm, &speech, "stall").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "hi"})),
    )
    .await;
    until(&mut ws, "bot-started-speaking").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t2", json!({"content": "hello?"})),
    )
    .await;
    // The stalled line is cut, its provider stream dropped, and the next reply is heard.
    until(&mut ws, "bot-stopped-speaking").await;
    assert!(
        speech.wait_body_dropped(Duration::from_secs(10)).await,
        "the stalled synthesis was cancelled"
    );
    let next = until(&mut ws, "bot-stopped-speaking").await;
    assert!(
        next.iter()
            .any(|g| matches!(g, Got::Rtvi(m) if m["type"] == "bot-output" && m["data"]["text"] == "Still here.")),
        "{next:?}"
    );
    assert_eq!(audio_bytes(&next), (0.2 * 48_000.0) as usize);
    server.stop().await;
}
