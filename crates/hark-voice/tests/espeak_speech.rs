//! espeak-ng as a local TTS (Debian package `espeak-ng`, installed by scripts/test.sh): a line
//! becomes non-silent PCM at the requested rate, in several chunks; a missing program says how
//! to install it; a voice espeak-ng does not have is its own error text.

use futures::StreamExt;
use hark_voice::{AudioChunk, ESPEAK_RATE, EspeakConfig, EspeakTts, Tts, VoiceError};

async fn speak(config: EspeakConfig, text: &str) -> Result<Vec<AudioChunk>, VoiceError> {
    let tts = EspeakTts::new(config);
    let mut out = Vec::new();
    let mut stream = tts.synthesize(text);
    while let Some(chunk) = stream.next().await {
        out.push(chunk?);
    }
    Ok(out)
}

fn joined(chunks: &[AudioChunk]) -> AudioChunk {
    let rate = chunks[0].sample_rate;
    AudioChunk::new(
        chunks.iter().flat_map(|c| c.samples.clone()).collect(),
        rate,
    )
}

#[tokio::test]
async fn a_line_is_non_silent_pcm_at_espeak_ngs_own_rate_in_several_chunks() {
    let chunks = speak(EspeakConfig::default(), "Add the blue mug to my cart.")
        .await
        .unwrap();
    assert!(chunks.len() > 3, "{} chunks", chunks.len());
    assert!(chunks.iter().all(|c| c.sample_rate == ESPEAK_RATE));
    let all = joined(&chunks);
    let secs = all.duration().as_secs_f64();
    assert!((0.8..6.0).contains(&secs), "{secs} s for seven words");
    assert!(all.peak() > 3000, "peak {}", all.peak());
    assert!(all.rms() > 300.0, "rms {}", all.rms());
}

#[tokio::test]
async fn a_line_comes_at_the_requested_rate() {
    let own = joined(
        &speak(EspeakConfig::default(), "The blue mug.")
            .await
            .unwrap(),
    );
    for rate in [16_000, 24_000] {
        let config = EspeakConfig {
            sample_rate: Some(rate),
            ..EspeakConfig::default()
        };
        assert_eq!(EspeakTts::new(config.clone()).sample_rate(), rate);
        let chunks = speak(config, "The blue mug.").await.unwrap();
        assert!(chunks.iter().all(|c| c.sample_rate == rate));
        let all = joined(&chunks);
        // The same audio, resampled: as long as espeak-ng's own (to a sample), still loud.
        let expected =
            (own.samples.len() as u64 * u64::from(rate)).div_ceil(u64::from(ESPEAK_RATE));
        assert!(
            (all.samples.len() as i64 - expected as i64).abs() <= 1,
            "{} samples at {rate} Hz, expected {expected}",
            all.samples.len()
        );
        assert!(all.rms() > 300.0, "rms {} at {rate} Hz", all.rms());
    }
}

#[tokio::test]
async fn a_missing_program_says_how_to_install_it() {
    let config = EspeakConfig {
        program: "/nonexistent/espeak-ng".into(),
        ..EspeakConfig::default()
    };
    let err = speak(config, "Hello.").await.unwrap_err();
    assert!(matches!(err, VoiceError::MissingProgram { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "espeak-ng TTS: the program /nonexistent/espeak-ng was not found; install it with \
         `apt-get install espeak-ng` (Debian/Ubuntu), or set its path"
    );
}

#[tokio::test]
async fn a_voice_espeak_ng_does_not_have_is_its_own_error_text() {
    let config = EspeakConfig {
        voice: "xx-nosuchvoice".into(),
        ..EspeakConfig::default()
    };
    let err = speak(config, "Hello.").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "espeak-ng TTS: espeak-ng failed (exit status: 1): Error: The specified espeak-ng voice \
         does not exist."
    );
}

#[tokio::test]
async fn a_line_starting_with_a_dash_is_spoken_not_read_as_an_option() {
    let chunks = speak(EspeakConfig::default(), "--version").await.unwrap();
    assert!(joined(&chunks).rms() > 300.0);
    let err = speak(EspeakConfig::default(), " ").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "espeak-ng TTS: the line to speak is empty; give it some text"
    );
}
