"""A Pipecat 1.14 voice bot on its own WebSocket transport, for the end-of-speech latency bench.

What a Pipecat voice bot runs, pointed at ``bench/voice/scripted_services.py``:
``WebsocketServerTransport`` (``ProtobufFrameSerializer``: Pipecat's JS client's wire, as
``hark serve`` speaks it) → ``OpenAISTTService`` (segmented: the VAD's utterance, as WAV) →
the universal user aggregator (Silero VAD with Pipecat's default ``VADParams``) →
``OpenAILLMService`` → ``OpenAITTSService`` → the transport's output → the assistant aggregator,
run as a ``PipelineWorker`` by a ``WorkerRunner``. RTVI is on (the worker adds it), with the
raw VAD messages (``vad-user-started/stopped-speaking``) switched on so a client sees the VAD's
stop on the wire, as Hark's ``user-stopped-speaking``.

``--turn default``: Pipecat's default user turn strategies (the stop waits for the
``LocalSmartTurnAnalyzerV3`` turn model's verdict, then the finalized transcript).
``--turn vad``: what Hark does, a turn as soon as the VAD stopped and the transcript is in
(``SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=0)``; the segmented STT's transcripts
are finalized, which ends its STT wait).

An observer logs, per turn, on Pipecat's own clock (``time.perf_counter`` when each frame is
first pushed): the ``VADUserStoppedSpeakingFrame``, the ``TranscriptionFrame``, the
``UserStoppedSpeakingFrame`` (the turn's end) and the first ``TTSAudioRawFrame`` after them, one
JSON line per turn on ``--log``. Serves one client, then exits when it leaves.

    target/py-venv/bin/python bench/voice/pipecat_bot.py --services http://127.0.0.1:8765/v1 \
        --port 8766 --turn default --log /tmp/pipecat-turns.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from loguru import logger
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (
    TranscriptionFrame,
    TTSAudioRawFrame,
    UserStoppedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frameworks.rtvi.observer import RTVIObserverParams
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.openai.stt import OpenAISTTService
from pipecat.services.openai.tts import OpenAITTSService
from pipecat.transcriptions.language import Language
from pipecat.transports.websocket.server import WebsocketServerParams, WebsocketServerTransport
from pipecat.turns.user_stop.speech_timeout_user_turn_stop_strategy import (
    SpeechTimeoutUserTurnStopStrategy,
)
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.workers.runner import WorkerRunner

SYSTEM = "You answer for the front desk."


class TurnClock(BaseObserver):
    """Per turn: when the VAD stopped, the transcript came, the turn ended, the first audio left."""

    def __init__(self, log_path: str) -> None:
        super().__init__()
        self._log = open(log_path, "a", buffering=1)
        self._turn: dict[str, float] = {}

    async def on_push_frame(self, data: FramePushed) -> None:
        if not data.first_push:
            return
        frame = data.frame
        now = time.perf_counter()
        if isinstance(frame, VADUserStoppedSpeakingFrame):
            self._turn = {"vad_stop": now}
        elif isinstance(frame, TranscriptionFrame) and "vad_stop" in self._turn:
            self._turn.setdefault("transcript", now)
        elif isinstance(frame, UserStoppedSpeakingFrame) and "vad_stop" in self._turn:
            self._turn.setdefault("turn_end", now)
        elif isinstance(frame, TTSAudioRawFrame) and "vad_stop" in self._turn:
            if "first_audio" not in self._turn:
                self._turn["first_audio"] = now
                stop = self._turn["vad_stop"]
                ms = {k: round((v - stop) * 1e3, 3) for k, v in self._turn.items() if k != "vad_stop"}
                self._log.write(json.dumps(ms) + "\n")


def turn_strategies(turn: str) -> UserTurnStrategies | None:
    if turn == "default":
        return None
    return UserTurnStrategies(stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=0.0)])


async def run(args: argparse.Namespace) -> None:
    transport = WebsocketServerTransport(
        params=WebsocketServerParams(
            audio_in_enabled=True,
            audio_out_enabled=True,
            serializer=ProtobufFrameSerializer(),
        ),
        host="127.0.0.1",
        port=args.port,
    )
    key = "sk-scripted"
    stt = OpenAISTTService(
        api_key=key,
        base_url=args.services,
        settings=OpenAISTTService.Settings(model="whisper-1", language=Language.EN),
    )
    llm = OpenAILLMService(
        api_key=key,
        base_url=args.services,
        settings=OpenAILLMService.Settings(model="desk-model", system_instruction=SYSTEM),
    )
    tts = OpenAITTSService(
        api_key=key,
        base_url=args.services,
        settings=OpenAITTSService.Settings(model="tts-1", voice="nova"),
    )
    context = LLMContext()
    aggregators = LLMContextAggregatorPair(
        context,
        user_params=LLMUserAggregatorParams(
            vad_analyzer=SileroVADAnalyzer(),
            user_turn_strategies=turn_strategies(args.turn),
        ),
    )
    pipeline = Pipeline(
        [
            transport.input(),
            stt,
            aggregators.user(),
            llm,
            tts,
            transport.output(),
            aggregators.assistant(),
        ]
    )
    worker = PipelineWorker(
        pipeline,
        params=PipelineParams(audio_in_sample_rate=16_000, audio_out_sample_rate=24_000),
        rtvi_observer_params=RTVIObserverParams(vad_user_speaking_enabled=True),
        observers=[TurnClock(args.log)],
        cancel_on_idle_timeout=False,
    )

    @transport.event_handler("on_client_disconnected")
    async def _left(_transport: object, _ws: object) -> None:
        await worker.cancel()

    runner = WorkerRunner(handle_sigint=True)
    await runner.add_workers(worker)
    await runner.run()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--services", required=True, help="the scripted services' /v1 URL")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--turn", choices=["default", "vad"], default="default")
    parser.add_argument("--log", required=True, help="JSON lines, one per turn, appended")
    args = parser.parse_args()
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
