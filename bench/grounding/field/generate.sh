#!/usr/bin/env bash
# Regenerates bench/grounding/field/pages.jsonl and rows.jsonl (see README.md). A few minutes.
# Needs python3 (stdlib), node + npm, /usr/bin/chromium, and the npm registry for
# @pipecat-ai/client-js, playwright-core and esbuild (installed into a throwaway work dir, the
# same versions and bundle as ../generate.sh's step 2).
# Env: HARK_FIELD_WORK  work dir (default: a fresh mktemp -d; reused when given)
#      CHROMIUM         browser binary (default /usr/bin/chromium)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${HARK_FIELD_WORK:-$(mktemp -d /tmp/hark-field.XXXXXX)}
mkdir -p "$WORK/node"
echo "work dir: $WORK"

CLIENT_JS_VERSION=1.13.1
PLAYWRIGHT_CORE_VERSION=1.65.1
ESBUILD_VERSION=0.28.2

# 1. client-js's a11y walker bundled for the browser, and playwright-core to drive Chromium.
cp "$HERE/field_rows.mjs" "$WORK/node/"
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

# 2. The pages (static HTML) and their descriptions, seeded.
rm -rf "$WORK/gen"
python3 "$HERE/gen.py" "$WORK/gen"

# 3. Snapshot every page with client-js's walker, resolve targets to refs.
node "$WORK/node/field_rows.mjs" "$WORK/node/snap.js" "$WORK/gen" "$HERE/pages.jsonl" "$HERE/rows.jsonl"

# 4. Check and count.
python3 "$HERE/check.py" "$HERE/pages.jsonl" "$HERE/rows.jsonl"
