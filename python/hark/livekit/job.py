"""What a LiveKit job carries, as the values ``{{call.*}}`` templates read.

``session_id`` is the room's name and ``participant`` the identity of the participant the session
talks with (the one ``RoomIO`` links, else the room's only remote participant); for a participant
who dialled in or was dialled over SIP, ``remote_number`` is their phone number
(``sip.phoneNumber``, the attribute LiveKit's SIP service sets) and ``carrier_call_id`` the SIP
call id (``sip.callID``). Outside a job (a test, a console session without a room) there is
nothing to read.
"""

from __future__ import annotations

from typing import Any

from livekit.agents import AgentSession, get_job_context

__all__ = ["call_values", "current_job"]

def _participant(session: AgentSession[Any], room: Any) -> Any | None:
    """The participant the session talks with: the one RoomIO links, else the only remote one."""
    try:
        room_io = session.room_io
    except (RuntimeError, AttributeError):
        room_io = None  # a session started without a room
    linked = getattr(room_io, "linked_participant", None) if room_io is not None else None
    if linked is not None:
        return linked
    remotes = list(getattr(room, "remote_participants", {}).values())
    return remotes[0] if len(remotes) == 1 else None


def current_job(job: Any | None = None) -> Any | None:
    """``job`` when given, else the ``JobContext`` of the LiveKit job this code runs in (``None``
    outside a job)."""
    return job if job is not None else get_job_context(required=False)


def call_values(session: AgentSession[Any], job: Any | None = None) -> dict[str, Any] | None:
    """The call values of ``job`` (by default the job ``session`` runs in), or ``None`` outside
    a job."""
    job = current_job(job)
    if job is None:
        return None
    room = job.room
    values: dict[str, Any] = {}
    name = getattr(room, "name", "") or getattr(getattr(job, "job", None), "room", None)
    if isinstance(name, str) and name:
        values["session_id"] = name
    participant = _participant(session, room)
    identity = getattr(participant, "identity", None) if participant else None
    if isinstance(identity, str) and identity:
        values["participant"] = identity
    attributes = dict(getattr(participant, "attributes", None) or {}) if participant else {}
    if phone := attributes.get("sip.phoneNumber"):
        values["remote_number"] = phone
    if call_id := attributes.get("sip.callID"):
        values["carrier_call_id"] = call_id
    return values
