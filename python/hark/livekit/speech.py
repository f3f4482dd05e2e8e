"""The call's voice in a LiveKit agent: lines through the ``AgentSession``'s speech.

:class:`LiveKitSpeech` is the ``hark.call.Speech`` one call uses. A line is said with
``session.say(line)`` (so it goes into the chat history and plays in turn after the reply that
made the call); waiting for playout waits for those lines, and while it waits the caller cannot
cut them off (``announce_wait=True``, a goodbye).

Once an announce line has played, it is placed in the chat history where the caller heard it:
in the assistant message of the reply that made the call, before the tool's result (see
:func:`place_line`). LiveKit would keep it as a message of its own, which every provider format
sends after the tool call's result (``group_tool_calls`` keeps a reply's message, its calls and
their outputs together), so the model would read that the line came after the tool had run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from livekit.agents import AgentSession, RunContext
from livekit.agents.voice import SpeechHandle
from livekit.agents.llm import ChatContext, ChatMessage, FunctionCall

__all__ = ["LiveKitSpeech", "place_line"]

logger = logging.getLogger("hark.livekit")


def _group(item_id: str) -> str:
    """The reply an item belongs to, as LiveKit's provider formats group them: a reply's
    message ``item_x`` and its tool calls ``item_x/fnc_0``."""
    return item_id.split("/")[0]


def place_line(history: ChatContext, line: ChatMessage, call: FunctionCall) -> bool:
    """Places the assistant ``line`` said for ``call`` in ``history`` as the caller heard it:
    within the reply that made the call, before the call's output. Returns False when
    ``history`` does not hold the line.

    When the reply said nothing, ``line`` becomes that reply's message (its id joins the reply's
    group: the message object is shared by the session's history and the agent's chat context,
    so both see it) and moves to right after the call. Otherwise ``history`` gets, in place of
    the reply's message, a copy that ends with the line's text, and the line's own message leaves
    it; the message objects are left as they are (a run's events hold them as they were said)."""
    group = call.group_id or _group(call.id)
    if history.get_by_id(line.id) is None:
        return False
    if _group(line.id) == group:
        _follow(history, line, call)
        return True
    said = next(
        (
            item
            for item in history.items
            if isinstance(item, ChatMessage)
            and item is not line
            and item.role == "assistant"
            and _group(item.id) == group
        ),
        None,
    )
    if said is None:
        line.id = f"{group}/hark_line_{line.id}"
        _follow(history, line, call)
        return True
    merged = said.model_copy(update={"content": [*said.content, *line.content]})
    items = history.items
    items[items.index(said)] = merged
    history.remove(line)
    return True


def _follow(history: ChatContext, line: ChatMessage, call: FunctionCall) -> None:
    """Moves ``line`` right after ``call`` in ``history`` (its creation time is the call's, so
    items LiveKit inserts later by creation time go after it)."""
    items = history.items
    at = next((i for i, item in enumerate(items) if item is line), None)
    after = next((i for i, item in enumerate(items) if item.id == call.id), None)
    if at is None or after is None or at == after + 1:
        return
    del items[at]
    after = next(i for i, item in enumerate(items) if item.id == call.id)
    line.created_at = items[after].created_at
    items.insert(after + 1, line)


class LiveKitSpeech:
    """The ``hark.call.Speech`` of one call in a LiveKit agent.

    It speaks through the session of the tool call that runs (:meth:`bind` before each run).
    ``reply_spoke`` answers whether the reply that made the call said any text.
    """

    def __init__(self) -> None:
        self.session: AgentSession[Any] | None = None
        self.reply: SpeechHandle | None = None
        self._lines: list[SpeechHandle] = []
        # Lines said and not yet settled: (text, handle, session).
        self._said: list[tuple[str, SpeechHandle, AgentSession[Any]]] = []

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
        session = self._session()
        handle = session.say(line)
        self._lines.append(handle)
        self._said.append((line, handle, session))

    def settle(self, announced: Sequence[str], said: Sequence[str], call: FunctionCall) -> None:
        """After a run of ``call``: its ``announced`` lines (said before the tool ran) are placed
        in the history within the reply that made the call once they have played
        (:func:`place_line`); the lines ``said`` after the tool stay where LiveKit put them."""
        for text in [*announced, *said]:
            entry = next((e for e in self._said if e[0] == text), None)
            if entry is None:
                continue
            self._said.remove(entry)
            if text in announced:
                _, handle, session = entry
                if handle.done():
                    _placed(session, handle, call)
                else:
                    handle.add_done_callback(lambda done, s=session: _placed(s, done, call))

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


def _placed(session: AgentSession[Any], handle: SpeechHandle, call: FunctionCall) -> None:
    """Places the line ``handle`` said (if any of it was said) in the session's history and the
    agent's chat context (a copy given back with ``update_chat_ctx``, when it changed)."""
    lines = [
        item
        for item in handle.chat_items
        if isinstance(item, ChatMessage) and item.role == "assistant"
    ]
    if not lines:
        return
    try:
        for line in lines:
            place_line(session.history, line, call)
        agent = session.current_agent
    except Exception:
        # A session closing (no agent any more): the history stays as LiveKit kept it.
        logger.debug("hark.livekit: an announce line stays where LiveKit put it", exc_info=True)
        return
    asyncio.ensure_future(_place_in_agent(agent, lines, call))


async def _place_in_agent(agent: Any, lines: list[ChatMessage], call: FunctionCall) -> None:
    chat_ctx = agent.chat_ctx.copy()
    before = [(item.id, getattr(item, "content", None)) for item in chat_ctx.items]
    for line in lines:
        place_line(chat_ctx, line, call)
    if [(item.id, getattr(item, "content", None)) for item in chat_ctx.items] != before:
        await agent.update_chat_ctx(chat_ctx)
