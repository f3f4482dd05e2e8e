"""What the caller cannot cut off: Pipecat's user mute strategies, by name.

``user_mute_strategies(protect=["tool_calls"])`` goes into
``LLMUserAggregatorParams(user_mute_strategies=...)``: while a tool call runs, its announce line
among it, the caller's speech does not interrupt the bot.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipecat.turns.user_mute import (
    BaseUserMuteStrategy,
    FirstSpeechUserMuteStrategy,
    FunctionCallUserMuteStrategy,
    MuteUntilFirstBotCompleteUserMuteStrategy,
)

__all__ = ["PROTECTABLE", "user_mute_strategies"]

PROTECTABLE: dict[str, type[BaseUserMuteStrategy]] = {
    "tool_calls": FunctionCallUserMuteStrategy,
    "first_speech": FirstSpeechUserMuteStrategy,
    "first_reply": MuteUntilFirstBotCompleteUserMuteStrategy,
}
"""What ``protect`` names: a running tool call (its announce line among it), the bot's first
speech, everything until the bot's first reply has played."""


def user_mute_strategies(protect: Iterable[str] = ("tool_calls",)) -> list[BaseUserMuteStrategy]:
    """Pipecat's user mute strategies that keep the caller from cutting off what ``protect``
    names (see :data:`PROTECTABLE`), one each, in order."""
    if isinstance(protect, str):
        raise TypeError(
            f'user_mute_strategies: protect is a list of names, like protect=["{protect}"]'
        )
    strategies: list[BaseUserMuteStrategy] = []
    for name in protect:
        kind = PROTECTABLE.get(name)
        if kind is None:
            known = ", ".join(f'"{n}"' for n in PROTECTABLE)
            raise ValueError(
                f"user_mute_strategies: {name!r} is not something to protect. Use one of {known}."
            )
        strategies.append(kind())
    return strategies
