// A media manager for @pipecat-ai/websocket-transport: plays the bot's audio and, only when the
// user asks for it, captures the microphone. It replaces TextOnlyMediaManager and keeps its
// lesson: connecting never waits on a device or a permission.
//
// Why not the transport's own managers (websocket-transport 1.7.1): the default one
// (DailyMediaManager) loads a script bundle from the network at connect time, which never finishes
// offline; WavMediaManager's connect() runs initialize(), which calls getUserMedia even with
// enableMic: false and awaits AudioContext.resume(), so with no microphone, a blocked permission,
// a prompt nobody answers or audio held until a user gesture, connect() never settles and
// client-ready is never sent.
//
// What this class does instead (the interface is the transport's abstract MediaManager,
// websocket-transport dist/index.d.ts; the base class is not exported):
//
// - initialize(), connect(): nothing. No device, no AudioContext, no permission.
// - Playback: one AudioContext, created on the first user gesture (`unlockAudio()`, which the page
//   calls from a pointerdown/keydown listener) or on enableMic(true), and resumed there without
//   waiting. bufferBotAudio(Int16 PCM at `playerSampleRate`, 24 000 Hz by default, what the
//   transport's deserializer hands over for every audio frame) schedules the samples gaplessly, one
//   AudioBufferSourceNode per frame, each starting where the previous one ends. While the context
//   is not running (no gesture yet, or a resume the browser holds back) frames are dropped and
//   counted in `droppedSeconds`, never queued. userStartedSpeaking() and disconnect() stop what is
//   queued at once.
//   NOTE: neither client-js 1.13.1 nor websocket-transport 1.7.1 calls userStartedSpeaking() when
//   `user-started-speaking` arrives (they only fire onUserStartedSpeaking), and client-js ignores
//   `bot-interrupted`: the page calls userStartedSpeaking() itself from onUserStartedSpeaking.
// - Microphone: only on enableMic(true): getUserMedia with echo cancellation, noise suppression and
//   auto gain; an AudioWorklet (its code inlined below, loaded from a Blob URL: one bundle, no
//   network) downmixes to mono, low-passes and resamples from the context rate to
//   `recorderSampleRate` (16 000 Hz by default, the transport's RECORDER_SAMPLE_RATE, which it
//   writes into every frame it sends), converts to PCM16 and posts chunks of `chunkMs` (20 ms:
//   320 samples, 640 bytes) as ArrayBuffers to the user-audio callback. The transport's serializer
//   does `new Uint8Array(data)`, so the callback must get an ArrayBuffer: an Int16Array would be
//   converted element by element (and truncated to bytes). enableMic(false) stops the tracks.
//   enableMic never rejects (the transport drops its promise): a refused permission or a missing
//   device is reported through the client's onDeviceError callback (a DeviceError) and the mic
//   stays off. A permission prompt nobody answers leaves the mic "starting"; enableMic(false)
//   cancels it (a stream that arrives later is stopped at once).
// - `onMicState(state)` (constructor option) is told "off" | "starting" | "on" on every change.

import { DeviceError } from "@pipecat-ai/client-js";

