//! The UI worker on the server session, against the real demo page in headless Chromium:
//! the `screen` tool, through the session's bus, clicks the gift-wrap checkbox, fills the
//! email field, selects products and lists checkboxes with an `LlmClassifier` answering from
//! `hark_llm::testing::ScriptedServer`; a job group over two peer workers reaches client-js as
//! `ui-job-group` envelopes, once to completion and once cancelled from the page
//! (`client.cancelUIJobGroup`), where the unfinished worker reads `cancelled` before
//! `group_completed`.
//!
//! Needs Debian's `chromium` and `chromium-driver` and a built `web/dist`; when one is missing
//! the test FAILS with the command that installs or builds it.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::chromium::*;
use common::*;
use futures::future::BoxFuture;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, RetryPolicy};
use hark_rtvi::JobStatus;
use hark_rtvi::snapshot::A11ySnapshot;
use hark_server::config::workspace_web_dir;
use hark_server::{ServerConfig, UiHandlerFactory, UiSession, UiSessionConfig};
use hark_tools::{ToolContext, ToolRegistry};
use hark_ui::job_group::{GroupOutcome, JobGroupParams};
use hark_ui::screen::named_elements;
use hark_ui::{
    DEFAULT_SCREEN_TIMEOUT, JobHandler, JobReply, JobRequest, JobResponse, JobUpdates,
    LlmClassifier,
};
use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

/// A peer that answers at once with the products it "found".
#[derive(Debug)]
struct Fast;

impl JobHandler for Fast {
    fn handle(&self, _job: JobRequest, _updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async {
            JobReply::Response(JobResponse::completed(json!({"found": ["Travel mug"]})))
        })
    }
}

/// A peer that reports progress, then answers only once the test lets it (a permit): the
/// delay is the test's to control, no clock involved.
#[derive(Debug)]
struct Gated {
    gate: Arc<Semaphore>,
}

impl JobHandler for Gated {
    fn handle(&self, _job: JobRequest, updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        Box::pin(async move {
            updates.send(json!({"step": "searching"}));
            let Ok(permit) = self.gate.acquire().await else {
                return JobReply::Response(JobResponse::error("gate closed"));
            };
            permit.forget();
            JobReply::Response(JobResponse::completed(json!({"found": ["Espresso cup"]})))
        })
    }
}

