//! Audio frames against the bytes the real Pipecat client sends and reads
//! (`fixtures/client_audio_frames.json`, written by `fixtures/client_audio_frames.js` with
//! `@pipecat-ai/websocket-transport`'s own serializer): the microphone's frames decode to their
//! samples, the bot's frames are encoded byte for byte as the client encodes audio (so its
//! deserializer reads them back), and bad audio is a clear error, never a panic.

use hark_rtvi::audio::{AudioFrameError, AudioFramer, AudioLimits, encode_audio, input_audio};
use hark_rtvi::decode_frame;
use hark_rtvi::frame::{AudioRawFrame, Frame, FrameError, FrameKind, MAX_FRAME_BYTES};
use serde_json::Value;

struct Case {
    name: String,
    audio: Vec<u8>,
    sample_rate: u32,
    num_channels: u32,
    frame: Vec<u8>,
    client_reads: Option<Vec<i16>>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let text = include_str!("fixtures/client_audio_frames.json");
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["client"], "@pipecat-ai/websocket-transport 1.7.1");
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_owned(),
            audio: unhex(c["audio_hex"].as_str().unwrap()),
            sample_rate: c["sample_rate"].as_u64().unwrap() as u32,
            num_channels: c["num_channels"].as_u64().unwrap() as u32,
            frame: unhex(c["frame_hex"].as_str().unwrap()),
            client_reads: c["client_reads"]
                .as_array()
                .map(|a| a.iter().map(|s| s.as_i64().unwrap() as i16).collect()),
        })
        .collect()
}

fn case(name: &str) -> Case {
    cases().into_iter().find(|c| c.name == name).unwrap()
}

