"""What a Hark call takes from a LiveKit agent: the call values a LiveKit job carries (room,
SIP caller), the state of ``call=`` when no ``state=`` is given, Hark's built-in and webhook tools
unchanged, and background webhooks finishing when the session closes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from livekit import rtc
from livekit.agents import AgentSession
from livekit.agents.job import JobAcceptArguments, JobContext, JobExecutorType, JobProcess, RunningJobInfo
from livekit.protocol import agent, models
from livekit.rtc._proto import participant_pb2
from pydantic import BaseModel

from hark import (
    Accepted,
    CallHooks,
    CallState,
    Done,
    ToolRegistry,
    current_datetime_tool,
    local_tool,
    user_phone_number_tool,
    webhook_tool,
)
from hark.livekit import function_tools
from hark.livekit.job import call_values
from livekit_session import agent_session, spoken, tool_messages
from scripted_openai import calls, openai_server, text  # noqa: F401  (the fixture)
from test_tools_webhooks import Hooks


def livekit_job(participant: rtc.RemoteParticipant | None) -> tuple[JobContext, list[str]]:
    """A real LiveKit ``JobContext`` of the room ``casa-pepe-room-7`` (not connected: the room's
    info and its remote participant are what the server would have sent), and the reasons
    ``shutdown`` was called with."""
    room = rtc.Room()
    room._info.name = "casa-pepe-room-7"
    if participant is not None:
        room._remote_participants[participant.identity] = participant
    reasons: list[str] = []
    job = JobContext(
        proc=JobProcess(executor_type=JobExecutorType.PROCESS, user_arguments=None, http_proxy=None),
        info=RunningJobInfo(
            accept_arguments=JobAcceptArguments(name="", identity="agent", metadata=""),
            job=agent.Job(id="AJ_1", room=models.Room(name="casa-pepe-room-7")),
            url="ws://localhost:7880",
            token="token",
            worker_id="W_1",
            fake_job=True,
        ),
        room=room,
        on_connect=lambda: None,
        on_shutdown=reasons.append,
        inference_executor=None,  # type: ignore[arg-type]
    )
    return job, reasons


def remote_participant(identity: str, kind: int, **attributes: str) -> rtc.RemoteParticipant:
    """A real ``rtc.RemoteParticipant`` as LiveKit builds it from the server's participant info
    (a SIP caller carries the attributes LiveKit's SIP service sets)."""
    owned = participant_pb2.OwnedParticipant()
    owned.info.identity = identity
    owned.info.kind = kind
    for name, value in attributes.items():
        owned.info.attributes[name] = value
    return rtc.RemoteParticipant(owned)


def sip_caller() -> rtc.RemoteParticipant:
    return remote_participant(
        "sip_+14155550123",
        rtc.ParticipantKind.PARTICIPANT_KIND_SIP,
        **{"sip.phoneNumber": "+14155550123", "sip.callID": "SCL_abc123"},
    )


async def test_call_values_of_a_livekit_job():
    session = AgentSession()
    assert call_values(session) is None  # outside a job
    job, _ = livekit_job(sip_caller())
    assert call_values(session, job) == {
        "session_id": "casa-pepe-room-7",
        "participant": "sip_+14155550123",
        "remote_number": "+14155550123",
        "carrier_call_id": "SCL_abc123",
    }
    browser = remote_participant("web-user-42", rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD)
    job, _ = livekit_job(browser)
    assert call_values(session, job) == {"session_id": "casa-pepe-room-7", "participant": "web-user-42"}
    job, _ = livekit_job(None)
    assert call_values(session, job) == {"session_id": "casa-pepe-room-7"}


async def test_call_values_come_from_the_livekit_job(openai_server):
    def transfer() -> Done:
        """Transfer the call."""

    hark = ToolRegistry(
        [
            local_tool(
                transfer,
                announce="Transferring {{call.participant}} in {{call.session_id}}, call {{call.carrier_call_id}}.",
            ),
            user_phone_number_tool(),
        ]
    )
    openai_server.add(calls(("transfer", "{}"), ("user_phone_number", "{}")), text("Done."))
    job, _ = livekit_job(sip_caller())
    tools = function_tools(hark, job=job)
    async with agent_session(openai_server, tools) as session:
        result = await session.run(user_input="Transfer me")
    assert spoken(result.events)[0] == "Transferring sip_+14155550123 in casa-pepe-room-7, call SCL_abc123."
    read = [json.loads(m) for m in tool_messages(openai_server.requests[1])]
    assert {"available": True, "phone_number": "+14155550123", "call_type": None} in read
    # The job's process awaits its shutdown callbacks: closing the call is one of them.
    (shutdown,) = job._shutdown_callbacks
    assert shutdown.__qualname__ == "LiveKitCall.close"
    await shutdown("job ended")


class State(BaseModel):
    brand: str | None = None


async def test_without_state_the_tools_take_the_state_of_call(openai_server):
    def greet() -> Done:
        """Greet."""

    hark = ToolRegistry([local_tool(greet, announce="Welcome to {{brand}}.")], state=State)
    state = CallState({"brand": "Casa Pepe"}, call={"session_id": "s-9"})
    openai_server.add(calls(("greet", "{}")), text("How can I help?"))
    async with agent_session(openai_server, function_tools(hark, call=state)) as session:
        result = await session.run(user_input="Hello")
    assert spoken(result.events) == ["Welcome to Casa Pepe.", "How can I help?"]


def test_call_takes_hooks_a_call_state_or_call_values():
    hark = ToolRegistry([current_datetime_tool("Europe/Madrid")])
    function_tools(hark, call=CallHooks())
    function_tools(hark, call={"session_id": "s-1"})
    with pytest.raises(TypeError, match=r"takes the call's CallHooks, a CallState or a dict"):
        function_tools(hark, call="s-1")
    with pytest.raises(ValueError):
        function_tools(hark, timezone="Mars/Olympus")


async def test_built_in_tools_work_unchanged(openai_server):
    hark = ToolRegistry([current_datetime_tool("Europe/Madrid")])
    openai_server.add(calls(("current_datetime", "{}")), text("It is noon."))
    async with agent_session(openai_server, function_tools(hark)) as session:
        await session.run(user_input="What time is it?")
    (now,) = [json.loads(m) for m in tool_messages(openai_server.requests[1])]
    assert set(now) == {"datetime", "date", "time", "weekday", "timezone"}
    assert now["timezone"] == "Europe/Madrid"


class BookingNote(BaseModel):
    note: str


async def test_background_webhooks_finish_when_the_session_closes(openai_server):
    crm = Hooks()
    try:
        crm.routes["/crm"] = (200, "{}", 1.0)
        tool = webhook_tool(
            "notify_crm", "Tell the CRM.", crm.url("/crm"), input=BookingNote, output=Accepted,
            allow_private_network=True, wait_for_response=False,
        )
        call_hooks = CallHooks()
        tools = function_tools(ToolRegistry([tool]), call=call_hooks)
        openai_server.add(calls(("notify_crm", '{"note": "booked"}')), text("Noted."))
        async with agent_session(openai_server, tools) as session:
            await session.run(user_input="Note it")
            assert call_hooks.background == 1
            assert tools.call.closing is None
        assert tool_messages(openai_server.requests[1]) == ['{"ok":true,"accepted":true}']
        # Closing the session started the end of the call, which waits for the webhook.
        closing = tools.call.closing
        assert closing is not None and not closing.done() and call_hooks.background == 1
        assert await asyncio.wait_for(closing, 12) == 0
        assert call_hooks.background == 0 and len(crm.requests) == 1
        assert json.loads(crm.requests[0]["body"]) == {"note": "booked"}
    finally:
        crm.close()
