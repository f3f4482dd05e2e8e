//! A call that hears with a streaming STT (Deepgram's live API, against its scripted server):
//! the caller's audio goes to the provider while they speak (the pre-roll first), interim
//! results go out as non-final `UserTranscription`s, the speech stop sends `Finalize`, and the
//! final texts are the user's turn, as the batch path takes it.
//!
//! The VAD is the real Silero model (`scripts/fetch-model.sh`); the speech is espeak-ng's.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hark_agent::{AgentEvent, Hearing, Recognizer};
use hark_llm::testing::Turn;
use hark_tools::ToolRegistry;
use hark_voice::testing::{DeepgramScript, DgStep, ScriptedDeepgram, espeak_speech};
use hark_voice::{AudioChunk, DeepgramConfig, DeepgramStt, EspeakConfig, VadParams};

const MIC_RATE: u32 = 16_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interim_results_while_the_caller_speaks_then_the_finals_are_the_turn() {
    let deepgram = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(16_000),
        DgStep::interim("what about"),
        DgStep::interim("what about the weather"),
        DgStep::final_result("What about the weather"),
        DgStep::AwaitFinalize,
        DgStep::finalized("tomorrow?"),
    ])])
    .await;
    let mut config = DeepgramConfig::new("nova-3");
    config.base_url = deepgram.url();
    config.api_key = Some("dg-test-key".to_owned());
    let stt = Recognizer::Streaming(Arc::new(DeepgramStt::new(config)));
    let hearing = tokio::task::spawn_blocking(move || {
        Hearing::from_model_dir_with(VadParams::default(), stt)
    })
    .await
    .unwrap()
    .expect("the VAD model (scripts/fetch-model.sh)");
    let mut rig = rig_with(
        vec![Turn::text_reply(&["It will be sunny."])],
        ToolRegistry::new(vec![]).unwrap(),
        |s| s.with_hearing(Arc::new(hearing)),
    )
    .await;
    let speech = espeak_speech(
        "what about the weather tomorrow",
        EspeakConfig::default(),
        MIC_RATE,
        0.3,
        1.2,
    )
    .await;
    let start = tokio::time::Instant::now();
    for (i, frame) in speech.chunks(256).enumerate() {
        rig.agent
            .hear(AudioChunk::new(frame.to_vec(), MIC_RATE))
            .await
            .expect("the call listens");
        tokio::time::sleep_until(start + Duration::from_millis(16 * (i as u64 + 1))).await;
    }
    until(|| !rig.server.requests().is_empty()).await;
    rig.agent.idle().await;

    // The LLM got the finals, joined, as the user's turn.
    let bodies = rig.server.bodies();
    assert_eq!(bodies.len(), 1);
    let messages = wire_messages(&bodies[0]);
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .expect("a user message");
    assert_eq!(last_user["content"], "What about the weather tomorrow?");

    // Interim results while the caller spoke, then the finals; the last one after the stop.
    let heard: Vec<String> = drain(&mut rig.rx)
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::UserStartedSpeaking => Some("started".to_owned()),
            AgentEvent::UserStoppedSpeaking => Some("stopped".to_owned()),
            AgentEvent::UserTranscription { text, is_final } => Some(format!(
                "{}: {text}",
                if is_final { "final" } else { "interim" }
            )),
            AgentEvent::Error { text, .. } => Some(format!("error: {text}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        heard,
        [
            "started",
            "interim: what about",
            "interim: what about the weather",
            "final: What about the weather",
            "stopped",
            "final: tomorrow?",
        ]
    );

    // One connection; the audio is a contiguous run of what the caller sent, from before the
    // speech start (the pre-roll) to the stop, then Finalize and CloseStream.
    assert!(deepgram.wait_ended(0, Duration::from_secs(5)).await);
    let connections = deepgram.connections();
    assert_eq!(connections.len(), 1);
    let c = &connections[0];
    assert_eq!(c.param("sample_rate"), Some("16000"));
    assert_eq!(c.control_types(), ["Finalize", "CloseStream"]);
    let sent: Vec<i16> = c
        .audio
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert!(
        sent.len() > MIC_RATE as usize,
        "more than a second: {}",
        sent.len()
    );
    let at = (0..=speech.len() - sent.len())
        .find(|&k| speech[k..k + sent.len()] == sent[..])
        .expect("the audio sent is a run of the caller's audio");
    assert!(
        at < (0.3 * f64::from(MIC_RATE)) as usize,
        "it begins in the silence before the speech (the pre-roll): sample {at}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_utterance_is_an_error_and_the_finals_before_it_are_the_turn() {
    let deepgram = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(16_000),
        DgStep::final_result("What about"),
        DgStep::Cut,
    ])])
    .await;
    let mut config = DeepgramConfig::new("nova-3");
    config.base_url = deepgram.url();
    let stt = Recognizer::Streaming(Arc::new(DeepgramStt::new(config)));
    let hearing = tokio::task::spawn_blocking(move || {
        Hearing::from_model_dir_with(VadParams::default(), stt)
    })
    .await
    .unwrap()
    .expect("the VAD model (scripts/fetch-model.sh)");
    let mut rig = rig_with(
        vec![Turn::text_reply(&["About what?"])],
        ToolRegistry::new(vec![]).unwrap(),
        |s| s.with_hearing(Arc::new(hearing)),
    )
    .await;
    let speech = espeak_speech(
        "what about the weather tomorrow",
        EspeakConfig::default(),
        MIC_RATE,
        0.3,
        1.2,
    )
    .await;
    let start = tokio::time::Instant::now();
    for (i, frame) in speech.chunks(256).enumerate() {
        rig.agent
            .hear(AudioChunk::new(frame.to_vec(), MIC_RATE))
            .await
            .expect("the call listens");
        tokio::time::sleep_until(start + Duration::from_millis(16 * (i as u64 + 1))).await;
    }
    until(|| !rig.server.requests().is_empty()).await;
    rig.agent.idle().await;
    let bodies = rig.server.bodies();
    let messages = wire_messages(&bodies[0]);
    let last_user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    assert_eq!(
        last_user["content"], "What about",
        "the final before the cut"
    );
    let events = drain(&mut rig.rx);
    let errors: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error { text, fatal } => {
                assert!(!fatal);
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(&format!(
            "deepgram STT at {}: the connection broke mid-utterance",
            deepgram.url()
        )),
        "{}",
        errors[0]
    );
    assert_eq!(
        deepgram.connections().len(),
        1,
        "no second connection for the same utterance"
    );
}
