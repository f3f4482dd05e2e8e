"""The reference's "A call that is refused" and "A required argument left out or empty":
refusals with their hints, ArgumentsMissing, ToolRefused, and replies_to."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from hark import (
    ArgumentsMissing,
    Done,
    ToolError,
    ToolRefused,
    ToolRegistry,
    local_tool,
    replies_to,
)
from recording_speech import RecordingSpeech, run_once


class Policy(BaseModel):
    number: str


ran: list[str] = []


def lookup_policy(birth_date: date, surname: str) -> Policy:
    """Look up the caller's policy."""
    ran.append("lookup_policy")
    return Policy(number="P-1")


MISSING = {
    "refused": "birth_date is missing. Ask the caller for it, then call lookup_policy again.",
    "missing": ["birth_date"],
}


async def test_a_required_argument_left_out_is_missing_and_the_tool_does_not_run():
    ran.clear()
    registry = ToolRegistry([local_tool(lookup_policy)])
    result, _ = await run_once(registry, "lookup_policy", {"surname": "Ruiz"})
    assert result.model_result == MISSING
    assert result.status == "refused" and ran == []


async def test_blank_text_is_missing_too_and_several_read_together():
    ran.clear()
    registry = ToolRegistry([local_tool(lookup_policy)])
    blank, _ = await run_once(registry, "lookup_policy", {"birth_date": "1980-01-02", "surname": "  "})
    assert blank.model_result == {
        "refused": "surname is missing. Ask the caller for it, then call lookup_policy again.",
        "missing": ["surname"],
    }
    both, _ = await run_once(registry, "lookup_policy", "{}")
    assert both.model_result["refused"] == (
        "birth_date and surname are missing. Ask the caller for them, then call lookup_policy again."
    )
    assert ran == []


async def test_the_missing_refusal_is_read_instead_of_a_format_error():
    registry = ToolRegistry([local_tool(lookup_policy)])
    result, _ = await run_once(registry, "lookup_policy", {"birth_date": "", "surname": "Ruiz"})
    assert result.model_result == MISSING


async def test_no_model_reply_follows_when_the_reply_already_spoke():
    registry = ToolRegistry([local_tool(lookup_policy)])
    spoke, _ = await run_once(registry, "lookup_policy", {"surname": "Ruiz"}, speech=RecordingSpeech(spoke=True))
    assert spoke.ask_model_reply is False
    silent, _ = await run_once(registry, "lookup_policy", {"surname": "Ruiz"}, speech=RecordingSpeech(spoke=False))
    assert silent.ask_model_reply is True
    assert replies_to(MISSING, spoke=True) is False
    assert replies_to(MISSING, spoke=False) is True
    assert replies_to({"refused": "no"}, spoke=True) is True


async def test_a_tool_raises_tool_refused_and_arguments_missing():
    def book(day: str) -> Done:
        raise ToolRefused("The restaurant is closed that day. Offer another day.")

    def confirm(day: str) -> Done:
        raise ArgumentsMissing("party is missing. Ask the caller for it, then call confirm again.", ["party"])

    registry = ToolRegistry([local_tool(book), local_tool(confirm)])
    refused, _ = await run_once(registry, "book", {"day": "x"})
    assert refused.model_result == {"refused": "The restaurant is closed that day. Offer another day."}
    assert refused.status == "refused"
    missing, _ = await run_once(registry, "confirm", {"day": "x"})
    assert missing.model_result == {
        "refused": "party is missing. Ask the caller for it, then call confirm again.",
        "missing": ["party"],
    }
    assert issubclass(ToolRefused, ToolError) and issubclass(ArgumentsMissing, ToolRefused)


class State(BaseModel):
    day: Annotated[date | None, Field(description="The day the caller wants.")] = None
    brand: str | None = None


async def test_a_line_that_reads_an_unset_value_refuses_the_call_with_its_hint():
    ran.clear()

    def check_day() -> Done:
        ran.append("check_day")

    registry = ToolRegistry(
        [local_tool(check_day, announce=["Let me check {{day}}.", "One moment."])], state=State
    )
    result, speech = await run_once(registry, "check_day", "{}")
    assert result.model_result == {
        "refused": "day not set yet. Get it from the caller (The day the caller wants), then call this tool again."
    }
    assert speech.lines == [] and ran == []
    assert result.ends_conversation is False

    # With a State type that has no description for it, the hint has no brackets.
    plain = ToolRegistry([local_tool(check_day, announce="Checking {{brand}}.")], state=State)
    result, _ = await run_once(plain, "check_day", "{}")
    assert result.model_result == {
        "refused": "brand not set yet. Get it from the caller, then call this tool again."
    }
    # Without a State type, a name that is no argument fails the build (test_tools_build_errors.py).
    with pytest.raises(ValueError, match=r"\{\{brand\}\} is not an argument of check_day"):
        ToolRegistry([local_tool(check_day, announce="Checking {{brand}}.")])
