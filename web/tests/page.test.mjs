// Tests of the demo page in headless Chromium, against a small RTVI endpoint (harness.mjs).
// They pin the page's side of the protocol: the handshake, the snapshot stream, the UI commands
// of research notes §5.1, sending text and showing the bot's lines; and voice (voice.js): the
// microphone button, microphone audio frames, bot audio playback and barge-in, in a second
// Chromium with a fake microphone.
// Run: npm test (from web/, after npm run build).

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { find, startBrowser, startServer } from "./harness.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");

let server;
let browser;
let peer;

/** Page expression: the text of the error lines (in #notices' shadow root). */
const NOTICES = "document.getElementById('notices').shadowRoot.textContent";

/** The latest snapshot the page sent. */
function latestTree() {
  const snaps = peer.received.filter((m) => m.type === "ui-snapshot");
  assert.ok(snaps.length > 0, "the page sent no ui-snapshot");
  return snaps.at(-1).data.tree;
}

/** The ref of the element with this role and name in the latest snapshot. */
function refOf(role, name) {
  const node = find(latestTree(), role, name);
  assert.ok(node, `no ${role} "${name}" in the latest snapshot`);
  assert.match(node.ref, /^e\d+$/);
  return node.ref;
}

/** Waits until the page has logged `count` more console.debug lines starting with `prefix`. */
async function debugLines(prefix, from, count = 1) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const hits = browser.consoleLines.slice(from).filter((l) => l.type === "debug" && l.text.startsWith(prefix));
    if (hits.length >= count) return hits;
    assert.ok(Date.now() < deadline, `no console.debug "${prefix}"`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("demo page", () => {
  before(async () => {
    server = await startServer(dist);
    browser = await startBrowser();
    await browser.open(server.url);
    peer = await server.peer();
  });

  after(async () => {
    if (process.env.HARK_PAGE_SCREENSHOT && browser) {
      await writeFile(process.env.HARK_PAGE_SCREENSHOT, await browser.screenshot());
    }
    await browser?.close();
    await server?.close();
  });

  test("connects to /ws on its own host, sends client-ready and reaches ready", async () => {
    // The browser has no usable microphone (harness NO_MEDIA_SCRIPT): the page still connects.
    const ready = await peer.waitFor("client-ready", (m) => m.type === "client-ready");
    assert.equal(ready.label, "rtvi-ai");
    assert.equal(ready.data.about.library, "@pipecat-ai/client-js");
    assert.match(ready.data.version, /^2\./);
    await browser.until("state ready", "document.body.dataset.rtviState === 'ready'");
    assert.equal(await browser.evaluate("document.getElementById('status').textContent"), "Connection: ready");
    assert.deepEqual(await browser.evaluate("window.__mediaRequests"), [], "connecting asked for a device or made an AudioContext");
    assert.equal(await browser.evaluate("document.getElementById('message').disabled || document.getElementById('send').disabled"), false);
    assert.equal(await browser.evaluate("document.getElementById('mic').disabled"), false, "the microphone button stays disabled once ready");
  });

  test("streams snapshots that show the shop and the checkout form, not the page's own conversation panel", async () => {
    const snap = await peer.waitFor("ui-snapshot", (m) => m.type === "ui-snapshot");
    const tree = snap.data.tree;
    assert.equal(tree.root.role, "generic");
    assert.equal(typeof tree.captured_at, "number");
    for (const [role, name] of [
      ["textbox", "Search"],
      ["button", "Add to cart"],
      ["listitem", "Espresso cup €9.50"],
      ["listitem", "Travel mug €19.00"],
      ["listitem", "Blue mug €22.00"],
      ["link", "Cart (0)"],
      ["textbox", "Name"],
      ["textbox", "Email"],
      ["combobox", "Country"],
      ["checkbox", "Gift wrap"],
      ["button", "Place order"],
    ]) {
      assert.ok(find(tree, role, name), `snapshot lacks ${role} "${name}"`);
    }
    // The chat (heading, log, message box, Send) is data-a11y-exclude: not part of the screen.
    for (const [role, name] of [
      ["heading", "Conversation"],
      ["textbox", "Message"],
      ["button", "Send"],
      ["button", "Microphone: off"],
    ]) {
      assert.ok(!find(tree, role, name), `snapshot shows the chat's ${role} "${name}"`);
    }
  });

  test("set_input_value by ref replaces the value, fires input then change, and the next snapshot shows it", async () => {
    await browser.evaluate(`(() => {
      const el = document.getElementById('name');
      window.events = [];
      for (const type of ['input', 'change']) document.body.addEventListener(type, (e) => { if (e.target === el) window.events.push(type); });
      el.value = 'old';
    })()`);
    const ref = refOf("textbox", "Name");
    const next = peer.next("a snapshot with the new Name", (m) => m.type === "ui-snapshot" && find(m.data.tree, "textbox", "Name")?.value === "Ana Lima");
    peer.command("set_input_value", { value: "Ana Lima", ref, target_id: null, replace: true });
    await browser.until("Name filled", "document.getElementById('name').value === 'Ana Lima'");
    assert.deepEqual(await browser.evaluate("window.events"), ["input", "change"]);
    await next;
  });

  test("set_input_value with replace false appends", async () => {
    const ref = refOf("textbox", "Name");
    peer.command("set_input_value", { value: " Silva", ref, replace: false });
    await browser.until("Name appended", "document.getElementById('name').value === 'Ana Lima Silva'");
  });

  test("set_input_value falls back to target_id when the ref does not resolve", async () => {
    peer.command("set_input_value", { value: "ana@example.com", ref: "e99999", target_id: "email" });
    await browser.until("Email filled", "document.getElementById('email').value === 'ana@example.com'");
  });

  test("set_input_value leaves read-only and disabled inputs alone", async () => {
    await browser.evaluate("document.getElementById('email').readOnly = true; document.getElementById('name').disabled = true");
    const from = browser.consoleLines.length;
    peer.command("set_input_value", { value: "x@example.com", target_id: "email" });
    await debugLines("ui-command set_input_value refused: input is read-only", from);
    peer.command("set_input_value", { value: "Mallory", target_id: "name" });
    await debugLines("ui-command set_input_value refused: input is disabled", from);
    assert.equal(await browser.evaluate("document.getElementById('email').value"), "ana@example.com");
    assert.equal(await browser.evaluate("document.getElementById('name').value"), "Ana Lima Silva");
    await browser.evaluate("document.getElementById('email').readOnly = false; document.getElementById('name').disabled = false");
  });

  test("set_input_value on the select sets its value and fires change", async () => {
    await browser.evaluate(`window.selectChanges = 0; document.getElementById('country').addEventListener('change', () => window.selectChanges++)`);
    const ref = refOf("combobox", "Country");
    peer.command("set_input_value", { value: "Portugal", ref, replace: false });
    await browser.until("Country Portugal", "document.getElementById('country').value === 'Portugal'");
    assert.equal(await browser.evaluate("window.selectChanges"), 1);
  });

  test("set_input_value on Search filters the product list", async () => {
    const ref = refOf("textbox", "Search");
    peer.command("set_input_value", { value: "mug", ref });
    await browser.until("list filtered", "document.querySelectorAll('#product-list li:not([hidden])').length === 2");
    assert.equal(
      await browser.evaluate("[...document.querySelectorAll('#product-list li:not([hidden]) .name')].map((n) => n.textContent).join(', ')"),
      "Travel mug, Blue mug",
    );
    peer.command("set_input_value", { value: "", ref });
    await browser.until("list restored", "document.querySelectorAll('#product-list li:not([hidden])').length === 9");
  });

  test("click on Add to cart updates the cart link; a disabled target is not clicked", async () => {
    const ref = refOf("button", "Add to cart");
    peer.command("click", { ref });
    await browser.until("Cart (1)", "document.getElementById('cart-link').textContent === 'Cart (1)'");
    const from = browser.consoleLines.length;
    await browser.evaluate("document.querySelector('#product-list button').disabled = true");
    peer.command("click", { ref });
    await debugLines("ui-command click refused: target is disabled", from);
    await browser.evaluate("document.querySelector('#product-list button').disabled = false");
    await browser.evaluate("document.querySelector('#product-list button').setAttribute('aria-disabled', 'true')");
    peer.command("click", { ref });
    await debugLines("ui-command click refused: target is aria-disabled", from);
    await browser.evaluate("document.querySelector('#product-list button').removeAttribute('aria-disabled')");
    assert.equal(await browser.evaluate("document.getElementById('cart-link').textContent"), "Cart (1)");
  });

  test("click on the Gift wrap checkbox checks it", async () => {
    const ref = refOf("checkbox", "Gift wrap");
    peer.command("click", { ref, target_id: null });
    await browser.until("Gift wrap checked", "document.getElementById('gift-wrap').checked");
  });

  test("highlight adds ui-highlight for duration_ms, and a new highlight clears the previous one", async () => {
    peer.command("highlight", { target_id: "place-order", duration_ms: 60000 });
    await browser.until("Place order highlighted", "document.getElementById('place-order').classList.contains('ui-highlight')");
    peer.command("highlight", { target_id: "cart-link", duration_ms: 100 });
    await browser.until("Cart highlighted", "document.getElementById('cart-link').classList.contains('ui-highlight')");
    assert.equal(await browser.evaluate("document.getElementById('place-order').classList.contains('ui-highlight')"), false);
    await browser.until("Cart highlight removed", "!document.getElementById('cart-link').classList.contains('ui-highlight')");
  });

  test("focus moves focus to the target", async () => {
    const ref = refOf("textbox", "Email");
    peer.command("focus", { ref });
    await browser.until("Email focused", "document.activeElement === document.getElementById('email')");
  });

  test("select_text selects a range inside an input, and the text of a paragraph", async () => {
    const ref = refOf("textbox", "Name");
    peer.command("select_text", { ref, start_offset: 4, end_offset: 8 });
    await browser.until(
      "Name selection 4..8",
      "(() => { const el = document.getElementById('name'); return document.activeElement === el && el.selectionStart === 4 && el.selectionEnd === 8; })()",
    );
    // An email input has no selection range: the handler selects it all instead of throwing.
    const from = browser.consoleLines.length;
    peer.command("select_text", { target_id: "email", start_offset: 0, end_offset: 3 });
    await browser.until("Email focused", "document.activeElement === document.getElementById('email')");
    assert.equal(browser.consoleLines.slice(from).filter((l) => l.type === "warning").length, 0);
    peer.command("select_text", { target_id: "cart-summary", start_offset: 0, end_offset: 7 });
    await browser.until("document selection", "String(window.getSelection()) === 'In your'");
    peer.command("select_text", { target_id: "cart-summary" });
    await browser.until("whole paragraph selected", "String(window.getSelection()) === document.getElementById('cart-summary').textContent");
  });

  test("scroll_to brings the target into view", async () => {
    await browser.evaluate("window.scrollTo(0, 0); document.body.style.minHeight = '4000px'; document.getElementById('order-result').style.marginTop = '3000px'");
    peer.command("scroll_to", { target_id: "order-result", behavior: "instant" });
    await browser.until(
      "order result in view",
      "(() => { const r = document.getElementById('order-result').getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()",
    );
    await browser.evaluate("document.body.style.minHeight = ''; document.getElementById('order-result').style.marginTop = ''; window.scrollTo(0, 0)");
  });

  test("unknown commands and missing targets change nothing and say why on console.debug", async () => {
    const before = await browser.evaluate("document.body.innerHTML");
    const from = browser.consoleLines.length;
    peer.command("navigate", { view: "nowhere" });
    await debugLines("ui-command navigate ignored: this page does not handle it", from);
    peer.command("click", { ref: "e99999", target_id: "no-such-id" });
    await debugLines("ui-command click refused: no element for this ref or target_id", from);
    assert.equal(await browser.evaluate("document.body.innerHTML"), before);
  });

  test("Send sends the message as send-text and the log shows it", async () => {
    await browser.evaluate("document.getElementById('message').value = 'Where is my cart?'; document.getElementById('send').click()");
    const sent = await peer.waitFor("send-text", (m) => m.type === "send-text");
    assert.equal(sent.data.content, "Where is my cart?");
    await browser.until("user line", "[...document.querySelectorAll('#log li.user')].some((li) => li.textContent === 'You:Where is my cart?')");
    assert.equal(await browser.evaluate("document.getElementById('message').value"), "");
  });

  test("the bot's reply shows as one line: streamed tokens, then bot-output sentences replacing them", async () => {
    const lastBot = "(() => { const l = [...document.querySelectorAll('#log li.bot .text')].at(-1); return l ? l.textContent : null; })()";
    const bots = "document.querySelectorAll('#log li.bot').length";
    const before = await browser.evaluate(bots);
    peer.send({ label: "rtvi-ai", type: "bot-llm-started" });
    peer.send({ label: "rtvi-ai", type: "bot-llm-text", data: { text: "It is " } });
    peer.send({ label: "rtvi-ai", type: "bot-llm-text", data: { text: "up top." } });
    await browser.until("streamed tokens", `${lastBot} === 'It is up top.'`);
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "It is up top.", aggregated_by: "sentence", segment_id: 1, will_be_spoken: false } });
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "It has one item.", aggregated_by: "sentence", segment_id: 2, will_be_spoken: false } });
    await browser.until("bot-output sentences", `${lastBot} === 'It is up top. It has one item.'`);
    // Spoken progress (word level) and a repeated segment do not add text.
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "It", aggregated_by: "word", segment_id: 1, spoken_status: "in-progress" } });
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "It has one item.", aggregated_by: "sentence", segment_id: 2, spoken_status: "completed" } });
    peer.send({ label: "rtvi-ai", type: "bot-llm-stopped" });
    peer.send({ label: "rtvi-ai", type: "server-message", data: { text: "marker 1" } });
    await browser.until("marker", "document.getElementById('log').textContent.includes('marker 1')");
    assert.equal(await browser.evaluate(lastBot), "It is up top. It has one item.");
    assert.equal(await browser.evaluate(bots), before + 1);
  });

  test("a bot that sends only word-level bot-output gets one line of its words", async () => {
    const lastBot = "(() => { const l = [...document.querySelectorAll('#log li.bot .text')].at(-1); return l ? l.textContent : null; })()";
    peer.send({ label: "rtvi-ai", type: "bot-llm-started" });
    for (const word of ["Your", " order", " ships", " today."]) {
      peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: word, aggregated_by: "word" } });
    }
    peer.send({ label: "rtvi-ai", type: "bot-llm-stopped" });
    await browser.until("word line", `${lastBot} === 'Your order ships today.'`);
  });

  test("with a voice, sentences played after the model stopped stay on the reply's line", async () => {
    const lastBot = "(() => { const l = [...document.querySelectorAll('#log li.bot .text')].at(-1); return l ? l.textContent : null; })()";
    const bots = "document.querySelectorAll('#log li.bot').length";
    const before = await browser.evaluate(bots);
    // The model streams its reply and stops; each sentence's bot-output comes as it is played.
    peer.send({ label: "rtvi-ai", type: "bot-llm-started" });
    peer.send({ label: "rtvi-ai", type: "bot-llm-text", data: { text: "I added the blue mug. " } });
    peer.send({ label: "rtvi-ai", type: "bot-llm-text", data: { text: "Anything else?" } });
    peer.send({ label: "rtvi-ai", type: "bot-llm-stopped" });
    peer.send({ label: "rtvi-ai", type: "bot-tts-started" });
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "I added the blue mug.", aggregated_by: "sentence", segment_id: 1, will_be_spoken: true } });
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "Anything else?", aggregated_by: "sentence", segment_id: 2, will_be_spoken: true } });
    peer.send({ label: "rtvi-ai", type: "server-message", data: { text: "marker 2" } });
    await browser.until("marker", "document.getElementById('log').textContent.includes('marker 2')");
    assert.equal(await browser.evaluate(bots), before + 1, "the reply shows once");
    assert.equal(await browser.evaluate(lastBot), "I added the blue mug. Anything else?");
    // After a user line, a late bot-output does not go back to the old reply.
    await browser.evaluate("document.getElementById('log').dataset.x = ''");
    peer.send({ label: "rtvi-ai", type: "bot-llm-started" });
    peer.send({ label: "rtvi-ai", type: "bot-llm-text", data: { text: "One moment." } });
    peer.send({ label: "rtvi-ai", type: "bot-llm-stopped" });
    peer.send({ label: "rtvi-ai", type: "user-transcription", data: { text: "stop", final: true, user_id: "", timestamp: new Date().toISOString() } });
    peer.send({ label: "rtvi-ai", type: "bot-output", data: { text: "One moment.", aggregated_by: "sentence", segment_id: 3, will_be_spoken: true } });
    peer.send({ label: "rtvi-ai", type: "server-message", data: { text: "marker 3" } });
    await browser.until("marker", "document.getElementById('log').textContent.includes('marker 3')");
    const kinds = await browser.evaluate("[...document.querySelectorAll('#log li')].slice(-4).map((l) => l.className + ':' + l.querySelector('.text').textContent)");
    assert.deepEqual(kinds.slice(0, 3), ["bot:One moment.", "user:stop", "bot:One moment."], JSON.stringify(kinds));
  });

  test("a hark-mode server-message fills the notice line, not the log, and stays out of snapshots", async () => {
    assert.equal(await browser.evaluate("document.getElementById('mode-notice').hidden"), true);
    const logBefore = await browser.evaluate("document.getElementById('log').textContent");
    const text = "Offline screen mode: no LLM is configured, so each message is read as a screen command.";
    peer.send({ label: "rtvi-ai", type: "server-message", data: { kind: "hark-mode", mode: "offline-screen", text } });
    await browser.until("notice shown", "!document.getElementById('mode-notice').hidden");
    assert.equal(await browser.evaluate("document.getElementById('mode-notice').textContent"), text);
    assert.equal(await browser.evaluate("document.body.dataset.harkMode"), "offline-screen");
    assert.equal(await browser.evaluate("document.getElementById('log').textContent"), logBefore, "no log line for the mode");
    // Visible to the user: laid out, with a height.
    assert.ok(await browser.evaluate("document.getElementById('mode-notice').getBoundingClientRect().height > 0"));
    const next = peer.next("a snapshot after a page change", (m) => m.type === "ui-snapshot");
    await browser.evaluate("(() => { const s = document.getElementById('search'); s.value = 'tea'; s.dispatchEvent(new Event('input', { bubbles: true })); })()");
    assert.ok(!JSON.stringify((await next).data.tree).includes("Offline screen mode"), "the notice leaked into a snapshot");
    await browser.evaluate("(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input', { bubbles: true })); })()");
  });

  test("server messages show in the log, errors in the error lines", async () => {
    peer.send({ label: "rtvi-ai", type: "server-message", data: { text: "Order service is up." } });
    peer.send({ label: "rtvi-ai", type: "error", data: { error: "LLM failed", fatal: false } });
    await browser.until("server line", "[...document.querySelectorAll('#log li.system')].some((li) => li.textContent === 'Server:Order service is up.')");
    await browser.until("error line", `${NOTICES}.includes('Error:LLM failed')`);
  });

  test("error and status lines never appear in a snapshot nor trigger one (no refusal loop)", async () => {
    // An observer with the options of client-js's A11ySnapshotStreamer.start(): anything it
    // records would schedule a new snapshot.
    await browser.evaluate(`(() => {
      window.__snapshotTriggers = 0;
      window.__observer = new MutationObserver((records) => { window.__snapshotTriggers += records.length; });
      window.__observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: [
        "role", "aria-label", "aria-labelledby", "aria-expanded", "aria-selected", "aria-checked", "aria-disabled",
        "aria-level", "aria-hidden", "aria-colcount", "aria-rowcount", "data-a11y-exclude", "disabled", "hidden",
        "tabindex", "href"] });
    })()`);
    // What the server sends when it refuses a snapshot: an error-response with the snapshot's id,
    // or an error when the id could not be read.
    peer.send({ label: "rtvi-ai", type: "error-response", id: "5n4p5h07", data: { error: "Invalid message: data.tree.root.ref: missing field" } });
    peer.send({ label: "rtvi-ai", type: "error", data: { error: "Snapshot refused twice", fatal: false } });
    await browser.until("both error lines", `${NOTICES}.includes('Error:Invalid message: data.tree.root.ref: missing field') && ${NOTICES}.includes('Error:Snapshot refused twice')`);
    const triggers = await browser.evaluate("window.__snapshotTriggers + window.__observer.takeRecords().length");
    await browser.evaluate("window.__observer.disconnect()");
    assert.equal(triggers, 0, "showing an error must not change what client-js observes");
    // A real page change sends a snapshot; neither the errors nor the connection status are in it.
    const next = peer.next("a snapshot after the change", (m) => m.type === "ui-snapshot");
    await browser.evaluate("(() => { const s = document.getElementById('search'); s.value = 'mug'; s.dispatchEvent(new Event('input', { bubbles: true })); })()");
    const text = JSON.stringify((await next).data.tree);
    for (const hidden of ["Snapshot refused", "Invalid message", "LLM failed", "Connection:"]) {
      assert.ok(!text.includes(hidden), `"${hidden}" leaked into a snapshot`);
    }
    assert.ok(text.includes("Checkout"), "the checkout section is still in the snapshot");
    assert.ok(!text.includes("Conversation"), "the conversation panel leaked into a snapshot");
    await browser.evaluate("(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input', { bubbles: true })); })()");
  });

  test("ui-job-group envelopes are kept on window.harkDemo.jobGroups and summed up in one status line", async () => {
    const at = 1767225600000;
    const send = (data) => peer.send({ label: "rtvi-ai", type: "ui-job-group", data });
    assert.equal(await browser.evaluate("document.getElementById('jobs').hidden"), true);
    send({ kind: "group_started", job_id: "g1", workers: ["fast", "slow"], label: "Research: mugs", cancellable: true, at });
    await browser.until("group started", "document.getElementById('jobs').textContent === 'Research: mugs: 0 of 2 done'");
    assert.equal(await browser.evaluate("document.getElementById('jobs').hidden"), false);
    send({ kind: "job_update", job_id: "g1", worker_name: "slow", data: { step: 1 }, at: at + 1 });
    send({ kind: "job_completed", job_id: "g1", worker_name: "fast", status: "completed", response: { n: 2 }, at: at + 2 });
    await browser.until("one done", "document.getElementById('jobs').textContent === 'Research: mugs: 1 of 2 done'");
    send({ kind: "job_completed", job_id: "g1", worker_name: "slow", status: "cancelled", at: at + 3 });
    send({ kind: "group_completed", job_id: "g1", at: at + 4 });
    await browser.until("closed", "document.getElementById('jobs').textContent === 'Research: mugs: finished, 1 cancelled'");
    const kept = await browser.evaluate("JSON.stringify(window.harkDemo.jobGroups.map((e) => [e.kind, e.worker_name ?? null]))");
    assert.deepEqual(JSON.parse(kept), [
      ["group_started", null],
      ["job_update", "slow"],
      ["job_completed", "fast"],
      ["job_completed", "slow"],
      ["group_completed", null],
    ]);
  });

  test("a microphone prompt nobody answers leaves the page usable, and a second click cancels it", async () => {
    // This browser's getUserMedia never settles (harness NO_MEDIA_SCRIPT): an unanswered prompt.
    await browser.evaluate("document.getElementById('mic').click()");
    await browser.until("mic starting", "document.getElementById('mic').dataset.mic === 'starting'");
    assert.equal(await browser.evaluate("document.getElementById('mic').getAttribute('aria-pressed')"), "false");
    assert.equal(await browser.evaluate("document.getElementById('mic').textContent"), "Microphone: starting…");
    assert.equal(await browser.evaluate("window.__mediaRequests.filter((r) => r === 'getUserMedia').length"), 1);
    assert.equal(await browser.evaluate("window.harkDemo.client.isMicEnabled"), false);
    // Typing still works while the prompt is open.
    await browser.evaluate("document.getElementById('message').value = 'Still here'; document.getElementById('send').click()");
    const sent = await peer.waitFor("send-text while the prompt is open", (m) => m.type === "send-text" && m.data.content === "Still here");
    assert.ok(sent);
    await browser.evaluate("document.getElementById('mic').click()");
    await browser.until("mic off", "document.getElementById('mic').dataset.mic === 'off'");
    assert.equal(await browser.evaluate("document.getElementById('mic').textContent"), "Microphone: off");
    assert.equal(await browser.evaluate("window.harkDemo.client.isMicEnabled"), false);
  });

  // Last: it ends the connection.
  test("once disconnected, the message box, Send and Microphone are disabled and a submit sends nothing", async () => {
    peer.socket.end();
    await browser.until("state disconnected", "document.body.dataset.rtviState === 'disconnected'");
    assert.equal(await browser.evaluate("document.getElementById('message').disabled && document.getElementById('send').disabled"), true);
    assert.equal(await browser.evaluate("document.getElementById('mic').disabled"), true);
    const users = "document.querySelectorAll('#log li.user').length";
    const before = await browser.evaluate(users);
    // A submit that races the disconnect (the form's handler, bypassing the disabled controls).
    await browser.evaluate("document.getElementById('message').value = 'Anyone there?'; document.getElementById('message-form').dispatchEvent(new Event('submit', { cancelable: true }))");
    await browser.until("the not-connected line", `${NOTICES}.includes('Not connected (disconnected): the message was not sent.')`);
    assert.equal(await browser.evaluate(users), before, "a message that was not sent shows as sent");
    assert.ok(!(await browser.evaluate(NOTICES)).includes("sendText"), "the client's transport error leaked out");
  });
});

