#!/usr/bin/env bash
# Sets up the Python side for development and tests: a venv with the test requirements (the real
# pipecat-ai 1.14.0 from PyPI among them), and Hark's package built into it with maturin.
#
#   scripts/python-env.sh            # then: target/py-venv/bin/pytest python/tests
#   HARK_PY_VENV=DIR scripts/python-env.sh
#   HARK_PY_RELEASE=1 scripts/python-env.sh   # an optimised build (benchmarks)
#
# Prints the venv's path on its last line. Can be run again: the requirements are installed once
# (python/requirements-test.txt changes them), the package is rebuilt every time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HARK_PY_VENV:-$root/target/py-venv}"
python="${HARK_PYTHON:-python3}"

fail() { echo "python-env.sh: $*" >&2; exit 1; }
command -v "$python" >/dev/null 2>&1 || fail "$python not found: install CPython 3.11 or newer (pipecat-ai 1.14 needs 3.11)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  fail "$("$python" --version) is too old: pipecat-ai 1.14 needs Python 3.11 or newer (set HARK_PYTHON)"

if [[ ! -x "$venv/bin/python" ]]; then
  echo "python-env.sh: creating $venv" >&2
  "$python" -m venv "$venv" || fail "python -m venv failed (on Debian: apt-get install python3-venv)"
fi
requirements="$root/python/requirements-test.txt"
stamp="$venv/.hark-requirements"
if ! cmp -s "$requirements" "$stamp"; then
  echo "python-env.sh: installing $(grep -cv '^#' "$requirements") test requirements into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" ||
    fail "pip could not install python/requirements-test.txt (see above)"
  cp "$requirements" "$stamp"
fi

release=()
[[ "${HARK_PY_RELEASE:-}" == 1 ]] && release=(--release)
echo "python-env.sh: building the hark package into $venv (maturin develop ${release[*]})" >&2
(cd "$root/python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop -q "${release[@]}") ||
  fail "maturin develop failed (see above)"
echo "$venv"
