//! OpenAI-compatible STT (`POST /v1/audio/transcriptions`) against a scripted server: the
//! multipart form is checked on the server side (a WAV `file` holding the utterance, `model`,
//! `response_format=json`, `language`), the `{"text"}` reply read, and errors and timeouts
//! name the provider.

use std::time::Duration;

use futures::FutureExt;
use hark_voice::testing::{Reply, ScriptedSpeechServer};
use hark_voice::{AudioChunk, HttpOptions, OpenAiStt, OpenAiSttConfig, Stt, VoiceError, read_wav};

fn utterance() -> AudioChunk {
    AudioChunk::new(
        (0..16_000)
            .map(|i| ((i % 100) * 300 - 15_000) as i16)
            .collect(),
        16_000,
    )
}

fn stt(server: &ScriptedSpeechServer) -> OpenAiStt {
    let mut config = OpenAiSttConfig::new(server.base_url(), "whisper-1");
    config.api_key = Some("sk-stt-key-456".to_owned());
    config.language = Some("en".to_owned());
    OpenAiStt::new(config)
}

#[tokio::test]
async fn an_utterance_is_uploaded_as_a_wav_form_and_its_text_comes_back() {
    let server =
        ScriptedSpeechServer::start(vec![Reply::transcript(" Add the blue mug to my cart. ")])
            .await;
    let transcript = stt(&server).transcribe(utterance()).await.unwrap();
    assert_eq!(transcript.text, "Add the blue mug to my cart.");
    assert!(transcript.is_final);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.path, "/v1/audio/transcriptions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-stt-key-456"));
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("multipart/form-data; boundary=")
    );
    let names: Vec<&str> = r.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["file", "model", "response_format", "language"]);
    let file = r.field("file").unwrap();
    assert_eq!(file.file_name.as_deref(), Some("utterance.wav"));
    assert_eq!(file.content_type.as_deref(), Some("audio/wav"));
    assert_eq!(
        read_wav(&file.bytes).unwrap(),
        utterance(),
        "the WAV holds the utterance"
    );
    assert_eq!(r.field("model").unwrap().text(), "whisper-1");
    assert_eq!(r.field("response_format").unwrap().text(), "json");
    assert_eq!(r.field("language").unwrap().text(), "en");
}

#[tokio::test]
async fn provider_errors_and_unreadable_replies_name_the_provider() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::error(401, "Incorrect API key provided."),
        Reply::body(200, "application/json", r#"{"transcript":"x"}"#),
        Reply::body(200, "text/plain", "add the blue mug"),
    ])
    .await;
    let stt = stt(&server);
    let provider = format!("openai-compatible STT at {}", server.base_url());
    let err = stt.transcribe(utterance()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{provider}: HTTP 401: Incorrect API key provided.; check the API key (the \
             environment variable named by api_key_env)"
        )
    );
    let err = stt.transcribe(utterance()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{provider}: unreadable reply: no \"text\" string in the JSON reply: \
             {{\"transcript\":\"x\"}}"
        )
    );
    let err = stt.transcribe(utterance()).await.unwrap_err();
    assert!(matches!(err, VoiceError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[tokio::test]
async fn a_slow_transcription_is_a_timeout_that_says_its_length() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::transcript("late").delayed(Duration::from_secs(5)),
    ])
    .await;
    let mut config = OpenAiSttConfig::new(server.base_url(), "whisper-1");
    config.options = HttpOptions {
        first_byte_timeout: Duration::from_millis(300),
        ..HttpOptions::default()
    };
    let err = OpenAiStt::new(config)
        .transcribe(utterance())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible STT at {}: timed out after 0.3 s waiting for the first byte of \
             the reply; the server may be overloaded or unreachable: try again, or raise \
             first_byte_timeout",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn an_empty_utterance_is_refused_before_any_request() {
    let server = ScriptedSpeechServer::start(vec![]).await;
    let err = stt(&server)
        .transcribe(AudioChunk::new(Vec::new(), 16_000))
        .now_or_never()
        .expect("refused at once")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "openai-compatible STT at {}: the utterance has no audio",
            server.base_url()
        )
    );
    assert!(server.requests().is_empty());
}
