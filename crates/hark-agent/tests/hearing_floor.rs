//! A call that hears (`AgentSettings::with_hearing`): while the caller speaks, the result of a
//! `continue` tool that finishes waits; the caller's turn carries it, instead of the bot
//! talking over them with a turn of its own.
//!
//! The VAD is the real Silero model (`scripts/fetch-model.sh`); the speech is espeak-ng's; the
//! STT is a test double that answers one fixed transcript for any utterance.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures::future::BoxFuture;
use hark_agent::Hearing;
use hark_llm::testing::Turn;
use hark_tools::{Interruption, ToolRegistry};
use hark_voice::testing::espeak_speech;
use hark_voice::{AudioChunk, EspeakConfig, Stt, Transcript, VadParams, VoiceError};
use serde_json::json;

const MIC_RATE: u32 = 16_000;

/// An STT that hears `text` in any utterance, and counts them.
#[derive(Debug)]
struct Ears(&'static str, Arc<std::sync::atomic::AtomicUsize>);

impl Stt for Ears {
    fn transcribe(&self, _: AudioChunk) -> BoxFuture<'static, Result<Transcript, VoiceError>> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let text = self.0;
        Box::pin(async move { Ok(Transcript::final_text(text)) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_result_waits_while_the_caller_speaks_and_their_turn_carries_it() {
    let slow = tool("check_order", |_| async {
        tokio::time::sleep(Duration::from_millis(1200)).await;
        Ok(json!({"status": "shipped"}))
    })
    .interruption(Interruption::Continue);
    let heard = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let ears = Arc::new(Ears("what about the weather tomorrow", heard.clone()));
    let hearing =
        tokio::task::spawn_blocking(move || Hearing::from_model_dir(VadParams::default(), ears))
            .await
            .unwrap()
            .expect("the VAD model (scripts/fetch-model.sh)");
    let mut rig = rig_with(
        vec![
            Turn::tool_call("call_1", "check_order", json!({})),
            Turn::text_reply(&["It will be sunny, and your order has shipped."]),
            Turn::text_reply(&["Anything else?"]),
        ],
        ToolRegistry::new(vec![slow]).unwrap(),
        |s| s.with_hearing(Arc::new(hearing)),
    )
    .await;
    assert!(rig.agent.listens());
    rig.agent.user_turn("Check my order.").await;
    requests(&rig.server, 1).await;
    // The caller talks for about three seconds, from before the tool's result comes (1.2 s)
    // to well after it, at real-time pace in the client's 16 ms frames.
    let speech = espeak_speech(
        "what about the weather tomorrow in madrid and in barcelona and in valencia",
        EspeakConfig::default(),
        MIC_RATE,
        0.3,
        1.2,
    )
    .await;
    assert!(
        speech.len() > 4 * MIC_RATE as usize,
        "the phrase is long enough"
    );
    let start = tokio::time::Instant::now();
    for (i, frame) in speech.chunks(256).enumerate() {
        rig.agent
            .hear(AudioChunk::new(frame.to_vec(), MIC_RATE))
            .await
            .expect("the call listens");
        tokio::time::sleep_until(start + Duration::from_millis(16 * (i as u64 + 1))).await;
    }
    until(|| rig.server.requests().len() >= 2).await;
    rig.agent.idle().await;
    assert_eq!(
        heard.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "one utterance"
    );
    let bodies = rig.server.bodies();
    assert_eq!(
        bodies.len(),
        2,
        "no turn of the bot's own while the caller spoke: {:?}",
        bodies.iter().map(wire_messages).collect::<Vec<_>>()
    );
    // The caller's turn carries the late result.
    let messages = wire_messages(&bodies[1]);
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .expect("a user message");
    assert_eq!(last_user["content"], "what about the weather tomorrow");
    let note = hark_tools::messages::late_result("check_order", "");
    assert!(
        messages.iter().any(|m| m["role"] == "system"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with(note.trim_end()) && c.contains("shipped"))),
        "the late result is in the caller's turn: {messages:?}"
    );
    drain(&mut rig.rx);
}
