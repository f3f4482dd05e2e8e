#!/usr/bin/env bash
# Sets up and runs the Hark demo: the demo page (web/) and the `hark` server in release mode.
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

echo
echo "Open http://$addr"
echo
exec "$hark" serve --demo --addr "$addr" --web-dir "$root/web/dist"
