"""An OpenAI-compatible chat-completions server on loopback that answers at once, not streamed.

Pipecat's ``LLMClassifier`` asks its LLM with ``run_inference``, which ``OpenAILLMService`` sends
as one non-streamed request (``"stream": false``). This server answers every such request at
once with the text ``reply(request_body)`` makes, as one ``chat.completion``; it records every
request body, in order. For tests (a classifier's fallback) and benchmarks (an LLM classifier's
floor: everything but the model's own time).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web


class InstantOpenAI:
    """``POST /v1/chat/completions`` answered at once with ``reply(body)``."""

    def __init__(self, reply: Callable[[dict[str, Any]], str]) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        """The ``base_url`` for an OpenAI client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._port}/v1"

    async def start(self) -> None:
        """Starts serving on a free loopback port."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._completions)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self._port = server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stops the server."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _completions(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        content = self.reply(body)
        return web.json_response(
            {
                "id": f"chatcmpl-instant-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "gpt-4.1-mini"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )


def answer(answers: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    """A ``reply`` that always answers ``answers`` as JSON text."""
    text = json.dumps(answers)
    return lambda _body: text
