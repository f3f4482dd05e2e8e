"""The registry beyond one call: "Watch tool calls" (listen), only, with_tools, "Your own kind of
tool" (ToolSpec with a custom executor), "Built-in tools" and "Arguments the schema does not
name" (checks_extra_arguments)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from hark import (
    CallState,
    Done,
    ToolError,
    ToolRegistry,
    ToolSpec,
    current_datetime_tool,
    local_tool,
    user_phone_number_tool,
)
from recording_speech import run_once


def lookup(order_id: str) -> Done:
    return None


def pay(amount: int) -> Done:
    return None


async def test_a_sink_gets_names_and_timing_never_values():
    events: list[tuple[str, dict]] = []

    def show(stage: str, data: dict) -> None:
        events.append((stage, data))

    registry = ToolRegistry([local_tool(lookup)])
    assert registry.listen(show) is True
    assert registry.listen(show) is False
    await run_once(registry, "lookup", {"order_id": "SECRET-1"})
    await run_once(registry, "lookup", {"bogus": 1})
    stages = [stage for stage, _ in events]
    assert stages == ["tool.started", "tool.succeeded", "tool.refused"]
    assert events[1][1]["tool"] == "lookup" and events[1][1]["source"] == "model"
    assert isinstance(events[1][1]["ms"], int)
    assert "SECRET" not in repr(events)


async def test_a_sink_that_raises_never_breaks_the_call():
    def broken(stage: str, data: dict) -> None:
        raise RuntimeError("sink down")

    registry = ToolRegistry([local_tool(lookup)])
    registry.listen(broken)
    result, _ = await run_once(registry, "lookup", {"order_id": "A"})
    assert result.succeeded


async def test_only_and_with_tools_keep_the_sinks():
    events: list[str] = []
    registry = ToolRegistry([local_tool(lookup), local_tool(pay)])
    registry.listen(lambda stage, data: events.append(f"{data['tool']}:{stage}"))
    small = registry.only("pay")
    assert small.names == ["pay"] and "lookup" not in small
    await run_once(small, "pay", {"amount": 3})
    assert events == ["pay:tool.started", "pay:tool.succeeded"]

    def refund(amount: int) -> Done:
        return None

    bigger = small.with_tools(local_tool(refund))
    assert bigger.names == ["pay", "refund"]
    await run_once(bigger, "refund", {"amount": 1})
    assert events[-1] == "refund:tool.succeeded"
    with pytest.raises(ValueError, match="Two tools are named pay"):
        small.with_tools(local_tool(pay))


class Booking(BaseModel):
    reference: str


PARAMETERS = {
    "type": "object",
    "properties": {"day": {"type": "string", "description": "The day."}},
    "required": ["day"],
}


class ServiceTool:
    """Runs a tool through a (fake) tool service."""

    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id
        self.calls: list[tuple[dict, Any, Any]] = []

    async def run(self, arguments: dict[str, Any], state: CallState | None, *, context: dict | None = None) -> object:
        self.calls.append((arguments, state, context))
        if arguments["day"] == "closed":
            raise ToolError("The restaurant is closed that day. Offer another day.")
        if arguments["day"] == "boom":
            raise RuntimeError("details only the log reads")
        return {"reference": f"{self.tool_id}-1"}


async def test_your_own_kind_of_tool():
    executor = ServiceTool("book")
    spec = ToolSpec("book", "Book a table.", PARAMETERS, Booking, executor)
    registry = ToolRegistry([spec])
    ok, _ = await run_once(registry, "book", {"day": "friday"}, state={"brand": "Casa"})
    assert ok.model_result == {"reference": "book-1"}
    arguments, state, context = executor.calls[0]
    assert arguments == {"day": "friday"}
    assert state.get("brand") == "Casa"
    assert context is None
    closed, _ = await run_once(registry, "book", {"day": "closed"})
    assert closed.model_result == {"error": "The restaurant is closed that day. Offer another day."}
    boom, _ = await run_once(registry, "book", {"day": "boom"})
    assert boom.model_result == {"error": "book failed before completing. Do not claim success."}
    extra, _ = await run_once(registry, "book", {"day": "friday", "bogus": 1})
    assert extra.model_result == {"refused": "bogus is not an argument of book. Call book again without it."}


def test_a_tool_spec_refuses_an_executor_without_async_run():
    class Sync:
        def run(self, arguments, state):  # noqa: ANN001, ANN201
            return {}

    with pytest.raises(TypeError, match="has no async run method"):
        ToolSpec("book", "Book.", PARAMETERS, Booking, Sync())


async def test_validate_and_checks_extra_arguments():
    class Strict:
        checks_extra_arguments = True

        def __init__(self) -> None:
            self.seen: list[dict] = []

        def validate(self, arguments: dict) -> dict:
            extra = sorted(set(arguments) - {"day"})
            if extra:
                from hark import ToolRefused

                raise ToolRefused(f"book takes only a day, not {', '.join(extra)}.")
            return arguments

        async def run(self, arguments: dict, state: Any) -> object:
            self.seen.append(arguments)
            return {"reference": "B"}

    executor = Strict()
    registry = ToolRegistry([ToolSpec("book", "Book.", PARAMETERS, Booking, executor)])
    refused, _ = await run_once(registry, "book", {"day": "x", "colour": "red"})
    assert refused.model_result == {"refused": "book takes only a day, not colour."}
    assert executor.seen == []
    ok, _ = await run_once(registry, "book", {"day": "x"})
    assert ok.succeeded and executor.seen == [{"day": "x"}]


async def test_built_in_tools():
    with pytest.raises(ValueError):
        current_datetime_tool("Madrid")
    clock = current_datetime_tool("Europe/Madrid", name="now", description="The time now.")
    assert (clock.name, clock.description) == ("now", "The time now.")
    phone = user_phone_number_tool()
    assert phone.name == "user_phone_number"
    registry = ToolRegistry([current_datetime_tool("Europe/Madrid"), phone])
    now, _ = await run_once(registry, "current_datetime", None)
    assert set(now.model_result) == {"datetime", "date", "time", "weekday", "timezone"}
    assert now.model_result["timezone"] == "Europe/Madrid"
    none, _ = await run_once(registry, "user_phone_number", None)
    assert none.model_result["available"] is False
    assert none.model_result["phone_number"] is None and none.model_result["call_type"] is None
    assert isinstance(none.model_result["reason"], str)
    has, _ = await run_once(
        registry, "user_phone_number", None, call={"remote_number": "+14155550123", "call_type": "inbound"}
    )
    assert has.model_result == {"available": True, "phone_number": "+14155550123", "call_type": "inbound"}


async def test_a_cancelled_call_ends_with_tool_failed_and_the_error_cancelled():
    import asyncio

    started = asyncio.Event()

    async def slow() -> Done:
        started.set()
        await asyncio.sleep(30)

    events: list[tuple[str, dict]] = []
    registry = ToolRegistry([local_tool(slow)])
    registry.listen(lambda stage, data: events.append((stage, data)))
    from recording_speech import RecordingSpeech

    live = registry.start_call(RecordingSpeech())
    generation = live.generation()
    generation.mark_spoken()
    running = asyncio.ensure_future(live.run("slow", None, generation))
    await asyncio.wait_for(started.wait(), 5)
    generation.interrupt()
    await asyncio.wait_for(running, 5)
    assert events[-1][0] == "tool.failed" and events[-1][1]["error"] == "cancelled"


async def test_the_end_call_tool_of_the_core_says_its_goodbye_and_ends_the_call():
    from hark import _core

    tool = _core.end_call_tool("Call it when the caller is done.", "Goodbye!")
    result, speech = await run_once(ToolRegistry([tool]), "end_call", None)
    assert result.ends_conversation is True
    assert speech.events == [("say", "Goodbye!"), ("played_out", "")]
    with pytest.raises(ValueError):
        _core.end_call_tool("Call it when the caller is done.", "  ")


async def test_tool_error_event_text_is_what_the_sinks_get():
    def charge(amount: int) -> Done:
        raise ToolError("The card was declined: insufficient funds for 40 EUR.", event_text="card declined")

    events: list[tuple[str, dict]] = []
    registry = ToolRegistry([local_tool(charge)])
    registry.listen(lambda stage, data: events.append((stage, data)))
    result, _ = await run_once(registry, "charge", {"amount": 40})
    assert result.model_result == {"error": "The card was declined: insufficient funds for 40 EUR."}
    assert events[-1] == ("tool.failed", {"tool": "charge", "source": "model", "ms": events[-1][1]["ms"], "error": "card declined"})


def test_rules_for_a_hand_written_schema():
    executor = ServiceTool("x")
    for schema, words in [
        ({"type": "object", "definitions": {}, "properties": {}}, "definitions"),
        ({"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}, "nullable"),
        ({"type": "object", "oneOf": [{"properties": {"a": {"type": "string"}}}]}, "oneOf"),
    ]:
        with pytest.raises(ValueError, match=words):
            ToolSpec("book", "Book.", schema, Booking, executor)


class Address(BaseModel):
    street: str
    city: str


class Delivery(BaseModel):
    address: Address
    note: str | None = None


def test_the_schema_the_model_reads_inlines_refs_and_drops_null_defaults():
    def deliver(delivery: Delivery) -> Done:
        return None

    parameters = local_tool(deliver).parameters
    assert "$defs" not in parameters
    assert parameters["properties"]["address"]["properties"] == {
        "street": {"type": "string"},
        "city": {"type": "string"},
    }
    assert parameters["properties"]["note"] == {"type": "string"}


async def test_a_realtime_model_that_speaks_itself_skips_announce_lines():
    from recording_speech import RecordingSpeech

    class Realtime(RecordingSpeech):
        speaks_itself = True

    def lookup_order(order_id: str) -> Done:
        return None

    registry = ToolRegistry([local_tool(lookup_order, announce="One moment.")])
    result, speech = await run_once(registry, "lookup_order", {"order_id": "A"}, speech=Realtime())
    assert result.succeeded and result.announced == [] and speech.lines == []


async def test_a_call_on_an_event_gives_the_executor_its_context_and_the_sinks_the_source():
    executor = ServiceTool("book")
    registry = ToolRegistry([ToolSpec("book", "Book a table.", PARAMETERS, Booking, executor)])
    events: list[tuple[str, dict]] = []
    registry.listen(lambda stage, data: events.append((stage, data)))
    outcome = await registry.call("book", {"day": "friday"}, event={"kind": "reminder"}, state={"brand": "Casa"})
    assert outcome.succeeded and outcome.model_text == '{"reference":"book-1"}'
    arguments, state, context = executor.calls[0]
    assert context == {"kind": "reminder"} and state.get("brand") == "Casa"
    assert {data["source"] for _, data in events} == {"event"}
    from_text = await registry.call("book", '{"day": "closed"}')
    assert from_text.status == "failed"
    assert events[-1][1]["source"] == "model"
