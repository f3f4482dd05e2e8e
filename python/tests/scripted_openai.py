"""A scripted OpenAI-compatible chat-completions server on loopback, for tests and benchmarks.

It answers ``POST /v1/chat/completions`` from a script of replies, streamed as server-sent events
the way OpenAI streams them: a first chunk with the role, the text in small pieces, each tool call
opened by a chunk with its id and name and followed by its raw argument text split over several
chunks, a last chunk with the ``finish_reason``, a usage chunk when the request asks for one, then
``data: [DONE]``. Every request body is recorded, in order, so a test can read what the model was
sent (the tool results, the system prompt, the tools).

A reply can hold until a gate opens (``Reply(gate=asyncio.Event())``), so a test can interrupt a
response while it streams. When the script runs out, the server answers HTTP 400 with an error
body (the OpenAI client does not retry a 400) and counts it in ``exhausted``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from aiohttp import web


@dataclass
class ToolCall:
    """One tool call in a scripted reply: the raw argument text is sent as it is, even if it is
    not valid JSON."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@dataclass
class Reply:
    """One scripted model reply: text, tool calls, or both (the text first, as OpenAI sends it)."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    gate: asyncio.Event | None = None
    """When set, the stream stops after its first chunk until the event is set."""
    chunk_delay: float = 0.0
    """Seconds between chunks."""


def text(content: str, **options: Any) -> Reply:
    """A reply that only says ``content``."""
    return Reply(text=content, **options)


def calls(*tool_calls: ToolCall | tuple[str, str], text: str = "", **options: Any) -> Reply:
    """A reply that calls tools; a call is a :class:`ToolCall` or a ``(name, raw_arguments)`` pair."""
    made = [c if isinstance(c, ToolCall) else ToolCall(c[0], c[1]) for c in tool_calls]
    return Reply(text=text, tool_calls=made, **options)


def _pieces(value: str, size: int) -> list[str]:
    """``value`` cut into pieces of at most ``size`` characters (at least one piece)."""
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


class ScriptedOpenAI:
    """The server. ``await start()`` binds a free port on 127.0.0.1; ``base_url`` is what
    ``OpenAILLMService(base_url=...)`` takes."""

    def __init__(self, script: Iterable[Reply] = ()) -> None:
        self.script: list[Reply] = list(script)
        self.requests: list[dict[str, Any]] = []
        self.exhausted = 0
        self._served = 0
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._arrived = asyncio.Condition()

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server (``http://127.0.0.1:<port>/v1``)."""
        return f"http://127.0.0.1:{self._port}/v1"

    def add(self, *replies: Reply) -> None:
        """Appends replies to the script."""
        self.script.extend(replies)

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

    async def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Waits until ``count`` requests have arrived; raises ``TimeoutError`` naming how many did."""
        async with self._arrived:
            try:
                await asyncio.wait_for(
                    self._arrived.wait_for(lambda: len(self.requests) >= count), timeout
                )
            except TimeoutError:
                raise TimeoutError(
                    f"the scripted server got {len(self.requests)} requests, not {count}, "
                    f"within {timeout} s"
                ) from None
        return self.requests

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        async with self._arrived:
            self.requests.append(body)
            self._arrived.notify_all()
        if self._served >= len(self.script):
            self.exhausted += 1
            return web.json_response(
                {
                    "error": {
                        "message": f"the script has {len(self.script)} replies; "
                        f"request {len(self.requests)} has none",
                        "type": "invalid_request_error",
                    }
                },
                status=400,
            )
        reply = self.script[self._served]
        self._served += 1
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        model = body.get("model", "gpt-4.1-mini")
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        try:
            async for chunk in self._chunks(reply, model, usage):
                await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            # The client went away mid-stream (an interruption): nothing more to send.
            pass
        return response

    async def _chunks(self, reply: Reply, model: str, usage: bool) -> AsyncIterator[dict[str, Any]]:
        number = self._served
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": f"chatcmpl-scripted-{number}",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }

        yield chunk({"role": "assistant", "content": "" if reply.text or not reply.tool_calls else None})
        if reply.gate is not None:
            await reply.gate.wait()
        for piece in _pieces(reply.text, 8) if reply.text else []:
            if reply.chunk_delay:
                await asyncio.sleep(reply.chunk_delay)
            yield chunk({"content": piece})
        for index, call in enumerate(reply.tool_calls):
            call_id = call.id or f"call_{number}_{index}"
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _pieces(call.arguments, 5) if call.arguments else []:
                if reply.chunk_delay:
                    await asyncio.sleep(reply.chunk_delay)
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
        if usage:
            yield {
                "id": f"chatcmpl-scripted-{number}",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }


@pytest_asyncio.fixture
async def openai_server() -> AsyncIterator[ScriptedOpenAI]:
    """A started :class:`ScriptedOpenAI` with an empty script; ``openai_server.add(...)`` fills it."""
    server = ScriptedOpenAI()
    await server.start()
    try:
        yield server
    finally:
        await server.close()
