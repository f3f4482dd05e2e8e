//! OpenAI-compatible TTS (`POST /v1/audio/speech`, `response_format: "pcm"`) against a scripted
//! server of that wire format on loopback: audio streamed in chunks (the first arrives before
//! the last is sent), a stream cut mid-utterance, provider errors with OpenAI's error body,
//! timeouts, a body that is not audio, and cancellation by dropping the stream.

use std::time::Duration;

use futures::StreamExt;
use hark_voice::testing::{Gate, Reply, ScriptedSpeechServer, Step};
use hark_voice::{
    HttpOptions, OPENAI_PCM_RATE, OpenAiTts, OpenAiTtsConfig, TimeoutPhase, Tts, VoiceError,
};

fn pcm(samples: &[i16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_le_bytes()).collect()
}

fn tts(server: &ScriptedSpeechServer, options: HttpOptions) -> OpenAiTts {
    let mut config = OpenAiTtsConfig::new(server.base_url(), "gpt-4o-mini-tts", "alloy");
    config.api_key = Some("sk-test-key-123".to_owned());
    config.options = options;
    OpenAiTts::new(config)
}

fn label(server: &ScriptedSpeechServer) -> String {
    format!("openai-compatible TTS at {}", server.base_url())
}

#[tokio::test]
async fn speech_streams_chunk_by_chunk_and_the_first_arrives_before_the_last_is_sent() {
    let gate = Gate::new();
    let first: Vec<i16> = (0..480).map(|i| i * 10).collect();
    let second: Vec<i16> = (0..480).map(|i| -i * 10).collect();
    let mut second_bytes = pcm(&second);
    // The rest is split inside a sample: 3 bytes, then the others.
    let tail = second_bytes.split_off(3);
    let server = ScriptedSpeechServer::start(vec![Reply::audio(vec![
        Step::Bytes(pcm(&first)),
        Step::Wait(gate.clone()),
        Step::Bytes(second_bytes),
        Step::Delay(Duration::from_millis(20)),
        Step::Bytes(tail),
    ])])
    .await;
    let tts = tts(&server, HttpOptions::default());
    assert_eq!(tts.sample_rate(), 24_000);

    let mut stream = tts.synthesize("Your blue mug is in the cart.");
    let chunk = stream.next().await.unwrap().unwrap();
    // The server is still holding the rest behind the gate: this chunk came first.
    assert_eq!(chunk.sample_rate, OPENAI_PCM_RATE);
    assert_eq!(chunk.samples, first);
    gate.open();
    let mut rest = Vec::new();
    let mut chunks = 1;
    while let Some(c) = stream.next().await {
        let c = c.unwrap();
        assert_eq!(c.sample_rate, 24_000);
        rest.extend(c.samples);
        chunks += 1;
    }
    assert_eq!(rest, second);
    assert!(chunks >= 3, "{chunks} chunks");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.path, "/v1/audio/speech");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-key-123"));
    assert_eq!(
        r.json,
        serde_json::json!({"model": "gpt-4o-mini-tts", "input": "Your blue mug is in the cart.",
                           "voice": "alloy", "response_format": "pcm"})
    );
}

#[tokio::test]
async fn speed_and_instructions_are_sent_when_set() {
    let server =
        ScriptedSpeechServer::start(vec![Reply::audio(vec![Step::Bytes(pcm(&[1, 2]))])]).await;
    let mut config = OpenAiTtsConfig::new(format!("{}/", server.base_url()), "tts-1", "nova");
    config.speed = Some(1.25);
    config.instructions = Some("Speak warmly.".to_owned());
    let tts = OpenAiTts::new(config);
    let chunks: Vec<_> = tts.synthesize("Hi.").collect().await;
    assert_eq!(chunks.len(), 1);
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/audio/speech");
    assert_eq!(r.header("authorization"), None, "no key, no header");
    assert_eq!(r.json["speed"], 1.25);
    assert_eq!(r.json["instructions"], "Speak warmly.");
}

#[tokio::test]
async fn a_stream_cut_mid_utterance_names_the_provider_and_the_bytes_received() {
    let server = ScriptedSpeechServer::start(vec![Reply::audio(vec![
        Step::Bytes(pcm(&[7; 480])),
        Step::Delay(Duration::from_millis(20)),
        Step::Cut,
    ])])
    .await;
    let tts = tts(&server, HttpOptions::default());
    let mut stream = tts.synthesize("A line that breaks.");
    assert_eq!(stream.next().await.unwrap().unwrap().samples, vec![7; 480]);
    let err = stream.next().await.unwrap().unwrap_err();
    let VoiceError::StreamCut { bytes, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*bytes, 960);
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "{}: the audio stream was cut after 960 bytes (",
            label(&server)
        )),
        "{text}"
    );
    assert!(
        text.ends_with("); the line was not spoken to its end: try again"),
        "{text}"
    );
    assert!(
        stream.next().await.is_none(),
        "the stream ends after its error"
    );
}

#[tokio::test]
async fn a_body_that_ends_inside_a_sample_is_a_cut_stream() {
    let server =
        ScriptedSpeechServer::start(vec![Reply::audio(vec![Step::Bytes(vec![1, 0, 2])])]).await;
    let tts = tts(&server, HttpOptions::default());
    let items: Vec<_> = tts.synthesize("Odd.").collect().await;
    assert_eq!(items[0].as_ref().unwrap().samples, vec![1]);
    assert_eq!(
        items[1].as_ref().unwrap_err().to_string(),
        format!(
            "{}: the audio stream was cut after 3 bytes (the body ended inside a 16-bit sample); \
             the line was not spoken to its end: try again",
            label(&server)
        )
    );
}

