"""Mistakes in a tool that fail when it is built, not on every call: an announce line that reads a
name which is neither an argument, nor a call value, nor (with state=) a State value."""

from __future__ import annotations

import pytest

from hark import Done, ToolRegistry, local_tool


def book(day: str, party: int) -> Done:
    return None


def test_an_announce_typo_without_state_fails_when_the_registry_is_built():
    tool = local_tool(book, announce="Booking {{dya}} for {{party}}.")
    with pytest.raises(ValueError) as refused:
        ToolRegistry([tool])
    assert str(refused.value) == (
        "book: {{dya}} is not an argument of book, and the registry has no State type to read it from. "
        "Use one of: day, party, or call.session_id, call.remote_number, call.carrier_call_id, call.participant, "
        "call.call_type, call.end_reason; for a State value, build the registry with its State type "
        "(state= in Python)."
    )
    # Arguments and call values build.
    ToolRegistry([local_tool(book, announce="Booking {{day}} for {{call.remote_number}}.")])
