//! Voice activity detection (feature `vad`): Silero VAD under tract with Pipecat 1.14's turn
//! rules, on speech made by espeak-ng.
//!
//! Needs `espeak-ng` (Debian's package) and the model from `scripts/fetch-model.sh`; both are
//! set up by `scripts/test.sh`.

#![cfg(feature = "vad")]

use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt;
use hark_voice::vad::{SileroModel, model_dir};
use hark_voice::{
    AudioChunk, ESPEAK_RATE, EspeakConfig, EspeakTts, Tts, VAD_MODEL_FILE, Vad, VadEvent,
    VadParams, VadState, VoiceError, resample_chunk,
};

fn model_path() -> PathBuf {
    let path = model_dir()
        .expect("no model directory: set HARK_MODEL_DIR or HOME")
        .join(VAD_MODEL_FILE);
    assert!(
        path.is_file(),
        "{} is missing: run scripts/fetch-model.sh (scripts/test.sh does)",
        path.display()
    );
    path
}

fn model(input_rate: u32) -> SileroModel {
    SileroModel::load(&model_path(), Vad::model_rate_for(input_rate)).unwrap()
}

/// `text` said by espeak-ng, at `rate`.
async fn speak(text: &str, rate: u32) -> AudioChunk {
    let tts = EspeakTts::new(EspeakConfig::default());
    let mut stream = tts.synthesize(text);
    let mut all = AudioChunk::new(Vec::new(), ESPEAK_RATE);
    while let Some(chunk) = stream.next().await {
        all.samples.extend(chunk.unwrap().samples);
    }
    resample_chunk(&all, rate).unwrap()
}

/// Where the speech in `chunk` begins and ends (first and last sample louder than −40 dBFS).
fn speech_bounds(chunk: &AudioChunk) -> (Duration, Duration) {
    let loud = |s: &i16| s.unsigned_abs() > 328;
    let first = chunk.samples.iter().position(loud).unwrap();
    let last = chunk.samples.iter().rposition(loud).unwrap();
    let at = |i: usize| Duration::from_secs_f64(i as f64 / f64::from(chunk.sample_rate));
    (at(first), at(last))
}

fn silence(secs: f64, rate: u32) -> Vec<i16> {
    vec![0; (secs * f64::from(rate)) as usize]
}

/// Pushes `samples` in chunks of `chunk_ms` and collects the events.
fn run(vad: &mut Vad, samples: &[i16], chunk_ms: u32) -> Vec<VadEvent> {
    let n = (vad.input_rate() * chunk_ms / 1000) as usize;
    let mut events = Vec::new();
    for chunk in samples.chunks(n.max(1)) {
        events.extend(vad.push_samples(chunk).unwrap());
    }
    events
}

fn at(e: &VadEvent) -> Duration {
    match e {
        VadEvent::SpeechStarted { at } | VadEvent::SpeechStopped { at } => *at,
    }
}

/// One second of silence, `speech`, one second of silence.
fn padded(speech: &AudioChunk) -> Vec<i16> {
    let rate = speech.sample_rate;
    let mut all = silence(1.0, rate);
    all.extend(&speech.samples);
    all.extend(silence(1.0, rate));
    all
}

/// Asserts `events` is one turn of `speech` (which starts 1 s into the stream): the start
/// confirmed within 0.1–0.5 s of its onset (Pipecat's 0.2 s `start_secs` plus the model's
/// lag), the stop within 0.1–0.6 s of its end (0.2 s `stop_secs` plus the fading last sound).
fn assert_one_turn(events: &[VadEvent], speech: &AudioChunk) {
    let (onset, end) = speech_bounds(speech);
    let (onset, end) = (onset + Duration::from_secs(1), end + Duration::from_secs(1));
    assert_eq!(events.len(), 2, "one turn, got {events:?}");
    assert!(
        matches!(events[0], VadEvent::SpeechStarted { .. }),
        "{events:?}"
    );
    assert!(
        matches!(events[1], VadEvent::SpeechStopped { .. }),
        "{events:?}"
    );
    let (start, stop) = (at(&events[0]), at(&events[1]));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (lead, tail) = (ms(start) - ms(onset), ms(stop) - ms(end));
    assert!(
        (100.0..=500.0).contains(&lead),
        "speech from {onset:?} was confirmed at {start:?} ({lead:.0} ms after)"
    );
    assert!(
        (100.0..=600.0).contains(&tail),
        "speech ending at {end:?} was seen to stop at {stop:?} ({tail:.0} ms after)"
    );
}

#[tokio::test]
async fn a_spoken_sentence_is_one_turn_started_after_its_onset_and_stopped_after_its_end() {
    let speech = speak("Add the blue mug to my cart.", 16_000).await;
    let mut vad = Vad::with_model(model(16_000), 16_000, VadParams::default()).unwrap();
    let events = run(&mut vad, &padded(&speech), 20);
    assert_one_turn(&events, &speech);
    assert_eq!(vad.state(), VadState::Quiet);
}

