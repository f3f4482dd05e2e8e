//! Every text this crate's errors say. Each names the provider, what failed and what to do.

use std::time::Duration;

/// Longest excerpt of a provider's error text kept in an error, in characters.
pub const EXCERPT_CHARS: usize = 300;

/// `openai-compatible TTS at http://host/v1`, or `espeak-ng TTS` for a local program.
pub fn provider_label(kind: &str, role: &str, endpoint: Option<&str>) -> String {
    match endpoint {
        Some(e) => format!("{kind} {role} at {e}"),
        None => format!("{kind} {role}"),
    }
}

/// What to do about an HTTP error status.
fn status_advice(status: u16) -> &'static str {
    match status {
        401 | 403 => "check the API key (the environment variable named by api_key_env)",
        404 => "check base_url (it should end in /v1 for OpenAI) and the model name",
        408 | 429 => "the provider is busy or rate-limited: try again later",
        400..=499 => {
            "check the request settings (model, voice, format) against the provider's documentation"
        }
        _ => "the provider failed: try again later, or use another provider",
    }
}

/// The provider answered `status` with `message` (its own error text).
pub fn http_error(provider: &str, status: u16, message: &str) -> String {
    let advice = status_advice(status);
    if message.is_empty() {
        format!("{provider}: HTTP {status} (no error text); {advice}")
    } else {
        format!("{provider}: HTTP {status}: {message}; {advice}")
    }
}

/// The provider refused the key held in the environment variable `key_env`.
pub fn key_refused(provider: &str, status: u16, message: &str, key_env: &str) -> String {
    let advice = format!(
        "the key in the environment variable {key_env} was refused: check that it holds a valid \
         key for this provider"
    );
    if message.is_empty() {
        format!("{provider}: HTTP {status} (no error text); {advice}")
    } else {
        format!("{provider}: HTTP {status}: {message}; {advice}")
    }
}

/// The connection could not be made.
pub fn connect_error(provider: &str, detail: &str) -> String {
    format!(
        "{provider}: could not connect ({detail}); check base_url and that the server is running"
    )
}

/// Seconds as said in a sentence: `10 s`, `0.25 s`.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// A time limit ran out while waiting for `what`.
pub fn timeout(provider: &str, what: &str, after: Duration, setting: &str) -> String {
    format!(
        "{provider}: timed out after {} waiting for {what}; the server may be overloaded or \
         unreachable: try again, or raise {setting}",
        seconds(after)
    )
}

/// The audio stream broke (or ended inside a sample) after `bytes` bytes.
pub fn stream_cut(provider: &str, bytes: u64, detail: &str) -> String {
    format!(
        "{provider}: the audio stream was cut after {bytes} bytes ({detail}); the line was not \
         spoken to its end: try again"
    )
}

/// What to do about a WebSocket close code from a streaming STT.
fn close_advice(code: u16) -> &'static str {
    match code {
        1008 => {
            "the provider could not read the audio: check that it is the encoding and sample \
             rate the stream was opened with"
        }
        1011 => "the provider received no audio in time or failed: try again",
        _ => "try again, or use another provider",
    }
}

/// A streaming STT's provider closed the stream with `code` and `reason`.
pub fn stream_closed(provider: &str, code: u16, reason: &str) -> String {
    let advice = close_advice(code);
    let reason = reason.trim();
    if reason.is_empty() {
        format!(
            "{provider}: the stream was closed mid-utterance (close code {code}); the words after \
             the last final transcript were not heard; {advice}"
        )
    } else {
        format!(
            "{provider}: the stream was closed mid-utterance (close code {code}: {reason}); the \
             words after the last final transcript were not heard; {advice}"
        )
    }
}

/// A streaming STT's connection broke after `audio_bytes` bytes of audio were sent.
pub fn stream_lost(provider: &str, audio_bytes: u64, detail: &str) -> String {
    format!(
        "{provider}: the connection broke mid-utterance after {audio_bytes} bytes of audio were \
         sent ({detail}); the words after the last final transcript were not heard: check the \
         network and try again"
    )
}

/// The provider sent something this client cannot read.
pub fn decode_error(provider: &str, detail: &str) -> String {
    format!("{provider}: unreadable reply: {detail}")
}

/// The request cannot be sent as it is.
pub fn invalid_request(provider: &str, detail: &str) -> String {
    format!("{provider}: {detail}")
}

/// The local program is not installed.
pub fn missing_program(provider: &str, program: &str, package: &str) -> String {
    format!(
        "{provider}: the program {program} was not found; install it with \
         `apt-get install {package}` (Debian/Ubuntu), or set its path"
    )
}

/// The local program could not be started for another reason.
pub fn spawn_error(provider: &str, program: &str, detail: &str) -> String {
    format!("{provider}: could not start {program}: {detail}")
}

/// The local program failed.
pub fn program_failed(provider: &str, program: &str, status: &str, stderr: &str) -> String {
    let stderr = stderr.trim();
    if stderr.is_empty() {
        format!("{provider}: {program} failed ({status}) and said nothing on stderr")
    } else {
        format!("{provider}: {program} failed ({status}): {stderr}")
    }
}

/// A sample rate outside what Hark takes.
pub fn sample_rate(rate: u32, min: u32, max: u32) -> String {
    format!("sample rate {rate} Hz is outside {min}..={max} Hz; use a rate in that range")
}

/// rubato refused a conversion.
pub fn resample_error(detail: &str) -> String {
    format!("could not resample audio: {detail}")
}

/// A WAV file hound could not read or write.
pub fn wav_error(detail: &str) -> String {
    format!("not a usable WAV file: {detail}")
}

/// The command that fetches the models Hark runs locally (the Silero VAD model among them).
pub const FETCH_MODEL_COMMAND: &str = "scripts/fetch-model.sh";

/// The Silero VAD model at `path` cannot be used.
pub fn vad_model(path: &str, reason: &str) -> String {
    format!(
        "the Silero VAD model {path} cannot be used: {reason}; run {FETCH_MODEL_COMMAND} to fetch \
         and check it (it puts silero_vad.onnx in $HARK_MODEL_DIR, else \
         $XDG_CACHE_HOME/hark/models, else ~/.cache/hark/models)"
    )
}

/// Voice activity detection refused something.
pub fn vad_error(detail: &str) -> String {
    format!("voice activity detection: {detail}")
}