/** The capture worklet: mono, low-pass, resample, PCM16, fixed-size chunks. */
const CAPTURE_WORKLET = `
class Biquad {
  constructor(rate, cutoff, q) {
    const w = 2 * Math.PI * cutoff / rate, a = Math.sin(w) / (2 * q), c = Math.cos(w), a0 = 1 + a;
    this.b0 = (1 - c) / 2 / a0; this.b1 = (1 - c) / a0; this.b2 = this.b0;
    this.a1 = -2 * c / a0; this.a2 = (1 - a) / a0;
    this.x1 = 0; this.x2 = 0; this.y1 = 0; this.y2 = 0;
  }
  run(x) {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1; this.x1 = x; this.y2 = this.y1; this.y1 = y;
    return y;
  }
}

class HarkMicCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const o = (options && options.processorOptions) || {};
    this.outRate = o.targetRate || 16000;
    this.step = sampleRate / this.outRate; // input samples per output sample
    this.chunk = o.chunkSamples || 320;
    this.out = new Int16Array(this.chunk);
    this.fill = 0;
    this.pos = 1; // where the next output sample lies, in input samples; 0 is the previous block's last
    this.prev = 0;
    this.buf = new Float32Array(129);
    // Downsampling: an 8th-order Butterworth low-pass (four biquads) at 0.45 x the output rate
    // against aliasing (about -36 dB at 0.75 x the output rate).
    this.filters = this.step > 1
      ? [0.5098, 0.6013, 0.9000, 2.5629].map((q) => new Biquad(sampleRate, 0.45 * this.outRate, q))
      : [];
    this.running = true;
    this.port.onmessage = (e) => { if (e.data === "stop") this.running = false; };
  }

  process(inputs) {
    if (!this.running) return false;
    const input = inputs[0];
    if (!input || input.length === 0 || !input[0]) return true; // no live source right now
    const n = input[0].length;
    if (this.buf.length < n + 1) this.buf = new Float32Array(n + 1);
    const buf = this.buf;
    buf[0] = this.prev;
    const channels = input.length;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let c = 0; c < channels; c++) s += input[c][i];
      s /= channels;
      for (const f of this.filters) s = f.run(s);
      buf[i + 1] = s;
    }
    while (this.pos <= n) {
      const i = Math.floor(this.pos);
      const frac = this.pos - i;
      const a = buf[i];
      const b = i < n ? buf[i + 1] : a;
      let s = a + (b - a) * frac;
      s = s > 1 ? 1 : s < -1 ? -1 : s;
      this.out[this.fill++] = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
      if (this.fill === this.chunk) {
        const done = this.out.buffer;
        this.port.postMessage(done, [done]);
        this.out = new Int16Array(this.chunk);
        this.fill = 0;
      }
      this.pos += this.step;
    }
    this.pos -= n;
    this.prev = buf[n];
    return true;
  }
}

registerProcessor("hark-mic-capture", HarkMicCapture);
`;

let workletUrl;
function captureWorkletUrl() {
  workletUrl ??= URL.createObjectURL(new Blob([CAPTURE_WORKLET], { type: "application/javascript" }));
  return workletUrl;
}

const MIC_CONSTRAINTS = { echoCancellation: true, noiseSuppression: true, autoGainControl: true };

/** Seconds of silence before the first frame after the queue ran dry: absorbs network jitter. */
const START_LEAD = 0.06;

const localParticipant = () => ({ id: "local", name: "", local: true });

/** The DeviceError type for a getUserMedia failure. */
function deviceErrorType(err) {
  switch (err?.name) {
    case "NotAllowedError":
    case "SecurityError":
    case "PermissionDeniedError":
      return "permissions";
    case "NotFoundError":
    case "DevicesNotFoundError":
      return "not-found";
    case "NotReadableError":
    case "TrackStartError":
    case "AbortError":
      return "in-use";
    case "OverconstrainedError":
    case "ConstraintNotSatisfiedError":
      return "constraints";
    default:
      return "unknown";
  }
}

/** A MediaManager that plays bot audio and opens the microphone only when asked. */
export class VoiceMediaManager {
  /**
   * @param {{recorderSampleRate?: number, playerSampleRate?: number, chunkMs?: number,
   *          onMicState?: (state: "off" | "starting" | "on") => void}} [opts]
   *   recorderSampleRate must equal the transport's (it labels every frame with its own).
   */
  constructor({ recorderSampleRate = 16000, playerSampleRate = 24000, chunkMs = 20, onMicState } = {}) {
    this._userAudioCallback = () => {};
    this._options = undefined;
    this._callbacks = {};
    this.recorderSampleRate = recorderSampleRate;
    this.playerSampleRate = playerSampleRate;
    this.chunkSamples = Math.round((recorderSampleRate * chunkMs) / 1000);
    this._onMicState = onMicState ?? (() => {});
    // playback
    this._ctx = null;
    this._sources = new Set();
    this._nextTime = 0;
    this.droppedSeconds = 0;
    this.playedSeconds = 0; // scheduled so far (not a measure of what was heard)
    // microphone
    this._micState = "off";
    this._micGen = 0; // bumped by every enableMic call: a late getUserMedia answer for an old one is dropped
    this._stream = null;
    this._source = null;
    this._node = null;
    this._micId = undefined;
    this._selectedMic = {};
    this._speakerId = undefined;
    this._workletLoaded = null;
  }

  setUserAudioCallback(userAudioCallback) {
    this._userAudioCallback = userAudioCallback;
  }

  setClientOptions(options, override = false) {
    if (this._options && !override) return;
    this._options = options;
    this._callbacks = options?.callbacks ?? {};
  }

  /** Opens nothing: devices are opened only by enableMic(true). */
  async initialize() {}

