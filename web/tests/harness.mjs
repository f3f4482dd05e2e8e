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

// ---- protobuf: pipecat.Frame ---------------------------------------------------------------
//
// What websocket-transport 1.7.1's ProtobufFrameSerializer reads and writes:
//   Frame { oneof frame { TextFrame text = 1; AudioRawFrame audio = 2;
//                         TranscriptionFrame transcription = 3; MessageFrame message = 4; } }
//   AudioRawFrame { uint64 id = 1; string name = 2; bytes audio = 3; uint32 sample_rate = 4;
//                   uint32 num_channels = 5; optional uint64 pts = 6; }
//   MessageFrame { string data = 1; }   (one RTVI message as JSON)

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

function varintField(number, n) {
  return Buffer.concat([varint(number << 3), varint(n)]);
}

/** A binary `pipecat.Frame` carrying one RTVI message. */
export function encodeRtvi(message) {
  return field(4, field(1, Buffer.from(JSON.stringify(message), "utf8")));
}

/**
 * A binary `pipecat.Frame` carrying audio: `pcm` (an Int16Array, or a Buffer of little-endian
 * PCM16 bytes) as `AudioRawFrame{name: "audio", audio, sample_rate, num_channels}`.
 */
export function encodeAudio(pcm, sampleRate = 24000, numChannels = 1) {
  const bytes = Buffer.isBuffer(pcm) ? pcm : Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  return field(
    2,
    Buffer.concat([field(2, Buffer.from("audio")), field(3, bytes), varintField(4, sampleRate), varintField(5, numChannels)]),
  );
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

// The fields of a protobuf message, as [number, bytes] (length-delimited) or [number, value]
// (varint); fixed-width ones skipped.
function allFields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    let tag;
    [tag, pos] = readVarint(buf, pos);
    const wire = tag & 7;
    if (wire === 0) {
      let value;
      [value, pos] = readVarint(buf, pos);
      out.push([tag >>> 3, value]);
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      if (pos + len > buf.length) throw new Error("truncated field");
      out.push([tag >>> 3, buf.subarray(pos, pos + len)]);
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

// Length-delimited fields only, as [number, bytes].
function fields(buf) {
  return allFields(buf).filter(([, v]) => Buffer.isBuffer(v));
}

/**
 * The audio inside a binary frame, as `{ name, audio (Buffer of PCM16 bytes), sampleRate,
 * numChannels }`, or null for RTVI messages and other frames.
 */
export function decodeAudio(buf) {
  for (const [number, bytes] of fields(buf)) {
    if (number !== 2) continue;
    const frame = { name: "", audio: Buffer.alloc(0), sampleRate: 0, numChannels: 0 };
    for (const [inner, v] of allFields(bytes)) {
      if (inner === 2 && Buffer.isBuffer(v)) frame.name = v.toString("utf8");
      else if (inner === 3 && Buffer.isBuffer(v)) frame.audio = Buffer.from(v);
      else if (inner === 4 && !Buffer.isBuffer(v)) frame.sampleRate = v;
      else if (inner === 5 && !Buffer.isBuffer(v)) frame.numChannels = v;
    }
    return frame;
  }
  return null;
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
    this.audio = []; // every audio frame from the page, in order (decodeAudio, plus `at`: Date.now())
    this.waiters = [];
    this.audioWaiters = [];
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
    const audio = decodeAudio(payload);
    if (audio) {
      audio.at = Date.now();
      this.audio.push(audio);
      this.audioWaiters = this.audioWaiters.filter((w) => !w(audio));
      return;
    }
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

  /** Sends one binary audio frame to the page (see encodeAudio). */
  sendAudio(pcm, sampleRate = 24000, numChannels = 1) {
    this.socket.write(wsFrame(2, encodeAudio(pcm, sampleRate, numChannels)));
  }

  /** The first audio frame (already received or future) for which `pred` holds. */
  waitForAudio(what, pred = () => true) {
    const seen = this.audio.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`page never sent ${what}`)), WAIT_MS);
      this.audioWaiters.push((frame) => {
        if (!pred(frame)) return false;
        clearTimeout(timer);
        resolve(frame);
        return true;
      });
    });
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

/**
 * Serves `dir` over HTTP and RTVI at /ws on 127.0.0.1 (a free port). `peer()` waits for the page.
 * With `{ holdWebSocket: true }` the WebSocket upgrade is held (the page stays "connecting")
 * until `releaseWebSocket()` is called.
 */
