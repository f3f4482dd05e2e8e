"""A tool call whose arguments are not JSON, in a plain LiveKit agent (LiveKit's text-only
harness, scripted OpenAI): unlike Pipecat, livekit-agents 1.x does not go silent. It parses the
arguments before any tool runs (``prepare_function_arguments``: strict JSON, then
``json_repair``) and, for text it cannot read, gives the model its own "Error parsing arguments"
text; the model runs again. Hark's tool never runs on it. Pinned here, so a LiveKit release that
drops such a call shows up."""

from __future__ import annotations

from pydantic import BaseModel

from hark import ToolRegistry, local_tool
from hark.livekit import function_tools
from livekit_session import agent_session, outputs, tool_messages
from scripted_openai import calls, openai_server, text  # noqa: F401  (the fixture)


class Booking(BaseModel):
    reference: str


async def test_arguments_livekit_cannot_read_get_its_error_text_and_the_model_runs_again(openai_server):
    ran: list[str] = []

    def book_table(day: str) -> Booking:
        """Book a table."""
        ran.append(day)
        return Booking(reference="B-12")

    openai_server.add(
        calls(("book_table", "<|eot_id|>")),
        text("Sorry, which day?"),
    )
    async with agent_session(openai_server, function_tools(ToolRegistry([local_tool(book_table)]))) as session:
        result = await session.run(user_input="Friday")
    assert ran == []
    assert len(openai_server.requests) == 2
    (read,) = tool_messages(openai_server.requests[1])
    assert read.startswith("Error parsing arguments for `book_table`: could not parse function arguments as JSON")
    assert [o.is_error for o in outputs(result.events)] == [True]
