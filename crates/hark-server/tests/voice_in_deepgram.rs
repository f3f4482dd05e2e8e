//! `hark serve --agent FILE` with `[stt] provider = "deepgram"` hears the caller through a
//! streaming STT: microphone audio sent as Pipecat's WebSocket client sends it goes through the
//! real Silero VAD to Deepgram's live API (`hark_voice::testing::ScriptedDeepgram`, its wire
//! format) while the caller speaks; interim results reach the client as `user-transcription`
//! with `final: false`, then the finals, and the finals are the agent's user turn
//! (`hark_llm::testing::ScriptedServer`).
//!
//! The speech is espeak-ng's; the VAD model comes from `scripts/fetch-model.sh`.

mod common;

use std::time::Duration;

use common::voice::*;
use common::*;
use futures::SinkExt;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_rtvi::frame::Frame;
use hark_server::ServerConfig;
use hark_voice::EspeakConfig;
use hark_voice::testing::{DeepgramScript, DgStep, ScriptedDeepgram, espeak_speech};
use serde_json::Value;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

const MIC_RATE: u32 = 16_000;
const MIC_FRAME: usize = 256;

fn mic_frame(samples: &[i16]) -> Message {
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    Message::Binary(Frame::audio(bytes, MIC_RATE, 1).to_bytes().into())
}

/// Sends `samples` as microphone frames at real-time pace; returns the RTVI messages that
/// arrived meanwhile.
async fn talk(ws: &mut Ws, samples: &[i16]) -> Vec<Value> {
    let mut got = Vec::new();
    let start = Instant::now();
    for (i, frame) in samples.chunks(MIC_FRAME).enumerate() {
        ws.send(mic_frame(frame)).await.expect("send audio");
        let due = start + Duration::from_millis(16 * (i as u64 + 1));
        while let Ok(next) = tokio::time::timeout_at(due, recv(ws)).await {
            if let Got::Rtvi(m) = next {
                got.push(m);
            }
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interim_then_final_transcriptions_and_the_model_gets_the_final_text() {
    let llm = ScriptedServer::start(vec![Turn::text_reply(&["The blue mug is in your cart."])])
        .await
        .unwrap();
    let deepgram = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(16_000),
        DgStep::interim("add the blue"),
        DgStep::final_result("Add the blue mug"),
        DgStep::AwaitFinalize,
        DgStep::finalized("to my cart."),
    ])])
    .await;
    let dir = std::env::temp_dir().join(format!("hark-voice-in-deepgram-{}", std::process::id()));
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

[stt]
provider = "deepgram"
base_url = "{}"
api_key_env = "PATH"
"#,
            llm.base_url(),
            deepgram.url(),
        ),
    )
    .unwrap();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the agent file builds (the VAD model: scripts/fetch-model.sh)");
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    let mut ws = connect(&server).await;
    let ready = handshake(&mut ws, "r1").await;
    assert_eq!(ready["data"]["capabilities"]["audio_in"], true, "{ready}");

    let speech = espeak_speech(
        "add the blue mug to my cart",
        EspeakConfig::default(),
        MIC_RATE,
        0.5,
        1.0,
    )
    .await;
    let mut got = talk(&mut ws, &speech).await;
    while !got.iter().any(|m| m["type"] == "bot-llm-stopped") {
        match tokio::time::timeout(Duration::from_secs(10), recv(&mut ws))
            .await
            .expect("the answer comes")
        {
            Got::Rtvi(m) => got.push(m),
            Got::Audio { .. } => {}
        }
    }
    let heard: Vec<String> = got
        .iter()
        .filter_map(|m| match m["type"].as_str() {
            Some(t @ ("user-started-speaking" | "user-stopped-speaking")) => Some(t.to_owned()),
            Some("user-transcription") => Some(format!(
                "{} {}",
                if m["data"]["final"] == true {
                    "final"
                } else {
                    "interim"
                },
                m["data"]["text"].as_str().unwrap_or_default()
            )),
            Some("error") => Some(format!("error {}", m["data"])),
            _ => None,
        })
        .collect();
    assert_eq!(
        heard,
        [
            "user-started-speaking",
            "interim add the blue",
            "final Add the blue mug",
            "user-stopped-speaking",
            "final to my cart.",
        ]
    );
    // The finals, joined, are the model's user turn.
    let body = &llm.bodies()[0];
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(user, "Add the blue mug to my cart.");
    let c = &deepgram.connections()[0];
    assert_eq!(c.param("model"), Some("nova-3"));
    assert_eq!(c.param("language"), Some("en-US"));
    assert_eq!(c.param("sample_rate"), Some("16000"));
    assert_eq!(c.param("encoding"), Some("linear16"));
    server.stop().await;
}
