"""A ``hark.ToolRegistry`` as the tools of a plain LiveKit ``Agent``.

``function_tools(registry)`` gives one raw-schema ``function_tool`` per tool of the registry, with
the schema Hark normalised (LiveKit passes a raw schema through to OpenAI, Anthropic and Google
as it is). Each call runs through Hark's core (checks, refusals, announce line, the tool, its
output, assign rows, reply rows); the model reads Hark's text, as JSON text.

How a call ends in LiveKit's terms:

- a result: ``ToolResult(text)``;
- a refusal or a failure: LiveKit's ``ToolError(text)``, so LiveKit records an error output
  (``FunctionCallOutput.is_error``) whose text is Hark's JSON as it is (the model never reads
  LiveKit's "An internal error occurred", which any other exception would give);
- a reply row spoken, or a missing-argument refusal after a reply that already spoke: the text
  stays in the history with no model reply (``ToolResult(text, reply_required=False)``; for a
  refusal, its error output is marked ``reply_required=False`` when LiveKit reports the step's
  outputs in ``function_tools_executed``, as ``ToolError`` takes no such flag);
- a reply cut off while a tool runs: LiveKit never cancels it (``interruption`` left at
  ``provider_default`` or ``"continue"``): the model reads Hark's still-running text at once
  (``RunContext.update``), and the tool's result comes later in a reply of its own, once; a
  tool with ``interruption="cancel"`` is cancelled, and the model reads that it was;
- a tool that ends the conversation: no model reply, and the session closes once the reply's
  speech has played out.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from livekit.agents import RunContext, function_tool
from livekit.agents.llm import RawFunctionTool, ToolError, ToolResult

from hark import replies_to
from hark._core import failed_before_completing
from hark.livekit.job import call_values, current_job
from hark.livekit.late import LateResults, still_running
from hark.livekit.speech import LiveKitSpeech

__all__ = ["HarkFunctionTools", "LiveKitCall", "function_tools"]

logger = logging.getLogger("hark.livekit")

UPDATE_TEMPLATE = "{message}"
"""The template of the still-running update: the model reads Hark's text as it is."""


