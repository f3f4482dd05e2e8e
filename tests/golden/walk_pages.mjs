// Runs client-js's own `snapshotDocument()` (the a11y walker of @pipecat-ai/client-js 1.13.1)
// over real pages in headless Debian Chromium and writes one snapshot JSON per capture.
//
// Usage: node walk_pages.mjs <snap-bundle.js> <out-dir> <page.html>...
//   <snap-bundle.js>: client-js bundled by esbuild as an IIFE exposing `HarkSnap.snapshotDocument`.
//
// Per page, up to three captures (deterministic: Math.random is seeded from the page name,
// captured_at is pinned):
//   <page>.load.json    right after load (MiniWoB pages: after core.startEpisodeReal()).
//   <page>.edit.json    after typing into the first text input and checking the first checkbox
//                       (only when the page has one of them).
//   <page>.select.json  with a text selection: inside the first text input (start/end offsets)
//                       or, without inputs, over the first paragraph/div text (document selection).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

const [bundle, outDir, ...pages] = process.argv.slice(2);
if (!bundle || !outDir || pages.length === 0) {
  console.error('usage: node walk_pages.mjs <snap-bundle.js> <out-dir> <page.html>...');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const bundleSrc = fs.readFileSync(bundle, 'utf8');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});

function seedOf(name) {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

let written = 0;
let pageIndex = 0;
for (const file of pages) {
  const name = path.basename(file, '.html');
  const ctx = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const page = await ctx.newPage();
  await page.addInitScript((seed) => {
    let s = seed >>> 0;
    Math.random = () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }, seedOf(name));
  try {
    await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 15000 });
    await page.evaluate(() => {
      if (window.core && typeof window.core.startEpisodeReal === 'function') {
        window.core.EPISODE_MAX_TIME = 3600 * 1000;
        const cover = document.getElementById('sync-task-cover');
        if (cover) cover.remove();
        window.core.startEpisodeReal();
      }
    });
    await page.waitForTimeout(150);
    await page.addScriptTag({ content: bundleSrc });
    const capturedAt = 1767225600000 + pageIndex * 1000;
    const snap = async (suffix, n) => {
      const tree = await page.evaluate(() => window.HarkSnap.snapshotDocument());
      tree.captured_at = capturedAt + n;
      fs.writeFileSync(path.join(outDir, `${name}.${suffix}.json`), JSON.stringify(tree));
      written++;
    };
    await snap('load', 0);
    const edited = await page.evaluate(() => {
      let did = false;
      const input = [...document.querySelectorAll('input[type=text], input:not([type]), textarea')]
        .find((e) => e.offsetParent !== null);
      if (input) {
        input.focus();
        input.value = 'Zoë "Q" <b>&amp;</b>';
        input.dispatchEvent(new Event('input', { bubbles: true }));
        did = true;
      }
      const box = [...document.querySelectorAll('input[type=checkbox], input[type=radio]')]
        .find((e) => e.offsetParent !== null);
      if (box) {
        box.checked = true;
        did = true;
      }
      return did;
    });
    if (edited) await snap('edit', 1);
    const selected = await page.evaluate(() => {
      const input = [...document.querySelectorAll('input[type=text], input:not([type]), textarea')]
        .find((e) => e.offsetParent !== null && e.value.length >= 3);
      if (input) {
        input.focus();
        input.setSelectionRange(1, 3);
        return true;
      }
      const el = [...document.querySelectorAll('#area p, #area div, #area span, p, li, td')]
        .find((e) => e.offsetParent !== null && (e.textContent || '').trim().length > 3);
      if (!el) return false;
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      return true;
    });
    if (selected) await snap('select', 2);
  } catch (e) {
    console.error(`skip ${name}: ${e.message.split('\n')[0]}`);
  }
  await ctx.close();
  pageIndex++;
}
await browser.close();
console.log(`walk_pages: ${written} snapshots from ${pages.length} pages`);
