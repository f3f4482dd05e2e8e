//! Local TTS with espeak-ng (Debian package `espeak-ng`): `espeak-ng --stdout -v VOICE -s WPM`
//! with the text on stdin writes a WAV (16-bit mono, 22 050 Hz) to stdout as it speaks; the
//! header is read with hound, the samples after it are yielded as they arrive, and the stream
//! can be resampled to the rate the client plays. Dropping the stream kills the program.

use std::io::Cursor;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use futures::stream::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::time::Instant;

use crate::audio::{AudioChunk, Pcm16Carry};
use crate::error::{ProviderLabel, Role, TimeoutPhase, VoiceError};
use crate::messages::EXCERPT_CHARS;
use crate::tts::{Tts, TtsStream, resampled};

/// The provider kind as errors and agent files name it.
pub const KIND: &str = "espeak-ng";

/// The rate espeak-ng writes: 22 050 Hz.
pub const ESPEAK_RATE: u32 = 22_050;

/// Bytes read from stdout at a time (about 23 ms of audio).
const READ_BYTES: usize = 1024;

/// Longest WAV header looked for before giving up, in bytes.
const MAX_HEADER_BYTES: usize = 4096;

/// Settings of an [`EspeakTts`].
#[derive(Debug, Clone, PartialEq)]
pub struct EspeakConfig {
    /// The program: `espeak-ng` (found on `PATH`) or a path to it.
    pub program: PathBuf,
    /// `-v`: the voice, e.g. `en-us` (`espeak-ng --voices` lists them).
    pub voice: String,
    /// `-s`: speed in words per minute (espeak-ng's default is 175).
    pub words_per_minute: u32,
    /// The rate of the chunks; `None` for espeak-ng's own [`ESPEAK_RATE`].
    pub sample_rate: Option<u32>,
    /// Longest run of one line, from start to the last sample. Default 30 s.
    pub timeout: Duration,
}

impl Default for EspeakConfig {
    fn default() -> Self {
        Self {
            program: PathBuf::from("espeak-ng"),
            voice: "en-us".to_owned(),
            words_per_minute: 175,
            sample_rate: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// TTS by the local espeak-ng program.
#[derive(Debug, Clone)]
pub struct EspeakTts {
    config: EspeakConfig,
    label: ProviderLabel,
}

impl EspeakTts {
    /// A synthesizer with these settings (the program is looked for when a line is spoken).
    pub fn new(config: EspeakConfig) -> Self {
        Self {
            config,
            label: ProviderLabel::local(KIND, Role::Tts),
        }
    }

    /// The label its errors carry.
    pub fn label(&self) -> &ProviderLabel {
        &self.label
    }

    fn program_name(&self) -> String {
        self.config.program.display().to_string()
    }

    fn spawn(&self, text: &str) -> Result<Running, VoiceError> {
        if text.trim().is_empty() {
            return Err(VoiceError::InvalidRequest {
                provider: self.label.clone(),
                detail: "the line to speak is empty; give it some text".to_owned(),
            });
        }
        let mut child = Command::new(&self.config.program)
            .arg("--stdout")
            .arg("-v")
            .arg(&self.config.voice)
            .arg("-s")
            .arg(self.config.words_per_minute.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    VoiceError::MissingProgram {
                        provider: self.label.clone(),
                        program: self.program_name(),
                        package: "espeak-ng",
                    }
                } else {
                    VoiceError::Spawn {
                        provider: self.label.clone(),
                        program: self.program_name(),
                        detail: e.to_string(),
                    }
                }
            })?;
        // Text on stdin, not argv: a line starting with `-` is never read as an option.
        if let Some(mut stdin) = child.stdin.take() {
            let text = text.to_owned();
            tokio::spawn(async move {
                let _ = stdin.write_all(text.as_bytes()).await;
                let _ = stdin.write_all(b"\n").await;
            });
        }
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        match (stdout, stderr) {
            (Some(stdout), Some(stderr)) => Ok(Running {
                tts: self.clone(),
                child,
                stdout,
                stderr: Some(stderr),
                header: Vec::new(),
                carry: None,
                deadline: Instant::now() + self.config.timeout,
            }),
            _ => Err(VoiceError::Spawn {
                provider: self.label.clone(),
                program: self.program_name(),
                detail: "no stdout or stderr pipe".to_owned(),
            }),
        }
    }
}

/// One line being spoken: the program, its pipes and what was read so far.
struct Running {
    tts: EspeakTts,
    child: Child,
    stdout: ChildStdout,
    stderr: Option<ChildStderr>,
    /// Bytes before the samples, until the header is read.
    header: Vec<u8>,
    /// Set once the header is read (data is 16-bit mono).
    carry: Option<(Pcm16Carry, u32)>,
    deadline: Instant,
}

impl Running {
    fn err_decode(&self, detail: impl Into<String>) -> VoiceError {
        VoiceError::Decode {
            provider: self.tts.label.clone(),
            detail: detail.into(),
        }
    }

