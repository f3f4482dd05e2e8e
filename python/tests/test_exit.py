"""PyO3's interpreter-exit race: a process that leaves Hark's classifier work in flight exits
cleanly (rc 0, no "Fatal Python error"), run after run.

The script starts many questions, awaits one, cancels some and returns with the rest still
running on Hark's threads, so ``asyncio.run`` cancels them and the interpreter finalizes while
their answers are being handed back.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

RUNS = 50

SCRIPT = r"""
import asyncio, json
from hark import _core

SCREEN = "<ui_state>\n" + "".join(
    f'- button "Item {i} add to cart" [ref=e{i}]\n' for i in range(200)
) + "</ui_state>"
STATE = json.dumps({"utterance": "add item 17 to the cart", "screen": SCREEN})
QUESTIONS = json.dumps({"element": {"kind": "choice",
    "instructions": "the element on screen the user is referring to",
    "options": [[f"e{i}", f'button "Item {i} add to cart"'] for i in range(200)]}})

async def main():
    classifier = _core.LocalClassifier()
    first = json.loads(await classifier.ask(STATE, QUESTIONS))
    assert first["element"]["choice"] == "e17", first
    tasks = [asyncio.ensure_future(classifier.ask(STATE, QUESTIONS)) for _ in range(32)]
    await tasks[0]
    for t in tasks[1:8]:
        t.cancel()
    # The rest are still running on Hark's threads when main returns.

asyncio.run(main())
print("ok")
"""


def run_once(_: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )


def test_the_interpreter_exits_cleanly_with_classifier_work_in_flight():
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(run_once, range(RUNS)))
    failed = [r for r in runs if r.returncode != 0 or "Fatal Python error" in r.stderr]
    assert not failed, (
        f"{len(failed)} of {RUNS} runs did not exit cleanly; the first: rc {failed[0].returncode}, "
        f"stderr:\n{failed[0].stderr[-2000:]}"
    )
    assert all(r.stdout.strip() == "ok" for r in runs)


def test_after_shutdown_new_work_is_refused_with_a_clear_error():
    script = r"""
import asyncio
from hark import _core
_core._shutdown()
async def main():
    try:
        await _core.LocalClassifier(embeddings=False).ask("{}", "{}")
    except RuntimeError as e:
        print(e)
asyncio.run(main())
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == (
        "hark is shutting down with the interpreter: no new work is started"
    )
