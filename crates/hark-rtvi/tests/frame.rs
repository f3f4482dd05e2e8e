//! `pipecat.Frame` encode/decode, field numbers proven with hand-encoded
//! bytes, and garbage input refused with an error instead of a panic.

use hark_rtvi::frame::{
    AudioRawFrame, InterruptionFrame, MAX_FRAME_BYTES, TextFrame, TranscriptionFrame,
    decode_frame_with_limit,
};
use hark_rtvi::{Frame, FrameError, FrameKind, decode_frame, encode_message_json};
use prost::Message as _;

#[test]
fn message_frame_is_field_4_with_data_field_1_byte_by_byte() {
    // Frame.message = 4, wire type 2 (length-delimited): tag byte (4 << 3) | 2 = 0x22.
    // MessageFrame.data = 1, wire type 2: tag byte (1 << 3) | 2 = 0x0a.
    let hand = [0x22, 0x04, 0x0a, 0x02, b'{', b'}'];
    assert_eq!(encode_message_json("{}"), hand);
    let frame = decode_frame(&hand).unwrap();
    assert_eq!(frame.message_json(), Some("{}"));
}

#[test]
fn audio_frame_fields_byte_by_byte() {
    // Frame.audio = 2 → 0x12; id = 1 (varint) → 0x08; name = 2 → 0x12; audio = 3 → 0x1a;
    // sample_rate = 4 (varint) → 0x20; num_channels = 5 (varint) → 0x28; pts = 6 → 0x30.
    // 16000 as varint = 0x80 0x7d.
    #[rustfmt::skip]
    let inner = [
        0x08, 0x07,                       // id = 7
        0x12, 0x05, b'a', b'u', b'd', b'i', b'o', // name = "audio"
        0x1a, 0x02, 0x01, 0x02,           // audio = [1, 2]
        0x20, 0x80, 0x7d,                 // sample_rate = 16000
        0x28, 0x01,                       // num_channels = 1
        0x30, 0x09,                       // pts = 9
    ];
    let mut hand = vec![0x12, inner.len() as u8];
    hand.extend_from_slice(&inner);
    let frame = decode_frame(&hand).unwrap();
    assert_eq!(
        frame.frame,
        Some(FrameKind::Audio(AudioRawFrame {
            id: 7,
            name: "audio".into(),
            audio: vec![1, 2],
            sample_rate: 16000,
            num_channels: 1,
            pts: Some(9),
        }))
    );
    assert_eq!(frame.to_bytes(), hand);
}

#[test]
fn the_other_kinds_use_fields_1_3_and_5() {
    let text = Frame {
        frame: Some(FrameKind::Text(TextFrame {
            id: 0,
            name: String::new(),
            text: "a".into(),
        })),
    };
    assert_eq!(text.to_bytes(), [0x0a, 0x03, 0x1a, 0x01, b'a']);
    let tr = Frame {
        frame: Some(FrameKind::Transcription(TranscriptionFrame {
            id: 0,
            name: String::new(),
            text: String::new(),
            user_id: "u".into(),
            timestamp: "t".into(),
        })),
    };
    // transcription = 3 → 0x1a; user_id = 4 → 0x22; timestamp = 5 → 0x2a.
    assert_eq!(
        tr.to_bytes(),
        [0x1a, 0x06, 0x22, 0x01, b'u', 0x2a, 0x01, b't']
    );
    let int = Frame {
        frame: Some(FrameKind::Interruption(InterruptionFrame {
            id: 1,
            name: String::new(),
        })),
    };
    assert_eq!(int.to_bytes(), [0x2a, 0x02, 0x08, 0x01]);
    for f in [text, tr, int] {
        assert_eq!(decode_frame(&f.to_bytes()).unwrap(), f);
    }
}

#[test]
fn audio_helper_round_trips() {
    let f = Frame::audio(vec![0, 1, 2, 3], 24000, 1);
    let back = decode_frame(&f.to_bytes()).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.message_json(), None);
}

#[test]
fn every_truncation_of_a_frame_is_an_error_not_a_panic() {
    let bytes = encode_message_json(r#"{"label":"rtvi-ai","type":"client-ready","id":"1"}"#);
    assert!(decode_frame(&bytes).is_ok());
    for len in 1..bytes.len() {
        match decode_frame(&bytes[..len]) {
            Err(FrameError::Invalid { .. }) => {}
            other => panic!("prefix of {len} bytes gave {other:?}"),
        }
    }
}

#[test]
fn empty_input_and_unknown_kind_are_no_frame_kind() {
    assert_eq!(decode_frame(&[]), Err(FrameError::NoFrameKind));
    // Field 6 (not in the oneof), varint 1: a valid protobuf with no kind set.
    assert_eq!(decode_frame(&[0x30, 0x01]), Err(FrameError::NoFrameKind));
}

#[test]
fn garbage_and_non_utf8_text_are_invalid() {
    let garbage = b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
    assert!(matches!(
        decode_frame(garbage),
        Err(FrameError::Invalid { .. })
    ));
    // A text WebSocket frame's bytes reaching the decoder.
    assert!(decode_frame(br#"{"label":"rtvi-ai"}"#).is_err());
    let not_utf8 = [0x22, 0x04, 0x0a, 0x02, 0xc3, 0x28];
    let err = decode_frame(&not_utf8).unwrap_err();
    assert!(matches!(err, FrameError::Invalid { .. }), "{err:?}");
}

#[test]
fn oversized_frames_are_refused_before_decoding() {
    let big = encode_message_json(&"x".repeat(MAX_FRAME_BYTES));
    assert_eq!(
        decode_frame(&big),
        Err(FrameError::TooLarge {
            len: big.len(),
            max: MAX_FRAME_BYTES
        })
    );
    assert_eq!(MAX_FRAME_BYTES, 1024 * 1024);
    let small = encode_message_json("{}");
    assert!(decode_frame_with_limit(&small, small.len()).is_ok());
    assert!(decode_frame_with_limit(&small, small.len() - 1).is_err());
}

#[test]
fn frame_error_texts() {
    assert_eq!(
        FrameError::NoFrameKind.to_string(),
        "Invalid frame: no frame kind is set; a pipecat.Frame carries one of text, audio, transcription, message or interruption."
    );
    assert_eq!(
        FrameError::TooLarge { len: 20, max: 10 }.to_string(),
        "Invalid frame: 20 bytes is more than the limit of 10 bytes; send smaller frames."
    );
    let err = decode_frame(&[0x22, 0x09]).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("Invalid frame: not a pipecat.Frame protobuf message (")
            && text.ends_with("). Send binary WebSocket frames holding one pipecat.Frame each."),
        "{text}"
    );
}

#[test]
fn prost_agrees_with_encode_message_json() {
    let json =
        r#"{"label":"rtvi-ai","type":"bot-ready","id":"a1b2c3d4","data":{"version":"2.1.0"}}"#;
    let via_prost = Frame::message(json).encode_to_vec();
    assert_eq!(encode_message_json(json), via_prost);
}
