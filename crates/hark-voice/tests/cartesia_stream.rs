//! Cartesia's TTS WebSocket against a scripted server of its wire format on loopback
//! (`hark_voice::testing::CartesiaServer`): a line's audio as sent, two lines on one connection
//! kept apart by context, cancel on drop, provider errors, a close frame and a cut connection
//! mid-line (and the reconnect after), a refused key, deadlines, bad data, and the key kept out
//! of every error and log.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hark_voice::testing::{CartesiaServer, CartesiaStep as S, Gate, Handshake};
use hark_voice::{
    CARTESIA_VERSION, CartesiaConfig, CartesiaTimeouts, CartesiaTts, TimeoutPhase, Tts, VoiceError,
};
use serde_json::json;

const KEY: &str = "sk_car_test-key-123";
const VOICE: &str = "a0e99841-438c-4a64-b679-ae501e7d6091";
const LIMIT: Duration = Duration::from_secs(5);

fn config(server: &CartesiaServer) -> CartesiaConfig {
    let mut config = CartesiaConfig::new(VOICE);
    config.base_url = server.url();
    config.api_key = Some(KEY.to_owned());
    config.key_env = Some("CARTESIA_API_KEY".to_owned());
    config.language = Some("en".to_owned());
    config
}

fn tts(server: &CartesiaServer) -> CartesiaTts {
    CartesiaTts::new(config(server))
}

fn label(server: &CartesiaServer) -> String {
    format!("cartesia TTS at {}", server.url())
}

fn ramp(n: i16, step: i16) -> Vec<i16> {
    (0..n).map(|i| i.wrapping_mul(step)).collect()
}

