"""The caller's utterance for the end-of-speech latency bench, and where the VAD stops in it.

``utterance(text)``: espeak-ng's speech (Debian's espeak-ng, default voice, 22,050 Hz) resampled
to 16 kHz PCM16 (soxr), with LEAD_SECS of silence before it and TAIL_SECS after.
``StreamVad``: Pipecat 1.14's ``SileroVADAnalyzer`` (default ``VADParams``) on the stream the
client sends, chunk by chunk, as a server's VAD runs on it. hark-voice's ``Vad`` finds the same
turn times as Pipecat's on the same audio (docs/PERFORMANCE.md, the VAD section), so both servers'
VADs stop on the chunk this one stops on.
"""

from __future__ import annotations

import subprocess

import numpy as np
import soxr

RATE = 16_000
CHUNK = RATE // 50  # 20 ms
LEAD_SECS = 0.3
TAIL_SECS = 1.2


def espeak(text: str) -> np.ndarray:
    """``text`` said by espeak-ng at 16 kHz, as int16 samples."""
    wav = subprocess.run(["espeak-ng", "--stdout", text], check=True, capture_output=True).stdout
    # espeak-ng's WAV header is 44 bytes; its rate is 22,050 Hz, mono, 16-bit.
    rate = int.from_bytes(wav[24:28], "little")
    samples = np.frombuffer(wav[44:], dtype="<i2").astype(np.float32) / 32768.0
    out = soxr.resample(samples, rate, RATE)
    return (np.clip(out, -1.0, 1.0) * 32767).astype("<i2")


def utterance(text: str) -> bytes:
    """LEAD_SECS of silence, ``text`` said, TAIL_SECS of silence, as PCM16 bytes at 16 kHz."""
    silence = lambda secs: np.zeros(int(RATE * secs), dtype="<i2")  # noqa: E731
    pcm = np.concatenate([silence(LEAD_SECS), espeak(text), silence(TAIL_SECS)])
    pad = (-len(pcm)) % CHUNK
    return np.concatenate([pcm, silence(pad / RATE)]).tobytes()


def chunks(pcm: bytes) -> list[bytes]:
    """``pcm`` in 20 ms chunks."""
    size = CHUNK * 2
    return [pcm[i : i + size] for i in range(0, len(pcm), size)]


class StreamVad:
    """Pipecat 1.14's ``SileroVADAnalyzer`` (default ``VADParams``) run on every chunk the client
    sends, in order, as a server's VAD runs on the stream it receives: ``push`` says on which
    chunk the speech was confirmed ("started") and on which it stopped ("stopped")."""

    def __init__(self) -> None:
        from pipecat.audio.vad.silero import SileroVADAnalyzer
        from pipecat.audio.vad.vad_analyzer import VADState

        self._states = VADState
        self._vad = SileroVADAnalyzer(sample_rate=RATE)
        self._vad.set_sample_rate(RATE)
        self._state = VADState.QUIET

    def push(self, chunk: bytes) -> str | None:
        """Runs the VAD on ``chunk``; "started", "stopped" or None."""
        s = self._states
        new = self._vad._run_analyzer(chunk)
        old, self._state = self._state, new
        if new == s.SPEAKING and old in (s.QUIET, s.STARTING):
            return "started"
        if new == s.QUIET and old in (s.SPEAKING, s.STOPPING):
            return "stopped"
        return None
