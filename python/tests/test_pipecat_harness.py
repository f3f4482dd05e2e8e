"""A real Pipecat 1.14 pipeline for the adapter's tests, proved here with a plain Pipecat function.

The pipeline is what a Pipecat bot runs: a ``PipelineWorker`` run by a ``WorkerRunner``, Pipecat's
universal context aggregator pair over an ``LLMContext``, and ``OpenAILLMService`` (configured
with its ``Settings``) pointed at the scripted OpenAI server on loopback. Where a TTS service and
an output transport would be, a :class:`SpeakingRecorder` records every frame and plays the part
of the transport's speaking state: text reaching it is "spoken" for ``speak_secs`` seconds,
framed by ``BotStartedSpeakingFrame`` / ``BotStoppedSpeakingFrame`` pushed both ways as
``BaseOutputTransport`` pushes them, and an interruption stops it at once. It turns no text into
audio, so no spoken text is appended to the context.

User turns are injected as a speech-to-text service with its own turn detection sends them
(``ProposedUserStartedSpeakingFrame``, ``TranscriptionFrame``, ``ProposedUserStoppedSpeakingFrame``
under ``ExternalUserTurnStrategies``): the user aggregator resolves them into a turn and, when the
user starts speaking, broadcasts Pipecat's own ``InterruptionFrame``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMTextFrame,
    ProposedUserStartedSpeakingFrame,
    ProposedUserStoppedSpeakingFrame,
    TranscriptionFrame,
    TTSSpeakFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.turns.user_mute.base_user_mute_strategy import BaseUserMuteStrategy
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies
from pipecat.utils.time import time_now_iso8601
from pipecat.workers.runner import WorkerRunner
from scripted_openai import ScriptedOpenAI, calls, openai_server, text  # noqa: F401 (fixture)

SYSTEM = "You take table bookings for Bistro Lumen."


class SpeakingRecorder(FrameProcessor):
    """Records every frame that reaches it and plays the transport's speaking state."""

    def __init__(self, log: list[str], speak_secs: float) -> None:
        super().__init__()
        self.frames: list[tuple[float, FrameDirection, Frame]] = []
        self.log = log
        self.speak_secs = speak_secs
        self.speaking = False
        self._protected = False
        self._until = 0.0
        self._timer: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Records the frame, speaks text, stops speaking on an interruption, passes it on."""
        await super().process_frame(frame, direction)
        self.frames.append((time.monotonic(), direction, frame))
        await self.push_frame(frame, direction)
        if direction != FrameDirection.DOWNSTREAM:
            return
        if isinstance(frame, TTSSpeakFrame):
            self.log.append(f"say:{frame.text}")
            await self._speak(protected=not frame.interruptible)
        elif isinstance(frame, LLMTextFrame) and frame.text.strip():
            await self._speak(protected=False)
        elif isinstance(frame, InterruptionFrame) and self.speaking and not self._protected:
            await self._stop()

    async def _speak(self, protected: bool) -> None:
        self._until = max(self._until, time.monotonic()) + self.speak_secs
        self._protected = self._protected or protected
        if not self.speaking:
            self.speaking = True
            self.log.append("bot:started")
            await self.push_frame(BotStartedSpeakingFrame())
            await self.push_frame(BotStartedSpeakingFrame(), FrameDirection.UPSTREAM)
            self._timer = self.create_task(self._play_out())

    async def _play_out(self) -> None:
        while (left := self._until - time.monotonic()) > 0:
            await asyncio.sleep(left)
        self._timer = None
        await self._stop()

    async def _stop(self) -> None:
        if self._timer is not None:
            timer, self._timer = self._timer, None
            await self.cancel_task(timer)
        self.speaking = False
        self._protected = False
        self._until = 0.0
        self.log.append("bot:stopped")
        await self.push_frame(BotStoppedSpeakingFrame())
        await self.push_frame(BotStoppedSpeakingFrame(), FrameDirection.UPSTREAM)

    async def cleanup(self) -> None:
        """Stops the playout timer with the pipeline."""
        if self._timer is not None:
            timer, self._timer = self._timer, None
            await self.cancel_task(timer)
        await super().cleanup()

    def of(self, kind: type[Frame]) -> list[Any]:
        """Every downstream frame of ``kind`` that reached the recorder, in order."""
        return [f for _, d, f in self.frames if d == FrameDirection.DOWNSTREAM and isinstance(f, kind)]


class Bot:
    """A Pipecat bot on the scripted server: ``async with Bot(server, tools=...) as bot``."""

    def __init__(
        self,
        server: ScriptedOpenAI,
        *,
        tools: Any = None,
        system: str = SYSTEM,
        speak_secs: float = 0.05,
        mute: list[BaseUserMuteStrategy] | None = None,
        setup: Callable[["Bot"], None] | None = None,
    ) -> None:
        self.server = server
        self.log: list[str] = []
        self.llm = OpenAILLMService(
            api_key="sk-scripted",
            base_url=server.base_url,
            settings=OpenAILLMService.Settings(model="gpt-4.1-mini", system_instruction=system),
        )
        self.context = LLMContext(
            messages=[{"role": "user", "content": "Hello"}],
            **({"tools": tools} if tools is not None else {}),
        )
        self.aggregators = LLMContextAggregatorPair(
            self.context,
            user_params=LLMUserAggregatorParams(
                user_turn_strategies=ExternalUserTurnStrategies(),
                user_mute_strategies=mute or [],
            ),
        )
        self.recorder = SpeakingRecorder(self.log, speak_secs)
        self.pipeline = Pipeline(
            [self.aggregators.user(), self.llm, self.recorder, self.aggregators.assistant()]
        )
        self.worker = PipelineWorker(
            self.pipeline,
            params=PipelineParams(),
            cancel_on_idle_timeout=False,
            enable_rtvi=False,
        )
        self.runner = WorkerRunner(handle_sigint=False)
        self.finished = asyncio.Event()
        self._started = asyncio.Event()
        self._run: asyncio.Task | None = None
        if setup is not None:
            setup(self)

        @self.worker.event_handler("on_pipeline_started")
        async def _started(worker: PipelineWorker, frame: Frame) -> None:
            self._started.set()

        @self.worker.event_handler("on_pipeline_finished")
        async def _finished(worker: PipelineWorker, frame: Frame) -> None:
            self.finished.set()

    async def __aenter__(self) -> "Bot":
        await self.runner.add_workers(self.worker)
        self._run = asyncio.create_task(self.runner.run())
        await asyncio.wait_for(self._started.wait(), 5)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if not self.finished.is_set():
            await self.worker.queue_frame(EndFrame())
        assert self._run is not None
        await asyncio.wait_for(self._run, 10)

    async def start_conversation(self) -> None:
        """Runs the model on the context as it stands (the first ``Hello``)."""
        await self.worker.queue_frame(self.context_frame())

    def context_frame(self) -> Frame:
        """An ``LLMContextFrame`` of the bot's context."""
        from pipecat.frames.frames import LLMContextFrame

        return LLMContextFrame(self.context)

    async def user_says(self, words: str, speaking_secs: float = 0.1) -> None:
        """One user turn, as an STT service with its own turn detection sends it: the start,
        then after ``speaking_secs`` (the caller talking) the transcript and the stop.

        With no time between them, Pipecat 1.14 can send the next request before the
        interruption's ``FunctionCallCancelFrame`` reaches the assistant aggregator, and a
        cancelled call still reads ``IN_PROGRESS`` there."""
        await self.worker.queue_frame(ProposedUserStartedSpeakingFrame())
        await asyncio.sleep(speaking_secs)
        await self.worker.queue_frame(
            TranscriptionFrame(words, user_id="caller", timestamp=time_now_iso8601(), finalized=True)
        )
        await self.worker.queue_frame(ProposedUserStoppedSpeakingFrame())

    async def until(self, check: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
        """Waits until ``check()`` is true; fails the test naming ``what`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or check}")
            await asyncio.sleep(0.005)


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``role: tool`` messages of a recorded request."""
    return [m for m in request["messages"] if m.get("role") == "tool"]


def tool_call_ids(request: dict[str, Any]) -> list[str]:
    """The ids of every tool call the assistant made in a recorded request's history."""
    return [
        call["id"]
        for m in request["messages"]
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    ]


# --- The harness, proved with a plain Pipecat function ----------------------------------------


async def test_a_plain_pipecat_function_runs_and_its_result_reaches_the_next_request(
    openai_server: ScriptedOpenAI,
) -> None:
    from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
    from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema

    seen: list[dict[str, Any]] = []

    async def lookup(params: FunctionCallParams) -> None:
        seen.append(dict(params.arguments))
        await params.result_callback({"free": True})

    schema = FunctionSchema(
        "lookup", "Look a day up.", {"day": {"type": "string"}}, ["day"], handler=lookup
    )
    openai_server.add(
        calls(("lookup", '{"day": "2026-10-16"}'), text="Let me look."), text("It is free.")
    )
    async with Bot(openai_server, tools=ToolsSchema(standard_tools=[schema])) as bot:
        await bot.start_conversation()
        requests = await openai_server.wait_for_requests(2)
        await bot.until(lambda: bot.log.count("bot:stopped") == 2, what="both replies played")
    assert seen == [{"day": "2026-10-16"}]
    first, second = requests
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look a day up.",
                "parameters": {
                    "type": "object",
                    "properties": {"day": {"type": "string"}},
                    "required": ["day"],
                },
            },
        }
    ]
    assert first["messages"][0] == {"role": "system", "content": SYSTEM}
    # The aggregator json.dumps a dict result: the model reads it once encoded.
    assert tool_messages(second) == [
        {"role": "tool", "content": '{"free": true}', "tool_call_id": "call_1_0"}
    ]
    assert tool_call_ids(second) == ["call_1_0"]
    assert bot.log == ["bot:started", "bot:stopped", "bot:started", "bot:stopped"]
    spoken = "".join(f.text for f in bot.recorder.of(LLMTextFrame))
    assert spoken == "Let me look.It is free."
    assert openai_server.exhausted == 0


async def test_an_interruption_cancels_a_plain_function_and_the_model_reads_cancelled(
    openai_server: ScriptedOpenAI,
) -> None:
    from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
    from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema

    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def slow(params: FunctionCallParams) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    schema = FunctionSchema("slow", "Takes long.", {}, [], handler=slow)
    openai_server.add(calls(("slow", "{}")), text("Sure."))
    async with Bot(openai_server, tools=ToolsSchema(standard_tools=[schema])) as bot:
        await bot.start_conversation()
        await asyncio.wait_for(started.wait(), 5)
        await bot.user_says("Actually, never mind.")
        await asyncio.wait_for(cancelled.wait(), 5)
        requests = await openai_server.wait_for_requests(2)
    contents = [m["content"] for m in tool_messages(requests[1])]
    assert contents == ["CANCELLED"]
    assert requests[1]["messages"][-1] == {"role": "user", "content": "Actually, never mind."}
