"""Hark in a plain Pipecat pipeline (pipecat-ai 1.14): its tools, and a classifier for UIWorker.

::

    from hark import ToolRegistry, local_tool
    from hark.pipecat import (
        attach_call, end_call_tool, reply_text, tools_schema, user_mute_strategies)

    goodbye = end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(llm))
    registry = ToolRegistry([local_tool(book_table), goodbye])
    tools = tools_schema(registry, language="en", timezone="Europe/Madrid")
    context = LLMContext(messages, tools=tools)          # the handlers register themselves
    aggregators = LLMContextAggregatorPair(context, user_params=LLMUserAggregatorParams(
        user_mute_strategies=user_mute_strategies(protect=["tool_calls"])))
    ...
    call = attach_call(tools, llm=llm, worker=worker)    # Pipecat's background-tool text stays out

- :func:`tools_schema`: the registry's tools as ``LLMContext(tools=...)`` takes them. Each call
  is checked, refused, announced, run and spoken by Hark's core; the model reads Hark's text.
  ``interruption="continue"`` → ``cancel_on_interruption=False``; the rest Pipecat's default.
- :func:`attach_call`: binds the call to the LLM service before its first tool call.
- :func:`end_call_tool` / :func:`reply_text`: a tool that says goodbye and ends the pipeline.
- :func:`user_mute_strategies`: user mute strategies by what they protect; ``"tool_calls"`` is
  Hark's :class:`AnnounceLineUserMuteStrategy` (mutes the caller only while the bot speaks
  during a tool call, so a running tool can still be interrupted).
- :class:`LocalClassifier`: Hark's local classifier as a Pipecat classifier, for Pipecat's own
  ``UIWorker`` (``UIWorker("ui", llm=llm, classifier=LocalClassifier())``): its screen
  questions answered in-process in milliseconds, with calibrated probabilities and no network;
  :class:`LocalClassifierError` when it cannot answer.
"""

from hark.pipecat.classifier import LocalClassifier, LocalClassifierError
from hark.pipecat.end_call import end_call_tool
from hark.pipecat.mute import AnnounceLineUserMuteStrategy, user_mute_strategies
from hark.pipecat.speech import PipecatSpeech, reply_text
from hark.pipecat.tools import HarkTools, PipecatCall, attach_call, tools_schema

__all__ = [
    "AnnounceLineUserMuteStrategy",
    "HarkTools",
    "LocalClassifier",
    "LocalClassifierError",
    "PipecatCall",
    "PipecatSpeech",
    "attach_call",
    "end_call_tool",
    "reply_text",
    "tools_schema",
    "user_mute_strategies",
]
