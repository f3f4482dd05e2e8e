//! Protobuf frame decoding: `hark_rtvi::decode_frame` (every binary WebSocket message) on
//! arbitrary bytes.
//!
//! Checks, besides "never panics":
//! - a decoded frame re-encodes to bytes that decode to the same frame, and those bytes are a
//!   fixed point (decode ∘ encode round trip; the canonical encoding is never longer than the
//!   input);
//! - every refusal has a non-empty client text; a byte limit below the input's size is
//!   refused as too large before anything is decoded;
//! - a `message` frame's JSON goes on through `parse_client_message` without a panic.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run rtvi_frame corpus/rtvi_frame seeds/rtvi_frame -- -max_len=4096`
#![no_main]

use hark_rtvi::frame::decode_frame_with_limit;
use hark_rtvi::{FrameError, decode_frame, parse_client_message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode_frame(data) {
        Ok(frame) => {
            assert!(frame.frame.is_some(), "a decoded frame has a kind");
            let bytes = frame.to_bytes();
            assert!(
                bytes.len() <= data.len(),
                "canonical bytes ({}) longer than the input ({})",
                bytes.len(),
                data.len()
            );
            let back = decode_frame(&bytes).expect("re-encoded frame decodes");
            assert_eq!(back, frame, "decode(encode(frame)) == frame");
            assert_eq!(back.to_bytes(), bytes, "encoding is a fixed point");
            if let Some(json) = frame.message_json() {
                let _ = parse_client_message(json);
            }
        }
        Err(error) => {
            assert!(!error.to_string().trim().is_empty(), "{error:?}");
            if let FrameError::TooLarge { len, max } = error {
                assert!(len > max);
            }
        }
    }
    if !data.is_empty() {
        let max = data.len() - 1;
        assert_eq!(
            decode_frame_with_limit(data, max),
            Err(FrameError::TooLarge {
                len: data.len(),
                max
            })
        );
    }
});
