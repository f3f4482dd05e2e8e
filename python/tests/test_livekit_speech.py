"""Lines a Hark tool speaks in a plain LiveKit agent: announce lines (``announce_wait`` waiting
for playout, the caller unable to cut the line off), reply rows said with no model reply, and a
tool that ends the conversation closing the session after its goodbye."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from livekit.agents import AgentSession
from livekit.agents.llm import ChatMessage
from livekit.agents.voice import SpeechHandle
from livekit.agents.voice.speech_handle import InputDetails
from pydantic import BaseModel

from hark import Done, ToolRegistry, ToolReply, local_tool
from hark.livekit import LiveKitSpeech, function_tools
from livekit_session import agent_session, outputs, spoken, tool_messages
from scripted_openai import calls, openai_server, text  # noqa: F401  (the fixture)


def said_so_far(session: AgentSession) -> list[str]:
    """The assistant lines in the session's history (a line gets there once it has played)."""
    return [
        item.text_content
        for item in session.history.items
        if isinstance(item, ChatMessage) and item.role == "assistant"
    ]


async def test_an_announce_line_is_said_before_the_tool_runs(openai_server):
    seen: list[list[str]] = []
    holder: dict[str, AgentSession] = {}

    def check_day(day: date) -> Done:
        """Check a day."""
        seen.append(said_so_far(holder["session"]))

    hark = ToolRegistry(
        [local_tool(check_day, announce="Let me check {{day}}.", announce_wait=True)]
    )
    openai_server.add(calls(("check_day", '{"day": "2026-10-16"}')), text("Friday is open."))
    async with agent_session(openai_server, function_tools(hark, language="en-US")) as session:
        holder["session"] = session
        result = await session.run(user_input="Is Friday open?")
    # announce_wait: the line had played out when the tool ran.
    assert seen == [["Let me check Friday, October 16, 2026."]]
    assert spoken(result.events) == ["Let me check Friday, October 16, 2026.", "Friday is open."]
    assert tool_messages(openai_server.requests[1]) == ['{"ok":true}']


def _model_reads(request: dict) -> list[tuple]:
    """The assistant and tool messages of one request: (role, content, tool calls)."""
    return [
        (m["role"], m.get("content"), [c["function"]["name"] for c in m.get("tool_calls", [])])
        for m in request["messages"]
        if m["role"] in ("assistant", "tool")
    ]


@pytest.mark.parametrize("announce_wait", [False, True], ids=["no_wait", "wait"])
@pytest.mark.parametrize("reply_said", [None, "Sure."], ids=["reply_silent", "reply_spoke"])
async def test_the_announce_line_precedes_the_tool_s_result_in_what_the_model_reads(
    openai_server, announce_wait, reply_said
):
    def check_day(day: date) -> Done:
        """Check a day."""

    hark = ToolRegistry(
        [local_tool(check_day, announce="Let me check {{day}}.", announce_wait=announce_wait)]
    )
    openai_server.add(
        calls(("check_day", '{"day": "2026-10-16"}'), text=reply_said or ""),
        text("Friday is open."),
        text("Goodbye."),
    )
    async with agent_session(openai_server, function_tools(hark, language="en-US")) as session:
        await session.run(user_input="Is Friday open?")
        await session.run(user_input="Thanks")
    line = "Let me check Friday, October 16, 2026."
    # The caller heard the reply, then the line, then the tool ran: the line is in the message
    # of the reply that made the call, which comes before the call's result.
    heard = line if reply_said is None else f"{reply_said}\n{line}"
    assert _model_reads(openai_server.requests[2]) == [
        ("assistant", heard, ["check_day"]),
        ("tool", '{"ok":true}', []),
        ("assistant", "Friday is open.", []),
    ]
    said = [
        (item.type, item.text_content if item.type == "message" else None)
        for item in session.history.items
        if item.type in ("function_call_output", "message") and getattr(item, "role", "") != "user"
    ]
    assert said[:2] == [("message", heard), ("function_call_output", None)]


async def test_a_reply_row_stays_after_the_result_the_announce_line_before_it(openai_server):
    class Table(BaseModel):
        day: date

    def book(day: date) -> Table:
        """Book a table."""
        return Table(day=day)

    hark = ToolRegistry(
        [local_tool(book, announce="Let me book that.")],
        replies=[ToolReply(tool="book", say=["Booked for {{result.day}}."])],
    )
    openai_server.add(calls(("book", '{"day": "2026-10-16"}')), text("You're welcome."))
    async with agent_session(openai_server, function_tools(hark, language="en-US")) as session:
        await session.run(user_input="Friday")
        await session.run(user_input="Thanks")
    assert len(openai_server.requests) == 2
    assert _model_reads(openai_server.requests[1]) == [
        ("assistant", "Let me book that.", ["book"]),
        ("tool", '{"day":"2026-10-16"}', []),
        ("assistant", "Booked for Friday, October 16, 2026.", []),
    ]


async def test_a_line_being_waited_for_cannot_be_cut_off():
    handle = SpeechHandle.create(allow_interruptions=True, input_details=InputDetails(modality="text"))

    class Session:
        def say(self, line: str) -> SpeechHandle:
            self.line = line
            return handle

    speech = LiveKitSpeech()
    speech.session = Session()  # type: ignore[assignment]
    await speech.say("Putting you through now.")
    waiting = asyncio.ensure_future(speech.wait_playout())
    await asyncio.sleep(0)
    assert handle.allow_interruptions is False
    assert not waiting.done()
    handle._mark_done()
    await asyncio.wait_for(waiting, 5)


async def test_a_reply_row_is_said_and_no_model_reply_follows(openai_server):
    class Order(BaseModel):
        order_id: str
        arrives: date

    def find_order(order_id: str) -> Order:
        """Find an order."""
        return Order(order_id=order_id, arrives=date(2026, 10, 16))

    hark = ToolRegistry(
        [local_tool(find_order)],
        replies=[ToolReply(tool="find_order", say=["Your order arrives {{result.arrives}}."])],
    )
    openai_server.add(calls(("find_order", '{"order_id": "A-2"}')))
    async with agent_session(openai_server, function_tools(hark, language="en-US")) as session:
        result = await session.run(user_input="Where is my order?")
    assert len(openai_server.requests) == 1 and openai_server.exhausted == 0
    assert spoken(result.events) == ["Your order arrives Friday, October 16, 2026."]
    (output,) = outputs(result.events)
    assert output.reply_required is False
    assert output.output == '{"order_id":"A-2","arrives":"2026-10-16"}'


async def test_ending_the_conversation_says_goodbye_then_closes_the_session(openai_server):
    ended: list[str] = []

    def hang_up(reason: str) -> Done:
        """End the call."""
        ended.append(reason)

    hark = ToolRegistry([local_tool(hang_up, effect="ends_conversation", announce="Goodbye!")])
    openai_server.add(calls(("hang_up", '{"reason": "done"}'), text="Thanks for calling."))
    async with agent_session(openai_server, function_tools(hark)) as session:
        closed = asyncio.Event()
        session.on("close", lambda _event: closed.set())
        result = await session.run(user_input="That's all, bye")
        await asyncio.wait_for(closed.wait(), 5)
    assert ended == ["done"]
    assert spoken(result.events) == ["Thanks for calling.", "Goodbye!"]
    assert len(openai_server.requests) == 1 and openai_server.exhausted == 0
