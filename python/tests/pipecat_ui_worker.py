"""Pipecat 1.14's own ``UIWorker`` as the ``ui`` worker on one Redis channel, as a Pipecat app runs it.

    python python/tests/pipecat_ui_worker.py --redis URL --channel CHANNEL --llm BASE_URL [--runner NAME]

A ``WorkerRunner`` on Pipecat's ``RedisBus`` (redis-py) hosts ``UIWorker("ui", llm=OpenAILLMService(...))``
whose LLM is at ``BASE_URL`` (an OpenAI-compatible server; the tests' is scripted). The worker
answers ``screen`` and ``respond`` jobs as Pipecat ships it; the one addition is a ``fill`` tool,
the kind of ``@tool`` a Pipecat app gives its UI worker so that the ``respond`` turn can act on the
page (``set_input_value``), after which the LLM's reply text answers the job.

For the test that runs it (crates/hark-server/tests/browser_pipecat_ui_worker.rs): it prints
``ready`` on stdout once the worker holds a snapshot of the page (so the test knows the worker sees
the screen before it asks), and exits 0 when the runner ends, which Pipecat's runner does on a
``BusEndMessage`` from another source (the session's end).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from pipecat.bus.network.redis import RedisBus
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.workers.llm.tool_decorator import tool
from pipecat.workers.runner import WorkerRunner
from pipecat.workers.ui.ui_worker import UIWorker
from redis.asyncio import Redis


class FormUIWorker(UIWorker):
    """Pipecat's ``UIWorker`` with one app tool that fills an input on the page."""

    @tool
    async def fill(self, params: FunctionCallParams, ref: str, value: str):
        """Write ``value`` into the input whose snapshot ref is ``ref``.

        Args:
            params: Framework-provided tool invocation context.
            ref: The input's ref in the latest ``<ui_state>``.
            value: The text to write.
        """
        await self.set_input_value(ref, value)
        await params.result_callback({"filled": ref})


async def wait_for_snapshot(worker: UIWorker) -> None:
    while worker.snapshot is None:
        await asyncio.sleep(0.02)
    print("ready", flush=True)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", required=True, help="redis://… or unix:///path")
    parser.add_argument("--channel", required=True, help="the Redis pub/sub channel")
    parser.add_argument("--llm", required=True, help="the OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--runner", default=f"pipecat-ui-{os.getpid()}", help="the runner's unique name")
    parser.add_argument("--model", default="worker-model")
    args = parser.parse_args()

    redis = Redis.from_url(args.redis)
    runner = WorkerRunner(name=args.runner, bus=RedisBus(redis=redis, channel=args.channel), handle_sigint=False)
    llm = OpenAILLMService(
        api_key="sk-scripted", base_url=args.llm, settings=OpenAILLMService.Settings(model=args.model)
    )
    worker = FormUIWorker("ui", llm=llm)
    await runner.add_workers(worker)
    ready = asyncio.create_task(wait_for_snapshot(worker))
    try:
        # auto_end=False: the runner stays up until the bus says the call ended.
        await runner.run(auto_end=False)
    finally:
        ready.cancel()
        await redis.aclose()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
