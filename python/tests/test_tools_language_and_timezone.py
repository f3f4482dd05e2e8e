"""A call's language and timezone, checked where they are given by the core's one check
(``hark_speak::locale``), so every kind of agent agrees: ``en_US`` is read as BCP 47 ``en-US``;
a tag of a language Hark cannot say values in, or a name not in the tz database, is refused
naming the value, what is accepted and the nearest one; never silently spoken in English."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from hark import CallState, ToolRegistry, local_tool
from recording_speech import RecordingSpeech

ACCEPTED_LANGUAGE = 'Write a BCP 47 tag like "en-US", "es", "fr" or "de" (en_US is read as en-US).'
ACCEPTED_ZONE = 'Write an IANA name like "Europe/Madrid" or "America/New_York".'

LANGUAGES = [
    ("xx", f'language "xx" is not a language Hark can speak values in. {ACCEPTED_LANGUAGE}'),
    ("english", f'language "english" is not a language Hark can speak values in; did you mean "en"? {ACCEPTED_LANGUAGE}'),
    ("Spanish", f'language "Spanish" is not a language Hark can speak values in; did you mean "es"? {ACCEPTED_LANGUAGE}'),
    ("klingon", f'language "klingon" is not a language Hark can speak values in. {ACCEPTED_LANGUAGE}'),
]
ZONES = [
    ("Europe/Pariss", f'timezone "Europe/Pariss" is not a timezone of the tz database; did you mean "Europe/Paris"? {ACCEPTED_ZONE}'),
    ("Madrid", f'timezone "Madrid" is not a timezone of the tz database; did you mean "Europe/Madrid"? {ACCEPTED_ZONE}'),
    ("Mars/Olympus_Mons", f'timezone "Mars/Olympus_Mons" is not a timezone of the tz database. {ACCEPTED_ZONE}'),
]


class Out(BaseModel):
    ok: bool = True


def registry() -> ToolRegistry:
    def note(text: str) -> Out:
        """Take a note."""
        return Out()

    return ToolRegistry([local_tool(note)])


def pipecat(language: str = "en", timezone: str | None = None) -> Any:
    from hark.pipecat import tools_schema

    return tools_schema(registry(), language=language, timezone=timezone)


def livekit(language: str = "en", timezone: str | None = None) -> Any:
    from hark.livekit import function_tools

    return function_tools(registry(), language=language, timezone=timezone)


def live_call(language: str = "en", timezone: str | None = None) -> Any:
    return registry().start_call(RecordingSpeech(), language=language, timezone=timezone)


def call_state(language: str = "en", timezone: str | None = None) -> Any:
    return CallState(language=language, timezone=timezone)


PLACES: list[tuple[str, Callable[..., Any]]] = [
    ("tools_schema", pipecat),
    ("function_tools", livekit),
    ("start_call", live_call),
    ("CallState", call_state),
]


@pytest.mark.parametrize(("where", "make"), PLACES, ids=[p[0] for p in PLACES])
@pytest.mark.parametrize(("tag", "text"), LANGUAGES, ids=[t for t, _ in LANGUAGES])
def test_a_language_hark_cannot_speak_is_refused_where_it_is_given(where, make, tag, text) -> None:
    with pytest.raises(ValueError) as refused:
        make(language=tag)
    assert str(refused.value) == text


@pytest.mark.parametrize(("where", "make"), PLACES, ids=[p[0] for p in PLACES])
@pytest.mark.parametrize(("zone", "text"), ZONES, ids=[z for z, _ in ZONES])
def test_a_timezone_not_in_the_tz_database_is_refused_where_it_is_given(where, make, zone, text) -> None:
    with pytest.raises(ValueError) as refused:
        make(timezone=zone)
    assert str(refused.value) == text


@pytest.mark.parametrize(("where", "make"), PLACES, ids=[p[0] for p in PLACES])
def test_a_posix_tag_is_read_as_bcp_47(where, make) -> None:
    make(language="en_US", timezone="Europe/Paris")
    make(language="fr_CA")


async def test_a_posix_tag_says_values_in_its_language_and_region() -> None:
    from datetime import date

    class Booking(BaseModel):
        day: date
        phone: str

    def book(day: date) -> Booking:
        """Book a day."""
        return Booking(day=day, phone="+14155550123")

    from hark import ToolReply

    registry = ToolRegistry(
        [local_tool(book)], replies=[ToolReply(tool="book", say=["Booked for {{result.day}}."])]
    )
    speech = RecordingSpeech()
    live = registry.start_call(speech, language="es_ES", now="2026-10-15T12:00:00Z")
    result = await live.run("book", {"day": "2026-10-16"}, live.generation())
    assert result.succeeded
    assert speech.lines == ["Booked for viernes, 16 de octubre de 2026."]


def test_current_datetime_tool_gives_the_same_refusal() -> None:
    from hark import current_datetime_tool

    with pytest.raises(ValueError) as refused:
        current_datetime_tool("Europe/Pariss")
    assert str(refused.value) == f"current_datetime_tool: {ZONES[0][1]}"