fn bytes(samples: &[i16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// Every sample of a stream, or its error.
async fn all(stream: hark_voice::TtsStream) -> Result<Vec<i16>, VoiceError> {
    let mut samples = Vec::new();
    let mut stream = stream;
    while let Some(chunk) = stream.next().await {
        samples.extend(chunk?.samples);
    }
    Ok(samples)
}

fn context_of(server: &CartesiaServer, n: usize) -> String {
    server.requests()[n].json["context_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_lines_audio_arrives_as_the_samples_sent_with_the_documented_request() {
    let first = ramp(480, 10);
    let second = ramp(480, -7);
    // The second chunk is split inside a sample: 3 bytes, then the rest.
    let mut second_bytes = bytes(&second);
    let tail = second_bytes.split_off(3);
    let gate = Gate::new();
    let server = CartesiaServer::start(vec![vec![
        S::samples(&first),
        S::Wait(gate.clone()),
        S::Timestamps,
        S::Audio(second_bytes),
        S::Audio(tail),
        S::Done,
    ]])
    .await;
    let tts = tts(&server);
    assert_eq!(tts.sample_rate(), 24_000);

    let mut stream = tts.synthesize("Your blue mug is in the cart.");
    let chunk = stream.next().await.unwrap().unwrap();
    // The server holds the rest behind the gate: the first chunk came on its own.
    assert_eq!(chunk.sample_rate, 24_000);
    assert_eq!(chunk.samples, first);
    gate.open();
    assert_eq!(all(stream).await.unwrap(), second);

    let connections = server.connections();
    assert_eq!(connections.len(), 1);
    let c = &connections[0];
    assert_eq!(c.path, "/tts/websocket");
    assert_eq!(c.header("x-api-key"), Some(KEY));
    assert_eq!(c.header("cartesia-version"), Some(CARTESIA_VERSION));
    assert_eq!(c.query, "", "the key is never in the URL");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let context_id = context_of(&server, 0);
    assert_eq!(
        requests[0].json,
        json!({"model_id": "sonic-3.5", "transcript": "Your blue mug is in the cart.",
               "voice": {"mode": "id", "id": VOICE}, "context_id": context_id,
               "output_format": {"container": "raw", "encoding": "pcm_s16le",
                                 "sample_rate": 24000},
               "continue": false, "add_timestamps": false, "language": "en"})
    );
    assert!(
        server.cancels().is_empty(),
        "a finished line is not cancelled"
    );
}

#[tokio::test]
async fn two_lines_on_one_connection_keep_their_contexts_apart() {
    let a = [ramp(100, 3), ramp(100, 5)];
    let b = [ramp(100, -3), ramp(100, -5)];
    let server = CartesiaServer::start(vec![
        vec![
            S::samples(&a[0]),
            S::Delay(Duration::from_millis(60)),
            S::samples(&a[1]),
            S::Done,
        ],
        vec![
            S::samples(&b[0]),
            S::Delay(Duration::from_millis(20)),
            S::samples(&b[1]),
            S::Done,
        ],
    ])
    .await;
    let tts = tts(&server);
    let mut first = tts.synthesize("First line.");
    // The first line is sent (and its first chunk heard) before the second starts.
    let head = first.next().await.unwrap().unwrap().samples;
    let second = tts.synthesize("Second line.");
    let (rest, second) = tokio::join!(all(first), all(second));
    assert_eq!([head, rest.unwrap()].concat(), a.concat());
    assert_eq!(second.unwrap(), b.concat());

    assert_eq!(
        server.connections().len(),
        1,
        "one connection for both lines"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_ne!(context_of(&server, 0), context_of(&server, 1));
    assert_eq!(requests[1].json["transcript"], "Second line.");
    assert!(requests.iter().all(|r| r.connection == 0));

    // A third line later reuses it too.
    server.push_scripts(vec![vec![S::samples(&[9; 10]), S::Done]]);
    assert_eq!(all(tts.synthesize("Third.")).await.unwrap(), vec![9; 10]);
    assert_eq!(server.connections().len(), 1);
}

#[tokio::test]
async fn dropping_a_stream_mid_line_sends_a_cancel_for_its_context_and_the_next_line_works() {
    let gate = Gate::new();
    let server = CartesiaServer::start(vec![
        vec![
            S::samples(&[3; 480]),
            S::Wait(gate.clone()),
            S::samples(&[3; 480]),
            S::Done,
        ],
        vec![S::samples(&[4; 10]), S::Done],
    ])
    .await;
    let tts = tts(&server);
    let mut stream = tts.synthesize("A long line the caller talks over.");
    stream.next().await.unwrap().unwrap();
    drop(stream); // barge-in
    let context_id = context_of(&server, 0);
    assert!(
        server.wait_cancel(&context_id, LIMIT).await,
        "no cancel for {context_id}: {:?}",
        server.messages()
    );
    let cancel = server.messages().last().unwrap().json.clone();
    assert_eq!(cancel, json!({"context_id": context_id, "cancel": true}));
    gate.open(); // the cancelled script would go on: nothing of it reaches the next line

    assert_eq!(all(tts.synthesize("Next.")).await.unwrap(), vec![4; 10]);
    assert_eq!(server.connections().len(), 1, "the connection stayed open");
    assert_eq!(server.cancels(), vec![context_id]);
}

#[tokio::test]
async fn a_provider_error_names_cartesia_and_the_status() {
    let server = CartesiaServer::start(vec![
        vec![S::error(
            400,
            "Invalid voice",
            "The voice a0e9 was not found; make sure it is a valid voice ID.",
        )],
        vec![S::samples(&[1; 4]), S::Done],
    ])
    .await;
    let tts = tts(&server);
    let err = all(tts.synthesize("Hello.")).await.unwrap_err();
    assert!(
        matches!(err, VoiceError::Http { status: 400, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: HTTP 400: Invalid voice: The voice a0e9 was not found; make sure it is a valid \
             voice ID.; check the request settings (model, voice, format) against the provider's \
             documentation",
            label(&server)
        )
    );
    // The error ended that context only: the connection serves the next line.
    assert_eq!(all(tts.synthesize("Again.")).await.unwrap(), vec![1; 4]);
    assert_eq!(server.connections().len(), 1);
    assert!(
        server.cancels().is_empty(),
        "Cartesia ended the context itself"
    );
}

#[tokio::test]
async fn a_connection_cut_mid_line_is_an_error_for_that_line_and_the_next_line_reconnects() {
    let server = CartesiaServer::start(vec![
        vec![
            S::samples(&[7; 480]),
            S::Delay(Duration::from_millis(20)),
            S::Cut,
        ],
        vec![S::samples(&[8; 20]), S::Done],
        vec![S::samples(&[5; 2]), S::Close],
        vec![S::samples(&[6; 2]), S::Done],
    ])
    .await;
    let tts = tts(&server);
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
            "{}: the audio stream was cut after 960 bytes (the connection broke: ",
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

    assert_eq!(all(tts.synthesize("Next.")).await.unwrap(), vec![8; 20]);
    assert_eq!(server.connections().len(), 2, "the next line reconnected");

    // A close frame mid-line: the same, with Cartesia's code and reason.
    let err = all(tts.synthesize("Closed.")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the audio stream was cut after 4 bytes (Cartesia closed the connection: code \
             1000, scripted close); the line was not spoken to its end: try again",
            label(&server)
        )
    );
    assert_eq!(all(tts.synthesize("After.")).await.unwrap(), vec![6; 2]);
    assert_eq!(server.connections().len(), 3);
}

#[tokio::test]
async fn a_401_at_the_handshake_names_the_keys_environment_variable() {
    let server = CartesiaServer::start_with(
        vec![Handshake::refuse(
            401,
            "Invalid API key",
            &format!("The API key {KEY} is not valid."),
        )],
        vec![vec![S::samples(&[2; 2]), S::Done]],
    )
    .await;
    let tts = tts(&server);
    let err = all(tts.synthesize("Hello.")).await.unwrap_err();
    assert!(
        matches!(err, VoiceError::KeyRefused { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: HTTP 401: Invalid API key: The API key [redacted] is not valid.; the key in the \
             environment variable CARTESIA_API_KEY was refused: check that it holds a valid key \
             for this provider",
            label(&server)
        )
    );
    // Nothing was kept of the refused connection: the next line connects again.
    assert_eq!(all(tts.synthesize("Hello.")).await.unwrap(), vec![2; 2]);
    assert_eq!(server.connections().len(), 2);
}

#[tokio::test]
async fn a_line_whose_audio_never_ends_hits_the_total_timeout_and_is_cancelled() {
    // Audio every 50 ms, well inside the stall limit, for far longer than a line may take.
    let mut trickle = Vec::new();
    for _ in 0..200 {
        trickle.push(S::samples(&[1; 10]));
        trickle.push(S::Delay(Duration::from_millis(50)));
    }
    trickle.push(S::Done);
    let server = CartesiaServer::start(vec![trickle]).await;
    let mut config = config(&server);
    config.timeouts = CartesiaTimeouts {
        stall_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_millis(600),
        ..CartesiaTimeouts::default()
    };
    let tts = CartesiaTts::new(config);
    let mut stream = tts.synthesize("On and on.");
    let mut chunks = 0;
    let err = loop {
        match stream.next().await.expect("an error ends it, not the end") {
            Ok(_) => chunks += 1,
            Err(e) => break e,
        }
    };
    assert!(chunks >= 2, "audio came before the limit: {chunks} chunks");
    assert!(chunks < 200, "the line was cut off: {chunks} chunks");
    assert!(
        matches!(
            err,
            VoiceError::Timeout {
                phase: TimeoutPhase::Total,
                after,
                ..
            } if after == Duration::from_millis(600)
        ),
        "{err:?}"
    );
    assert!(stream.next().await.is_none());
    assert!(server.wait_cancel(&context_of(&server, 0), LIMIT).await);
}

#[tokio::test]
async fn a_stalled_line_and_a_silent_one_hit_their_deadlines_and_are_cancelled() {
    let server = CartesiaServer::start(vec![
        vec![
            S::samples(&[1; 10]),
            S::Delay(Duration::from_secs(3)),
            S::samples(&[1; 10]),
            S::Done,
        ],
        vec![
            S::Delay(Duration::from_secs(3)),
            S::samples(&[1; 10]),
            S::Done,
        ],
    ])
    .await;
    let mut config = config(&server);
    config.timeouts = CartesiaTimeouts {
        first_audio_timeout: Duration::from_millis(300),
        stall_timeout: Duration::from_millis(250),
        ..CartesiaTimeouts::default()
    };
    let tts = CartesiaTts::new(config);

    let mut stream = tts.synthesize("Slow.");
    assert_eq!(stream.next().await.unwrap().unwrap().samples.len(), 10);
    let err = stream.next().await.unwrap().unwrap_err();
    assert!(
        matches!(
            err,
            VoiceError::Timeout {
                phase: TimeoutPhase::Stall,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: timed out after 0.25 s waiting for more audio of the line; the server may be \
             overloaded or unreachable: try again, or raise stall_timeout",
            label(&server)
        )
    );
    assert!(stream.next().await.is_none());
    assert!(server.wait_cancel(&context_of(&server, 0), LIMIT).await);

    let err = all(tts.synthesize("Silent.")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: timed out after 0.3 s waiting for the first audio of the line; the server may \
             be overloaded or unreachable: try again, or raise first_audio_timeout",
            label(&server)
        )
    );
    assert!(server.wait_cancel(&context_of(&server, 1), LIMIT).await);
    // Each line after a timed-out one opens a new connection (the old one may be dead).
    assert_eq!(server.requests()[1].connection, 1);
    assert_eq!(server.connections().len(), 2);
}

#[tokio::test]
async fn a_handshake_that_never_comes_is_a_connect_timeout() {
    // A listener that never accepts: the TCP connection is made, the upgrade never answered.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}/tts/websocket", listener.local_addr().unwrap());
    let mut config = CartesiaConfig::new(VOICE);
    config.base_url = url.clone();
    config.timeouts.connect_timeout = Duration::from_millis(200);
    let err = all(CartesiaTts::new(config).synthesize("Hi."))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cartesia TTS at {url}: timed out after 0.2 s waiting for the connection; the server \
             may be overloaded or unreachable: try again, or raise connect_timeout"
        )
    );
    drop(listener);
}

#[tokio::test]
async fn no_server_is_a_connect_error_naming_base_url() {
    let server = CartesiaServer::start(vec![]).await;
    let url = server.url();
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut config = CartesiaConfig::new(VOICE);
    config.base_url = url.clone();
    let err = all(CartesiaTts::new(config).synthesize("Hi."))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, VoiceError::Connect { .. }), "{err:?}");
    assert!(
        text.starts_with(&format!("cartesia TTS at {url}: could not connect (")),
        "{text}"
    );
}

#[tokio::test]
async fn bad_data_is_an_error_of_its_line_never_a_panic() {
    let server = CartesiaServer::start(vec![
        vec![S::samples(&[1; 4]), S::Data("@@not base64@@".into())],
        vec![S::Audio(vec![1, 0, 2]), S::Done],
        vec![S::Done],
        vec![
            S::Raw("not json".into()),
            S::Raw(r#"{"type":"chunk","data":"AQA="}"#.into()),
            S::Raw("[1,2]".into()),
            S::samples(&[5; 3]),
            S::Done,
        ],
    ])
    .await;
    let tts = tts(&server);
    let err = all(tts.synthesize("One.")).await.unwrap_err();
    assert!(matches!(err, VoiceError::Decode { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "{}: unreadable reply: a chunk whose data is not base64 (",
            label(&server)
        )),
        "{err}"
    );
    // The line given up on is cancelled on Cartesia's side.
    assert!(server.wait_cancel(&context_of(&server, 0), LIMIT).await);

    let items: Vec<_> = tts.synthesize("Two.").collect().await;
    assert_eq!(items[0].as_ref().unwrap().samples, vec![1]);
    assert_eq!(
        items[1].as_ref().unwrap_err().to_string(),
        format!(
            "{}: the audio stream was cut after 3 bytes (the line ended inside a 16-bit \
             sample); the line was not spoken to its end: try again",
            label(&server)
        )
    );

    let err = all(tts.synthesize("Three.")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: unreadable reply: Cartesia finished the line with no audio",
            label(&server)
        )
    );

    // Messages that name no context (or are not JSON) are skipped; the line goes on.
    assert_eq!(all(tts.synthesize("Four.")).await.unwrap(), vec![5; 3]);
    assert_eq!(server.connections().len(), 1);
}

#[tokio::test]
async fn an_empty_line_is_refused_before_connecting() {
    let server = CartesiaServer::start(vec![]).await;
    let err = all(tts(&server).synthesize("  ")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the line to speak is empty; give it some text",
            label(&server)
        )
    );
    assert!(server.connections().is_empty());
}

