//! The offline screen mode reads requests phrased as a person says them, with no command verb:
//! "log me out", "take me to the basket", "I want the blue one". The classifier finds the element;
//! the element gets its own action — a button or link is clicked, a checkbox toggled, a text field
//! focused and asked about — and the answer says what was done. What names nothing gets the help
//! text, whose examples come from the page in hand (the demo shop's items only on the demo shop).
//!
//! Real parts: the local classifier, and snapshots as client-js's walker takes them: the demo
//! shop's home page (`bench/grounding/rows.jsonl`, `demo/home`, with the Blue mug row the
//! shop has since added, built like its other rows), a sign-in page of the same file
//! (`grounding-data/signin-form-filled`), and an account page.

use std::sync::Arc;

use hark_rtvi::{A11yNode, A11ySnapshot, ServerMessage};
use hark_ui::UiWorker;
use hark_ui::classifier::LocalClassifier;
use hark_ui::offline::{Intent, OfflineScreen};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

const ROWS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../bench/grounding/rows.jsonl"
);

fn stored(page: &str) -> Value {
    let text = std::fs::read_to_string(ROWS).unwrap_or_else(|e| panic!("cannot read {ROWS}: {e}"));
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON row"))
        .find(|r| r["page"] == page)
        .unwrap_or_else(|| panic!("no row of {page}"))["snapshot"]
        .clone()
}

/// The demo shop's home page, with its ninth product row (Blue mug €22.00) as the page
/// renders every row: a list item named by product and price, two texts, an Add to cart button.
fn shop() -> A11ySnapshot {
    let mut snapshot = stored("demo/home");
    let products = &mut snapshot["root"]["children"][1]["children"][0]["children"][3];
    assert_eq!(products["role"], "list", "the product list");
    products["children"].as_array_mut().unwrap().push(
        json!({"ref": "e90", "role": "listitem", "name": "Blue mug €22.00", "children": [
            {"ref": "", "role": "text", "name": "Blue mug"},
            {"ref": "", "role": "text", "name": "€22.00"},
            {"ref": "e91", "role": "button", "name": "Add to cart"}]}),
    );
    A11ySnapshot::from_json(&snapshot.to_string()).unwrap()
}

/// A page that is not the shop: an account page.
fn account() -> A11ySnapshot {
    A11ySnapshot::from_json(
        r#"{"root":{"ref":"e1","role":"main","children":[
        {"ref":"e2","role":"heading","name":"Your account"},
        {"ref":"e3","role":"link","name":"Order history"},
        {"ref":"e4","role":"textbox","name":"Display name"},
        {"ref":"e5","role":"checkbox","name":"Email me offers"},
        {"ref":"e6","role":"button","name":"Save changes"},
        {"ref":"e7","role":"button","name":"Log out"}]},"captured_at":1}"#,
    )
    .unwrap()
}

fn signin() -> A11ySnapshot {
    A11ySnapshot::from_json(&stored("grounding-data/signin-form-filled").to_string()).unwrap()
}

fn offline_on(
    snapshot: A11ySnapshot,
) -> (
    OfflineScreen,
    Arc<UiWorker>,
    UnboundedReceiver<ServerMessage>,
) {
    let (tx, rx) = unbounded_channel();
    let worker = Arc::new(
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new())),
    );
    worker.on_snapshot(snapshot);
    (OfflineScreen::new(worker.clone()), worker, rx)
}

/// Every command sent so far, as `(command, ref)`.
fn commands(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = m {
            let r = c.payload["ref"].as_str().unwrap_or_default().to_string();
            out.push((c.command, r));
        }
    }
    out
}

fn find<'a>(node: &'a A11yNode, role: &str, name: &str) -> Option<&'a A11yNode> {
    if node.role == role && node.name.as_deref() == Some(name) {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, role, name))
}

fn ref_of(worker: &UiWorker, role: &str, name: &str) -> String {
    let screen = worker.snapshot().expect("a snapshot");
    find(&screen.snapshot().root, role, name)
        .unwrap_or_else(|| panic!("no {role} {name:?}"))
        .ref_
        .to_string()
}

/// The words of the demo shop's products and cart: none may be in the help of another page.
const SHOP_WORDS: &[&str] = &["mug", "cart", "espresso", "gift wrap", "coffee", "product"];

#[tokio::test]
async fn on_the_shop_the_basket_is_opened_and_the_blue_one_added() {
    let (offline, worker, mut rx) = offline_on(shop());

    let turn = offline.turn("take me to the basket").await;
    assert_eq!(
        turn.intent,
        Some(Intent::Act {
            target: "the basket".into()
        })
    );
    assert_eq!(turn.sentence, "I clicked \"Cart (0)\".");
    assert_eq!(
        commands(&mut rx),
        [("click".to_string(), ref_of(&worker, "link", "Cart (0)"))]
    );

    let turn = offline.turn("I want the blue one").await;
    assert_eq!(turn.sentence, "I clicked \"Add to cart (Blue mug)\".");
    assert_eq!(
        commands(&mut rx),
        [("click".to_string(), "e91".to_string())]
    );

    // A field named without a verb is focused, and the user is asked what to type.
    let turn = offline.turn("my email").await;
    assert_eq!(
        turn.sentence,
        "I put the cursor in \"Email\". What should I type there?"
    );
    assert_eq!(
        commands(&mut rx),
        [(
            "select_text".to_string(),
            ref_of(&worker, "textbox", "Email")
        )]
    );

    // A checkbox is ticked (it was not).
    let turn = offline.turn("gift wrap please").await;
    assert_eq!(turn.sentence, "I ticked \"Gift wrap\".");
    assert_eq!(
        commands(&mut rx),
        [(
            "click".to_string(),
            ref_of(&worker, "checkbox", "Gift wrap")
        )]
    );
}

