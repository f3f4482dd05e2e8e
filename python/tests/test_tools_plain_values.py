"""Arguments of plain types reach the function as the same Python values pydantic gives (a
`date`, an `int` for `4.0`, a `float` for `4`, a clean `Phone`, the `Literal`'s value), built
from the checked JSON without pydantic; whatever that path is not sure of goes through pydantic,
with pydantic's values and the same refusal texts."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, Field, create_model

from hark import Done, Phone, ToolRegistry, local_tool
from hark._decode import plan_of
from recording_speech import RecordingSpeech

got: list[dict[str, Any]] = []


def book_table(
    day: date,
    party: Annotated[int, Field(ge=1, le=12)] = 2,
    seating: Literal["inside", "terrace"] = "inside",
    phone: Phone | None = None,
    budget: float | None = None,
    note: Annotated[str, Field(max_length=40)] = "",
    vip: bool = False,
) -> Done:
    got.append(dict(locals()))


Reference = create_model(
    "Reference",
    day=(date, ...),
    party=(Annotated[int, Field(ge=1, le=12)], 2),
    seating=(Literal["inside", "terrace"], "inside"),
    phone=(Phone | None, None),
    budget=(float | None, None),
    note=(Annotated[str, Field(max_length=40)], ""),
    vip=(bool, False),
)


async def run(tool: Any, arguments: str) -> Any:
    live = ToolRegistry([tool]).start_call(RecordingSpeech())
    return await live.run(tool.name, arguments, live.generation())


@pytest.mark.parametrize(
    "arguments",
    [
        '{"day": "2026-10-16"}',
        '{"day": "2026-10-16", "party": 4.0, "seating": "terrace", "phone": "+1 415-555-0123"}',
        '{"day": "2026-02-28", "budget": 40, "note": "window", "vip": true, "phone": null}',
        '{"day": "2026-10-16", "budget": 12.5, "party": 12}',
    ],
)
async def test_plain_values_are_the_values_pydantic_gives(arguments: str):
    got.clear()
    result = await run(local_tool(book_table), arguments)
    assert result.succeeded, result.model_text
    expected = dict(Reference.model_validate_json(arguments))
    assert got == [expected]
    assert [type(v) for v in got[0].values()] == [type(v) for v in expected.values()]


def test_a_function_of_plain_types_has_a_plan_and_one_with_a_validator_has_none():
    assert plan_of(Reference) is not None
    checked = create_model("Checked", name=(Annotated[str, AfterValidator(str.strip)], ...))
    assert plan_of(checked) is None
    patterned = create_model("Patterned", code=(Annotated[str, Field(pattern="^[A-Z]+$")], ...))
    assert plan_of(patterned) is None


async def test_a_day_that_does_not_exist_is_refused_in_the_formats_words():
    result = await run(local_tool(book_table), '{"day": "2026-02-30"}')
    assert result.status == "refused"
    assert (
        'day: "2026-02-30" is not a day on the calendar: February 2026 has days 01 to 28'
        in json.loads(result.model_text)["refused"]
    )


async def test_a_phone_number_that_does_not_parse_is_refused_in_the_formats_words():
    result = await run(local_tool(book_table), '{"day": "2026-10-16", "phone": "12"}')
    assert result.status == "refused"
    assert (
        'phone: "12" has no country code: give it starting with + and the country code, '
        "like +14155550123" in json.loads(result.model_text)["refused"]
    )


async def test_a_day_written_another_way_goes_through_pydantic():
    got.clear()
    result = await run(local_tool(book_table), '{"day": "2026-10-16T00:00:00"}')
    try:
        expected = dict(Reference.model_validate_json('{"day": "2026-10-16T00:00:00"}'))
    except Exception:  # noqa: BLE001 - pydantic refuses it: so does the tool
        assert result.status == "refused"
        return
    assert got == [expected]


async def test_a_validator_still_runs():
    seen: list[str] = []

    def greet(name: Annotated[str, AfterValidator(str.upper)]) -> Done:
        seen.append(name)

    result = await run(local_tool(greet), '{"name": "ada"}')
    assert result.succeeded
    assert seen == ["ADA"]


async def test_a_date_and_time_without_its_utc_offset_is_refused_as_the_description_says():
    """The model reads "A date and time written YYYY-MM-DDTHH:MM:SS with its UTC offset"; a value
    without one reached the tool as a naive datetime, placed in no zone."""
    from datetime import datetime, timedelta, timezone

    seen: list[datetime | None] = []

    def remind(when: datetime, until: Annotated[datetime | None, Field(description="The end.")] = None) -> Done:
        """Set a reminder."""
        seen.append(when)

    result = await run(local_tool(remind), '{"when": "2026-10-16T09:00:00"}')
    assert result.status == "refused"
    assert json.loads(result.model_text)["refused"].startswith(
        'when: "2026-10-16T09:00:00" has no UTC offset: give the date and time with one, '
        "like 2026-10-16T09:30:00+02:00\n"
    )
    optional = await run(local_tool(remind), '{"when": "2026-10-16T09:00:00Z", "until": "2026-10-16T10:00:00"}')
    assert optional.status == "refused"
    assert 'until: "2026-10-16T10:00:00" has no UTC offset' in json.loads(optional.model_text)["refused"]
    assert seen == []
    ok = await run(local_tool(remind), '{"when": "2026-10-16T09:00:00+02:00"}')
    assert ok.succeeded
    assert seen == [datetime(2026, 10, 16, 9, 0, tzinfo=timezone(timedelta(hours=2)))]
