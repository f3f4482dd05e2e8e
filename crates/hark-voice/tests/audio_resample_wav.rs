//! PCM16 audio: bytes to samples across split reads, resampling (rubato) chunk by chunk with the
//! length and pitch kept, WAV read and write (hound), and the rates refused.

use hark_voice::{
    AudioChunk, Pcm16Carry, Resampler, VoiceError, read_wav, resample_chunk, write_wav,
};

fn tone(hz: f64, rate: u32, secs: f64) -> AudioChunk {
    let n = (f64::from(rate) * secs) as usize;
    let samples = (0..n)
        .map(|i| {
            (10_000.0 * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin()) as i16
        })
        .collect();
    AudioChunk::new(samples, rate)
}

/// Sign changes from negative to non-negative: a tone's frequency times its length.
fn rising_crossings(samples: &[i16]) -> usize {
    samples.windows(2).filter(|w| w[0] < 0 && w[1] >= 0).count()
}

#[test]
fn bytes_split_inside_a_sample_join_into_whole_samples() {
    let mut carry = Pcm16Carry::new();
    assert_eq!(carry.push(&[0x01]), Vec::<i16>::new());
    assert!(carry.has_partial());
    assert_eq!(carry.push(&[0x02, 0xff, 0x7f, 0x00]), vec![0x0201, 0x7fff]);
    assert!(carry.has_partial());
    assert_eq!(carry.push(&[0x80]), vec![i16::MIN]);
    assert!(!carry.has_partial());
    assert_eq!(carry.total_bytes(), 6);

    assert_eq!(AudioChunk::from_le_bytes(&[1, 0, 2], 16_000), None);
    let chunk = AudioChunk::from_le_bytes(&[1, 0, 0xfe, 0xff], 16_000).unwrap();
    assert_eq!(chunk.samples, vec![1, -2]);
    assert_eq!(chunk.to_le_bytes(), vec![1, 0, 0xfe, 0xff]);
}

#[test]
fn resampling_keeps_the_length_and_the_pitch() {
    for (from, to) in [
        (22_050, 24_000),
        (24_000, 16_000),
        (16_000, 48_000),
        (44_100, 8_000),
    ] {
        let input = tone(440.0, from, 1.0);
        let out = resample_chunk(&input, to).unwrap();
        assert_eq!(out.sample_rate, to);
        assert_eq!(out.samples.len(), to as usize, "{from} -> {to}");
        let crossings = rising_crossings(&out.samples);
        assert!(
            (438..=442).contains(&crossings),
            "{from} -> {to}: {crossings} cycles"
        );
        // No start-up delay: the output lines up with the same tone made at the new rate.
        let ideal = tone(440.0, to, 1.0);
        let worst = out.samples[..to as usize * 98 / 100]
            .iter()
            .zip(&ideal.samples)
            .map(|(a, b)| (i32::from(*a) - i32::from(*b)).abs())
            .max()
            .unwrap();
        eprintln!(
            "{from} -> {to}: worst difference {worst}, peak {}",
            out.peak()
        );
        assert!(
            worst < 1_000,
            "{from} -> {to}: differs from the ideal tone by {worst}"
        );
    }
}

#[test]
fn resampling_in_uneven_chunks_gives_the_same_audio_as_all_at_once() {
    let input = tone(300.0, 22_050, 0.7);
    let whole = resample_chunk(&input, 24_000).unwrap();
    let mut r = Resampler::new(22_050, 24_000).unwrap();
    let mut pieces = Vec::new();
    for piece in input.samples.chunks(333) {
        pieces.extend(r.push(piece).samples);
    }
    pieces.extend(r.finish().samples);
    assert_eq!(pieces, whole.samples);
    // After finish it serves a new stream the same way.
    let mut again = r.push(&input.samples).samples;
    again.extend(r.finish().samples);
    assert_eq!(again, whole.samples);
}

#[test]
fn equal_rates_pass_through_and_rates_out_of_range_are_refused() {
    let input = tone(440.0, 24_000, 0.1);
    assert_eq!(resample_chunk(&input, 24_000).unwrap(), input);
    for rate in [0, 7_999, 48_001, 96_000] {
        let err = Resampler::new(rate, 24_000).unwrap_err();
        assert_eq!(err, VoiceError::SampleRate { rate });
        assert_eq!(
            err.to_string(),
            format!("sample rate {rate} Hz is outside 8000..=48000 Hz; use a rate in that range")
        );
    }
}

#[test]
fn wav_round_trips_and_a_streamed_header_reads_to_the_last_sample() {
    let chunk = tone(440.0, 16_000, 0.25);
    let wav = write_wav(&chunk).unwrap();
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(wav.len(), 44 + chunk.samples.len() * 2);
    assert_eq!(read_wav(&wav).unwrap(), chunk);

    // What a program writing to a pipe sends (espeak-ng --stdout): a data length of 0x7ffff000.
    let mut streamed = wav.clone();
    streamed[4..8].copy_from_slice(&0x7fff_f024u32.to_le_bytes());
    streamed[40..44].copy_from_slice(&0x7fff_f000u32.to_le_bytes());
    assert_eq!(read_wav(&streamed).unwrap(), chunk);
}

#[test]
fn a_stereo_wav_is_mixed_down_and_other_formats_are_refused() {
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 8_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = std::io::Cursor::new(Vec::new());
    let mut w = hound::WavWriter::new(&mut bytes, spec).unwrap();
    for (l, r) in [(100i16, 300i16), (-1000, 1000), (i16::MAX, i16::MAX)] {
        w.write_sample(l).unwrap();
        w.write_sample(r).unwrap();
    }
    w.finalize().unwrap();
    let chunk = read_wav(bytes.get_ref()).unwrap();
    assert_eq!(chunk, AudioChunk::new(vec![200, 0, i16::MAX], 8_000));

    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 8_000,
        bits_per_sample: 8,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = std::io::Cursor::new(Vec::new());
    let mut w = hound::WavWriter::new(&mut bytes, spec).unwrap();
    w.write_sample(1i8).unwrap();
    w.finalize().unwrap();
    assert_eq!(
        read_wav(bytes.get_ref()).unwrap_err().to_string(),
        "not a usable WAV file: 8 bits of Int samples; Hark reads 16-bit integer PCM"
    );
    let err = read_wav(b"not a wav file at all").unwrap_err();
    assert!(
        err.to_string().starts_with("not a usable WAV file: "),
        "{err}"
    );
}
