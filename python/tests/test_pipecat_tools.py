"""Hark's tools in a real Pipecat 1.14 pipeline: ``hark.pipecat`` on the harness of
``test_pipecat_harness.py`` (a ``PipelineWorker`` run by a ``WorkerRunner``, ``OpenAILLMService`` on
the scripted server, the universal aggregators, a speaking recorder).

The tool is the reference's ``book_table``; each test checks what the caller hears (the
recorder's log) and what the model reads (the requests the scripted server recorded).
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.frames.frames import InterruptionFrame, TTSSpeakFrame
from pipecat.services.llm_service import FunctionCallParams
from pydantic import BaseModel, Field
from scripted_openai import ScriptedOpenAI, calls, openai_server, text  # noqa: F401 (fixture)
from test_pipecat_harness import SYSTEM, Bot, tool_call_ids, tool_messages

from hark import Done, Phone, ToolRegistry, ToolReply, local_tool
from hark.pipecat import (
    attach_call,
    end_call_tool,
    reply_text,
    tools_schema,
    user_mute_strategies,
)

ASYNC_GUIDANCE = "ASYNC TOOLS:"


class Booking(BaseModel):
    reference: str
    day: date


class Free(BaseModel):
    free: bool


class Nothing(BaseModel):
    pass


def booking_tool(ran: list[str], **options: Any) -> Any:
    """The reference's ``book_table``; each run appends ``ran:<day>`` to ``ran``."""

    def book_table(
        day: Annotated[date, Field(description="The day the caller wants.")],
        party: Annotated[int, Field(ge=1, le=12)] = 2,
        seating: Literal["inside", "terrace"] = "inside",
        phone: Phone | None = None,
    ) -> Booking:
        """Book a table."""
        ran.append(f"ran:{day.isoformat()}")
        return Booking(reference="B-12", day=day)

    return local_tool(book_table, **options)


def contents(request: dict[str, Any]) -> list[str]:
    """The texts of a request's tool messages, in order."""
    return [m["content"] for m in tool_messages(request)]


async def settle(seconds: float = 0.3) -> None:
    """Gives the pipeline time to send a request it should not send."""
    await asyncio.sleep(seconds)


async def test_a_refusal_is_the_text_of_the_next_request_and_the_tool_does_not_run(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    tools = tools_schema(ToolRegistry([booking_tool(ran)]))
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": 40}')),
        text("How many of you are coming?"),
    )
    async with Bot(openai_server, tools=tools) as bot:
        await bot.start_conversation()
        first, second = await openai_server.wait_for_requests(2)
    assert ran == []
    assert [t["function"]["name"] for t in first["tools"]] == ["book_table"]
    parameters = first["tools"][0]["function"]["parameters"]
    assert parameters["properties"]["party"]["maximum"] == 12
    assert parameters["required"] == ["day"]
    refusal = {
        "refused": "party: 40 is greater than the maximum of 12\nFix these arguments, asking "
        "the caller if needed, then call book_table again."
    }
    assert contents(second) == [json.dumps(refusal, ensure_ascii=False)]
    assert tool_call_ids(second) == ["call_1_0"]


async def test_nan_arguments_pipecat_parses_get_harks_refusal_not_an_error(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    tools = tools_schema(ToolRegistry([booking_tool(ran)]))
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": NaN}')),
        text("Which day?"),
    )
    async with Bot(openai_server, tools=tools) as bot:
        await bot.start_conversation()
        _, second = await openai_server.wait_for_requests(2)
    assert ran == []
    refusal = {
        "refused": "The arguments of book_table hold NaN or Infinity, which is not a JSON number. "
        "Call book_table again with valid JSON."
    }
    assert contents(second) == [json.dumps(refusal, ensure_ascii=False)]
    assert tool_call_ids(second) == ["call_1_0"]


async def test_a_result_that_succeeded_is_what_the_model_reads(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    tools = tools_schema(ToolRegistry([booking_tool(ran)]))
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": 4}')), text("You are booked.")
    )
    async with Bot(openai_server, tools=tools) as bot:
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
    assert ran == ["ran:2026-10-16"]
    assert json.loads(contents(requests[1])[0]) == {"reference": "B-12", "day": "2026-10-16"}


