//! The caller speaks to the demo page, end to end: the real demo page (`web/dist`) on the real
//! Pipecat JS client in headless Chromium, whose microphone is Chromium's fake device playing a
//! WAV file (espeak-ng `-v en-us -s 150` saying "add the blue mug to my cart", resampled to
//! 16 kHz mono here, with 0.5 s of silence before and 2 s after); a hark server whose sessions
//! run a voice agent beside the UI worker, hearing with the real Silero VAD and the real local STT
//! (`scripts/stt-server.py`: faster-whisper `tiny.en`, OpenAI's `/v1/audio/transcriptions`) and
//! speaking with espeak-ng (as `[tts] provider = "espeak-ng"`); and
//! `hark_llm::testing::ScriptedServer` as the voice LLM and the classifier's LLM.
//!
//! The test clicks the page's microphone button, then follows the turn in the order the page
//! receives it (the page's own client-js events, recorded in the page): `user-started-speaking`,
//! `user-stopped-speaking`, the final `user-transcription` (its text holds "blue mug") → the voice
//! LLM gets the transcript as the user's message and calls `screen` click on the blue mug's Add
//! to cart button → the page's cart count changes → the LLM's answer is spoken:
//! `bot-started-speaking`, the bot's audio frames, `bot-stopped-speaking`, and the page shows
//! the answer and the caller's line.
//!
//! Needs Debian's `chromium`, `chromium-driver` and `espeak-ng`, a built `web/dist` and the VAD
//! model (`scripts/fetch-model.sh`); when one is missing the test FAILS saying how to get it. The
//! local STT's Python is `HARK_STT_PYTHON` (the venv of `scripts/stt-env.sh`): without it the
//! test prints why it skips, except under CI, where it fails.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::chromium::*;
use common::*;
use fantoccini::Locator;
use hark_agent::Hearing;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, RetryPolicy};
use hark_rtvi::snapshot::{A11yNode, A11ySnapshot};
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, UiHandlerFactory, UiSessionConfig, VoiceAgentConfig};
use hark_tools::ToolRegistry;
use hark_ui::LlmClassifier;
use hark_voice::testing::espeak_speech;
use hark_voice::testing::{LocalSttServer, python_or_skip};
use hark_voice::{
    AudioChunk, EspeakConfig, EspeakTts, OpenAiStt, OpenAiSttConfig, VadParams, write_wav,
};
use serde_json::{Value, json};

/// What the caller says.
const PHRASE: &str = "add the blue mug to my cart";
/// The microphone file's rate (what the page records at, too).
const MIC_RATE: u32 = 16_000;
/// The bot's answer, said aloud.
const ANSWER: &str = "I added the blue mug to your cart.";

// Bounds of each step (hang guards with room for 2 busy cores, not timing assertions; the run
// prints the real times).
/// Clicking the button to the microphone capturing (the fake device opens at once).
const MIC_ON: Duration = Duration::from_secs(5);
/// The microphone on to the confirmed speech start: 0.5 s of silence, then 0.2 s of speech.
const SPEECH_START: Duration = Duration::from_secs(5);
/// The start to the stop: the phrase (about 2.5 s) and 0.2 s of silence.
const SPEECH_STOP: Duration = Duration::from_secs(8);
/// The stop to the transcription: the local STT on about 4 s of audio (about 1 s).
const TRANSCRIPTION: Duration = Duration::from_secs(10);
/// The transcription to the cart's change and to the bot's first audio (scripted LLMs, the
/// classifier's round, espeak-ng's first chunk).
const ANSWERED: Duration = Duration::from_secs(5);
/// The bot's first audio to its stop: the answer's length (about 2.5 s) at real-time pace.
const SPOKEN: Duration = Duration::from_secs(10);

/// The `Add to cart` button in the row `row` ("Blue mug €22.00").
fn add_button<'a>(snapshot: &'a A11ySnapshot, row: &str) -> &'a A11yNode {
    let rows = find(&snapshot.root, "listitem", row);
    assert_eq!(rows.len(), 1, "one row {row:?}");
    let buttons = find(rows[0], "button", "Add to cart");
    assert_eq!(buttons.len(), 1, "one Add to cart button in {row:?}");
    buttons[0]
}

/// `PHRASE` said by espeak-ng (`-v en-us -s 150`), at 16 kHz with `before` and `after` seconds
/// of silence, as a WAV file.
async fn phrase_wav(before: f64, after: f64) -> Vec<u8> {
    let config = EspeakConfig {
        voice: "en-us".into(),
        words_per_minute: 150,
        ..EspeakConfig::default()
    };
    let samples = espeak_speech(PHRASE, config, MIC_RATE, before, after).await;
    write_wav(&AudioChunk::new(samples, MIC_RATE)).expect("a WAV file")
}

