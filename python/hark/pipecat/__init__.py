"""Hark inside a plain Pipecat pipeline (pipecat-ai 1.14).

Names are imported on first use, so ``import hark`` does not import Pipecat.
"""

from importlib import import_module
from typing import Any

# name -> the submodule that defines it
_EXPORTS = {
    "LocalClassifier": "hark.pipecat.classifier",
    "tools_schema": "hark.pipecat.tools",
    "attach_call": "hark.pipecat.tools",
    "end_call_tool": "hark.pipecat.tools",
    "reply_text": "hark.pipecat.tools",
    "user_mute_strategies": "hark.pipecat.mute",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'hark.pipecat' has no attribute {name!r}")
    return getattr(import_module(module), name)
