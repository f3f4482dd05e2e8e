// Hark demo page: connects to the hark server's RTVI endpoint (`/ws` on the page's own host) with
// Pipecat's JS client, streams accessibility snapshots of the page, carries out the server's UI
// commands and shows the conversation.
//
// Voice (voice.js): the bot's audio frames are played once the page had a user gesture (a
// pointerdown or keydown anywhere, or the Microphone button); the Microphone button beside the
// message box turns the microphone on and off (nothing asks for a device before that click). The
// user's final `user-transcription`s show as the user's lines, interim ones as a provisional line
// that the final replaces. Speaking indicators (#speaking, decorative, outside snapshots) follow
// bot-started/stopped-speaking and user-started/stopped-speaking.
//
// For tests: `document.body.dataset.rtviState` mirrors the client's transport state
// ("connecting", "ready", "error", ...), `document.body.dataset.harkMode` the server's mode (see
// below), and `window.harkDemo` holds `{ client, voice, runUICommand, jobGroups }` (`voice`: the
// VoiceMediaManager; `jobGroups`: every `ui-job-group` envelope received, in order).
//
// The server's mode: a `server-message` whose data is `{kind: "hark-mode", mode, text}` (hark
// sends `mode: "offline-screen"` once per session when it runs with no LLM, see
// hark_ui::offline::mode_message) is not a log line: `text` goes into the notice line under the
// header (#mode-notice, outside snapshots) and `mode` into `body.dataset.harkMode`.

import { PipecatClient } from "@pipecat-ai/client-js";
import { WebSocketTransport } from "@pipecat-ai/websocket-transport";

import { runUICommand } from "./commands.js";
import { createJobGroups } from "./jobs.js";
import { setupShop } from "./shop.js";
import { VoiceMediaManager } from "./voice.js";

const status = document.getElementById("status");
const reconnect = document.getElementById("reconnect");
const log = document.getElementById("log");
const messageForm = document.getElementById("message-form");
const message = document.getElementById("message");
const send = document.getElementById("send");
const mic = document.getElementById("mic");
const botSpeaking = document.getElementById("bot-speaking");
const userSpeaking = document.getElementById("user-speaking");
const jobsLine = document.getElementById("jobs");
const jobGroups = createJobGroups();

