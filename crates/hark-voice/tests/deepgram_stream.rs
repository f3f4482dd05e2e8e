//! Deepgram's live STT (`DeepgramStt`) against a scripted server of Deepgram's wire format: the
//! handshake's query and key header, the audio as linear16 at the rate the query gives,
//! interim then final transcripts, `Finalize` then `CloseStream` at the end of the utterance;
//! a refused handshake, a close frame and a cut connection mid-utterance, and a server silent
//! after `Finalize`, each an error naming the provider, what failed and what to do.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_voice::testing::{DeepgramScript, DgStep, ScriptedDeepgram};
use hark_voice::{DeepgramConfig, DeepgramStt, StreamingStt, Transcript, VoiceError};

const KEY: &str = "dg-secret-key-789";

fn stt(server: &ScriptedDeepgram) -> DeepgramStt {
    let mut config = DeepgramConfig::new("nova-3");
    config.base_url = server.url();
    config.api_key = Some(KEY.to_owned());
    config.language = Some("en".to_owned());
    config.final_timeout = Duration::from_millis(400);
    DeepgramStt::new(config)
}

/// `n` samples of a tone-like ramp (every value distinct enough to catch a byte-order slip).
fn speech(n: usize) -> Vec<i16> {
    (0..n)
        .map(|i| (((i * 7919) % 60_000) as i32 - 30_000) as i16)
        .collect()
}

fn interim(text: &str) -> Transcript {
    Transcript {
        text: text.to_owned(),
        is_final: false,
    }
}

/// Pushes `samples` in 20 ms chunks at `rate`, finishes, and reads the stream to its end.
async fn hear(
    stt: &DeepgramStt,
    rate: u32,
    samples: &[i16],
) -> (Vec<Transcript>, Option<VoiceError>) {
    let mut stream = stt.open(rate);
    for chunk in samples.chunks((rate / 50) as usize) {
        assert!(stream.push(chunk) || samples.is_empty());
    }
    stream.finish();
    let mut got = Vec::new();
    let mut error = None;
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                Ok(t) => got.push(t),
                Err(e) => error = Some(e),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the stream ends");
    (got, error)
}

#[tokio::test]
async fn interim_then_final_transcripts_and_the_audio_arrives_as_linear16_at_the_query_rate() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(3_200),
        DgStep::speech_started(),
        DgStep::interim("add the"),
        DgStep::interim("add the blue mug"),
        DgStep::final_result("Add the blue mug"),
        DgStep::AwaitFinalize,
        DgStep::interim("to my"),
        DgStep::finalized("to my cart."),
    ])])
    .await;
    let samples = speech(24_000);
    let (got, error) = hear(&stt(&server), 24_000, &samples).await;
    assert_eq!(error, None);
    assert_eq!(
        got,
        [
            interim("add the"),
            interim("add the blue mug"),
            Transcript::final_text("Add the blue mug"),
            interim("to my"),
            Transcript::final_text("to my cart."),
        ]
    );

    assert!(server.wait_ended(0, Duration::from_secs(5)).await);
    let c = &server.connections()[0];
    assert_eq!(c.param("model"), Some("nova-3"));
    assert_eq!(c.param("encoding"), Some("linear16"));
    assert_eq!(c.param("sample_rate"), Some("24000"));
    assert_eq!(c.param("channels"), Some("1"));
    assert_eq!(c.param("interim_results"), Some("true"));
    assert_eq!(c.param("smart_format"), Some("true"));
    assert_eq!(c.param("language"), Some("en"));
    assert_eq!(
        c.header("authorization"),
        Some(format!("Token {KEY}").as_str())
    );
    let expected: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    assert_eq!(
        c.audio, expected,
        "every sample, in order, as 16-bit little-endian PCM"
    );
    assert_eq!(c.control_types(), ["Finalize", "CloseStream"]);
}

