"""Hark's tools in a plain LiveKit agent (livekit-agents 1.8).

::

    from livekit.agents import Agent
    from hark import ToolRegistry, local_tool
    from hark.livekit import function_tools

    registry = ToolRegistry([local_tool(book_table)])
    agent = Agent(instructions="...", tools=function_tools(registry, language="en",
                                                          timezone="Europe/Madrid"))

- :func:`function_tools`: the registry's tools as ``Agent(tools=...)`` takes them, for one
  call. Each call is checked, refused, announced, run and spoken by Hark's core; the model reads
  Hark's text. Closing the session closes the call (background webhooks finish).
"""

from hark.livekit.speech import LiveKitSpeech
from hark.livekit.tools import HarkFunctionTools, LiveKitCall, function_tools

__all__ = ["HarkFunctionTools", "LiveKitCall", "LiveKitSpeech", "function_tools"]
