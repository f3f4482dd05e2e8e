"""Pipecat 1.14's ``SileroVADAnalyzer`` on the WAV that hark-voice's ``vad_bench`` example writes:
its cost per 20 ms chunk and the turns it finds, to set beside Hark's on the same samples.

Pipecat runs the same ``silero_vad.onnx`` (the file in its wheel is the one
``scripts/fetch-model.sh`` fetches) through onnxruntime; Hark runs it through tract. Each chunk
goes through ``_run_analyzer``, what ``analyze_audio`` runs on its executor thread (so the
figure leaves out Pipecat's thread hop, in its favour).

Run (needs ``pipecat-ai==1.14.0`` and ``onnxruntime``, Pipecat's ``silero`` extra):

    cargo run --release -p hark-voice --features vad --example vad_bench -- /tmp/vad.wav
    python bench/python_vad.py /tmp/vad.wav [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import time
import wave

from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADState


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("wav")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with wave.open(args.wav, "rb") as w:
        rate = w.getframerate()
        pcm = w.readframes(w.getnframes())
    chunk = rate // 50 * 2
    chunks = [pcm[i : i + chunk] for i in range(0, len(pcm), chunk)]
    started = time.perf_counter()
    SileroVADAnalyzer(sample_rate=rate)
    load_ms = (time.perf_counter() - started) * 1e3
    turns: list[tuple[str, float]] = []
    for round_ in range(args.rounds):
        vad = SileroVADAnalyzer(sample_rate=rate)
        vad.set_sample_rate(rate)  # what the transport does when the pipeline starts
        times = []
        turns = []
        state = VADState.QUIET
        window_s = vad.num_frames_required() / rate
        windows = 0
        begin = time.perf_counter()
        for c in chunks:
            t = time.perf_counter()
            before = len(vad._vad_buffer) + len(c)
            new = vad._run_analyzer(c)
            times.append((time.perf_counter() - t) * 1e6)
            windows += (before - len(vad._vad_buffer)) // (vad.num_frames_required() * 2)
            if new != state:
                if new == VADState.SPEAKING and state != VADState.STOPPING:
                    turns.append(("started", windows * window_s))
                if new == VADState.QUIET and state in (VADState.STOPPING, VADState.SPEAKING):
                    turns.append(("stopped", windows * window_s))
                state = new
        total = time.perf_counter() - begin
        times.sort()
        audio_s = len(pcm) / 2 / rate
        print(
            json.dumps(
                {
                    "impl": "pipecat",
                    "round": round_,
                    "audio_s": round(audio_s, 2),
                    "chunks": len(times),
                    "chunk_us_p50": round(times[len(times) // 2], 1),
                    "chunk_us_p99": round(times[round((len(times) - 1) * 0.99)], 1),
                    "rtf": round(total / audio_s, 5),
                    "load_ms": round(load_ms, 1),
                }
            )
        )
    for kind, at in turns:
        print(f"pipecat {kind} {at:.3f}")


if __name__ == "__main__":
    main()
