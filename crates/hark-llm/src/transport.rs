//! The HTTP side shared by every provider: time limits, retries before the first byte, error
//! excerpts, and the loop that turns a byte stream into [`StreamEvent`]s through a wire decoder.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;

use crate::error::{LlmError, OpenCall, ProviderLabel, TimeoutPhase};
use crate::messages;
use crate::retry::{Pause, RetryPolicy, TokioPause, is_retryable_status};
use crate::sse::{SseEvent, SseParser};
use crate::types::StreamEvent;

/// Time limits and retries of a provider client.
///
/// There is deliberately no limit on a whole streamed reply: a long answer is fine as long as
/// chunks keep coming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest wait for the TCP/TLS connection. Default 5 s.
    pub connect_timeout: Duration,
    /// Longest wait from sending the request to the response headers. Default 30 s.
    pub first_byte_timeout: Duration,
    /// Longest silence between two chunks of a started stream. Default 30 s.
    pub idle_timeout: Duration,
    /// Retries before the first byte.
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_byte_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    /// Limits for a voice call, where silence is what the caller notices: a
    /// provider that sends nothing for 10 s is given up on and asked again (the caller hears a
    /// holding line on [`crate::StreamEvent::Retrying`]) rather than after the default 30 s.
    /// Connect 3 s, first byte 10 s, idle 15 s, the default retries.
    pub fn for_voice() -> Self {
        Self {
            connect_timeout: Duration::from_secs(3),
            first_byte_timeout: VOICE_FIRST_BYTE_TIMEOUT,
            idle_timeout: Duration::from_secs(15),
            retry: RetryPolicy::default(),
        }
    }
}

/// The first-byte limit of [`HttpOptions::for_voice`]: 10 s.
pub const VOICE_FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest error body read for an excerpt.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// One provider's connection settings.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub http: reqwest::Client,
    pub label: ProviderLabel,
    pub options: HttpOptions,
    pub pause: Arc<dyn Pause>,
    /// The key: sent in a sensitive header, redacted from error excerpts, never printed.
    pub secret: Option<Secret>,
}

/// A key whose `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl Transport {
    pub fn new(label: ProviderLabel, secret: Option<String>) -> Self {
        let options = HttpOptions::default();
        Self {
            http: build_client(&options),
            label,
            options,
            pause: Arc::new(TokioPause),
            secret: secret.map(Secret),
        }
    }

    pub fn set_options(&mut self, options: HttpOptions) {
        self.http = build_client(&options);
        self.options = options;
    }

    fn err_connect(&self, e: &reqwest::Error) -> LlmError {
        // reqwest's Display names the URL; ours never holds a key (keys travel in headers).
        let mut detail = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            detail = format!("{detail}: {s}");
            source = s.source();
        }
        LlmError::Connect {
            provider: self.label.clone(),
            detail: self.redact(&detail),
        }
    }

    fn redact(&self, text: &str) -> String {
        match self.secret.as_ref().map(Secret::expose) {
            Some(k) if k.len() >= 4 => text.replace(k, "[redacted]"),
            _ => text.to_owned(),
        }
    }

    /// Sends `body` to `url` once: the response when it is a success, else the error (its
    /// `Retry-After` inside [`LlmError::Http`]).
    async fn attempt(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<reqwest::Response, LlmError> {
        let started = std::time::Instant::now();
        let request = self
            .http
            .post(url)
            .headers(headers.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .body(body)
            .send();
        match tokio::time::timeout(self.options.first_byte_timeout, request).await {
            Err(_) => Err(LlmError::Timeout {
                provider: self.label.clone(),
                phase: TimeoutPhase::FirstByte,
                after: self.options.first_byte_timeout,
            }),
            Ok(Err(e)) => Err(self.err_connect(&e)),
            Ok(Ok(resp)) if resp.status().is_success() => {
                tracing::debug!(provider = %self.label, status = resp.status().as_u16(),
                    ms = started.elapsed().as_millis() as u64, "llm stream started");
                Ok(resp)
            }
            Ok(Ok(resp)) => {
                let status = resp.status().as_u16();
                let retry_after = retry_after(resp.headers());
                let text = read_limited(resp).await;
                Err(LlmError::Http {
                    provider: self.label.clone(),
                    status,
                    message: excerpt(&text, self.secret.as_ref().map(Secret::expose)),
                    retry_after,
                })
            }
        }
    }

    /// The wait before retry number `retry` (0-based) after `error`, or `None` when the
    /// policy gives up (the error is not retryable, or the retries are used up).
    fn retry_wait(&self, error: &LlmError, retry: u32) -> Option<Duration> {
        let policy = &self.options.retry;
        let (retryable, retry_after) = match error {
            LlmError::Http {
                status,
                retry_after,
                ..
            } => (is_retryable_status(*status), *retry_after),
            LlmError::Timeout { .. } | LlmError::Connect { .. } => (true, None),
            _ => (false, None),
        };
        if !retryable || retry >= policy.max_retries {
            tracing::warn!(provider = %self.label, status = ?error.status(), attempts = retry + 1,
                "llm request failed");
            return None;
        }
        let wait = policy.delay(retry, retry_after, self.pause.jitter());
        tracing::warn!(provider = %self.label, status = ?error.status(), retry = retry + 1,
            wait_ms = wait.as_millis() as u64, "llm request failed; retrying");
        Some(wait)
    }
}

fn build_client(options: &HttpOptions) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .build()
        // Building fails only when the TLS backend cannot start; fall back to the default
        // client, which reports the same problem on the first request.
        .unwrap_or_default()
}

