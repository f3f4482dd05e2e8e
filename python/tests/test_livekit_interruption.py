"""A reply cut off while a Hark tool runs, in a plain LiveKit agent: LiveKit never cancels a
running tool; for a ``continue`` tool the model reads at once that it is still running, and its
result comes in a later reply, exactly once."""

from __future__ import annotations

import asyncio
import json

import pytest

from hark import Done, ToolRegistry, local_tool
from hark.livekit import function_tools
from hark.livekit.late import still_running
from recording_speech import RecordingSpeech
from livekit_session import agent_session, outputs, tool_messages
from scripted_openai import calls, openai_server, text  # noqa: F401  (the fixture)

STILL_RUNNING = {
    "status": "running",
    "note": "book is still running. Its result comes in a later reply; do not say it is done yet.",
}


@pytest.mark.parametrize("interruption", ["continue", "provider_default"])
async def test_a_tool_keeps_running_and_its_result_comes_in_a_later_reply_exactly_once(
    openai_server, interruption
):
    started, release = asyncio.Event(), asyncio.Event()
    booked: list[str] = []

    async def book(day: str) -> Done:
        """Book a table."""
        started.set()
        await release.wait()
        booked.append(day)

    hark = ToolRegistry([local_tool(book, interruption=interruption)])
    openai_server.add(calls(("book", '{"day": "friday"}'), text="Booking it now."), text("It is booked."))
    async with agent_session(openai_server, function_tools(hark)) as session:
        try:
            run = session.run(user_input="Book Friday")
            await asyncio.wait_for(started.wait(), 5)
            await asyncio.wait_for(session.interrupt(), 2)
            result = await asyncio.wait_for(run, 5)
            # The cut-off reply's output: the model reads that the tool is still running.
            (output,) = outputs(result.events)
            assert json.loads(output.output) == STILL_RUNNING
            await asyncio.sleep(0.2)
            # No model reply to the cut-off turn.
            assert booked == [] and len(openai_server.requests) == 1
        finally:
            release.set()
        requests = await openai_server.wait_for_requests(2)
        await asyncio.sleep(0.2)
    assert booked == ["friday"]
    assert len(openai_server.requests) == 2 and openai_server.exhausted == 0
    later = tool_messages(requests[1])
    assert [json.loads(m) for m in later] == [STILL_RUNNING, {"ok": True}]
    final = [m for m in session.history.items if m.type == "function_call_output"]
    assert [m.output for m in final].count('{"ok":true}') == 1


def test_the_still_running_text_is_the_core_s():
    async def book(day: str) -> Done:
        await asyncio.sleep(5)

    async def cut_off() -> str:
        live = ToolRegistry([local_tool(book, interruption="continue")]).start_call(RecordingSpeech())
        generation = live.generation()
        generation.mark_spoken()
        running = asyncio.ensure_future(live.run("book", {"day": "friday"}, generation))
        await asyncio.sleep(0.05)
        generation.interrupt()
        return (await running).model_text

    assert still_running("book") == asyncio.run(cut_off())


async def test_a_cancel_tool_is_cancelled_and_the_model_reads_so(openai_server):
    started = asyncio.Event()
    saw: list[str] = []

    async def lookup(day: str) -> Done:
        """Look up a day."""
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            saw.append("cancelled")
            raise

    hark = ToolRegistry([local_tool(lookup, interruption="cancel")])
    openai_server.add(calls(("lookup", '{"day": "friday"}'), text="Looking."))
    async with agent_session(openai_server, function_tools(hark)) as session:
        run = session.run(user_input="Is Friday free?")
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.wait_for(session.interrupt(), 2)
        result = await asyncio.wait_for(run, 5)
        await asyncio.sleep(0.2)
    assert saw == ["cancelled"]
    (output,) = outputs(result.events)
    assert json.loads(output.output) == {"error": "cancelled"}
    # No model reply to the cut-off turn.
    assert len(openai_server.requests) == 1 and openai_server.exhausted == 0
