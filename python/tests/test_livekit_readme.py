"""README.md's LiveKit block runs as a new user would run it, against the scripted
OpenAI-compatible server (through OPENAI_BASE_URL), and shows the reference's behaviour: a bad
argument and a refusal read by the model, a reply row said with no model reply after it."""

from __future__ import annotations

import asyncio
import re
import sys
import types
from pathlib import Path

from scripted_openai import ScriptedOpenAI, calls, text

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readmes_livekit_block_runs(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    (block,) = [b for b in blocks if "hark.livekit" in b]
    server = ScriptedOpenAI(
        [
            calls(("book_table", '{"day": "2026-10-16", "party": 40}')),
            text("We seat at most 12. How many of you are there?"),
            calls(("book_table", '{"day": "2026-10-19", "party": 4}')),
            text("We are closed on Mondays. Would Friday suit you?"),
            calls(("book_table", '{"day": "2026-10-16", "party": 4}')),
        ]
    )
    monkeypatch.setenv("OPENAI_API_KEY", "scripted")
    module = types.ModuleType("readme_livekit")
    sys.modules[module.__name__] = module
    try:
        exec(compile(block, "README.md (LiveKit)", "exec"), module.__dict__)  # noqa: S102

        async def run() -> None:
            await server.start()
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            try:
                await module.main()
            finally:
                await server.close()

        asyncio.run(run())
    finally:
        del sys.modules[module.__name__]
    assert len(server.requests) == 5 and server.exhausted == 0
    # What the model reads of the second turn in the third: the announce line in the message of
    # the reply that called the tool, before the tool's result, as the caller heard it.
    second = [
        (m["role"], m.get("content"), [c["function"]["name"] for c in m.get("tool_calls", [])])
        for m in server.requests[4]["messages"]
    ][6:9]
    assert second == [
        ("assistant", "Let me book that.", ["book_table"]),
        ("tool", '{"error":"Casa Pepe is closed on Mondays. Offer another day."}', []),
        ("assistant", "We are closed on Mondays. Would Friday suit you?", []),
    ]
    printed = capsys.readouterr().out.splitlines()
    turns: list[list[str]] = []
    for line in printed:
        if line.startswith("caller:"):
            turns.append([line])
        else:
            turns[-1].append(line)
    # Within a turn, LiveKit orders an announce line by when it finished playing: before or
    # after the tool's output.
    assert [[t[0], *sorted(t[1:])] for t in turns] == [
        [
            "caller: A table for 40 on Friday, October 16, 2026.",
            "  agent: We seat at most 12. How many of you are there?",
            '  tool result the model reads: {"refused":"party: 40 is greater than the maximum of 12\\n'
            'Fix these arguments, asking the caller if needed, then call book_table again."}',
        ],
        [
            "caller: Then Monday, October 19, for four.",
            "  agent: Let me book that.",
            "  agent: We are closed on Mondays. Would Friday suit you?",
            '  tool result the model reads: {"error":"Casa Pepe is closed on Mondays. Offer another day."}',
        ],
        [
            "caller: Friday, October 16, for four, please.",
            "  agent: Booked for Friday, October 16, 2026, reference B-12.",
            "  agent: Let me book that.",
            '  tool result the model reads: {"reference":"B-12","day":"2026-10-16"}',
        ],
    ]
    # The reply row is said after the announce line (the tool's output event may land on either
    # side of it: LiveKit orders events by when they finished), with no model request after it
    # (five requests in all, above).
    said = [line for line in turns[2] if line.startswith("  agent:")]
    assert said == ["  agent: Let me book that.", "  agent: Booked for Friday, October 16, 2026, reference B-12."]
