"""Pipecat 1.14's own ``RedisBus`` and ``WorkerRunner`` ask a ``hark worker`` process for ``screen`` jobs.

The Python side is plain Pipecat: a ``BaseWorker`` named ``voice`` on a ``WorkerRunner`` whose bus
is ``RedisBus`` over redis-py, as a voice agent using ``screen_tools("ui")`` runs it. It sends the
page's ``__ui_snapshot`` as the pipeline worker does, asks ``find`` and ``click`` with
``BaseWorker.job``, and sees the click's UI command arrive as a ``BusUICommandMessage``. The
``hark`` binary is built with ``cargo build -p hark-server --bin hark`` (into ``$CARGO_TARGET_DIR``
or ``target/``) unless ``HARK_BIN`` names one.

Needs ``HARK_TEST_REDIS_URL`` (scripts/test.sh starts a redis-server and sets it): skipped with the
reason when it is unset, except under ``CI=true``, where it fails.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from pipecat.bus.messages import BusEndMessage
from pipecat.bus.network.redis import RedisBus
from pipecat.bus.ui.messages import BusUICommandMessage, BusUIEventMessage
from pipecat.pipeline.job_context import JobParams
from pipecat.workers.base_worker import BaseWorker
from pipecat.workers.runner import WorkerRunner
from redis.asyncio import Redis

ROOT = Path(__file__).resolve().parents[2]

SNAPSHOT = {
    "root": {
        "ref": "e1",
        "role": "generic",
        "children": [
            {"ref": "e2", "role": "button", "name": "Checkout"},
            {"ref": "e3", "role": "checkbox", "name": "Gift wrap"},
        ],
    },
    "captured_at": 1767225600000,
}


def redis_url() -> str:
    url = os.environ.get("HARK_TEST_REDIS_URL", "")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("HARK_TEST_REDIS_URL is not set under CI: scripts/test.sh starts redis-server and sets it")
        pytest.skip("HARK_TEST_REDIS_URL is not set (scripts/test.sh starts a redis-server and sets it)")
    return url


@pytest.fixture(scope="module")
def hark_bin() -> Path:
    if os.environ.get("HARK_BIN"):
        return Path(os.environ["HARK_BIN"])
    subprocess.run(["cargo", "build", "-q", "-p", "hark-server", "--bin", "hark"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "hark"


class Voice(BaseWorker):
    """The voice side: asks the ``ui`` worker and records the UI commands it sends."""

    def __init__(self) -> None:
        super().__init__("voice")
        self.commands: asyncio.Queue[BusUICommandMessage] = asyncio.Queue()

    async def on_bus_message(self, message) -> None:
        await super().on_bus_message(message)
        if isinstance(message, BusUICommandMessage):
            self.commands.put_nowait(message)


async def wait_for_worker(runner: WorkerRunner, name: str, secs: float) -> None:
    deadline = time.monotonic() + secs
    while runner.registry.get(name) is None:
        assert time.monotonic() < deadline, f"no worker {name!r} announced itself within {secs} s"
        await asyncio.sleep(0.05)


async def test_a_pipecat_runner_on_redis_asks_a_hark_worker_and_gets_its_ui_command(hark_bin: Path) -> None:
    url = redis_url()
    channel = f"hark-test:py:{uuid.uuid4().hex[:8]}"
    worker = subprocess.Popen(
        [str(hark_bin), "worker", "--bus", url, "--channel", channel, "--name", "ui"],
        stdout=subprocess.DEVNULL,
        stderr=sys.stderr,
    )
    redis = Redis.from_url(url)
    runner = WorkerRunner(name=f"runner-py-{uuid.uuid4().hex[:6]}", bus=RedisBus(redis=redis, channel=channel),
                          handle_sigint=False)
    voice = Voice()
    await runner.add_workers(voice)
    running = asyncio.create_task(runner.run(auto_end=False))
    try:
        # The hark worker announces itself as a runner's registry entry named "ui".
        await wait_for_worker(runner, "ui", 30)
        await voice.send_bus_message(BusUIEventMessage(source="voice", event_name="__ui_snapshot", payload=SNAPSHOT))
        await asyncio.sleep(0.2)

        find = {"action": "find", "target": "the checkout button"}
        async with voice.job("ui", params=JobParams(name="screen", payload=find, timeout=20)) as job:
            pass
        assert job.response["label"] == "Checkout"
        assert job.response["confidence"] > 0.5

        click = {"action": "click", "target": "the checkout button"}
        async with voice.job("ui", params=JobParams(name="screen", payload=click, timeout=20)) as job:
            pass
        assert job.response == {"done": True, "label": "Checkout"}
        command = await asyncio.wait_for(voice.commands.get(), 5)
        assert isinstance(command, BusUICommandMessage)
        assert (command.source, command.command_name, command.payload["ref"]) == ("ui", "click", "e2")

        # A worker's BusEndMessage ends every runner on the bus: the hark worker too.
        await voice.send_bus_message(BusEndMessage(source="voice", reason="call over"))
        assert await asyncio.to_thread(worker.wait, 10) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        await runner.cancel()
        await asyncio.wait_for(running, 10)
        await redis.aclose()
