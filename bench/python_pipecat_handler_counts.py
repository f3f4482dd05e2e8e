"""Counts, per tool call, the Python-level calls on the two handler paths of
bench/python_pipecat_tool.py, on an idle asyncio loop: Hark's ``PipecatCall.handle`` and the plain
pydantic handler, each given the ``params`` a Pipecat call carries. Counts do not depend on the
machine's load, as wall times do. Also the container objects each call leaves to the GC.

Run (the extension built as for the bench):
    /tmp/hark-bench/bin/python bench/python_pipecat_handler_counts.py [-v]
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import python_pipecat_tool as bench  # noqa: E402

from hark import ToolRegistry, local_tool  # noqa: E402
from hark.pipecat.tools import PipecatCall  # noqa: E402


async def main() -> None:
    verbose = "-v" in sys.argv
    call = PipecatCall(
        ToolRegistry([local_tool(bench.book_table)]),
        state=None,
        call=None,
        language="en",
        timezone=None,
    )
    llm, worker = object(), object()
    call._bound = (llm, worker)  # as attach_call leaves it
    arguments = json.loads(bench.ARGUMENTS)
    results: list[Any] = []

    async def result_callback(result: Any, *, properties: Any = None) -> None:
        results.append(result)

    def params() -> Any:
        return SimpleNamespace(
            function_name="book_table",
            arguments=dict(arguments),
            llm=llm,
            pipeline_worker=worker,
            result_callback=result_callback,
        )

    paths = {"plain": bench.plain_book_table, "hark": call.handle}
    for _ in range(200):  # warm: every cache filled
        for handler in paths.values():
            await handler(params())
    for kind, handler in paths.items():
        counts: collections.Counter[str] = collections.Counter()

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                counts["py " + frame.f_code.co_qualname] += 1
            elif event == "c_call":
                counts["c  " + getattr(arg, "__qualname__", repr(arg))] += 1

        given = params()
        sys.setprofile(profile)
        await handler(given)
        sys.setprofile(None)
        python = sum(n for k, n in counts.items() if k.startswith("py "))
        native = sum(n for k, n in counts.items() if k.startswith("c  "))
        gc.collect()
        gc.disable()
        before = gc.get_count()[0]
        await handler(params())
        left = gc.get_count()[0] - before
        gc.enable()
        print(f"{kind:6} {python:3d} Python calls, {native:3d} C calls, {left:3d} GC objects")
        if verbose:
            for name, n in sorted(counts.items()):
                print(f"         {n:3d} {name}")


if __name__ == "__main__":
    asyncio.run(main())