// ---- voice ---------------------------------------------------------------------------------

/** `ms` of a 440 Hz tone at 24 kHz, as 20 ms PCM16 frames (what the server sends). */
function toneFrames(ms) {
  const frames = [];
  for (let start = 0; start < (24000 * ms) / 1000; start += 480) {
    const pcm = new Int16Array(480);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (start + i)) / 24000));
    frames.push(pcm);
  }
  return frames;
}

const MIC = "document.getElementById('mic')";

describe("demo page voice (Chromium with a fake microphone)", () => {
  let vServer;
  let vBrowser;
  let vPeer;

  before(async () => {
    // The WebSocket is held so a test sees the page while it is still connecting.
    vServer = await startServer(dist, { holdWebSocket: true });
    vBrowser = await startBrowser({ fakeMedia: true });
    await vBrowser.open(vServer.url);
  });

  after(async () => {
    await vBrowser?.close();
    await vServer?.close();
  });

  test("the microphone button is disabled until ready, and connecting opens no device", async () => {
    await vBrowser.until("state connecting", "document.body.dataset.rtviState === 'connecting'");
    assert.equal(await vBrowser.evaluate(`${MIC}.disabled`), true, "the microphone button is enabled while connecting");
    assert.equal(await vBrowser.evaluate(`${MIC}.getAttribute('aria-pressed')`), "false");
    assert.equal(await vBrowser.evaluate(`${MIC}.textContent`), "Microphone: off");
    assert.equal(await vBrowser.evaluate(`${MIC}.type`), "button");
    vServer.releaseWebSocket();
    vPeer = await vServer.peer();
    await vPeer.waitFor("client-ready", (m) => m.type === "client-ready");
    await vBrowser.until("state ready", "document.body.dataset.rtviState === 'ready'");
    // bot-ready adds a log line (which moves the form); the clicks below come after it.
    await vBrowser.until("bot-ready line", "document.getElementById('log').textContent.includes('Connected to the bot.')");
    assert.equal(await vBrowser.evaluate(`${MIC}.disabled`), false);
    assert.deepEqual(await vBrowser.evaluate("window.__mediaRequests"), [], "connecting asked for a device or made an AudioContext");
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.isMicEnabled"), false);
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.tracks().local.audio === undefined"), true);
    assert.equal(vPeer.audio.length, 0, "audio frames before the microphone was turned on");
  });

  test("bot audio that arrives before any user gesture is dropped, not queued", async () => {
    for (const pcm of toneFrames(100)) vPeer.sendAudio(pcm);
    await vBrowser.until("bot audio dropped", "window.harkDemo.voice.droppedSeconds >= 0.099");
    assert.equal(await vBrowser.evaluate("window.harkDemo.voice.audioState"), "none");
    assert.equal(await vBrowser.evaluate("window.harkDemo.voice.queuedFrames"), 0);
    assert.deepEqual(await vBrowser.evaluate("window.__mediaRequests"), []);
  });

  test("clicking the microphone asks for it once and sends 16 kHz mono PCM16 audio frames", async () => {
    await vBrowser.click("#mic");
    await vBrowser.until("mic on", `${MIC}.getAttribute('aria-pressed') === 'true'`);
    assert.equal(await vBrowser.evaluate(`${MIC}.textContent`), "Microphone: on");
    const asked = await vBrowser.evaluate("window.__getUserMediaConstraints");
    assert.equal(asked.length, 1, "getUserMedia called more than once");
    assert.deepEqual(JSON.parse(asked[0]), { audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.isMicEnabled"), true);
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.tracks().local.audio.readyState"), "live");
    await vBrowser.evaluate("window.__micTrack = window.harkDemo.client.tracks().local.audio");
    await vPeer.waitForAudio("5 audio frames", () => vPeer.audio.length >= 5);
    for (const frame of vPeer.audio) {
      assert.equal(frame.sampleRate, 16000);
      assert.equal(frame.numChannels, 1);
      assert.equal(frame.audio.length % 2, 0, "odd PCM16 byte length");
      assert.equal(frame.audio.length, 640, "not a 20 ms chunk (320 samples at 16 kHz)");
    }
    // The fake microphone beeps: some frame carries sound.
    await vPeer.waitForAudio("a frame that is not silent", (f) => {
      for (let i = 0; i < f.audio.length; i += 2) if (Math.abs(f.audio.readInt16LE(i)) > 100) return true;
      return false;
    });
    // Still RTVI over the same socket: a text message goes out between audio frames.
    await vBrowser.evaluate("document.getElementById('message').value = 'With the mic on'; document.getElementById('send').click()");
    await vPeer.waitFor("send-text with the mic on", (m) => m.type === "send-text" && m.data.content === "With the mic on");
  });

  test("bot audio after a click is scheduled for playback, and user-started-speaking empties the queue", async () => {
    const errorsBefore = vBrowser.pageErrors.length;
    await vBrowser.until("audio running", "window.harkDemo.voice.audioState === 'running'");
    vPeer.send({ label: "rtvi-ai", type: "bot-started-speaking" });
    vPeer.send({ label: "rtvi-ai", type: "bot-tts-started" });
    for (const pcm of toneFrames(2000)) vPeer.sendAudio(pcm);
    await vBrowser.until("2 s of bot audio queued", "window.harkDemo.voice.queuedSeconds > 1");
    await vBrowser.until("bot speaking shown", "document.getElementById('bot-speaking').dataset.active === 'true'");
    // It plays: the queue shrinks as the context's clock moves on.
    const q1 = await vBrowser.evaluate("window.harkDemo.voice.queuedSeconds");
    await vBrowser.until("queue shrinking", `window.harkDemo.voice.queuedSeconds < ${q1} - 0.05`);
    vPeer.send({ label: "rtvi-ai", type: "user-started-speaking" });
    await vBrowser.until("queue emptied by barge-in", "window.harkDemo.voice.queuedFrames === 0 && window.harkDemo.voice.queuedSeconds === 0");
    await vBrowser.until("user speaking shown", "document.getElementById('user-speaking').dataset.active === 'true'");
    vPeer.send({ label: "rtvi-ai", type: "bot-tts-stopped" });
    vPeer.send({ label: "rtvi-ai", type: "bot-stopped-speaking" });
    vPeer.send({ label: "rtvi-ai", type: "user-stopped-speaking" });
    await vBrowser.until(
      "indicators off",
      "document.getElementById('bot-speaking').dataset.active === 'false' && document.getElementById('user-speaking').dataset.active === 'false'",
    );
    // Audio after the barge-in plays again.
    for (const pcm of toneFrames(200)) vPeer.sendAudio(pcm);
    await vBrowser.until("new audio queued", "window.harkDemo.voice.queuedFrames > 0");
    assert.deepEqual(vBrowser.pageErrors.slice(errorsBefore), []);
    assert.deepEqual(vBrowser.consoleLines.filter((l) => l.type === "error").map((l) => l.text), []);
  });

  test("user-transcription: interim text is provisional, the final is the user's line, a typed line is not shown twice", async () => {
    const users = "[...document.querySelectorAll('#log li.user')].map((li) => li.textContent)";
    const before = await vBrowser.evaluate(users);
    const at = "2026-01-01T00:00:00.000Z";
    vPeer.send({ label: "rtvi-ai", type: "user-transcription", data: { text: "Add the blue", final: false, user_id: "u", timestamp: at } });
    await vBrowser.until("interim line", "document.querySelector('#log li.user.interim')?.textContent === 'You:Add the blue'");
    vPeer.send({ label: "rtvi-ai", type: "user-transcription", data: { text: "Add the blue mug.", final: true, user_id: "u", timestamp: at } });
    await vBrowser.until("final line", "!document.querySelector('#log li.interim')");
    assert.deepEqual(await vBrowser.evaluate(users), [...before, "You:Add the blue mug."]);
    // A typed line that the server also reports as a transcription shows once.
    await vBrowser.evaluate("document.getElementById('message').value = 'Show my cart'; document.getElementById('send').click()");
    await vPeer.waitFor("send-text", (m) => m.type === "send-text" && m.data.content === "Show my cart");
    vPeer.send({ label: "rtvi-ai", type: "user-transcription", data: { text: "Show my cart", final: true, user_id: "u", timestamp: at } });
    vPeer.send({ label: "rtvi-ai", type: "server-message", data: { text: "marker voice" } });
    await vBrowser.until("marker", "document.getElementById('log').textContent.includes('marker voice')");
    assert.deepEqual(await vBrowser.evaluate(users), [...before, "You:Add the blue mug.", "You:Show my cart"]);
  });

  test("clicking the microphone again stops the track and the audio frames", async () => {
    await vBrowser.click("#mic");
    await vBrowser.until("mic off", `${MIC}.getAttribute('aria-pressed') === 'false'`);
    assert.equal(await vBrowser.evaluate(`${MIC}.textContent`), "Microphone: off");
    assert.equal(await vBrowser.evaluate("window.__micTrack.readyState"), "ended");
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.isMicEnabled"), false);
    assert.equal(await vBrowser.evaluate("window.harkDemo.client.tracks().local.audio === undefined"), true);
    await new Promise((r) => setTimeout(r, 300)); // frames already in flight arrive
    const count = vPeer.audio.length;
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(vPeer.audio.length, count, "audio frames after the microphone was turned off");
  });

  test("a refused permission or a missing microphone shows a notice and leaves the mic off and typing working", async () => {
    for (const [name, expected] of [
      ["NotAllowedError", "Microphone:Microphone permission refused"],
      ["NotFoundError", "Microphone:No microphone found"],
    ]) {
      await vBrowser.evaluate(`navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('refused in the test', '${name}'))`);
      await vBrowser.click("#mic");
      await vBrowser.until(`notice for ${name}`, `${NOTICES}.includes(${JSON.stringify(expected)})`);
      await vBrowser.until("mic off", `${MIC}.dataset.mic === 'off'`);
      assert.equal(await vBrowser.evaluate(`${MIC}.getAttribute('aria-pressed')`), "false");
      assert.equal(await vBrowser.evaluate("window.harkDemo.client.isMicEnabled"), false);
      assert.equal(await vBrowser.evaluate("document.getElementById('message').disabled"), false);
    }
    await vBrowser.evaluate("document.getElementById('message').value = 'Typing works'; document.getElementById('send').click()");
    await vPeer.waitFor("send-text after the refusal", (m) => m.type === "send-text" && m.data.content === "Typing works");
  });
});
