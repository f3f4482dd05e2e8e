"""The reference's "Inputs and outputs" and "One input model": local_tool from type hints, the
schema the model reads, real Python values, and the TypeErrors."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from hark import Phone, ToolRegistry, local_tool
from recording_speech import run_once


class Booking(BaseModel):
    reference: str
    day: date


seen: list[tuple] = []


def book_table(
    day: Annotated[date, Field(description="The day the caller wants.")],
    party: Annotated[int, Field(ge=1, le=12)] = 2,
    seating: Literal["inside", "terrace"] = "inside",
    phone: Phone | None = None,
) -> Booking:
    """Book a table."""
    seen.append((day, party, seating, phone))
    return Booking(reference="B-12", day=day)


def test_book_table_schema_is_what_the_model_reads():
    tool = local_tool(book_table)
    assert tool.name == "book_table"
    assert tool.description == "Book a table."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "day": {"description": "The day the caller wants. A date written YYYY-MM-DD.", "type": "string"},
            "party": {"default": 2, "maximum": 12, "minimum": 1, "type": "integer"},
            "seating": {"default": "inside", "enum": ["inside", "terrace"], "type": "string"},
            "phone": {
                "description": "A phone number in international format with its country code, like "
                "+14155550123. A phone number, with its country code when the caller gives one.",
                "type": "string",
            },
        },
        "required": ["day"],
        "additionalProperties": False,
    }


async def test_the_function_gets_real_python_values():
    seen.clear()
    registry = ToolRegistry([local_tool(book_table)])
    result, _ = await run_once(
        registry, "book_table", '{"day": "2026-10-16", "party": 4, "phone": "+1 415-555-0123"}'
    )
    assert result.succeeded
    assert result.model_text == '{"reference":"B-12","day":"2026-10-16"}'
    day, party, seating, phone = seen[-1]
    assert day == date(2026, 10, 16) and type(day) is date
    assert party == 4 and type(party) is int
    assert seating == "inside"
    assert isinstance(phone, Phone) and phone == "+14155550123"


async def test_a_bad_argument_goes_back_with_what_to_fix():
    seen.clear()
    registry = ToolRegistry([local_tool(book_table)])
    result, _ = await run_once(registry, "book_table", {"day": "2026-10-16", "party": 40})
    assert result.model_result == {
        "refused": "party: 40 is greater than the maximum of 12\n"
        "Fix these arguments, asking the caller if needed, then call book_table again."
    }
    assert result.status == "refused"
    assert seen == []


async def test_a_value_its_type_refuses_reads_the_formats_words():
    seen.clear()
    registry = ToolRegistry([local_tool(book_table)])
    bad_day, _ = await run_once(registry, "book_table", {"day": "2026-02-30"})
    assert bad_day.model_result["refused"] == (
        'day: "2026-02-30" is not a day on the calendar: February 2026 has days 01 to 28\n'
        "Fix these arguments, asking the caller if needed, then call book_table again."
    )
    bad_phone, _ = await run_once(registry, "book_table", {"day": "2026-10-16", "phone": "12"})
    assert bad_phone.model_result["refused"] == (
        'phone: "12" has no country code: give it starting with + and the country code, '
        "like +14155550123\n"
        "Fix these arguments, asking the caller if needed, then call book_table again."
    )
    letters, _ = await run_once(registry, "book_table", {"day": "2026-10-16", "phone": "call me maybe"})
    assert letters.model_result["refused"].startswith(
        'phone: "call me maybe" is not a phone number: it has letters. '
        "Give its digits in international format, like +14155550123\n"
    )
    events: list[tuple[str, dict]] = []
    registry.listen(lambda stage, data: events.append((stage, data)))
    not_written, _ = await run_once(registry, "book_table", {"day": "next friday"})
    assert not_written.model_result["refused"].startswith(
        'day: "next friday" is not written year-month-day: give the day like 2026-10-16\n'
    )
    # What sinks (and logs) get names the field, never the value.
    assert events[-1][0] == "tool.refused"
    assert "day (format)" in repr(events[-1][1]) and "next friday" not in repr(events)
    assert seen == []


def test_a_parameter_without_a_type_raises_typeerror_naming_it():
    def lookup(order_id, note: str) -> Booking:  # noqa: ANN001
        raise AssertionError

    with pytest.raises(TypeError, match="the parameter order_id has no type"):
        local_tool(lookup)


def test_args_and_kwargs_are_refused():
    def many(*names: str) -> Booking:
        raise AssertionError

    def loose(**values: str) -> Booking:
        raise AssertionError

    with pytest.raises(TypeError, match=r"\*names is not allowed"):
        local_tool(many)
    with pytest.raises(TypeError, match=r"\*\*values is not allowed"):
        local_tool(loose)


def test_description_is_the_docstring_up_to_args_and_args_describe_parameters():
    def find_order(order_id: str, verbose: bool = False) -> Booking:
        """Find an order by its id.

        Read it back before calling.

        Args:
            order_id: The order id the caller reads out.
            verbose: Whether to include
                every line of the order.
        """
        raise AssertionError

    tool = local_tool(find_order)
    assert tool.description == "Find an order by its id.\n\nRead it back before calling."
    props = tool.parameters["properties"]
    assert props["order_id"]["description"] == "The order id the caller reads out."
    assert props["verbose"]["description"] == "Whether to include every line of the order."

    renamed = local_tool(find_order, name="lookup", description="Look it up.")
    assert (renamed.name, renamed.description) == ("lookup", "Look it up.")


class Order(BaseModel):
    order_id: str
    status: Literal["held", "shipped"] = "held"


class OrderQuery(BaseModel):
    order_id: Annotated[str, Field(description="The order id the caller reads out.")]


async def test_one_input_model():
    got: list[OrderQuery] = []

    async def lookup_order(query: OrderQuery) -> Order:
        got.append(query)
        return Order(order_id=query.order_id)

    tool = local_tool(lookup_order)
    assert tool.parameters["properties"] == {
        "order_id": {"description": "The order id the caller reads out.", "type": "string"}
    }
    assert tool.parameters["required"] == ["order_id"]
    result, _ = await run_once(ToolRegistry([tool]), "lookup_order", {"order_id": "A-17"})
    assert result.model_result == {"order_id": "A-17", "status": "held"}
    assert isinstance(got[0], OrderQuery) and got[0].order_id == "A-17"


async def test_arguments_the_schema_does_not_name_are_refused():
    def lookup(order_id: str) -> Order:
        return Order(order_id=order_id)

    result, _ = await run_once(ToolRegistry([local_tool(lookup)]), "lookup", {"order_id": "A", "bogus": 1})
    assert result.model_result == {
        "refused": "bogus is not an argument of lookup. Call lookup again without it."
    }


async def test_an_unknown_tool_names_the_tools_there_are():
    registry = ToolRegistry([local_tool(book_table)])
    result, _ = await run_once(registry, "book_a_table", "{}")
    assert result.model_result == {
        "refused": "There is no tool named book_a_table. The tools are: book_table. Call one of them instead."
    }
    assert "book_table" in registry and "book_a_table" not in registry
