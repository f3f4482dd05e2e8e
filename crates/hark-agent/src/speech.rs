//! The call's voice over an [`AgentOutput`]: [`OutputSpeech`] implements hark-tools'
//! [`Speech`], and [`SentenceSplitter`] cuts streamed model text into spoken segments.
//!
//! Without a TTS, "saying" a line emits it as one [`AgentEvent::Spoken`] segment (an RTVI
//! session carries it as `bot-output` aggregated by sentence, then `bot-tts-text`), and playout
//! is done once it was queued for the client.
//!
//! With a TTS ([`OutputSpeech::with_voice`]) each line is queued on the call's [`Speaker`]
//! (`playout.rs`): its `Spoken` segment and its audio go out when its turn to play comes, at
//! real-time pace; [`Speech::wait_playout`] waits until all of it was sent. An interruption cuts
//! it off ([`OutputSpeech::cut`]), except lines said with [`Speech::say_waited`]
//! (`announce_wait`, a goodbye).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use futures::future::BoxFuture;
use hark_tools::{Generation, Speech};

use hark_voice::Tts;

use crate::event::AgentEvent;
use crate::output::{AgentOutput, OutputClosed};
use crate::playout::{Speaker, Unheard};

/// The call's [`Speech`] over its [`AgentOutput`]: each line is one [`AgentEvent::Spoken`]
/// segment (a new `segment` number each). Saying anything marks the current generation
/// spoken ([`Generation::mark_spoken`]): an interruption then cancels it instead of
/// discarding it (case T8).
pub struct OutputSpeech {
    output: Arc<dyn AgentOutput>,
    segment: AtomicI64,
    spoke: AtomicBool,
    generation: std::sync::Mutex<Option<Generation>>,
    speaker: Option<Speaker>,
}

impl fmt::Debug for OutputSpeech {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSpeech")
            .field("output", &self.output)
            .field("segment", &self.segment.load(Ordering::Relaxed))
            .field("spoke", &self.spoke.load(Ordering::Relaxed))
            .field("speaker", &self.speaker)
            .finish()
    }
}

impl OutputSpeech {
    /// Speech that sends to `output`.
    pub fn new(output: Arc<dyn AgentOutput>) -> Self {
        OutputSpeech {
            output,
            segment: AtomicI64::new(0),
            spoke: AtomicBool::new(false),
            generation: std::sync::Mutex::new(None),
            speaker: None,
        }
    }

    /// Speech that also plays each line's audio: `tts` synthesizes it and it is sent to
    /// `output` at `rate` Hz (the rate the client plays), at real-time pace. Must be made inside
    /// a tokio runtime.
    pub fn with_voice(output: Arc<dyn AgentOutput>, tts: Arc<dyn Tts>, rate: u32) -> Self {
        OutputSpeech {
            speaker: Some(Speaker::new(tts, rate, output.clone())),
            ..Self::new(output)
        }
    }

    /// Whether lines are played as audio.
    pub fn has_voice(&self) -> bool {
        self.speaker.is_some()
    }

    /// Cuts the bot off (the caller talked over it): the line playing stops at once and the
    /// lines waiting are dropped, except lines said with [`Speech::say_waited`]. Returns what
    /// the caller did not hear, once the line playing has stopped. Without a voice nothing
    /// plays: nothing is cut.
    pub async fn cut(&self) -> Vec<Unheard> {
        match &self.speaker {
            Some(speaker) => speaker.cut().await,
            None => Vec::new(),
        }
    }

    /// Cuts the bot off at once without waiting (the caller began to speak); what was not
    /// heard is returned by the next [`OutputSpeech::cut`].
    pub fn cut_now(&self) {
        if let Some(speaker) = &self.speaker {
            speaker.cut_now();
        }
    }

    /// Holds the bot's audio for at most `at_most` (the caller may be starting to talk), see
    /// [`Speaker::pause`]. Without a voice nothing plays: nothing is held.
    pub fn pause(&self, at_most: std::time::Duration) {
        if let Some(speaker) = &self.speaker {
            speaker.pause(at_most);
        }
    }

    /// Ends a [`OutputSpeech::pause`]: the bot plays on from where it stopped.
    pub fn resume(&self) {
        if let Some(speaker) = &self.speaker {
            speaker.resume();
        }
    }

    /// Lines play again after a cut (see [`Speaker::release`]).
    pub fn release(&self) {
        if let Some(speaker) = &self.speaker {
            speaker.release();
        }
    }

    /// The call is over: nothing more plays.
    pub fn close(&self) {
        if let Some(speaker) = &self.speaker {
            speaker.close();
        }
    }

    /// The output this speaks to.
    pub fn output(&self) -> &Arc<dyn AgentOutput> {
        &self.output
    }

