//! A call with a voice (`AgentSettings::with_tts`): each line is synthesized and played at
//! real-time pace in 20 ms frames, framed by the speaking events; talking over the bot cuts its
//! audio at once and the history keeps only what the caller heard; a line said with
//! `announce_wait` plays to its end; a TTS that fails names its provider and the call goes on.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures::stream;
use hark_agent::AgentEvent;
use hark_llm::testing::Turn;
use hark_tools::ToolRegistry;
use hark_voice::{AudioChunk, ProviderLabel, Role, Tts, TtsStream, VoiceError};
use serde_json::json;
use tokio::time::Instant;

/// The rate of the test voice and of the client: no resampling, so sample counts are exact.
const RATE: u32 = 24_000;
/// Samples per word: 60 ms of audio.
const PER_WORD: usize = 1_440;

/// A voice that says each word as 60 ms of a constant tone, in one chunk per word; a line
/// containing "fail" fails after its first word.
#[derive(Debug)]
struct WordVoice;

impl Tts for WordVoice {
    fn synthesize(&self, text: &str) -> TtsStream {
        let fail = text.contains("fail");
        let mut items: Vec<Result<AudioChunk, VoiceError>> = text
            .split_whitespace()
            .map(|_| Ok(AudioChunk::new(vec![1000; PER_WORD], RATE)))
            .collect();
        if fail {
            items.truncate(1);
            items.push(Err(VoiceError::Http {
                provider: ProviderLabel::remote("word-voice", Role::Tts, "http://127.0.0.1:1/v1"),
                status: 500,
                message: "scripted failure".into(),
            }));
        }
        Box::pin(stream::iter(items))
    }

    fn sample_rate(&self) -> u32 {
        RATE
    }
}

fn with_voice(s: hark_agent::AgentSettings) -> hark_agent::AgentSettings {
    s.with_tts(Arc::new(WordVoice), RATE)
}

/// Waits for the event `pred` picks, collecting every event on the way.
async fn until(
    rig: &mut Rig,
    seen: &mut Vec<(Instant, AgentEvent)>,
    pred: impl Fn(&AgentEvent) -> bool,
) {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let event = rig.rx.recv().await.expect("the output is open");
            let hit = pred(&event);
            seen.push((Instant::now(), event));
            if hit {
                return;
            }
        }
    })
    .await
    .expect("the event in time");
}

fn audio_samples(seen: &[(Instant, AgentEvent)]) -> usize {
    seen.iter()
        .map(|(_, e)| match e {
            AgentEvent::Audio(chunk) => chunk.samples.len(),
            _ => 0,
        })
        .sum()
}

/// The events around speech, without the text deltas and audio frames.
fn speech_events(seen: &[(Instant, AgentEvent)]) -> Vec<String> {
    seen.iter()
        .filter_map(|(_, e)| match e {
            // The model's events run beside the speaker's: their order against it varies.
            AgentEvent::Audio(_)
            | AgentEvent::TextDelta(_)
            | AgentEvent::LlmStarted
            | AgentEvent::LlmStopped => None,
            AgentEvent::Spoken { text, .. } => Some(format!("spoken {text}")),
            other => Some(other.name().to_string()),
        })
        .collect()
}

#[tokio::test]
async fn a_reply_plays_line_by_line_in_20_ms_frames_at_real_time_pace() {
    let mut rig = rig_with(
        vec![Turn::text_reply(&["One two three. ", "Four five."])],
        ToolRegistry::new(vec![]).unwrap(),
        with_voice,
    )
    .await;
    rig.agent.user_turn("Count to five.").await;
    let mut seen = Vec::new();
    until(&mut rig, &mut seen, |e| {
        matches!(e, AgentEvent::BotStoppedSpeaking)
    })
    .await;
    assert_eq!(
        speech_events(&seen),
        [
            "tts-started",
            "spoken One two three.",
            "bot-started-speaking",
            "tts-stopped",
            "tts-started",
            "spoken Four five.",
            "tts-stopped",
            "bot-stopped-speaking",
        ]
        .map(String::from),
        "{seen:?}"
    );
    // Every sample of both lines, in frames of 20 ms (480 samples at 24 kHz).
    assert_eq!(audio_samples(&seen), 5 * PER_WORD);
    for (_, e) in &seen {
        if let AgentEvent::Audio(chunk) = e {
            assert_eq!(chunk.sample_rate, RATE);
            assert_eq!(chunk.samples.len(), 480);
        }
    }
    // Real-time pace: 300 ms of audio cannot all be sent in less than 300 ms less the lead.
    let audio: Vec<Instant> = seen
        .iter()
        .filter(|(_, e)| matches!(e, AgentEvent::Audio(_)))
        .map(|(t, _)| *t)
        .collect();
    let spread = *audio.last().unwrap() - audio[0];
    let floor =
        Duration::from_millis(300) - hark_agent::playout::PLAYOUT_LEAD - Duration::from_millis(20);
    assert!(spread >= floor, "all audio sent within {spread:?}");
    // Both lines were heard: the history holds the whole reply.
    rig.agent.idle().await;
    assert!(rig.agent.history().iter().any(|m| matches!(m,
        hark_llm::Message::Assistant { content, .. } if content == "One two three. Four five.")));
}