#[tokio::test]
async fn the_same_turn_is_found_at_8_and_48_khz_and_whatever_the_chunk_size() {
    for rate in [8_000, 48_000] {
        let speech = speak("Add the blue mug to my cart.", rate).await;
        let audio = padded(&speech);
        let mut by_chunk = Vec::new();
        for chunk_ms in [10, 20, 100] {
            let mut vad = Vad::with_model(model(rate), rate, VadParams::default()).unwrap();
            let events = run(&mut vad, &audio, chunk_ms);
            assert_one_turn(&events, &speech);
            by_chunk.push(events);
        }
        // Windows are cut from the stream, not from the chunks: the chunking changes nothing.
        assert!(
            by_chunk.windows(2).all(|w| w[0] == w[1]),
            "{rate} Hz: {by_chunk:?}"
        );
    }
}

#[tokio::test]
async fn two_sentences_a_second_apart_are_two_turns_in_order() {
    let first = speak("Add the blue mug to my cart.", 16_000).await;
    let second = speak("And show me the red one.", 16_000).await;
    let mut audio = padded(&first);
    audio.extend(&second.samples);
    audio.extend(silence(1.0, 16_000));
    let mut vad = Vad::with_model(model(16_000), 16_000, VadParams::default()).unwrap();
    let events = run(&mut vad, &audio, 20);
    let kinds: Vec<bool> = events
        .iter()
        .map(|e| matches!(e, VadEvent::SpeechStarted { .. }))
        .collect();
    assert_eq!(kinds, [true, false, true, false], "{events:?}");
    assert!(
        events.windows(2).all(|w| at(&w[0]) < at(&w[1])),
        "{events:?}"
    );
    let second_onset = Duration::from_secs(2) + first.duration() + speech_bounds(&second).0;
    assert!(
        at(&events[1]) < second_onset && at(&events[2]) > second_onset,
        "the first turn ends before {second_onset:?} and the second starts after: {events:?}"
    );
}

#[tokio::test]
async fn speech_under_pipecats_minimum_volume_is_not_a_turn_and_a_lower_minimum_hears_it() {
    let speech = speak("Add the blue mug to my cart.", 16_000).await;
    // About −34 dB: the model still hears a voice, but the volume gate (0.6) does not.
    let quiet = AudioChunk::new(speech.samples.iter().map(|s| s / 50).collect(), 16_000);
    let audio = padded(&quiet);
    let mut vad = Vad::with_model(model(16_000), 16_000, VadParams::default()).unwrap();
    assert_eq!(run(&mut vad, &audio, 20), vec![]);
    let lenient = VadParams {
        min_volume: 0.0,
        ..VadParams::default()
    };
    let mut vad = Vad::with_model(model(16_000), 16_000, lenient).unwrap();
    let events = run(&mut vad, &audio, 20);
    assert!(
        matches!(events.first(), Some(VadEvent::SpeechStarted { .. })),
        "with no volume gate the quiet speech is heard: {events:?}"
    );
}

#[test]
fn three_minutes_of_silence_are_no_turn_and_hold_less_than_half_a_second_of_audio() {
    let mut vad = Vad::with_model(model(48_000), 48_000, VadParams::default()).unwrap();
    let second = silence(1.0, 48_000);
    for s in 0..180 {
        for chunk in second.chunks(960) {
            assert_eq!(vad.push_samples(chunk).unwrap(), vec![]);
        }
        // The volume's 400 ms and less than one window, at the model's 16 kHz.
        let held = vad.held_samples();
        assert!(held < 8_000, "after {s} s: {held} samples held");
    }
    assert_eq!(vad.state(), VadState::Quiet);
    assert!(
        vad.analysed() >= Duration::from_secs(179),
        "{:?}",
        vad.analysed()
    );
}

#[test]
fn pipecats_defaults_confirm_a_turn_after_six_windows_at_both_model_rates() {
    let p = VadParams::default();
    assert_eq!(
        (p.confidence, p.start_secs, p.stop_secs, p.min_volume),
        (0.7, 0.2, 0.2, 0.6)
    );
    // 0.2 s / 32 ms = 6.25 windows, rounded as Pipecat rounds.
    assert_eq!(p.frames(16_000), (6, 6));
    assert_eq!(p.frames(8_000), (6, 6));
    let slow = VadParams {
        stop_secs: 0.8,
        ..p
    };
    assert_eq!(slow.frames(16_000), (6, 25));
}

