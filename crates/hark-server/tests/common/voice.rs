//! What a voice test's client receives: RTVI messages and audio frames, read in order.

use std::time::Duration;

use futures::StreamExt;
use hark_rtvi::frame::{Frame, FrameKind, decode_frame};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use super::Ws;

/// What the client received: an RTVI message or one audio frame.
#[derive(Debug)]
pub enum Got {
    Rtvi(Value),
    Audio {
        bytes: usize,
        rate: u32,
        channels: u32,
    },
}

pub async fn recv(ws: &mut Ws) -> Got {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a server message in time")
            .expect("socket open")
            .expect("socket ok");
        let Message::Binary(bytes) = msg else {
            continue;
        };
        let frame: Frame = decode_frame(&bytes).expect("server frames are pipecat.Frame");
        if let Some(FrameKind::Audio(audio)) = &frame.frame {
            assert_eq!(audio.name, "audio");
            return Got::Audio {
                bytes: audio.audio.len(),
                rate: audio.sample_rate,
                channels: audio.num_channels,
            };
        }
        let json = frame.message_json().expect("a MessageFrame");
        return Got::Rtvi(serde_json::from_str(json).expect("RTVI JSON"));
    }
}

/// Everything until the RTVI message of type `until` (included).
pub async fn until(ws: &mut Ws, until: &str) -> Vec<Got> {
    let mut all = Vec::new();
    loop {
        let got = recv(ws).await;
        let done = matches!(&got, Got::Rtvi(m) if m["type"] == until);
        all.push(got);
        if done {
            return all;
        }
    }
}

/// The audio bytes among `got`.
pub fn audio_bytes(got: &[Got]) -> usize {
    got.iter()
        .map(|g| match g {
            Got::Audio { bytes, .. } => *bytes,
            Got::Rtvi(_) => 0,
        })
        .sum()
}
