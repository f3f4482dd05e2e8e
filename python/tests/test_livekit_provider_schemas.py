"""The schema Hark normalised, as LiveKit's Anthropic and Google plugins send it (livekit-plugins-
anthropic and livekit-plugins-google 1.8.9, the real clients): each plugin's request to a
capturing server on loopback carries, for every tool, exactly the schema of Hark's dialect for
that provider (``anthropic``, ``gemini_json_schema``). OpenAI's is pinned in
``test_livekit_tools.py`` against the scripted OpenAI server.

The capturing server answers each request with one short text reply in the provider's streaming
format, so a session turn completes; only the request matters here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date, datetime, time
from typing import Annotated, Any, Literal

import pytest_asyncio
from aiohttp import web
from google.genai import types
from livekit.agents import Agent, AgentSession
from livekit.plugins import anthropic as anthropic_plugin
from livekit.plugins import google as google_plugin
from pydantic import BaseModel, Field

from hark import Phone, ToolRegistry, local_tool
from hark.livekit import function_tools


class Item(BaseModel):
    sku: str
    qty: Annotated[int, Field(ge=1, description="How many.")] = 1


def order(
    items: list[Item],
    when: datetime,
    at: time | None = None,
    phone: Phone | None = None,
    kind: Literal["pickup", "delivery"] = "pickup",
    note: Annotated[str | None, Field(max_length=200)] = None,
    tip: Annotated[float, Field(ge=0, le=100)] = 0.0,
) -> None:
    """Place an order."""


def book_table(day: date, party: Annotated[int, Field(ge=1, le=12)]) -> None:
    """Book a table."""


def registry() -> ToolRegistry:
    return ToolRegistry([local_tool(order), local_tool(book_table)])


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}\n")
        out.append(f"data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


ANTHROPIC_REPLY = _sse(
    [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-scripted",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello."}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)

GEMINI_REPLY = _sse(
    [
        (
            None,
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": "Hello."}]}, "finishReason": "STOP"}
                ],
                "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            },
        )
    ]
)


class Capture:
    """Records every request body; answers Anthropic's ``/v1/messages`` and Gemini's
    ``streamGenerateContent`` with one text reply."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append((request.path, await request.json()))
        body = ANTHROPIC_REPLY if request.path.endswith("/messages") else GEMINI_REPLY
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(body)
        await response.write_eof()
        return response


@pytest_asyncio.fixture
async def capture() -> AsyncIterator[Capture]:
    server = Capture()
    app = web.Application()
    app.router.add_post("/{tail:.*}", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        await runner.cleanup()


async def _one_turn(llm: Any, tools: list[Any]) -> None:
    async with llm, AgentSession(llm=llm) as session:
        await session.start(Agent(instructions="You take orders.", tools=tools))
        await session.run(user_input="Hi")


async def test_anthropic_gets_hark_s_anthropic_schema(capture):
    hark = registry()
    llm = anthropic_plugin.LLM(model="claude-scripted", api_key="scripted", base_url=capture.url)
    await _one_turn(llm, function_tools(hark))
    ((path, body),) = capture.requests
    assert path == "/v1/messages"
    assert body["tools"] == hark.definitions(dialect="anthropic")
    assert body["tools"][0]["input_schema"]["additionalProperties"] is False


async def test_gemini_gets_hark_s_gemini_json_schema(capture):
    hark = registry()
    llm = google_plugin.LLM(
        model="gemini-scripted",
        api_key="scripted",
        http_options=types.HttpOptions(base_url=capture.url),
    )
    await _one_turn(llm, function_tools(hark))
    ((path, body),) = capture.requests
    assert path.endswith("/models/gemini-scripted:streamGenerateContent")
    (declarations,) = [t["functionDeclarations"] for t in body["tools"] if "functionDeclarations" in t]
    # google-genai writes the field in its proto name (parameters_json_schema), which the Gemini
    # API reads as it reads parametersJsonSchema; the schema in it is Hark's as it is.
    assert [
        {"name": d["name"], "description": d["description"], "parametersJsonSchema": d["parameters_json_schema"]}
        for d in declarations
    ] == hark.definitions(dialect="gemini_json_schema")
    assert [set(d) for d in declarations] == [{"name", "description", "parameters_json_schema"}] * 2
