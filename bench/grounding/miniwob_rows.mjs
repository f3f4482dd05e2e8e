// Grounding rows from MiniWoB++ task pages: snapshot with client-js's own walker, the task's
// instruction as the description, the target found by the task's own reward.
//
// Usage: node miniwob_rows.mjs <snap-bundle.js> <miniwob-html-dir> <out.jsonl> <task:seeds>...
//   <snap-bundle.js>: @pipecat-ai/client-js bundled by esbuild as an IIFE exposing
//                     `HarkSnap.snapshotDocument`, `HarkSnap.findElementByRef`, `HarkSnap.findRefForElement`.
//   <task:seeds>:     e.g. `click-button:40` (seeds 0..39).
//
// Per task and seed (deterministic):
//   1. load the page, `Math.seedrandom(String(seed))`, `core.startEpisodeReal()`; the instruction
//      (`#query`) and MiniWoB's reward panel get `data-a11y-exclude` (client-js's opt-out), so the
//      tree holds the task area only and the instruction is not on screen as text;
//   2. `snapshotDocument()`; the options are the named elements (non-empty ref and name,
//      breadth-first, at most 255: what `UiWorker::which_element` offers);
//   3. for every option: restart the episode with the same seed, snapshot again (the same roles
//      and names in the same order, or the page is reloaded), click that option's element (a real
//      mouse click at its centre when the centre hits it, else a DOM click), read the task's raw
//      reward (`WOB_RAW_REWARD_GLOBAL`). Options whose click scores > 0 are the row's `refs`.
// Rows whose task never scores with one click of an option get `refs: []` ("none").
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

const [bundle, htmlDir, outFile, ...specs] = process.argv.slice(2);
if (!bundle || !htmlDir || !outFile || specs.length === 0) {
  console.error('usage: node miniwob_rows.mjs <snap-bundle.js> <miniwob-html-dir> <out.jsonl> <task:seeds>...');
  process.exit(2);
}
const bundleSrc = fs.readFileSync(bundle, 'utf8');
const out = fs.openSync(outFile, 'w');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});

// Pinned so that the data is byte-stable across runs.
const CAPTURED_AT = 1767225600000;

async function load(page, file) {
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 15000 });
  await page.addScriptTag({ content: bundleSrc });
}

/** Starts episode `seed` and returns {snapshot, utterance, options: [[ref, role, name]]}. */
async function episode(page, seed) {
  await page.evaluate((seed) => {
    core.EPISODE_MAX_TIME = 3600 * 1000;
    Math.seedrandom(String(seed));
    core.startEpisodeReal();
    for (const id of ['query', 'reward-display', 'click-canvas', 'sync-task-cover']) {
      const el = document.getElementById(id);
      if (el) el.setAttribute('data-a11y-exclude', '');
    }
  }, seed);
  await page.waitForTimeout(60);
  return page.evaluate((capturedAt) => {
    const snapshot = window.HarkSnap.snapshotDocument();
    snapshot.captured_at = capturedAt;
    const options = [];
    const queue = [snapshot.root];
    while (queue.length > 0 && options.length < 255) {
      const node = queue.shift();
      if (node.ref && node.name) options.push([node.ref, node.role, node.name]);
      for (const child of node.children || []) queue.push(child);
    }
    return { snapshot, utterance: core.getUtterance(), options };
  }, CAPTURED_AT);
}

const same = (a, b) =>
  a.length === b.length && a.every((o, i) => o[1] === b[i][1] && o[2] === b[i][2]);

/** Clicks the element of `ref`; returns the task's raw reward afterwards. */
async function clickAndReward(page, ref) {
  const how = await page.evaluate((ref) => {
    const el = window.HarkSnap.findElementByRef(ref);
    if (!el) return null;
    el.scrollIntoView({ block: 'center' });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    let hit = r.width > 0 && r.height > 0 ? document.elementFromPoint(x, y) : null;
    // The nearest element with a ref at the centre must be this one, else the mouse would
    // click something else (a child button inside a named container, an overlay).
    while (hit && !window.HarkSnap.findRefForElement(hit)) hit = hit.parentElement;
    if (hit && window.HarkSnap.findRefForElement(hit) === ref) return { x, y };
    if (typeof el.focus === 'function') el.focus();
    el.click();
    return { dom: true };
  }, ref);
  if (how === null) return 0;
  if (!how.dom) await page.mouse.click(how.x, how.y);
  await page.waitForTimeout(40);
  return page.evaluate(() => WOB_RAW_REWARD_GLOBAL);
}

let rows = 0;
for (const spec of specs) {
  const [task, n] = spec.split(':');
  const file = path.join(htmlDir, `${task}.html`);
  const ctx = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const page = await ctx.newPage();
  let found = 0;
  for (let seed = 0; seed < Number(n); seed++) {
    try {
      await load(page, file);
      const first = await episode(page, seed);
      const refs = [];
      let drift = 0;
      for (let i = 0; i < first.options.length; i++) {
        let again = await episode(page, seed);
        if (!same(again.options, first.options)) {
          await load(page, file);
          again = await episode(page, seed);
          if (!same(again.options, first.options)) {
            drift++;
            continue;
          }
        }
        const reward = await clickAndReward(page, again.options[i][0]);
        if (reward > 0) refs.push(first.options[i][0]);
      }
      if (refs.length > 0) found++;
      const row = {
        page: `miniwob/${task}`,
        task,
        seed,
        snapshot: first.snapshot,
        description: first.utterance,
        refs,
        options: first.options.length,
      };
      if (drift > 0) row.note = `${drift} option(s) not tried: the page differed on restart`;
      fs.writeSync(out, JSON.stringify(row) + '\n');
      rows++;
    } catch (e) {
      console.error(`skip ${task} seed ${seed}: ${e.message.split('\n')[0]}`);
    }
  }
  console.error(`${task}: ${n} seeds, ${found} with a target among the options`);
  await ctx.close();
}
await browser.close();
fs.closeSync(out);
console.error(`miniwob_rows: ${rows} rows`);