/** The RTVI WebSocket URL: `/ws` on the host that served this page. */
export function wsUrl(loc = window.location) {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

// ---- conversation log ----------------------------------------------------------------------

let ended = null; // the last bot reply, ended with tokens only (see `outputLine`)

function addLine(kind, who, text) {
  // A user line closes the bot's last reply for good (see `outputLine`).
  if (kind.startsWith("user")) ended = null;
  const item = document.createElement("li");
  item.className = kind;
  const label = document.createElement("span");
  label.className = "who";
  label.textContent = `${who}:`;
  const body = document.createElement("span");
  body.className = "text";
  body.textContent = text;
  item.append(label, body);
  log.append(item);
  log.scrollTop = log.scrollHeight;
  return body;
}

// One bot line per reply. Its text comes from `bot-output`: sentence (or other non-word)
// aggregations keyed by segment, a repeated segment replacing its text; word-level `bot-output`
// is spoken progress of text already shown, used only when a bot sends nothing else. Streamed
// `bot-llm-text` tokens fill the line until the first `bot-output` of the reply arrives.
// With a voice, a sentence's `bot-output` comes when it is played, which can be after the
// model's stream ended (`bot-llm-stopped`, even the next `bot-llm-started`): a `bot-output` whose
// text is in the tokens of the last line ended before any `bot-output` reached it goes to that
// line, not a new one.
let reply = null; // { body, tokens, segments: Map<segment key, text>, words: string[] }

function replyLine() {
  if (!reply) reply = { body: addLine("bot", "Bot", ""), tokens: "", segments: new Map(), words: [] };
  return reply;
}

function endReply() {
  if (reply && !reply.body.textContent) reply.body.parentElement.remove();
  else if (reply && reply.segments.size === 0 && reply.words.length === 0) ended = reply;
  reply = null;
}

/** The line a `bot-output` of `text` belongs to. */
function outputLine(text) {
  if (!reply && ended && normalized(ended.tokens).includes(normalized(text)) && ended.body.isConnected) {
    reply = ended;
  }
  ended = null;
  return replyLine();
}

const tidy = (parts) => parts.join(" ").replace(/\s+/g, " ").trim();

function onBotOutput(data) {
  if (!data?.text) return;
  const r = outputLine(data.text);
  if (data.aggregated_by === "word") r.words.push(data.text);
  else r.segments.set(data.segment_id ?? `auto-${r.segments.size}`, data.text);
  r.body.textContent = r.segments.size > 0 ? tidy([...r.segments.values()]) : tidy(r.words);
}

function onBotLlmText(data) {
  if (!data?.text) return;
  const r = replyLine();
  r.tokens += data.text;
  if (r.segments.size === 0 && r.words.length === 0) r.body.textContent = r.tokens;
}

// ---- the user's spoken lines ---------------------------------------------------------------
//
// `user-transcription` {text, final, user_id, timestamp}: interim results fill one provisional
// user line (class "user interim"), the final one commits it. A final that repeats what the user
// just typed (a server that echoes typed text as a transcription) is not shown twice.

let interim = null; // the text span of the provisional user line
let lastTyped = null; // { text, at }: the last line the user typed
const TYPED_ECHO_MS = 30000;
const normalized = (text) => text.replace(/\s+/g, " ").trim().toLowerCase();

function dropInterim() {
  interim?.parentElement.remove();
  interim = null;
}

function onUserTranscript(data) {
  const text = typeof data?.text === "string" ? data.text.replace(/\s+/g, " ").trim() : "";
  if (!text) return;
  if (!data.final) {
    interim ??= addLine("user interim", "You", "");
    interim.textContent = text;
    return;
  }
  if (lastTyped && normalized(lastTyped.text) === normalized(text) && Date.now() - lastTyped.at < TYPED_ECHO_MS) {
    lastTyped = null;
    dropInterim();
    return;
  }
  endReply();
  if (interim) {
    interim.textContent = text;
    interim.parentElement.classList.remove("interim");
    interim = null;
  } else {
    addLine("user", "You", text);
  }
}

// ---- voice: microphone button and speaking indicators ----------------------------------------
//
// The button's state lives in aria-pressed, data-mic and its text node; none of them is watched by
// client-js's snapshot observer (and the whole panel is data-a11y-exclude), so toggling the mic
// sends no snapshot. The indicators change only `data-active`, for the same reason.

const MIC_TEXT = { off: "Microphone: off", starting: "Microphone: starting…", on: "Microphone: on" };

function showMic(state) {
  mic.dataset.mic = state;
  mic.setAttribute("aria-pressed", state === "on" ? "true" : "false");
  mic.firstChild.data = MIC_TEXT[state] ?? MIC_TEXT.off;
}

function setSpeaking(indicator, on) {
  indicator.dataset.active = on ? "true" : "false";
}

/** What the notice says when the microphone cannot be opened (a DeviceError from voice.js). */
function micErrorText(error) {
  const detail = error?.message ? ` (${error.message})` : "";
  switch (error?.type) {
    case "permissions":
      return `Microphone permission refused${detail}. Allow the microphone for this site to talk; typing still works.`;
    case "not-found":
      return `No microphone found${detail}. Typing still works.`;
    case "in-use":
      return `The microphone could not be opened; another application may be using it${detail}. Typing still works.`;
    default:
      return `Could not use the microphone${detail}. Typing still works.`;
  }
}

const modeNotice = document.getElementById("mode-notice");

/** Shows the server's mode (`{kind: "hark-mode", mode, text}`) in the notice line. */
function showMode(data) {
  document.body.dataset.harkMode = typeof data.mode === "string" ? data.mode : "";
  // Writing the text node's data is a characterData change, which client-js's snapshot observer
  // does not watch (the notice is data-a11y-exclude anyway).
  modeNotice.firstChild.data = typeof data.text === "string" ? data.text : "";
  modeNotice.hidden = !modeNotice.firstChild.data;
}

function onServerMessage(data) {
  if (data?.kind === "hark-mode") {
    showMode(data);
    return;
  }
  const text = typeof data === "string" ? data : typeof data?.text === "string" ? data.text : JSON.stringify(data);
  addLine("system", "Server", text);
}

function onUIJobGroup(envelope) {
  jobsLine.textContent = jobGroups.record(envelope);
  jobsLine.hidden = !jobsLine.textContent;
}

// ---- error lines -----------------------------------------------------------------------------
//
// Errors are shown in a shadow root under #notices (itself marked data-a11y-exclude), not in the
// conversation log: client-js's snapshot walker does not enter shadow roots, and its
// MutationObserver (document.body, subtree, childList + attributes) does not see changes inside
// them. So an error line neither appears in the next snapshot nor triggers one. Otherwise a
// snapshot the server refuses → an error line → a new snapshot → refused again … loops forever.

const MAX_NOTICES = 50;
const noticeRoot = document.getElementById("notices").attachShadow({ mode: "open" });
noticeRoot.innerHTML = `<style>
  ol { list-style: none; margin: 0.5rem 0 0; padding: 0; display: grid; gap: 0.25rem; }
  li { padding: 0 0.6rem; color: var(--muted, #666); font-size: 0.9em; }
  .who { font-weight: 600; margin-right: 0.4rem; }
</style><ol></ol>`;
const noticeList = noticeRoot.querySelector("ol");

/** Shows an error line (`Error:` + text) where snapshots cannot see it; keeps the last 50. */
function addNotice(who, text) {
  const item = document.createElement("li");
  item.className = "system";
  const label = document.createElement("span");
  label.className = "who";
  label.textContent = `${who}:`;
  const body = document.createElement("span");
  body.className = "text";
  body.textContent = text;
  item.append(label, body);
  noticeList.append(item);
  while (noticeList.children.length > MAX_NOTICES) noticeList.firstElementChild.remove();
}

function errorText(rtviMessage) {
  const data = rtviMessage?.data;
  return data?.error ?? data?.message ?? JSON.stringify(rtviMessage);
}

// ---- connection --------------------------------------------------------------------------

function showState(state) {
  document.body.dataset.rtviState = state;
  // The status span is data-a11y-exclude; writing its text node's data is a characterData
  // change, which client-js's observer does not watch, so a state change alone sends no snapshot.
  status.firstChild.data = `Connection: ${state}`;
  reconnect.hidden = !(state === "disconnected" || state === "error");
  // Typing is possible only while the transport is ready: nothing pretends to send.
  const offline = state !== "ready";
  message.disabled = offline;
  send.disabled = offline;
  mic.disabled = offline;
  message.placeholder = offline ? "Not connected" : "";
  if (offline) {
    // No microphone audio piles up in the transport's queue while there is no session.
    if (voice.micState !== "off") voice.enableMic(false);
    setSpeaking(botSpeaking, false);
    setSpeaking(userSpeaking, false);
  }
}

// The transport labels every microphone frame with its recorderSampleRate: the media manager must
// record at that rate. The player rate is what the server's audio frames carry (24 kHz PCM16).
const RECORDER_SAMPLE_RATE = 16000;
const PLAYER_SAMPLE_RATE = 24000;
const voice = new VoiceMediaManager({
  recorderSampleRate: RECORDER_SAMPLE_RATE,
  playerSampleRate: PLAYER_SAMPLE_RATE,
  onMicState: showMic,
});

const client = new PipecatClient({
  // VoiceMediaManager (voice.js): connecting opens no device. The default media manager loads a
  // script bundle from the network at connect time (never finishes offline), and WavMediaManager
  // asks for the microphone even with enableMic: false (never finishes with no microphone or a
  // blocked permission). enableMic: false: the microphone starts only from its button.
  transport: new WebSocketTransport({
    mediaManager: voice,
    recorderSampleRate: RECORDER_SAMPLE_RATE,
    playerSampleRate: PLAYER_SAMPLE_RATE,
  }),
  enableMic: false,
  enableCam: false,
  callbacks: {
    onTransportStateChanged: showState,
    onBotReady: () => addLine("system", "System", "Connected to the bot."),
    onDisconnected: () => {
      endReply();
      dropInterim();
    },
    onBotOutput,
    onBotLlmText,
    onBotLlmStarted: () => endReply(),
    onBotLlmStopped: () => endReply(),
    onServerMessage,
    onUserTranscript,
    // Barge-in: neither client-js nor the transport tells the media manager, so the page does:
    // the bot audio still queued stops at once.
    onUserStartedSpeaking: () => {
      voice.userStartedSpeaking();
      setSpeaking(userSpeaking, true);
    },
    onUserStoppedSpeaking: () => setSpeaking(userSpeaking, false),
    onBotStartedSpeaking: () => setSpeaking(botSpeaking, true),
    onBotStoppedSpeaking: () => setSpeaking(botSpeaking, false),
    onDeviceError: (error) => addNotice("Microphone", micErrorText(error)),
    onUICommand: (data) => runUICommand(data),
    onUIJobGroup,
    onError: (msg) => addNotice("Error", errorText(msg)),
    onMessageError: (msg) => addNotice("Error", errorText(msg)),
  },
});

async function connect() {
  showState("connecting");
  try {
    await client.connect({ wsUrl: wsUrl() });
    client.startUISnapshotStream();
  } catch (err) {
    console.warn("connect failed", err);
    showState("error");
    addNotice("Error", `Could not connect to ${wsUrl()}: ${err?.message ?? err}`);
  }
}

reconnect.addEventListener("click", connect);

messageForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = message.value.trim();
  if (!text) return;
  if (client.state !== "ready") {
    // The input is disabled while not ready; this guards a submit that races a disconnect.
    addNotice("Error", `Not connected (${client.state}): the message was not sent.`);
    return;
  }
  endReply();
  dropInterim();
  addLine("user", "You", text);
  lastTyped = { text, at: Date.now() };
  message.value = "";
  try {
    await client.sendText(text);
  } catch (err) {
    addNotice("Error", `Message not sent: ${err?.message ?? err}`);
  }
});

// The microphone button: on, or off (which also cancels a permission prompt still open). Called
// synchronously inside the click, so the AudioContext it creates may start playing at once.
mic.addEventListener("click", () => {
  if (client.state !== "ready") return;
  client.enableMic(voice.micState === "off");
});

// The first user gesture anywhere creates and resumes the AudioContext that plays the bot's audio
// (browsers hold audio until one). Until it runs, bot audio frames are dropped, not queued.
const unlockEvents = ["pointerdown", "keydown"];
function unlockAudio(event) {
  if (!event.isTrusted) return;
  const ctx = voice.unlockAudio();
  if (!ctx || ctx.state === "running") {
    for (const type of unlockEvents) document.removeEventListener(type, unlockAudio, true);
  }
}
for (const type of unlockEvents) document.addEventListener(type, unlockAudio, true);

setupShop({
  onEvent: (name, payload) => {
    if (client.state === "ready") client.sendUIEvent(name, payload);
  },
});

window.harkDemo = { client, voice, runUICommand, jobGroups: jobGroups.envelopes };
connect();
