//! `hark serve --agent FILE` with an `[stt]` table hears the caller: microphone audio sent as
//! Pipecat's WebSocket client sends it (binary `pipecat.Frame` `AudioRawFrame`s, PCM16 mono at
//! 16 kHz, 16 ms each, at real-time pace) goes through the real Silero VAD and the STT of the
//! file (`hark_voice::testing::ScriptedSpeechServer`, OpenAI's `/audio/transcriptions`), and each
//! utterance becomes a user turn of the agent (`hark_llm::testing::ScriptedServer`).
//!
//! The speech is espeak-ng's (the Debian package); the VAD model comes from
//! `scripts/fetch-model.sh`, as for hark-voice's own VAD tests.

mod common;

use std::time::Duration;

use common::voice::*;
use common::*;
use futures::SinkExt;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_rtvi::frame::Frame;
use hark_server::ServerConfig;
use hark_voice::EspeakConfig;
use hark_voice::testing::{Reply, ScriptedSpeechServer, Step, espeak_speech};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// The microphone's rate and frame (the client's defaults: 16 kHz, 512 bytes).
const MIC_RATE: u32 = 16_000;
const MIC_FRAME: usize = 256;

/// `text` said by espeak-ng at 16 kHz, with `before` and `after` seconds of silence.
async fn said(text: &str, before: f64, after: f64) -> Vec<i16> {
    espeak_speech(text, EspeakConfig::default(), MIC_RATE, before, after).await
}

fn mic_frame(samples: &[i16]) -> Message {
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    Message::Binary(Frame::audio(bytes, MIC_RATE, 1).to_bytes().into())
}

/// What the client received, each with when it arrived.
type Heard = Vec<(Instant, Got)>;

/// Sends `samples` as microphone frames at real-time pace while reading what the server sends.
/// Returns what arrived and when the first loud frame was sent.
async fn talk(ws: &mut Ws, samples: &[i16]) -> (Heard, Option<Instant>) {
    let mut got = Vec::new();
    let mut first_loud = None;
    let start = Instant::now();
    for (i, frame) in samples.chunks(MIC_FRAME).enumerate() {
        let sent_at = Instant::now();
        if first_loud.is_none() && frame.iter().any(|s| s.unsigned_abs() > 328) {
            first_loud = Some(sent_at);
        }
        ws.send(mic_frame(frame)).await.expect("send audio");
        let due = start + Duration::from_millis(16 * (i as u64 + 1));
        while let Ok(next) = tokio::time::timeout_at(due, recv(ws)).await {
            got.push((Instant::now(), next));
        }
    }
    (got, first_loud)
}

fn rtvi_types(got: &[(Instant, Got)]) -> Vec<String> {
    got.iter()
        .filter_map(|(_, g)| match g {
            Got::Rtvi(m) => Some(m["type"].as_str().unwrap_or_default().to_owned()),
            Got::Audio { .. } => None,
        })
        .collect()
}

/// Reads until the RTVI message of type `until`, with arrival times.
async fn until_at(ws: &mut Ws, until: &str) -> Heard {
    let mut all = Vec::new();
    loop {
        let got = recv(ws).await;
        let done = matches!(&got, Got::Rtvi(m) if m["type"] == until);
        all.push((Instant::now(), got));
        if done {
            return all;
        }
    }
}

/// Reads on until `got` holds the RTVI message of type `until`.
async fn read_on(ws: &mut Ws, got: &mut Heard, until: &str) {
    if !rtvi_types(got).iter().any(|t| t == until) {
        got.extend(until_at(ws, until).await);
    }
}

/// 24 kHz PCM16 for the scripted voice, `seconds` long.
fn bot_voice(seconds: f64) -> Reply {
    let samples = (24_000.0 * seconds) as usize;
    let bytes: Vec<u8> = (0..samples)
        .flat_map(|i| ((i % 200) as i16 * 50).to_le_bytes())
        .collect();
    Reply::audio(
        bytes
            .chunks(4_800)
            .map(|c| Step::Bytes(c.to_vec()))
            .collect(),
    )
}

