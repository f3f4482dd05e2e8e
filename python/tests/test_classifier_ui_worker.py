"""Pipecat 1.14's own ``UIWorker`` on ``hark.pipecat.LocalClassifier``, through Pipecat's job path.

A ``WorkerRunner`` runs the voice side (the harness's ``PipelineWorker``) and
``UIWorker("ui", llm=…, classifier=LocalClassifier())``. The voice side publishes the demo shop's
checkout snapshot (``bench/grounding/rows.jsonl``, page ``demo/checkout``) as the client-facing
worker does (a ``__ui_snapshot`` ``BusUIEventMessage``) and asks ``screen`` jobs with
``worker.job("ui", params=JobParams(name="screen", payload=…))``, as Pipecat's ``screen`` tool does.
A recorder subscribed to the bus sees the UI commands and job responses the worker sends.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pipecat.bus.messages import BusJobResponseMessage, BusMessage
from pipecat.bus.subscriber import BusSubscriber
from pipecat.bus.ui.messages import UI_SNAPSHOT_EVENT_NAME, BusUICommandMessage, BusUIEventMessage
from pipecat.classifiers.base_classifier import ClassifierError
from pipecat.pipeline.job_context import JobError, JobParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.workers.ui.ui_worker import UIWorker
from scripted_openai import ScriptedOpenAI, openai_server  # noqa: F401 (fixture)
from test_pipecat_harness import Bot

from hark.pipecat import LocalClassifier, LocalClassifierError

ROWS = Path(__file__).resolve().parents[2] / "bench" / "grounding" / "rows.jsonl"

UNREADABLE = (
    'the local classifier cannot read the question "check" ("would the user like this page?"): '
    "it answers which element a description means; whether anything is checked, selected, "
    "disabled, empty or expanded; whether something is on screen or shows a value; per-element "
    "matches; and whether a UI event needs a reply. Give the worker an LLM classifier as fallback "
    "(hark.pipecat.LocalClassifier(fallback=LLMClassifier(llm=llm))) for other questions."
)


def demo_snapshot(page: str = "demo/checkout") -> dict[str, Any]:
    """The snapshot of the demo shop's page ``page`` in the grounding benchmark's rows."""
    with open(ROWS, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["page"] == page:
                return row["snapshot"]
    raise AssertionError(f"no row of page {page} in {ROWS}")


class BusRecorder(BusSubscriber):
    """Records every message on the bus (the worker's UI commands and job responses)."""

    def __init__(self) -> None:
        self.messages: list[BusMessage] = []

    @property
    def name(self) -> str:
        return "bus-recorder"

    async def on_bus_message(self, message: BusMessage) -> None:
        self.messages.append(message)

    def commands(self) -> list[BusUICommandMessage]:
        return [m for m in self.messages if isinstance(m, BusUICommandMessage)]

    def responses(self) -> list[BusJobResponseMessage]:
        return [m for m in self.messages if isinstance(m, BusJobResponseMessage)]


class Screen:
    """The voice side, Pipecat's ``UIWorker`` and the bus recorder, running."""

    def __init__(self, bot: Bot, ui: UIWorker, recorder: BusRecorder) -> None:
        self.bot, self.ui, self.recorder = bot, ui, recorder

    async def show(self, snapshot: dict[str, Any]) -> None:
        """Publishes ``snapshot`` as the client-facing worker does; waits for the worker to hold it."""
        await self.bot.worker.send_bus_message(
            BusUIEventMessage(
                source=self.bot.worker.name,
                target=None,
                event_name=UI_SNAPSHOT_EVENT_NAME,
                payload=snapshot,
            )
        )
        await self.bot.until(lambda: self.ui.snapshot == snapshot, what="the UI worker's snapshot")

    async def job(self, action: str, target: str) -> dict[str, Any]:
        """One ``screen`` job through Pipecat's job path; its response."""
        params = JobParams(name="screen", payload={"action": action, "target": target}, timeout=10)
        async with self.bot.worker.job("ui", params=params) as job:
            pass
        return job.response


def ui_worker(server: ScriptedOpenAI, classifier: LocalClassifier) -> UIWorker:
    llm = OpenAILLMService(
        api_key="sk-scripted",
        base_url=server.base_url,
        settings=OpenAILLMService.Settings(model="gpt-4.1-mini"),
    )
    return UIWorker("ui", llm=llm, classifier=classifier)


@pytest.fixture
async def screen(openai_server: ScriptedOpenAI):  # noqa: F811 (the fixture)
    bot = Bot(openai_server)
    ui = ui_worker(openai_server, LocalClassifier())
    await bot.runner.add_workers(ui)
    recorder = BusRecorder()
    async with bot:
        await bot.runner.bus.subscribe(recorder)
        s = Screen(bot, ui, recorder)
        await s.show(demo_snapshot())
        yield s
        # Ends the UI worker with the voice side (the runner would wait for it, then cancel).
        await bot.runner.end()
        await asyncio.wait_for(bot.finished.wait(), 5)


async def test_find_check_and_select_on_the_checkout_snapshot(screen: Screen, openai_server):  # noqa: F811
    found = await screen.job("find", "the email field")
    assert found["label"] == "Email"
    assert found["confidence"] >= 0.9
    found = await screen.job("find", "where do I pick my country")
    assert found["label"] == "Country"

    checked = await screen.job("check", "is the gift wrap checkbox checked?")
    assert checked["yes"] is True and checked["probability"] >= 0.9
    france = await screen.job("check", "is the country set to France?")
    assert france["yes"] is False and france["probability"] <= 0.1
    shows = await screen.job("check", "does the email field show ana@example.com?")
    assert shows["yes"] is True

    headings = await screen.job("select", "headings")
    assert sorted(m["label"] for m in headings["matches"]) == [
        "Checkout",
        "Conversation",
        "Hark demo shop",
        "Products",
    ]
    assert all(0.5 <= m["probability"] <= 1 for m in headings["matches"])
    # Every answer came from Hark, in-process: the worker's LLM was never asked.
    assert openai_server.requests == []


async def test_eight_add_to_cart_buttons_are_told_apart_by_their_refs(screen: Screen):
    for words, ref in [
        ("add the French press to the cart", "e15"),
        ("the 8th add to cart button", "e27"),
        ("the 1st add to cart button", "e13"),
        ("add the paper filters to the cart", "e21"),
    ]:
        before = len(screen.recorder.commands())
        done = await screen.job("click", words)
        assert done == {"done": True, "label": "Add to cart"}, words
        await screen.bot.until(lambda: len(screen.recorder.commands()) > before, what="the click")
        command = screen.recorder.commands()[-1]
        assert command.command_name == "click", words
        assert command.payload["ref"] == ref, words


async def test_a_question_it_cannot_read_is_a_classifier_error_saying_why(screen: Screen):
    with pytest.raises(JobError):
        await screen.job("check", "would the user like this page?")
    # Pipecat's requester drops an error's payload; the bus carried the worker's text.
    await screen.bot.until(lambda: screen.recorder.responses(), what="the job's response")
    response = screen.recorder.responses()[-1]
    assert response.status == "error"
    assert response.response == {"error": UNREADABLE}

    with pytest.raises(ClassifierError) as raised:
        await screen.ui.check_screen("would the user like this page?")
    assert isinstance(raised.value, LocalClassifierError)
    assert raised.value.kind == "unreadable_question"
    assert str(raised.value) == UNREADABLE


async def test_ui_events_are_answered_by_should_respond(screen: Screen):
    async def respond(name: str, payload: dict[str, Any]) -> bool:
        return await screen.ui.should_respond(
            BusUIEventMessage(source="client", event_name=name, payload=payload)
        )

    assert await respond("order_submitted", {"order": "A-17"}) is True
    assert await respond("scrolled", {"y": 480}) is False
    assert await respond("hover", {"ref": "e13"}) is False


async def test_the_classifier_answers_off_the_event_loop(screen: Screen):
    """A question waits on a thread of Hark's runtime, never on the loop: after its first step
    the asking task is still waiting, and twenty at once all come back."""
    task = asyncio.create_task(screen.ui.which_element("the email field"))
    await asyncio.sleep(0)
    assert not task.done()
    assert await task == "e32"
    refs = await asyncio.gather(*(screen.ui.which_element("the email field") for _ in range(20)))
    assert refs == ["e32"] * 20


# --- More options than Hark takes -------------------------------------------------------------

TOO_MANY = (
    'the choice question "element" has 300 options; the local classifier takes at most 255: '
    "narrow the options first, or give it a fallback classifier for such questions "
    "(hark.pipecat.LocalClassifier(fallback=LLMClassifier(llm=llm)))."
)


def long_page(count: int = 300) -> dict[str, Any]:
    """A page of ``count`` named buttons ("Song 0" …), more than the 255 options Hark takes."""
    buttons = [{"ref": f"e{i + 2}", "role": "button", "name": f"Song {i}"} for i in range(count)]
    return {"root": {"ref": "e1", "role": "list", "children": buttons}, "captured_at": 1}


async def test_a_page_of_300_elements_is_a_clear_error_naming_the_count_and_the_limit(screen: Screen):
    await screen.show(long_page())
    with pytest.raises(JobError):
        await screen.job("find", "song 17")
    await screen.bot.until(lambda: screen.recorder.responses(), what="the job's response")
    assert screen.recorder.responses()[-1].response == {"error": TOO_MANY}
    with pytest.raises(LocalClassifierError) as raised:
        await screen.ui.which_element("song 17")
    assert (raised.value.kind, str(raised.value)) == ("too_many_options", TOO_MANY)
    # Per-element questions have no such limit: select answers all 300 locally.
    songs = await screen.job("select", "song 17")
    assert [m["label"] for m in songs["matches"]][:1] == ["Song 17"]


async def test_a_fallback_answers_what_hark_cannot(openai_server: ScriptedOpenAI):  # noqa: F811
    from instant_openai import InstantOpenAI, answer
    from pipecat.classifiers.llm.classifier import LLMClassifier

    # One reply for every request: Pipecat's LLMClassifier reads the answers it asked for.
    replies = {
        "element": {"choice": "e19", "probabilities": {"e19": 0.9}},
        "check": {"probability": 0.8},
    }
    llm_server = InstantOpenAI(answer(replies))
    await llm_server.start()
    fallback_llm = OpenAILLMService(
        api_key="sk-scripted",
        base_url=llm_server.base_url,
        settings=OpenAILLMService.Settings(model="gpt-4.1-mini"),
    )
    bot = Bot(openai_server)
    ui = ui_worker(openai_server, LocalClassifier(fallback=LLMClassifier(llm=fallback_llm)))
    await bot.runner.add_workers(ui)
    try:
        async with bot:
            s = Screen(bot, ui, BusRecorder())
            await s.show(long_page())
            found = await s.job("find", "song 17")
            assert found == {"label": "Song 17", "confidence": 0.9}
            assert len(llm_server.requests) == 1
            checked = await s.job("check", "would the user like this page?")
            assert checked == {"yes": True, "probability": 0.8}
            assert len(llm_server.requests) == 2
            # What Hark reads stays local.
            await s.show(demo_snapshot())
            assert (await s.job("find", "the email field"))["label"] == "Email"
            assert len(llm_server.requests) == 2
            await bot.runner.end()
            await asyncio.wait_for(bot.finished.wait(), 5)
    finally:
        await llm_server.close()


OK_DIALOG = {
    "root": {
        "ref": "e1",
        "role": "dialog",
        "name": "Delete the file?",
        "children": [
            {"ref": "e2", "role": "button", "name": "Cancel"},
            {"ref": "e3", "role": "button", "name": "OK"},
        ],
    },
    "captured_at": 1767225600000,
}


async def test_the_ok_button_is_ok_not_cancel(screen: Screen):
    # Reported: "the ok button" among [Cancel, OK] picked Cancel at 0.555 ("ok" was read as a
    # filler word, so the two buttons tied). A filler word that is an element's whole name
    # names it; where it names nothing it stays filler.
    await screen.show(OK_DIALOG)
    for words in ["the ok button", "click ok", "okay"]:
        found = await screen.job("find", words)
        assert found["label"] == "OK", (words, found)
        assert found["confidence"] > 0.6, (words, found)
        assert await screen.ui.which_element(words) == "e3", words
    assert await screen.ui.which_element("the ok button") == "e3"
    assert await screen.ui.which_element("ok, the cancel button") == "e2"


HOTEL_ES = {
    "root": {
        "ref": "e1",
        "role": "main",
        "children": [
            {"ref": "e2", "role": "link", "name": "Hotel Sol"},
            {"ref": "e3", "role": "button", "name": "Cerrar sesión"},
            {
                "ref": "e4",
                "role": "form",
                "name": "Tu reserva",
                "children": [
                    {"ref": "e5", "role": "textbox", "name": "Nombre completo"},
                    {"ref": "e6", "role": "textbox", "name": "Correo electrónico"},
                    {"ref": "e7", "role": "combobox", "name": "Tipo de habitación"},
                    {"ref": "e8", "role": "checkbox", "name": "Desayuno incluido"},
                    {"ref": "e9", "role": "checkbox", "name": "Aparcamiento"},
                    {"ref": "e10", "role": "checkbox", "name": "Acepto las condiciones"},
                    {"ref": "e11", "role": "button", "name": "Confirmar reserva"},
                ],
            },
            {"ref": "e13", "role": "link", "name": "Aviso legal"},
        ],
    },
    "captured_at": 1767225600000,
}


async def test_a_spanish_caller_on_a_spanish_page_with_the_multilingual_ranker(
    openai_server: ScriptedOpenAI,  # noqa: F811
):
    # Issue 22: "marca la casilla del desayuno" on a Spanish page, answered offline by the
    # learned multilingual ranker inside Pipecat's own UIWorker (the test command fetched the
    # multilingual model: scripts/fetch-model.sh).
    classifier = LocalClassifier(multilingual=True, require_model=True)
    assert classifier.multilingual and classifier.semantic
    assert classifier.model == "hark-local-multilingual"
    bot = Bot(openai_server)
    ui = ui_worker(openai_server, classifier)
    await bot.runner.add_workers(ui)
    recorder = BusRecorder()
    async with bot:
        await bot.runner.bus.subscribe(recorder)
        s = Screen(bot, ui, recorder)
        await s.show(HOTEL_ES)
        found = await s.job("find", "marca la casilla del desayuno")
        assert found["label"] == "Desayuno incluido", found
        assert found["confidence"] >= 0.5, found
        assert await ui.which_element("confirma la reserva") == "e11"
        # Yes/no questions are read from the tree as always.
        checked = await s.job("check", "is the parking checkbox checked?")
        assert checked["yes"] is False
        assert openai_server.requests == []
        await bot.runner.end()
        await asyncio.wait_for(bot.finished.wait(), 5)
