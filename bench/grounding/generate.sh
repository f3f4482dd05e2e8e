#!/usr/bin/env bash
# Regenerates bench/grounding/rows.jsonl (see README.md). About 10 minutes on 2 cores.
# Nothing is installed outside a throwaway work directory; only rows.jsonl lands in the repo.
#
# Needs: python3, node + npm, /usr/bin/chromium (Debian package `chromium`), unzip, access to
# PyPI (the `miniwob` wheel: its task pages) and the npm registry (client-js, playwright-core,
# esbuild), and the demo page built (web/dist/index.html: cd web && npm run build).
# Env: HARK_GROUNDING_WORK  work dir (default: a fresh mktemp -d under /tmp; kept for inspection,
#                           reused when given: installs and the MiniWoB walk are skipped if present)
#      HARK_SHARED          the shared docs folder (default: <repo>/../shared)
#      CHROMIUM             browser binary (default /usr/bin/chromium)
#      HARK_DEMO_PORT       local port for serving the demo page (default 8765)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SHARED=${HARK_SHARED:-$REPO/../shared}
WORK=${HARK_GROUNDING_WORK:-$(mktemp -d /tmp/hark-grounding.XXXXXX)}
PORT=${HARK_DEMO_PORT:-8765}
mkdir -p "$WORK"
echo "work dir: $WORK"

MINIWOB_VERSION=1.1.0
CLIENT_JS_VERSION=1.13.1
PLAYWRIGHT_CORE_VERSION=1.65.1
ESBUILD_VERSION=0.28.2

# Tasks and seeds (seeds 0..n-1). Single-click tasks whose target is read from the tree; the
# splits are in build.py (by task).
MINIWOB_TASKS=(click-button:120 unicode-test:100 click-dialog-2:100 buy-ticket:100 click-tab:100
  click-widget:80 click-test-2:60 click-test-transfer:60 click-dialog:30 click-test:15)

# 1. The MiniWoB++ task pages from the `miniwob` wheel (MIT).
if [ ! -d "$WORK/miniwob/miniwob/html/miniwob" ]; then
  python3 -m pip download -q --no-deps "miniwob==$MINIWOB_VERSION" -d "$WORK/dl"
  rm -rf "$WORK/miniwob" && mkdir -p "$WORK/miniwob"
  unzip -q -o "$WORK"/dl/miniwob-"$MINIWOB_VERSION"-*.whl -d "$WORK/miniwob"
fi

# 2. client-js's a11y walker bundled for the browser (snapshotDocument and its ref registry),
#    and playwright-core to drive Chromium.
mkdir -p "$WORK/node"
cp "$HERE/miniwob_rows.mjs" "$HERE/demo_rows.mjs" "$WORK/node/"
(
  cd "$WORK/node"
  [ -f package.json ] || npm init -y >/dev/null
  [ -d node_modules/@pipecat-ai/client-js ] || npm install --silent --no-audit --no-fund \
    "@pipecat-ai/client-js@$CLIENT_JS_VERSION" "playwright-core@$PLAYWRIGHT_CORE_VERSION" \
    "esbuild@$ESBUILD_VERSION"
  echo "export { snapshotDocument, findElementByRef, findRefForElement } from '@pipecat-ai/client-js';" > entry.js
  ./node_modules/.bin/esbuild entry.js --bundle --format=iife --global-name=HarkSnap \
    --log-level=warning --outfile=snap.js
)

# 3. MiniWoB++ rows: instruction + reward-found target (the slow part: one trial click per option).
if [ ! -s "$WORK/miniwob_rows.jsonl" ]; then
  node "$WORK/node/miniwob_rows.mjs" "$WORK/node/snap.js" "$WORK/miniwob/miniwob/html/miniwob" \
    "$WORK/miniwob_rows.jsonl.part" "${MINIWOB_TASKS[@]}"
  mv "$WORK/miniwob_rows.jsonl.part" "$WORK/miniwob_rows.jsonl"
fi

# 4. Demo shop rows: the built page served over HTTP (its module script needs it).
if [ ! -f "$REPO/web/dist/index.html" ]; then
  echo "web/dist/index.html is missing: build the demo page first (cd web && npm run build)" >&2
  exit 1
fi
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$REPO/web/dist" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 1
node "$WORK/node/demo_rows.mjs" "$WORK/node/snap.js" "http://127.0.0.1:$PORT/index.html" \
  "$WORK/demo_rows.jsonl"

# 5. Everything together, with the shared grounding-data trees and the splits.
python3 "$HERE/build.py" --miniwob "$WORK/miniwob_rows.jsonl" --demo "$WORK/demo_rows.jsonl" \
  --shared "$SHARED/grounding-data" --out "$HERE/rows.jsonl"
