"""PyO3's interpreter-exit race: a Rust thread that takes the GIL while the interpreter finalizes
aborts the process ("Fatal Python error: PyGILState_Release"). Every hand-over from Hark's Rust
threads to Python passes one exit gate, closed at exit; so a process that returns with each kind
of Hark work in flight exits cleanly (rc 0, no "Fatal Python error"), run after run.

Each run leaves in flight: classifier questions (answered on the blocking pool), local tools,
a ``continue`` tool finishing after an interruption (its end handled on a tokio thread), a
background webhook to a loopback server that answers after a few milliseconds (its sink events
on a tokio thread) and the token function that webhook calls from a tokio thread. With the gate
disabled (``attach`` taking the GIL at once, ``_shutdown`` doing nothing), 31 of the 200 runs
crashed (rc -11) on this 2-core machine.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RUNS = 200

SCRIPT = r"""
import asyncio, json, sys
from pydantic import BaseModel
from hark import _core, Accepted, Done, ToolRegistry, WebhookAuth, local_tool, webhook_tool

URL, SEED = sys.argv[1], int(sys.argv[2])
SCREEN = "<ui_state>\n" + "".join(
    f'- button "Item {i} add to cart" [ref=e{i}]\n' for i in range(20)
) + "</ui_state>"
STATE = json.dumps({"utterance": "add item 17 to the cart", "screen": SCREEN})
QUESTIONS = json.dumps({"element": {"kind": "choice",
    "instructions": "the element on screen the user is referring to",
    "options": [[f"e{i}", f'button "Item {i} add to cart"'] for i in range(20)]}})

class Speech:
    async def say(self, line): await asyncio.sleep(0)
    async def wait_playout(self): pass
    def reply_spoke(self): return False

class Note(BaseModel):
    note: str

async def token() -> str:
    await asyncio.sleep(0)
    return "t-1"

release = asyncio.Event()
started = asyncio.Event()

async def book(day: str) -> Done:
    started.set()
    await release.wait()
    await asyncio.sleep(0)

async def ping(word: str) -> Done:
    await asyncio.sleep(0)

async def main():
    classifier = _core.LocalClassifier(embeddings=False)
    first = json.loads(await classifier.ask(STATE, QUESTIONS))
    assert first["element"]["choice"] == "e17", first
    asks = [asyncio.ensure_future(classifier.ask(STATE, QUESTIONS)) for _ in range(4)]
    notify = webhook_tool("notify_crm", "Tell the CRM.", URL, input=Note, output=Accepted,
                          allow_private_network=True, wait_for_response=False,
                          auth=WebhookAuth.bearer(token=token))
    registry = ToolRegistry([local_tool(book, interruption="continue"),
                             local_tool(ping, announce="One moment."), notify])
    events = []
    registry.listen(lambda stage, data: events.append(stage))
    live = registry.start_call(Speech())
    generation = live.generation()
    generation.mark_spoken()
    running = asyncio.ensure_future(live.run("book", {"day": "friday"}, generation))
    await started.wait()
    generation.interrupt()
    assert (await running).status == "still_running"
    sent = await live.run("notify_crm", {"note": "booked"}, live.generation())
    assert sent.model_result == {"ok": True, "accepted": True}, sent.model_result
    pings = [asyncio.ensure_future(live.run("ping", {"word": "hi"}, live.generation()))
             for _ in range(4)]
    await pings[SEED % 4]
    release.set()  # the continue tool ends while the loop closes
    for _ in range(SEED % 3):
        await asyncio.sleep(0)
    # Returns with the rest in flight: no live.close(), questions unanswered.

asyncio.run(main())
print("ok")
"""


class Loopback:
    """A loopback HTTP server that answers every POST with `{}` after 0 to 9 milliseconds."""

    def __init__(self) -> None:
        self.count = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.count += 1
                time.sleep((server.count % 10) / 1000)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"{}")
                except (BrokenPipeError, ConnectionResetError):
                    pass

        server = self
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/crm"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_interpreter_exits_cleanly_with_every_kind_of_hark_work_in_flight():
    loopback = Loopback()
    try:

        def run_once(seed: int) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-c", SCRIPT, loopback.url, str(seed)],
                capture_output=True,
                text=True,
                timeout=120,
            )

        with ThreadPoolExecutor(max_workers=4) as pool:
            runs = list(pool.map(run_once, range(RUNS)))
    finally:
        loopback.close()
    failed = [r for r in runs if r.returncode != 0 or "Fatal Python error" in r.stderr]
    assert not failed, (
        f"{len(failed)} of {RUNS} runs did not exit cleanly; the first: rc {failed[0].returncode}, "
        f"stderr:\n{failed[0].stderr[-2000:]}"
    )
    assert all(r.stdout.strip() == "ok" for r in runs)
    assert loopback.count > 0, "the background webhooks reached the loopback server"


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
