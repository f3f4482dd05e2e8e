//! The LLM stream parsers: hark-llm's SSE parser, each provider's stream decoder (OpenAI
//! compatible, Anthropic, Gemini) with its tool-call delta assembly, and `repair_arguments`.
//!
//! hark-llm keeps its SSE parser and decoders private (`sse.rs`, `OpenAiDecoder`), so:
//! - the SSE parser is compiled here from its own source file (`#[path]` below: the same code,
//!   not a copy) and driven directly;
//! - the decoders are driven through the smallest public entry, `Provider::stream`, against a
//!   loopback `hark_llm::testing::ScriptedServer` that sends the fuzzed bytes as the
//!   `text/event-stream` body (once whole, once cut into chunks of a fuzzed size).
//!
//! Input: byte 0 picks the provider (`% 3`) and the chunk size (`/ 3 % 64 + 1`); the rest is
//! the stream body.
//!
//! Checks, besides "never panics":
//! - SSE: feeding the body whole or in chunks gives the same events;
//! - stream: it ends with exactly one `Finished` or one `Err`, and nothing comes after; a tool
//!   call is started once, gets argument deltas and a `ToolCallDone` only after it started and
//!   before it is done, and the done call has the started id and name and the deltas' text as
//!   its arguments; the whole body and the chunked body give the same events;
//! - `repair_arguments` (on the body and on every assembled call's arguments) gives an object or
//!   a non-empty sentence, and leaves a text that already is a JSON object unchanged.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run llm_stream corpus/llm_stream seeds/llm_stream -- -dict=sse.dict -max_len=4096`
#![no_main]

#[path = "../../crates/hark-llm/src/sse.rs"]
#[allow(dead_code)]
mod sse;

use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex};

use futures::StreamExt;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{
    Anthropic, ChatRequest, Gemini, LlmError, Message, OpenAiCompatible, Provider, StreamEvent,
    repair_arguments,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A server and its three providers, replaced every `RESTART` runs (the server records every
/// request it gets).
struct Loopback {
    server: ScriptedServer,
    providers: [Box<dyn Provider>; 3],
    runs: usize,
}

const RESTART: usize = 2_000;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

static LOOPBACK: Mutex<Option<Loopback>> = Mutex::new(None);

fn start() -> Loopback {
    let server = RUNTIME
        .block_on(ScriptedServer::start(Vec::new()))
        .expect("the scripted server binds on loopback");
    let base = server.base_url();
    Loopback {
        providers: [
            Box::new(OpenAiCompatible::new(base.clone(), Some("key".into()))),
            Box::new(Anthropic::with_base_url(base.clone(), "key")),
            Box::new(Gemini::with_base_url(base, "key")),
        ],
        server,
        runs: 0,
    }
}

type Item = Result<StreamEvent, LlmError>;

fn run(loopback: &Loopback, provider: usize, turn: Turn) -> Vec<Item> {
    loopback.server.push(turn);
    let request = ChatRequest::new("fuzz", vec![Message::User("hi".into())]);
    let stream = loopback.providers[provider].stream(&request);
    RUNTIME.block_on(stream.collect::<Vec<Item>>())
}

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
                assert_eq!(call.arguments, started.2, "the deltas' text");
                check_repair(&call.arguments);
            }
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

fn check_sse(body: &[u8], size: usize) {
    let mut whole = sse::SseParser::default();
    let mut a = whole.feed(body).expect("small bodies stay under the limit");
    a.extend(whole.finish());
    let mut pieces = sse::SseParser::default();
    let mut b = Vec::new();
    for piece in body.chunks(size) {
        b.extend(
            pieces
                .feed(piece)
                .expect("small bodies stay under the limit"),
        );
    }
    b.extend(pieces.finish());
    assert_eq!(a, b, "chunk size {size}");
}

/// Timeouts and connection errors depend on the machine, not the bytes.
fn machine_dependent(items: &[Item]) -> bool {
    items
        .iter()
        .any(|i| matches!(i, Err(LlmError::Timeout { .. } | LlmError::Connect { .. })))
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let provider = usize::from(head % 3);
    let size = usize::from(head / 3 % 64) + 1;
    check_sse(body, size);
    check_repair(&String::from_utf8_lossy(body));

    let mut guard = LOOPBACK.lock().unwrap_or_else(|e| e.into_inner());
    let loopback = guard.get_or_insert_with(start);
    loopback.runs += 1;
    let whole = run(loopback, provider, Turn::stream().raw(body));
    let pieces = run(loopback, provider, Turn::stream().raw_in_pieces(body, size));
    if !machine_dependent(&whole) && !machine_dependent(&pieces) {
        check_sequence(&whole);
        check_sequence(&pieces);
        assert_eq!(whole, pieces, "chunk size {size}");
    }
    if loopback.runs >= RESTART {
        *guard = None;
    }
});
