"""The ready tool that ends a call in a Pipecat pipeline, and its goodbye.

``end_call_tool(description, goodbye, reply_text(llm))`` is a Hark tool named ``end_call`` with
no arguments whose success ends the conversation. Its goodbye is said only when the reply that
called it said nothing: a model that already said goodbye is not followed by a second one. The
pipeline ends once the bot has stopped speaking.
"""

from __future__ import annotations

from hark._misuse import expect, misuse
from hark.pipecat.speech import LlmVoice
from hark.tools import Done, ToolSpec, local_tool

__all__ = ["end_call_tool"]

END_CALL = "end_call"
"""The tool's default name."""


def blank_goodbye(name: str) -> str:
    """The error for a goodbye that is empty or only spaces (the Rust API's text)."""
    return (
        f"{name}: the goodbye is empty. Write what the caller hears before the call ends, "
        'like "Goodbye!".'
    )


def end_call_tool(
    description: str, goodbye: str, reply: LlmVoice, *, name: str = END_CALL
) -> ToolSpec:
    """A tool that ends the call: ``goodbye`` is said (unless the reply that called it already
    said something, as ``reply.text()`` tells), and the pipeline ends after it has played.

    ``reply`` is :func:`hark.pipecat.reply_text` of the pipeline's LLM service. Raises
    ``ValueError`` for an empty goodbye."""
    example = 'end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(llm))'
    expect("end_call_tool", "description", description, str, "a str", example)
    expect("end_call_tool", "goodbye", goodbye, str, "a line (str)", example)
    expect("end_call_tool", "name", name, str, "a str", 'end_call_tool(..., name="hang_up")')
    if not goodbye.strip():
        raise ValueError(blank_goodbye(name))
    if not isinstance(reply, LlmVoice):
        raise misuse("end_call_tool", "reply", reply, "reply_text(llm)", example)

    async def end_call() -> Done:
        if not reply.text().strip():
            await reply.say(goodbye)
        return Done()

    return local_tool(end_call, name=name, description=description, effect="ends_conversation")