export async function startServer(dir, { holdWebSocket = false } = {}) {
  let onPeer;
  let release;
  const released = holdWebSocket ? new Promise((resolve) => (release = resolve)) : Promise.resolve();
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
  server.on("upgrade", async (req, socket) => {
    if (new URL(req.url, "http://x").pathname !== "/ws") return socket.destroy();
    await released;
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
    releaseWebSocket: () => release?.(),
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

/** Chromium flags for a browser with a fake microphone (a beep) whose permission is granted. */
const FAKE_MEDIA_FLAGS = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"];

// Both init scripts record every device request in window.__mediaRequests ("AudioContext" for a
// new AudioContext, "AudioContext.resume", "getUserMedia"), and the constraints of every
// getUserMedia call in window.__getUserMediaConstraints.
const RECORD_CONTEXTS = `
  window.__mediaRequests = [];
  window.__getUserMediaConstraints = [];
  if (window.AudioContext) {
    const Base = window.AudioContext;
    window.AudioContext = class extends Base {
      constructor(...args) { super(...args); window.__mediaRequests.push("AudioContext"); }
    };
  }`;

/** Page init script: no microphone, no audio without a gesture (see startBrowser). */
const NO_MEDIA_SCRIPT = `(() => {${RECORD_CONTEXTS}
  const never = (what) => (arg) => {
    window.__mediaRequests.push(what);
    if (what === "getUserMedia") window.__getUserMediaConstraints.push(JSON.stringify(arg));
    return new Promise(() => {});
  };
  if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = never("getUserMedia");
  if (window.AudioContext) window.AudioContext.prototype.resume = never("AudioContext.resume");
})();`;

/** Page init script for the fake-media browser: requests are recorded, then really made. */
const FAKE_MEDIA_SCRIPT = `(() => {${RECORD_CONTEXTS}
  const md = navigator.mediaDevices;
  if (md) {
    const real = md.getUserMedia.bind(md);
    md.getUserMedia = (arg) => {
      window.__mediaRequests.push("getUserMedia");
      window.__getUserMediaConstraints.push(JSON.stringify(arg));
      return real(arg);
    };
  }
  if (window.AudioContext) {
    const resume = window.AudioContext.prototype.resume;
    window.AudioContext.prototype.resume = function () { window.__mediaRequests.push("AudioContext.resume"); return resume.call(this); };
  }
})();`;

/**
 * Starts headless Chromium (`$CHROMIUM` or `chromium`) and opens one page. By default the page has
 * no usable microphone and no audio until a gesture (NO_MEDIA_SCRIPT); with `{ fakeMedia: true }`
 * Chromium runs with a fake microphone whose permission is granted, and audio plays.
 */
export async function startBrowser(options = {}) {
  try {
    return await startBrowserOnce(options);
  } catch (e) {
    if (!String(e?.message).startsWith("chromium did not answer")) throw e;
    // A Chromium that never answers its first DevTools call (seen once in a CI run, the next
    // start on the same machine was fine): started once more, then the error stands.
    return await startBrowserOnce(options);
  }
}

async function startBrowserOnce({ fakeMedia = false } = {}) {
  const bin = process.env.CHROMIUM ?? "chromium";
  const flags = fakeMedia ? [...CHROMIUM_FLAGS, ...FAKE_MEDIA_FLAGS] : CHROMIUM_FLAGS;
  const child = spawn(bin, [...flags, "about:blank"], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
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
  // By default Chromium runs WITHOUT the fake media flags, and every page behaves like a browser
  // with no usable microphone and no user gesture: getUserMedia and AudioContext.resume() never
  // settle (a permission prompt nobody answers, audio held until a click). With fakeMedia the
  // calls go through. Either way each call is recorded in window.__mediaRequests, so a test can
  // assert the page asked for no device before the microphone button was clicked.
  await page("Page.addScriptToEvaluateOnNewDocument", { source: fakeMedia ? FAKE_MEDIA_SCRIPT : NO_MEDIA_SCRIPT });
  const consoleLines = [];
  const pageErrors = []; // uncaught exceptions and unhandled rejections in the page
  listeners.push((msg) => {
    if (msg.sessionId === sessionId && msg.method === "Runtime.consoleAPICalled") {
      consoleLines.push({ type: msg.params.type, text: msg.params.args.map((a) => a.value ?? a.description ?? "").join(" ") });
    } else if (msg.sessionId === sessionId && msg.method === "Runtime.exceptionThrown") {
      const d = msg.params.exceptionDetails;
      pageErrors.push(d.exception?.description ?? d.text);
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
    pageErrors,
    evaluate,
    /**
     * A real (trusted) mouse click at the centre of the element `selector` picks: a user gesture,
     * unlike element.click() from evaluate.
     */
    async click(selector) {
      // The element's centre, once it is what the page shows at that point (layout settles: a
      // log line added by an event just before would move it).
      const where = `(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        if (!el) return null;
        el.scrollIntoView({ block: "center", inline: "center" });
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        return { x, y, hit: !!hit && (hit === el || el.contains(hit)) };
      })()`;
      const deadline = Date.now() + WAIT_MS;
      let box;
      for (;;) {
        box = await evaluate(where);
        if (!box) throw new Error(`no element ${selector} to click`);
        if (box.hit) break;
        if (Date.now() > deadline) throw new Error(`${selector} is covered: cannot click it`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await page("Input.dispatchMouseEvent", { type: "mouseMoved", x: box.x, y: box.y });
      for (const type of ["mousePressed", "mouseReleased"]) {
        await page("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
      }
    },
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