/// A file removed when dropped (on failure too).
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Installed in the page before the microphone is turned on: records, in order and with
/// `performance.now()`, the RTVI events client-js reports, every bot audio frame the transport
/// hands to the page's media manager (`voice.bufferBotAudio`), and each change of the cart link.
const RECORDER: &str = r#"
if (window.harkVoiceTest) return true;
const demo = window.harkDemo;
const rec = { events: [] };
window.harkVoiceTest = rec;
const note = (type, data) => rec.events.push({ type, at: performance.now(), data: data ?? null });
const events = {
  userStartedSpeaking: "user-started-speaking",
  userStoppedSpeaking: "user-stopped-speaking",
  userTranscript: "user-transcription",
  botStartedSpeaking: "bot-started-speaking",
  botStoppedSpeaking: "bot-stopped-speaking",
  botTtsStarted: "bot-tts-started",
  botTtsStopped: "bot-tts-stopped",
  botOutput: "bot-output",
  botLlmStarted: "bot-llm-started",
  botLlmText: "bot-llm-text",
  botLlmStopped: "bot-llm-stopped",
};
for (const [event, type] of Object.entries(events)) demo.client.on(event, (data) => note(type, data));
const play = demo.voice.bufferBotAudio.bind(demo.voice);
demo.voice.bufferBotAudio = (data, id) => {
  note("audio", { bytes: data?.byteLength ?? 0 });
  return play(data, id);
};
const cart = document.getElementById("cart-link");
new MutationObserver(() => note("cart", cart.textContent))
  .observe(cart, { childList: true, characterData: true, subtree: true });
return true;
"#;

/// The recorded events, audio frames folded into counts so a failure's message stays short.
const SHOW_RECORD: &str = r#"
const rec = window.harkVoiceTest;
if (!rec) return null;
const out = [];
for (const e of rec.events) {
  const last = out[out.length - 1];
  if (e.type === "audio" && last?.type === "audio") last.frames += 1;
  else if (e.type === "audio") out.push({ type: "audio", frames: 1 });
  else out.push({ type: e.type, data: e.data });
}
return { events: out, log: document.getElementById("log")?.innerText ?? null };
"#;

/// A script that is true once the page recorded an event of `type` (with `final` for a
/// `user-transcription`).
fn recorded(type_: &str) -> String {
    let extra = if type_ == "user-transcription" {
        " && e.data?.final === true"
    } else {
        ""
    };
    format!(
        "return (window.harkVoiceTest?.events ?? []).some((e) => e.type === {}{extra});",
        json!(type_)
    )
}