class LiveKitCall:
    """One call of a ``ToolRegistry`` in a LiveKit agent: the ``LiveCall`` (bound to the
    ``AgentSession`` of its first tool call), its speech, and the late results of its
    ``continue`` tools."""

    def __init__(
        self,
        registry: Any,
        *,
        state: object | None,
        call: object | None,
        language: str,
        timezone: str | None,
        job: Any | None = None,
    ) -> None:
        self.registry = registry
        self._job = job
        self.speech = LiveKitSpeech()
        self._state, self._call, self._hooks = _split_call(state, call)
        self._session: Any | None = None
        # Call ids of error outputs the model must not reply to (see _on_tools_executed).
        self._no_reply: set[str] = set()
        self._job_values = self._call is None and not _is_call_state(self._state)
        # Started now, so a bad option raises here rather than at the first tool call.
        self.live = registry.start_call(
            self.speech,
            state=self._state,
            call=self._call,
            language=language,
            timezone=timezone,
            hooks=self._hooks,
        )
        self._late = LateResults(self.live)
        self._closing: asyncio.Future[int] | None = None
        self._ended = False

    def _bind(self, context: RunContext[Any]) -> Any:
        """The call's ``LiveCall``, bound to ``context``'s session (the first time: what the
        LiveKit job carries becomes the call values, and closing the session closes the call)."""
        session = context.session
        if self._session is not session:
            self._session = session
            if self._job_values:
                self._job_values = False
                try:
                    values = call_values(session, self._job)
                    if values:
                        self.live.state.set_call(values)
                except Exception:
                    # The call goes on without them; a template that reads one is refused.
                    logger.exception("hark.livekit: could not read the call values of the job")
            session.on("close", self._on_close)
            session.on("function_tools_executed", self._on_tools_executed)
            job = current_job(self._job)
            if job is not None:
                # The job's process waits for its shutdown callbacks: webhooks finish first.
                job.add_shutdown_callback(self.close)
        self.speech.bind(context)
        return self.live

    def _on_tools_executed(self, event: Any) -> None:
        """LiveKit reports a step's outputs before it decides whether the model replies: the
        error outputs of refusals that get no model reply are marked so here."""
        if not self._no_reply:
            return
        for output in event.function_call_outputs:
            if output.call_id in self._no_reply:
                self._no_reply.discard(output.call_id)
                output.reply_required = False

    def _on_close(self, _event: Any) -> None:
        self._closing = asyncio.ensure_future(self.close())

    @property
    def closing(self) -> asyncio.Future[int] | None:
        """The end of the call the session's close started (``None`` while the session is
        open): done once background webhooks have finished, with how many were still running
        after ten seconds."""
        return self._closing

    async def handle(
        self, name: str, arguments: dict[str, Any], context: RunContext[Any]
    ) -> ToolResult:
        """Runs one tool call and gives LiveKit what the model reads (see the module doc)."""
        if self._ended:
            # Tools built once and handed to a second session: their call ended with the first.
            # The model reads Hark's failure (never LiveKit's "An internal error occurred"); the
            # developer reads the fix.
            logger.error(
                "hark.livekit: %s was called after its call ended (these tools were built for a "
                "session that closed). Build the tools for each session: "
                "tools = function_tools(registry) inside the entrypoint, then Agent(tools=tools).",
                name,
            )
            raise ToolError(failed_before_completing(name))
        live = self._bind(context)
        generation = live.generation()
        # The reply reached its tool call, so the call is never discarded unstarted.
        generation.mark_spoken()
        run = asyncio.ensure_future(live.run(name, arguments, generation))
        reply = context.speech_handle
        try:
            await reply.wait_if_not_interrupted([run])
            if not run.done() and reply.interrupted:
                if self._interruption(name) == "provider_default":
                    # LiveKit's rule: the tool keeps running, the model reads so now, and the
                    # result LiveKit gets when it returns comes in a reply of its own.
                    await context.update(still_running(name), template=UPDATE_TEMPLATE)
                else:
                    # "continue": Hark's core keeps it running; "cancel": the core cancels it.
                    generation.interrupt()
            result = await run
        except asyncio.CancelledError:
            run.cancel()
            raise
        if result is not None:
            self.speech.settle(result.announced, result.said, context.function_call)
        if result is None:
            # Not reached on LiveKit (the generation is marked spoken); kept for the contract.
            return ToolResult("", reply_required=False)
        if result.status == "still_running":
            await context.update(result.model_text, template=UPDATE_TEMPLATE)
            late = await self._late.take(name)
            if late is None:
                return ToolResult(result.model_text, reply_required=False)
            result = late
            self.speech.settle(result.announced, result.said, context.function_call)
        if result.ends_conversation:
            self._end_after(context)
            return ToolResult(result.model_text, reply_required=False)
        replies = await self._replies(result, context)
        if result.status in ("refused", "failed"):
            if not replies:
                self._no_reply.add(context.function_call.call_id)
            raise ToolError(result.model_text)
        return ToolResult(result.model_text, reply_required=replies)

    async def _replies(self, result: Any, context: RunContext[Any]) -> bool:
        """Whether the model replies to ``result``. For a refusal, the reply that made the call
        is waited for first (``RunContext.wait_for_playout``): when it said something, it asked
        the caller, and a missing-argument refusal gets no model reply
        (``replies_to(result, spoke=True)``)."""
        if not result.ask_model_reply or result.status != "refused":
            return result.ask_model_reply
        if not self.speech.reply_spoke():
            await context.wait_for_playout()
        return replies_to(result.model_result, spoke=self.speech.reply_spoke())

    def _interruption(self, name: str) -> str:
        spec = self.registry.get(name)
        return spec.interruption if spec is not None else "provider_default"

    def _end_after(self, context: RunContext[Any]) -> None:
        """Closes the session once the reply's speech has played out (the goodbye was said and
        played out before the tool ran); in a LiveKit job, the job ends with it."""
        session = context.session

        def closed(_event: Any) -> None:
            job = current_job(self._job)
            if job is not None:
                job.shutdown(reason="hark: a tool ended the conversation")

        def played_out(_handle: Any) -> None:
            session.once("close", closed)
            session.shutdown()

        context.speech_handle.add_done_callback(played_out)

    def function_tools(self) -> list[RawFunctionTool]:
        """A raw-schema ``function_tool`` for every tool of the registry, in order."""
        tools = []
        for definition in self.registry.definitions(dialect="openai"):
            schema = dict(definition.get("function", definition))
            tools.append(function_tool(self._handler(schema["name"]), raw_schema=schema))
        return tools

    def _handler(self, name: str) -> Any:
        async def run_hark_tool(raw_arguments: dict[str, object], context: RunContext) -> Any:
            return await self.handle(name, raw_arguments, context)

        run_hark_tool.__name__ = name
        return run_hark_tool

    async def close(self) -> int:
        """The end of the call: background webhooks finish (ten seconds at most). Returns how
        many were still running then. Closing the session does this too."""
        self._ended = True
        return await self.live.close()


