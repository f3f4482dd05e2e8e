"""The added time of a Hark tool call in a LiveKit agent, against the same tool as a plain
``@function_tool`` with LiveKit's own validation.

Both agents run in LiveKit's text-only mode (an ``AgentSession`` with no room), their OpenAI
plugin pointed at the scripted OpenAI-compatible server of python/tests on loopback. One turn:
the user's text, the model calls ``book_table`` (a date, a bounded int, a Literal, an optional
phone), the tool runs, the model's reply. Two measurements per agent:

- the tool step, what LiveKit's tool executor does for one call: ``prepare_function_arguments``
  (for the plain tool LiveKit's pydantic validation), awaiting the tool, ``make_tool_output``
  (the text the model reads), with a real ``RunContext`` of the started session; many calls,
  alternating between the two tools;
- the turn: ``session.run(user_input=...)`` end to end (two model requests, LiveKit's own
  scheduling), in blocks alternating between the two agents.

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

from livekit.agents import Agent, AgentSession, RunContext, function_tool
from livekit.agents.llm import FunctionCall
from livekit.agents.llm.utils import prepare_function_arguments
from livekit.agents.voice import SpeechHandle
from livekit.agents.voice.generation import make_tool_output
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
    """A session, its tool, and the times of its tool steps and turns."""

    def __init__(self, session: AgentSession, tool) -> None:
        self.session = session
        self.tool = tool
        self.tool_us: list[float] = []
        self.turn_us: list[float] = []

    async def tool_step(self) -> None:
        """One call as LiveKit's tool executor makes it, timed."""
        call = FunctionCall(call_id="call_bench", name="book_table", arguments=RAW)
        context = RunContext(
            session=self.session,
            speech_handle=SpeechHandle.create(),
            function_call=call,
        )
        start = time.perf_counter()
        args, kwargs = prepare_function_arguments(fnc=self.tool, json_arguments=RAW, call_ctx=context)
        output = await self.tool(*args, **kwargs)
        made = make_tool_output(fnc_call=call, output=output, exception=None)
        self.tool_us.append((time.perf_counter() - start) * 1e6)
        assert made.fnc_call_out.output == EXPECTED, made.fnc_call_out

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
    steps = 20 * turns
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
        hark, plain = Timed(hark_session, hark_tools[0]), Timed(plain_session, plain_book_table)
        for _ in range(warmup):
            await hark.turn(server)
            await plain.turn(server)
            await hark.tool_step()
            await plain.tool_step()
        for timed in (hark, plain):
            timed.tool_us.clear()
            timed.turn_us.clear()
        for _ in range(steps):
            await hark.tool_step()
            await plain.tool_step()
        for _ in range(turns // block):
            for timed in (hark, plain):
                for _ in range(block):
                    await timed.turn(server)
    await server.close()
    print(f"{len(hark.tool_us)} tool steps and {len(hark.turn_us)} turns per agent "
          f"(python {sys.version.split()[0]})")
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
