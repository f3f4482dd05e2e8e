"""The added time of a Hark tool call in a LiveKit agent, against the same tool as a plain
``@function_tool`` with LiveKit's own validation.

Both agents run in LiveKit's text-only mode (an ``AgentSession`` with no room), their OpenAI
plugin pointed at the scripted OpenAI-compatible server of python/tests on loopback. One turn:
the user's text, the model calls ``book_table`` (a date, a bounded int, a Literal, an optional
phone), the tool runs, the model's reply. Two numbers per agent:

- the tool: from LiveKit starting the call (``tool_execution_updated`` "started") to its
  output (``function_tools_executed``), i.e. argument validation, the tool, the result text;
- the turn: ``session.run(user_input=...)`` end to end (two model requests).

Turns alternate between the two agents in blocks, so drift on the machine hits both alike.

Run (after scripts/python-env.sh; HARK_PY_RELEASE=1 for an optimised core):
    .venv/bin/python bench/python_livekit_tool.py [turns per agent, default 300]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from livekit.agents import Agent, AgentSession, function_tool
from livekit.plugins import openai
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "tests"))
from scripted_openai import ScriptedOpenAI, calls, text  # noqa: E402

from hark import Phone, ToolRegistry, local_tool  # noqa: E402
from hark.livekit import function_tools  # noqa: E402

RAW = '{"day": "2026-10-16", "party": 4, "seating": "terrace", "phone": "+1 415-555-0123"}'
EXPECTED = '{"reference":"B-12","day":"2026-10-16"}'


class Booking(BaseModel):
    reference: str
    day: date


def hark_book_table(
    day: Annotated[date, Field(description="The day the caller wants.")],
    party: Annotated[int, Field(ge=1, le=12)] = 2,
    seating: Literal["inside", "terrace"] = "inside",
    phone: Phone | None = None,
) -> Booking:
    """Book a table."""
    return Booking(reference="B-12", day=day)


@function_tool(name="book_table")
async def plain_book_table(
    day: Annotated[date, Field(description="The day the caller wants. A date written YYYY-MM-DD.")],
    party: Annotated[int, Field(ge=1, le=12)] = 2,
    seating: Literal["inside", "terrace"] = "inside",
    phone: str | None = None,
) -> str:
    """Book a table."""
    # The JSON text the model should read (LiveKit would send a dict as its Python repr).
    return Booking(reference="B-12", day=day).model_dump_json()


class Timed:
    """A session whose tool calls are timed from LiveKit's own events."""

    def __init__(self, session: AgentSession) -> None:
        self.session = session
        self.tool_us: list[float] = []
        self.turn_us: list[float] = []
        self._started = 0.0
        session.on("tool_execution_updated", self._on_update)
        session.on("function_tools_executed", self._on_executed)

    def _on_update(self, event) -> None:
        if type(event.update).__name__ == "ToolCallStarted":
            self._started = time.perf_counter()

    def _on_executed(self, event) -> None:
        self.tool_us.append((time.perf_counter() - self._started) * 1e6)
        assert [o.output for o in event.function_call_outputs] == [EXPECTED], event

    async def turn(self, server: ScriptedOpenAI) -> None:
        server.add(calls(("book_table", RAW)), text("Booked."))
        start = time.perf_counter()
        await self.session.run(user_input="Friday for four on the terrace")
        self.turn_us.append((time.perf_counter() - start) * 1e6)


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):8.0f} µs   p99 {p99:8.0f} µs"


async def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    warmup, block = 20, 10
    server = ScriptedOpenAI()
    await server.start()
    hark_tools = function_tools(ToolRegistry([local_tool(hark_book_table, name="book_table")]))
    async with (
        openai.LLM(model="gpt-4.1-mini", base_url=server.base_url, api_key="bench") as llm,
        AgentSession(llm=llm) as hark_session,
        AgentSession(llm=llm) as plain_session,
    ):
        await hark_session.start(Agent(instructions="You book tables.", tools=hark_tools))
        await plain_session.start(Agent(instructions="You book tables.", tools=[plain_book_table]))
        hark, plain = Timed(hark_session), Timed(plain_session)
        for _ in range(warmup):
            await hark.turn(server)
            await plain.turn(server)
        for timed in (hark, plain):
            timed.tool_us.clear()
            timed.turn_us.clear()
        for _ in range(turns // block):
            for timed in (hark, plain):
                for _ in range(block):
                    await timed.turn(server)
    await server.close()
    print(f"{len(hark.tool_us)} turns per agent (python {sys.version.split()[0]})")
    print(f"tool, Hark function_tools:      {summary(hark.tool_us)}")
    print(f"tool, plain @function_tool:     {summary(plain.tool_us)}")
    print(f"turn, Hark function_tools:      {summary(hark.turn_us)}")
    print(f"turn, plain @function_tool:     {summary(plain.turn_us)}")
    added = statistics.median(hark.tool_us) - statistics.median(plain.tool_us)
    print(f"added by Hark at p50 (tool):    {added:8.0f} µs")
    print(json.dumps({"hark_tool_p50_us": statistics.median(hark.tool_us),
                      "plain_tool_p50_us": statistics.median(plain.tool_us)}))


if __name__ == "__main__":
    asyncio.run(main())
