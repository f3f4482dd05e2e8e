//! Speech to text: the [`Stt`] trait (one utterance's audio in, its transcript out), the
//! [`StreamingStt`] trait (audio in while it is spoken, interim and final transcripts out, one
//! [`SttStream`] per utterance) and the [`Transcript`] both give.
//!
//! A streaming STT (Deepgram's WebSocket API, [`crate::DeepgramStt`]) yields [`Transcript`]s
//! with `is_final: false` for interim results it may still revise and `is_final: true` for each
//! final piece (the utterance's text is its final pieces joined); a batch STT such as the
//! OpenAI-compatible endpoint only ever gives final ones.

use futures::future::BoxFuture;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::audio::AudioChunk;
use crate::error::VoiceError;

/// What the caller said, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The words.
    pub text: String,
    /// `false` for an interim result a streaming STT may still revise.
    pub is_final: bool,
}

impl Transcript {
    /// A final transcript of `text`.
    pub fn final_text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_final: true,
        }
    }
}

/// A batch speech recognizer: a whole utterance in, its transcript out.
pub trait Stt: Send + Sync {
    /// The transcript of `utterance` (any rate the provider takes; WAV carries it).
    fn transcribe(
        &self,
        utterance: AudioChunk,
    ) -> BoxFuture<'static, Result<Transcript, VoiceError>>;
}

/// What a caller hands an [`SttStream`]'s provider task, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamInput {
    /// Samples of the utterance, at the rate the stream was opened with.
    Audio(Vec<i16>),
    /// The utterance ended: flush what is buffered and give the last final transcript.
    Finish,
}

/// A streaming speech recognizer: one [`SttStream`] per utterance.
pub trait StreamingStt: Send + Sync {
    /// Opens a stream for one utterance of PCM16 mono audio at `sample_rate` Hz. Returns at
    /// once (inside a tokio runtime): the connection is made by the stream's own task, and audio
    /// pushed meanwhile waits for it.
    fn open(&self, sample_rate: u32) -> SttStream;
}

/// One utterance's recognition in progress: push audio, [`SttStream::finish`], and read
/// transcripts with [`SttStream::next`] until `None`. Dropping it stops the provider's task
/// (its connection is closed).
#[derive(Debug)]
pub struct SttStream {
    input: mpsc::UnboundedSender<StreamInput>,
    output: mpsc::UnboundedReceiver<Result<Transcript, VoiceError>>,
    task: Option<JoinHandle<()>>,
}

impl SttStream {
    /// A stream over a provider task: `input` carries the caller's audio to it, `output` its
    /// transcripts (an error is its last item), `task` is aborted when the stream is dropped.
    pub fn new(
        input: mpsc::UnboundedSender<StreamInput>,
        output: mpsc::UnboundedReceiver<Result<Transcript, VoiceError>>,
        task: Option<JoinHandle<()>>,
    ) -> Self {
        Self {
            input,
            output,
            task,
        }
    }

    /// Hands `samples` to the provider; `false` when its task has ended (its error, if any,
    /// comes from [`SttStream::next`]).
    pub fn push(&self, samples: &[i16]) -> bool {
        samples.is_empty()
            || self
                .input
                .send(StreamInput::Audio(samples.to_vec()))
                .is_ok()
    }

    /// The utterance ended: the provider flushes and sends its last final transcript, then the
    /// stream ends.
    pub fn finish(&self) {
        let _ = self.input.send(StreamInput::Finish);
    }

    /// The next transcript, interim or final; an error ends the stream; `None` once it ended.
    pub async fn next(&mut self) -> Option<Result<Transcript, VoiceError>> {
        self.output.recv().await
    }
}

impl Drop for SttStream {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}
