"""Hark: typed tools and a screen worker for voice agents, with a Rust core.

The tool layer as the tools reference writes it::

    from hark import local_tool, ToolRegistry, ToolReply, Assign, Phone

Adapters drive a call through the contract in ``hark.call``.
"""

import atexit as _atexit
import time as _time

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

# At interpreter exit a tokio worker thread of the core can still be handing back the GIL
# (PyO3/pyo3-async-runtimes#40): "Fatal Python error: PyGILState_Release". A short pause at exit
# lets those threads finish first.
_atexit.register(_time.sleep, 0.05)

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
