"""A ``hark.ToolRegistry`` as the tools of a plain Pipecat pipeline.

``tools_schema(registry)`` gives the ``ToolsSchema`` that ``LLMContext(tools=...)`` takes. Each
of its ``FunctionSchema`` objects carries a handler, so the LLM service registers it when the
context reaches it; the handler runs the call through Hark's core (checks, refusals, announce
line, the tool, its output, assign rows, reply rows) and hands the model's text to Pipecat.
``attach_call(tools, llm=llm)`` binds the call to the LLM service from the start: an unknown
tool name then gets Hark's text from the first call, and Pipecat's own guidance about background
tools stays out of the system prompt.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from pipecat.adapters.llm.schemas.direct_function import tool_options
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import EndWorkerFrame, FunctionCallResultProperties
from pipecat.services.llm_service import FunctionCallParams

from hark._core import ToolRegistry, failed_before_completing
from hark._misuse import expect, misuse
from hark.pipecat.arguments import hand_unparsed_calls_to_hark, raw_arguments
from hark.pipecat.prompt import keep_background_guidance_out
from hark.pipecat.results import for_aggregator
from hark.pipecat.speech import PipecatSpeech

__all__ = ["HarkTools", "PipecatCall", "attach_call", "tools_schema"]

logger = logging.getLogger("hark.pipecat")

END_REASON = "hark: a tool ended the conversation"
"""The reason on the ``EndWorkerFrame`` a tool that ends the conversation sends."""


def is_hark_handler(handler: Any) -> bool:
    """True for a handler :func:`tools_schema` made (Pipecat's registry holds it)."""
    return getattr(handler, "_hark_tool", False) is True


class PipecatCall:
    """One call of a ``ToolRegistry`` in a Pipecat pipeline: the ``LiveCall``, its speech, and
    the handler every tool call of the registry runs."""

    def __init__(
        self,
        registry: Any,
        *,
        state: object | None,
        call: object | None,
        language: str,
        timezone: str | None,
    ) -> None:
        self.registry = registry
        self.speech = PipecatSpeech()
        self.live = registry.start_call(
            self.speech, state=state, call=call, language=language, timezone=timezone
        )
        self._bound: tuple[Any, Any] | None = None
        self._ended = False

    def bind(self, llm: Any, worker: Any = None) -> None:
        """Speaks through ``llm`` and follows the bot's speaking state in ``worker``; registers
        the handler for tool names the registry does not hold (Hark's unknown-tool text), unless
        ``llm`` has a catch-all handler already."""
        self.speech.bind(llm, worker)
        hand_unparsed_calls_to_hark(llm, is_hark_handler)
        if not llm.has_function(None):
            llm.register_function(None, self._handler(None))
        self._bound = (llm, worker)

    def _handler(self, name: str | None) -> Any:
        async def run_hark_tool(params: FunctionCallParams) -> None:
            await self.handle(params)

        run_hark_tool._hark_tool = True  # type: ignore[attr-defined]
        if name is not None and self.registry.keeps_running(name):
            tool_options(run_hark_tool, cancel_on_interruption=False)
        return run_hark_tool

    async def handle(self, params: FunctionCallParams) -> None:
        """Runs one tool call and gives Pipecat its result, exactly once.

        A refusal or a failure is the model's text and the model replies to it; after a reply
        row the model is not run again; a call that ends the conversation ends the pipeline
        once the bot has stopped speaking. When Pipecat cancels the call (an interruption), the
        running tool is cancelled and Pipecat tells the model."""
        if self._ended:
            # Tools built once and handed to a second pipeline: their call ended with the first.
            # The model reads Hark's failure; the developer reads the fix.
            logger.error(
                "hark.pipecat: %s was called after its call ended (these tools were built for a "
                "pipeline whose call was closed). Build them for each call: "
                "tools = tools_schema(registry) where the pipeline is built.",
                params.function_name,
            )
            await params.result_callback(
                for_aggregator(json.loads(failed_before_completing(params.function_name)))
            )
            return
        bound = self._bound
        if bound is None or bound[0] is not params.llm or bound[1] is not params.pipeline_worker:
            self.bind(params.llm, params.pipeline_worker)
        arguments = params.arguments
        unparsed = raw_arguments(arguments)
        if unparsed is not None:
            # Text Pipecat could not parse: the core repairs it or refuses it.
            arguments = unparsed
        elif not isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        generation = self.live.generation()
        try:
            # What `live.run` does, without its coroutine: the handler is on the loop already.
            # The core's future when the call waits for something, else the result itself.
            started = self.live._start_run(params.function_name, arguments, generation)
            result = await started if isinstance(started, asyncio.Future) else started
        except asyncio.CancelledError:
            generation.interrupt()
            raise
        if result is None:
            # The generation was discarded before the call started: nothing ran.
            await params.result_callback(
                for_aggregator("CANCELLED"), properties=FunctionCallResultProperties(run_llm=False)
            )
            return
        ends = result.ends_conversation
        properties = None
        if ends or not result.ask_model_reply:
            properties = FunctionCallResultProperties(run_llm=False)
        await params.result_callback(for_aggregator(result.model_result), properties=properties)
        if ends:
            await self.speech.wait_playout()
            await params.llm.push_frame(EndWorkerFrame(reason=END_REASON))

    def function_schemas(self) -> list[FunctionSchema]:
        """A ``FunctionSchema`` with its handler for every tool of the registry, in order."""
        schemas = []
        for definition in self.registry.definitions(dialect="openai"):
            function = definition.get("function", definition)
            parameters = function.get("parameters") or {}
            schemas.append(
                FunctionSchema(
                    function["name"],
                    function.get("description", ""),
                    dict(parameters.get("properties") or {}),
                    list(parameters.get("required") or []),
                    handler=self._handler(function["name"]),
                )
            )
        return schemas

    async def close(self) -> None:
        """The end of the call: background webhooks finish."""
        self._ended = True
        await self.live.close()


class HarkTools(ToolsSchema):
    """The ``ToolsSchema`` of a ``ToolRegistry``, from :func:`tools_schema`; ``call`` is the
    call its handlers run in."""

    def __init__(self, call: PipecatCall) -> None:
        self.call = call
        super().__init__(standard_tools=call.function_schemas())


def tools_schema(
    registry: Any,
    *,
    state: object | None = None,
    call: object | None = None,
    language: str = "en",
    timezone: str | None = None,
) -> HarkTools:
    """The tools of ``registry`` as ``LLMContext(tools=...)`` takes them, for one call.

    ``state`` is the call state and ``call`` what the call carries (``{"session_id": ...}``),
    needed only when a tool reads them. Reply lines say dates and times in ``language`` (a
    BCP 47 tag) and ``timezone`` (an IANA zone; ``ValueError`` otherwise). A tool whose
    ``interruption`` is ``"continue"`` is registered with ``cancel_on_interruption=False``, the
    others with Pipecat's default (cancelled when the caller talks over the bot)."""
    example = "tools_schema(ToolRegistry([local_tool(book_table)]))"
    expect("tools_schema", "registry", registry, ToolRegistry, "a ToolRegistry", example)
    expect("tools_schema", "language", language, str, "a BCP 47 tag (str)", 'tools_schema(registry, language="en-US")')
    expect(
        "tools_schema", "timezone", timezone, str, "an IANA timezone (str)",
        'tools_schema(registry, timezone="Europe/Madrid")', optional=True,
    )
    live = PipecatCall(registry, state=state, call=call, language=language, timezone=timezone)
    return HarkTools(live)


def attach_call(tools: HarkTools, *, llm: Any, worker: Any = None) -> PipecatCall:
    """Binds the call of ``tools`` (from :func:`tools_schema`) to ``llm`` before its first tool
    call, and returns it.

    Pipecat's guidance about background tools stays out of ``llm``'s system prompt while
    Hark's tools are its only ones that keep running (a tool of your own registered with
    ``cancel_on_interruption=False`` brings it back); a tool name the registry does not hold
    gets Hark's text; ``worker`` (the ``PipelineWorker``) lets the call follow the bot's
    speaking state from the start; a call whose arguments are not JSON, which Pipecat would
    drop before any handler runs, reaches Hark, which repairs it as its own agent does or
    refuses it, so the model reads why and runs again (``hark.pipecat.arguments``).
    ``await call.close()`` when the call ends."""
    if not isinstance(tools, HarkTools):
        raise misuse(
            "attach_call", "tools", tools, "what tools_schema(registry) returned",
            "tools = tools_schema(registry); LLMContext(tools=tools); attach_call(tools, llm=llm)",
        )
    if tools.call._ended:
        raise RuntimeError(
            "attach_call: the call of these tools was closed (call.close()), so they no longer "
            "run. Build them for each call: tools = tools_schema(registry), then "
            "attach_call(tools, llm=llm)."
        )
    tools.call.bind(llm, worker)
    keep_background_guidance_out(llm, is_hark_handler)
    return tools.call
