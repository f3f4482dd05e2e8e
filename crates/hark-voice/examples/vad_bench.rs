//! The VAD's cost per 20 ms chunk and the turns it finds, on espeak-ng speech.
//!
//! `cargo run --release -p hark-voice --features vad --example vad_bench -- OUT.wav [ROUNDS]`
//! writes the audio it analyses to OUT.wav (16 kHz PCM16: three sentences, a second of silence
//! before, between and after each) so `bench/python_vad.py OUT.wav` runs Pipecat's
//! `SileroVADAnalyzer` on the same samples; prints one line of JSON per round and the turns.

use std::time::Instant;

use futures::StreamExt;
use hark_voice::{
    AudioChunk, ESPEAK_RATE, EspeakConfig, EspeakTts, Tts, Vad, VadEvent, VadParams,
    resample_chunk, write_wav,
};

const RATE: u32 = 16_000;
const SENTENCES: [&str; 3] = [
    "Add the blue mug to my cart.",
    "And show me the red one, please.",
    "That is all for today, thank you.",
];

async fn speak(text: &str) -> AudioChunk {
    let tts = EspeakTts::new(EspeakConfig::default());
    let mut stream = tts.synthesize(text);
    let mut all = AudioChunk::new(Vec::new(), ESPEAK_RATE);
    while let Some(chunk) = stream.next().await {
        all.samples.extend(chunk.expect("espeak-ng speaks").samples);
    }
    resample_chunk(&all, RATE).expect("16 kHz")
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: vad_bench OUT.wav [ROUNDS]");
    let rounds: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("ROUNDS is a number"));
    let silence = vec![0i16; RATE as usize];
    let mut samples = silence.clone();
    for text in SENTENCES {
        samples.extend(speak(text).await.samples);
        samples.extend(&silence);
    }
    let audio = AudioChunk::new(samples, RATE);
    std::fs::write(&out, write_wav(&audio).expect("a WAV")).expect("OUT.wav is writable");

    let chunk = (RATE / 50) as usize;
    let started = Instant::now();
    let model = hark_voice::vad::SileroModel::load(
        &hark_voice::vad::model_dir()
            .expect("a model directory")
            .join(hark_voice::VAD_MODEL_FILE),
        RATE,
    )
    .expect("run scripts/fetch-model.sh first");
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut events = Vec::new();
    for round in 0..rounds {
        let mut vad = Vad::with_model(model.clone(), RATE, VadParams::default()).expect("a Vad");
        let mut times = Vec::with_capacity(audio.samples.len() / chunk + 1);
        let all = Instant::now();
        events.clear();
        for c in audio.samples.chunks(chunk) {
            let t = Instant::now();
            events.extend(vad.push_samples(c).expect("analysed"));
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let total = all.elapsed().as_secs_f64();
        times.sort_by(f64::total_cmp);
        println!(
            "{{\"impl\": \"hark\", \"round\": {round}, \"audio_s\": {:.2}, \"chunks\": {}, \
             \"chunk_us_p50\": {:.1}, \"chunk_us_p99\": {:.1}, \"rtf\": {:.5}, \"load_ms\": {:.1}}}",
            audio.duration().as_secs_f64(),
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            total / audio.duration().as_secs_f64(),
            load_ms,
        );
    }
    for e in &events {
        match e {
            VadEvent::SpeechStarted { at } => println!("hark started {:.3}", at.as_secs_f64()),
            VadEvent::SpeechStopped { at } => println!("hark stopped {:.3}", at.as_secs_f64()),
        }
    }
}