#[tokio::test]
async fn provider_errors_carry_the_status_and_the_providers_own_message() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::error(401, "Incorrect API key provided: sk-test-key-123."),
        Reply::error(
            500,
            "The server had an error while processing your request.",
        ),
        Reply::body(404, "text/html", "<html>Not Found</html>"),
    ])
    .await;
    let tts = tts(&server, HttpOptions::default());
    let provider = label(&server);

    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert!(
        matches!(err, VoiceError::Http { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{provider}: HTTP 401: Incorrect API key provided: [redacted].; check the API key \
             (the environment variable named by api_key_env)"
        ),
        "the provider's words, with the key redacted"
    );

    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{provider}: HTTP 500: The server had an error while processing your request.; the \
             provider failed: try again later, or use another provider"
        )
    );

    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{provider}: HTTP 404: <html>Not Found</html>; check base_url (it should end in /v1 \
             for OpenAI) and the model name"
        )
    );
}

#[tokio::test]
async fn a_200_that_is_not_audio_says_to_check_base_url() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::body(200, "application/json", r#"{"object":"list","data":[]}"#),
        Reply::audio(vec![]),
    ])
    .await;
    let tts = tts(&server, HttpOptions::default());
    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: unreadable reply: HTTP 200 with application/json instead of audio \
             ({{\"object\":\"list\",\"data\":[]}}); check base_url",
            label(&server)
        )
    );
    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: unreadable reply: HTTP 200 with no audio in the body",
            label(&server)
        )
    );
}

#[tokio::test]
async fn no_headers_within_the_first_byte_timeout_is_a_timeout_that_says_its_length() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::audio(vec![Step::Bytes(pcm(&[1]))]).delayed(Duration::from_secs(5)),
    ])
    .await;
    let options = HttpOptions {
        first_byte_timeout: Duration::from_millis(250),
        ..HttpOptions::default()
    };
    let tts = tts(&server, options);
    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    assert!(
        matches!(
            err,
            VoiceError::Timeout {
                phase: TimeoutPhase::FirstByte,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: timed out after 0.25 s waiting for the first byte of the reply; the server may \
             be overloaded or unreachable: try again, or raise first_byte_timeout",
            label(&server)
        )
    );
}

#[tokio::test]
async fn a_stream_that_outlasts_the_total_timeout_is_a_timeout() {
    let server = ScriptedSpeechServer::start(vec![Reply::audio(vec![
        Step::Bytes(pcm(&[5; 10])),
        Step::Delay(Duration::from_secs(5)),
        Step::Bytes(pcm(&[5; 10])),
    ])])
    .await;
    let options = HttpOptions {
        total_timeout: Duration::from_millis(400),
        ..HttpOptions::default()
    };
    let tts = tts(&server, options);
    let mut stream = tts.synthesize("Slow.");
    assert_eq!(stream.next().await.unwrap().unwrap().samples.len(), 10);
    let err = stream.next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: timed out after 0.4 s waiting for the whole reply; the server may be overloaded \
             or unreachable: try again, or raise total_timeout",
            label(&server)
        )
    );
}

#[tokio::test]
async fn dropping_the_stream_closes_the_providers_connection() {
    let gate = Gate::new();
    let server = ScriptedSpeechServer::start(vec![Reply::audio(vec![
        Step::Bytes(pcm(&[3; 480])),
        Step::Wait(gate.clone()),
        Step::Bytes(pcm(&[3; 480])),
        Step::Delay(Duration::from_secs(10)),
        Step::Bytes(pcm(&[3; 480])),
    ])])
    .await;
    let tts = tts(&server, HttpOptions::default());
    let mut stream = tts.synthesize("A long line the caller talks over.");
    stream.next().await.unwrap().unwrap();
    drop(stream); // barge-in
    gate.open();
    assert!(
        server.wait_body_dropped(Duration::from_secs(5)).await,
        "the server's body was not dropped: the connection stayed open"
    );
}

#[tokio::test]
async fn an_empty_or_too_long_line_is_refused_before_any_request() {
    let server = ScriptedSpeechServer::start(vec![]).await;
    let tts = tts(&server, HttpOptions::default());
    let err = tts.synthesize("  ").next().await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the line to speak is empty; give it some text",
            label(&server)
        )
    );
    let err = tts
        .synthesize(&"a".repeat(4097))
        .next()
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the line to speak has 4097 characters, more than the 4096 the endpoint takes; \
             split it into shorter lines",
            label(&server)
        )
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_server_that_is_not_there_is_a_connect_error_naming_base_url() {
    let server = ScriptedSpeechServer::start(vec![]).await;
    let base = server.base_url();
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let tts = OpenAiTts::new(OpenAiTtsConfig::new(base.clone(), "tts-1", "alloy"));
    let err = tts.synthesize("Hello.").next().await.unwrap().unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, VoiceError::Connect { .. }), "{err:?}");
    assert!(
        text.starts_with(&format!(
            "openai-compatible TTS at {base}: could not connect ("
        )),
        "{text}"
    );
    assert!(
        text.ends_with("); check base_url and that the server is running"),
        "{text}"
    );
}

#[tokio::test]
async fn keys_in_the_base_url_never_reach_the_error_label() {
    let tts = OpenAiTts::new(OpenAiTtsConfig::new(
        "http://user:secret@127.0.0.1:9/v1/?key=secret#x",
        "tts-1",
        "alloy",
    ));
    assert_eq!(
        tts.label().to_string(),
        "openai-compatible TTS at http://127.0.0.1:9/v1"
    );
}