/// `Retry-After` (seconds) or OpenAI's `retry-after-ms`; HTTP dates are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    if let Some(ms) = read("retry-after-ms").filter(|v| v.is_finite() && *v >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    read("retry-after")
        .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e9)
        .map(Duration::from_secs_f64)
}

async fn read_limited(resp: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut chunks = resp.bytes_stream();
    while let Some(Ok(chunk)) = chunks.next().await {
        let room = MAX_ERROR_BODY - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The provider's own message from an error body: `error.message` (OpenAI, Anthropic, Gemini),
/// `error` as a string (Ollama), `message` or `detail`; else the body's text. Whitespace is
/// collapsed, the key redacted, and the result cut to [`messages::EXCERPT_CHARS`] characters.
pub(crate) fn excerpt(body: &str, secret: Option<&str>) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let pick = |v: &Value| v.as_str().map(str::to_owned);
        v.pointer("/error/message")
            .and_then(pick)
            .or_else(|| v.get("error").and_then(pick))
            .or_else(|| v.get("message").and_then(pick))
            .or_else(|| v.get("detail").and_then(pick))
    });
    let text = from_json.unwrap_or_else(|| body.to_owned());
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(k) = secret.filter(|k| k.len() >= 4) {
        text = text.replace(k, "[redacted]");
    }
    if text.chars().count() > messages::EXCERPT_CHARS {
        let cut: String = text.chars().take(messages::EXCERPT_CHARS - 1).collect();
        text = format!("{cut}…");
    }
    text
}

/// A provider's wire format: turns SSE events into stream events.
pub(crate) trait Decoder: Send + 'static {
    /// Handles one SSE event, pushing what it completes.
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError>;
    /// The provider has sent its end marker; stop reading.
    fn done(&self) -> bool;
    /// The byte stream ended (or broke): push `Finished`, or say the stream was cut.
    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError>;
}

/// The tool call most recently fed and not yet done, for a cut error.
pub(crate) fn cut(label: &ProviderLabel, open_call: Option<OpenCall>) -> LlmError {
    LlmError::StreamCut {
        provider: label.clone(),
        open_call,
    }
}

/// A decode error for this provider.
pub(crate) fn decode(label: &ProviderLabel, detail: String) -> LlmError {
    LlmError::Decode {
        provider: label.clone(),
        detail,
    }
}

/// The decoding half of a stream: the SSE parser and a provider's decoder, fed the body chunk
/// by chunk. [`run`] drives it from the HTTP body; [`crate::__fuzz`] drives it from bytes in
/// memory, so the fuzzer exercises exactly the code a stream runs.
pub(crate) struct Decoding<D> {
    label: ProviderLabel,
    decoder: D,
    parser: SseParser,
    /// Events decoded and not yet taken, in wire order.
    pub queue: VecDeque<StreamEvent>,
    /// The error that ended the stream (yielded after `queue`).
    pub error: Option<LlmError>,
    ended: bool,
}

