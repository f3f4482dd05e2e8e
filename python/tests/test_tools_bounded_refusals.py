"""What the model reads stays small whatever the model sent: a refusal quotes at most 60
characters of a value or a name, then "…", and names at most ten unknown arguments."""

from __future__ import annotations

import json
from typing import Literal

from hark import Done, ToolRegistry, local_tool
from recording_speech import run_once


def note(text: str, extra: dict[str, str] | None = None,
         seating: Literal["window", "patio"] | None = None) -> Done:
    """Keep a note."""
    return Done()


def registry() -> ToolRegistry:
    return ToolRegistry([local_tool(note)])


QUOTED = '"' + "y" * 59 + "…"


async def test_a_megabyte_value_is_quoted_as_sixty_characters():
    big = "y" * 1_000_000
    for field in ("extra", "seating"):
        arguments = json.dumps({"text": "a", field: big})
        result, _ = await run_once(registry(), "note", arguments)
        assert result.status == "refused"
        refused = result.model_result["refused"]
        assert refused.startswith(f"{field}: {QUOTED} "), refused[:300]
        assert len(result.model_text) < 400


async def test_a_hundred_thousand_unknown_keys_name_ten():
    arguments = {f"k{i}": 1 for i in range(100_000)} | {"text": "a"}
    result, _ = await run_once(registry(), "note", json.dumps(arguments))
    assert result.model_result == {
        "refused": "k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 99,990 more are not arguments "
        "of note. Call note again without them."
    }


async def test_a_megabyte_tool_name_is_cut():
    result, _ = await run_once(registry(), "x" * 1_000_000, "{}")
    assert result.model_result == {
        "refused": "There is no tool named " + "x" * 60 + "…. The tools are: note. "
        "Call one of them instead."
    }
