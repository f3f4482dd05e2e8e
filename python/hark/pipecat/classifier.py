"""``LocalClassifier``: Hark's local classifier as a Pipecat classifier.

``UIWorker("ui", llm=llm, classifier=LocalClassifier())`` answers the worker's own questions
(``which_element``, ``check_screen``, ``select_elements``, ``should_respond``) in-process, in
milliseconds, with calibrated probabilities and no network. The questions run in Hark's Rust
core on a tokio blocking thread, off the GIL and off the event loop.

What it reads is exactly what Pipecat 1.14's ``UIWorker`` sends: the ``<ui_state>`` text of the
screen (it tells apart elements of the same name by their ``[ref=eN]`` lines), the user's words,
select criteria and UI events. A question it cannot read (another yes/no question, a score
question) raises :class:`LocalClassifierError` saying why, or goes to ``fallback`` when one is
given; so does a choice among more than 255 options (Pipecat's ``UIWorker`` offers every named
element on screen).

Without the sentence-embedding model (``python -m hark.models fetch`` installs it) it answers
from lexical features alone, at lower confidence, and says so once in the log; with
``require_model=True`` it refuses to start instead.

``multilingual=True`` answers choices with the learned ranker over multilingual-e5-small
(``python -m hark.models fetch --multilingual``): callers speaking Spanish, French or German on
pages in their language are understood far better than by the English lexical features, at
about 4–5 ms a question (the first question on a new page embeds its names, up to 0.3 s at 255
options); on English pages the default model is still the better one (``docs/PERFORMANCE.md``,
"Grounding in four languages").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from os import PathLike
from typing import Any

from loguru import logger
from pipecat.classifiers.base_classifier import (
    BaseClassifier,
    ChoiceQuestion,
    ChoiceResult,
    ClassifierError,
    ClassifierImage,
    ClassifierQuestion,
    ClassifierResult,
    ScoreLevel,
    ScoreQuestion,
    ScoreResult,
    YesNoQuestion,
    YesNoResult,
)
from pipecat.metrics.metrics import LLMTokenUsage

from hark import _core

#: The error kinds a ``fallback`` classifier answers in Hark's place.
FALLBACK_KINDS = frozenset({"unreadable_question", "too_many_options"})

_warned: set[str] = set()


class LocalClassifierError(ClassifierError):
    """Hark's local classifier could not answer: the text says why and what to do.

    ``kind`` names the failure: ``unreadable_question`` (a question the local classifier does
    not read), ``too_many_options`` (a choice among more than 255 options), ``missing_model``
    (``require_model=True`` without the model), ``bad_input`` (a state or question that is not
    JSON, or contradicting arguments), ``bad_answer`` or ``other``.
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class LocalClassifier(BaseClassifier):
    """Hark's local classifier for Pipecat: see the module docs.

    Args:
        model_dir: Where the sentence-embedding model's files are; by default
            ``$HARK_MODEL_DIR``, else ``$XDG_CACHE_HOME/hark/models``, else
            ``~/.cache/hark/models`` (where ``python -m hark.models fetch`` puts them); a
            leading ``~`` is the home folder.
        require_model: Raise :class:`LocalClassifierError` (``missing_model``) when the model
            is absent or does not load, instead of answering from lexical features alone.
        embeddings: ``False`` answers from lexical features only and loads no model.
        multilingual: ``True`` answers choices with the learned multilingual ranker (see the
            module docs); yes/no questions are read as always.
        fallback: Another classifier (such as Pipecat's ``LLMClassifier``) that answers a call
            Hark cannot read (``FALLBACK_KINDS``).
        **kwargs: Passed to ``BaseClassifier``.
    """

    def __init__(
        self,
        *,
        model_dir: str | PathLike[str] | None = None,
        require_model: bool = False,
        embeddings: bool = True,
        multilingual: bool = False,
        fallback: BaseClassifier | None = None,
        **kwargs: Any,
    ) -> None:
        from hark._misuse import expect

        example = 'LocalClassifier(model_dir="~/.cache/hark/models")'
        expect("LocalClassifier", "model_dir", model_dir, (str, PathLike), "a folder (str or Path)", example, optional=True)
        flags = (
            ("require_model", require_model), ("embeddings", embeddings),
            ("multilingual", multilingual),
        )
        for flag, value in flags:
            expect("LocalClassifier", flag, value, bool, "True or False", f"LocalClassifier({flag}=True)")
        expect(
            "LocalClassifier", "fallback", fallback, BaseClassifier, "a Pipecat classifier",
            "LocalClassifier(fallback=LLMClassifier(llm))", optional=True,
        )
        super().__init__(**kwargs)
        try:
            self._core = _core.LocalClassifier(
                # "~/…" as a shell reads it: the folder the docs and the fetch command name.
                model_dir=None if model_dir is None else os.path.expanduser(os.fspath(model_dir)),
                require_model=require_model,
                embeddings=embeddings,
                multilingual=multilingual,
            )
        except _core.ClassifyError as e:
            raise LocalClassifierError(str(e), e.kind) from None
        self._fallback = fallback
        reason = self._core.model_error
        if reason and reason not in _warned:
            _warned.add(reason)
            logger.warning(
                f"hark LocalClassifier: no sentence-embedding model ({reason}); answering from "
                "lexical features only, at lower confidence"
            )

    @property
    def model(self) -> str | None:
        """The model named in the metrics."""
        if self._core.multilingual:
            return "hark-local-multilingual"
        return "hark-local" if self._core.semantic else "hark-local-lexical"

    @property
    def semantic(self) -> bool:
        """Whether a sentence-embedding model scores the options."""
        return self._core.semantic

    @property
    def multilingual(self) -> bool:
        """Whether the learned multilingual ranker answers the choices."""
        return self._core.multilingual

    @property
    def fallback(self) -> BaseClassifier | None:
        """The classifier that answers what Hark cannot read, if any."""
        return self._fallback

    async def setup(self, task_manager) -> None:
        """Set up this classifier and its fallback."""
        await super().setup(task_manager)
        if self._fallback is not None:
            await self._fallback.setup(task_manager)

    async def cleanup(self) -> None:
        """Clean up this classifier and its fallback."""
        await super().cleanup()
        if self._fallback is not None:
            await self._fallback.cleanup()

    async def _ask(
        self,
        state: str | dict[str, Any] | list[Any],
        questions: Mapping[str, ClassifierQuestion],
        images: Sequence[ClassifierImage] = (),
    ) -> tuple[dict[str, ClassifierResult], LLMTokenUsage | None]:
        try:
            answers = json.loads(await self._core.ask(_state_json(state), _questions_json(questions)))
        except (_core.ClassifyError, LocalClassifierError) as e:
            if self._fallback is not None and e.kind in FALLBACK_KINDS:
                return await self._fallback.ask(state, questions, images=images or None), None
            raise LocalClassifierError(str(e), e.kind) from None
        return {name: _result(questions[name], answers[name]) for name in questions}, None


