"""Keeps Pipecat's guidance about background tools out of the system prompt.

Pipecat 1.14 adds its "ASYNC TOOLS:" text to an LLM service's system instruction whenever a
tool is registered with ``cancel_on_interruption=False``. A Hark tool whose interruption is
``"continue"`` is registered that way, yet the model should read the same prompt as on LiveKit.
So the service's check for such tools leaves Hark's out: the guidance comes back as soon as a
tool of another kind keeps running, and then covers them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["keep_background_guidance_out"]


def keep_background_guidance_out(llm: Any, is_hark_handler: Callable[[Any], bool]) -> None:
    """Makes ``llm`` count only tools whose handler is not Hark's (``is_hark_handler``) when it
    decides whether its system prompt needs Pipecat's background-tool guidance.

    The check is ``LLMService._has_async_tools``, which Pipecat calls each time it composes the
    system instruction (on every context frame); it is replaced on this instance only."""
    functions = getattr(llm, "_functions", None)
    if not isinstance(functions, dict) or not callable(getattr(llm, "_has_async_tools", None)):
        raise TypeError(
            f"attach_call: {type(llm).__name__} is not a Pipecat 1.14 LLM service "
            "(it has no tool registry); pass the LLMService the pipeline runs."
        )

    def has_background_tools_of_its_own() -> bool:
        return any(
            not item.cancel_on_interruption and not is_hark_handler(item.handler)
            for item in llm._functions.values()
        )

    llm._has_async_tools = has_background_tools_of_its_own
