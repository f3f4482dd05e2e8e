"""A tool call that waits for nothing finishes without giving the event loop away: `live.run`
of an async tool that does not suspend returns before any other callback of the loop runs (the
coroutine is started eagerly, like Python 3.12's eager tasks). One that waits goes on as a task
of its own, with its own context copy, and can be cancelled and time out as any task."""

from __future__ import annotations

import asyncio
import contextvars
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from hark import Phone, ToolRegistry, local_tool
from recording_speech import RecordingSpeech

CALLER = contextvars.ContextVar("caller", default="unset")


class Booking(BaseModel):
    reference: str
    day: date


def loop_ran() -> list[str]:
    """A list that gets "ran" as soon as the event loop runs its next callback."""
    ran: list[str] = []
    asyncio.get_running_loop().call_soon(ran.append, "ran")
    return ran


async def test_a_tool_that_waits_for_nothing_does_not_give_the_loop_away():
    async def book_table(
        day: date,
        party: Annotated[int, Field(ge=1, le=12)] = 2,
        seating: Literal["inside", "terrace"] = "inside",
        phone: Phone | None = None,
    ) -> Booking:
        return Booking(reference="B-12", day=day)

    live = ToolRegistry([local_tool(book_table)]).start_call(RecordingSpeech())
    ran = loop_ran()
    result = await live.run(
        "book_table", '{"day": "2026-10-16", "party": 4, "phone": "+1 415-555-0123"}', live.generation()
    )
    assert ran == []
    assert result.model_text == '{"reference":"B-12","day":"2026-10-16"}'
    await asyncio.sleep(0)
    assert ran == ["ran"]


async def test_a_tool_that_waits_runs_as_its_own_task_in_a_copy_of_the_callers_context():
    seen: dict[str, object] = {}
    caller = asyncio.current_task()

    async def lookup(order: str) -> Booking:
        seen["before"] = asyncio.current_task()
        seen["caller_value"] = CALLER.get()
        CALLER.set("the tool's")
        async with asyncio.timeout(5):
            await asyncio.sleep(0.01)
        seen["after"] = asyncio.current_task()
        return Booking(reference=order, day=date(2026, 10, 16))

    live = ToolRegistry([local_tool(lookup)]).start_call(RecordingSpeech())
    CALLER.set("the caller's")
    result = await live.run("lookup", '{"order": "B-7"}', live.generation())
    assert result.succeeded, result.model_text
    assert seen["caller_value"] == "the caller's"
    assert CALLER.get() == "the caller's"
    assert seen["before"] is seen["after"]
    assert isinstance(seen["before"], asyncio.Task) and seen["before"] is not caller


async def test_a_tool_that_times_out_in_its_first_step_fails_as_a_timeout():
    async def slow(order: str) -> Booking:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(5)
        return Booking(reference=order, day=date(2026, 10, 16))

    live = ToolRegistry([local_tool(slow)]).start_call(RecordingSpeech())
    result = await live.run("slow", '{"order": "B-7"}', live.generation())
    assert result.status == "failed"
    assert "slow failed before completing" in result.model_text
    # The caller's task was not cancelled by the tool's timeout.
    assert asyncio.current_task().cancelling() == 0


async def test_a_waiting_tool_is_cancelled_with_the_call():
    started = asyncio.Event()
    cancelled: list[str] = []

    async def hold(order: str) -> Booking:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(order)
            raise
        return Booking(reference=order, day=date(2026, 10, 16))

    live = ToolRegistry([local_tool(hold)]).start_call(RecordingSpeech())
    call = asyncio.ensure_future(live.run("hold", '{"order": "B-7"}', live.generation()))
    await started.wait()
    call.cancel()
    await asyncio.gather(call, return_exceptions=True)
    for _ in range(5):
        await asyncio.sleep(0)
    assert cancelled == ["B-7"]


async def test_an_error_raised_before_the_tool_waits_is_the_models_text():
    async def broken(order: str) -> Booking:
        raise KeyError(order)

    live = ToolRegistry([local_tool(broken)]).start_call(RecordingSpeech())
    result = await live.run("broken", '{"order": "B-7"}', live.generation())
    assert result.status == "failed"
    assert "broken failed before completing" in result.model_text
