"""One registry object in a Pipecat pipeline and in a LiveKit agent gives the model the same
JSON: the same result and refusal values in the tool messages, and the same argument schema
(``properties`` and ``required``; Pipecat's ``FunctionSchema`` sends no ``additionalProperties``).

Runs once ``hark.pipecat.tools_schema`` is in the package."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from hark import ToolRegistry, local_tool
from hark.livekit import function_tools
from livekit_session import agent_session, tool_messages
from scripted_openai import ScriptedOpenAI, calls, text

pipecat = pytest.importorskip("hark.pipecat")
if not hasattr(pipecat, "tools_schema"):
    pytest.skip("hark.pipecat has no tools_schema yet", allow_module_level=True)

from test_pipecat_harness import Bot  # noqa: E402


class Booking(BaseModel):
    reference: str
    day: date


def book_table(day: date, party: Annotated[int, Field(ge=1, le=12)] = 2) -> Booking:
    """Book a table."""
    return Booking(reference="B-12", day=day)


@pytest.mark.parametrize(
    "arguments", ['{"day": "2026-10-16", "party": 40}', '{"day": "2026-10-16"}'], ids=["refused", "booked"]
)
async def test_the_same_registry_gives_pipecat_and_livekit_the_same_json(arguments):
    registry = ToolRegistry([local_tool(book_table)])
    script = [calls(("book_table", arguments)), text("All right.")]

    on_pipecat = ScriptedOpenAI(script)
    await on_pipecat.start()
    try:
        async with Bot(on_pipecat, tools=pipecat.tools_schema(registry)) as bot:
            await bot.start_conversation()
            pipecat_requests = await on_pipecat.wait_for_requests(2)
    finally:
        await on_pipecat.close()

    on_livekit = ScriptedOpenAI(script)
    await on_livekit.start()
    try:
        async with agent_session(on_livekit, function_tools(registry)) as session:
            await session.run(user_input="Friday")
        livekit_requests = on_livekit.requests
    finally:
        await on_livekit.close()

    def results(request: dict) -> list:
        return [json.loads(m) for m in tool_messages(request)]

    # The same JSON value; Pipecat's aggregator writes it with json.dumps' spaces, LiveKit gets
    # the core's compact text.
    assert results(pipecat_requests[1]) == results(livekit_requests[1])
    assert len(results(livekit_requests[1])) == 1

    def arguments(request: dict) -> list:
        return [
            (t["function"]["name"], t["function"]["parameters"]["properties"], t["function"]["parameters"]["required"])
            for t in request["tools"]
        ]

    assert arguments(pipecat_requests[0]) == arguments(livekit_requests[0])
