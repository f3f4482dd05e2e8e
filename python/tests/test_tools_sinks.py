"""Sinks ("Watch tool calls", point 3): a sink that raises is logged and never breaks the call; an
async def sink is refused when it is added (a sink is called as the call goes, never awaited);
and the registry's own log (logger "hark") shows the failures Hark judged from a result, naming
the tool and the field, never a value."""

from __future__ import annotations

import logging
from typing import Literal

import pytest
from pydantic import BaseModel

from hark import Done, ToolRegistry, local_tool
from recording_speech import run_once


def lookup(order_id: str) -> Done:
    return None


class Order(BaseModel):
    order_id: str
    status: Literal["held", "shipped"]


async def test_a_sink_that_raises_is_logged_with_its_traceback_and_the_call_goes_on(caplog):
    def broken(stage: str, data: dict) -> None:
        raise RuntimeError("sink down")

    seen: list[str] = []
    registry = ToolRegistry([local_tool(lookup)])
    registry.listen(broken)
    registry.listen(lambda stage, data: seen.append(stage))
    with caplog.at_level(logging.WARNING, logger="hark"):
        result, _ = await run_once(registry, "lookup", {"order_id": "SECRET-7"})
    assert result.succeeded
    # The sink after the broken one still hears every stage.
    assert seen == ["tool.started", "tool.succeeded"]
    lines = [r for r in caplog.records if r.name == "hark" and "sink" in r.getMessage()]
    assert [r.getMessage() for r in lines] == [
        "the sink test_a_sink_that_raises_is_logged_with_its_traceback_and_the_call_goes_on.<locals>.broken "
        "raised RuntimeError on tool.started; the call goes on",
        "the sink test_a_sink_that_raises_is_logged_with_its_traceback_and_the_call_goes_on.<locals>.broken "
        "raised RuntimeError on tool.succeeded; the call goes on",
    ]
    assert all(r.levelno == logging.WARNING and r.exc_info for r in lines)
    assert "SECRET" not in caplog.text


def test_an_async_sink_is_refused_when_it_is_added():
    async def show(stage: str, data: dict) -> None:
        raise AssertionError("never awaited")

    registry = ToolRegistry([local_tool(lookup)])
    with pytest.raises(TypeError) as refused:
        registry.listen(show)
    assert str(refused.value) == (
        "listen(sink): test_an_async_sink_is_refused_when_it_is_added.<locals>.show is an async def, "
        "but a sink is called as the call goes and never awaited. Give a plain def sink(stage, data); "
        "for async work, start a task from it with asyncio.get_running_loop().create_task(...)."
    )

    class Callable:
        async def __call__(self, stage: str, data: dict) -> None:
            raise AssertionError

    with pytest.raises(TypeError, match="is an async def"):
        registry.listen(Callable())
    with pytest.raises(TypeError, match=r"^listen\(sink\): sink is a function sink\(stage: str, data: dict\); got str"):
        registry.listen("print")  # type: ignore[arg-type]


async def test_a_sink_that_returns_an_awaitable_anyway_is_logged_and_never_left_unawaited(caplog):
    async def later(stage: str) -> None:
        raise AssertionError("never run")

    registry = ToolRegistry([local_tool(lookup)])
    registry.listen(lambda stage, data: later(stage))
    with caplog.at_level(logging.WARNING, logger="hark"):
        result, _ = await run_once(registry, "lookup", {"order_id": "A"})
    assert result.succeeded
    assert "returned an awaitable on tool.started, which is never awaited: a sink is a plain def." in caplog.text
    assert "was never awaited" not in caplog.text  # closed, so Python warns of nothing


async def test_a_result_that_does_not_fit_is_logged_naming_the_tool_and_field_never_the_value(caplog):
    def find_order(order_id: str) -> Order:
        return {"order_id": order_id, "status": "LOST-SECRET"}  # type: ignore[return-value]

    registry = ToolRegistry([local_tool(find_order)])
    with caplog.at_level(logging.WARNING, logger="hark"):
        result, _ = await run_once(registry, "find_order", {"order_id": "A"})
    assert result.status == "failed"
    logged = [r.getMessage() for r in caplog.records if r.name == "hark"]
    assert len(logged) == 1, logged
    assert logged[0].startswith("find_order tool.failed: result does not fit Order: status")
    assert "LOST-SECRET" not in caplog.text
    # The same log holds across only() and with_tools().
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hark"):
        await run_once(registry.only("find_order"), "find_order", {"order_id": "A"})
    assert "find_order tool.failed: result does not fit Order" in caplog.text
