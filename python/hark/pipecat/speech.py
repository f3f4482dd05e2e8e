"""The call's voice in a Pipecat pipeline: lines as TTS frames, the bot's speaking state.

:class:`LlmVoice` is one per LLM service. It says a line by pushing a ``TTSSpeakFrame``
downstream from the LLM service (where the model's own text goes, so the line plays in order
after what the reply already said), follows the bot's speaking state from the
``BotStartedSpeakingFrame`` / ``BotStoppedSpeakingFrame`` the output transport sends upstream,
and keeps the text of the model's current reply (what :func:`reply_text` gives).

:class:`PipecatSpeech` is the ``hark.call.Speech`` one call uses: it speaks through the voice of
the LLM service its tool calls come from.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSSpeakFrame,
)
from pipecat.processors.frame_processor import FrameDirection

__all__ = ["LlmVoice", "PipecatSpeech", "reply_text", "PLAYOUT_WAIT_SECS"]

PLAYOUT_WAIT_SECS = 30.0
"""The longest a call waits for the bot to stop speaking (``announce_wait``, a goodbye)."""

CATCH_UP_TURNS = 8
"""How many turns of the event loop :meth:`LlmVoice.wait_playout` gives the bot's speaking state
to catch up with the reply's text before it finds the bot silent."""

_VOICE_ATTRIBUTE = "_hark_voice"


class LlmVoice:
    """The voice of one LLM service: says lines, knows whether the bot is speaking, and keeps
    the text of the model's current reply. Get it with :meth:`of` (or :func:`reply_text`)."""

    def __init__(self, llm: Any, playout_wait_secs: float = PLAYOUT_WAIT_SECS) -> None:
        self.llm = llm
        self.playout_wait_secs = playout_wait_secs
        self._reply: list[str] = []
        self._speaking = False
        self._pending = False
        self._stopped = asyncio.Event()
        self._workers: list[Any] = []
        self._follow_reply_text()

    @classmethod
    def of(cls, llm: Any) -> LlmVoice:
        """The voice of ``llm``, made on first use (one per LLM service)."""
        voice = getattr(llm, _VOICE_ATTRIBUTE, None)
        if voice is None:
            voice = cls(llm)
            setattr(llm, _VOICE_ATTRIBUTE, voice)
        return voice

    def text(self) -> str:
        """The text the model's current reply has said so far (empty before any)."""
        return "".join(self._reply)

    def watch(self, worker: Any) -> None:
        """Follows the bot's speaking state in ``worker`` (a ``PipelineWorker``): the output
        transport's ``BotStartedSpeakingFrame`` / ``BotStoppedSpeakingFrame`` reaching the
        pipeline's source. Watching the same worker again does nothing."""
        if worker is None or any(w is worker for w in self._workers):
            return
        self._workers.append(worker)
        worker.add_reached_upstream_filter((BotStartedSpeakingFrame, BotStoppedSpeakingFrame))
        worker.add_event_handler("on_frame_reached_upstream", self._on_upstream)

    async def say(self, line: str) -> None:
        """Queues ``line`` as a ``TTSSpeakFrame`` after what the model has said; returns once it
        is queued and the pipeline has had one turn of the event loop to take it on (a call's
        tool starts at once when nothing waits, so without that turn a tool that does not wait
        would hold the line back until it finished)."""
        self._pending = True
        self._stopped.clear()
        await self.llm.push_frame(TTSSpeakFrame(line))
        await asyncio.sleep(0)

    async def wait_playout(self) -> None:
        """Returns when the bot has stopped speaking what was queued, at once when it is silent
        and nothing was queued, and after :attr:`playout_wait_secs` at most."""
        if not (self._pending or self._speaking) and self._reply and self._workers:
            await self._catch_up()
        if not (self._pending or self._speaking):
            return
        try:
            await asyncio.wait_for(self._stopped.wait(), self.playout_wait_secs)
        except TimeoutError:
            self._pending = False

    async def _catch_up(self) -> None:
        """Gives the pipeline a few turns of the event loop to report that the bot started
        speaking the reply's text: that report comes back upstream from the output, a frame
        hop per turn, and a tool call that does not wait runs sooner than that."""
        for _ in range(CATCH_UP_TURNS):
            await asyncio.sleep(0)
            if self._speaking or self._pending:
                return

    async def _on_upstream(self, worker: Any, frame: Frame) -> None:
        if isinstance(frame, BotStartedSpeakingFrame):
            self._speaking = True
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self._speaking = False
            self._pending = False
            self._stopped.set()

    def _follow_reply_text(self) -> None:
        """Keeps the text of the current reply: the service's ``push_frame`` is wrapped on this
        instance, so every ``LLMTextFrame`` it sends downstream is seen, and a
        ``LLMFullResponseStartFrame`` starts a new reply."""
        push_frame = self.llm.push_frame

        async def push_and_follow(
            frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM
        ) -> None:
            if direction == FrameDirection.DOWNSTREAM:
                if isinstance(frame, LLMFullResponseStartFrame):
                    self._reply = []
                elif isinstance(frame, LLMTextFrame):
                    self._reply.append(frame.text)
            await push_frame(frame, direction)

        self.llm.push_frame = push_and_follow


def reply_text(llm: Any) -> LlmVoice:
    """What ``llm``'s current reply has said, for :func:`hark.pipecat.end_call_tool`: its
    ``text()`` is the reply's text so far, and ``say(line)`` speaks a line after it."""
    return LlmVoice.of(llm)


class PipecatSpeech:
    """The ``hark.call.Speech`` of one call in a Pipecat pipeline.

    It is bound to the LLM service (and the worker) its tool calls come from on the first call,
    or earlier by :func:`hark.pipecat.attach_call`. The model always replies to a refusal for a
    missing argument here: ``reply_spoke`` is False, as a tool handler cannot tell whether the
    reply that made the call spoke.
    """

    def __init__(self) -> None:
        self.voice: LlmVoice | None = None

    def bind(self, llm: Any, worker: Any = None) -> LlmVoice:
        """Speaks through ``llm``'s voice from now on, following the speaking state in
        ``worker``. Returns the voice."""
        voice = LlmVoice.of(llm)
        self.voice = voice
        voice.watch(worker)
        return voice

    def _bound(self) -> LlmVoice:
        if self.voice is None:
            raise RuntimeError(
                "hark.pipecat: the call has no LLM service to speak through yet. Pass the "
                "tools to LLMContext(tools=...) or call attach_call(tools, llm=llm) first."
            )
        return self.voice

    async def say(self, line: str) -> None:
        """Queues ``line`` as a TTS frame."""
        await self._bound().say(line)

    async def wait_playout(self) -> None:
        """Returns when the bot has stopped speaking, after 30 seconds at most."""
        await self._bound().wait_playout()

    def reply_spoke(self) -> bool:
        """Always False: on Pipecat the model replies to every refusal."""
        return False
