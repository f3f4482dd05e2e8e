"""Tool calls whose arguments Pipecat cannot parse reach Hark instead of being dropped.

Pipecat 1.14's OpenAI-compatible LLM service (``BaseOpenAILLMService._process_context``)
assembles each tool call from the stream, then ``json.loads`` its arguments; a call whose text
does not parse is logged ("Failed to parse function call arguments") and skipped before any
handler runs, so the model gets no result and the turn goes silent. A small model's
``{"day": "friday",}`` is lost the same way, though Hark's core would repair it.

:func:`hand_unparsed_calls_to_hark` wraps the service's ``get_chat_completions`` on one instance:
the tool-call pieces of the stream are held until it ends (Pipecat runs no call before then), and
a call to one of Hark's tools whose text ``json.loads`` refuses is handed on as the object
``{RAW_ARGUMENTS: text}``, which parses. Hark's handler (:func:`raw_arguments`) gives the text
to the core, which repairs what can be repaired and refuses the rest in its own words
(``The arguments of book_table must be a JSON object of named arguments. ...``); the model reads
that result and runs again. Calls to other handlers, and calls whose text parses, are streamed
on as they came.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["RAW_ARGUMENTS", "hand_unparsed_calls_to_hark", "raw_arguments"]

RAW_ARGUMENTS = "__hark_unparsed_arguments__"
"""The key of the object that carries a call's unparsed arguments text to Hark's handler."""


def raw_arguments(arguments: Any) -> str | None:
    """The unparsed text of a call's arguments, when :func:`hand_unparsed_calls_to_hark` carried
    it; else ``None``."""
    if isinstance(arguments, dict) and len(arguments) == 1:
        text = arguments.get(RAW_ARGUMENTS)
        if isinstance(text, str):
            return text
    return None


def hand_unparsed_calls_to_hark(llm: Any, is_hark_handler: Callable[[Any], bool]) -> None:
    """Makes ``llm`` (an OpenAI-compatible Pipecat 1.14 LLM service) hand a call to Hark's tools
    whose arguments are not JSON to Hark's handler instead of dropping it. Once per instance;
    a service without ``get_chat_completions`` (another provider's) is left as it is."""
    completions = getattr(llm, "get_chat_completions", None)
    if completions is None or getattr(completions, "_hark_unparsed", False):
        return

    def handled_by_hark(name: str) -> bool:
        functions = getattr(llm, "_functions", {})
        item = functions.get(name) or functions.get(None)
        return item is not None and is_hark_handler(item.handler)

    async def get_chat_completions(context: Any) -> Any:
        return _HeldToolCalls(await completions(context), handled_by_hark)

    get_chat_completions._hark_unparsed = True  # type: ignore[attr-defined]
    llm.get_chat_completions = get_chat_completions


class _HeldToolCalls:
    """The service's chunk stream with its tool-call chunks held to the end, then streamed on
    with unparsed arguments rewritten; ``close``/``aclose`` reach the stream."""

    def __init__(self, stream: Any, handled_by_hark: Callable[[str], bool]) -> None:
        self._stream = stream
        self._handled_by_hark = handled_by_hark

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[Any]:
        held: list[Any] = []
        async for chunk in self._stream:
            choices = getattr(chunk, "choices", None)
            delta = choices[0].delta if choices else None
            if delta is not None and delta.tool_calls:
                held.append(chunk)
            else:
                yield chunk
        for chunk in self._rewritten(held):
            yield chunk

    def _rewritten(self, held: list[Any]) -> list[Any]:
        # Grouped as Pipecat groups them: by the index of each chunk's first tool call.
        groups: list[list[Any]] = []
        for chunk in held:
            index = chunk.choices[0].delta.tool_calls[0].index
            if groups and groups[-1][0].choices[0].delta.tool_calls[0].index == index:
                groups[-1].append(chunk)
            else:
                groups.append([chunk])
        out: list[Any] = []
        for group in groups:
            name = "".join(
                c.choices[0].delta.tool_calls[0].function.name or ""
                for c in group
                if c.choices[0].delta.tool_calls[0].function
            )
            text = "".join(
                c.choices[0].delta.tool_calls[0].function.arguments or ""
                for c in group
                if c.choices[0].delta.tool_calls[0].function
            )
            if not name or _parses(text or "{}") or not self._handled_by_hark(name):
                out.extend(group)
                continue
            calls = [c.choices[0].delta.tool_calls[0] for c in group]
            first = next(i for i, c in enumerate(calls) if c.function is not None)
            one = group[first].model_copy(deep=True)
            tool_call = one.choices[0].delta.tool_calls[0]
            tool_call.id = next((c.id for c in calls if c.id), None)
            tool_call.function.name = name
            tool_call.function.arguments = json.dumps({RAW_ARGUMENTS: text})
            out.append(one)
        return out

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()

    async def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            await close()


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False
    return True