    /// A new model reply starts: what is said from now on belongs to `generation`.
    pub fn begin(&self, generation: &Generation) {
        *self.generation.lock().unwrap_or_else(|p| p.into_inner()) = Some(generation.clone());
        self.spoke.store(false, Ordering::SeqCst);
    }

    /// True when something was said since the last [`begin`](Self::begin).
    pub fn spoke(&self) -> bool {
        self.spoke.load(Ordering::SeqCst)
    }

    /// Says `text` as one segment (blank text says nothing).
    ///
    /// # Errors
    /// [`OutputClosed`] once the client is gone.
    pub async fn say_segment(&self, text: &str) -> Result<(), OutputClosed> {
        self.say_line(text, false).await
    }

    /// Says `text`; `uncut`: a cut does not stop its audio.
    async fn say_line(&self, text: &str, uncut: bool) -> Result<(), OutputClosed> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        self.spoke.store(true, Ordering::SeqCst);
        if let Some(generation) = &*self.generation.lock().unwrap_or_else(|p| p.into_inner()) {
            generation.mark_spoken();
        }
        let id = self.segment.fetch_add(1, Ordering::Relaxed);
        if let Some(speaker) = &self.speaker {
            return speaker.queue(text, id, uncut);
        }
        self.output
            .send(AgentEvent::Spoken {
                text: text.to_owned(),
                segment: id,
            })
            .await
    }
}

impl Speech for OutputSpeech {
    fn say<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.say_segment(line).await.is_err() {
                tracing::debug!("a line was not said: the client is gone");
            }
        })
    }

    fn say_waited<'a>(&'a self, line: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.say_line(line, true).await.is_err() {
                tracing::debug!("a line was not said: the client is gone");
            }
            self.wait_playout().await;
        })
    }

    fn wait_playout(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Without a voice every line was queued for the client when `say` returned.
            if let Some(speaker) = &self.speaker {
                speaker.wait_playout().await;
            }
        })
    }

    fn reply_spoke(&self) -> bool {
        self.spoke()
    }
}

/// Cuts streamed text into sentences to speak: a sentence ends at `.`, `!`, `?` or `…`
/// followed by white space, or at a line break. Text with no end yet waits for more (or for
/// [`finish`](Self::finish)).
#[derive(Debug, Default, Clone)]
pub struct SentenceSplitter {
    buffer: String,
}

impl SentenceSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `delta`; returns the sentences it completed, trimmed, in order.
    pub fn push(&mut self, delta: &str) -> Vec<String> {
        self.buffer.push_str(delta);
        let mut sentences = Vec::new();
        while let Some(end) = sentence_end(&self.buffer) {
            let rest = self.buffer.split_off(end);
            let sentence = std::mem::replace(&mut self.buffer, rest);
            let sentence = sentence.trim();
            if !sentence.is_empty() {
                sentences.push(sentence.to_string());
            }
        }
        sentences
    }

    /// The text left over (trimmed), when there is any; empties the splitter.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.buffer);
        let rest = rest.trim();
        (!rest.is_empty()).then(|| rest.to_string())
    }
}

/// The byte index just past the first sentence end in `text` (the white space after it
/// included), if one is complete.
fn sentence_end(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            return Some(i + 1);
        }
        if matches!(c, '.' | '!' | '?' | '…')
            && let Some(&(j, next)) = chars.peek()
            && next.is_whitespace()
        {
            return Some(j + next.len_utf8());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ChannelOutput;

    #[test]
    fn sentences_are_cut_at_their_ends_only() {
        let mut s = SentenceSplitter::new();
        assert!(s.push("Let me").is_empty());
        assert_eq!(s.push(" check. It is 3.5 km"), vec!["Let me check."]);
        assert_eq!(
            s.push(" away! Ok?\nNext"),
            vec!["It is 3.5 km away!", "Ok?"]
        );
        assert_eq!(s.finish().as_deref(), Some("Next"));
        assert_eq!(s.finish(), None);
    }

    #[tokio::test]
    async fn saying_marks_the_generation_spoken_and_numbers_segments() {
        let (out, mut rx) = ChannelOutput::new();
        let speech = OutputSpeech::new(Arc::new(out));
        let generation = Generation::default();
        speech.begin(&generation);
        assert!(!speech.reply_spoke());
        speech.say("  ").await;
        assert!(!speech.reply_spoke());
        speech.say("One.").await;
        speech.say("Two.").await;
        assert!(speech.reply_spoke());
        // Spoken before the interruption: cancelled, not discarded.
        generation.interrupt();
        assert!(!generation.is_discarded());
        let mut events = Vec::new();
        while let Ok(event) = rx.try_recv() {
            events.push(event);
        }
        assert_eq!(
            events,
            [
                AgentEvent::Spoken {
                    text: "One.".into(),
                    segment: 0
                },
                AgentEvent::Spoken {
                    text: "Two.".into(),
                    segment: 1
                },
            ]
        );
    }
}
