"""What the caller cannot cut off: Pipecat's user mute strategies, by name.

``user_mute_strategies(protect=["tool_calls"])`` goes into
``LLMUserAggregatorParams(user_mute_strategies=...)``: while the bot speaks during a tool call
(its announce line), the caller's speech does not cut the line off. Once the line has played, the
caller is heard again while the tool runs: talking over the bot interrupts it as
``interruption=`` says.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    FunctionCallCancelFrame,
    FunctionCallResultFrame,
    FunctionCallsStartedFrame,
)
from pipecat.turns.user_mute import (
    BaseUserMuteStrategy,
    FirstSpeechUserMuteStrategy,
    MuteUntilFirstBotCompleteUserMuteStrategy,
)

__all__ = ["PROTECTABLE", "AnnounceLineUserMuteStrategy", "user_mute_strategies"]


class AnnounceLineUserMuteStrategy(BaseUserMuteStrategy):
    """Mutes the caller while the bot speaks during a tool call: the tool's announce line (and
    words of the same reply still playing when the call started).

    What the caller says while muted is dropped, as for any Pipecat user mute strategy.
    Unlike Pipecat's ``FunctionCallUserMuteStrategy``, which drops the caller's words for as long
    as any tool runs, the caller is heard again once the bot stops speaking: talking over a
    running tool then interrupts it (``interruption="cancel"``) or lets it finish
    (``"continue"``)."""

    def __init__(self) -> None:
        super().__init__()
        self._running: set[str] = set()
        self._bot_speaking = False

    async def process_frame(self, frame: Frame) -> bool:
        """Follows the tool calls and the bot's speaking state; True while both are on."""
        await super().process_frame(frame)
        if isinstance(frame, FunctionCallsStartedFrame):
            self._running.update(call.tool_call_id for call in frame.function_calls)
        elif isinstance(frame, (FunctionCallCancelFrame, FunctionCallResultFrame)):
            self._running.discard(frame.tool_call_id)
        elif isinstance(frame, BotStartedSpeakingFrame):
            self._bot_speaking = True
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self._bot_speaking = False
        return self._bot_speaking and bool(self._running)


PROTECTABLE: dict[str, type[BaseUserMuteStrategy]] = {
    "tool_calls": AnnounceLineUserMuteStrategy,
    "first_speech": FirstSpeechUserMuteStrategy,
    "first_reply": MuteUntilFirstBotCompleteUserMuteStrategy,
}
"""What ``protect`` names: what the bot says during a tool call (its announce line), the bot's
first speech, everything until the bot's first reply has played."""


def user_mute_strategies(protect: Iterable[str] = ("tool_calls",)) -> list[BaseUserMuteStrategy]:
    """Pipecat's user mute strategies that keep the caller from cutting off what ``protect``
    names (see :data:`PROTECTABLE`), one each, in order."""
    from hark._misuse import items, misuse

    example = 'user_mute_strategies(protect=["tool_calls"])'
    strategies: list[BaseUserMuteStrategy] = []
    for name in items("user_mute_strategies", "protect", protect, "a list of names", example):
        if not isinstance(name, str):
            raise misuse("user_mute_strategies", "protect's names", name, "a name (str)", example)
        kind = PROTECTABLE.get(name)
        if kind is None:
            known = ", ".join(f'"{n}"' for n in PROTECTABLE)
            raise ValueError(
                f"user_mute_strategies: {name!r} is not something to protect. Use one of {known}."
            )
        strategies.append(kind())
    return strategies
