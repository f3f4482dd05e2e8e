"""Hark's tools in a plain LiveKit agent: the schema each provider is sent, and what the model
reads for a result, a refusal and a failure (LiveKit's text-only harness, scripted OpenAI)."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated, Literal

import pytest
from livekit.agents.llm import RawFunctionTool, ToolContext
from pydantic import BaseModel, Field

from hark import Done, Phone, ToolError, ToolRegistry, local_tool
from hark.livekit import function_tools
from livekit_session import agent_session, outputs, spoken, tool_messages
from scripted_openai import calls, openai_server, text  # noqa: F401  (the fixture)


class Booking(BaseModel):
    reference: str
    day: date


ran: list[tuple] = []


def book_table(
    day: Annotated[date, Field(description="The day the caller wants.")],
    party: Annotated[int, Field(ge=1, le=12)],
    seating: Literal["inside", "terrace"] = "inside",
    phone: Phone | None = None,
) -> Booking:
    """Book a table."""
    ran.append((day, party, seating, phone))
    return Booking(reference="B-12", day=day)


def registry() -> ToolRegistry:
    return ToolRegistry([local_tool(book_table)])


def test_the_tools_are_raw_schema_tools_with_hark_s_schema():
    tools = function_tools(registry())
    assert [type(t) for t in tools] == [RawFunctionTool]
    (openai,) = registry().definitions()
    assert tools[0].info.raw_schema == openai["function"]


def test_livekit_s_provider_formats_send_the_schema_hark_normalised():
    hark = registry()
    context = ToolContext(function_tools(hark))
    assert context.parse_function_tools("openai") == hark.definitions(dialect="openai")
    assert context.parse_function_tools("anthropic") == hark.definitions(dialect="anthropic")
    (google,) = context.parse_function_tools("google")
    (gemini,) = hark.definitions(dialect="gemini_json_schema")
    assert google == {
        "name": gemini["name"],
        "description": gemini["description"],
        "parameters_json_schema": gemini["parametersJsonSchema"],
    }


async def test_the_scripted_server_gets_hark_s_schema(openai_server):
    openai_server.add(text("Hello."))
    hark = registry()
    async with agent_session(openai_server, function_tools(hark)) as session:
        await session.run(user_input="Hi")
    (request,) = openai_server.requests
    assert request["tools"] == hark.definitions(dialect="openai")
    assert request["tools"][0]["function"]["parameters"]["additionalProperties"] is False


async def test_a_result_reaches_the_model_as_json_text(openai_server):
    ran.clear()
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": 4, "phone": "+1 415-555-0123"}')),
        text("Booked: B-12."),
    )
    async with agent_session(openai_server, function_tools(registry())) as session:
        result = await session.run(user_input="Friday for four")
    assert ran == [(date(2026, 10, 16), 4, "inside", "+14155550123")]
    assert tool_messages(openai_server.requests[1]) == ['{"reference":"B-12","day":"2026-10-16"}']
    (output,) = outputs(result.events)
    assert output.is_error is False
    assert spoken(result.events) == ["Booked: B-12."]


@pytest.mark.parametrize(
    ("arguments", "model_reads"),
    [
        (
            '{"day": "2026-10-16", "party": 40}',
            {
                "refused": "party: 40 is greater than the maximum of 12\n"
                "Fix these arguments, asking the caller if needed, then call book_table again."
            },
        ),
        (
            '{"day": "2026-10-16"}',
            {
                "refused": "party is missing. Ask the caller for it, then call book_table again.",
                "missing": ["party"],
            },
        ),
        (
            '{"day": "2026-10-16", "party": 2, "bogus": 1}',
            {"refused": "bogus is not an argument of book_table. Call book_table again without it."},
        ),
    ],
    ids=["bad", "missing", "unknown"],
)
async def test_an_argument_refusal_is_read_by_the_model_and_the_tool_does_not_run(
    openai_server, arguments, model_reads
):
    ran.clear()
    openai_server.add(calls(("book_table", arguments)), text("How many people?"))
    async with agent_session(openai_server, function_tools(registry())) as session:
        result = await session.run(user_input="Friday")
    assert ran == []
    (read,) = tool_messages(openai_server.requests[1])
    assert json.loads(read) == model_reads
    # LiveKit records an error output (raised as its ToolError), its text Hark's JSON as it is.
    (output,) = outputs(result.events)
    assert output.is_error is True and output.output == read
    assert spoken(result.events) == ["How many people?"]


async def test_a_missing_argument_after_a_reply_that_spoke_gets_no_model_reply(openai_server):
    ran.clear()
    openai_server.add(calls(("book_table", '{"day": "2026-10-16"}'), text="For how many people?"))
    async with agent_session(openai_server, function_tools(registry())) as session:
        result = await session.run(user_input="Friday")
    assert ran == []
    assert len(openai_server.requests) == 1 and openai_server.exhausted == 0
    (output,) = outputs(result.events)
    assert output.is_error is True and output.reply_required is False
    assert json.loads(output.output) == {
        "refused": "party is missing. Ask the caller for it, then call book_table again.",
        "missing": ["party"],
    }
    assert spoken(result.events) == ["For how many people?"]


async def test_a_failure_is_read_by_the_model_never_livekit_s_internal_error(openai_server):
    def book(day: str) -> Done:
        raise ToolError("No table is free that day. Offer another day.")

    def broken(day: str) -> Done:
        raise RuntimeError("secret connection string")

    hark = ToolRegistry([local_tool(book), local_tool(broken)])
    openai_server.add(
        calls(("book", '{"day": "friday"}'), ("broken", '{"day": "friday"}')),
        text("Sorry, nothing is free."),
    )
    async with agent_session(openai_server, function_tools(hark)) as session:
        result = await session.run(user_input="Friday")
    read = tool_messages(openai_server.requests[1])
    assert sorted(o.output for o in outputs(result.events)) == sorted(read)
    assert [o.is_error for o in outputs(result.events)] == [True, True]
    # LiveKit puts the outputs in the order the tools finished.
    assert sorted(read) == [
        '{"error":"No table is free that day. Offer another day."}',
        '{"error":"broken failed before completing. Do not claim success."}',
    ]
    assert not any("An internal error occurred" in r or "secret" in r for r in read)


async def test_tools_reused_by_a_second_session_fail_in_hark_s_words_and_log_the_fix(
    openai_server, caplog
):
    """Tools built once (at module level) and handed to a second session: their call ended
    with the first session. The model reads Hark's failure, never LiveKit's "An internal error
    occurred", and the log says to build the tools per session (found by a new user)."""
    import logging

    tools = function_tools(registry())
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-15", "party": 2}')),
        text("Booked."),
    )
    async with agent_session(openai_server, tools) as session:
        await session.run(user_input="Thursday for two")
    # Closing the session closed the call (its first tool call bound them).
    assert tools.call.closing is not None
    await tools.call.closing
    ran.clear()
    openai_server.add(
        calls(("book_table", '{"day": "2026-10-16", "party": 4}')),
        text("Sorry."),
    )
    with caplog.at_level(logging.ERROR, logger="hark.livekit"):
        async with agent_session(openai_server, tools) as session:
            await session.run(user_input="Friday for four")
    assert ran == []
    assert tool_messages(openai_server.requests[-1]) == [
        '{"error":"book_table failed before completing. Do not claim success."}'
    ]
    assert "Build the tools for each session" in caplog.text
