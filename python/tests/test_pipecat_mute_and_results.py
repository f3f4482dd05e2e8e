"""The parts of ``hark.pipecat`` that stand on Pipecat alone: the user mute strategies by name,
and results handed to Pipecat's aggregator as the JSON they are, empty ones too (a real
Pipecat 1.14 pipeline on the scripted server, as in ``test_pipecat_harness.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.services.llm_service import FunctionCallParams
from pipecat.turns.user_mute import (
    FirstSpeechUserMuteStrategy,
    MuteUntilFirstBotCompleteUserMuteStrategy,
)
from scripted_openai import ScriptedOpenAI, calls, openai_server, text  # noqa: F401 (fixture)
from test_pipecat_harness import Bot, tool_messages

from hark.pipecat import AnnounceLineUserMuteStrategy, user_mute_strategies
from hark.pipecat.results import for_aggregator


def test_user_mute_strategies_are_harks_announce_line_and_pipecats_own() -> None:
    strategies = user_mute_strategies(protect=["tool_calls", "first_speech", "first_reply"])
    assert [type(s) for s in strategies] == [
        AnnounceLineUserMuteStrategy,
        FirstSpeechUserMuteStrategy,
        MuteUntilFirstBotCompleteUserMuteStrategy,
    ]
    assert [type(s) for s in user_mute_strategies()] == [AnnounceLineUserMuteStrategy]


def test_user_mute_strategies_name_what_they_protect() -> None:
    with pytest.raises(ValueError) as unknown:
        user_mute_strategies(protect=["tools"])
    assert str(unknown.value) == (
        "user_mute_strategies: 'tools' is not something to protect. "
        'Use one of "tool_calls", "first_speech", "first_reply".'
    )
    with pytest.raises(TypeError) as text_not_list:
        user_mute_strategies(protect="tool_calls")
    assert str(text_not_list.value) == (
        "user_mute_strategies: protect must be a list of names, not 'tool_calls' (a str). "
        'Pass it like user_mute_strategies(protect=["tool_calls"]).'
    )


@pytest.mark.parametrize(
    ("result", "content"),
    [({}, "{}"), ([], "[]"), ("", '""'), (0, "0"), (0.0, "0.0"), ({"ok": True}, '{"ok": true}')],
)
async def test_an_empty_result_reaches_the_model_as_it_is_and_the_model_replies(
    openai_server: ScriptedOpenAI, result: Any, content: str
) -> None:
    async def note(params: FunctionCallParams) -> None:
        await params.result_callback(for_aggregator(result))

    schema = FunctionSchema("note", "Note it.", {}, [], handler=note)
    openai_server.add(calls(("note", "{}")), text("Noted."))
    async with Bot(openai_server, tools=ToolsSchema(standard_tools=[schema])) as bot:
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
    assert [m["content"] for m in tool_messages(requests[1])] == [content]


async def test_without_the_wrapper_pipecat_reads_an_empty_result_as_completed(
    openai_server: ScriptedOpenAI,
) -> None:
    """Why the wrapper exists: Pipecat 1.14 writes COMPLETED for a falsy result and runs no
    model reply after it."""

    async def note(params: FunctionCallParams) -> None:
        await params.result_callback({})

    schema = FunctionSchema("note", "Note it.", {}, [], handler=note)
    openai_server.add(calls(("note", "{}")), text("Noted."))
    async with Bot(openai_server, tools=ToolsSchema(standard_tools=[schema])) as bot:
        await bot.start_conversation()
        await openai_server.wait_for_requests(1)
        await bot.until(lambda: any(m.get("role") == "tool" for m in bot.context.get_messages()))
        await asyncio.sleep(0.3)
        messages = bot.context.get_messages()
    assert len(openai_server.requests) == 1
    assert [m["content"] for m in messages if m.get("role") == "tool"] == ["COMPLETED"]
