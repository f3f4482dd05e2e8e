"""A plain ``def`` tool runs in a worker thread, so a blocking call in it leaves the event loop
(the call's audio, its other tools) running; an ``async def`` tool runs on the loop."""

from __future__ import annotations

import asyncio
import threading
import time

from pydantic import BaseModel

from hark import ToolRegistry, local_tool
from recording_speech import RecordingSpeech


class Out(BaseModel):
    thread: str


async def test_a_blocking_plain_def_tool_leaves_the_event_loop_running():
    def blocks() -> Out:
        """Blocks for half a second."""
        time.sleep(0.5)
        return Out(thread=threading.current_thread().name)

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    live = ToolRegistry([local_tool(blocks)]).start_call(RecordingSpeech())
    ticking = asyncio.ensure_future(ticker())
    result = await live.run("blocks", None, live.generation())
    ticking.cancel()
    assert result.succeeded
    assert result.result["thread"] != threading.main_thread().name
    assert ticks >= 10  # 25 ticks when the loop runs; 0 or 1 when the tool blocks it


async def test_an_async_tool_runs_on_the_event_loop_thread():
    async def quick() -> Out:
        """Answers at once."""
        return Out(thread=threading.current_thread().name)

    live = ToolRegistry([local_tool(quick)]).start_call(RecordingSpeech())
    result = await live.run("quick", None, live.generation())
    assert result.result == {"thread": threading.main_thread().name}
