// Test harness for the demo page: a static server for web/dist with a small RTVI endpoint at /ws
// (WebSocket + the protobuf framing of @pipecat-ai/websocket-transport, research notes §1.2), and
// headless Chromium driven over the DevTools protocol (--remote-debugging-pipe, no extra packages).
// Everything listens on 127.0.0.1 only, and every wait is bounded.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";

/** Upper bound of every wait in these tests (a bound, not an assertion on speed). */
export const WAIT_MS = 15000;

// ---- protobuf: pipecat.Frame { MessageFrame message = 4 { string data = 1 } } --------------

function varint(n) {
  const out = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

function field(number, bytes) {
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

/** A binary `pipecat.Frame` carrying one RTVI message. */
export function encodeRtvi(message) {
  return field(4, field(1, Buffer.from(JSON.stringify(message), "utf8")));
}

function readVarint(buf, pos) {
  let n = 0;
  let scale = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error("truncated varint");
    const b = buf[pos++];
    n += (b & 0x7f) * scale;
    if (b < 0x80) return [n, pos];
    scale *= 128;
  }
}

// Length-delimited fields of a protobuf message, as [number, bytes]; other wire types skipped.
function fields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    let tag;
    [tag, pos] = readVarint(buf, pos);
    const wire = tag & 7;
    if (wire === 0) [, pos] = readVarint(buf, pos);
    else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      out.push([tag >>> 3, buf.subarray(pos, pos + len)]);
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

/** The RTVI message inside a binary frame, or null for audio and other frames. */
export function decodeRtvi(buf) {
  for (const [number, bytes] of fields(buf)) {
    if (number !== 4) continue;
    for (const [inner, data] of fields(bytes)) {
      if (inner === 1) return JSON.parse(data.toString("utf8"));
    }
  }
  return null;
}

// ---- WebSocket (RFC 6455), server side, one connection at a time ---------------------------

function wsFrame(opcode, payload) {
  const len = payload.length;
  const head =
    len < 126
      ? Buffer.from([0x80 | opcode, len])
      : len < 65536
        ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(len)); return b; })()]);
  return Buffer.concat([head, payload]);
}

class RtviPeer {
  constructor(socket) {
    this.socket = socket;
    this.received = []; // every RTVI message from the page, in order
    this.waiters = [];
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const frame = this.#parse(pending);
        if (!frame) break;
        pending = pending.subarray(frame.size);
        this.#onFrame(frame.opcode, frame.payload);
      }
    });
    socket.on("error", () => {});
  }

  #parse(buf) {
    if (buf.length < 2) return null;
    let len = buf[1] & 0x7f;
    let pos = 2;
    if (len === 126) {
      if (buf.length < 4) return null;
      len = buf.readUInt16BE(2);
      pos = 4;
    } else if (len === 127) {
      if (buf.length < 10) return null;
      len = Number(buf.readBigUInt64BE(2));
      pos = 10;
    }
    const masked = (buf[1] & 0x80) !== 0;
    const mask = masked ? buf.subarray(pos, pos + 4) : null;
    if (masked) pos += 4;
    if (buf.length < pos + len) return null;
    const payload = Buffer.from(buf.subarray(pos, pos + len));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    return { opcode: buf[0] & 0x0f, payload, size: pos + len };
  }

  #onFrame(opcode, payload) {
    if (opcode === 8) return this.socket.end(wsFrame(8, Buffer.alloc(0)));
    if (opcode === 9) return this.socket.write(wsFrame(10, payload));
    if (opcode !== 2) return;
    const msg = decodeRtvi(payload);
    if (!msg) return;
    this.received.push(msg);
    if (msg.type === "client-ready") {
      this.send({ label: "rtvi-ai", type: "bot-ready", id: msg.id, data: { version: "2.1.0", about: { library: "page-test" } } });
    }
    this.waiters = this.waiters.filter((w) => !w(msg));
  }

  /** Sends one RTVI message to the page. */
  send(message) {
    this.socket.write(wsFrame(2, encodeRtvi(message)));
  }

  /** Sends a `ui-command`. */
  command(command, payload) {
    this.send({ label: "rtvi-ai", type: "ui-command", data: { command, payload } });
  }

  /** The first message (already received or future) for which `pred` holds. */
  waitFor(what, pred) {
    const seen = this.received.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`page never sent ${what}`)), WAIT_MS);
      this.waiters.push((msg) => {
        if (!pred(msg)) return false;
        clearTimeout(timer);
        resolve(msg);
        return true;
      });
    });
  }

  /** The next message sent after this call for which `pred` holds. */
  next(what, pred) {
    const from = this.received.length;
    return this.waitFor(what, (msg) => this.received.indexOf(msg) >= from && pred(msg));
  }
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };

/** Serves `dir` over HTTP and RTVI at /ws on 127.0.0.1 (a free port). `peer()` waits for the page. */
export async function startServer(dir) {
  let onPeer;
  const peerReady = new Promise((resolve) => (onPeer = resolve));
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  server.on("upgrade", (req, socket) => {
    if (new URL(req.url, "http://x").pathname !== "/ws") return socket.destroy();
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    onPeer(new RtviPeer(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    peer: () => withTimeout(peerReady, "the page never opened /ws"),
    close: () => {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(what)), WAIT_MS))),
  ]).finally(() => clearTimeout(timer));
}