# A Python str can hold a lone UTF-16 surrogate (a page that cut an emoji in half); UTF-8 cannot.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so it crosses into the Rust core."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _state_json(state: Any) -> str:
    try:
        return _utf8(json.dumps(state, ensure_ascii=False))
    except (TypeError, ValueError) as e:
        raise LocalClassifierError(
            f"the state is not JSON ({e}): pass what the questions are about as a string, a dict "
            "or a list of JSON values",
            "bad_input",
        ) from None


def _questions_json(questions: Mapping[str, ClassifierQuestion]) -> str:
    shapes: dict[str, dict[str, Any]] = {}
    for name, q in questions.items():
        if isinstance(q, YesNoQuestion):
            shapes[name] = {"kind": "yes_no", "instructions": q.instructions, "yes": q.yes, "no": q.no}
        elif isinstance(q, ChoiceQuestion):
            options = [[option, description] for option, description in q.options.items()]
            shapes[name] = {"kind": "choice", "instructions": q.instructions, "options": options}
        elif isinstance(q, ScoreQuestion):
            shapes[name] = {"kind": "score", "instructions": q.instructions, "levels": list(q.levels)}
        else:
            raise LocalClassifierError(
                f"the question {name!r} is a {type(q).__name__}, not one of Pipecat's "
                "YesNoQuestion, ChoiceQuestion or ScoreQuestion",
                "unreadable_question",
            )
    try:
        return _utf8(json.dumps(shapes, ensure_ascii=False))
    except (TypeError, ValueError) as e:
        raise LocalClassifierError(f"the questions are not JSON ({e})", "bad_input") from None


def _result(question: ClassifierQuestion, answer: dict[str, Any]) -> ClassifierResult:
    kind = answer["kind"]
    if kind == "yes_no":
        return YesNoResult(probability=answer["probability"])
    if kind == "choice":
        return ChoiceResult(
            choice=answer["choice"],
            probabilities=dict(answer["probabilities"]),
            confidence=answer["confidence"],
        )
    assert isinstance(question, ScoreQuestion)
    probabilities = answer["probabilities"]
    return ScoreResult(
        score=sum(i * p for i, p in enumerate(probabilities)),
        levels=[ScoreLevel(level=lv, probability=p) for lv, p in zip(question.levels, probabilities)],
        confidence=answer["confidence"],
    )