#[test]
fn settings_and_audio_the_vad_cannot_use_are_errors_that_say_what_to_change() {
    let bad = |params: VadParams| {
        Vad::with_model(model(16_000), 16_000, params)
            .unwrap_err()
            .to_string()
    };
    let d = VadParams::default();
    assert_eq!(
        bad(VadParams {
            confidence: 1.5,
            ..d
        }),
        "voice activity detection: confidence is 1.5; use a value from 0 to 1"
    );
    assert_eq!(
        bad(VadParams {
            stop_secs: f32::NAN,
            ..d
        }),
        "voice activity detection: stop_secs is NaN; use seconds from 0 to 60"
    );
    // A rate outside what Hark's audio takes.
    assert!(matches!(
        Vad::with_model(model(16_000), 4_000, d),
        Err(VoiceError::SampleRate { rate: 4_000 })
    ));
    // A model planned for 8 kHz given a 16 kHz stream.
    let err = Vad::with_model(model(8_000), 16_000, d)
        .unwrap_err()
        .to_string();
    assert!(err.contains("planned for 8000 Hz"), "{err}");
    // A chunk at another rate than the stream's.
    let mut vad = Vad::with_model(model(16_000), 16_000, d).unwrap();
    let err = vad
        .push(&AudioChunk::new(vec![0; 480], 48_000))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "voice activity detection: a chunk at 48000 Hz in a stream at 16000 Hz; start a new Vad \
         for a new rate"
    );
    // The stream goes on after a refused chunk.
    assert_eq!(vad.push_samples(&silence(0.1, 16_000)).unwrap(), vec![]);
}

#[test]
fn a_missing_or_wrong_model_file_names_the_file_and_the_command_that_fetches_it() {
    let dir = std::env::temp_dir().join(format!("hark-vad-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("none.onnx");
    let err = Vad::load(&missing, 16_000, VadParams::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "the Silero VAD model {} cannot be used: ",
            missing.display()
        )),
        "{err}"
    );
    assert!(err.contains("run scripts/fetch-model.sh"), "{err}");
    let garbage = dir.join("garbage.onnx");
    std::fs::write(&garbage, b"this is not an ONNX model").unwrap();
    let err = Vad::load(&garbage, 16_000, VadParams::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("garbage.onnx cannot be used"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Python with pipecat-ai 1.14.0 and its `silero` extra (`HARK_TEST_PYTHON`), or `None`
/// (printed) outside CI.
fn pipecat_python() -> Option<PathBuf> {
    match std::env::var("HARK_TEST_PYTHON") {
        Ok(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "HARK_TEST_PYTHON is not set under CI: scripts/test.sh sets it to the venv of \
                 scripts/python-env.sh"
            );
            eprintln!(
                "skipping the comparison with Pipecat: HARK_TEST_PYTHON is not set (a Python \
                 with pipecat-ai[silero] 1.14.0: `bash scripts/python-env.sh` prints its venv)"
            );
            None
        }
    }
}

#[tokio::test]
async fn the_turns_are_the_ones_pipecats_silero_analyzer_finds_in_the_same_audio() {
    let Some(python) = pipecat_python() else {
        return;
    };
    let mut audio = silence(1.0, 16_000);
    for text in [
        "Add the blue mug to my cart.",
        "And show me the red one, please.",
        "That is all for today, thank you.",
    ] {
        audio.extend(speak(text, 16_000).await.samples);
        audio.extend(silence(1.0, 16_000));
    }
    let wav = std::env::temp_dir().join(format!("hark-vad-pipecat-{}.wav", std::process::id()));
    let chunk = AudioChunk::new(audio, 16_000);
    std::fs::write(&wav, hark_voice::write_wav(&chunk).unwrap()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/python_vad.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .arg(&wav)
        .args(["--rounds", "1"])
        .output()
        .unwrap();
    std::fs::remove_file(&wav).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<(bool, f64)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("pipecat "))
        .map(|l| {
            let (kind, at) = l.split_once(' ').unwrap();
            (kind == "started", at.parse().unwrap())
        })
        .collect();
    let mut vad = Vad::with_model(model(16_000), 16_000, VadParams::default()).unwrap();
    let ours: Vec<(bool, f64)> = run(&mut vad, &chunk.samples, 20)
        .iter()
        .map(|e| {
            (
                matches!(e, VadEvent::SpeechStarted { .. }),
                at(e).as_secs_f64(),
            )
        })
        .collect();
    assert!(
        ours.len() >= 6,
        "three sentences, at least three turns: {ours:?}"
    );
    // The same model on another runtime (tract, not onnxruntime): the same turns, each within
    // one 32 ms window of Pipecat's.
    assert_eq!(
        ours.iter().map(|t| t.0).collect::<Vec<_>>(),
        theirs.iter().map(|t| t.0).collect::<Vec<_>>(),
        "ours {ours:?}, Pipecat's {theirs:?}"
    );
    for (o, t) in ours.iter().zip(&theirs) {
        assert!(
            (o.1 - t.1).abs() <= 0.033,
            "ours {ours:?}, Pipecat's {theirs:?}"
        );
    }
}