    fn err_timeout(&self) -> VoiceError {
        VoiceError::Timeout {
            provider: self.tts.label.clone(),
            phase: TimeoutPhase::Total,
            after: self.tts.config.timeout,
        }
    }

    /// The next chunk, `Ok(None)` at a clean end.
    async fn next_chunk(&mut self) -> Result<Option<AudioChunk>, VoiceError> {
        let mut buf = [0u8; READ_BYTES];
        loop {
            let read = tokio::time::timeout_at(self.deadline, self.stdout.read(&mut buf)).await;
            let n = match read {
                Err(_) => return Err(self.err_timeout()),
                Ok(Err(e)) => return Err(self.err_decode(format!("reading stdout: {e}"))),
                Ok(Ok(n)) => n,
            };
            if n == 0 {
                return self.finish().await.map(|()| None);
            }
            let bytes = &buf[..n];
            if let Some((carry, rate)) = self.carry.as_mut() {
                let samples = carry.push(bytes);
                if !samples.is_empty() {
                    return Ok(Some(AudioChunk::new(samples, *rate)));
                }
                continue;
            }
            self.header.extend_from_slice(bytes);
            if let Some(chunk) = self.read_header()? {
                return Ok(Some(chunk));
            }
        }
    }

    /// Reads the WAV header once enough bytes are in; the samples after it, if any.
    fn read_header(&mut self) -> Result<Option<AudioChunk>, VoiceError> {
        let mut cursor = Cursor::new(self.header.as_slice());
        let spec = match hound::WavReader::new(&mut cursor) {
            Ok(reader) => reader.spec(),
            Err(_) if self.header.len() < MAX_HEADER_BYTES => return Ok(None),
            Err(e) => return Err(self.err_decode(format!("its WAV header: {e}"))),
        };
        let offset = cursor.position() as usize;
        if spec.channels != 1
            || spec.bits_per_sample != 16
            || spec.sample_format != hound::SampleFormat::Int
        {
            return Err(self.err_decode(format!(
                "a WAV of {} channels, {} bits; expected 16-bit mono",
                spec.channels, spec.bits_per_sample
            )));
        }
        let mut carry = Pcm16Carry::new();
        let samples = carry.push(&self.header[offset..]);
        self.carry = Some((carry, spec.sample_rate));
        self.header = Vec::new();
        Ok((!samples.is_empty()).then(|| AudioChunk::new(samples, spec.sample_rate)))
    }

    /// At the end of stdout: the exit status decides between a clean end and the program's
    /// own error text.
    async fn finish(&mut self) -> Result<(), VoiceError> {
        let status = match tokio::time::timeout_at(self.deadline, self.child.wait()).await {
            Err(_) => return Err(self.err_timeout()),
            Ok(Err(e)) => return Err(self.err_decode(format!("waiting for it: {e}"))),
            Ok(Ok(s)) => s,
        };
        if !status.success() {
            let mut stderr = String::new();
            if let Some(mut pipe) = self.stderr.take() {
                let mut bytes = Vec::new();
                let _ = tokio::time::timeout(
                    Duration::from_secs(1),
                    (&mut pipe).take(64 * 1024).read_to_end(&mut bytes),
                )
                .await;
                stderr = String::from_utf8_lossy(&bytes)
                    .chars()
                    .take(EXCERPT_CHARS)
                    .collect();
            }
            return Err(VoiceError::ProgramFailed {
                provider: self.tts.label.clone(),
                program: self.tts.program_name(),
                status: status.to_string(),
                stderr,
            });
        }
        match &self.carry {
            None => Err(self.err_decode("it exited without writing a WAV header")),
            Some((carry, _)) if carry.has_partial() => Err(VoiceError::StreamCut {
                provider: self.tts.label.clone(),
                bytes: carry.total_bytes(),
                detail: "stdout ended inside a 16-bit sample".to_owned(),
            }),
            Some(_) => Ok(()),
        }
    }
}

impl Tts for EspeakTts {
    fn synthesize(&self, text: &str) -> TtsStream {
        enum State {
            Start(EspeakTts, String),
            Running(Box<Running>),
            Done,
        }
        let raw: TtsStream = Box::pin(futures::stream::unfold(
            State::Start(self.clone(), text.to_owned()),
            |state| async move {
                let mut running = match state {
                    State::Done => return None,
                    State::Start(tts, text) => match tts.spawn(&text) {
                        Ok(r) => Box::new(r),
                        Err(e) => return Some((Err(e), State::Done)),
                    },
                    State::Running(r) => r,
                };
                match running.next_chunk().await {
                    Ok(Some(chunk)) => Some((Ok(chunk), State::Running(running))),
                    Ok(None) => None,
                    Err(e) => Some((Err(e), State::Done)),
                }
            },
        ));
        match self.config.sample_rate {
            Some(rate) if rate != ESPEAK_RATE => resampled(raw, rate),
            _ => raw.boxed(),
        }
    }

    fn sample_rate(&self) -> u32 {
        self.config.sample_rate.unwrap_or(ESPEAK_RATE)
    }
}
