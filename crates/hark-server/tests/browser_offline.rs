//! The offline screen mode end to end: real headless Chromium
//! runs the demo page with the real Pipecat client (client-js + websocket-transport) against a
//! server configured as `hark serve --demo` is with no LLM ([`UiSessionConfig::offline_demo`]:
//! the local classifier, each typed message one offline turn). The user types into the page's
//! message box:
//! - "click add to cart for the blue mug" → the blue mug lands in the cart (the cart count
//!   changes on the page) and the bot's one-sentence answer shows in the conversation;
//! - "type ana@example.com into the email field" → the field holds it; the answer shows;
//! - "fill the name field with Ana María" → the accents survive into the field;
//! - "click the place order button" → the order is placed (the page's own chat panel, with
//!   its Send button, is `data-a11y-exclude`, so "Send" is not on the screen to be clicked).
//!
//! Chromium runs without the fake-media flags (no microphone): the text-only page connects
//! anyway.
//!
//! Each answer reaches the page after the UI command it reports. The page shows the
//! offline-mode notice the server sends when the session is ready.
//!
//! Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is missing
//! the test FAILS with the command that installs or builds it.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::chromium::*;
use common::*;
use fantoccini::Locator;
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, UiHandlerFactory, UiSessionConfig};
use serde_json::{Value, json};

/// The bot lines of the conversation panel, in order.
const BOT_LINES: &str =
    "return [...document.querySelectorAll('#log li.bot .text')].map((l) => l.textContent);";

/// Types `text` into the page's message box and presses Send, as a user does.
async fn say(browser: &fantoccini::Client, text: &str) {
    let input = browser
        .find(Locator::Css("#message"))
        .await
        .expect("the message box");
    input.send_keys(text).await.expect("type the message");
    browser
        .find(Locator::Css("#send"))
        .await
        .expect("the Send button")
        .click()
        .await
        .expect("press Send");
}

/// Waits for the bot's reply to the `n`-th message (1-based) and returns it.
async fn bot_reply(browser: &fantoccini::Client, n: usize) -> String {
    page_until_showing(
        browser,
        "the bot's answer",
        &format!(
            "return document.querySelectorAll('#log li.bot .text').length >= {n} && \
             !!document.querySelectorAll('#log li.bot .text')[{}].textContent;",
            n - 1
        ),
        BOT_LINES,
    )
    .await;
    let lines = browser.execute(BOT_LINES, vec![]).await.unwrap();
    lines[n - 1].as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_mode_shops_by_text_in_the_demo_page() {
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);

    let factory = Arc::new(
        UiHandlerFactory::new(UiSessionConfig::offline_demo()).expect("the demo's config"),
    );
    let server = TestServer::start_with(
        ServerConfig {
            web_dir: Some(web_dir),
            ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
        },
        Some(factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let (driver, browser) = start_browser("offline").await;
    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");
    let id = wait_ready(&mut events).await;
    // No microphone: the page still reaches ready, and its message box is usable only then.
    page_until_showing(
        &browser,
        "the page ready",
        "return document.body.dataset.rtviState === 'ready' && \
         !document.getElementById('message').disabled;",
        "return document.body.dataset.rtviState;",
    )
    .await;

    // The page says which mode the server runs in.
    page_until_showing(
        &browser,
        "the offline-mode notice",
        "return document.body.dataset.harkMode === 'offline-screen' && \
         !document.getElementById('mode-notice').hidden;",
        "return document.getElementById('mode-notice').outerHTML;",
    )
    .await;
    let notice = browser
        .execute(
            "return document.getElementById('mode-notice').textContent",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(notice, json!(hark_ui::messages::offline_mode_notice()));

    // The worker sees the shop (with the blue mug) before the user types.
    let ui = factory.session(id).expect("the session's UI worker");
    let deadline = tokio::time::Instant::now() + STEP;
    let has_blue_mug =
        |s: &hark_ui::Screen| !find(&s.snapshot().root, "listitem", "Blue mug €22.00").is_empty();
    while ui.worker().snapshot().is_none_or(|s| !has_blue_mug(&s)) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no snapshot with the blue mug reached the worker"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // 1. Click: the blue mug's own "Add to cart" button. The answer comes after the command it
    // reports, so once it shows, the cart has changed.
    say(&browser, "click add to cart for the blue mug").await;
    assert_eq!(
        bot_reply(&browser, 1).await,
        "I clicked \"Add to cart (Blue mug)\"."
    );
    let cart = browser
        .execute(
            "return document.getElementById('cart-link').textContent",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        cart,
        json!("Cart (1)"),
        "the cart count changed on the page"
    );
    let summary = browser
        .execute(
            "return document.getElementById('cart-summary').textContent",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        summary,
        json!("In your cart: 1 × Blue mug. Total €22.00."),
        "the blue mug, not another product"
    );

    // 2. Fill: the email field holds the address.
    say(&browser, "type ana@example.com into the email field").await;
    assert_eq!(
        bot_reply(&browser, 2).await,
        "I typed \"ana@example.com\" into \"Email\"."
    );
    let email = browser
        .execute("return document.getElementById('email').value", vec![])
        .await
        .unwrap();
    assert_eq!(email, json!("ana@example.com"), "the field holds it");

    // 3. Fill with a value of several words and accents.
    say(&browser, "fill the name field with Ana María").await;
    page_until_showing(
        &browser,
        "the name field",
        "return document.getElementById('name').value === 'Ana María';",
        "return document.getElementById('name').value;",
    )
    .await;
    assert_eq!(
        bot_reply(&browser, 3).await,
        "I typed \"Ana María\" into \"Name\"."
    );

    // 4. Click Place order (the cart holds the blue mug, Name and Email are filled): the chat's
    // Send button is not on the screen, so "button" resolves to Place order, not Send.
    say(&browser, "click the place order button").await;
    assert_eq!(
        bot_reply(&browser, 4).await,
        "I clicked \"Place order\".",
        "the Place order button, not the chat's Send"
    );
    let outcome = browser
        .execute(
            "return document.getElementById('order-result').textContent",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        outcome,
        json!("Thank you, Ana María! 1 item(s) will ship to France."),
        "the order was placed"
    );

    // The user's lines and the bot's alternate: one answer per message, nothing else.
    let lines = browser
        .execute(
            "return [...document.querySelectorAll('#log li')].map((l) => l.className);",
            vec![],
        )
        .await
        .unwrap();
    let kinds: Vec<&str> = lines
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|k| *k != "system")
        .collect();
    assert_eq!(
        kinds,
        ["user", "bot", "user", "bot", "user", "bot", "user", "bot"]
    );

    browser.close().await.expect("end the browser session");
    drop(driver);
    server.stop().await;
}
