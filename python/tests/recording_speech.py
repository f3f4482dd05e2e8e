"""A `hark.call.Speech` for tests: records every line and every wait, in order, with marks a test
adds (like "the tool ran"), so a test can pin what was said and when."""

from __future__ import annotations


class RecordingSpeech:
    """Speech that records; playout is immediate. ``spoke`` is what ``reply_spoke`` answers."""

    def __init__(self, *, spoke: bool = False) -> None:
        self.events: list[tuple[str, str]] = []
        self.spoke = spoke

    async def say(self, line: str) -> None:
        self.events.append(("say", line))

    async def wait_playout(self) -> None:
        self.events.append(("played_out", ""))

    def reply_spoke(self) -> bool:
        return self.spoke

    def mark(self, text: str) -> None:
        self.events.append(("mark", text))

    @property
    def lines(self) -> list[str]:
        return [text for kind, text in self.events if kind == "say"]


async def run_once(registry, name, arguments=None, *, speech=None, **call):
    """One tool call in a fresh call of `registry`; returns (result, speech)."""
    speech = speech or RecordingSpeech()
    live = registry.start_call(speech, **call)
    result = await live.run(name, arguments, live.generation())
    return result, speech
