"""The call's hooks ("Use it in your agent", point 3; "Outputs", point 6): wrap_tool and
after_tool see the checked result, and what a hook puts in its place is not checked again."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from hark import CallHooks, ToolRegistry, local_tool
from recording_speech import RecordingSpeech


class Quote(BaseModel):
    price: int
    currency: Literal["EUR"] = "EUR"


def quote(item: str) -> Quote:
    return Quote(price=12)


async def run(hooks, arguments, *, via_call=False):
    registry = ToolRegistry([local_tool(quote)])
    if via_call:
        live = registry.start_call(RecordingSpeech(), call=hooks)
    else:
        live = registry.start_call(RecordingSpeech(), hooks=hooks)
    return await live.run("quote", arguments, live.generation())


async def test_wrap_tool_sees_the_checked_outcome_and_can_keep_it():
    seen: list = []
    hooks = CallHooks()

    @hooks.wrap_tool
    async def around(call, next):  # noqa: A002
        seen.append(("before", call["tool"], call["arguments"]))
        outcome = await next()
        seen.append(("after", outcome.succeeded, outcome.result))
        return outcome

    result = await run(hooks, {"item": "tea"})
    assert result.model_result == {"price": 12, "currency": "EUR"}
    assert seen == [
        ("before", "quote", {"item": "tea"}),
        ("after", True, {"price": 12, "currency": "EUR"}),
    ]


async def test_a_replacement_is_not_checked_again_and_a_hook_may_not_run_the_tool():
    hooks = CallHooks()

    @hooks.wrap_tool
    async def replace(call, next):  # noqa: A002
        await next()
        return {"price": "on request"}

    replaced = await run(hooks, {"item": "tea"}, via_call=True)
    assert replaced.succeeded and replaced.model_result == {"price": "on request"}

    skipped = CallHooks()
    ran: list[str] = []

    @skipped.wrap_tool
    async def refuse(call, next):  # noqa: A002
        ran.append("hook")
        return {"error": "Quotes are closed today."}

    result = await run(skipped, {"item": "tea"})
    assert result.status == "failed" and result.model_result == {"error": "Quotes are closed today."}
    assert ran == ["hook"]


async def test_after_tool_replaces_or_keeps():
    hooks = CallHooks()
    calls: list[str] = []

    def note(call, outcome):
        calls.append(outcome.status)

    def discount(call, outcome):
        if outcome.succeeded:
            return {**outcome.result, "price": outcome.result["price"] - 2}
        return None

    hooks.after_tool(note)
    hooks.after_tool(discount)
    result = await run(hooks, {"item": "tea"})
    assert result.model_result == {"price": 10, "currency": "EUR"}
    assert calls == ["succeeded"]
    refused = await run(hooks, {})
    assert refused.status == "refused" and calls == ["succeeded"]


def test_wrap_tool_takes_an_async_function():
    with pytest.raises(TypeError, match="async def hook"):
        CallHooks().wrap_tool(lambda call, next: None)
