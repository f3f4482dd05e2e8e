//! The offline screen mode puts a checkbox in the state a request asks for:
//! "tick", "turn on", "I want" … tick it, "untick", "turn off", "no",
//! "without" … untick it, and a box already in that state is not clicked ("Gift wrap is
//! already ticked."). A request with no wanted state ("toggle …", "click …") toggles it. Every
//! answer about a box says "ticked" or "unticked", never "clicked".
//!
//! Real parts: the local classifier and a worker whose commands go to a channel.

use std::sync::Arc;

use hark_rtvi::{A11ySnapshot, ServerMessage};
use hark_ui::UiWorker;
use hark_ui::classifier::LocalClassifier;
use hark_ui::offline::OfflineScreen;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// The tester's page: Gift wrap ticked, Newsletter not.
const PAGE: &str = r#"{"root":{"ref":"e1","role":"main","children":[{"ref":"e6","role":"checkbox","name":"Gift wrap","state":["checked"]},{"ref":"e7","role":"checkbox","name":"Newsletter"}]},"captured_at":1}"#;

fn offline() -> (OfflineScreen, UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = unbounded_channel();
    let worker = Arc::new(
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new())),
    );
    worker.on_snapshot(A11ySnapshot::from_json(PAGE).unwrap());
    (OfflineScreen::new(worker), rx)
}

/// Every command sent so far, as `command ref`.
fn commands(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = m {
            let r = c.payload["ref"].as_str().unwrap_or_default();
            out.push(format!("{} {r}", c.command));
        }
    }
    out
}

async fn check(rows: &[(&str, &[&str], &str)]) {
    for (text, sent, sentence) in rows {
        // A fresh page each time: the snapshot does not change when a box is clicked here.
        let (offline, mut rx) = offline();
        let turn = offline.turn(text).await;
        assert_eq!(turn.sentence, *sentence, "{text}: {turn:?}");
        assert_eq!(commands(&mut rx), *sent, "{text}");
    }
}

#[tokio::test]
async fn a_box_already_in_the_wanted_state_is_not_clicked() {
    check(&[
        ("tick gift wrap", &[], "Gift wrap is already ticked."),
        (
            "turn off newsletter",
            &[],
            "Newsletter is already unticked.",
        ),
        ("no newsletter", &[], "Newsletter is already unticked."),
        ("turn on gift wrap", &[], "Gift wrap is already ticked."),
        ("untick newsletter", &[], "Newsletter is already unticked."),
        ("check gift wrap", &[], "Gift wrap is already ticked."),
        ("without newsletter", &[], "Newsletter is already unticked."),
        ("I want gift wrap", &[], "Gift wrap is already ticked."),
    ])
    .await;
}

#[tokio::test]
async fn a_box_in_the_other_state_is_clicked_and_said_in_ticked_words() {
    check(&[
        (
            "untick gift wrap",
            &["click e6"],
            "I unticked \"Gift wrap\".",
        ),
        (
            "turn off gift wrap",
            &["click e6"],
            "I unticked \"Gift wrap\".",
        ),
        ("no gift wrap", &["click e6"], "I unticked \"Gift wrap\"."),
        ("tick newsletter", &["click e7"], "I ticked \"Newsletter\"."),
        (
            "turn on newsletter",
            &["click e7"],
            "I ticked \"Newsletter\".",
        ),
        (
            "I want the newsletter",
            &["click e7"],
            "I ticked \"Newsletter\".",
        ),
    ])
    .await;
}

#[tokio::test]
async fn a_request_with_no_wanted_state_toggles_and_never_says_clicked() {
    check(&[
        (
            "toggle gift wrap",
            &["click e6"],
            "I unticked \"Gift wrap\".",
        ),
        (
            "click gift wrap",
            &["click e6"],
            "I unticked \"Gift wrap\".",
        ),
        (
            "click newsletter",
            &["click e7"],
            "I ticked \"Newsletter\".",
        ),
        ("gift wrap", &["click e6"], "I unticked \"Gift wrap\"."),
        ("newsletter", &["click e7"], "I ticked \"Newsletter\"."),
    ])
    .await;
}