#[tokio::test]
async fn talking_over_the_bot_cuts_its_audio_and_the_history_keeps_what_was_heard() {
    let long = "one two three four five six seven eight nine ten eleven twelve thirteen \
                fourteen fifteen sixteen seventeen eighteen nineteen twenty.";
    let mut rig = rig_with(
        vec![
            Turn::text_reply(&[long, " This line is never heard."]),
            Turn::text_reply(&["Okay."]),
        ],
        ToolRegistry::new(vec![]).unwrap(),
        with_voice,
    )
    .await;
    rig.agent.user_turn("Count to twenty.").await;
    let mut seen = Vec::new();
    until(&mut rig, &mut seen, |e| matches!(e, AgentEvent::Audio(_))).await;
    // About 300 ms into the first line (20 words are 1.2 s), the caller talks.
    tokio::time::sleep(Duration::from_millis(300)).await;
    rig.agent.user_turn("Stop.").await;
    until(
        &mut rig,
        &mut seen,
        |e| matches!(e, AgentEvent::Spoken { text, .. } if text == "Okay."),
    )
    .await;
    let events = speech_events(&seen);
    let cut_at = events.iter().position(|e| e == "bot-stopped-speaking");
    assert!(cut_at.is_some(), "{events:?}");
    assert!(
        !events.iter().any(|e| e.contains("never heard")),
        "the waiting line was dropped: {events:?}"
    );
    // Only part of the first line's audio went out before the cut.
    let before_cut: Vec<_> = seen
        .iter()
        .take_while(|(_, e)| !matches!(e, AgentEvent::BotStoppedSpeaking))
        .cloned()
        .collect();
    let sent = audio_samples(&before_cut);
    assert!(sent > 0 && sent < 20 * PER_WORD, "{sent} samples sent");
    // The model's next request holds the words heard, not the line cut off nor the dropped one.
    rig.agent.idle().await;
    let bodies = rig.server.bodies();
    let history = history_of(&bodies[1]);
    let said: Vec<&str> = history
        .iter()
        .filter_map(|m| match m {
            hark_llm::Message::Assistant { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(said.len(), 1, "{history:?}");
    assert!(said[0].starts_with("one two"), "{said:?}");
    assert!(
        !said[0].contains("twenty") && !said[0].contains("never"),
        "{said:?}"
    );
}

#[tokio::test]
async fn an_announce_wait_line_plays_to_its_end_when_the_caller_talks_over_it() {
    let slow = tool("lookup", |_| async {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        Ok(json!({"name": "found"}))
    })
    .announce(["Let me look that up for you in our records right now."])
    .unwrap()
    .announce_wait(true);
    let mut rig = rig_with(
        vec![
            Turn::tool_call("call_1", "lookup", json!({"q": "x"})),
            Turn::text_reply(&["Found it."]),
            Turn::text_reply(&["Okay."]),
        ],
        ToolRegistry::new(vec![slow]).unwrap(),
        with_voice,
    )
    .await;
    rig.agent.user_turn("Look it up.").await;
    let mut seen = Vec::new();
    until(&mut rig, &mut seen, |e| matches!(e, AgentEvent::Audio(_))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    rig.agent.user_turn("Never mind.").await;
    until(&mut rig, &mut seen, |e| matches!(e, AgentEvent::TtsStopped)).await;
    // All 12 words of the announce line were sent, though the caller talked over it.
    assert_eq!(audio_samples(&seen), 12 * PER_WORD);
    rig.agent.idle().await;
}

#[tokio::test]
async fn talking_over_a_reply_that_waits_on_its_announce_line_cuts_the_reply_at_once() {
    // The reply says a long sentence, then calls a tool whose announce line waits for its
    // audio: the turn waits for everything queued before it. The caller talks during the long
    // sentence: it stops at once (it is not waited for), the announce line plays to its end.
    let lookup = tool("lookup", |_| async { Ok(json!({"name": "found"})) })
        .announce(["One moment please."])
        .unwrap()
        .announce_wait(true);
    let long = "one two three four five six seven eight nine ten eleven twelve thirteen \
                fourteen fifteen sixteen seventeen eighteen nineteen twenty. ";
    let mut rig = rig_with(
        vec![
            Turn::stream()
                .text(long)
                .tool_call_start(0, "call_1", "lookup")
                .tool_call_args(0, r#"{"q": "x"}"#)
                .finish("tool_calls")
                .done(),
            Turn::text_reply(&["Okay."]),
            Turn::text_reply(&["Okay."]),
        ],
        ToolRegistry::new(vec![lookup]).unwrap(),
        with_voice,
    )
    .await;
    rig.agent.user_turn("Count, then look it up.").await;
    let mut seen = Vec::new();
    until(&mut rig, &mut seen, |e| matches!(e, AgentEvent::Audio(_))).await;
    // About 300 ms into the long sentence (1.2 s), the caller talks.
    tokio::time::sleep(Duration::from_millis(300)).await;
    rig.agent.user_turn("Stop.").await;
    until(
        &mut rig,
        &mut seen,
        |e| matches!(e, AgentEvent::Spoken { text, .. } if text == "Okay."),
    )
    .await;
    // The audio of each line said, by its `Spoken` event.
    let mut lines: Vec<(String, usize)> = Vec::new();
    for (_, e) in &seen {
        match e {
            AgentEvent::Spoken { text, .. } => lines.push((text.clone(), 0)),
            AgentEvent::Audio(chunk) => {
                if let Some(line) = lines.last_mut() {
                    line.1 += chunk.samples.len();
                }
            }
            _ => {}
        }
    }
    let long_sent = lines
        .iter()
        .find(|(t, _)| t.starts_with("one two"))
        .map(|l| l.1);
    assert!(
        long_sent.is_some_and(|n| n < 20 * PER_WORD),
        "the long sentence was cut when the caller talked, not played out: {lines:?}"
    );
    let announce = lines.iter().find(|(t, _)| t == "One moment please.");
    assert_eq!(
        announce.map(|l| l.1),
        Some(3 * PER_WORD),
        "the announce line plays to its end: {lines:?}"
    );
    rig.agent.idle().await;
    let history = rig.agent.history();
    let said: Vec<&str> = history
        .iter()
        .filter_map(|m| match m {
            hark_llm::Message::Assistant { content, .. } if !content.is_empty() => {
                Some(content.as_str())
            }
            _ => None,
        })
        .collect();
    assert!(
        said.iter().all(|s| !s.contains("twenty")),
        "the history keeps only what was heard: {said:?}"
    );
}

#[tokio::test]
async fn a_failing_voice_names_its_provider_and_the_next_line_still_plays() {
    let mut rig = rig_with(
        vec![Turn::text_reply(&[
            "This will fail now. ",
            "Then this plays.",
        ])],
        ToolRegistry::new(vec![]).unwrap(),
        with_voice,
    )
    .await;
    rig.agent.user_turn("Go.").await;
    let mut seen = Vec::new();
    until(&mut rig, &mut seen, |e| {
        matches!(e, AgentEvent::BotStoppedSpeaking)
    })
    .await;
    let error = seen
        .iter()
        .find_map(|(_, e)| match e {
            AgentEvent::Error { text, fatal } => Some((text.clone(), *fatal)),
            _ => None,
        })
        .expect("an error event");
    assert!(!error.1);
    assert!(error.0.contains("word-voice"), "{}", error.0);
    assert!(error.0.contains("[tts]"), "{}", error.0);
    // One word of the failed line, then all three of the next.
    assert_eq!(audio_samples(&seen), 4 * PER_WORD);
    assert!(speech_events(&seen).contains(&"spoken Then this plays.".to_string()));
}
