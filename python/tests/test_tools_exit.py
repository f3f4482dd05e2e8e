"""The interpreter-exit race of PyO3 with a tokio runtime (a worker thread still handing back the
GIL while the interpreter finalises): 200 interpreters that import hark, run one tool through
the core and exit must all end with status 0 and no "Fatal Python error"."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SCRIPT = """
import asyncio
from hark import Done, ToolRegistry, local_tool

async def ping(word: str) -> Done:
    await asyncio.sleep(0)

class Speech:
    async def say(self, line): pass
    async def wait_playout(self): pass
    def reply_spoke(self): return False

async def main():
    registry = ToolRegistry([local_tool(ping, announce="One moment.")])
    live = registry.start_call(Speech())
    result = await live.run("ping", '{"word": "hi"}', live.generation())
    assert result.model_text == '{"ok":true}', result.model_text
    await live.close()

asyncio.run(main())
"""

RUNS = 200


def _run(_: int) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr


def test_200_interpreters_run_a_tool_and_exit_cleanly():
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(_run, range(RUNS)))
    failed = [(rc, err[-400:]) for rc, err in outcomes if rc != 0 or "Fatal Python error" in err]
    assert failed == [], f"{len(failed)} of {RUNS} runs failed; first: {failed[:1]}"