/// A `MakeWriter` into a shared buffer.
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

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn the_key_never_appears_in_an_error_or_a_log() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(captured.clone())
        .with_ansi(false)
        .finish();
    // The test runtime is single-threaded: every task of the client logs on this thread.
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = CartesiaServer::start_with(
        vec![Handshake::refuse(
            403,
            "Forbidden",
            &format!("key {KEY} revoked"),
        )],
        vec![
            vec![S::samples(&[1; 4]), S::Done],
            vec![S::error(400, "Bad", &format!("echoing {KEY}"))],
            vec![S::samples(&[1; 4]), S::Cut],
        ],
    )
    .await;
    let tts = tts(&server);
    let mut texts = Vec::new();
    for line in ["a", "b", "c", "d"] {
        match all(tts.synthesize(line)).await {
            Ok(_) => {}
            Err(e) => texts.push(format!("{e} {e:?}")),
        }
    }
    let mut stream = tts.synthesize("e");
    let _ = stream.next().await;
    drop(stream);
    tokio::time::sleep(Duration::from_millis(100)).await;
    texts.push(format!("{tts:?} {:?}", config(&server)));

    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("[redacted]")), "{texts:?}");
    for text in &texts {
        assert!(!text.contains(KEY), "the key in: {text}");
    }
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("connected"), "the client logs: {log}");
    assert!(!log.contains(KEY), "the key in the log: {log}");
}

