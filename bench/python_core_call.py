"""One tool call from Python through Hark's core (`live.run`) against the same function called
after plain pydantic validation: the time the core adds per call, p50 and p99 of 3,000 calls.

    HARK_PY_RELEASE=1 scripts/python-env.sh
    target/py-venv/bin/python bench/python_core_call.py
"""

from __future__ import annotations

import asyncio
import time
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field, create_model

from hark import Phone, ToolRegistry, local_tool

ARGUMENTS = '{"day": "2026-10-16", "party": 4, "phone": "+1 415-555-0123"}'
CALLS = 3000


class Booking(BaseModel):
    reference: str
    day: date


async def book_table(
    day: Annotated[date, Field(description="The day the caller wants.")],
    party: Annotated[int, Field(ge=1, le=12)] = 2,
    seating: Literal["inside", "terrace"] = "inside",
    phone: Phone | None = None,
) -> Booking:
    """Book a table."""
    return Booking(reference="B-12", day=day)


def book_table_sync(day: date, party: Annotated[int, Field(ge=1, le=12)] = 2) -> Booking:
    """Book a table."""
    return Booking(reference="B-12", day=day)


Input = create_model(
    "Input",
    day=(date, ...),
    party=(Annotated[int, Field(ge=1, le=12)], 2),
    seating=(Literal["inside", "terrace"], "inside"),
    phone=(Phone | None, None),
)


class Silent:
    async def say(self, line: str) -> None:
        pass

    async def wait_playout(self) -> None:
        pass

    def reply_spoke(self) -> bool:
        return False


async def plain() -> str:
    values = Input.model_validate_json(ARGUMENTS)
    result = await book_table(**dict(values))
    return result.model_dump_json()


async def measure(name: str, call) -> None:  # noqa: ANN001
    for _ in range(200):
        await call()
    samples = []
    for _ in range(CALLS):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1e6)
    samples.sort()
    print(f"{name:<34} p50 {samples[CALLS // 2]:>6.0f} us   p99 {samples[int(CALLS * 0.99)]:>6.0f} us")


async def main() -> None:
    live = ToolRegistry([local_tool(book_table), local_tool(book_table_sync)]).start_call(Silent())
    generation = live.generation()
    await measure("hark live.run, async book_table", lambda: live.run("book_table", ARGUMENTS, generation))
    await measure(
        "hark live.run, sync function",
        lambda: live.run("book_table_sync", '{"day": "2026-10-16", "party": 4}', generation),
    )
    await measure("plain pydantic + the same function", plain)

    loop = asyncio.get_running_loop()

    async def round_trip() -> None:
        future = loop.create_future()
        loop.call_soon_threadsafe(future.set_result, None)
        await future

    await measure("asyncio call_soon_threadsafe alone", round_trip)


if __name__ == "__main__":
    asyncio.run(main())