/// Polls the session's worker until its latest snapshot satisfies `pick`.
async fn worker_snapshot(
    ui: &UiSession,
    mut pick: impl FnMut(&A11ySnapshot) -> bool,
) -> Arc<hark_ui::Screen> {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        if let Some(screen) = ui.worker().snapshot()
            && pick(screen.snapshot())
        {
            return screen;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the worker never got the awaited snapshot; latest: {}",
            ui.worker().render_ui_state()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The `ui-job-group` envelopes of group `job_id` the page received, as `[kind, worker, status]`.
async fn page_envelopes(browser: &fantoccini::Client, job_id: &str) -> Vec<Value> {
    let v = browser
        .execute(
            "return window.harkDemo.jobGroups.filter((e) => e.job_id === arguments[0])\
             .map((e) => [e.kind, e.worker_name ?? null, e.status ?? null]);",
            vec![json!(job_id)],
        )
        .await
        .unwrap();
    v.as_array().cloned().unwrap_or_default()
}

async fn screen(tools: &ToolRegistry, args: Value) -> Value {
    tools
        .call("screen", args.to_string().as_str(), &ToolContext::default())
        .await
        .model_result
}

fn has_state(s: &A11ySnapshot, role: &str, name: &str, state: &str) -> bool {
    find(&s.root, role, name)
        .first()
        .is_some_and(|n| n.has_state(state))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_worker_drives_the_demo_page_and_reports_job_groups() {
    let web_dir = workspace_web_dir();
    check_prerequisites(&web_dir);

    // The classifier's LLM: one scripted answer pushed before each question.
    let llm = ScriptedServer::start(Vec::new())
        .await
        .expect("scripted LLM");
    let provider = Arc::new(
        OpenAiCompatible::new(llm.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    );
    let gate = Arc::new(Semaphore::new(0));
    let config = UiSessionConfig::new()
        .classifier(Arc::new(LlmClassifier::new(provider, "scripted-model")))
        .peer_worker("catalogue", Arc::new(Fast))
        .peer_worker("warehouse", Arc::new(Gated { gate: gate.clone() }));
    let factory = Arc::new(UiHandlerFactory::new(config).expect("a valid config"));
    let server = TestServer::start_with(
        ServerConfig {
            web_dir: Some(web_dir),
            ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
        },
        Some(factory.clone()),
    );
    let mut events = server.sessions.subscribe();
    let (driver, browser) = start_browser("ui").await;
    browser
        .goto(&format!("http://{}/", server.addr))
        .await
        .expect("open the demo page");
    let id = wait_ready(&mut events).await;
    let ui = factory.session(id).expect("the session's UI worker");
    let tools = ToolRegistry::new(ui.screen_tools(DEFAULT_SCREEN_TIMEOUT).unwrap()).unwrap();

    let first = worker_snapshot(&ui, |s| {
        !find(&s.root, "checkbox", "Gift wrap").is_empty()
            && !find(&s.root, "textbox", "Email").is_empty()
    })
    .await;
    let gift = one(first.snapshot(), "checkbox", "Gift wrap")
        .ref_
        .to_string();
    let email = one(first.snapshot(), "textbox", "Email").ref_.to_string();
    assert!(!has_state(
        first.snapshot(),
        "checkbox",
        "Gift wrap",
        "checked"
    ));

    // click: the classifier picks the checkbox at 0.93; the page ticks it.
    llm.push(Turn::text_reply(&[
        &json!({"element": {"choice": gift, "probabilities": {gift.as_str(): 0.93}}}).to_string(),
    ]));
    let r = screen(
        &tools,
        json!({"action": "click", "target": "the gift wrap checkbox"}),
    )
    .await;
    assert_eq!(r, json!({"done": true, "label": "Gift wrap"}));
    let asked = &llm.bodies()[0];
    assert_eq!(asked["model"], "scripted-model");
    assert!(
        asked["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("the gift wrap checkbox"),
        "the classifier is asked about the user's words: {asked}"
    );
    worker_snapshot(&ui, |s| has_state(s, "checkbox", "Gift wrap", "checked")).await;
    let checked = browser
        .execute(
            "return document.getElementById('gift-wrap').checked",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(checked, json!(true), "the DOM agrees");

    // fill: the email field gets the value.
    llm.push(Turn::text_reply(&[
        &json!({"element": {"choice": email, "probabilities": {email.as_str(): 0.9}}}).to_string(),
    ]));
    let r = screen(
        &tools,
        json!({"action": "fill", "target": "the email field", "value": "ana@example.com"}),
    )
    .await;
    assert_eq!(r, json!({"done": true, "label": "Email"}));
    worker_snapshot(&ui, |s| {
        find(&s.root, "textbox", "Email")
            .first()
            .and_then(|n| n.value())
            == Some("ana@example.com")
    })
    .await;
    let value = browser
        .execute("return document.getElementById('email').value", vec![])
        .await
        .unwrap();
    assert_eq!(value, json!("ana@example.com"));

    // select: one yes/no per named element; the scripted model says yes to the rows of the
    // products under 20 euros (a row is named by its product and price).
    let cheap = [
        "Espresso cup €9.50",
        "Paper filters €6.00",
        "Travel mug €19.00",
        "Tea infuser €8.00",
    ];
    let now = ui.worker().snapshot().unwrap();
    let mut answers = Map::new();
    let mut expected = Vec::new();
    for node in named_elements(&now.snapshot().root) {
        let name = node.name.as_deref().unwrap_or("");
        let yes = cheap.contains(&name);
        let p = if yes { 0.9 } else { 0.1 };
        if yes {
            expected.push(name.to_string());
        }
        answers.insert(node.ref_.to_string(), json!({"probability": p}));
    }
    assert_eq!(
        expected.len(),
        cheap.len(),
        "each cheap product is a named element once: {}",
        ui.worker().render_ui_state()
    );
    llm.push(Turn::text_reply(&[&Value::Object(answers).to_string()]));
    let r = screen(
        &tools,
        json!({"action": "select", "target": "products under 20 euros"}),
    )
    .await;
    let labels: Vec<&str> = r["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("matches: {r}"))
        .iter()
        .map(|m| m["label"].as_str().unwrap())
        .collect();
    let mut sorted = labels.clone();
    sorted.sort_unstable();
    let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
    want.sort_unstable();
    assert_eq!(sorted, want);
    assert!(
        r["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["probability"] == json!(0.9))
    );
    let text = r.to_string();
    assert!(
        !text.contains("ref") && !text.contains(&gift),
        "no refs reach the voice LLM: {text}"
    );

    // list: plain reading, no classifier call.
    let calls = llm.requests().len();
    let r = screen(&tools, json!({"action": "list", "target": "checkbox"})).await;
    let listed = r["elements"]
        .as_array()
        .unwrap_or_else(|| panic!("elements: {r}"));
    assert_eq!(listed.len(), 1, "the page has one checkbox: {r}");
    assert_eq!(
        (&listed[0]["role"], &listed[0]["name"], &listed[0]["value"]),
        (&json!("checkbox"), &json!("Gift wrap"), &Value::Null)
    );
    // Its state: `checked`, plus `offscreen` when the window is too short to show it.
    let state = listed[0]["state"].as_array().unwrap();
    assert!(state.contains(&json!("checked")), "{r}");
    assert!(
        state.iter().all(|s| s == "checked" || s == "offscreen"),
        "{r}"
    );
    assert_eq!(llm.requests().len(), calls);

    // A job group that completes: the warehouse answers once let through.
    let groups = ui.job_groups().clone();
    let run = tokio::spawn(async move {
        groups
            .run(
                &["catalogue", "warehouse"],
                JobGroupParams::new("stock", json!({"query": "mugs"})).label("Stock check"),
            )
            .await
    });
    let job_id = loop {
        if let Some(id) = ui.job_groups().running().pop() {
            break id;
        }
        tokio::task::yield_now().await;
    };
    page_until(
        &browser,
        "the page sees the warehouse's progress",
        &format!(
            "return window.harkDemo.jobGroups.some((e) => e.job_id === '{job_id}' && e.kind === 'job_update')"
        ),
    )
    .await;
    gate.add_permits(1);
    let report = run.await.unwrap().expect("the group runs");
    assert_eq!(report.outcome, GroupOutcome::Completed);
    page_until(
        &browser,
        "the page sees the group complete",
        &format!("return window.harkDemo.jobGroups.some((e) => e.job_id === '{job_id}' && e.kind === 'group_completed')"),
    )
    .await;
    let seen = page_envelopes(&browser, &job_id).await;
    assert_eq!(seen.first(), Some(&json!(["group_started", null, null])));
    assert_eq!(seen.last(), Some(&json!(["group_completed", null, null])));
    let mut middle: Vec<Value> = seen[1..seen.len() - 1].to_vec();
    middle.sort_by_key(|v| v.to_string());
    assert_eq!(
        middle,
        vec![
            json!(["job_completed", "catalogue", "completed"]),
            json!(["job_completed", "warehouse", "completed"]),
            json!(["job_update", "warehouse", null]),
        ]
    );
    let line = browser
        .execute("return document.getElementById('jobs').textContent", vec![])
        .await
        .unwrap();
    assert_eq!(line, json!("Stock check: finished"));

    // A job group cancelled from the page: the warehouse never gets its permit.
    let groups = ui.job_groups().clone();
    let run = tokio::spawn(async move {
        groups
            .run(
                &["catalogue", "warehouse"],
                JobGroupParams::new("stock", json!({"query": "cups"})).label("Second check"),
            )
            .await
    });
    let job_id = loop {
        if let Some(id) = ui.job_groups().running().pop() {
            break id;
        }
        tokio::task::yield_now().await;
    };
    page_until(
        &browser,
        "the page sees the catalogue's answer",
        &format!(
            "return window.harkDemo.jobGroups.some((e) => e.job_id === '{job_id}' && e.kind === 'job_completed')"
        ),
    )
    .await;
    browser
        .execute(
            "window.harkDemo.client.cancelUIJobGroup(arguments[0]); return true;",
            vec![json!(job_id)],
        )
        .await
        .unwrap();
    let report = run.await.unwrap().expect("the group runs");
    assert_eq!(
        report.outcome,
        GroupOutcome::CancelledByClient {
            reason: "cancelled by user".into()
        }
    );
    page_until(
        &browser,
        "the page sees the cancelled group complete",
        &format!("return window.harkDemo.jobGroups.some((e) => e.job_id === '{job_id}' && e.kind === 'group_completed')"),
    )
    .await;
    let seen = page_envelopes(&browser, &job_id).await;
    let kinds: Vec<Value> = seen
        .iter()
        .filter(|e| e[0] != "job_update")
        .cloned()
        .collect();
    assert_eq!(
        kinds,
        vec![
            json!(["group_started", null, null]),
            json!(["job_completed", "catalogue", "completed"]),
            json!(["job_completed", "warehouse", "cancelled"]),
            json!(["group_completed", null, null]),
        ],
        "the cancelled worker's job_completed comes before group_completed: {seen:?}"
    );
    let line = browser
        .execute("return document.getElementById('jobs').textContent", vec![])
        .await
        .unwrap();
    assert_eq!(line, json!("Second check: finished, 1 cancelled"));
    assert!(
        report
            .results
            .iter()
            .any(|r| r.worker == "warehouse" && r.response.status == JobStatus::Cancelled)
    );

    // The page's UI events land in the worker's context (no handler: recorded only).
    browser
        .execute(
            "document.querySelector('#product-list button').click(); return true;",
            vec![],
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        if ui.context().messages().iter().any(|m| {
            m.content == r#"<ui_event name="add_to_cart">{"product": "Espresso cup"}</ui_event>"#
        }) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the add_to_cart event never reached the worker"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    browser.close().await.expect("end the browser session");
    drop(driver);
    server.stop().await;
    assert!(
        factory.session(id).is_none(),
        "the ended session left the factory"
    );
}