  /** Opens nothing: connecting must never wait on a device or a permission. */
  async connect() {}

  /** Stops the microphone and drops the queued bot audio. */
  async disconnect() {
    this._stopMic();
    this._stopPlayback();
  }

  /** Barge-in: the user speaks, so the bot audio still queued is dropped at once. */
  async userStartedSpeaking() {
    this._stopPlayback();
  }

  // ---- playback ------------------------------------------------------------------------------

  /**
   * Creates the AudioContext if there is none and asks the browser to run it, without waiting.
   * Call it from a user gesture (the page does, on pointerdown and keydown).
   */
  unlockAudio() {
    if (!this._ctx) {
      const Ctx = globalThis.AudioContext ?? globalThis.webkitAudioContext;
      if (!Ctx) return null;
      this._ctx = new Ctx();
      if (this._speakerId && this._ctx.setSinkId) this._ctx.setSinkId(this._speakerId).catch(() => {});
    }
    if (this._ctx.state === "suspended") {
      // Never awaited: a browser may hold this promise until a gesture, or forever.
      this._ctx.resume().catch(() => {});
    }
    return this._ctx;
  }

  /** "none" before the first gesture, else the AudioContext's state. */
  get audioState() {
    return this._ctx ? this._ctx.state : "none";
  }

  /** Seconds of bot audio scheduled and not yet played. */
  get queuedSeconds() {
    if (!this._ctx || this._sources.size === 0) return 0;
    return Math.max(0, this._nextTime - this._ctx.currentTime);
  }

  /** How many scheduled bot-audio frames have not finished playing. */
  get queuedFrames() {
    return this._sources.size;
  }

  /** Schedules Int16 PCM (mono, `playerSampleRate`) right after what is already queued. */
  bufferBotAudio(data, _id) {
    let pcm;
    if (data instanceof Int16Array) pcm = data;
    else if (data instanceof ArrayBuffer) pcm = new Int16Array(data);
    else return undefined;
    if (pcm.length === 0) return undefined;
    const ctx = this._ctx;
    if (!ctx || ctx.state !== "running") {
      this.droppedSeconds += pcm.length / this.playerSampleRate;
      return undefined;
    }
    const buffer = ctx.createBuffer(1, pcm.length, this.playerSampleRate);
    const samples = buffer.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 0x8000;
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(ctx.destination);
    const now = ctx.currentTime;
    if (this._sources.size === 0 || this._nextTime < now) this._nextTime = now + START_LEAD;
    source.start(this._nextTime);
    this._nextTime += buffer.duration;
    this.playedSeconds += buffer.duration;
    this._sources.add(source);
    source.onended = () => {
      this._sources.delete(source);
      source.disconnect();
    };
    return pcm;
  }

  _stopPlayback() {
    for (const source of this._sources) {
      source.onended = null;
      try {
        source.stop();
      } catch {
        // never started or already stopped
      }
      source.disconnect();
    }
    this._sources.clear();
    this._nextTime = 0;
  }

  // ---- microphone ----------------------------------------------------------------------------

  /** "off" | "starting" (waiting for the permission or the device) | "on" (capturing). */
  get micState() {
    return this._micState;
  }

  _setMicState(state) {
    if (this._micState === state) return;
    this._micState = state;
    this._onMicState(state);
  }