/// A server over an agent file with `[llm]`, `[tts]` and `[stt]` on the scripted servers;
/// returns the socket after the handshake and the `bot-ready`.
async fn serve(
    llm: &ScriptedServer,
    voice: &ScriptedSpeechServer,
    ears: &ScriptedSpeechServer,
    name: &str,
) -> (TestServer, Ws, Value) {
    let dir = std::env::temp_dir().join(format!("hark-voice-in-{name}-{}", std::process::id()));
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

[stt]
provider = "openai-compatible"
base_url = "{}"
model = "whisper-1"
language = "en"
api_key_env = "PATH"
"#,
            llm.base_url(),
            voice.base_url(),
            ears.base_url(),
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
    (server, ws, ready)
}

fn position(types: &[String], t: &str) -> usize {
    types
        .iter()
        .position(|x| x == t)
        .unwrap_or_else(|| panic!("no {t} in {types:?}"))
}

/// The `content` of the last user message the model was sent in request `n`.
fn last_user_text(llm: &ScriptedServer, n: usize) -> String {
    let body = &llm.bodies()[n];
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_speech_is_heard_transcribed_and_answered_aloud() {
    let llm = ScriptedServer::start(vec![Turn::text_reply(&["The blue mug is in your cart."])])
        .await
        .unwrap();
    let voice = ScriptedSpeechServer::start(vec![bot_voice(0.3)]).await;
    let ears =
        ScriptedSpeechServer::start(vec![Reply::transcript("add the blue mug to my cart")]).await;
    let (server, mut ws, ready) = serve(&llm, &voice, &ears, "turn").await;
    // The session says it hears and speaks.
    assert_eq!(ready["data"]["capabilities"]["audio_in"], true, "{ready}");
    assert_eq!(ready["data"]["capabilities"]["audio_out"], true, "{ready}");

    let speech = said("add the blue mug to my cart", 0.5, 1.0).await;
    let (mut got, first_loud) = talk(&mut ws, &speech).await;
    read_on(&mut ws, &mut got, "bot-stopped-speaking").await;
    if let (Some(loud), Some((at, _))) = (
        first_loud,
        got.iter()
            .find(|(_, g)| matches!(g, Got::Rtvi(m) if m["type"] == "user-started-speaking")),
    ) {
        println!(
            "user-started-speaking {:?} after the first loud sample",
            at.saturating_duration_since(loud)
        );
    }
    let types = rtvi_types(&got);
    // The caller's turn, then the bot's answer, in that order.
    let started = position(&types, "user-started-speaking");
    let stopped = position(&types, "user-stopped-speaking");
    let heard = position(&types, "user-transcription");
    let speaking = position(&types, "bot-started-speaking");
    assert!(
        started < stopped && stopped < heard && heard < speaking,
        "{types:?}"
    );
    assert_eq!(
        types
            .iter()
            .filter(|t| *t == "user-started-speaking")
            .count(),
        1,
        "one utterance: {types:?}"
    );
    let transcription = got
        .iter()
        .find_map(|(_, g)| match g {
            Got::Rtvi(m) if m["type"] == "user-transcription" => Some(m["data"].clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(transcription["text"], "add the blue mug to my cart");
    assert_eq!(transcription["final"], true);
    assert_eq!(transcription["user_id"], "");
    assert!(
        transcription["timestamp"]
            .as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .is_ok(),
        "{transcription}"
    );
    let bot_audio: usize = got
        .iter()
        .map(|(_, g)| match g {
            Got::Audio { bytes, .. } => *bytes,
            Got::Rtvi(_) => 0,
        })
        .sum();
    assert_eq!(bot_audio, (0.3 * 48_000.0) as usize, "the answer is heard");

    // The STT got the utterance as a WAV file: all of the speech (1 s kept from before the
    // start), not the silence after it.
    let asked = ears.requests();
    assert_eq!(asked.len(), 1, "one utterance, one transcription");
    assert!(
        asked[0].path.ends_with("/audio/transcriptions"),
        "{}",
        asked[0].path
    );
    assert_eq!(asked[0].field("model").unwrap().text(), "whisper-1");
    let wav = &asked[0].field("file").expect("the utterance's file").bytes;
    let audio = hark_voice::read_wav(wav).expect("a WAV file");
    assert_eq!(audio.sample_rate, MIC_RATE);
    let speech_len = speech.len() - (1.5 * f64::from(MIC_RATE)) as usize;
    assert!(
        audio.samples.len() >= speech_len && audio.samples.len() < speech.len(),
        "{} samples sent for {speech_len} of speech",
        audio.samples.len()
    );
    // The transcript is the model's user turn.
    assert_eq!(last_user_text(&llm, 0), "add the blue mug to my cart");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn talking_over_the_bot_stops_its_audio_and_the_history_keeps_what_was_heard() {
    let llm = ScriptedServer::start(vec![
        Turn::text_reply(&["This is a long answer that goes on and on."]),
        Turn::text_reply(&["Okay."]),
    ])
    .await
    .unwrap();
    let voice = ScriptedSpeechServer::start(vec![bot_voice(6.0), bot_voice(0.2)]).await;
    let ears = ScriptedSpeechServer::start(vec![Reply::transcript("stop please")]).await;
    let (server, mut ws, _) = serve(&llm, &voice, &ears, "barge").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "tell me"})),
    )
    .await;
    until_at(&mut ws, "bot-started-speaking").await;
    // The caller talks over the bot a moment after it began.
    let speech = said("add the red mug instead", 0.5, 1.0).await;
    let (mut got, first_loud) = talk(&mut ws, &speech).await;
    read_on(&mut ws, &mut got, "user-transcription").await;
    let first_loud = first_loud.expect("the speech is loud");
    let types = rtvi_types(&got);
    let started = position(&types, "user-started-speaking");
    let transcribed = position(&types, "user-transcription");
    assert!(started < transcribed, "{types:?}");
    // The cut line's last frame: the last audio before the first bot-stopped-speaking.
    let cut_at = got
        .iter()
        .position(|(_, g)| matches!(g, Got::Rtvi(m) if m["type"] == "bot-stopped-speaking"))
        .expect("the bot stopped speaking");
    let last_frame = got[..cut_at]
        .iter()
        .rev()
        .find(|(_, g)| matches!(g, Got::Audio { .. }))
        .map(|(at, _)| *at)
        .expect("the bot's audio was playing");
    let heard_at = got
        .iter()
        .find(|(_, g)| matches!(g, Got::Rtvi(m) if m["type"] == "user-started-speaking"))
        .map(|(at, _)| *at)
        .unwrap();
    println!(
        "barge-in: user-started-speaking {:?} after the first loud sample, the bot's last frame {:?} after the first loud sample",
        heard_at.saturating_duration_since(first_loud),
        last_frame.saturating_duration_since(first_loud),
    );
    // The bot went quiet on the VAD's first speech windows (the pause), well before their
    // `start_secs` (0.2 s, 12 microphone frames) confirmed the start: not at the confirmation.
    assert!(
        heard_at.saturating_duration_since(last_frame) >= Duration::from_millis(50),
        "the bot's audio went on until the start was confirmed: last frame {:?}, user-started-speaking {:?} after the first loud sample",
        last_frame.saturating_duration_since(first_loud),
        heard_at.saturating_duration_since(first_loud),
    );
    // Once the start is heard the cut line stops at once: at most the frames already on their
    // way (the 40 ms the speaker sends ahead) follow user-started-speaking.
    let heard_index = got
        .iter()
        .position(|(_, g)| matches!(g, Got::Rtvi(m) if m["type"] == "user-started-speaking"))
        .unwrap();
    let after_start = got[heard_index..cut_at]
        .iter()
        .filter(|(_, g)| matches!(g, Got::Audio { .. }))
        .count();
    assert!(
        after_start <= 2,
        "{after_start} frames of the cut line after user-started-speaking"
    );
    // Far less than the 6 s line was sent, and the next reply answers what the caller said.
    assert_eq!(last_user_text(&llm, 1), "stop please");
    let bot: Vec<String> = llm.bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        bot.iter().all(|c| !c.contains("on and on")),
        "the history holds what was heard: {bot:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_audio_is_dropped_with_one_error() {
    let llm = ScriptedServer::start(vec![]).await.unwrap();
    let voice = ScriptedSpeechServer::start(vec![]).await;
    let ears = ScriptedSpeechServer::start(vec![]).await;
    let (server, mut ws, _) = serve(&llm, &voice, &ears, "bad").await;
    // A 4 kHz frame, again and again: one error, naming the rate.
    for _ in 0..5 {
        let frame = Frame::audio(vec![0; 640], 4_000, 1).to_bytes();
        ws.send(Message::Binary(frame.into())).await.unwrap();
    }
    let error = recv_json(&mut ws).await;
    assert_eq!(error["type"], "error", "{error}");
    let text = error["data"]["error"].as_str().unwrap();
    assert!(text.starts_with("Audio frame dropped: "), "{text}");
    assert!(text.contains("4000"), "{text}");
    // Half a sample, and bytes that are no frame at all.
    let odd = Frame::audio(vec![0; 641], 16_000, 1).to_bytes();
    ws.send(Message::Binary(odd.into())).await.unwrap();
    ws.send(Message::Binary(vec![0xff; 64].into()))
        .await
        .unwrap();
    let refused = recv_json(&mut ws).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert!(
        !refused["data"]["error"]
            .as_str()
            .unwrap()
            .starts_with("Audio frame dropped"),
        "the odd frame is within the repeat window: {refused}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_minutes_of_silence_at_once_is_paced_and_no_turn_and_the_session_answers() {
    let llm = ScriptedServer::start(vec![]).await.unwrap();
    let voice = ScriptedSpeechServer::start(vec![]).await;
    let ears = ScriptedSpeechServer::start(vec![]).await;
    let (server, mut ws, _) = serve(&llm, &voice, &ears, "silence").await;
    // Ten minutes of silence in 3 s frames (the largest a frame may be), sent at once: what
    // runs more than 10 s ahead of real time is dropped, and the client is told once why.
    let three_seconds = vec![0u8; 96_000];
    for _ in 0..200 {
        let frame = Frame::audio(three_seconds.clone(), 16_000, 1).to_bytes();
        ws.send(Message::Binary(frame.into())).await.unwrap();
    }
    send_json(
        &mut ws,
        &envelope("client-message", "p1", json!({"t": "ping", "d": {"n": 1}})),
    )
    .await;
    let error = recv_json(&mut ws).await;
    assert_eq!(error["type"], "error", "{error}");
    let text = error["data"]["error"].as_str().unwrap();
    assert!(
        text.starts_with("Audio frame dropped: microphone audio arrives faster than real time"),
        "{text}"
    );
    assert!(text.contains("more than the 10.0 s allowed"), "{text}");
    // No speech, no transcription, and the session still answers.
    let pong = recv_json(&mut ws).await;
    assert_eq!(pong["type"], "server-response", "{pong}");
    assert_eq!(pong["data"]["d"]["n"], 1);
    assert!(
        ears.requests().is_empty(),
        "silence is nothing to transcribe"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audio_that_stops_mid_speech_is_a_speech_stop_and_is_heard() {
    let llm = ScriptedServer::start(vec![Turn::text_reply(&["Sure."])])
        .await
        .unwrap();
    let voice = ScriptedSpeechServer::start(vec![bot_voice(0.2)]).await;
    let ears = ScriptedSpeechServer::start(vec![Reply::transcript("add the blue")]).await;
    let (server, mut ws, _) = serve(&llm, &voice, &ears, "gap").await;
    // The microphone goes quiet in the middle of a word (muted, or the client stalled): no
    // silence reaches the VAD, only no audio at all.
    let speech = said("add the blue mug to my cart", 0.5, 0.0).await;
    let cut = (0.5 + 0.9) * f64::from(MIC_RATE);
    let (mut got, _) = talk(&mut ws, &speech[..cut as usize]).await;
    read_on(&mut ws, &mut got, "user-transcription").await;
    let types = rtvi_types(&got);
    let started = position(&types, "user-started-speaking");
    let stopped = position(&types, "user-stopped-speaking");
    assert!(started < stopped, "{types:?}");
    // What was said before the audio stopped went to the STT and became the user's turn.
    assert_eq!(ears.requests().len(), 1);
    read_on(&mut ws, &mut got, "bot-stopped-speaking").await;
    assert_eq!(last_user_text(&llm, 0), "add the blue");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sound_too_short_to_be_speech_pauses_the_bot_and_it_plays_on() {
    let llm = ScriptedServer::start(vec![Turn::text_reply(&["Here is your order summary."])])
        .await
        .unwrap();
    let voice = ScriptedSpeechServer::start(vec![bot_voice(3.0)]).await;
    let ears = ScriptedSpeechServer::start(vec![]).await;
    let (server, mut ws, _) = serve(&llm, &voice, &ears, "cough").await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "read my order"})),
    )
    .await;
    let opening = until_at(&mut ws, "bot-started-speaking").await;
    // The first 360 ms of a phrase, cut off (a word begun and swallowed, a cough): the VAD's
    // speech windows for about 130 ms, fewer than the `start_secs` (0.2 s) that confirm a
    // start (from 450 ms on, this audio is confirmed as speech).
    let speech = said("add the red mug", 0.0, 0.0).await;
    let loud = speech
        .iter()
        .position(|s| s.unsigned_abs() > 328)
        .expect("espeak-ng said it");
    let burst = &speech[loud..loud + (0.36 * f64::from(MIC_RATE)) as usize];
    let mut mic = vec![0i16; (0.3 * f64::from(MIC_RATE)) as usize];
    mic.extend_from_slice(burst);
    mic.extend(std::iter::repeat_n(
        0i16,
        (0.6 * f64::from(MIC_RATE)) as usize,
    ));
    let (mut got, first_loud) = talk(&mut ws, &mic).await;
    let first_loud = first_loud.expect("the sound is loud");
    read_on(&mut ws, &mut got, "bot-stopped-speaking").await;
    let types = rtvi_types(&got);
    assert!(
        !types.iter().any(|t| t == "user-started-speaking"),
        "the sound was not taken for speech: {types:?}"
    );
    // The bot was held while the VAD weighed the sound: one gap in its 20 ms frames...
    let frames: Vec<Instant> = got
        .iter()
        .filter(|(_, g)| matches!(g, Got::Audio { .. }))
        .map(|(at, _)| *at)
        .collect();
    let (gap, gap_start) = frames
        .windows(2)
        .map(|w| (w[1].saturating_duration_since(w[0]), w[0]))
        .max()
        .unwrap_or((Duration::ZERO, first_loud));
    println!("false start: the bot's audio paused for {gap:?}");
    assert!(
        gap >= Duration::from_millis(60),
        "the bot's audio was not paused (longest gap between frames {gap:?})"
    );
    assert!(
        gap_start >= first_loud,
        "the longest gap began before the sound was sent: not the pause"
    );
    // ...and then played on to the end of its line: nothing was dropped or cut.
    let heard: usize = opening
        .iter()
        .chain(&got)
        .map(|(_, g)| match g {
            Got::Audio { bytes, .. } => *bytes,
            Got::Rtvi(_) => 0,
        })
        .sum();
    assert_eq!(heard, (3.0 * 48_000.0) as usize, "the whole line was heard");
    assert!(ears.requests().is_empty(), "nothing to transcribe");
    server.stop().await;
}
