"""p50/p99 of the Pipecat bot's own per-turn clock (``pipecat_bot.py --log``): ms from the
``VADUserStoppedSpeakingFrame`` to the transcript, the turn's end and the first
``TTSAudioRawFrame``, over the turns after the warm-up.

    target/py-venv/bin/python bench/voice/server_clock.py target/voice-latency/pipecat-vad.server.jsonl --warmup 2
"""

from __future__ import annotations

import argparse
import json

from latency_client import pct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    with open(args.log) as f:
        turns = [json.loads(line) for line in f][args.warmup :]
    out: dict = {"log": args.log, "turns": len(turns)}
    for key in ("transcript", "turn_end", "first_audio"):
        ms = [t[key] for t in turns if key in t]
        if ms:
            out[f"vad_stop_to_{key}"] = {"n": len(ms), "p50": round(pct(ms, 50), 1),
                                         "p99": round(pct(ms, 99), 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