  /** Turns the microphone on or off. Never rejects; resolves to whether it is on. */
  async enableMic(enable) {
    const gen = ++this._micGen;
    if (!enable) {
      this._stopMic();
      return false;
    }
    if (this._micState === "on") return true;
    this._setMicState("starting");
    // Synchronously inside the click that asked for the mic: lets the context start playing too.
    const ctx = this.unlockAudio();
    let stream;
    try {
      if (!ctx) throw Object.assign(new Error("This browser has no Web Audio"), { name: "NotSupportedError" });
      if (!navigator.mediaDevices?.getUserMedia) {
        this._deviceError("undefined-mediadevices", new Error("This page cannot use a microphone (no navigator.mediaDevices; is it served over HTTPS or from localhost?)"));
        if (gen === this._micGen) this._setMicState("off");
        return false;
      }
      const audio = this._micId ? { ...MIC_CONSTRAINTS, deviceId: { exact: this._micId } } : { ...MIC_CONSTRAINTS };
      stream = await navigator.mediaDevices.getUserMedia({ audio });
      if (gen !== this._micGen) {
        // Turned off (or asked again) while the prompt was open.
        stream.getTracks().forEach((t) => t.stop());
        return this._micState === "on";
      }
      this._workletLoaded ??= ctx.audioWorklet.addModule(captureWorkletUrl()).catch((e) => {
        this._workletLoaded = null;
        throw e;
      });
      await this._workletLoaded;
      if (gen !== this._micGen) {
        stream.getTracks().forEach((t) => t.stop());
        return this._micState === "on";
      }
      const source = ctx.createMediaStreamSource(stream);
      const node = new AudioWorkletNode(ctx, "hark-mic-capture", {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        processorOptions: { targetRate: this.recorderSampleRate, chunkSamples: this.chunkSamples },
      });
      node.port.onmessage = (e) => {
        if (this._node === node && e.data instanceof ArrayBuffer) this._userAudioCallback(e.data);
      };
      source.connect(node);
      this._stream = stream;
      this._source = source;
      this._node = node;
    } catch (err) {
      stream?.getTracks().forEach((t) => t.stop());
      if (gen === this._micGen) {
        this._setMicState("off");
        this._deviceError(deviceErrorType(err), err);
      }
      return false;
    }
    const track = stream.getAudioTracks()[0];
    if (track) {
      track.addEventListener("ended", () => {
        // The device went away (unplugged, revoked): the mic is off.
        if (this._stream === stream) {
          this._micGen++;
          this._stopMic();
          this._deviceError("not-found", new Error("The microphone stopped (unplugged or taken away)."));
        }
      });
    }
    this._setMicState("on");
    if (track) this._callbacks.onTrackStarted?.(track, localParticipant());
    this._refreshSelectedMic(track);
    return true;
  }

  _stopMic() {
    const stream = this._stream;
    const track = stream?.getAudioTracks()[0];
    if (this._node) {
      this._node.port.postMessage("stop");
      this._node.port.onmessage = null;
      this._node.disconnect();
    }
    this._source?.disconnect();
    stream?.getTracks().forEach((t) => t.stop());
    this._stream = null;
    this._source = null;
    this._node = null;
    this._setMicState("off");
    if (track) this._callbacks.onTrackStopped?.(track, localParticipant());
  }

  _deviceError(type, err) {
    const message = err?.message || String(err);
    const error = new DeviceError(["mic"], type, message, err instanceof Error ? { sourceError: err } : undefined);
    this._callbacks.onDeviceError?.(error);
  }

  async _refreshSelectedMic(track) {
    try {
      const id = track?.getSettings?.().deviceId;
      const mics = await this.getAllMics();
      const mic = mics.find((d) => d.deviceId === id);
      if (mic && this._stream?.getAudioTracks()[0] === track) {
        this._selectedMic = mic;
        this._callbacks.onMicUpdated?.(mic);
      }
    } catch {
      // enumerateDevices unavailable: selectedMic stays {}
    }
  }

  /** Audio inputs as enumerateDevices lists them (labels empty until a permission was given). */
  async getAllMics() {
    const devices = (await navigator.mediaDevices?.enumerateDevices?.()) ?? [];
    return devices.filter((d) => d.kind === "audioinput");
  }

  async getAllCams() {
    return [];
  }

  async getAllSpeakers() {
    const devices = (await navigator.mediaDevices?.enumerateDevices?.()) ?? [];
    return devices.filter((d) => d.kind === "audiooutput");
  }

  /** Uses this microphone from now on; restarts the capture if it is on. */
  async updateMic(micId) {
    this._micId = micId || undefined;
    if (this._micState === "on") {
      await this.enableMic(false);
      await this.enableMic(true);
    }
  }

  updateCam() {}

  updateSpeaker(speakerId) {
    this._speakerId = speakerId || undefined;
    if (this._ctx?.setSinkId) this._ctx.setSinkId(this._speakerId ?? "").catch(() => {});
  }

  get selectedMic() {
    return this._micState === "on" ? this._selectedMic : {};
  }

  get selectedCam() {
    return {};
  }

  get selectedSpeaker() {
    return {};
  }

  enableCam() {}
  enableScreenShare() {}

  get isCamEnabled() {
    return false;
  }

  /** True only while the microphone is captured. */
  get isMicEnabled() {
    return this._micState === "on";
  }

  get isSharingScreen() {
    return false;
  }

  get supportsScreenShare() {
    return false;
  }

  tracks() {
    const audio = this._micState === "on" ? this._stream?.getAudioTracks()[0] : undefined;
    return { local: audio ? { audio } : {} };
  }
}
