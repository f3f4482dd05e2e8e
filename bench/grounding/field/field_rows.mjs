// Field-like grounding data, step 2: snapshots each page that gen.py wrote with client-js's own
// walker (snapshotDocument, bundled as snap.js) in headless Chromium, resolves every target
// (a data-k attribute) to its ref, and checks each target is a named element (an option of
// which_element). Writes pages.jsonl (one snapshot per page) and rows.jsonl.
//
// Usage: node field_rows.mjs <snap-bundle.js> <gen-out-dir> <pages.jsonl> <rows.jsonl>
//   Pages are loaded from file:// (static HTML, no scripts of their own).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [bundle, genDir, pagesOut, rowsOut] = process.argv.slice(2);
if (!bundle || !genDir || !pagesOut || !rowsOut) {
  console.error('usage: node field_rows.mjs <snap-bundle.js> <gen-out-dir> <pages.jsonl> <rows.jsonl>');
  process.exit(2);
}
const bundleSrc = fs.readFileSync(bundle, 'utf8');
const manifest = fs.readFileSync(path.join(genDir, 'manifest.jsonl'), 'utf8')
  .split('\n').filter(Boolean).map((l) => JSON.parse(l));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const pagesFd = fs.openSync(pagesOut, 'w');
const rowsFd = fs.openSync(rowsOut, 'w');
let nrows = 0;
let dropped = 0;
let truncated = 0;
const CAPTURED_AT = 1767225600000; // 2026-01-01T00:00:00Z, pinned so the files are reproducible
for (const [pi, entry] of manifest.entries()) {
  const page = await ctx.newPage();
  await page.goto(pathToFileURL(path.join(genDir, entry.file)).href, { waitUntil: 'load' });
  await page.addScriptTag({ content: bundleSrc });
  const res = await page.evaluate(([capturedAt, keys]) => {
    const s = window.HarkSnap.snapshotDocument();
    s.captured_at = capturedAt;
    const refs = {};
    for (const k of keys) {
      const el = document.querySelector(`[data-k="${k}"]`);
      refs[k] = el ? window.HarkSnap.findRefForElement(el) : null;
    }
    return { snapshot: s, refs };
  }, [CAPTURED_AT + pi * 1000, [...new Set(entry.rows.flatMap((r) => r.targets))]]);
  await page.close();
  const { snapshot } = res;
  // Named elements as which_element sees them: non-empty ref and name, breadth-first, <= 255.
  const named = new Set();
  let nodes = 0;
  const queue = [snapshot.root];
  while (queue.length > 0) {
    const node = queue.shift();
    nodes++;
    if (node.ref && node.name && named.size < 255) named.add(node.ref);
    for (const child of node.children || []) queue.push(child);
  }
  if (nodes >= 200) truncated++;
  fs.writeSync(pagesFd, JSON.stringify({ page: entry.page, site: entry.site, kind: entry.kind, lang: entry.lang,
    split: entry.split, named: named.size, snapshot }) + '\n');
  for (const row of entry.rows) {
    const refs = [];
    let bad = false;
    for (const k of row.targets) {
      const ref = res.refs[k];
      if (!ref || !named.has(ref)) { bad = true; break; }
      if (!refs.includes(ref)) refs.push(ref);
    }
    if (bad) {
      dropped++;
      if (dropped <= 20) console.error(`${entry.page}: ${JSON.stringify(row.description)}: target not a named element`);
      continue;
    }
    fs.writeSync(rowsFd, JSON.stringify({ page: entry.page, description: row.description, lang: row.lang,
      desc_kind: row.desc_kind, refs }) + '\n');
    nrows++;
  }
}
await browser.close();
fs.closeSync(pagesFd);
fs.closeSync(rowsFd);
console.error(`field_rows: ${manifest.length} pages (${truncated} hit the 200-node budget), ${nrows} rows, ${dropped} dropped`);