#[tokio::test]
async fn without_a_from_finalize_result_the_stream_ends_at_close_streams_metadata() {
    // Deepgram may send no `from_finalize` result when nothing was buffered; CloseStream's
    // Metadata and normal close then end the utterance (the scripted server answers them).
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(640),
        DgStep::final_result("Yes."),
    ])])
    .await;
    let (got, error) = hear(&stt(&server), 16_000, &speech(8_000)).await;
    assert_eq!(error, None);
    assert_eq!(got, [Transcript::final_text("Yes.")]);
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_refused_key_names_deepgram_and_the_key_variable_and_never_shows_the_key() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::refuse(
        401,
        "INVALID_AUTH",
        &format!("Invalid credentials: {KEY}"),
    )])
    .await;
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .without_time()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    let (got, error) = hear(&stt(&server), 16_000, &speech(1_600)).await;
    drop(guard);
    assert!(got.is_empty());
    let error = error.expect("the handshake is refused");
    assert!(
        matches!(error, VoiceError::Http { status: 401, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "deepgram STT at {}: HTTP 401: Invalid credentials: [redacted] (INVALID_AUTH); check \
             the API key (the environment variable named by api_key_env)",
            server.url()
        )
    );
    assert!(!format!("{error:?}").contains(KEY));
    let mut config = DeepgramConfig::new("nova-3");
    config.api_key = Some(KEY.to_owned());
    assert!(!format!("{config:?}").contains(KEY), "{config:?}");
    assert!(!format!("{:?}", DeepgramStt::new(config)).contains(KEY));
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(!log.contains(KEY), "{log}");
    assert_eq!(
        server.connections()[0].header("authorization"),
        Some(format!("Token {KEY}").as_str()),
        "the key went in the header"
    );
}

#[tokio::test]
async fn a_close_frame_mid_utterance_is_an_error_after_the_finals_before_it() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(3_200),
        DgStep::final_result("Book a table"),
        DgStep::interim("for four"),
        DgStep::Close(1011, "NET-0000: no audio received in time".to_owned()),
    ])])
    .await;
    let stt = stt(&server);
    let mut stream = stt.open(16_000);
    assert!(stream.push(&speech(3_200)));
    let mut got = Vec::new();
    let error = loop {
        match stream.next().await.expect("an error ends the stream") {
            Ok(t) => got.push(t),
            Err(e) => break e,
        }
    };
    assert_eq!(
        got,
        [Transcript::final_text("Book a table"), interim("for four")],
        "what was final before the close is kept"
    );
    assert!(
        matches!(error, VoiceError::StreamClosed { code: 1011, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "deepgram STT at {}: the stream was closed mid-utterance (close code 1011: NET-0000: \
             no audio received in time); the words after the last final transcript were not \
             heard; the provider received no audio in time or failed: try again",
            server.url()
        )
    );
    assert!(stream.next().await.is_none(), "nothing after the error");
}

#[tokio::test]
async fn a_cut_connection_mid_utterance_is_a_clear_error_and_the_finals_before_it_stay() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(6_400),
        DgStep::final_result("My order number is"),
        DgStep::Cut,
    ])])
    .await;
    let stt = stt(&server);
    let mut stream = stt.open(16_000);
    assert!(stream.push(&speech(3_200)));
    let first = stream.next().await.expect("a transcript").unwrap();
    assert_eq!(first, Transcript::final_text("My order number is"));
    let error = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the cut is seen")
        .expect("an error")
        .unwrap_err();
    assert!(
        matches!(
            error,
            VoiceError::StreamLost {
                audio_bytes: 6_400,
                ..
            }
        ),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "deepgram STT at {}: the connection broke mid-utterance after 6400 bytes of audio \
             were sent (",
            server.url()
        )),
        "{text}"
    );
    assert!(
        text.ends_with(
            "); the words after the last final transcript were not heard: check the network and \
             try again"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_silent_after_finalize_hits_the_final_timeout() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitAudio(640),
        DgStep::interim("hello"),
        DgStep::AwaitFinalize,
        DgStep::Hang,
    ])])
    .await;
    let started = tokio::time::Instant::now();
    let (got, error) = hear(&stt(&server), 16_000, &speech(1_600)).await;
    assert_eq!(got, [interim("hello")]);
    let error = error.expect("the deadline");
    assert_eq!(
        error.to_string(),
        format!(
            "deepgram STT at {}: timed out after 0.4 s waiting for the final transcript after the \
             end of the utterance; the server may be overloaded or unreachable: try again, or \
             raise final_timeout",
            server.url()
        )
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn no_server_is_a_connect_error_naming_deepgram() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let mut config = DeepgramConfig::new("nova-3");
    config.base_url = format!("ws://127.0.0.1:{port}/v1/listen");
    config.api_key = Some(KEY.to_owned());
    let (got, error) = hear(&DeepgramStt::new(config), 16_000, &speech(320)).await;
    assert!(got.is_empty());
    let text = error.expect("no server").to_string();
    assert!(
        text.starts_with(&format!(
            "deepgram STT at ws://127.0.0.1:{port}/v1/listen: could not connect ("
        )),
        "{text}"
    );
    assert!(!text.contains(KEY));
}