// ---- Chromium over the DevTools protocol -----------------------------------------------------

const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--autoplay-policy=no-user-gesture-required",
  "--window-size=1280,900",
  "--remote-debugging-pipe",
];

/** Page init script: no microphone, no audio without a gesture (see startBrowser). */
const NO_MEDIA_SCRIPT = `(() => {
  window.__mediaRequests = [];
  const never = (what) => () => { window.__mediaRequests.push(what); return new Promise(() => {}); };
  if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = never("getUserMedia");
  if (window.AudioContext) AudioContext.prototype.resume = never("AudioContext.resume");
})();`;

/** Starts headless Chromium (`$CHROMIUM` or `chromium`) and opens one page. */
export async function startBrowser() {
  try {
    return await startBrowserOnce();
  } catch (e) {
    if (!String(e?.message).startsWith("chromium did not answer")) throw e;
    // A Chromium that never answers its first DevTools call (seen once in a CI run, the next
    // start on the same machine was fine): started once more, then the error stands.
    return await startBrowserOnce();
  }
}

async function startBrowserOnce() {
  const bin = process.env.CHROMIUM ?? "chromium";
  const child = spawn(bin, [...CHROMIUM_FLAGS, "about:blank"], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const spawned = new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (e) => reject(new Error(`cannot start ${bin} (install Debian's chromium or set CHROMIUM): ${e.message}`)));
  });
  await spawned;
  const toBrowser = child.stdio[3];
  const fromBrowser = child.stdio[4];
  let nextId = 1;
  const calls = new Map();
  const listeners = [];
  let buffered = Buffer.alloc(0);
  fromBrowser.on("data", (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    let end;
    while ((end = buffered.indexOf(0)) >= 0) {
      const msg = JSON.parse(buffered.subarray(0, end).toString("utf8"));
      buffered = buffered.subarray(end + 1);
      if (msg.id && calls.has(msg.id)) {
        const { resolve, reject, method } = calls.get(msg.id);
        calls.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else if (msg.method) {
        for (const l of listeners) l(msg);
      }
    }
  });
  child.once("exit", (code) => {
    for (const { reject } of calls.values()) reject(new Error(`chromium exited (${code}): ${stderr}`));
    calls.clear();
  });

  function send(method, params = {}, sessionId) {
    const id = nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return withTimeout(
      new Promise((resolve, reject) => {
        calls.set(id, { resolve, reject, method });
        toBrowser.write(`${JSON.stringify(msg)}\0`);
      }),
      `chromium did not answer ${method}`,
    );
  }

  let targetId;
  try {
    ({ targetId } = await send("Target.createTarget", { url: "about:blank" }));
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  }
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page("Page.enable");
  await page("Runtime.enable");
  // Chromium runs WITHOUT the fake media flags, and every page behaves like a browser with no
  // usable microphone and no user gesture: getUserMedia and AudioContext.resume() never settle
  // (a permission prompt nobody answers, audio held until a click). Each call is recorded in
  // window.__mediaRequests, so a test can assert the text-only page asked for no device.
  await page("Page.addScriptToEvaluateOnNewDocument", { source: NO_MEDIA_SCRIPT });
  const consoleLines = [];
  listeners.push((msg) => {
    if (msg.sessionId === sessionId && msg.method === "Runtime.consoleAPICalled") {
      consoleLines.push({ type: msg.params.type, text: msg.params.args.map((a) => a.value ?? a.description ?? "").join(" ") });
    }
  });

  /** Evaluates `expression` in the page (awaiting promises) and returns its JSON value. */
  async function evaluate(expression) {
    const { result, exceptionDetails } = await page("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(`page threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  }

  return {
    consoleLines,
    evaluate,
    /** Navigates and waits for the load event. */
    async open(url) {
      const loaded = new Promise((resolve) =>
        listeners.push((msg) => msg.sessionId === sessionId && msg.method === "Page.loadEventFired" && resolve()),
      );
      await page("Page.navigate", { url });
      await withTimeout(loaded, `page ${url} never loaded`);
    },
    /** Polls `expression` until it is truthy; fails naming `what` after WAIT_MS. */
    async until(what, expression) {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const value = await evaluate(expression);
        if (value) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** PNG screenshot of the page, as a Buffer. */
    async screenshot() {
      const { data } = await page("Page.captureScreenshot", { format: "png" });
      return Buffer.from(data, "base64");
    },
    async close() {
      try {
        await send("Browser.close");
      } catch {
        // already gone
      }
      if (child.exitCode === null) child.kill();
    },
  };
}

// ---- snapshots -------------------------------------------------------------------------------

/** Every node of an A11ySnapshot tree, depth first. */
export function nodes(tree) {
  const out = [];
  const walk = (n) => {
    out.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(tree.root);
  return out;
}

/** The node with this role and name in a snapshot (first in document order), or undefined. */
export function find(tree, role, name) {
  return nodes(tree).find((n) => n.role === role && n.name === name);
}
