//! Text to speech: the [`Tts`] trait and its stream of audio chunks.
//!
//! A [`TtsStream`] is lazy and owned: nothing is sent until it is first polled, each chunk is
//! yielded as soon as the provider gives it, and dropping the stream cancels the synthesis (the
//! HTTP connection is closed, the local program is killed). Barge-in drops it.

use std::pin::Pin;
use std::sync::Arc;

use futures::stream::{Stream, StreamExt};

use crate::audio::AudioChunk;
use crate::error::VoiceError;
use crate::resample::Resampler;

/// Audio of one line, chunk by chunk; ends after the last chunk, or with one error.
pub type TtsStream = Pin<Box<dyn Stream<Item = Result<AudioChunk, VoiceError>> + Send>>;

/// A speech synthesizer.
pub trait Tts: Send + Sync {
    /// The audio of `text`, streamed. The chunks are at [`Tts::sample_rate`].
    fn synthesize(&self, text: &str) -> TtsStream;

    /// The rate of the chunks [`Tts::synthesize`] yields, in Hz.
    fn sample_rate(&self) -> u32;

    /// The synthesizer one call speaks with. `None` (the default): this one, shared by every
    /// call. A provider that holds a connection per client (Cartesia's WebSocket) gives each
    /// call a client of its own, so one call's connection trouble is not every call's.
    fn for_call(&self) -> Option<Arc<dyn Tts>> {
        None
    }
}

/// `stream` with every chunk converted to `to` Hz (the rate the client plays). Chunks already
/// at `to` pass unchanged; the resampler's tail comes as a last chunk when the stream ends. A
/// rate the resampler refuses ends the stream with that error.
pub fn resampled(stream: TtsStream, to: u32) -> TtsStream {
    struct State {
        inner: TtsStream,
        resampler: Option<Resampler>,
        done: bool,
    }
    let state = State {
        inner: stream,
        resampler: None,
        done: false,
    };
    Box::pin(futures::stream::unfold(state, move |mut st| async move {
        loop {
            if st.done {
                return None;
            }
            match st.inner.next().await {
                Some(Ok(chunk)) => {
                    if chunk.sample_rate == to && st.resampler.is_none() {
                        return Some((Ok(chunk), st));
                    }
                    let resampler = match &mut st.resampler {
                        Some(r) if r.from_rate() == chunk.sample_rate => r,
                        _ => match Resampler::new(chunk.sample_rate, to) {
                            Ok(r) => st.resampler.insert(r),
                            Err(e) => {
                                st.done = true;
                                return Some((Err(e), st));
                            }
                        },
                    };
                    let out = resampler.push(&chunk.samples);
                    if !out.is_empty() {
                        return Some((Ok(out), st));
                    }
                }
                Some(Err(e)) => {
                    st.done = true;
                    return Some((Err(e), st));
                }
                None => {
                    st.done = true;
                    let tail = st.resampler.as_mut().map(Resampler::finish);
                    return match tail {
                        Some(t) if !t.is_empty() => Some((Ok(t), st)),
                        _ => None,
                    };
                }
            }
        }
    }))
}
