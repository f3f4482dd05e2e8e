"""The call state and what a result does to it: "Save a result and speak it" (assign, replies),
"Replies on the tool itself", "Check a rule before the tool runs" (precheck), "Locked arguments"
and "Send the transcript"."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from hark import Assign, CallState, Done, ToolRegistry, ToolReply, Transcript, local_tool
from recording_speech import RecordingSpeech


class Order(BaseModel):
    order_id: str
    status: Literal["held", "shipped"]
    arrives: date


class State(BaseModel):
    order: Order | None = None
    order_number: str | None = None
    vip: bool | None = None
    name: str | None = None


def find_order(order_id: str) -> Order:
    """Find an order."""
    status = "held" if order_id.startswith("H") else "shipped"
    return Order(order_id=order_id, status=status, arrives=date(2026, 10, 16))


def registry() -> ToolRegistry:
    return ToolRegistry(
        [local_tool(find_order)],
        state=State,
        assign={
            "find_order": [
                Assign(variable="order", path=()),
                Assign(variable="order_number", path=("order_id",)),
            ]
        },
        replies=[
            ToolReply(tool="find_order", when={"status": ["held"]}, say=["{{result.order_id}} is held."]),
            ToolReply(tool="find_order", state={"vip": [True]}, say=["{{name}}, it arrives {{result.arrives}}."]),
            ToolReply(tool="find_order", say=["Your order arrives {{result.arrives}}."]),
        ],
    )


async def test_assign_saves_in_one_batch_and_the_first_reply_that_matches_is_spoken():
    speech = RecordingSpeech()
    state = CallState(language="en-US")
    live = registry().start_call(speech, state=state)
    held = await live.run("find_order", {"order_id": "H-1"}, live.generation())
    assert held.said == ["H-1 is held."] and held.ask_model_reply is False
    assert held.saved == ["order", "order_number"]
    assert state.get("order_number") == "H-1"
    assert state.get("order") == {"order_id": "H-1", "status": "held", "arrives": "2026-10-16"}

    plain = await live.run("find_order", {"order_id": "A-2"}, live.generation())
    assert plain.said == ["Your order arrives Friday, October 16, 2026."]

    state.set("vip", True)
    state.set("name", "Ana")
    vip = await live.run("find_order", {"order_id": "A-3"}, live.generation())
    assert vip.said == ["Ana, it arrives Friday, October 16, 2026."]
    assert speech.lines == [
        "H-1 is held.",
        "Your order arrives Friday, October 16, 2026.",
        "Ana, it arrives Friday, October 16, 2026.",
    ]


def test_rows_are_checked_when_the_registry_is_built():
    with pytest.raises(ValueError, match="shiped"):
        ToolRegistry(
            [local_tool(find_order)],
            replies=[ToolReply(tool="find_order", when={"status": ["shiped"]}, say=["Shipped."])],
        )
    with pytest.raises(ValueError, match="no_such_value"):
        ToolRegistry(
            [local_tool(find_order)],
            state=State,
            assign={"find_order": [Assign(variable="no_such_value", path=("order_id",))]},
        )


class Noted(BaseModel):
    status: Literal["noted", "future_day"] = "noted"
    complete: bool
    next_question: str = ""


async def test_replies_on_the_tool_itself():
    def note_facts(day: date, fact: str) -> Noted:
        if day > date(2026, 10, 15):
            return Noted(status="future_day", complete=False)
        return Noted(complete=fact == "all", next_question="What else happened?")

    tool = local_tool(
        note_facts,
        replies=[
            ToolReply(when={"status": ["future_day"]}, say=["That day hasn't happened yet. On which day did it happen?"]),
            ToolReply(when={"complete": [False]}, say=["{{result.next_question}}"]),
        ],
    )
    registry = ToolRegistry([tool])
    speech = RecordingSpeech()
    live = registry.start_call(speech)
    future = await live.run("note_facts", {"day": "2026-12-01", "fact": "x"}, live.generation())
    asked = await live.run("note_facts", {"day": "2026-10-01", "fact": "some"}, live.generation())
    done = await live.run("note_facts", {"day": "2026-10-01", "fact": "all"}, live.generation())
    assert future.said == ["That day hasn't happened yet. On which day did it happen?"]
    assert asked.said == ["What else happened?"]
    assert done.said == [] and done.ask_model_reply is True
    with pytest.raises(ValueError):
        ToolRegistry([local_tool(note_facts, replies=[ToolReply(tool="other", say=["x"])])])


class Recorded(BaseModel):
    status: Literal["recorded", "past_day"] = "recorded"


async def test_a_precheck_outcome_is_the_result_and_the_tool_does_not_run():
    ran: list[date] = []

    def outside_window(day: date) -> Recorded | None:
        if day < date(2026, 10, 15):
            return Recorded(status="past_day")
        return None

    def record_promise(day: date, amount: int) -> Recorded:
        ran.append(day)
        return Recorded()

    tool = local_tool(
        record_promise,
        precheck=outside_window,
        announce="Recording it.",
        replies=[ToolReply(when={"status": ["past_day"]}, say=["That day has already gone. Which other day would suit you?"])],
    )
    registry = ToolRegistry([tool])
    speech = RecordingSpeech()
    live = registry.start_call(speech)
    gone = await live.run("record_promise", {"day": "2026-10-01", "amount": 5}, live.generation())
    assert gone.prechecked and gone.said == ["That day has already gone. Which other day would suit you?"]
    assert ran == [] and speech.lines == ["That day has already gone. Which other day would suit you?"]
    ok = await live.run("record_promise", {"day": "2026-10-20", "amount": 5}, live.generation())
    assert ok.succeeded and not ok.prechecked and ran == [date(2026, 10, 20)]

    def wrong_type(day: str) -> None:
        return None

    with pytest.raises(TypeError, match="precheck's parameter day is not a parameter of the tool"):
        local_tool(record_promise, precheck=wrong_type)


class Customer(BaseModel):
    id: str


class CrmState(BaseModel):
    customer: Customer | None = None


async def test_locked_arguments_are_filled_from_state_and_call_and_never_seen():
    got: list[dict] = []

    def open_ticket(customer_id: str, call: str, note: str, transcript: list[dict]) -> Done:
        got.append({"customer_id": customer_id, "call": call, "note": note, "transcript": transcript})

    tool = local_tool(
        open_ticket,
        locked={
            "customer_id": "{{customer.id}}",
            "call": "{{call.session_id}}",
            "transcript": Transcript(max_messages=2),
        },
    )
    assert list(tool.parameters["properties"]) == ["note"]
    registry = ToolRegistry([tool], state=CrmState)
    state = CallState(call={"session_id": "s-7"})
    live = registry.start_call(RecordingSpeech(), state=state)
    unset = await live.run("open_ticket", {"note": "hi"}, live.generation())
    assert unset.model_result == {
        "refused": "customer.id not set yet. Get it from the caller, then call this tool again."
    }
    state.set("customer", {"id": "C-9"})
    for role, text in [("user", "one"), ("assistant", "two"), ("user", "three")]:
        state.push_message(role, text)
    result = await live.run("open_ticket", {"note": "hi", "customer_id": "forged"}, live.generation())
    assert result.succeeded
    assert got == [
        {
            "customer_id": "C-9",
            "call": "s-7",
            "note": "hi",
            "transcript": [{"role": "assistant", "text": "two"}, {"role": "user", "text": "three"}],
        }
    ]


def test_a_locked_path_is_checked_against_the_state_and_old_spellings_fail():
    def open_ticket(customer_id: str) -> Done:
        return None

    with pytest.raises(ValueError, match="costumer"):
        ToolRegistry([local_tool(open_ticket, locked={"customer_id": "{{costumer.id}}"})], state=CrmState)
    with pytest.raises(ValueError, match="call.carrier_call_id"):
        local_tool(open_ticket, locked={"customer_id": "{{@call_id}}"})


class Tier(BaseModel):
    tier: Literal["gold", "silver"] | None = None


async def test_a_save_the_state_refuses_is_told_to_the_sinks_and_the_model_still_reads_the_result():
    class Account(BaseModel):
        tier: str

    def find_account(account_id: str) -> Account:
        return Account(tier="platinum")

    events: list[tuple[str, dict]] = []
    registry = ToolRegistry(
        [local_tool(find_account)],
        state=Tier,
        assign={"find_account": [Assign(variable="tier", path=("tier",))]},
    )
    registry.listen(lambda stage, data: events.append((stage, data)))
    state = CallState()
    live = registry.start_call(RecordingSpeech(), state=state)
    result = await live.run("find_account", {"account_id": "A"}, live.generation())
    assert result.succeeded and result.model_result == {"tier": "platinum"}
    assert result.saved == [] and state.get("tier") is None
    refused = [data for stage, data in events if stage == "tool.save_refused"]
    assert refused and refused[0]["error"] == "the State refused tier"
    assert "platinum" not in repr(events)


class Ledger:
    """Tools are often methods of an object the call owns."""

    def __init__(self) -> None:
        self.promises: list[tuple[date, int]] = []

    def record_promise(self, day: date, amount: int) -> Recorded:
        """Record a promise to pay."""
        self.promises.append((day, amount))
        return Recorded()


async def test_a_bound_method_is_a_tool_and_its_precheck_runs_first():
    ledger = Ledger()

    def outside_window(day: date) -> Recorded | None:
        if day < date(2026, 10, 15):
            return Recorded(status="past_day")
        return None

    tool = local_tool(
        ledger.record_promise,
        precheck=outside_window,
        replies=[ToolReply(when={"status": ["past_day"]}, say=["That day has already gone. Which other day would suit you?"])],
    )
    assert tool.name == "record_promise" and tool.description == "Record a promise to pay."
    assert list(tool.parameters["properties"]) == ["day", "amount"]
    live = ToolRegistry([tool]).start_call(RecordingSpeech())
    gone = await live.run("record_promise", {"day": "2026-10-01", "amount": 5}, live.generation())
    assert gone.said == ["That day has already gone. Which other day would suit you?"]
    ok = await live.run("record_promise", {"day": "2026-10-20", "amount": 5}, live.generation())
    assert ok.succeeded and ledger.promises == [(date(2026, 10, 20), 5)]


async def test_a_reply_says_a_date_as_a_person_does_in_the_calls_timezone():
    speech = RecordingSpeech()
    live = registry().start_call(
        speech, language="en-US", timezone="America/New_York", now="2026-10-15T16:00:00Z"
    )
    result = await live.run("find_order", {"order_id": "A-2"}, live.generation())
    assert result.said == ["Your order arrives tomorrow, October 16."]
    with pytest.raises(ValueError, match="now is an instant in RFC 3339"):
        registry().start_call(speech, now="yesterday")
