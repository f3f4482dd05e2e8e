"""Arguments Python holds but JSON cannot (NaN, a lone UTF-16 surrogate), as a dict or as text:
the core refuses them in its own words, ``live.run`` never raises for them, and the tool does
not run."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel

from hark import ToolRegistry, local_tool
from recording_speech import RecordingSpeech

REFUSAL = (
    '{"refused":"The arguments of note must be a JSON object of named arguments. '
    'Call note again with one."}'
)


class Out(BaseModel):
    ok: bool = True


@pytest.mark.parametrize(
    "arguments",
    [
        {"text": "a", "extra": {"x": math.nan}},
        {"text": "a", "extra": [math.inf]},
        {"text": "\ud800"},
        '{"text": "\ud800"}',
        '{"text": "\\ud800"}',
        '{"text": "a", "extra": NaN}',
    ],
    ids=["dict-nan", "dict-inf", "dict-surrogate", "text-surrogate", "text-escape", "text-nan"],
)
async def test_arguments_json_cannot_hold_are_refused_in_harks_words(arguments: object) -> None:
    ran: list[str] = []

    def note(text: str, extra: object = None) -> Out:
        """Take a note."""
        ran.append(text)
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    result = await live.run("note", arguments, live.generation())
    assert (result.status, result.model_text) == ("refused", REFUSAL)
    assert ran == []


async def test_a_surrogate_pair_held_as_two_code_points_is_the_character_it_spells() -> None:
    def note(text: str) -> Out:
        """Take a note."""
        assert text == "é😀"
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    result = await live.run("note", {"text": "é\ud83d\ude00"}, live.generation())
    assert result.succeeded