fn samples_of(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn audio_of(bytes: &[u8]) -> AudioRawFrame {
    let frame = decode_frame(bytes).unwrap();
    match frame.frame {
        Some(FrameKind::Audio(a)) => a,
        other => panic!("not an audio frame: {other:?}"),
    }
}

#[test]
fn microphone_frames_of_the_client_decode_to_their_samples() {
    for name in ["mic_16k", "mic_44100"] {
        let c = case(name);
        let raw = audio_of(&c.frame);
        assert_eq!(raw.name, "audio", "{name}");
        assert_eq!(raw.id, 0, "{name}");
        assert_eq!(raw.pts, None, "{name}");
        let audio = input_audio(&raw, &AudioLimits::default()).unwrap();
        assert_eq!(audio.sample_rate, c.sample_rate, "{name}");
        assert_eq!(audio.samples, samples_of(&c.audio), "{name}");
        assert_eq!(
            audio.samples[..2],
            [-32768, 32767],
            "{name}: the extremes survive"
        );
    }
}

#[test]
fn bot_frames_are_encoded_byte_for_byte_as_the_client_encodes_audio() {
    for c in cases()
        .iter()
        .filter(|c| c.num_channels == 1 && c.audio.len() % 2 == 0)
    {
        let samples = samples_of(&c.audio);
        assert_eq!(encode_audio(&samples, c.sample_rate), c.frame, "{}", c.name);
        // And the client reads our bytes back as the same samples.
        assert_eq!(
            c.client_reads.as_deref(),
            Some(samples.as_slice()),
            "{}",
            c.name
        );
    }
}

#[test]
fn the_framer_cuts_bot_audio_into_20_ms_frames_of_whole_samples() {
    let c = case("bot_24k_20ms");
    let samples = samples_of(&c.audio);
    let mut framer = AudioFramer::new(24_000, 20).unwrap();
    assert_eq!(framer.frame_samples(), 480);
    // Pushed in uneven pieces, it still yields one frame equal to the client's own encoding.
    assert!(framer.push(&samples[..100]).is_empty());
    assert!(framer.push(&samples[100..479]).is_empty());
    let frames = framer.push(&samples[479..]);
    assert_eq!(frames, vec![c.frame.clone()]);
    assert_eq!(framer.flush(), None);

    // 2.5 frames: two whole frames, then a shorter last one on flush.
    let long: Vec<i16> = (0..1200).map(|i| (i % 300) as i16).collect();
    let frames = framer.push(&long);
    assert_eq!(frames.len(), 2);
    let last = framer.flush().unwrap();
    let lens: Vec<usize> = frames
        .iter()
        .chain(std::iter::once(&last))
        .map(|f| audio_of(f).audio.len())
        .collect();
    assert_eq!(lens, [960, 960, 480]);
    let mut joined = Vec::new();
    for f in frames.iter().chain(std::iter::once(&last)) {
        let a = audio_of(f);
        assert_eq!((a.sample_rate, a.num_channels), (24_000, 1));
        joined.extend(samples_of(&a.audio));
    }
    assert_eq!(joined, long);

    // A cut line drops what waits.
    framer.push(&long[..10]);
    framer.clear();
    assert_eq!(framer.flush(), None);
}

#[test]
fn a_framer_whose_frames_hold_no_sample_is_refused() {
    let err = AudioFramer::new(8_000, 0).unwrap_err();
    assert_eq!(
        err,
        AudioFrameError::FrameLength {
            frame_ms: 0,
            rate: 8_000
        }
    );
    assert_eq!(
        err.to_string(),
        "audio frames of 0 ms at 8000 Hz hold no sample; use 10 to 100 ms"
    );
}

#[test]
fn odd_sample_rates_stereo_and_half_samples_are_clear_errors() {
    let limits = AudioLimits::default();
    let err = input_audio(&audio_of(&case("rate_7000").frame), &limits).unwrap_err();
    assert_eq!(
        err,
        AudioFrameError::SampleRate {
            rate: 7000,
            min: 8000,
            max: 48000
        }
    );
    assert_eq!(
        err.to_string(),
        "Invalid audio frame: sample_rate 7000 Hz is outside 8000..=48000 Hz; send 16-bit PCM \
         at a rate in that range (the Pipecat client records at 16000 Hz)."
    );
    let err = input_audio(&audio_of(&case("rate_96000").frame), &limits).unwrap_err();
    assert!(
        matches!(err, AudioFrameError::SampleRate { rate: 96000, .. }),
        "{err:?}"
    );

    let err = input_audio(&audio_of(&case("stereo").frame), &limits).unwrap_err();
    assert_eq!(err, AudioFrameError::Channels { channels: 2 });
    assert_eq!(
        err.to_string(),
        "Invalid audio frame: num_channels 2; the server takes mono audio (num_channels 1)."
    );

    let odd = case("odd_bytes");
    assert_eq!(
        odd.client_reads, None,
        "the client itself cannot read half a sample"
    );
    let err = input_audio(&audio_of(&odd.frame), &limits).unwrap_err();
    assert_eq!(err, AudioFrameError::OddLength { len: 511 });
    assert_eq!(
        err.to_string(),
        "Invalid audio frame: 511 audio bytes is not a whole number of 16-bit samples; send \
         little-endian PCM16."
    );

    // A frame with no rate set at all (sample_rate 0, as a bare protobuf default).
    let bare = AudioRawFrame {
        num_channels: 1,
        audio: vec![0, 0],
        ..Default::default()
    };
    assert!(matches!(
        input_audio(&bare, &limits),
        Err(AudioFrameError::SampleRate { rate: 0, .. })
    ));
}

#[test]
fn a_frame_of_10_mb_is_refused_before_it_is_parsed_and_a_long_one_after() {
    let ten_mb = Frame::audio(vec![0u8; 10 * 1024 * 1024], 16_000, 1).to_bytes();
    let err = decode_frame(&ten_mb).unwrap_err();
    assert_eq!(
        err,
        FrameError::TooLarge {
            len: ten_mb.len(),
            max: MAX_FRAME_BYTES
        }
    );

    // Under the frame limit but over the audio limit: refused by the audio check.
    let limits = AudioLimits::default();
    let long = Frame::audio(vec![0u8; limits.max_audio_bytes + 2], 16_000, 1).to_bytes();
    let err = input_audio(&audio_of(&long), &limits).unwrap_err();
    assert_eq!(
        err,
        AudioFrameError::TooLong {
            len: 96_002,
            max: 96_000
        }
    );
    assert_eq!(
        err.to_string(),
        "Invalid audio frame: 96002 audio bytes is more than the limit of 96000 bytes per frame; \
         send audio in short frames (20 ms is 640 bytes at 16000 Hz)."
    );
}

#[test]
fn non_audio_bytes_are_an_error_and_never_a_panic() {
    // Bytes that are not protobuf, protobuf that is not a Frame, and every cut of a real
    // microphone frame.
    for bytes in [
        b"RIFF\x24\x00\x00\x00WAVEfmt ".to_vec(),
        vec![0xff; 64],
        b"{\"label\":\"rtvi-ai\"}".to_vec(),
    ] {
        match decode_frame(&bytes) {
            Err(FrameError::Invalid { .. } | FrameError::NoFrameKind) => {}
            Ok(f) => {
                if let Some(a) = f.audio_frame() {
                    let _ = input_audio(a, &AudioLimits::default());
                }
            }
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    let mic = case("mic_16k").frame;
    for cut in 0..mic.len() {
        if let Ok(f) = decode_frame(&mic[..cut])
            && let Some(a) = f.audio_frame()
        {
            let _ = input_audio(a, &AudioLimits::default());
        }
    }
    assert!(matches!(
        decode_frame(&mic[..mic.len() - 1]),
        Err(FrameError::Invalid { .. })
    ));
}
