//! A small Server-Sent Events parser over byte chunks (WHATWG "event stream interpretation",
//! the subset providers use: `data`, `event`, comments; `id` and `retry` are ignored).

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental parser: feed byte chunks, take complete events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    /// The last byte consumed was `\r`: a following `\n` belongs to the same line end.
    after_cr: bool,
}

/// Largest pending event or line, in bytes.
pub(crate) const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

impl SseParser {
    /// Feeds bytes; returns the events completed by them.
    ///
    /// # Errors
    /// The byte size limit when one event grows past [`MAX_EVENT_BYTES`].
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, usize> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.line(&mut out),
                b'\r' => {
                    self.after_cr = true;
                    self.line(&mut out);
                }
                _ => {
                    self.buf.push(b);
                    let pending = self.buf.len() + self.data.as_ref().map_or(0, String::len);
                    if pending > MAX_EVENT_BYTES {
                        return Err(MAX_EVENT_BYTES);
                    }
                }
            }
        }
        Ok(out)
    }

    /// At end of stream: dispatches an event whose blank line never came (lenient).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            let mut out = Vec::new();
            self.line(&mut out);
        }
        self.dispatch()
    }

    fn line(&mut self, out: &mut Vec<SseEvent>) {
        let line = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned();
        if line.is_empty() {
            if let Some(e) = self.dispatch() {
                out.push(e);
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line.as_str(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let data = self.data.take()?;
        Some(SseEvent {
            event: event.unwrap_or_else(|| "message".to_owned()),
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.feed(c).unwrap());
        }
        out.extend(p.finish());
        out
    }

    #[test]
    fn events_split_anywhere_and_any_line_ending() {
        let evs = all(&[
            b"event: a\r",
            b"\ndata: {\"x\":",
            b"1}\r\n\r\n: comment\n\ndata:2\n",
            b"data: 3\n\n",
        ]);
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: "a".into(),
                    data: "{\"x\":1}".into()
                },
                SseEvent {
                    event: "message".into(),
                    data: "2\n3".into()
                },
            ]
        );
    }

    #[test]
    fn multibyte_text_split_across_chunks_survives() {
        let bytes = "data: héllo\n\n".as_bytes();
        let evs = all(&[&bytes[..8], &bytes[8..]]);
        assert_eq!(evs[0].data, "héllo");
    }

    #[test]
    fn unterminated_last_event_is_dispatched_at_end() {
        assert_eq!(all(&[b"data: [DONE]"])[0].data, "[DONE]");
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        assert!(all(&[b"event: ping\n\n"]).is_empty());
    }

    #[test]
    fn oversized_event_is_refused() {
        let mut p = SseParser::default();
        let big = vec![b'a'; MAX_EVENT_BYTES + 1];
        assert_eq!(p.feed(&big), Err(MAX_EVENT_BYTES));
    }
}
