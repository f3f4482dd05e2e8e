"""A tool call's result as Pipecat's context aggregator takes it.

The aggregator ``json.dumps`` a result into the tool message, but only a truthy one: an empty
result (``{}``, ``[]``, ``""``, ``0``) becomes the text ``COMPLETED`` and runs no model reply.
Hark's model result is passed as the JSON value it is, wrapped so that an empty one stays
truthy: the model reads ``{}`` for ``{}``, and the model reply follows as for any result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["for_aggregator"]


class _Object(dict):
    """A JSON object that is truthy even when empty."""

    def __bool__(self) -> bool:
        return True


class _Array(list):
    """A JSON array that is truthy even when empty."""

    def __bool__(self) -> bool:
        return True


class _Text(str):
    """A JSON string that is truthy even when empty."""

    def __bool__(self) -> bool:
        return True


class _Integer(int):
    """A JSON integer that is truthy even when zero."""

    def __bool__(self) -> bool:
        return True


class _Number(float):
    """A JSON number that is truthy even when zero."""

    def __bool__(self) -> bool:
        return True


def for_aggregator(value: Any) -> Any:
    """``value`` (a JSON value) as a result the aggregator encodes as it is, empty or not.

    ``False`` and ``None`` cannot be made truthy: they are passed as the JSON texts
    ``"false"`` / ``"null"`` would read, a string the model reads in quotes."""
    if value is None or value is False:
        return _Text("null" if value is None else "false")
    if value is True or value:
        return value
    if isinstance(value, dict):
        return _Object(value)
    if isinstance(value, list):
        return _Array(value)
    if isinstance(value, str):
        return _Text(value)
    if isinstance(value, int):
        return _Integer(value)
    if isinstance(value, float):
        return _Number(value)
    return value
