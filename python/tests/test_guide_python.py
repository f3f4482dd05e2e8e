"""docs/guide/python.md: every Python block of the page runs, in order, as one program."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md"


def test_every_python_block_of_the_guide_page_runs():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) >= 3
    module = types.ModuleType("guide_python")
    sys.modules[module.__name__] = module
    try:
        for number, block in enumerate(blocks, start=1):
            code = compile(block, f"{PAGE.name} block {number}", "exec")
            exec(code, module.__dict__)  # noqa: S102 - the guide's own examples
    finally:
        del sys.modules[module.__name__]


def test_the_readmes_tool_block_runs():
    readme = PAGE.parents[2] / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)
    # The Pipecat block runs in test_pipecat_tools.py, the LiveKit one in test_livekit_readme.py.
    (block,) = [
        b for b in blocks if "local_tool" in b and "hark.pipecat" not in b and "hark.livekit" not in b
    ]
    module = types.ModuleType("readme_python")
    sys.modules[module.__name__] = module
    try:
        exec(compile(block, "README.md", "exec"), module.__dict__)  # noqa: S102
        assert "book_table" in module.registry
    finally:
        del sys.modules[module.__name__]
