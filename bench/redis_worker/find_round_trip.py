"""A ``screen`` find job's round trip over Redis on loopback: ``hark worker`` vs Pipecat's own
Python ``UIWorker`` with its ``LLMClassifier`` over an OpenAI-compatible server that answers at once.

One requester, Pipecat 1.14's ``WorkerRunner`` on its ``RedisBus`` (redis-py) with a ``BaseWorker``
named ``voice``, asks ``find`` with ``BaseWorker.job("ui", JobParams(name="screen", …))`` as
``screen_tools("ui")`` does, alternately on two channels of one Redis server:

- ``hark worker --channel bench:…:hark`` (a release build; its local classifier, the embedding model
  from scripts/fetch-model.sh, picks the element);
- a second Python process running ``UIWorker("ui", llm=…)`` on a ``WorkerRunner`` over ``RedisBus``
  on ``bench:…:pipecat``, whose classifier is Pipecat's default ``LLMClassifier(llm=llm)``, the LLM
  being ``python/tests/instant_openai.py``'s server in that process, which answers every request at
  once with the right element (so the figures are the LLM classifier's floor: no model time).

Both workers get the same page first (the 200-node shop page of hark-ui's classifier bench,
``crates/hark-ui/benches/data/snapshot_200.json``) and the same description ("open my cart", the
``Cart (3)`` link). Each round times one job from the requester's ``job()`` to its response.

Run (a release ``hark`` and a venv with pipecat-ai 1.14.0):

    cargo build --release -p hark-server --bin hark
    bash scripts/python-env.sh                         # or any venv with python/requirements-test.txt
    mkdir -p /tmp/bench-redis && redis-server --port 0 --unixsocket /tmp/bench-redis/r.sock \\
        --save '' --appendonly no --dir /tmp/bench-redis --daemonize yes
    target/py-venv/bin/python bench/redis_worker/find_round_trip.py \\
        --redis unix:///tmp/bench-redis/r.sock --hark target/release/hark [--rounds 500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))

from loguru import logger  # noqa: E402
from pipecat.bus.network.redis import RedisBus  # noqa: E402
from pipecat.bus.ui.messages import UI_SNAPSHOT_EVENT_NAME, BusUIEventMessage  # noqa: E402
from pipecat.pipeline.job_context import JobParams  # noqa: E402
from pipecat.workers.base_worker import BaseWorker  # noqa: E402
from pipecat.workers.runner import WorkerRunner  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

SNAPSHOT = ROOT / "crates" / "hark-ui" / "benches" / "data" / "snapshot_200.json"
DESCRIPTION = "open my cart"
REF, LABEL = "e4", "Cart (3)"


def percentile(sorted_values: list[float], p: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(round(p / 100 * (len(sorted_values) - 1))))]


async def serve_pipecat_worker(url: str, channel: str) -> None:
    """The second process: Pipecat's ``UIWorker`` with its default ``LLMClassifier``."""
    from instant_openai import InstantOpenAI, answer
    from pipecat.services.openai.llm import OpenAILLMService
    from pipecat.workers.ui.ui_worker import UIWorker

    server = InstantOpenAI(answer({"element": {"choice": REF, "probabilities": {REF: 0.95}}}))
    await server.start()
    llm = OpenAILLMService(
        api_key="sk-bench", base_url=server.base_url, settings=OpenAILLMService.Settings(model="gpt-4.1-mini")
    )
    redis = Redis.from_url(url)
    runner = WorkerRunner(
        name=f"bench-pipecat-{os.getpid()}", bus=RedisBus(redis=redis, channel=channel), handle_sigint=False
    )
    await runner.add_workers(UIWorker("ui", llm=llm))
    try:
        await runner.run(auto_end=False)
    finally:
        await redis.aclose()
        await server.close()


class Side:
    """One worker under test: its channel's runner and the ``voice`` worker that asks it."""

    def __init__(self, label: str, url: str, channel: str) -> None:
        self.label = label
        self.redis = Redis.from_url(url)
        self.runner = WorkerRunner(
            name=f"bench-voice-{uuid.uuid4().hex[:6]}", bus=RedisBus(redis=self.redis, channel=channel),
            handle_sigint=False,
        )
        self.voice = BaseWorker("voice")
        self.times: list[float] = []
        self.right = 0

    async def start(self) -> None:
        await self.runner.add_workers(self.voice)
        self.task = asyncio.create_task(self.runner.run(auto_end=False))
        deadline = time.monotonic() + 60
        while self.runner.registry.get("ui") is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"{self.label}: no worker named ui announced itself within 60 s")
            await asyncio.sleep(0.05)
        page = json.loads(SNAPSHOT.read_text())
        await self.voice.send_bus_message(
            BusUIEventMessage(source="voice", event_name=UI_SNAPSHOT_EVENT_NAME, payload=page)
        )
        await asyncio.sleep(0.5)

    async def find(self, record: bool) -> None:
        params = JobParams(name="screen", payload={"action": "find", "target": DESCRIPTION}, timeout=10)
        start = time.perf_counter()
        async with self.voice.job("ui", params=params) as job:
            pass
        elapsed = (time.perf_counter() - start) * 1e6
        if record:
            self.times.append(elapsed)
            self.right += job.response.get("label") == LABEL

    async def stop(self) -> None:
        await self.runner.cancel()
        await asyncio.wait_for(self.task, 10)
        await self.redis.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default=os.environ.get("HARK_TEST_REDIS_URL"), help="redis://… or unix:///…")
    parser.add_argument("--hark", default=str(ROOT / "target" / "release" / "hark"), help="the hark binary")
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--serve-pipecat-worker", metavar="CHANNEL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    if not args.redis:
        raise SystemExit("give --redis URL (or set HARK_TEST_REDIS_URL)")
    if args.serve_pipecat_worker:
        await serve_pipecat_worker(args.redis, args.serve_pipecat_worker)
        return

    base = f"bench:find:{os.getpid()}"
    hark = subprocess.Popen(
        [args.hark, "worker", "--bus", args.redis, "--channel", f"{base}:hark", "--name", "ui", "--log", "warn"],
        stdin=subprocess.DEVNULL,
    )
    pipecat = subprocess.Popen(
        [sys.executable, __file__, "--redis", args.redis, "--serve-pipecat-worker", f"{base}:pipecat"],
        stdin=subprocess.DEVNULL,
    )
    sides = [
        Side("hark worker (local classifier)", args.redis, f"{base}:hark"),
        Side("pipecat UIWorker (LLMClassifier, instant LLM)", args.redis, f"{base}:pipecat"),
    ]
    try:
        for side in sides:
            await side.start()
        for _ in range(20):
            for side in sides:
                await side.find(record=False)
        for _ in range(args.rounds):
            for side in sides:
                await side.find(record=True)
        print(f"screen find over Redis ({args.redis}), 200-node page, {args.rounds} jobs each, alternating")
        print(f"{'worker':48} {'p50 µs':>9} {'p99 µs':>9} {'mean µs':>9}  right")
        for side in sides:
            times = sorted(side.times)
            print(
                f"{side.label:48} {percentile(times, 50):9.0f} {percentile(times, 99):9.0f} "
                f"{statistics.fmean(times):9.0f}  {side.right}/{args.rounds}"
            )
    finally:
        for side in sides:
            await side.stop()
        for child in (hark, pipecat):
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


if __name__ == "__main__":
    asyncio.run(main())