#[tokio::test]
async fn on_an_account_page_log_me_out_clicks_log_out() {
    let (offline, _worker, mut rx) = offline_on(account());
    for (text, sentence, command, target) in [
        ("log me out", "I clicked \"Log out\".", "click", "e7"),
        (
            "take me to my orders",
            "I clicked \"Order history\".",
            "click",
            "e3",
        ),
        (
            "I want email offers",
            "I ticked \"Email me offers\".",
            "click",
            "e5",
        ),
        (
            "my display name",
            "I put the cursor in \"Display name\". What should I type there?",
            "select_text",
            "e4",
        ),
    ] {
        let turn = offline.turn(text).await;
        assert_eq!(turn.sentence, sentence, "{text}");
        assert_eq!(
            commands(&mut rx),
            [(command.to_string(), target.to_string())],
            "{text}"
        );
    }
}

#[tokio::test]
async fn on_a_sign_in_page_a_link_is_followed_and_a_field_focused() {
    let (offline, worker, mut rx) = offline_on(signin());
    let turn = offline.turn("I forgot my password").await;
    assert_eq!(turn.sentence, "I clicked \"Forgot your password?\".");
    assert_eq!(
        commands(&mut rx),
        [(
            "click".to_string(),
            ref_of(&worker, "link", "Forgot your password?")
        )]
    );
    // The textbox, not the group of the same name around it.
    let turn = offline.turn("my email").await;
    assert_eq!(
        turn.sentence,
        "I put the cursor in \"Email Address\". What should I type there?"
    );
    assert_eq!(
        commands(&mut rx),
        [(
            "select_text".to_string(),
            ref_of(&worker, "textbox", "Email Address")
        )]
    );
    // The button, not the heading of the same name.
    let turn = offline.turn("log me in").await;
    assert_eq!(turn.sentence, "I clicked \"Sign In\".");
    assert_eq!(
        commands(&mut rx),
        [("click".to_string(), ref_of(&worker, "button", "Sign In"))]
    );
}

#[tokio::test]
async fn what_names_nothing_gets_the_help_made_from_the_page_in_hand() {
    // The shop: nothing to log out with; the help's examples are the shop's.
    let (offline, _worker, mut rx) = offline_on(shop());
    let turn = offline.turn("log me out").await;
    assert_eq!(
        turn.sentence,
        "I am in offline screen mode with no LLM, so I understand screen commands only, like \
         \"click Reconnect\", \"where is Products\", \"type hello into Message\", \"is Gift wrap \
         checked?\" or \"list the buttons\", or the name of what you want on the page."
    );
    assert!(commands(&mut rx).is_empty(), "nothing was done");
    assert_eq!(
        offline.turn("something about dragons").await.sentence,
        turn.sentence
    );

    // Another page: its own names, none of the shop's.
    for (snapshot, help) in [
        (
            account(),
            "I am in offline screen mode with no LLM, so I understand screen commands only, like \
             \"click Save changes\", \"where is Order history\", \"type hello into Display name\", \
             \"is Email me offers checked?\" or \"list the buttons\", or the name of what you want \
             on the page.",
        ),
        (
            signin(),
            "I am in offline screen mode with no LLM, so I understand screen commands only, like \
             \"click Sign In\", \"where is Forgot your password?\", \"type ana@example.com into \
             Email Address\" or \"list the buttons\", or the name of what you want on the page.",
        ),
    ] {
        let (offline, _worker, mut rx) = offline_on(snapshot);
        for text in ["something about dragons", "help"] {
            let turn = offline.turn(text).await;
            assert_eq!(turn.sentence, help, "{text}");
            let lower = turn.sentence.to_lowercase();
            for word in SHOP_WORDS {
                assert!(!lower.contains(word), "{word} in {}", turn.sentence);
            }
        }
        assert!(commands(&mut rx).is_empty());
    }

    // No page yet: the kinds of command, no names at all.
    let (tx, _rx) = unbounded_channel();
    let worker =
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new()));
    let offline = OfflineScreen::new(Arc::new(worker));
    let turn = offline.turn("help").await;
    assert_eq!(
        turn.sentence,
        "I am in offline screen mode with no LLM, so I understand screen commands only: click, \
         show, type into, check and list what is on the page, or name what you want on it. I see \
         nothing on this page to act on yet."
    );
}

/// Every example of a page's help works on that page.
#[tokio::test]
async fn every_example_of_another_pages_help_works_there() {
    for snapshot in [account(), signin()] {
        let (offline, _worker, _rx) = offline_on(snapshot.clone());
        let help = offline.turn("help").await.sentence;
        let examples: Vec<&str> = help.split('"').skip(1).step_by(2).collect();
        assert!(examples.len() >= 3, "{examples:?}");
        for example in examples {
            let (offline, _worker, _rx) = offline_on(snapshot.clone());
            let turn = offline.turn(example).await;
            assert!(
                !matches!(turn.intent, Some(Intent::Act { .. }) | None)
                    && !turn.sentence.starts_with("I could not")
                    && !turn.sentence.starts_with("Sorry")
                    && turn.sentence != help,
                "{example}: {}",
                turn.sentence
            );
        }
    }
}

/// A question the classifier cannot read is answered without the shop's items too.
#[test]
fn the_not_understood_answer_names_no_shop_item() {
    let text = hark_ui::messages::offline_failed(hark_ui::offline::Failure::NotUnderstood);
    let lower = text.to_lowercase();
    for word in SHOP_WORDS {
        assert!(!lower.contains(word), "{word} in {text}");
    }
}
