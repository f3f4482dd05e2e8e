// Manual check of the demo page against a running hark server, in headless Chromium:
//
//   node web/tests/check-live.mjs http://127.0.0.1:7860/ [message] [screenshot.png]
//
// Opens the page, waits until the client is `ready`, types `message` (default "hello") into the
// conversation panel and sends it, waits briefly for a reply, then prints the connection state
// and the conversation log (after 2 s more, so the server gets snapshots), and saves a screenshot if asked. Exits 1 if the page never got ready.

import { writeFile } from "node:fs/promises";

import { startBrowser } from "./harness.mjs";

const [url = "http://127.0.0.1:7860/", message = "hello", shot] = process.argv.slice(2);
const browser = await startBrowser();
let code = 0;
try {
  await browser.open(url);
  try {
    await browser.until("state ready", "document.body.dataset.rtviState === 'ready'");
    console.log("state: ready");
  } catch {
    console.log(`state: ${await browser.evaluate("document.body.dataset.rtviState")} (never ready)`);
    code = 1;
  }
  if (code === 0) {
    await browser.evaluate(
      `document.getElementById('message').value = ${JSON.stringify(message)}; document.getElementById('send').click()`,
    );
    try {
      await browser.until("a reply", "document.querySelectorAll('#log li.bot, #log li.system').length > 1");
    } catch {
      console.log("(no reply seen)");
    }
  }
  await new Promise((r) => setTimeout(r, 2000)); // let a snapshot or two reach the server
  const lines = await browser.evaluate("[...document.querySelectorAll('#log li')].map((li) => li.textContent)");
  console.log(lines.map((l) => `  ${l}`).join("\n") || "  (log empty)");
  if (shot) await writeFile(shot, await browser.screenshot());
} finally {
  await browser.close();
}
process.exit(code);