#[tokio::test]
async fn wss_is_tls_on_rustls_and_a_failed_tls_handshake_is_a_connect_error() {
    // The scripted server speaks plain ws://: a wss:// client's TLS handshake fails on it.
    let server = CartesiaServer::start(vec![]).await;
    let url = server.url().replace("ws://", "wss://");
    let mut config = CartesiaConfig::new(VOICE);
    config.base_url = url.clone();
    let err = all(CartesiaTts::new(config).synthesize("Hi."))
        .await
        .unwrap_err();
    assert!(matches!(err, VoiceError::Connect { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("cartesia TTS at {url}: could not connect (")),
        "{err}"
    );
}

#[tokio::test]
async fn lines_that_start_together_share_one_handshake() {
    let server = CartesiaServer::start(vec![
        vec![S::samples(&[1; 8]), S::Done],
        vec![S::samples(&[1; 8]), S::Done],
        vec![S::samples(&[1; 8]), S::Done],
    ])
    .await;
    let tts = tts(&server);
    let (a, b, c) = tokio::join!(
        all(tts.synthesize("One.")),
        all(tts.synthesize("Two.")),
        all(tts.clone().synthesize("Three."))
    );
    for got in [a, b, c] {
        assert_eq!(got.unwrap(), vec![1; 8]);
    }
    assert_eq!(server.connections().len(), 1);
    let mut contexts: Vec<String> = (0..3).map(|n| context_of(&server, n)).collect();
    contexts.dedup();
    contexts.sort();
    contexts.dedup();
    assert_eq!(contexts.len(), 3, "each line its own context");
}

#[tokio::test]
async fn each_call_gets_a_connection_of_its_own_and_one_calls_cut_leaves_the_other() {
    let server = CartesiaServer::start(vec![
        vec![S::samples(&[1; 8]), S::Cut],
        vec![
            S::samples(&[2; 8]),
            S::Delay(Duration::from_millis(300)),
            S::samples(&[2; 8]),
            S::Done,
        ],
    ])
    .await;
    let agent = tts(&server);
    let first = agent.for_call().expect("a client per call");
    let second = agent.for_call().expect("a client per call");
    assert_eq!(first.sample_rate(), agent.sample_rate());
    let mut cut = first.synthesize("One.");
    assert_eq!(cut.next().await.unwrap().unwrap().samples, vec![1; 8]);
    let whole = tokio::spawn(all(second.synthesize("Two.")));
    // The first call's connection breaks mid-line: its line fails, the second call's plays on.
    let err = cut.next().await.unwrap().unwrap_err();
    assert!(matches!(err, VoiceError::StreamCut { .. }), "{err:?}");
    assert_eq!(whole.await.unwrap().unwrap(), vec![2; 16]);
    assert_eq!(server.connections().len(), 2, "one connection per call");
}
