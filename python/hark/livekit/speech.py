"""The call's voice in a LiveKit agent: lines through the ``AgentSession``'s speech.

:class:`LiveKitSpeech` is the ``hark.call.Speech`` one call uses. A line is said with
``session.say(line)`` (so it goes into the chat history and plays in turn after the reply that
made the call); waiting for playout waits for those lines, and while it waits the caller cannot
cut them off (``announce_wait=True``, a goodbye).
"""

from __future__ import annotations

from typing import Any

from livekit.agents import AgentSession, RunContext
from livekit.agents.voice import SpeechHandle
from livekit.agents.llm import ChatMessage

__all__ = ["LiveKitSpeech"]


class LiveKitSpeech:
    """The ``hark.call.Speech`` of one call in a LiveKit agent.

    It speaks through the session of the tool call that runs (:meth:`bind` before each run).
    ``reply_spoke`` answers whether the reply that made the call said any text.
    """

    def __init__(self) -> None:
        self.session: AgentSession[Any] | None = None
        self.reply: SpeechHandle | None = None
        self._lines: list[SpeechHandle] = []

    def bind(self, context: RunContext[Any]) -> None:
        """Speaks through ``context``'s session; ``context.speech_handle`` is the reply that
        made the call."""
        self.session = context.session
        self.reply = context.speech_handle

    def _session(self) -> AgentSession[Any]:
        if self.session is None:
            raise RuntimeError(
                "hark.livekit: the call has no AgentSession to speak through yet; its lines "
                "are said from inside a tool call (Agent(tools=function_tools(registry)))."
            )
        return self.session

    async def say(self, line: str) -> None:
        """Queues ``line`` with ``session.say``; returns once it is queued."""
        self._lines.append(self._session().say(line))

    async def wait_playout(self) -> None:
        """Returns when every line said so far has played out (or was cut off before this
        call). While it waits, the caller cannot interrupt those lines."""
        lines, self._lines = self._lines, []
        for handle in lines:
            if handle.done():
                continue
            if not handle.interrupted:
                handle.allow_interruptions = False
            await handle.wait_for_playout()

    def reply_spoke(self) -> bool:
        """True when the reply that made the call said any text."""
        reply = self.reply
        if reply is None:
            return False
        for item in reply.chat_items:
            if isinstance(item, ChatMessage) and item.role == "assistant" and item.text_content:
                return True
        return False
