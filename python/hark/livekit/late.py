"""The late results of ``continue`` tools whose reply was cut off, handed to the tool call each
belongs to.

``LiveCall.late_results()`` waits for every such tool still running and gives all their results
at once; :class:`LateResults` lets each waiting tool call take its own, exactly once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from hark import _core

__all__ = ["LateResults", "still_running"]


def still_running(name: str) -> str:
    """What the model reads for the tool ``name`` while it keeps running after its reply was cut
    off, as JSON text: the core's text for a ``continue`` tool (``hark._core.still_running``)."""
    return _core.still_running(name)


class LateResults:
    """The late results of one call, by tool name, first come first taken."""

    def __init__(self, live: Any) -> None:
        self._live = live
        self._ready: dict[str, deque[Any]] = {}
        self._lock = asyncio.Lock()

    async def take(self, name: str) -> Any | None:
        """The next late result of the tool ``name``: waits until it is in. ``None`` when the
        call has no late result of that tool coming."""
        async with self._lock:
            while not self._ready.get(name):
                results = await self._live.late_results()
                if not results:
                    return None
                for result in results:
                    self._ready.setdefault(result.tool, deque()).append(result)
            return self._ready[name].popleft()