class HarkFunctionTools(list):
    """The tools :func:`function_tools` gives, a plain list for ``Agent(tools=...)``;
    ``call`` is the call they run in."""

    def __init__(self, call: LiveKitCall) -> None:
        self.call = call
        super().__init__(call.function_tools())


def _is_call_state(value: object) -> bool:
    from hark import CallState

    return isinstance(value, CallState)


def _split_call(state: object | None, call: object | None) -> tuple[Any, Any, Any]:
    """``(state, call values, hooks)`` from ``function_tools``' ``state=`` and ``call=``.

    ``call`` is the call's ``CallHooks``, a ``CallState`` or the call values (a dict). Without
    ``state``, the tools take the state of ``call``: the ``CallState`` itself, or the ``state``
    a hooks object carries."""
    from hark import CallHooks, CallState

    hooks = None
    if isinstance(call, CallHooks):
        hooks, call = call, None
    if state is None and isinstance(call, CallState):
        state, call = call, None
    if state is None and hooks is not None:
        state = getattr(hooks, "state", None)
    if call is not None and not isinstance(call, dict):
        raise TypeError(
            f"function_tools(call=...) takes the call's CallHooks, a CallState or a dict of "
            f"call values ({{'session_id': ...}}), not {type(call).__name__}."
        )
    return state, call, hooks


def function_tools(
    registry: Any,
    *,
    state: object | None = None,
    call: object | None = None,
    language: str = "en",
    timezone: str | None = None,
    job: Any | None = None,
) -> HarkFunctionTools:
    """The tools of ``registry`` as ``Agent(tools=...)`` or ``agent.update_tools(...)`` takes
    them, for one call.

    ``state`` is the call state (a ``CallState``, a State model instance or a dict) and ``call``
    the call's ``CallHooks``, a ``CallState`` (then its state is the tools' state) or the call
    values; without call values, the LiveKit job gives them (the room's name as
    ``call.session_id``, the participant's identity as ``call.participant``, a SIP caller's
    number as ``call.remote_number`` and the SIP call id as ``call.carrier_call_id``). Reply lines say dates
    and times in ``language`` (a BCP 47 tag) and ``timezone`` (an IANA zone; ``ValueError``
    otherwise). ``job`` is the entrypoint's ``JobContext``; by default, the job this code runs
    in."""
    from hark._core import ToolRegistry
    from hark._misuse import expect

    example = "function_tools(ToolRegistry([local_tool(book_table)]))"
    expect("function_tools", "registry", registry, ToolRegistry, "a ToolRegistry", example)
    expect("function_tools", "language", language, str, "a BCP 47 tag (str)", 'function_tools(registry, language="en-US")')
    expect(
        "function_tools", "timezone", timezone, str, "an IANA timezone (str)",
        'function_tools(registry, timezone="Europe/Madrid")', optional=True,
    )
    return HarkFunctionTools(
        LiveKitCall(
            registry, state=state, call=call, language=language, timezone=timezone, job=job
        )
    )
