"""A Pipecat-wire client that times a voice server from the end of the caller's speech to the
first bot audio: the same client, audio and clock for ``hark serve`` and a Pipecat bot.

It connects to ``--url``, sends ``client-ready`` (RTVI in a ``pipecat.Frame`` MessageFrame, as
Pipecat's JS client does) and waits for ``bot-ready``, then speaks ``--rounds`` turns (after
``--warmup`` more): each turn is ``bench/voice/utterance.py``'s utterance sent as 20 ms
``AudioRawFrame``s (16 kHz PCM16 mono) at real-time pace, then silence, still at real-time pace,
until the bot's ``bot-stopped-speaking`` (at most 10 s). Every message is timed on arrival with
``time.perf_counter``. Per turn:

- ``stop_msg``: the server's message sent the moment its VAD stopped (``user-stopped-speaking``
  from Hark; ``vad-user-stopped-speaking`` from Pipecat, whose ``user-stopped-speaking`` is the
  end of the turn its turn strategy decides). Every message type's first arrival is recorded.
- ``stopped_sent``: when this client sent the chunk on which the VAD stops: the client runs the
  same Silero VAD on the stream it sends (``utterance.StreamVad``), so this is the chunk on which
  either server's VAD stops, timed on the client's clock.
- ``first_audio``: the first bot audio frame after the turn's speech began.

Prints one JSON line per turn to ``--out`` and a summary (p50/p99, nearest rank, in ms) to
stdout: ``stop_msg → first audio`` (the server's own time, as the issue asks),
``stopped_sent → first audio`` (the same from a clock the client owns),
``stopped_sent → stop_msg`` (the server's VAD and socket, before its turn) and
``stopped_sent → user-stopped-speaking`` (Pipecat's: the turn's end). Run by
``bench/voice/run.sh``; alone:

    target/py-venv/bin/python bench/voice/latency_client.py --url ws://127.0.0.1:8766 \
        --rounds 60 --warmup 2 --out /tmp/turns.jsonl --label pipecat
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import time

from pipecat.frames.protobufs import frames_pb2 as pb
from utterance import CHUNK, RATE, StreamVad, chunks, utterance
from websockets.asyncio.client import connect

TEXT = "add the blue mug to my cart"
DONE_TIMEOUT = 10.0


def rtvi(type_: str, id_: str, data: dict) -> bytes:
    message = {"label": "rtvi-ai", "type": type_, "id": id_, "data": data}
    return pb.Frame(message=pb.MessageFrame(data=json.dumps(message))).SerializeToString()


def mic(chunk: bytes) -> bytes:
    audio = pb.AudioRawFrame(audio=chunk, sample_rate=RATE, num_channels=1)
    return pb.Frame(audio=audio).SerializeToString()


class Call:
    """What arrived, per turn, with arrival times."""

    def __init__(self) -> None:
        self.turn = -1
        self.turns: list[dict[str, float]] = []
        self.ready = asyncio.Event()
        self.done: list[asyncio.Event] = []

    def begin(self) -> None:
        self.turn += 1
        self.turns.append({})
        self.done.append(asyncio.Event())

    def heard(self, raw: bytes, at: float) -> None:
        frame = pb.Frame.FromString(raw)
        kind = frame.WhichOneof("frame")
        if kind == "message":
            type_ = json.loads(frame.message.data).get("type", "")
            if type_ == "bot-ready":
                self.ready.set()
            if self.turn >= 0:
                got = self.turns[self.turn]
                got.setdefault(type_, at)
                if type_ == "bot-stopped-speaking" and "first_audio" in got:
                    self.done[self.turn].set()
        elif kind == "audio" and self.turn >= 0:
            self.turns[self.turn].setdefault("first_audio", at)


async def receive(ws, call: Call) -> None:
    async for raw in ws:
        at = time.perf_counter()
        if isinstance(raw, bytes):
            call.heard(raw, at)


async def speak(ws, call: Call, turns: int, parts: list[bytes]) -> None:
    """``turns`` turns at real-time pace, on one schedule of 20 ms ticks."""
    silence = bytes(CHUNK * 2)
    vad = StreamVad()
    start = time.perf_counter()
    tick = 0

    async def send(chunk: bytes) -> None:
        nonlocal tick
        await asyncio.sleep(max(0.0, start + tick * 0.02 - time.perf_counter()))
        await ws.send(mic(chunk))
        sent = time.perf_counter()
        tick += 1
        heard = vad.push(chunk)
        if heard is not None:
            call.turns[call.turn].setdefault(f"{heard}_sent", sent)

    for _ in range(turns):
        call.begin()
        done = call.done[call.turn]
        for part in parts:
            await send(part)
        deadline = time.perf_counter() + DONE_TIMEOUT
        while not done.is_set() and time.perf_counter() < deadline:
            await send(silence)
        for _ in range(10):  # 200 ms more silence between turns
            await send(silence)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(label: str, turns: list[dict[str, float]]) -> dict:
    def stop_msg(t: dict[str, float]) -> float | None:
        return t.get("vad-user-stopped-speaking", t.get("user-stopped-speaking"))

    spans = {
        "stop_msg_to_first_audio": lambda t: t["first_audio"] - stop_msg(t),
        "stopped_sent_to_first_audio": lambda t: t["first_audio"] - t["stopped_sent"],
        "stopped_sent_to_stop_msg": lambda t: stop_msg(t) - t["stopped_sent"],
        "stopped_sent_to_user_stopped": lambda t: t["user-stopped-speaking"] - t["stopped_sent"],
    }
    out: dict = {"label": label, "turns": len(turns)}
    for name, span in spans.items():
        ms = []
        for t in turns:
            try:
                ms.append(span(t) * 1e3)
            except (KeyError, TypeError):
                pass
        if ms:
            out[name] = {"n": len(ms), "p50": round(pct(ms, 50), 1), "p99": round(pct(ms, 99), 1),
                         "min": round(min(ms), 1), "max": round(max(ms), 1)}
    return out


async def connected(url: str, wait: float = 60.0):
    """A connection to ``url``, tried again while the server starts (up to ``wait`` s)."""
    deadline = time.perf_counter() + wait
    while True:
        try:
            return await connect(url, max_size=None, compression=None)
        except OSError:
            if time.perf_counter() > deadline:
                raise
            await asyncio.sleep(0.2)


async def run(args: argparse.Namespace) -> None:
    pcm = utterance(TEXT)
    parts = chunks(pcm)
    call = Call()
    async with await connected(args.url) as ws:
        reader = asyncio.create_task(receive(ws, call))
        about = {"library": "hark-bench", "library_version": "0"}
        await ws.send(rtvi("client-ready", "r1", {"version": "2.1.0", "about": about}))
        await asyncio.wait_for(call.ready.wait(), 10)
        await speak(ws, call, args.warmup + args.rounds, parts)
        reader.cancel()
    with open(args.out, "w") as out:
        for i, t in enumerate(call.turns):
            base = t.get("stopped_sent", 0.0)
            rel = {k: round((v - base) * 1e3, 3) for k, v in t.items()}
            out.write(json.dumps({"turn": i, "warmup": i < args.warmup, **rel}) + "\n")
    print(json.dumps(summary(args.label, call.turns[args.warmup :])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--out", required=True, help="one JSON line per turn, times from stopped_sent")
    parser.add_argument("--label", default="")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