/// Evaluates `script` in the page until it returns `true`, for at most `limit`; on timeout,
/// fails showing what the page recorded.
async fn within(browser: &fantoccini::Client, limit: Duration, what: &str, script: &str) {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let v = browser
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{what}: script failed: {e}"));
        if v == json!(true) {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            let seen = browser
                .execute(SHOW_RECORD, vec![])
                .await
                .unwrap_or(Value::Null);
            panic!("{what}: not within {limit:?}; the page recorded {seen:#}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Lowercase words, punctuation dropped: "Add the blue mug to my cart." → "add the blue mug to
/// my cart".
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `content` of the last user message of the provider request `body`.
fn last_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caller_says_add_the_blue_mug_and_the_page_changes_and_the_bot_answers_aloud() {
    let test = "browser_voice";
    let Some(python) = python_or_skip(test) else {
        return;
    };
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);
    let began = tokio::time::Instant::now();

    // The microphone's file.
    let wav = TempFile(
        std::env::temp_dir().join(format!("hark-browser-voice-{}.wav", std::process::id())),
    );
    std::fs::write(&wav.0, phrase_wav(0.5, 2.0).await).expect("write the WAV file");

    // The ears: the Silero VAD and the local STT.
    let stt_server = LocalSttServer::start(&python, "browser-voice");
    let stt = OpenAiStt::new(OpenAiSttConfig::new(stt_server.base_url(), "tiny.en"));
    let hearing = Hearing::from_model_dir(VadParams::default(), Arc::new(stt))
        .unwrap_or_else(|e| panic!("the VAD model loads ({e}): run scripts/fetch-model.sh"));

    // The voice agent (a scripted LLM) with espeak-ng's voice, beside the UI worker.
    let llm = ScriptedServer::start(Vec::new())
        .await
        .expect("scripted LLM");
    let provider = Arc::new(
        OpenAiCompatible::new(llm.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    );
    let agent = VoiceAgentConfig::new(
        provider.clone(),
        "voice-model",
        "You are the shop's voice.",
        Arc::new(ToolRegistry::new(vec![]).unwrap()),
    )
    .tts(Arc::new(EspeakTts::new(EspeakConfig::default())))
    .hearing(Arc::new(hearing));
    assert!(agent.hears() && agent.speaks());
    let config = UiSessionConfig::new()
        .classifier(Arc::new(LlmClassifier::new(
            provider.clone(),
            "classifier-model",
        )))
        .voice_agent(agent);
    let factory = Arc::new(UiHandlerFactory::new(config).expect("a valid config"));
    let server = TestServer::start_with(
        ServerConfig {
            web_dir: Some(web_dir),
            ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
        },
        Some(factory),
    );

    // The page connects, with the fake microphone playing the file once (`%noloop`; then
    // silence): looped, the phrase comes again about 2.5 s after it ended, while the bot
    // answers, and barges in.
    let mut events = server.sessions.subscribe();
    let (driver, browser) = start_browser_with(
        "voice",
        &[
            "--use-fake-ui-for-media-stream".to_owned(),
            "--use-fake-device-for-media-stream".to_owned(),
            format!(
                "--use-file-for-fake-audio-capture={}%noloop",
                wav.0.display()
            ),
        ],
    )
    .await;
    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");
    let id = wait_ready(&mut events).await;
    let first = next_snapshot(&mut events, id, |s| {
        !find(&s.root, "listitem", "Blue mug €22.00").is_empty()
    })
    .await;
    let add = add_button(&first, "Blue mug €22.00").ref_.to_string();
    page_until(
        &browser,
        "the page is connected",
        "return document.body.dataset.rtviState === 'ready' && !document.getElementById('mic').disabled;",
    )
    .await;
    let connected = began.elapsed();

    // The voice LLM calls screen click, the classifier picks the button, the LLM answers.
    llm.push(Turn::tool_call(
        "call_1",
        "screen",
        json!({"action": "click", "target": "the add to cart button of the blue mug"}),
    ));
    llm.push(Turn::text_reply(&[
        &json!({"element": {"choice": add, "probabilities": {add.as_str(): 0.93}}}).to_string(),
    ]));
    llm.push(Turn::text_reply(&[ANSWER]));

    // The caller clicks the microphone button and speaks.
    browser
        .execute(RECORDER, vec![])
        .await
        .expect("install the recorder");
    browser
        .find(Locator::Id("mic"))
        .await
        .expect("the microphone button")
        .click()
        .await
        .expect("click the microphone button");
    within(
        &browser,
        MIC_ON,
        "the microphone captures",
        "return window.harkDemo.voice.micState === 'on';",
    )
    .await;
    within(
        &browser,
        SPEECH_START,
        "user-started-speaking",
        &recorded("user-started-speaking"),
    )
    .await;
    within(
        &browser,
        SPEECH_STOP,
        "user-stopped-speaking",
        &recorded("user-stopped-speaking"),
    )
    .await;
    within(
        &browser,
        TRANSCRIPTION,
        "the final user-transcription",
        &recorded("user-transcription"),
    )
    .await;
    within(
        &browser,
        ANSWERED,
        "the cart count",
        "return document.getElementById('cart-link').textContent === 'Cart (1)';",
    )
    .await;
    within(
        &browser,
        ANSWERED,
        "bot-started-speaking",
        &recorded("bot-started-speaking"),
    )
    .await;
    within(
        &browser,
        SPOKEN,
        "bot-stopped-speaking",
        &recorded("bot-stopped-speaking"),
    )
    .await;

    // In order, as the page received them.
    let record = browser
        .execute("return window.harkVoiceTest.events;", vec![])
        .await
        .expect("read the record");
    let shown = browser
        .execute(SHOW_RECORD, vec![])
        .await
        .unwrap_or(Value::Null);
    let record = record.as_array().expect("the recorded events").clone();
    let at = |i: usize| record[i]["at"].as_f64().unwrap();
    let first_of = |type_: &str| {
        record
            .iter()
            .position(|e| {
                e["type"] == type_
                    && (type_ != "user-transcription" || e["data"]["final"] == json!(true))
            })
            .unwrap_or_else(|| panic!("no {type_} in {shown:#}"))
    };
    let count = |type_: &str| record.iter().filter(|e| e["type"] == type_).count();
    let started = first_of("user-started-speaking");
    let stopped = first_of("user-stopped-speaking");
    let heard = first_of("user-transcription");
    let cart = first_of("cart");
    let speaking = first_of("bot-started-speaking");
    let audio = first_of("audio");
    let done = first_of("bot-stopped-speaking");
    assert!(
        started < stopped
            && stopped < heard
            && heard < cart
            && cart < speaking
            && speaking < audio
            && audio < done,
        "the turn's order: {shown:#}"
    );
    assert_eq!(
        count("user-started-speaking"),
        1,
        "one utterance: {shown:#}"
    );
    assert_eq!(count("bot-started-speaking"), 1, "one answer: {shown:#}");
    assert_eq!(count("cart"), 1, "one item added: {shown:#}");
    let frames_while_speaking = record[speaking..done]
        .iter()
        .filter(|e| e["type"] == "audio")
        .count();
    assert_eq!(
        frames_while_speaking,
        count("audio"),
        "every bot audio frame between bot-started-speaking and bot-stopped-speaking: {shown:#}"
    );
    let audio_bytes: u64 = record
        .iter()
        .filter(|e| e["type"] == "audio")
        .map(|e| e["data"]["bytes"].as_u64().unwrap_or(0))
        .sum();
    // The answer is about 2 s at 24 kHz PCM16: well over a second of audio.
    assert!(
        audio_bytes > 48_000,
        "{audio_bytes} bytes of bot audio for {ANSWER:?}"
    );

    // What the caller said: the transcription, the page's own line and the LLM's user turn.
    let transcript = record[heard]["data"]["text"]
        .as_str()
        .expect("the transcription's text")
        .to_owned();
    assert!(
        plain(&transcript).contains("blue mug"),
        "the transcription: {transcript:?}"
    );
    let user_lines = browser
        .execute(
            "return [...document.querySelectorAll('#log li.user .text')].map((e) => e.textContent);",
            vec![],
        )
        .await
        .expect("read the user lines");
    assert_eq!(
        user_lines,
        json!([transcript.split_whitespace().collect::<Vec<_>>().join(" ")]),
        "the page shows what the caller said, once"
    );
    let bot_lines = browser
        .execute(
            "return [...document.querySelectorAll('#log li.bot .text')].map((e) => e.textContent);",
            vec![],
        )
        .await
        .expect("read the bot lines");
    // The answer's line, once, and no other bot text (with a voice the sentence's `bot-output`
    // comes after `bot-llm-stopped`; it stays on the reply's line).
    let bot_lines: Vec<&str> = bot_lines
        .as_array()
        .expect("bot lines")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        bot_lines,
        [ANSWER],
        "the page shows the answer once: {shown:#}"
    );
    let bodies = llm.bodies();
    assert_eq!(bodies.len(), 3, "voice, classifier, voice: {bodies:#?}");
    assert_eq!(bodies[0]["model"], "voice-model");
    let said = last_user_text(&bodies[0]);
    assert!(
        said.contains(&transcript),
        "the voice LLM's user turn {said:?} holds the transcript {transcript:?}"
    );
    assert_eq!(bodies[1]["model"], "classifier-model");
    let result = &bodies[2]["messages"].as_array().unwrap().last().unwrap()["content"];
    assert_eq!(result, r#"{"done":true,"label":"Add to cart (Blue mug)"}"#);

    let played = browser
        .execute(
            "const v = window.harkDemo.voice; return [v.audioState, v.playedSeconds, v.droppedSeconds];",
            vec![],
        )
        .await
        .unwrap_or(Value::Null);
    println!(
        "browser_voice: transcript {transcript:?}; connected {connected:?} after the start; \
         on the page: speech {:.0} ms, user-stopped-speaking → user-transcription {:.0} ms, \
         → cart {:.0} ms, → bot-started-speaking {:.0} ms, → first bot audio {:.0} ms \
         (user-stopped-speaking → first bot audio {:.0} ms), bot audio {:.0} ms ({} frames, \
         {audio_bytes} bytes); the page's player [state, played s, dropped s] {played}; \
         whole test {:?}",
        at(stopped) - at(started),
        at(heard) - at(stopped),
        at(cart) - at(heard),
        at(speaking) - at(heard),
        at(audio) - at(heard),
        at(audio) - at(stopped),
        at(done) - at(audio),
        count("audio"),
        began.elapsed(),
    );

    browser.close().await.ok();
    drop(driver);
    server.stop().await;
    println!(
        "browser_voice: the STT server's log:\n{}",
        stt_server.stderr_tail()
    );
    drop(stt_server);
}
