"""A tool in a call in progress: announce lines with values ("Announce lines with values"),
interruption ("A tool the caller talks over"), cancelling, "End the call", and what an adapter
asks of the registry ("Ask the registry", definitions)."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from pydantic import BaseModel

from hark import CallState, Done, ToolRegistry, local_tool
from recording_speech import RecordingSpeech, run_once


class State(BaseModel):
    brand: str | None = None


async def test_announce_reads_arguments_state_and_call_and_waits_before_the_tool():
    speech = RecordingSpeech()

    def check_day(day: date) -> Done:
        speech.mark("ran")

    tool = local_tool(
        check_day,
        announce="Let me check {{day}} for {{brand}}. Call {{call.session_id}}.",
        announce_wait=True,
    )
    registry = ToolRegistry([tool], state=State)
    live = registry.start_call(
        speech, state={"brand": "Casa Pepe"}, call={"session_id": "s-42"}, language="en-US"
    )
    result = await live.run("check_day", '{"day": "2026-10-16"}', live.generation())
    assert result.announced == ["Let me check Friday, October 16, 2026 for Casa Pepe. Call s-42."]
    assert speech.events == [
        ("say", "Let me check Friday, October 16, 2026 for Casa Pepe. Call s-42."),
        ("played_out", ""),
        ("mark", "ran"),
    ]
    assert result.ask_model_reply is True


async def test_without_announce_wait_the_tool_does_not_wait_for_playout():
    speech = RecordingSpeech()

    def lookup() -> Done:
        speech.mark("ran")

    registry = ToolRegistry([local_tool(lookup, announce="One moment.")])
    await run_once(registry, "lookup", None, speech=speech)
    assert speech.events == [("say", "One moment."), ("mark", "ran")]


async def test_several_announce_lines_never_repeat_in_a_row():
    def lookup() -> Done:
        return None

    registry = ToolRegistry([local_tool(lookup, announce=["One moment.", "Let me look."])])
    speech = RecordingSpeech()
    live = registry.start_call(speech)
    for _ in range(4):
        await live.run("lookup", None, live.generation())
    assert speech.lines == ["One moment.", "Let me look.", "One moment.", "Let me look."]


async def test_a_call_value_the_call_does_not_carry_refuses():
    def transfer() -> Done:
        return None

    registry = ToolRegistry([local_tool(transfer, announce="Transferring call {{call.carrier_call_id}}.")])
    result, speech = await run_once(registry, "transfer", None)
    assert result.model_result == {
        "refused": "This tool reads call.carrier_call_id, which this call does not carry."
    }
    assert speech.lines == []


async def test_interrupting_the_generation_cancels_a_running_tool():
    started = asyncio.Event()
    saw: list[str] = []

    async def slow_lookup() -> Done:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            saw.append("cancelled")
            raise

    registry = ToolRegistry([local_tool(slow_lookup)])
    live = registry.start_call(RecordingSpeech())
    generation = live.generation()
    generation.mark_spoken()
    running = asyncio.ensure_future(live.run("slow_lookup", None, generation))
    await asyncio.wait_for(started.wait(), 5)
    generation.interrupt()
    result = await asyncio.wait_for(running, 5)
    assert result.model_result == {"error": "cancelled"}
    for _ in range(50):
        if saw:
            break
        await asyncio.sleep(0.01)
    assert saw == ["cancelled"]


async def test_cancelling_the_asyncio_task_cancels_the_python_tool_and_the_call_goes_on():
    started = asyncio.Event()
    saw: list[str] = []

    async def slow_lookup() -> Done:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            saw.append("cancelled")
            raise

    def quick(item: str) -> Done:
        return None

    registry = ToolRegistry([local_tool(slow_lookup), local_tool(quick)])
    live = registry.start_call(RecordingSpeech())
    task = asyncio.create_task(live.run("slow_lookup", None, live.generation()))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if saw:
            break
        await asyncio.sleep(0.01)
    assert saw == ["cancelled"]
    after = await live.run("quick", {"item": "tea"}, live.generation())
    assert after.succeeded and after.model_result == {"ok": True}


async def test_a_continue_tool_keeps_running_when_the_caller_talks_over_it():
    release = asyncio.Event()
    started = asyncio.Event()
    finished: list[str] = []

    async def book(day: str) -> Done:
        started.set()
        await release.wait()
        finished.append(day)

    registry = ToolRegistry([local_tool(book, interruption="continue")])
    assert registry.keeps_running("book") is True
    live = registry.start_call(RecordingSpeech())
    generation = live.generation()
    generation.mark_spoken()
    running = asyncio.ensure_future(live.run("book", {"day": "friday"}, generation))
    await asyncio.wait_for(started.wait(), 5)
    generation.interrupt()
    result = await asyncio.wait_for(running, 5)
    assert result.status == "still_running"
    assert result.model_result == {
        "status": "running",
        "note": "book is still running. Its result comes in a later reply; do not say it is done yet.",
    }
    release.set()
    for _ in range(100):
        if finished:
            break
        await asyncio.sleep(0.01)
    assert finished == ["friday"]


async def test_a_generation_interrupted_before_it_spoke_is_discarded():
    ran: list[str] = []

    def lookup() -> Done:
        ran.append("x")

    registry = ToolRegistry([local_tool(lookup)])
    live = registry.start_call(RecordingSpeech())
    generation = live.generation()
    generation.interrupt()
    assert await live.run("lookup", None, generation) is None
    assert ran == [] and generation.discarded


def test_keeps_running_and_in():
    def lookup() -> Done:
        return None

    def pay(amount: int) -> Done:
        return None

    registry = ToolRegistry([local_tool(lookup), local_tool(pay, interruption="continue")])
    assert "lookup" in registry
    assert registry.keeps_running("pay") is True
    assert registry.keeps_running("lookup") is False
    assert registry.keeps_running("unknown") is False
    # The tool, the option, what was given and the words it takes (not pydantic's report).
    with pytest.raises(
        ValueError,
        match=r"""^lookup: interruption takes "provider_default", "continue" or "cancel", not 'sometimes'\.$""",
    ):
        local_tool(lookup, interruption="sometimes")
    with pytest.raises(ValueError, match=r"""^lookup: effect takes "ends_conversation" \(or None\), not 'hang_up'\.$"""):
        local_tool(lookup, effect="hang_up")


async def test_ends_conversation_fires_only_on_success():
    def hang_up_handler(reason: str) -> Done:
        if reason == "bad":
            from hark import ToolError

            raise ToolError("Could not hang up.")

    hang_up = local_tool(hang_up_handler, effect="ends_conversation", announce="Goodbye!")
    registry = ToolRegistry([hang_up])
    done, speech = await run_once(registry, "hang_up_handler", {"reason": "done"})
    assert done.ends_conversation is True
    # A tool that ends the call lets its goodbye play out before it runs.
    assert speech.events[:2] == [("say", "Goodbye!"), ("played_out", "")]
    failed, _ = await run_once(registry, "hang_up_handler", {"reason": "bad"})
    assert failed.ends_conversation is False
    refused, _ = await run_once(registry, "hang_up_handler", "{}")
    assert refused.ends_conversation is False


def test_definitions_in_each_dialect():
    def book(day: date, party: int = 2) -> Done:
        """Book a table."""

    registry = ToolRegistry([local_tool(book)])
    (openai,) = registry.definitions()
    assert openai == {
        "type": "function",
        "function": {
            "name": "book",
            "description": "Book a table.",
            "parameters": {
                "type": "object",
                "properties": {
                    "day": {"description": "A date written YYYY-MM-DD.", "type": "string"},
                    "party": {"default": 2, "type": "integer"},
                },
                "required": ["day"],
                "additionalProperties": False,
            },
        },
    }
    (anthropic,) = registry.definitions(dialect="anthropic")
    assert anthropic["input_schema"] == openai["function"]["parameters"]
    (strict,) = registry.definitions(dialect="openai_strict")
    assert strict["function"]["strict"] is True
    assert set(strict["function"]["parameters"]["required"]) == {"day", "party"}
    (gemini,) = registry.definitions(dialect="gemini")
    assert gemini["name"] == "book" and "parameters" in gemini
    with pytest.raises(ValueError, match="dialect is one of openai"):
        registry.definitions(dialect="cohere")


async def test_a_shared_call_state_and_bad_call_options():
    def lookup() -> Done:
        return None

    registry = ToolRegistry([local_tool(lookup)])
    state = CallState({"brand": "Casa"}, call={"session_id": "s-1"}, language="es-ES", timezone="Europe/Madrid")
    live = registry.start_call(RecordingSpeech(), state=state)
    result = await live.run("lookup", None, live.generation())
    assert result.state == {"brand": "Casa"}
    assert live.state.language == "es-ES" and live.state.call["session_id"] == "s-1"
    with pytest.raises(ValueError, match="call has no value caller_id"):
        registry.start_call(RecordingSpeech(), call={"caller_id": "x"})
    with pytest.raises(ValueError):
        registry.start_call(RecordingSpeech(), timezone="Mars/Olympus")
    with pytest.raises(TypeError, match="has no say"):
        registry.start_call(object())
    with pytest.raises(TypeError, match="is not an option of a tool"):
        local_tool(lookup, anounce="typo")


def test_live_run_is_a_coroutine_made_before_the_loop_runs():
    def lookup() -> Done:
        return None

    live = ToolRegistry([local_tool(lookup)]).start_call(RecordingSpeech())
    result = asyncio.run(live.run("lookup", None, live.generation()))
    assert result.model_result == {"ok": True}
    assert asyncio.run(live.close()) == 0


async def test_the_late_result_of_a_continue_tool_comes_once():
    release = asyncio.Event()
    started = asyncio.Event()

    async def book(day: str) -> Done:
        started.set()
        await release.wait()

    live = ToolRegistry([local_tool(book, interruption="continue")]).start_call(RecordingSpeech())
    generation = live.generation()
    generation.mark_spoken()
    running = asyncio.ensure_future(live.run("book", {"day": "friday"}, generation))
    await asyncio.wait_for(started.wait(), 5)
    generation.interrupt()
    assert (await running).status == "still_running"
    release.set()
    (late,) = await asyncio.wait_for(live.late_results(), 5)
    assert late.tool == "book" and late.succeeded and late.model_result == {"ok": True}
    assert await live.late_results() == []
