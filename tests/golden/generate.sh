#!/usr/bin/env bash
# Regenerates tests/golden/cases/ by running pipecat-ai 1.14.0's own render_ui_state /
# render_ui_event (see README.md). Nothing is installed outside a throwaway work directory.
#
# Needs: python3 (3.10+), node + npm, /usr/bin/chromium (Debian package `chromium`), unzip,
# access to PyPI and the npm registry.
# Env: HARK_GOLDEN_WORK  work dir (default: a fresh mktemp -d under /tmp; kept for inspection)
#      HARK_SHARED       the shared docs folder (default: <repo>/../shared)
#      CHROMIUM          browser binary (default /usr/bin/chromium)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SHARED=${HARK_SHARED:-$REPO/../shared}
WORK=${HARK_GOLDEN_WORK:-$(mktemp -d /tmp/hark-golden.XXXXXX)}
mkdir -p "$WORK"
echo "work dir: $WORK"

PIPECAT_VERSION=1.14.0
MINIWOB_VERSION=1.1.0
CLIENT_JS_VERSION=1.13.1
PLAYWRIGHT_CORE_VERSION=1.65.1
ESBUILD_VERSION=0.28.2

# 1. pipecat-ai in a throwaway venv; the MiniWoB++ task pages from the `miniwob` wheel.
if [ ! -x "$WORK/venv/bin/python" ]; then
  python3 -m venv "$WORK/venv"
fi
"$WORK/venv/bin/pip" install -q "pipecat-ai==$PIPECAT_VERSION"
"$WORK/venv/bin/pip" download -q --no-deps "miniwob==$MINIWOB_VERSION" -d "$WORK/dl"
rm -rf "$WORK/miniwob" && mkdir -p "$WORK/miniwob"
unzip -q -o "$WORK"/dl/miniwob-"$MINIWOB_VERSION"-*.whl -d "$WORK/miniwob"

# 2. client-js's a11y walker, bundled for the browser, and playwright-core to drive Chromium.
mkdir -p "$WORK/node"
cp "$HERE/walk_pages.mjs" "$WORK/node/"
(
  cd "$WORK/node"
  [ -f package.json ] || npm init -y >/dev/null
  npm install --silent --no-audit --no-fund "@pipecat-ai/client-js@$CLIENT_JS_VERSION" \
    "playwright-core@$PLAYWRIGHT_CORE_VERSION" "esbuild@$ESBUILD_VERSION"
  echo "export { snapshotDocument } from '@pipecat-ai/client-js';" > entry.js
  ./node_modules/.bin/esbuild entry.js --bundle --format=iife --global-name=HarkSnap \
    --log-level=warning --outfile=snap.js
)

# 3. Walk the pages: every MiniWoB++ task page, and the demo page when it has been built.
rm -rf "$WORK/walked"
WALKED=()
node "$WORK/node/walk_pages.mjs" "$WORK/node/snap.js" "$WORK/walked/miniwob" \
  "$WORK"/miniwob/miniwob/html/miniwob/*.html
WALKED+=(--walked "$WORK/walked/miniwob")
if [ -f "$REPO/web/dist/index.html" ]; then
  rm -rf "$WORK/demo-site" && cp -r "$REPO/web/dist" "$WORK/demo-site"
  node "$WORK/node/walk_pages.mjs" "$WORK/node/snap.js" "$WORK/walked/demo" "$WORK/demo-site/index.html"
  WALKED+=(--walked "$WORK/walked/demo")
else
  echo "note: web/dist/index.html not built; demo page skipped (build it with: cd web && npm run build)"
fi

# 4. Render everything with pipecat's own functions.
"$WORK/venv/bin/python" "$HERE/generate.py" --out "$HERE/cases" "${WALKED[@]}" \
  --grounding "$SHARED/grounding-data" 2> >(grep -v "Pipecat $PIPECAT_VERSION" >&2)
du -sh "$HERE/cases"
