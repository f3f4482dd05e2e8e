"""``live.close()``: a run still pending returns a cancelled result, its tool is cancelled, and a
run after close raises."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from hark import Done, ToolRegistry, local_tool
from recording_speech import RecordingSpeech


class Out(BaseModel):
    v: int = 1


async def test_close_while_a_tool_runs_returns_the_pending_run_as_cancelled():
    finished: list[str] = []

    async def hang() -> Out:
        """Hangs."""
        try:
            await asyncio.sleep(10**6)
        finally:
            finished.append("tool cancelled")

    live = ToolRegistry([local_tool(hang)]).start_call(RecordingSpeech())
    task = asyncio.ensure_future(live.run("hang", "{}", live.generation()))
    await asyncio.sleep(0.1)
    await asyncio.wait_for(live.close(), 5)
    result = await asyncio.wait_for(task, 2)
    assert result.status == "failed"
    assert result.model_text == '{"error":"cancelled"}'
    assert result.model_result == {"error": "cancelled"}
    await asyncio.sleep(0.05)
    assert finished == ["tool cancelled"]


async def test_close_returns_a_pending_continue_tool_run_too():
    async def book() -> Done:
        await asyncio.sleep(10**6)

    live = ToolRegistry([local_tool(book, interruption="continue")]).start_call(RecordingSpeech())
    task = asyncio.ensure_future(live.run("book", None, live.generation()))
    await asyncio.sleep(0.1)
    await live.close()
    result = await asyncio.wait_for(task, 2)
    assert (result.status, result.model_text) == ("failed", '{"error":"cancelled"}')


async def test_close_lets_a_continue_tool_that_started_run_to_its_end():
    """docs/guide/python.md: an interruption="continue" tool, once it started, runs to its end
    (a payment is not cut in half when the caller hangs up); its result is dropped."""
    log: list[str] = []

    async def charge_card() -> Out:
        """Charges the card."""
        log.append("start")
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        log.append("end")
        return Out()

    live = ToolRegistry([local_tool(charge_card, interruption="continue")]).start_call(
        RecordingSpeech()
    )
    task = asyncio.ensure_future(live.run("charge_card", {}, live.generation()))
    await asyncio.sleep(0.1)
    await asyncio.wait_for(live.close(), 5)
    result = await asyncio.wait_for(task, 2)
    assert (result.status, result.model_text) == ("failed", '{"error":"cancelled"}')
    assert log == ["start"]
    await asyncio.sleep(0.5)
    assert log == ["start", "end"]


async def test_a_run_after_close_raises_and_the_tool_never_runs():
    ran: list[str] = []

    def lookup() -> Done:
        ran.append("ran")

    live = ToolRegistry([local_tool(lookup)]).start_call(RecordingSpeech())
    await live.close()
    with pytest.raises(RuntimeError, match=r"^this call is closed: live\.close\(\) ended it"):
        await live.run("lookup", None, live.generation())
    assert ran == []
    assert await live.close() == 0  # a second close is fine
