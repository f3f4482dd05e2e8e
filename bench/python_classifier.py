"""``which_element`` on a 200-node snapshot: ``hark.pipecat.LocalClassifier`` vs Pipecat's own
``LLMClassifier`` against an OpenAI-compatible server on loopback that answers at once.

Both run inside Pipecat 1.14's own ``UIWorker`` (``UIWorker.which_element``, what a ``find``
screen job calls), on the 200-node shop page of hark-ui's classifier bench
(``crates/hark-ui/benches/data/snapshot_200.json``: 160 named elements, so 160 options). The
server (``python/tests/instant_openai.py``) answers every request at once with a fixed choice,
so the LLM classifier's figures are its floor: the prompt, the request over loopback through the
OpenAI client, the reply's parsing; no model time at all.

Run (release build of the Rust core):

    HARK_PY_RELEASE=1 scripts/python-env.sh
    target/py-venv/bin/python bench/python_classifier.py [--rounds 500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))

from instant_openai import InstantOpenAI, answer  # noqa: E402
from loguru import logger  # noqa: E402
from pipecat.bus.ui.messages import UI_SNAPSHOT_EVENT_NAME, BusUIEventMessage  # noqa: E402
from pipecat.classifiers.llm.classifier import LLMClassifier  # noqa: E402
from pipecat.services.openai.llm import OpenAILLMService  # noqa: E402
from pipecat.workers.ui.ui_worker import UIWorker  # noqa: E402

from hark.pipecat import LocalClassifier  # noqa: E402

SNAPSHOT = ROOT / "crates" / "hark-ui" / "benches" / "data" / "snapshot_200.json"

# What the user says, and the element the local classifier should find.
DESCRIPTIONS = [
    ("add the oat milk to the cart", "e33"),
    ("the search box", "e11"),
    ("open my cart", "e4"),
    ("add the brie to the cart", "e45"),
]


def percentile(sorted_values: list[float], p: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(round(p / 100 * (len(sorted_values) - 1))))]


async def measure(ui: UIWorker, rounds: int, check: bool) -> tuple[list[float], int]:
    """Times ``rounds`` calls of ``which_element`` (after 20 to warm up); counts right answers."""
    for i in range(20):
        await ui.which_element(DESCRIPTIONS[i % len(DESCRIPTIONS)][0])
    times, right = [], 0
    for i in range(rounds):
        words, ref = DESCRIPTIONS[i % len(DESCRIPTIONS)]
        start = time.perf_counter()
        got = await ui.which_element(words)
        times.append((time.perf_counter() - start) * 1e6)
        right += got == ref
    return sorted(times), right if check else -1


async def measure_core(ui: UIWorker, local: LocalClassifier, rounds: int) -> list[float]:
    """Times the Rust core's ``ask`` alone: the state and question JSON made once up front
    (what ``which_element`` adds on top is Pipecat rendering ``<ui_state>``, listing the named
    elements, and the JSON in and out)."""
    options = [[e.ref, f'{e.role} "{e.name}"'] for e in ui._named_elements()]
    screen = ui.render_ui_state()
    question = {"kind": "choice", "instructions": "the element on screen the user is referring to"}
    calls = [
        (json.dumps({"utterance": words, "screen": screen}), json.dumps({"element": {**question, "options": options}}))
        for words, _ in DESCRIPTIONS
    ]
    core = local._core
    for i in range(20):
        await core.ask(*calls[i % len(calls)])
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        await core.ask(*calls[i % len(calls)])
        times.append((time.perf_counter() - start) * 1e6)
    return sorted(times)


def llm(base_url: str) -> OpenAILLMService:
    return OpenAILLMService(
        api_key="sk-bench",
        base_url=base_url,
        settings=OpenAILLMService.Settings(model="gpt-4.1-mini"),
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500)
    args = parser.parse_args()
    logger.remove()
    logger.add(sys.stderr, level="WARNING")

    snapshot = json.loads(SNAPSHOT.read_text())
    server = InstantOpenAI(answer({"element": {"choice": "e33", "probabilities": {"e33": 0.95}}}))
    await server.start()
    local = LocalClassifier()
    workers = {
        f"hark LocalClassifier ({'embedding model' if local.semantic else 'lexical only'})": (
            UIWorker("ui", llm=llm(server.base_url), classifier=local),
            True,
        ),
        "hark LocalClassifier(embeddings=False)": (
            UIWorker("ui", llm=llm(server.base_url), classifier=LocalClassifier(embeddings=False)),
            True,
        ),
        "pipecat LLMClassifier, instant server": (
            UIWorker("ui", llm=llm(server.base_url), classifier=LLMClassifier(llm=llm(server.base_url))),
            False,
        ),
    }
    print(f"which_element, 200-node snapshot ({SNAPSHOT.name}), {args.rounds} calls each")
    print(f"{'classifier':48} {'p50 µs':>9} {'p99 µs':>9} {'mean µs':>9}  right")
    for label, (ui, check) in workers.items():
        event = BusUIEventMessage(source="client", event_name=UI_SNAPSHOT_EVENT_NAME, payload=snapshot)
        await ui.on_bus_message(event)
        times, right = await measure(ui, args.rounds, check)
        shown = f"{right}/{args.rounds}" if right >= 0 else "(fixed reply)"
        print(
            f"{label:48} {percentile(times, 50):9.0f} {percentile(times, 99):9.0f} "
            f"{statistics.fmean(times):9.0f}  {shown}"
        )
    ui = next(iter(workers.values()))[0]
    times = await measure_core(ui, local, args.rounds)
    label = "hark._core ask alone (JSON prepared)"
    print(
        f"{label:48} {percentile(times, 50):9.0f} {percentile(times, 99):9.0f} "
        f"{statistics.fmean(times):9.0f}"
    )
    times = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        ui.render_ui_state()
        ui._named_elements()
        times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    label = "pipecat's own part: <ui_state> + named elements"
    print(
        f"{label:48} {percentile(times, 50):9.0f} {percentile(times, 99):9.0f} "
        f"{statistics.fmean(times):9.0f}"
    )
    print(f"LLM requests served: {len(server.requests)}")
    await server.close()


if __name__ == "__main__":
    asyncio.run(main())
