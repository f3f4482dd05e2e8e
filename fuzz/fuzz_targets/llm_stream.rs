//! The LLM stream parsers: hark-llm's SSE parser, each provider's stream decoder (OpenAI
//! compatible, Anthropic, Gemini) with its tool-call delta assembly, and `repair_arguments`.
//!
//! The parser and the decoders are private to hark-llm; they are driven in process through
//! `hark_llm::__fuzz` (hidden, for fuzzing only), which feeds the bytes chunk by chunk through
//! the same `Decoding` (SSE parser + provider decoder) that `Provider::stream` drives from an
//! HTTP body. (At first this target went through `Provider::stream` against a
//! loopback server: about 7 executions a second.)
//!
//! Input: byte 0 picks the provider (`% 3`) and the chunk size (`/ 3 % 64 + 1`); the rest is
//! the stream body.
//!
//! Checks, besides "never panics":
//! - SSE: feeding the body whole or in chunks gives the same events;
//! - stream (whole, chunked, and chunked with a broken end): it ends with exactly one
//!   `Finished` or one `Err`, and nothing comes after; a tool call is started once, gets
//!   argument deltas and a `ToolCallDone` only after it started and before it is done, and the
//!   done call has the started id and name and the deltas' text as its arguments; no
//!   `Retrying` (that is the HTTP side's); the whole body and the chunked body give the same
//!   events; what the chunks completed is a prefix of both the clean and the broken end;
//! - `repair_arguments` (on the body and on every assembled call's arguments) gives an object or
//!   a non-empty sentence, and leaves a text that already is a JSON object unchanged.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run llm_stream corpus/llm_stream seeds/llm_stream -- -dict=sse.dict -max_len=4096`
#![no_main]

use std::collections::BTreeMap;

use hark_llm::__fuzz::{BodyEnd, Dialect, decode, sse_events};
use hark_llm::{LlmError, StreamEvent, repair_arguments};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

type Item = Result<StreamEvent, LlmError>;

fn check_sequence(items: &[Item]) {
    let (last, before) = items
        .split_last()
        .expect("a stream yields at least one item");
    assert!(
        matches!(last, Err(_) | Ok(StreamEvent::Finished(_))),
        "a stream ends with Finished or an error: {last:?}"
    );
    for item in before {
        assert!(
            matches!(item, Ok(e) if !matches!(e, StreamEvent::Finished(_))),
            "nothing after Finished or an error: {items:?}"
        );
    }
    // index → (id, name, arguments so far, done)
    let mut calls: BTreeMap<usize, (String, String, String, bool)> = BTreeMap::new();
    for item in items {
        match item {
            Ok(StreamEvent::ToolCallStarted { index, id, name }) => {
                let fresh = calls
                    .insert(*index, (id.clone(), name.clone(), String::new(), false))
                    .is_none();
                assert!(fresh, "call {index} started twice: {items:?}");
            }
            Ok(StreamEvent::ToolCallArgumentsDelta { index, delta }) => {
                let call = calls.get_mut(index).expect("a delta for a started call");
                assert!(!call.3, "a delta after call {index} was done");
                call.2.push_str(delta);
            }
            Ok(StreamEvent::ToolCallDone { index, call }) => {
                let started = calls.get_mut(index).expect("done for a started call");
                assert!(!started.3, "call {index} done twice");
                started.3 = true;
                assert_eq!(call.id, started.0, "the started id");
                assert_eq!(call.name, started.1, "the started name");
                assert_eq!(call.raw_arguments, started.2, "the deltas' text");
                check_repair(&call.raw_arguments);
            }
            Ok(StreamEvent::Retrying { .. }) => panic!("a decoder never retries: {items:?}"),
            _ => {}
        }
    }
}

fn check_repair(text: &str) {
    match repair_arguments(text) {
        Ok(value) => {
            assert!(value.is_object(), "{value:?}");
            if let Ok(Value::Object(as_is)) = serde_json::from_str::<Value>(text) {
                assert_eq!(
                    value,
                    Value::Object(as_is),
                    "a JSON object is left as it is"
                );
            }
        }
        Err(error) => assert!(!error.message.trim().is_empty()),
    }
}

fn check_sse(body: &[u8], pieces: &[&[u8]], size: usize) {
    let whole = sse_events(&[body]).expect("small bodies stay under the limit");
    let chunked = sse_events(pieces).expect("small bodies stay under the limit");
    assert_eq!(whole, chunked, "chunk size {size}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let dialect = Dialect::ALL[usize::from(head % 3)];
    let size = usize::from(head / 3 % 64) + 1;
    let pieces: Vec<&[u8]> = body.chunks(size).collect();
    check_sse(body, &pieces, size);
    check_repair(&String::from_utf8_lossy(body));

    let whole = decode(dialect, &[body], BodyEnd::Clean);
    let chunked = decode(dialect, &pieces, BodyEnd::Clean);
    let broken = decode(dialect, &pieces, BodyEnd::Broken);
    check_sequence(&whole);
    check_sequence(&chunked);
    check_sequence(&broken);
    assert_eq!(whole, chunked, "chunk size {size}");
    // What the chunks completed is the same whatever way the body then ends.
    let pending = decode(dialect, &pieces, BodyEnd::Pending);
    assert_eq!(
        pending[..],
        chunked[..pending.len()],
        "a clean end only adds"
    );
    assert_eq!(
        pending[..],
        broken[..pending.len()],
        "a broken end only adds"
    );
});
