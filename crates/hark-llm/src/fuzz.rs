//! In-process entry points for the `llm_stream` fuzz target: not part of
//! the API, hidden from the docs, and free to change.
//!
//! A stream normally reaches the decoders through HTTP ([`crate::Provider::stream`]), which
//! costs a loopback connection per input (about 7 executions a second). These functions feed
//! bytes held in memory, chunk by chunk, through the same SSE parser and the same provider
//! decoder as the stream path (`transport::Decoding`, which `Provider::stream` drives from
//! the HTTP body), so a fuzzer reaches exactly the code a provider's bytes reach, thousands of
//! times faster.

use crate::error::{LlmError, ProviderLabel};
use crate::sse::SseParser;
use crate::transport::{Decoder, Decoding};
use crate::types::StreamEvent;

/// A provider's stream format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI-compatible chat completion chunks ([`crate::OpenAiCompatible`]).
    OpenAi,
    /// Anthropic Messages events ([`crate::Anthropic`]).
    Anthropic,
    /// Gemini `streamGenerateContent` responses ([`crate::Gemini`]).
    Gemini,
}

impl Dialect {
    /// All three, in the order the fuzz target picks them (`byte % 3`).
    pub const ALL: [Dialect; 3] = [Dialect::OpenAi, Dialect::Anthropic, Dialect::Gemini];
}

/// How the body ends after the last chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEnd {
    /// The body ended cleanly (the connection closed after the last chunk).
    Clean,
    /// The body broke (a connection error after the last chunk).
    Broken,
    /// The body has not ended yet: only what the chunks completed (a prefix of what `Clean`
    /// and `Broken` give).
    Pending,
}

/// What [`crate::Provider::stream`] would yield for a `200 text/event-stream` reply whose body
/// arrives as `chunks` and then ends as `end`: events in wire order, ending with `Finished` or
/// one `Err` (except with [`BodyEnd::Pending`]). Chunks after the provider's end marker are not read, as on the wire.
pub fn decode(
    dialect: Dialect,
    chunks: &[&[u8]],
    end: BodyEnd,
) -> Vec<Result<StreamEvent, LlmError>> {
    match dialect {
        Dialect::OpenAi => {
            let label = ProviderLabel::new("openai-compatible", "http://fuzz/v1");
            run(
                crate::openai::OpenAiDecoder::new(label.clone()),
                label,
                chunks,
                end,
            )
        }
        Dialect::Anthropic => {
            let label = ProviderLabel::new("anthropic", "http://fuzz/v1");
            run(
                crate::anthropic::AnthropicDecoder::new(label.clone()),
                label,
                chunks,
                end,
            )
        }
        Dialect::Gemini => {
            let label = ProviderLabel::new("gemini", "http://fuzz/v1beta");
            run(
                crate::gemini::GeminiDecoder::new(label.clone()),
                label,
                chunks,
                end,
            )
        }
    }
}

fn run<D: Decoder>(
    decoder: D,
    label: ProviderLabel,
    chunks: &[&[u8]],
    end: BodyEnd,
) -> Vec<Result<StreamEvent, LlmError>> {
    let mut decoding = Decoding::new(label, decoder);
    let mut out = Vec::new();
    for chunk in chunks {
        if decoding.ended() {
            break;
        }
        decoding.chunk(chunk);
        out.extend(std::iter::from_fn(|| decoding.take()));
    }
    if !decoding.ended() {
        match end {
            BodyEnd::Clean => decoding.end_of_body(),
            BodyEnd::Broken => decoding.broke(),
            BodyEnd::Pending => {}
        }
    }
    out.extend(std::iter::from_fn(|| decoding.take()));
    out
}

/// The SSE events (`(event, data)`) the stream parser dispatches for a body arriving as
/// `chunks`, including a last event whose blank line never came.
///
/// # Errors
/// The size limit in bytes when one event grows past it.
pub fn sse_events(chunks: &[&[u8]]) -> Result<Vec<(String, String)>, usize> {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(parser.feed(chunk)?);
    }
    out.extend(parser.finish());
    Ok(out.into_iter().map(|e| (e.event, e.data)).collect())
}
