"""The reference's "Outputs", "A result the model does not read" and failures: outputs checked
in Hark's core, Done and Accepted, ToolError and any other exception."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from hark import Accepted, Done, ToolError, ToolRegistry, local_tool
from recording_speech import run_once


class Order(BaseModel):
    order_id: str
    status: Literal["held", "shipped"]
    note: str = ""


class OpenOrder(BaseModel):
    model_config = ConfigDict(extra="allow")
    order_id: str


async def test_a_result_is_checked_defaults_filled_and_undeclared_fields_dropped():
    def find_raw(order_id: str) -> dict:
        return {"order_id": order_id, "status": "held", "internal": "x"}

    tool = local_tool(find_raw, output=Order)
    result, _ = await run_once(ToolRegistry([tool]), "find_raw", {"order_id": "A-1"})
    assert result.succeeded
    assert result.model_result == {"order_id": "A-1", "status": "held", "note": ""}


async def test_extra_allow_keeps_undeclared_fields():
    def find_open(order_id: str) -> dict:
        return {"order_id": order_id, "internal": "x"}

    result, _ = await run_once(ToolRegistry([local_tool(find_open, output=OpenOrder)]), "find_open", {"order_id": "A"})
    assert result.model_result == {"order_id": "A", "internal": "x"}


def test_a_function_returning_dict_must_name_its_output():
    def find_raw(order_id: str) -> dict:
        return {}

    def no_annotation(order_id: str):  # noqa: ANN202
        return {}

    with pytest.raises(TypeError, match="name its output"):
        local_tool(find_raw)
    with pytest.raises(TypeError, match="name its output"):
        local_tool(no_annotation)
    assert local_tool(find_raw, output=Order).output_name == "Order"


async def test_a_result_that_does_not_fit_fails_the_call():
    def find_order(order_id: str) -> Order:
        return {"order_id": order_id, "status": "lost"}  # type: ignore[return-value]

    result, _ = await run_once(ToolRegistry([local_tool(find_order)]), "find_order", {"order_id": "A"})
    assert not result.succeeded and result.status == "failed"
    text = result.model_result["error"]
    assert text.startswith("find_order returned a result that does not fit Order: status: ")
    assert text.endswith(" Do not claim success.")


async def test_a_result_that_reports_an_error_is_never_checked():
    def find_order(order_id: str) -> Order:
        return {"error": "The order system is down."}  # type: ignore[return-value]

    result, _ = await run_once(ToolRegistry([local_tool(find_order)]), "find_order", {"order_id": "A"})
    assert result.status == "failed"
    assert result.model_result == {"error": "The order system is down."}


async def test_tool_error_is_read_as_written_and_other_errors_are_not():
    def book(day: str) -> Done:
        raise ToolError("No table is free that day. Offer another day.")

    def broken(day: str) -> Done:
        raise KeyError("secret detail")

    registry = ToolRegistry([local_tool(book), local_tool(broken)])
    booked, _ = await run_once(registry, "book", {"day": "x"})
    assert booked.model_result == {"error": "No table is free that day. Offer another day."}
    failed, _ = await run_once(registry, "broken", {"day": "x"})
    assert failed.model_result == {"error": "broken failed before completing. Do not claim success."}
    assert "secret" not in failed.model_text


async def test_done_and_accepted():
    def save(note: str) -> None:
        return None

    def notify(note: str) -> Accepted:
        return Accepted()

    registry = ToolRegistry([local_tool(save), local_tool(notify)])
    saved, _ = await run_once(registry, "save", {"note": "x"})
    assert saved.model_result == {"ok": True}
    assert registry.get("save").output_name == "Done"
    notified, _ = await run_once(registry, "notify", {"note": "x"})
    assert notified.model_result == {"ok": True, "accepted": True}


async def test_show_result_false_and_result_instructions():
    def save_order(item: str) -> Order:
        """Save the order."""
        return Order(order_id="A-9", status="held")

    tool = local_tool(
        save_order,
        show_result=False,
        result_instructions="Tell the caller the order is saved. Do not read out the number.",
    )
    assert tool.description == (
        "Save the order.\n\nUse the result like this: Tell the caller the order is saved. Do not read out the number."
    )
    registry = ToolRegistry([tool])
    result, _ = await run_once(registry, "save_order", {"item": "tea"})
    assert result.model_result == {"ok": True}
    assert result.result == {"order_id": "A-9", "status": "held", "note": ""}
    assert registry.for_model("save_order", {"error": "down"}) == '{"error":"down"}'
    assert registry.for_model("save_order", {"order_id": "A", "status": "held"}) == '{"ok":true}'


async def test_hidden_fields_and_a_hidden_field_the_output_lacks():
    def find_order(order_id: str) -> Order:
        return Order(order_id=order_id, status="held", note="read me back")

    tool = local_tool(find_order, hidden=("note",))
    result, _ = await run_once(ToolRegistry([tool]), "find_order", {"order_id": "A"})
    assert result.model_result == {"order_id": "A", "status": "held"}
    assert result.result["note"] == "read me back"
    with pytest.raises(ValueError, match="hidden names read_back, which Order does not have"):
        local_tool(find_order, hidden=("read_back",))


async def test_a_result_that_is_not_json_fails_without_breaking_the_call():
    class Opaque:
        pass

    def weird(item: str) -> Order:
        return Opaque()  # type: ignore[return-value]

    def nan(item: str) -> dict:
        return {"order_id": "A", "status": "held", "note": float("nan")}

    registry = ToolRegistry([local_tool(weird), local_tool(nan, output=Order)])
    opaque, _ = await run_once(registry, "weird", {"item": "x"})
    assert opaque.model_result == {"error": "weird failed before completing. Do not claim success."}
    not_a_number, _ = await run_once(registry, "nan", {"item": "x"})
    assert not_a_number.model_result == {"error": "nan failed before completing. Do not claim success."}


async def test_a_whole_number_result_beyond_64_bits_fails_rather_than_reach_the_model_rounded(caplog):
    """JSON here holds a whole number beyond -2**63..2**64-1 only as a rounded float: the model
    read ``{"cents":1e+20}`` for 10**20. Such a result fails (the log says why); the largest that
    fit pass exactly."""

    class Balance(BaseModel):
        cents: int

    values = [10**20, 2**64, -(2**63) - 1, 2**64 - 1, -(2**63)]

    def balance(k: int) -> Balance:
        """The balance in cents."""
        return Balance(cents=values[k])

    registry = ToolRegistry([local_tool(balance)])
    for k in range(3):
        result, _ = await run_once(registry, "balance", {"k": k})
        assert result.model_result == {"error": "balance failed before completing. Do not claim success."}
    assert "whole number outside -9223372036854775808 to 18446744073709551615" in caplog.text
    largest, _ = await run_once(registry, "balance", {"k": 3})
    assert largest.model_text == '{"cents":18446744073709551615}'
    smallest, _ = await run_once(registry, "balance", {"k": 4})
    assert smallest.model_text == '{"cents":-9223372036854775808}'


async def test_speech_that_raises_never_fails_the_call():
    from recording_speech import RecordingSpeech

    class Broken(RecordingSpeech):
        async def say(self, line):
            raise RuntimeError("the TTS is down")

    def lookup(item: str) -> Done:
        return None

    registry = ToolRegistry([local_tool(lookup, announce="One moment.")])
    result, _ = await run_once(registry, "lookup", {"item": "x"}, speech=Broken())
    assert result.succeeded and result.announced == ["One moment."]