impl<D: Decoder> Decoding<D> {
    pub fn new(label: ProviderLabel, decoder: D) -> Self {
        Self {
            label,
            decoder,
            parser: SseParser::default(),
            queue: VecDeque::new(),
            error: None,
            ended: false,
        }
    }

    /// No more bytes are wanted: the turn finished, or failed.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Feeds one chunk of the body. Events after the provider's end marker are not read.
    pub fn chunk(&mut self, bytes: &[u8]) {
        if self.ended {
            return;
        }
        match self.parser.feed(bytes) {
            Err(limit) => self.fail(decode(&self.label, messages::event_too_large(limit))),
            Ok(events) => {
                for event in events {
                    if !self.feed_event(event) || self.decoder.done() {
                        break;
                    }
                }
            }
        }
        if self.decoder.done() {
            self.finish();
        }
    }

    /// The body ended cleanly: dispatches a last event whose blank line never came, then lets
    /// the decoder close the turn.
    pub fn end_of_body(&mut self) {
        if self.ended {
            return;
        }
        if let Some(last) = self.parser.finish()
            && !self.feed_event(last)
        {
            return;
        }
        self.finish();
    }

    /// The body broke (a connection error mid-stream): the decoder closes the turn with what it
    /// has, or says the stream was cut.
    pub fn broke(&mut self) {
        self.finish();
    }

    /// Ends the stream with `e` after the events already decoded.
    pub fn fail(&mut self, e: LlmError) {
        self.error = Some(e);
        self.ended = true;
    }

