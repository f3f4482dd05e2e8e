//! Local TTS: time to first audio for a 12-word line with espeak-ng, or with the local neural
//! voice (issue 21's measure).
//!
//! `cargo run --release -p hark-voice --example tts_first_audio -- [ROUNDS]` synthesizes the
//! line ROUNDS times (default 30) as `hark serve` does for a call: espeak-ng's stream resampled
//! to the 24 kHz Pipecat's WebSocket client plays (`hark_voice::resampled`). Per round: from
//! `synthesize` to the first 24 kHz chunk, and to the last; then p50/p90/max and the real-time
//! factor (synthesis time over audio length).
//!
//! `... --example tts_first_audio -- ROUNDS --openai BASE_URL` measures the same through
//! `OpenAiTts` (as `[tts] provider = "openai-compatible"`) against the server at `BASE_URL`,
//! e.g. `scripts/tts-server.py`'s `http://127.0.0.1:8179/v1` (Piper, 24 kHz `pcm`).

use std::time::Instant;

use futures::StreamExt;
use hark_voice::{EspeakConfig, EspeakTts, OpenAiTts, OpenAiTtsConfig, Tts, resampled};

const LINE: &str = "Your blue mug is in the cart, and it ships out tomorrow.";
const RATE: u32 = 24_000;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args
        .first()
        .map(|r| r.parse().expect("ROUNDS is a number"))
        .unwrap_or(30);
    assert_eq!(LINE.split_whitespace().count(), 12);
    let tts: Box<dyn Tts> = match args.get(1).map(String::as_str) {
        None => Box::new(EspeakTts::new(EspeakConfig::default())),
        Some("--openai") => {
            let url = args.get(2).expect("--openai BASE_URL");
            Box::new(OpenAiTts::new(OpenAiTtsConfig::new(url, "piper", "joe")))
        }
        Some(other) => panic!("unknown argument {other:?}: [ROUNDS [--openai BASE_URL]]"),
    };
    let (mut first, mut whole, mut rtf) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds + 2 {
        let start = Instant::now();
        let mut stream = resampled(tts.synthesize(LINE), RATE);
        let mut first_at = None;
        let mut samples = 0usize;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.expect("the TTS speaks (espeak-ng installed, or the server up)");
            if first_at.is_none() && !chunk.is_empty() {
                first_at = Some(start.elapsed());
            }
            samples += chunk.samples.len();
        }
        let total = start.elapsed();
        // Two rounds of warm-up (the program's first start reads its voice data from disk; the
        // client's first request opens its connection).
        if round < 2 {
            continue;
        }
        let audio = samples as f64 / f64::from(RATE);
        first.push(first_at.expect("audio").as_secs_f64() * 1e3);
        whole.push(total.as_secs_f64() * 1e3);
        rtf.push(total.as_secs_f64() / audio);
    }
    for v in [&mut first, &mut whole, &mut rtf] {
        v.sort_by(f64::total_cmp);
    }
    println!(
        "{{\"line_words\":12,\"rounds\":{rounds},\
         \"first_audio_ms\":{{\"p50\":{:.1},\"p90\":{:.1},\"max\":{:.1}}},\
         \"whole_line_ms\":{{\"p50\":{:.1},\"p90\":{:.1}}},\"rtf_p50\":{:.4}}}",
        percentile(&first, 0.5),
        percentile(&first, 0.9),
        first.last().unwrap(),
        percentile(&whole, 0.5),
        percentile(&whole, 0.9),
        percentile(&rtf, 0.5),
    );
}
