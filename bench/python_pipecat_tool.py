"""A tool call through hark.pipecat vs the same tool as a plain Pipecat function, in one run.

Both run in the same real Pipecat 1.14 pipeline (python/tests/test_pipecat_harness.py: a
PipelineWorker run by a WorkerRunner, OpenAILLMService on the scripted OpenAI server on loopback,
the universal aggregators, the speaking recorder). The model calls book_table CALLS times in a
row (each result runs the model again, whose next reply is the next call), first with one kind
of tool, then the other, ROUNDS times in turn.

- plain: a Pipecat FunctionSchema (properties and required from the pydantic model's JSON
  Schema) whose handler validates the arguments with pydantic (model_validate), runs the tool,
  checks its result against the output model and hands model_dump(mode="json") to
  result_callback; a ValidationError goes back as {"error": ...}.
- hark: local_tool(book_table) in a ToolRegistry, through tools_schema + attach_call.

Measured per call: the handler's time, from Pipecat calling it to its result_callback (the part
where the two differ), and the turn, from one request reaching the scripted server to the next
(the whole loop: the stream, the handler, the aggregator, the next request). Then, outside the
pipeline on an idle loop, pydantic alone and the core's LiveCall.run alone. And the process's CPU
time per turn (the scripted server, the client, the pipeline and the tool all run in this
process), which a loaded machine disturbs far less than wall time.

Run (a release build of the extension):
    HARK_PY_RELEASE=1 HARK_PY_VENV=/tmp/hark-bench bash scripts/python-env.sh
    /tmp/hark-bench/bin/python bench/python_pipecat_tool.py [CALLS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import json
import logging
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "tests"))

from loguru import logger  # noqa: E402 (pipecat's logger)

logger.remove()
logging.disable(logging.WARNING)

from pipecat.adapters.llm.schemas.function_schema import FunctionSchema  # noqa: E402
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema  # noqa: E402
from pipecat.services.llm_service import FunctionCallParams  # noqa: E402
from pydantic import BaseModel, Field, ValidationError  # noqa: E402
from scripted_openai import ScriptedOpenAI, calls, text  # noqa: E402
from test_pipecat_harness import Bot  # noqa: E402

from hark import ToolRegistry, local_tool  # noqa: E402
from hark.pipecat import attach_call, tools_schema  # noqa: E402

ARGUMENTS = '{"day": "2026-10-16", "party": 4, "seating": "terrace", "name": "Ada Lovelace"}'


class BookTableArgs(BaseModel):
    day: Annotated[date, Field(description="The day the caller wants.")]
    party: Annotated[int, Field(ge=1, le=12, description="How many people come.")] = 2
    seating: Annotated[Literal["inside", "terrace"], Field(description="Where they sit.")] = (
        "inside"
    )
    name: Annotated[
        str, Field(min_length=1, max_length=40, description="The name for the booking.")
    ]


class Booking(BaseModel):
    reference: str
    day: date
    party: int
    seating: Literal["inside", "terrace"]


async def book_table(
    day: Annotated[date, Field(description="The day the caller wants.")],
    name: Annotated[
        str, Field(min_length=1, max_length=40, description="The name for the booking.")
    ],
    party: Annotated[int, Field(ge=1, le=12, description="How many people come.")] = 2,
    seating: Annotated[
        Literal["inside", "terrace"], Field(description="Where they sit.")
    ] = "inside",
) -> Booking:
    """Book a table."""
    return Booking(reference="B-12", day=day, party=party, seating=seating)


async def plain_book_table(params: FunctionCallParams) -> None:
    try:
        args = BookTableArgs.model_validate(params.arguments)
    except ValidationError as error:
        await params.result_callback({"error": str(error)})
        return
    booking = await book_table(args.day, args.name, args.party, args.seating)
    checked = Booking.model_validate(booking.model_dump())
    await params.result_callback(checked.model_dump(mode="json"))


def timed(handler: Any, samples: list[float]) -> Any:
    """``handler`` timed from its start to its result_callback, with its Pipecat options."""

    async def run(params: FunctionCallParams) -> None:
        start = time.perf_counter()
        callback = params.result_callback

        async def record(result: Any, *, properties: Any = None) -> None:
            samples.append(time.perf_counter() - start)
            await callback(result, properties=properties)

        params.result_callback = record
        await handler(params)

    for option in ("_hark_tool", "_pipecat_cancel_on_interruption"):
        if hasattr(handler, option):
            setattr(run, option, getattr(handler, option))
    return run


def plain_tools(samples: list[float]) -> ToolsSchema:
    schema = BookTableArgs.model_json_schema()
    return ToolsSchema(
        standard_tools=[
            FunctionSchema(
                "book_table",
                "Book a table.",
                schema["properties"],
                schema.get("required", []),
                handler=timed(plain_book_table, samples),
            )
        ]
    )


def hark_tools(samples: list[float]) -> Any:
    tools = tools_schema(ToolRegistry([local_tool(book_table)]))
    for schema in tools.standard_tools:
        schema._handler = timed(schema.handler, samples)
    return tools


async def one_run(
    kind: str, count: int, handler_samples: list[float], turns: list[float], cpu: list[float]
) -> None:
    server = ScriptedOpenAI()
    await server.start()
    try:
        server.add(*[calls(("book_table", ARGUMENTS)) for _ in range(count)], text("Done."))
        tools = plain_tools(handler_samples) if kind == "plain" else hark_tools(handler_samples)
        arrivals: list[float] = []
        async with Bot(server, tools=tools) as bot:
            if kind == "hark":
                attach_call(tools, llm=bot.llm, worker=bot.worker)
            cpu_start = time.process_time()
            await bot.start_conversation()
            while len(server.requests) < count + 1:
                seen = len(server.requests)
                await server.wait_for_requests(seen + 1, timeout=10)
                arrivals.extend([time.perf_counter()] * (len(server.requests) - seen))
            cpu.append((time.process_time() - cpu_start) / count)
        turns.extend(b - a for a, b in zip(arrivals, arrivals[1:]))
        if server.exhausted:
            raise SystemExit(f"{kind}: the script ran out ({server.exhausted} requests too many)")
        last = server.requests[-1]["messages"][-1]
        assert last["role"] == "tool" and '"B-12"' in last["content"], last
    finally:
        await server.close()


class SilentSpeech:
    """A Speech with nothing to say, for the core alone."""

    async def say(self, line: str) -> None:
        pass

    async def wait_playout(self) -> None:
        pass

    def reply_spoke(self) -> bool:
        return False


async def outside_the_pipeline(count: int) -> tuple[list[float], list[float]]:
    """The two call paths without Pipecat, on an idle asyncio loop: pydantic alone (the plain
    handler's work), and the core's ``LiveCall.run`` alone."""
    arguments = json.loads(ARGUMENTS)
    pydantic_times: list[float] = []
    core_times: list[float] = []
    live = ToolRegistry([local_tool(book_table)]).start_call(SilentSpeech())
    for i in range(count + 50):
        start = time.perf_counter()
        args = BookTableArgs.model_validate(arguments)
        booking = await book_table(args.day, args.name, args.party, args.seating)
        Booking.model_validate(booking.model_dump()).model_dump(mode="json")
        middle = time.perf_counter()
        await live.run("book_table", arguments, live.generation())
        end = time.perf_counter()
        if i >= 50:
            pydantic_times.append(middle - start)
            core_times.append(end - middle)
    return pydantic_times, core_times


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    handler: dict[str, list[float]] = {"plain": [], "hark": []}
    turns: dict[str, list[float]] = {"plain": [], "hark": []}
    cpu: dict[str, list[float]] = {"plain": [], "hark": []}
    await one_run("plain", 20, [], [], [])  # warm-up: imports, first connections
    await one_run("hark", 20, [], [], [])
    for _ in range(rounds):
        for kind in ("plain", "hark"):
            await one_run(kind, count, handler[kind], turns[kind], cpu[kind])
    print(
        f"{count} calls x {rounds} rounds per kind, pipecat-ai 1.14.0,"
        f" Python {sys.version.split()[0]}"
    )
    print(f"{'':6} {'handler p50':>12} {'p99':>9} {'turn p50':>10} {'p99':>9}")
    for kind in ("plain", "hark"):
        h, t = handler[kind], turns[kind]
        print(
            f"{kind:6} {percentile(h, 50) * 1e6:9.1f} µs {percentile(h, 99) * 1e6:6.1f} µs"
            f" {percentile(t, 50) * 1e3:7.2f} ms {percentile(t, 99) * 1e3:6.2f} ms"
        )
    added50 = (percentile(handler["hark"], 50) - percentile(handler["plain"], 50)) * 1e6
    added99 = (percentile(handler["hark"], 99) - percentile(handler["plain"], 99)) * 1e6
    print(f"added by hark.pipecat per call (handler): p50 {added50:+.1f} µs, p99 {added99:+.1f} µs")
    plain_cpu, hark_cpu = statistics.mean(cpu["plain"]), statistics.mean(cpu["hark"])
    print(
        f"process CPU per turn (server, client, pipeline, tool): plain {plain_cpu * 1e6:.0f} µs,"
        f" hark {hark_cpu * 1e6:.0f} µs, added {(hark_cpu - plain_cpu) * 1e6:+.0f} µs"
    )
    alone_pydantic, alone_core = await outside_the_pipeline(count * rounds)
    print(
        f"outside the pipeline: pydantic alone p50 {percentile(alone_pydantic, 50) * 1e6:.1f} µs"
        f" p99 {percentile(alone_pydantic, 99) * 1e6:.1f} µs; LiveCall.run alone p50"
        f" {percentile(alone_core, 50) * 1e6:.1f} µs p99 {percentile(alone_core, 99) * 1e6:.1f} µs"
    )
    print(
        f"mean handler: plain {statistics.mean(handler['plain']) * 1e6:.1f} µs, "
        f"hark {statistics.mean(handler['hark']) * 1e6:.1f} µs"
    )


if __name__ == "__main__":
    asyncio.run(main())
