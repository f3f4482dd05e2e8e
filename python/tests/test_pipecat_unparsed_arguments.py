"""A tool call whose arguments are not JSON, in a real Pipecat 1.14 pipeline (the harness of
``test_pipecat_harness.py``): Pipecat's OpenAI service would drop it before any handler runs and
the turn would go silent. With ``attach_call(tools, llm=llm)`` it reaches Hark: the core repairs
what a small model commonly breaks, as Hark's own agent does, and refuses the rest in its own
words; the next request to the model holds the result and the model speaks."""

from __future__ import annotations

import json
from typing import Any

from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.services.llm_service import FunctionCallParams
from scripted_openai import ScriptedOpenAI, calls, openai_server, text  # noqa: F401 (fixture)
from test_pipecat_harness import Bot, tool_call_ids, tool_messages
from test_pipecat_tools import booking_tool, contents, settle

from hark import ToolRegistry
from hark.pipecat import attach_call, tools_schema

UNREADABLE = {
    "refused": "The arguments of book_table must be a JSON object of named arguments. "
    "Call book_table again with one."
}


async def second_request(
    server: ScriptedOpenAI, ran: list[str], *replies: Any, spoken: bool = False
) -> dict[str, Any]:
    """Runs the booking tool with Hark attached in a Pipecat pipeline over the scripted
    ``replies``; the second request to the model (the one that holds the tool results). With
    ``spoken``, waits until the model's answer was spoken too."""
    tools = tools_schema(ToolRegistry([booking_tool(ran)]))
    server.add(*replies)
    async with Bot(server, tools=tools) as bot:
        attach_call(tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        _, second = await server.wait_for_requests(2)
        if spoken:
            await bot.until(lambda: "bot:started" in bot.log, what="the model's answer spoken")
    return second


async def test_truncated_arguments_get_harks_refusal_and_the_model_runs_again(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    second = await second_request(
        openai_server,
        ran,
        calls(("book_table", '{"day": "2026-10-16", "party": ')),
        text("Sorry, which day was that?"),
        spoken=True,
    )
    assert ran == []
    assert contents(second) == [json.dumps(UNREADABLE, ensure_ascii=False)]
    assert tool_call_ids(second) == ["call_1_0"]


async def test_a_small_models_trailing_comma_is_repaired_and_the_tool_runs(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    second = await second_request(
        openai_server,
        ran,
        calls(("book_table", '<|tool_call|>{"day": "2026-10-16", "party": 3,}')),
        text("Booked."),
    )
    assert ran == ["ran:2026-10-16"]
    assert json.loads(contents(second)[0]) == {"reference": "B-12", "day": "2026-10-16"}


async def test_an_unparsed_call_beside_a_good_one_each_get_their_result(
    openai_server: ScriptedOpenAI,
) -> None:
    ran: list[str] = []
    second = await second_request(
        openai_server,
        ran,
        calls(
            ("book_table", '{"day": "2026-10-17"}'),
            ("book_table", '{"day": 2026-10-16}'),
        ),
        text("One is booked."),
    )
    assert ran == ["ran:2026-10-17"]
    assert tool_call_ids(second) == ["call_1_0", "call_1_1"]
    by_id = {m["tool_call_id"]: m["content"] for m in tool_messages(second)}
    assert by_id["call_1_1"] == json.dumps(UNREADABLE, ensure_ascii=False)
    assert json.loads(by_id["call_1_0"])["reference"] == "B-12"


async def test_a_plain_pipecat_function_with_unparsed_arguments_is_left_to_pipecat(
    openai_server: ScriptedOpenAI,
) -> None:
    # Hark rewrites only calls its own handlers run: Pipecat's rule for its own functions
    # stays as it is (the call is dropped and nothing is asked of the model again).
    seen: list[Any] = []

    async def lookup(params: FunctionCallParams) -> None:
        seen.append(params.arguments)
        await params.result_callback({"free": True})

    hark_tools = tools_schema(ToolRegistry([booking_tool([])]))
    schema = FunctionSchema("lookup", "Look a day up.", {"day": {"type": "string"}}, ["day"], handler=lookup)
    both = ToolsSchema(standard_tools=[*hark_tools.standard_tools, schema])
    openai_server.add(calls(("lookup", '{"day": ')), text("unused"))
    async with Bot(openai_server, tools=both) as bot:
        attach_call(hark_tools, llm=bot.llm, worker=bot.worker)
        await bot.start_conversation()
        await openai_server.wait_for_requests(1)
        await settle()
    assert seen == []
    assert len(openai_server.requests) == 1
