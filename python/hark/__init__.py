"""Hark: typed tools and a screen worker for voice agents, with a Rust core.

The tool layer as the tools reference writes it::

    from hark import local_tool, ToolRegistry, ToolReply, Assign, Phone

Adapters drive a call through the contract in ``hark.call``.
"""


from hark._core import __version__
from hark.errors import ArgumentsMissing, ToolError, ToolRefused
from hark.state import CallState, Phone
from hark.tools import (
    Accepted,
    Assign,
    CallHooks,
    CallResult,
    Done,
    Generation,
    LiveCall,
    ToolRegistry,
    ToolReply,
    ToolSpec,
    Transcript,
    WebhookAuth,
    WebhookOptions,
    current_datetime_tool,
    local_tool,
    replies_to,
    user_phone_number_tool,
    webhook_tool,
)

__all__ = [
    "Accepted",
    "ArgumentsMissing",
    "Assign",
    "CallHooks",
    "CallResult",
    "CallState",
    "Done",
    "Generation",
    "LiveCall",
    "Phone",
    "ToolError",
    "ToolRefused",
    "ToolRegistry",
    "ToolReply",
    "ToolSpec",
    "Transcript",
    "WebhookAuth",
    "WebhookOptions",
    "__version__",
    "current_datetime_tool",
    "local_tool",
    "replies_to",
    "user_phone_number_tool",
    "webhook_tool",
]