async def test_the_announce_line_is_a_tts_frame_said_before_the_tool_runs(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    tools = tools_schema(
        ToolRegistry([booking_tool(bot_log, announce="Let me check {{day}} for {{party}}.")])
    )
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": 4}'), text="Sure."), text("Done.")
    )
    async with Bot(openai_server, tools=tools) as bot:
        bot.recorder.log = bot_log
        await bot.start_conversation()
        await openai_server.wait_for_requests(2)
    line = "say:Let me check Friday, October 16, 2026 for 4."
    assert line in bot_log
    assert bot_log.index(line) < bot_log.index("ran:2026-10-16")


async def test_announce_wait_runs_the_tool_once_the_bot_stopped_speaking(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    tools = tools_schema(
        ToolRegistry([booking_tool(bot_log, announce="One moment.", announce_wait=True)])
    )
    openai_server.add(calls(("book_table", '{"day": "2026-10-16"}'), text="Sure."), text("Booked."))
    async with Bot(openai_server, tools=tools, speak_secs=0.2) as bot:
        bot.recorder.log = bot_log
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await openai_server.wait_for_requests(2)
    said = bot_log.index("say:One moment.")
    ran = bot_log.index("ran:2026-10-16")
    assert said < bot_log.index("bot:stopped", said) < ran


async def test_announce_wait_waits_no_longer_than_its_limit(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    tools = tools_schema(
        ToolRegistry([booking_tool(bot_log, announce="One moment.", announce_wait=True)])
    )
    openai_server.add(calls(("book_table", '{"day": "2026-10-16"}')), text("Booked."))
    # The bot speaks for 30 s; the limit (30 s in a call) is cut to 0.3 s here.
    async with Bot(openai_server, tools=tools, speak_secs=30) as bot:
        bot.recorder.log = bot_log
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        reply_text(bot.llm).playout_wait_secs = 0.3
        await bot.start_conversation()
        await bot.until(lambda: "say:One moment." in bot_log, what="the announce line")
        said = time.monotonic()
        await bot.until(lambda: "ran:2026-10-16" in bot_log, what="the tool ran")
        waited = time.monotonic() - said
        await bot.worker.cancel()
    assert 0.25 < waited < 2
    assert "bot:stopped" not in bot_log


async def test_a_tool_that_ends_the_conversation_says_its_line_then_ends_the_pipeline(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []

    def transfer() -> Done:
        """Put the caller through to the front desk."""
        bot_log.append("transferred")
        return Done()

    tool = local_tool(transfer, announce="Putting you through now.", effect="ends_conversation")
    tools = tools_schema(ToolRegistry([tool]))
    openai_server.add(calls(("transfer", "{}")))
    async with Bot(openai_server, tools=tools, speak_secs=0.2) as bot:
        bot.recorder.log = bot_log
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await asyncio.wait_for(bot.finished.wait(), 5)
    assert bot_log == ["say:Putting you through now.", "bot:started", "bot:stopped", "transferred"]
    assert len(openai_server.requests) == 1


async def test_a_reply_row_is_spoken_and_the_model_is_not_asked_again(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    registry = ToolRegistry(
        [booking_tool(bot_log)],
        replies=[
            ToolReply(tool="book_table", say=["Booked, your reference is {{result.reference}}."])
        ],
    )
    tools = tools_schema(registry)
    openai_server.add(calls(("book_table", '{"day": "2026-10-16"}')))
    async with Bot(openai_server, tools=tools) as bot:
        bot.recorder.log = bot_log
        await bot.start_conversation()
        await bot.until(lambda: "bot:stopped" in bot_log, what="the reply row played")
        await settle()
        messages = bot.context.get_messages()
    assert bot_log == [
        "ran:2026-10-16",
        "say:Booked, your reference is B-12.",
        "bot:started",
        "bot:stopped",
    ]
    assert len(openai_server.requests) == 1
    assert openai_server.exhausted == 0
    results = [m for m in messages if m.get("role") == "tool"]
    assert [json.loads(m["content"]) for m in results] == [
        {"reference": "B-12", "day": "2026-10-16"}
    ]


async def test_under_an_interruption_continue_finishes_and_the_rest_is_cancelled(
    openai_server: ScriptedOpenAI,
) -> None:
    events: list[str] = []
    booking_started = asyncio.Event()
    lookup_started = asyncio.Event()

    async def book(day: date) -> Booking:
        """Book a table."""
        booking_started.set()
        await asyncio.sleep(0.4)
        events.append("booked")
        return Booking(reference="B-12", day=day)

    async def lookup(day: date) -> Free:
        """Look a day up."""
        lookup_started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("lookup cancelled")
            raise
        return Free(free=True)

    registry = ToolRegistry([local_tool(book, interruption="continue"), local_tool(lookup)])
    assert registry.keeps_running("book") and not registry.keeps_running("lookup")
    tools = tools_schema(registry)
    openai_server.add(
        calls(("book", '{"day": "2026-10-16"}'), ("lookup", '{"day": "2026-10-17"}')),
        text("Of course."),
        text("Your table is booked."),
    )
    async with Bot(openai_server, tools=tools) as bot:
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await asyncio.wait_for(booking_started.wait(), 5)
        await asyncio.wait_for(lookup_started.wait(), 5)
        await bot.user_says("Actually, wait.")
        await bot.until(lambda: "booked" in events, what="the booking finished")
        requests = await openai_server.wait_for_requests(3)
    assert events == ["lookup cancelled", "booked"]
    after_interruption, after_result = requests[1], requests[2]
    # The cancelled call reads CANCELLED, the booking is still running.
    assert tool_call_ids(after_interruption) == ["call_1_0", "call_1_1"]
    by_id = {m["tool_call_id"]: m["content"] for m in tool_messages(after_interruption)}
    assert by_id["call_1_1"] == "CANCELLED"
    assert json.loads(by_id["call_1_0"])["status"] == "running"
    # The booking's result comes once, after the caller's turn.
    finals = [
        json.loads(m["content"])
        for m in after_result["messages"]
        if m.get("role") == "developer" and "async_tool" in m["content"]
    ]
    assert [(f["tool_call_id"], json.loads(f["result"])) for f in finals] == [
        ("call_1_0", {"reference": "B-12", "day": "2026-10-16"})
    ]
    assert contents(after_result).count("CANCELLED") == 1
    assert ASYNC_GUIDANCE not in after_result["messages"][0]["content"]


async def test_the_end_call_tool_says_goodbye_and_ends_the_pipeline_after_it_played(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    holder: dict[str, Any] = {}

    def setup(bot: Bot) -> None:
        registry = ToolRegistry(
            [end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(bot.llm))]
        )
        holder["tools"] = tools_schema(registry)
        bot.context.set_tools(holder["tools"])

    openai_server.add(calls(("end_call", "{}")))
    async with Bot(openai_server, speak_secs=0.2, setup=setup) as bot:
        bot.recorder.log = bot_log
        attach_call(holder["tools"], llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await asyncio.wait_for(bot.finished.wait(), 5)
    assert bot_log == ["say:Goodbye!", "bot:started", "bot:stopped"]
    assert len(openai_server.requests) == 1
    assert openai_server.exhausted == 0


async def test_the_end_call_tool_says_no_second_goodbye_after_the_model_said_one(
    openai_server: ScriptedOpenAI,
) -> None:
    holder: dict[str, Any] = {}

    def setup(bot: Bot) -> None:
        registry = ToolRegistry(
            [end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(bot.llm))]
        )
        holder["tools"] = tools_schema(registry)
        bot.context.set_tools(holder["tools"])

    openai_server.add(calls(("end_call", "{}"), text="Bye, enjoy your dinner!"))
    async with Bot(openai_server, speak_secs=0.2, setup=setup) as bot:
        await bot.start_conversation()
        await asyncio.wait_for(bot.finished.wait(), 5)
    assert bot.log == ["bot:started", "bot:stopped"]
    assert bot.recorder.of(TTSSpeakFrame) == []


def test_end_call_tool_refuses_an_empty_goodbye() -> None:
    from pipecat.services.openai.llm import OpenAILLMService

    llm = OpenAILLMService(api_key="sk-scripted", settings=OpenAILLMService.Settings(model="m"))
    with pytest.raises(ValueError) as refused:
        end_call_tool("Done.", "  ", reply_text(llm))
    assert str(refused.value) == (
        "end_call: the goodbye is empty. Write what the caller hears before the call ends, "
        'like "Goodbye!".'
    )


async def test_an_unknown_tool_gets_harks_text(openai_server: ScriptedOpenAI) -> None:
    tools = tools_schema(ToolRegistry([booking_tool([])]))
    openai_server.add(calls(("cancel_booking", '{"reference": "B-12"}')), text("I cannot."))
    async with Bot(openai_server, tools=tools) as bot:
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
    refusal = {
        "refused": "There is no tool named cancel_booking. The tools are: book_table. "
        "Call one of them instead."
    }
    assert contents(requests[1]) == [json.dumps(refusal, ensure_ascii=False)]


async def test_invalid_json_arguments_never_reach_the_tool_and_the_model_reads_why(
    openai_server: ScriptedOpenAI,
) -> None:
    # Pipecat 1.14 alone would drop this call before any handler runs (the turn goes silent);
    # attach_call hands it to Hark, which refuses it (test_pipecat_unparsed_arguments.py).
    ran: list[str] = []
    tools = tools_schema(ToolRegistry([booking_tool(ran)]))
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16"'), text="Let me book that."),
        text("Which day was it?"),
    )
    async with Bot(openai_server, tools=tools) as bot:
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
    assert ran == []
    assert contents(requests[1]) == [
        '{"refused": "The arguments of book_table must be a JSON object of named arguments. '
        'Call book_table again with one."}'
    ]
    assert tool_call_ids(requests[1]) == ["call_1_0"]


async def test_attach_call_keeps_pipecats_background_tool_text_out_of_the_prompt(
    openai_server: ScriptedOpenAI,
) -> None:
    def registry() -> ToolRegistry:
        return ToolRegistry([booking_tool([], interruption="continue")])

    openai_server.add(text("Hello."), text("Hello."), text("Hello."))
    plain = tools_schema(registry())
    async with Bot(openai_server, tools=plain) as bot:
        await bot.start_conversation()
        without = (await openai_server.wait_for_requests(1))[0]
    attached = tools_schema(registry())
    async with Bot(openai_server, tools=attached) as bot:
        attach_call(attached, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        with_attach = (await openai_server.wait_for_requests(2))[1]

    async def own_background_tool(params: FunctionCallParams) -> None:
        await params.result_callback({"ok": True})

    mixed = tools_schema(registry())
    async with Bot(openai_server, tools=mixed) as bot:
        attach_call(mixed, llm=bot.llm, worker=bot.worker)
        bot.llm.register_function("poll", own_background_tool, cancel_on_interruption=False)
        await bot.start_conversation()
        with_own = (await openai_server.wait_for_requests(3))[2]
    assert ASYNC_GUIDANCE in without["messages"][0]["content"]
    assert with_attach["messages"][0] == {"role": "system", "content": SYSTEM}
    assert ASYNC_GUIDANCE in with_own["messages"][0]["content"]


async def test_an_empty_result_reaches_the_model_as_it_is(openai_server: ScriptedOpenAI) -> None:
    def note(text: str) -> Nothing:
        """Note something."""
        return Nothing()

    tools = tools_schema(ToolRegistry([local_tool(note)]))
    openai_server.add(calls(("note", '{"text": "window seat"}')), text("Noted."))
    async with Bot(openai_server, tools=tools) as bot:
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
    assert contents(requests[1]) == ["{}"]


async def test_user_mute_strategies_keep_the_caller_from_cutting_the_announce_line(
    openai_server: ScriptedOpenAI,
) -> None:
    bot_log: list[str] = []
    tools = tools_schema(
        ToolRegistry([booking_tool(bot_log, announce="One moment.", announce_wait=True)])
    )
    openai_server.add(calls(("book_table", '{"day": "2026-10-16"}')), text("Booked."))
    async with Bot(
        openai_server,
        tools=tools,
        speak_secs=0.3,
        mute=user_mute_strategies(protect=["tool_calls"]),
    ) as bot:
        bot.recorder.log = bot_log
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await bot.until(lambda: "say:One moment." in bot_log, what="the announce line")
        await bot.user_says("Hello? Are you there?", speaking_secs=0.05)
        requests = await openai_server.wait_for_requests(2)
    assert bot_log[:4] == ["say:One moment.", "bot:started", "bot:stopped", "ran:2026-10-16"]
    assert bot.recorder.of(InterruptionFrame) == []
    assert requests[1]["messages"][-1]["role"] == "tool"


async def test_user_mute_strategies_let_the_caller_interrupt_a_tool_once_its_line_played(
    openai_server: ScriptedOpenAI,
) -> None:
    events: list[str] = []
    started = asyncio.Event()

    async def lookup(day: date) -> Free:
        """Look a day up."""
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("lookup cancelled")
            raise
        return Free(free=True)

    tools = tools_schema(ToolRegistry([local_tool(lookup, announce="One moment.")]))
    openai_server.add(calls(("lookup", '{"day": "2026-10-17"}')), text("Sure, a high chair."))
    async with Bot(
        openai_server,
        tools=tools,
        speak_secs=0.2,
        mute=user_mute_strategies(protect=["tool_calls"]),
    ) as bot:
        bot_log: list[str] = []
        bot.recorder.log = bot_log
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await asyncio.wait_for(started.wait(), 5)
        await bot.until(lambda: "bot:stopped" in bot_log, what="the announce line played")
        await bot.user_says("Wait, also a high chair.")
        requests = await openai_server.wait_for_requests(2)
    assert events == ["lookup cancelled"]
    assert len(bot.recorder.of(InterruptionFrame)) == 1
    users = [m["content"] for m in requests[1]["messages"] if m.get("role") == "user"]
    assert users[-1] == "Wait, also a high chair."
    assert tool_messages(requests[1])[0]["content"] == "CANCELLED"


def test_tools_schema_maps_interruption_to_cancel_on_interruption() -> None:
    registry = ToolRegistry(
        [booking_tool([], interruption="continue", name="book"), booking_tool([], name="hold")]
    )
    schemas: list[FunctionSchema] = tools_schema(registry).standard_tools
    options = {s.name: getattr(s.handler, "_pipecat_cancel_on_interruption", None) for s in schemas}
    assert options == {"book": False, "hold": None}


def test_attach_call_takes_what_tools_schema_returned() -> None:
    from pipecat.services.openai.llm import OpenAILLMService

    llm = OpenAILLMService(api_key="sk-scripted", settings=OpenAILLMService.Settings(model="m"))
    with pytest.raises(TypeError) as wrong:
        attach_call(ToolRegistry([booking_tool([])]), llm=llm)  # type: ignore[arg-type]
    assert str(wrong.value) == (
        "attach_call: tools must be what tools_schema(registry) returned, not "
        'ToolRegistry(["book_table"]) (a ToolRegistry). Pass it like tools = tools_schema(registry); '
        "LLMContext(tools=tools); attach_call(tools, llm=llm)."
    )


async def test_the_readmes_pipecat_block_runs() -> None:
    import re
    import sys
    import types
    from pathlib import Path

    from pipecat.processors.frame_processor import FrameProcessor

    from hark.pipecat import HarkTools, PipecatCall

    class Transport:
        """Stands in for a transport: its input and output pass frames on."""

        def input(self) -> FrameProcessor:
            return FrameProcessor()

        def output(self) -> FrameProcessor:
            return FrameProcessor()

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    pipecat_section = readme.split("### In a Pipecat pipeline", 1)[1]
    block = re.findall(r"```python\n(.*?)```", pipecat_section, flags=re.S)[0]
    module = types.ModuleType("readme_pipecat")
    module.__dict__.update(
        API_KEY="sk-scripted",
        PROMPT=SYSTEM,
        transport=Transport(),
        stt=FrameProcessor(),
        tts=FrameProcessor(),
    )
    sys.modules[module.__name__] = module
    try:
        exec(compile(block, "README.md", "exec"), module.__dict__)  # noqa: S102 - the README's
    finally:
        del sys.modules[module.__name__]
    namespace = module.__dict__
    tools, call = namespace["tools"], namespace["call"]
    assert isinstance(tools, HarkTools) and isinstance(call, PipecatCall)
    assert [s.name for s in tools.standard_tools] == ["book_table", "end_call"]
    assert namespace["registry"].keeps_running("book_table")
    assert call.speech.voice is not None and call.speech.voice.llm is namespace["llm"]


async def test_tools_of_a_closed_call_fail_in_hark_s_words_and_attach_call_says_the_fix(caplog):
    """Tools built once and handed to a second pipeline after their call was closed (found by a
    new user): attach_call refuses them with the fix, and a handler Pipecat still runs gives the
    model Hark's failure text (never Pipecat's "failed and returned no result") and logs the fix."""
    import logging
    from types import SimpleNamespace

    def lookup() -> Done:
        return None

    tools = tools_schema(ToolRegistry([local_tool(lookup)]))
    await tools.call.close()
    with pytest.raises(RuntimeError, match=r"^attach_call: the call of these tools was closed"):
        attach_call(tools, llm=object())
    results: list[Any] = []

    async def result_callback(result: Any, *, properties: Any = None) -> None:
        results.append(result)

    params = SimpleNamespace(function_name="lookup", result_callback=result_callback)
    with caplog.at_level(logging.ERROR, logger="hark.pipecat"):
        await tools.standard_tools[0].handler(params)
    assert results == [{"error": "lookup failed before completing. Do not claim success."}]
    assert "Build them for each call" in caplog.text
