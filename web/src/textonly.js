// A media manager for @pipecat-ai/websocket-transport that opens no device at all: the demo page is
// text-only, so it needs neither a microphone nor an AudioContext.
//
// Why not WavMediaManager: its connect() always runs initialize(), which calls getUserMedia (even
// with enableMic: false) and resumes an AudioContext. Without a microphone, with the permission
// blocked or with a permission prompt nobody answers, and in a browser that holds audio until a
// user gesture, that await never settles, so the transport never connects and client-ready is
// never sent. This class implements the transport's MediaManager interface (websocket-transport
// dist/index.d.ts; the base class is not exported) with no devices: no tracks, no mic, no camera,
// and bot audio frames are dropped (the page shows the bot's text).

/** A MediaManager with no devices: connecting never asks for a microphone or plays audio. */
export class TextOnlyMediaManager {
  constructor() {
    this._userAudioCallback = () => {};
    this._options = undefined;
    this._callbacks = {};
  }

  setUserAudioCallback(userAudioCallback) {
    this._userAudioCallback = userAudioCallback;
  }

  setClientOptions(options, override = false) {
    if (this._options && !override) return;
    this._options = options;
    this._callbacks = options?.callbacks ?? {};
  }

  async initialize() {}
  async connect() {}
  async disconnect() {}
  async userStartedSpeaking() {}

  /** Bot audio is dropped: the page is text-only. */
  bufferBotAudio() {
    return undefined;
  }

  async getAllMics() {
    return [];
  }
  async getAllCams() {
    return [];
  }
  async getAllSpeakers() {
    return [];
  }
  updateMic() {}
  updateCam() {}
  updateSpeaker() {}
  get selectedMic() {
    return {};
  }
  get selectedCam() {
    return {};
  }
  get selectedSpeaker() {
    return {};
  }
  enableMic() {}
  enableCam() {}
  enableScreenShare() {}
  get isCamEnabled() {
    return false;
  }
  get isMicEnabled() {
    return false;
  }
  get isSharingScreen() {
    return false;
  }
  get supportsScreenShare() {
    return false;
  }
  tracks() {
    return { local: { audio: undefined, video: undefined } };
  }
}
