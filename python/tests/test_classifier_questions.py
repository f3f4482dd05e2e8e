"""``hark.pipecat.LocalClassifier`` asked directly, as any Pipecat classifier: every question
kind, states as text or data, a fallback for what Hark does not answer, cancellation."""

from __future__ import annotations

import asyncio

import pytest
from instant_openai import InstantOpenAI, answer
from pipecat.classifiers.base_classifier import (
    ChoiceQuestion,
    ScoreQuestion,
    ScoreResult,
    YesNoQuestion,
)
from pipecat.classifiers.llm.classifier import LLMClassifier
from pipecat.services.openai.llm import OpenAILLMService

from hark.pipecat import LocalClassifier, LocalClassifierError

SCREEN = (
    "<ui_state>\n"
    '- checkbox "Gift wrap" [checked] [ref=e1]\n'
    '- button "Add to cart" [ref=e2]\n'
    '- button "Add to cart" [ref=e3]\n'
    "</ui_state>"
)
MOOD = ScoreQuestion(instructions="how happy is the caller", levels=["low", "mid", "high"])
NO_SCORE = (
    'the local classifier does not answer score questions ("mood"): ask an LLM classifier '
    "(hark.pipecat.LocalClassifier(fallback=LLMClassifier(llm=llm)))."
)


async def test_a_screen_as_text_and_yes_no_questions_with_descriptions():
    c = LocalClassifier()
    answers = await c.yes_no(SCREEN, {"wrap": YesNoQuestion(instructions="is gift wrap on?", yes="on", no="off")})
    assert answers["wrap"].is_yes
    # Options of the same description are told apart by their refs in the screen's lines.
    second = await c.choice(
        {"utterance": "the second add to cart button", "screen": SCREEN},
        {"element": ChoiceQuestion(
            instructions="the element on screen the user is referring to",
            options={"e2": 'button "Add to cart"', "e3": 'button "Add to cart"'},
        )},
    )
    assert second["element"].choice == "e3"
    assert list(second["element"].probabilities) == ["e2", "e3"]


async def test_a_score_question_is_refused_or_goes_to_the_fallback():
    with pytest.raises(LocalClassifierError) as raised:
        await LocalClassifier().score({"transcript": "great, thanks!"}, {"mood": MOOD})
    assert (raised.value.kind, str(raised.value)) == ("unreadable_question", NO_SCORE)

    server = InstantOpenAI(answer({"mood": {"probabilities": {"0": 0.1, "1": 0.2, "2": 0.7}}}))
    await server.start()
    try:
        llm = OpenAILLMService(
            api_key="sk-scripted",
            base_url=server.base_url,
            settings=OpenAILLMService.Settings(model="gpt-4.1-mini"),
        )
        c = LocalClassifier(fallback=LLMClassifier(llm=llm))
        result = (await c.score({"transcript": "great, thanks!"}, {"mood": MOOD}))["mood"]
        assert isinstance(result, ScoreResult)
        assert [lv.level for lv in result.levels] == ["low", "mid", "high"]
        assert result.score == pytest.approx(1.6)
        assert len(server.requests) == 1
        # What Hark reads never reaches the fallback.
        await c.yes_no(SCREEN, {"wrap": YesNoQuestion(instructions="is gift wrap on?")})
        assert len(server.requests) == 1
    finally:
        await server.close()


async def test_structured_instructions_it_cannot_read_are_named_in_the_error():
    q = YesNoQuestion(instructions={"question": "is the user happy?", "about": "the caller"})
    with pytest.raises(LocalClassifierError) as raised:
        await LocalClassifier().yes_no(SCREEN, {"happy": q})
    assert str(raised.value).startswith(
        'the local classifier cannot read the question "happy" '
        '("{"question":"is the user happy?","about":"the caller"}")'
    )


async def test_a_cancelled_question_leaves_the_classifier_working():
    c = LocalClassifier()
    question = {"wrap": YesNoQuestion(instructions="is gift wrap on?")}
    tasks = [asyncio.create_task(c.yes_no(SCREEN, question)) for _ in range(10)]
    await asyncio.sleep(0)
    for t in tasks[::2]:
        t.cancel()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    assert sum(isinstance(d, asyncio.CancelledError) for d in done) == 5
    assert all(d["wrap"].is_yes for d in done if isinstance(d, dict))
    assert (await c.yes_no(SCREEN, question))["wrap"].is_yes


async def test_the_core_refuses_input_that_is_not_json_with_a_clear_error():
    from hark import _core

    core = _core.LocalClassifier(embeddings=False)
    with pytest.raises(_core.ClassifyError) as raised:
        await core.ask("{not json", "{}")
    assert raised.value.kind == "bad_input"
    assert str(raised.value).startswith("the state is not JSON (")
    with pytest.raises(_core.ClassifyError) as raised:
        await core.ask("{}", '{"q": {"kind": "maybe", "instructions": "x"}}')
    assert raised.value.kind == "bad_input"
    assert str(raised.value).startswith(
        'the question "q" is not a yes/no, choice or score question hark reads ('
    )
    # Asked from a thread with no running asyncio loop: a RuntimeError, no hang.
    with pytest.raises(RuntimeError, match="no running event loop"):
        _ask_outside_a_loop(core)


def _ask_outside_a_loop(core) -> None:
    import threading

    errors: list[BaseException] = []

    def run() -> None:
        try:
            core.ask("{}", "{}")
        except BaseException as e:  # noqa: BLE001 (the test reads it)
            errors.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    raise errors[0]


async def test_a_lone_surrogate_on_the_page_or_in_a_question_is_read_as_a_replacement_character():
    # A page that cut an emoji in half gives Python a str UTF-8 cannot hold; the classifier still
    # answers every question about that page.
    c = LocalClassifier()
    screen = SCREEN.replace('"Gift wrap"', '"Gift wrap \ud83c"')
    answers = await c.yes_no(screen, {"wrap": YesNoQuestion(instructions="is gift wrap \udc81 on?", yes="on", no="off")})
    assert answers["wrap"].is_yes
