"""The adapter-neutral call contract: how a framework adapter drives a call through Hark's core.

The adapters (``hark.pipecat`` today, ``hark.livekit`` next) use only what this module names. It
mirrors Rust's ``hark_tools::{LiveCall, Generation, ToolRegistry::call_live, CallResult,
Speech}``; the implementation lives in the ``hark._core`` extension, and these Protocols are what
the adapters type against.

One call::

    live = registry.start_call(speech, state=None, call=None, language="en", timezone=None)
    generation = live.generation()          # one per model reply
    result = await live.run("book_table", '{"day": "2026-10-16"}', generation)
    if result is None:                      # interrupted before the call started: never ran
        ...
    await live.close()                      # end of the call: background webhooks finish

Errors: a bad call from Python (an unknown option, a wrong type) raises ``TypeError`` or
``ValueError`` with a text saying what to do. A tool's own failure never raises out of ``run``:
it becomes the text the model reads (``CallResult.model_text``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Speech", "Generation", "LiveCall", "CallResult", "CallRegistry"]


@runtime_checkable
class Speech(Protocol):
    """The call's voice, implemented by the adapter (a Pipecat pipeline, a LiveKit session)."""

    async def say(self, line: str) -> None:
        """Queue ``line`` to be spoken (an announce line, a reply row, a goodbye).

        Returns once the line is queued, not once it has played.
        """
        ...

    async def wait_playout(self) -> None:
        """Return when the bot has stopped speaking (everything queued has played or was cut off).

        Used for ``announce_wait=True``: the core waits for this before the tool runs. An adapter
        on Pipecat waits at most 30 seconds.
        """
        ...

    def reply_spoke(self) -> bool:
        """True when the bot said anything since the tool call began (the reply that made it).

        Then an ``ArgumentsMissing`` refusal gets no model reply: the caller answers next.
        """
        ...


@runtime_checkable
class CallResult(Protocol):
    """What one tool call did, for the adapter. Read-only."""

    @property
    def model_result(self) -> object:
        """What the model reads, as a JSON value (a dict, a str, ...)."""
        ...

    @property
    def model_text(self) -> str:
        """``model_result`` as the exact text to put in the tool message."""
        ...

    @property
    def announced(self) -> list[str]:
        """The lines spoken before the tool ran (an announce line; empty when none was)."""
        ...

    @property
    def said(self) -> list[str]:
        """The reply rows spoken after the tool ran. When set, no model request follows."""
        ...

    @property
    def ask_model_reply(self) -> bool:
        """False when a reply row was spoken (or a missing-argument refusal came after a reply
        that already spoke): the adapter must not run the LLM again for this call."""
        ...

    @property
    def ends_conversation(self) -> bool:
        """True when the adapter must end the call after the last line has played."""
        ...

    @property
    def succeeded(self) -> bool:
        """True when the tool ran and its result fits its output."""
        ...

    @property
    def state(self) -> dict[str, Any]:
        """The call state's values after the call."""
        ...


@runtime_checkable
class Generation(Protocol):
    """One model reply and the tool calls in it. Make one per reply with ``live.generation()``."""

    def interrupt(self) -> None:
        """The caller talked over the bot.

        Running calls whose interruption is not ``"continue"`` are cancelled (the model reads
        that they were cancelled); a generation interrupted before any call of it started is
        discarded: ``live.run`` then returns ``None`` and the tool never runs.
        """
        ...


@runtime_checkable
class LiveCall(Protocol):
    """One call in progress, from ``registry.start_call(...)``."""

    def generation(self) -> Generation:
        """A new generation: one per model reply."""
        ...

    async def run(
        self, name: str, arguments: str | dict[str, Any] | None, generation: Generation
    ) -> CallResult | None:
        """Run one tool call of ``generation`` through Hark's core.

        ``arguments`` is the model's JSON text, an already-parsed dict, or ``None`` (no
        arguments). The core checks, refuses, fills locked values, says the announce line, runs
        the tool, checks its output, saves assign rows and says a reply row. Returns ``None``
        when the generation was interrupted before the call started (discarded, never run).
        Cancelling the asyncio task awaiting this cancels the running tool.
        """
        ...

    async def late_results(self) -> list[CallResult]:
        """The results of ``continue`` tools whose reply was cut off, each exactly once; the
        adapter adds them to the next request."""
        ...

    async def close(self) -> None:
        """The end of the call: background work (webhooks that do not wait) finishes."""
        ...


@runtime_checkable
class CallRegistry(Protocol):
    """What an adapter uses of a ``hark.ToolRegistry``."""

    def start_call(
        self,
        speech: Speech,
        *,
        state: object | None = None,
        call: object | None = None,
        language: str = "en",
        timezone: str | None = None,
        hooks: object | None = None,
        now: str | None = None,
    ) -> LiveCall:
        """Start a call that speaks through ``speech``.

        ``state`` is the call state (a ``CallState``, a State model instance or a dict),
        ``call`` what the call carries (``{"session_id": ..., "remote_number": ...}``; a
        ``CallHooks`` given here is taken as ``hooks``), ``language`` a BCP 47 tag and
        ``timezone`` an IANA zone name (``ValueError`` otherwise). ``hooks`` are the call's
        ``CallHooks`` (tool hooks, background work that ``close`` lets finish); ``now`` fixes
        the instant "today" is read from (RFC 3339; tests and replays).
        """
        ...

    def definitions(self, dialect: str = "openai") -> list[dict[str, Any]]:
        """The tool definitions in a provider's dialect (``"openai"``, ``"anthropic"``,
        ``"gemini"``, as in hark-schema)."""
        ...

    def keeps_running(self, name: str) -> bool:
        """True when the tool's interruption is ``"continue"`` (an unknown name gives False)."""
        ...

    def for_model(self, name: str, result: object) -> str:
        """What the model reads for a ``result`` of the tool ``name`` (after ``show_result`` and
        ``hidden``), as text."""
        ...

    def __contains__(self, name: object) -> bool:
        """True when the registry has a tool of this name."""
        ...
