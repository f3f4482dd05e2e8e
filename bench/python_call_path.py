"""The call path of crates/hark-tools/benches/call_path.rs in Python, for comparison.

raw arguments text -> pydantic TypeAdapter.validate_json -> a no-op async tool inside an asyncio
task -> the result checked against its output model -> model_dump_json (the text the model reads).

Run:  python3 -m venv /tmp/pyd && /tmp/pyd/bin/pip install pydantic && /tmp/pyd/bin/python bench/python_call_path.py
"""

import asyncio
import sys
import time
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter


class BookTableArgs(BaseModel):
    day: Annotated[date, Field(description="The day the caller wants.")]
    party: Annotated[int, Field(ge=1, le=12, description="How many people come.")] = 2
    seating: Annotated[Literal["inside", "terrace"], Field(description="Where they sit.")] = "inside"
    name: Annotated[str, Field(min_length=1, max_length=40, description="The name for the booking.")]


class Booking(BaseModel):
    reference: str
    day: date
    party: int
    seating: Literal["inside", "terrace"]


ARGS = TypeAdapter(BookTableArgs)
OUTPUT = TypeAdapter(Booking)
RAW = '{"day": "2026-10-16", "party": 4, "seating": "terrace", "name": "Ada Lovelace"}'


async def book_table(args: BookTableArgs) -> dict:
    return {"reference": "B-12", "day": args.day, "party": args.party, "seating": args.seating}


async def call(raw: str) -> str:
    args = ARGS.validate_json(raw)
    result = await asyncio.create_task(book_table(args))
    checked = OUTPUT.validate_python(result)
    return checked.model_dump_json()


async def main() -> None:
    assert await call(RAW) == '{"reference":"B-12","day":"2026-10-16","party":4,"seating":"terrace"}'
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    for _ in range(2_000):
        await call(RAW)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            await call(RAW)
        best = min(best, (time.perf_counter() - start) / n)
    print(f"python call path: {best * 1e6:.2f} µs per call (best of 5 x {n})")


if __name__ == "__main__":
    asyncio.run(main())
