"""Arguments Python holds but JSON cannot (NaN, a lone UTF-16 surrogate), as a dict or as text:
the core refuses them in its own words, ``live.run`` never raises for them, and the tool does
not run."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel

from hark import ToolRegistry, local_tool
from recording_speech import RecordingSpeech

NAN = '{"refused":"The arguments of note hold NaN or Infinity, which is not a JSON number. Call note again with valid JSON."}'
SURROGATE = (
    '{"refused":"The arguments of note hold an invalid \\\\u escape, like a lone surrogate \\\\ud800. '
    'Call note again with valid JSON."}'
)


class Out(BaseModel):
    ok: bool = True


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"text": "a", "extra": {"x": math.nan}}, NAN),
        ({"text": "a", "extra": [math.inf]}, NAN),
        ({"text": "\ud800"}, SURROGATE),
        ('{"text": "\ud800"}', SURROGATE),
        ('{"text": "\\ud800"}', SURROGATE),
        ('{"text": "a", "extra": NaN}', NAN),
    ],
    ids=["dict-nan", "dict-inf", "dict-surrogate", "text-surrogate", "text-escape", "text-nan"],
)
async def test_arguments_json_cannot_hold_are_refused_in_harks_words(arguments: object, refusal: str) -> None:
    ran: list[str] = []

    def note(text: str, extra: object = None) -> Out:
        """Take a note."""
        ran.append(text)
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    result = await live.run("note", arguments, live.generation())
    assert (result.status, result.model_text) == ("refused", refusal)
    assert ran == []


async def test_a_surrogate_pair_held_as_two_code_points_is_the_character_it_spells() -> None:
    def note(text: str) -> Out:
        """Take a note."""
        assert text == "é😀"
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    result = await live.run("note", {"text": "é\ud83d\ude00"}, live.generation())
    assert result.succeeded


async def test_a_dict_holding_a_value_json_has_no_form_for_is_a_type_error_naming_the_tool() -> None:
    """The caller's mistake, not the model's: a clear ``TypeError`` (it was pydantic-core's
    ``PydanticSerializationError`` out of ``run``), and the tool does not run."""
    ran: list[str] = []

    def note(text: str, extra: object = None) -> Out:
        """Take a note."""
        ran.append(text)
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    with pytest.raises(TypeError) as raised:
        await live.run("note", {"text": "a", "extra": object()}, live.generation())
    message = str(raised.value)
    assert message.startswith("run: the arguments of note hold a value JSON cannot carry ("), message
    assert "Pass the model's JSON text, or a dict of JSON values" in message
    assert ran == []
    # The call goes on: the next call of the same reply runs.
    result = await live.run("note", {"text": "b"}, live.generation())
    assert result.succeeded and ran == ["b"]


WHOLE = (
    '{"refused":"The arguments of note hold a whole number outside -9223372036854775808 to '
    '18446744073709551615, which cannot be read exactly. Call note again with whole numbers in that range."}'
)


@pytest.mark.parametrize(
    "arguments",
    [
        {"text": "a", "extra": 123456789012345678901234567890},
        {"text": "a", "extra": [-(2**63) - 1]},
        '{"text": "a", "extra": 18446744073709551616}',
    ],
    ids=["dict-big", "dict-below", "text-big"],
)
async def test_a_whole_number_beyond_64_bits_is_refused_not_handed_over_rounded(arguments: object) -> None:
    """The tool got 123456789012345677877719597056 for 123456789012345678901234567890, and
    -9223372036854775808 for -9223372036854775809: the core reads such a number as a float."""
    ran: list[object] = []

    def note(text: str, extra: object = None) -> Out:
        """Take a note."""
        ran.append(extra)
        return Out()

    live = ToolRegistry([local_tool(note)]).start_call(RecordingSpeech())
    result = await live.run("note", arguments, live.generation())
    assert (result.status, result.model_text) == ("refused", WHOLE)
    assert ran == []
    fits = await live.run("note", {"text": "a", "extra": [2**64 - 1, -(2**63)]}, live.generation())
    assert fits.succeeded and ran == [[2**64 - 1, -(2**63)]]
