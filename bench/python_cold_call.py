"""One tool call with cold caches: hark's core vs the plain pydantic path (issue 18).

Inside a Pipecat pipeline a tool call runs after about 50 ms of other Python work (the stream,
the aggregators, the OpenAI client), which leaves the CPU caches and TLBs holding none of the
call's code or data; ``bench/python_pipecat_tool.py`` measures the two handlers there. This
bench reproduces that state without Pipecat, so the cost can be studied on its own: before
every timed call it streams EVICT_MIB of memory through the caches (a copy of a large buffer),
then times one call. Both paths are those of ``python_pipecat_tool.py``: plain is pydantic
``model_validate`` on the arguments, the tool, the output check and ``model_dump(mode="json")``;
hark is what ``hark.pipecat``'s handler runs, ``live.generation()`` and ``live._start_run``
with the arguments dict, and the model's result read. The same calls warm (no eviction) are
printed beside them (each the same call again right after the cold one).

Run (a release build of the extension):
    HARK_PY_RELEASE=1 HARK_PY_VENV=/tmp/hark-bench bash scripts/python-env.sh
    /tmp/hark-bench/bin/python bench/python_cold_call.py [CALLS] [EVICT_MIB]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import python_pipecat_tool as tool  # noqa: E402 (the same tool, models and arguments)

from hark import ToolRegistry, local_tool  # noqa: E402


async def plain(arguments: dict) -> object:
    args = tool.BookTableArgs.model_validate(arguments)
    booking = await tool.book_table(args.day, args.name, args.party, args.seating)
    return tool.Booking.model_validate(booking.model_dump()).model_dump(mode="json")


async def hark_async(live, arguments: dict) -> object:
    started = live._start_run("book_table", arguments, live.generation())
    assert not isinstance(started, asyncio.Future), "book_table waits for nothing"
    return started.model_result


async def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    evict_mib = int(sys.argv[2]) if len(sys.argv) > 2 else 96
    buffer = bytearray(evict_mib << 20)
    arguments = json.loads(tool.ARGUMENTS)
    live = ToolRegistry([local_tool(tool.book_table)]).start_call(tool.SilentSpeech())
    times: dict[str, list[float]] = {k: [] for k in ("plain cold", "hark cold", "plain warm", "hark warm")}
    paths = (("plain", lambda: plain(arguments)), ("hark", lambda: hark_async(live, arguments)))
    held = b""
    for i in range(calls + 20):
        for name, call in paths:
            # Cold: the buffer streamed through the caches just before (the copy is kept until
            # the next one, so freeing it does not land in the timed call).
            held = bytes(buffer)
            start = time.perf_counter()
            await call()
            cold = time.perf_counter() - start
            # The loop runs what the call left it (the eager task's callbacks), as Pipecat's does.
            await asyncio.sleep(0)
            # Warm: the same call again at once.
            start = time.perf_counter()
            await call()
            warm = time.perf_counter() - start
            await asyncio.sleep(0)
            if i >= 20:
                times[f"{name} cold"].append(cold)
                times[f"{name} warm"].append(warm)
    del held
    print(f"{calls} calls each, {evict_mib} MiB streamed before each cold call, Python {sys.version.split()[0]}")
    for name, values in times.items():
        ordered = sorted(values)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(f"  {name:11} p50 {statistics.median(values) * 1e6:7.1f} µs   p99 {p99 * 1e6:7.1f} µs")


if __name__ == "__main__":
    asyncio.run(main())
