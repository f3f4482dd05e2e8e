"""Scripted speech and model services that answer at once, for the end-of-speech latency bench.

One aiohttp process on loopback serves what both Hark and Pipecat are pointed at:

- ``POST /v1/audio/transcriptions`` (OpenAI's STT form): ``{"text": TRANSCRIPT}`` at once.
- ``POST /v1/chat/completions`` with ``"stream": true``: REPLY as OpenAI's streamed chunks (one
  content chunk per word, ``finish_reason``, usage, ``[DONE]``), all written at once.
- ``POST /v1/audio/speech`` (``response_format: "pcm"``): BOT_AUDIO_SECS of 24 kHz PCM16 mono
  (a quiet saw wave), streamed at once in 4,800-byte chunks (100 ms each).

Each request is counted per path (``GET /counts``), so a run can be checked to have gone
through the services. Run on its own, or let ``bench/voice/run.sh`` start it:

    target/py-venv/bin/python bench/voice/scripted_services.py --port 8765
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from aiohttp import web

TRANSCRIPT = "add the blue mug to my cart"
REPLY = "The blue mug is in your cart."
BOT_AUDIO_SECS = 0.5
PCM_RATE = 24_000
PCM_CHUNK = 4_800


def bot_pcm(seconds: float = BOT_AUDIO_SECS) -> bytes:
    """``seconds`` of 24 kHz PCM16: a quiet saw wave, so a client can tell it from silence."""
    samples = int(PCM_RATE * seconds)
    return b"".join(((i % 200) * 50).to_bytes(2, "little", signed=True) for i in range(samples))


def sse(payload: dict | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


def chunk(choices: list, **extra: object) -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "scripted",
        "choices": choices,
        **extra,
    }


class Services:
    """The three endpoints and their request counts."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.pcm = bot_pcm()

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/audio/transcriptions", self.transcriptions)
        app.router.add_post("/v1/chat/completions", self.completions)
        app.router.add_post("/v1/audio/speech", self.speech)
        app.router.add_get("/counts", self.show_counts)
        return app

    async def transcriptions(self, request: web.Request) -> web.Response:
        await request.read()
        self.counts["stt"] += 1
        return web.json_response({"text": TRANSCRIPT})

    async def completions(self, request: web.Request) -> web.StreamResponse:
        await request.json()
        self.counts["llm"] += 1
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        words = REPLY.split(" ")
        body = [sse(chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}}]))]
        for i, word in enumerate(words):
            piece = word if i == 0 else " " + word
            body.append(sse(chunk([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])))
        body.append(sse(chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}])))
        usage = {"prompt_tokens": 10, "completion_tokens": len(words), "total_tokens": 10 + len(words)}
        body.append(sse(chunk([], usage=usage)))
        body.append(sse("[DONE]"))
        await response.write(b"".join(body))
        await response.write_eof()
        return response

    async def speech(self, request: web.Request) -> web.StreamResponse:
        await request.json()
        self.counts["tts"] += 1
        response = web.StreamResponse(headers={"Content-Type": "audio/pcm"})
        await response.prepare(request)
        for i in range(0, len(self.pcm), PCM_CHUNK):
            await response.write(self.pcm[i : i + PCM_CHUNK])
        await response.write_eof()
        return response

    async def show_counts(self, _request: web.Request) -> web.Response:
        return web.json_response(dict(self.counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    web.run_app(Services().app(), host="127.0.0.1", port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
