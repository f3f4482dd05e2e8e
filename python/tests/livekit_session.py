"""A LiveKit ``AgentSession`` in LiveKit's text-only test mode (no room, no audio), its OpenAI
plugin pointed at the scripted OpenAI-compatible server, for the ``hark.livekit`` tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from livekit.agents import Agent, AgentSession
from livekit.agents.llm import ChatMessage, FunctionCallOutput
from livekit.plugins import openai

from scripted_openai import ScriptedOpenAI

INSTRUCTIONS = "You take bookings for Casa Pepe."


@asynccontextmanager
async def agent_session(server: ScriptedOpenAI, tools: list[Any]) -> AsyncIterator[AgentSession]:
    """A started session whose agent has ``tools``; closed on exit."""
    async with (
        openai.LLM(model="gpt-4.1-mini", base_url=server.base_url, api_key="scripted") as llm,
        AgentSession(llm=llm) as session,
    ):
        await session.start(Agent(instructions=INSTRUCTIONS, tools=tools))
        yield session


def tool_messages(request: dict[str, Any]) -> list[str]:
    """The contents of the ``tool`` messages of one request body, in order."""
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def spoken(events: list[Any]) -> list[str]:
    """The assistant's chat messages among a run's events, as text."""
    return [
        e.item.text_content
        for e in events
        if isinstance(getattr(e, "item", None), ChatMessage) and e.item.role == "assistant"
    ]


def outputs(events: list[Any]) -> list[FunctionCallOutput]:
    """The function call outputs among a run's events."""
    return [e.item for e in events if isinstance(getattr(e, "item", None), FunctionCallOutput)]