    /// Feeds one event; false when it failed the stream.
    fn feed_event(&mut self, event: SseEvent) -> bool {
        match self.decoder.event(event, &mut self.queue) {
            Ok(()) => true,
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    /// The bytes ended or the provider said it is done: let the decoder close the turn.
    fn finish(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        if let Err(e) = self.decoder.end(&mut self.queue) {
            self.error = Some(e);
        }
    }

    /// Takes the next item: a queued event, else the error, else `None`.
    pub fn take(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        if let Some(event) = self.queue.pop_front() {
            return Some(Ok(event));
        }
        self.error.take().map(Err)
    }
}

enum Phase {
    /// Attempt number `retry + 1` is to be sent.
    Start {
        retry: u32,
    },
    /// A retry waits `wait` before attempt number `retry + 1`.
    Waiting {
        retry: u32,
        wait: Duration,
    },
    Reading(BoxStream<'static, reqwest::Result<Bytes>>),
    Ended,
}

struct Run<D> {
    transport: Arc<Transport>,
    url: String,
    headers: HeaderMap,
    body: Result<Bytes, LlmError>,
    decoding: Decoding<D>,
    phase: Phase,
}

impl<D: Decoder> Run<D> {
    async fn next(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if let Some(item) = self.decoding.take() {
                if item.is_err() {
                    self.phase = Phase::Ended;
                }
                return Some(item);
            }
            match &mut self.phase {
                Phase::Ended => return None,
                Phase::Waiting { retry, wait } => {
                    let (retry, wait) = (*retry, *wait);
                    self.transport.pause.sleep(wait).await;
                    self.phase = Phase::Start { retry };
                }
                Phase::Start { retry } => {
                    let retry = *retry;
                    let body = match &self.body {
                        Ok(b) => b.clone(),
                        Err(e) => {
                            let e = e.clone();
                            self.fail(e);
                            continue;
                        }
                    };
                    match self.transport.attempt(&self.url, &self.headers, body).await {
                        Ok(resp) if not_event_stream(&resp).is_some() => {
                            // A server that ignored `stream: true`, a proxy's error page, or a
                            // `base_url` that reaches a web page rather than the API.
                            let mime = not_event_stream(&resp).unwrap_or_default();
                            let text = read_limited(resp).await;
                            let secret = self.transport.secret.as_ref().map(Secret::expose);
                            let excerpt = excerpt(&text, secret);
                            let detail = if mime == "application/json" {
                                messages::not_an_event_stream(&excerpt)
                            } else {
                                messages::not_a_chat_stream(&mime, &excerpt)
                            };
                            self.fail(decode(&self.transport.label, detail));
                        }
                        Ok(resp) => self.phase = Phase::Reading(resp.bytes_stream().boxed()),
                        Err(e) => match self.transport.retry_wait(&e, retry) {
                            Some(wait) => {
                                self.decoding.queue.push_back(StreamEvent::Retrying {
                                    retry: retry + 1,
                                    wait,
                                    error: e,
                                });
                                self.phase = Phase::Waiting {
                                    retry: retry + 1,
                                    wait,
                                };
                            }
                            None => self.fail(e),
                        },
                    }
                }
                Phase::Reading(bytes) => {
                    if self.decoding.ended() {
                        self.phase = Phase::Ended;
                        continue;
                    }
                    let idle = self.transport.options.idle_timeout;
                    match tokio::time::timeout(idle, bytes.next()).await {
                        Err(_) => self.fail(LlmError::Timeout {
                            provider: self.transport.label.clone(),
                            phase: TimeoutPhase::NextChunk,
                            after: idle,
                        }),
                        Ok(None) => self.decoding.end_of_body(),
                        Ok(Some(Err(e))) => {
                            tracing::debug!(provider = %self.transport.label,
                                body_error = e.is_body() || e.is_decode(), "llm stream broke");
                            self.decoding.broke();
                        }
                        Ok(Some(Ok(chunk))) => self.decoding.chunk(&chunk),
                    }
                }
            }
        }
    }

    /// Ends the stream with an error after the events already decoded.
    fn fail(&mut self, e: LlmError) {
        self.decoding.fail(e);
        self.phase = Phase::Ended;
    }
}

/// The reply's media type (lowercase, no parameters) when it is present and is not
/// `text/event-stream`; `None` for an event stream or a reply without a content type.
fn not_event_stream(resp: &reqwest::Response) -> Option<String> {
    let value = resp.headers().get(CONTENT_TYPE)?.to_str().ok()?;
    let mime = value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    (!mime.is_empty() && mime != "text/event-stream").then_some(mime)
}

/// Streams one turn: sends `body` (retrying before the first byte), then decodes the SSE reply.
pub(crate) fn run<D: Decoder>(
    transport: Arc<Transport>,
    url: String,
    headers: HeaderMap,
    body: Result<Value, LlmError>,
    decoder: D,
) -> BoxStream<'static, Result<StreamEvent, LlmError>> {
    let label = transport.label.clone();
    let body = body.and_then(|v| {
        serde_json::to_vec(&v)
            .map(Bytes::from)
            .map_err(|e| decode(&label, e.to_string()))
    });
    let decoding = Decoding::new(transport.label.clone(), decoder);
    let run = Run {
        transport,
        url,
        headers,
        body,
        decoding,
        phase: Phase::Start { retry: 0 },
    };
    futures::stream::unfold(run, |mut run| async move {
        let item = run.next().await?;
        Some((item, run))
    })
    .boxed()
}

/// A header value that is never printed (`Debug` shows `Sensitive`).
pub(crate) fn secret_header(value: &str) -> Option<HeaderValue> {
    let mut v = HeaderValue::from_str(value).ok()?;
    v.set_sensitive(true);
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_reads_each_provider_shape_and_redacts_the_key() {
        assert_eq!(
            excerpt(
                r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
                None
            ),
            "Rate limit reached"
        );
        assert_eq!(
            excerpt(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                None
            ),
            "Overloaded"
        );
        assert_eq!(
            excerpt(r#"{"error":"model not found"}"#, None),
            "model not found"
        );
        assert_eq!(excerpt("Bad\n  gateway", None), "Bad gateway");
        assert_eq!(
            excerpt(
                r#"{"error":{"message":"Incorrect API key provided: sk-test-1234."}}"#,
                Some("sk-test-1234")
            ),
            "Incorrect API key provided: [redacted]."
        );
        let long = "x".repeat(500);
        let e = excerpt(&long, None);
        assert_eq!(e.chars().count(), messages::EXCERPT_CHARS);
        assert!(e.ends_with('…'));
    }

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
    }
}
