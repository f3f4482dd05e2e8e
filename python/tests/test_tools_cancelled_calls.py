"""A tool call cancelled mid-run ends at the sinks with tool.failed and the error cancelled
(the reference's "Watch tool calls", point 2): by an interruption, and by cancelling the asyncio
task that awaits it, as Pipecat does when the caller talks over a tool."""

from __future__ import annotations

import asyncio

from hark import ToolRegistry, local_tool
from pydantic import BaseModel
from recording_speech import RecordingSpeech


class Found(BaseModel):
    name: str


started: list[asyncio.Event] = []


async def lookup(order_id: str) -> Found:
    """Look up an order."""
    started[-1].set()
    await asyncio.sleep(30)
    return Found(name="never")


def registry_and_events() -> tuple[ToolRegistry, list[tuple[str, dict]]]:
    events: list[tuple[str, dict]] = []
    registry = ToolRegistry([local_tool(lookup)])
    registry.listen(lambda stage, data: events.append((stage, data)))
    return registry, events


async def test_cancelling_the_task_that_awaits_a_call_ends_it_as_cancelled():
    registry, events = registry_and_events()
    live = registry.start_call(RecordingSpeech())
    started.append(asyncio.Event())
    task = asyncio.create_task(live.run("lookup", {"order_id": "A"}, live.generation()))
    await asyncio.wait_for(started[-1].wait(), 5)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    for _ in range(50):
        if len(events) >= 2:
            break
        await asyncio.sleep(0.01)
    assert [stage for stage, _ in events] == ["tool.started", "tool.failed"]
    assert events[1][1]["tool"] == "lookup"
    assert events[1][1]["error"] == "cancelled"
    assert isinstance(events[1][1]["ms"], int)


async def test_an_interruption_ends_the_call_as_cancelled_once():
    registry, events = registry_and_events()
    live = registry.start_call(RecordingSpeech())
    generation = live.generation()
    generation.mark_spoken()
    started.append(asyncio.Event())
    task = asyncio.create_task(live.run("lookup", {"order_id": "A"}, generation))
    await asyncio.wait_for(started[-1].wait(), 5)
    generation.interrupt()
    result = await asyncio.wait_for(task, 5)
    assert result.model_result == {"error": "cancelled"}
    await asyncio.sleep(0.05)
    assert [(stage, data.get("error")) for stage, data in events] == [
        ("tool.started", None),
        ("tool.failed", "cancelled"),
    ]
