//! WAV files of PCM16 mono audio, read and written with `hound`.

use std::io::Cursor;

use crate::audio::AudioChunk;
use crate::error::VoiceError;

/// A WAV file (RIFF, 16-bit integer PCM, one channel) of `chunk`.
pub fn write_wav(chunk: &AudioChunk) -> Result<Vec<u8>, VoiceError> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: chunk.sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut out = Cursor::new(Vec::with_capacity(44 + chunk.samples.len() * 2));
    let wav_err = |e: hound::Error| VoiceError::Wav {
        detail: e.to_string(),
    };
    let mut writer = hound::WavWriter::new(&mut out, spec).map_err(wav_err)?;
    {
        let mut samples = writer.get_i16_writer(chunk.samples.len() as u32);
        for &s in &chunk.samples {
            samples.write_sample(s);
        }
        samples.flush().map_err(wav_err)?;
    }
    writer.finalize().map_err(wav_err)?;
    Ok(out.into_inner())
}

/// The samples of a WAV file of 16-bit integer PCM; two or more channels are mixed down to one.
/// A header whose data length runs past the end of the bytes (what a program writing WAV to a
/// pipe sends, as espeak-ng does) is read up to the last whole sample.
pub fn read_wav(bytes: &[u8]) -> Result<AudioChunk, VoiceError> {
    let wav_err = |e: hound::Error| VoiceError::Wav {
        detail: e.to_string(),
    };
    let reader = hound::WavReader::new(Cursor::new(bytes)).map_err(wav_err)?;
    let spec = reader.spec();
    if spec.sample_format != hound::SampleFormat::Int || spec.bits_per_sample != 16 {
        return Err(VoiceError::Wav {
            detail: format!(
                "{} bits of {:?} samples; Hark reads 16-bit integer PCM",
                spec.bits_per_sample, spec.sample_format
            ),
        });
    }
    let channels = usize::from(spec.channels.max(1));
    let mut interleaved = Vec::new();
    for sample in reader.into_samples::<i16>() {
        match sample {
            Ok(s) => interleaved.push(s),
            // The end of the bytes inside the announced data (hound says "Failed to read enough
            // bytes." for a sample cut short).
            Err(hound::Error::IoError(e))
                if e.kind() == std::io::ErrorKind::UnexpectedEof
                    || e.to_string() == "Failed to read enough bytes." =>
            {
                break;
            }
            Err(e) => return Err(wav_err(e)),
        }
    }
    let samples = if channels == 1 {
        interleaved
    } else {
        interleaved
            .chunks_exact(channels)
            .map(|frame| {
                let sum: i32 = frame.iter().map(|&s| i32::from(s)).sum();
                (sum / channels as i32) as i16
            })
            .collect()
    };
    Ok(AudioChunk::new(samples, spec.sample_rate))
}
