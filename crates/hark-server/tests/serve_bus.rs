//! `hark serve --bus`: each session's bus on its own Redis channel (prefix + session id), with
//! a `hark worker` loop ([`hark_server::bus_worker::run`], the local classifier's model from
//! scripts/fetch-model.sh) as the session's `ui` worker, talked to over the RTVI WebSocket as
//! `tests/agent_ws.rs` does:
//!
//! - the client's `ui-snapshot` reaches the worker as `__ui_snapshot`; the agent's `screen`
//!   find job is answered by the worker (the model reads the label), and its click's
//!   `BusUICommandMessage` reaches the client as RTVI `ui-command`;
//! - when the session ends, the worker gets `BusEndMessage` from the session and ends;
//! - a session with no worker on its channel: the job is answered by its timeout with the text
//!   that says the screen could not be asked; a session whose Redis cannot be reached gets the
//!   same text naming Redis, long before the tool's timeout.
//!
//! The Redis tests need `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it);
//! without it each prints why it skipped, except under `CI=true`, where it fails.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hark_bus::RedisBusConfig;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_server::bus_worker::{BusWorkerConfig, Ended, run};
use hark_server::{RemoteBusConfig, ServerConfig, SessionEventKind};
use serde_json::{Value, json};
use tokio::sync::oneshot;

fn redis_url(test: &str) -> Option<String> {
    match std::env::var("HARK_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "HARK_TEST_REDIS_URL is not set under CI: scripts/test.sh starts redis-server and sets it"
            );
            eprintln!(
                "skipping {test}: HARK_TEST_REDIS_URL is not set (scripts/test.sh starts a redis-server and sets it)"
            );
            None
        }
    }
}

fn agent_file(base_url: &str) -> String {
    format!(
        r#"
name = "shop"
system_prompt = "You help on the shop page."

[llm]
provider = "openai-compatible"
base_url = "{base_url}"
model = "voice-model"
"#
    )
}

fn screen_call(id: &str, args: Value) -> Turn {
    Turn::stream()
        .tool_call_start(0, id, "screen")
        .tool_call_args(0, &args.to_string())
        .finish("tool_calls")
        .done()
}

/// The tool message the model read for call `id` in request `body`.
fn tool_result(body: &Value, id: &str) -> Value {
    let content = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no tool message for {id} in {body}"))["content"]
        .as_str()
        .unwrap()
        .to_owned();
    serde_json::from_str(&content).unwrap_or(Value::String(content))
}

/// Every message of one user turn with a tool call: until the second `bot-llm-stopped` (the
/// tool call's model turn, then the answer's).
async fn messages_until(ws: &mut Ws, until: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut seen = 0;
    loop {
        let m = recv_json(ws).await;
        if m["type"] == until {
            seen += 1;
        }
        all.push(m);
        if seen == 2 {
            return all;
        }
    }
}

struct Setup {
    llm: ScriptedServer,
    server: TestServer,
    dir: std::path::PathBuf,
}

async fn serve(test: &str, turns: Vec<Turn>, bus: RemoteBusConfig) -> Setup {
    let llm = ScriptedServer::start(turns).await.unwrap();
    let dir = std::env::temp_dir().join(format!("hark-serve-bus-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.toml");
    std::fs::write(&path, agent_file(&llm.base_url())).unwrap();
    let served = hark_server::serve::agent_sessions_on(Some(&path), Some(bus))
        .await
        .expect("the agent file builds");
    assert!(served.voice);
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(served.factory.clone()),
    );
    Setup { llm, server, dir }
}

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"generic","children":[
    {"ref":"e2","role":"button","name":"Checkout"},
    {"ref":"e3","role":"checkbox","name":"Gift wrap"}]},"captured_at":1767225600000}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hark_worker_on_the_sessions_channel_answers_its_screen_jobs() {
    let Some(url) = redis_url("a_hark_worker_on_the_sessions_channel_answers_its_screen_jobs")
    else {
        return;
    };
    let prefix = format!("hark-test:serve:{}:", std::process::id());
    let mut bus = RemoteBusConfig::new(url.clone());
    bus.channel_prefix = prefix.clone();
    let setup = serve(
        "worker",
        vec![
            screen_call(
                "call_1",
                json!({"action": "find", "target": "the checkout button"}),
            ),
            Turn::text_reply(&["It is the Checkout button."]),
            screen_call(
                "call_2",
                json!({"action": "click", "target": "the checkout button"}),
            ),
            Turn::text_reply(&["Done."]),
        ],
        bus,
    )
    .await;
    let mut events = setup.server.sessions.subscribe();
    let mut ws = connect(&setup.server).await;
    handshake(&mut ws, "r1").await;
    let id = wait_ready(&mut events).await;

    // The session's channel is the prefix and its id: the worker serves that channel.
    let factory_channel = format!("{prefix}{id}");
    let classifier = tokio::task::spawn_blocking(hark_classify::LocalClassifier::new)
        .await
        .unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let worker = tokio::spawn(run(
        BusWorkerConfig {
            bus: RedisBusConfig::new(url, &factory_channel),
            name: "ui".into(),
            runner: "hark-test-worker".into(),
            classifier: Some(Arc::new(classifier)),
            respond: None,
            instruction: None,
            reply_tool: false,
            idle_timeout: Duration::from_secs(600),
        },
        async {
            let _ = stopped.await;
        },
    ));

    let tree: Value = serde_json::from_str(SNAPSHOT).unwrap();
    send_json(
        &mut ws,
        &envelope("ui-snapshot", "snap", json!({"tree": tree})),
    )
    .await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "where is checkout?"})),
    )
    .await;
    messages_until(&mut ws, "bot-llm-stopped").await;
    let found = tool_result(&setup.llm.bodies()[1], "call_1");
    assert_eq!(found["label"], "Checkout", "{found}");
    assert!(found["confidence"].as_f64().unwrap() > 0.5, "{found}");

    send_json(
        &mut ws,
        &envelope("send-text", "t2", json!({"content": "press it"})),
    )
    .await;
    let turn = messages_until(&mut ws, "bot-llm-stopped").await;
    let command = turn
        .iter()
        .find(|m| m["type"] == "ui-command")
        .unwrap_or_else(|| panic!("no ui-command in {turn:?}"));
    assert_eq!(command["data"]["command"], "click");
    assert_eq!(command["data"]["payload"]["ref"], "e2");
    assert_eq!(
        tool_result(&setup.llm.bodies()[3], "call_2"),
        json!({"done": true, "label": "Checkout"})
    );

    // The session ends: its channel's worker gets the session's BusEndMessage and ends.
    drop(ws);
    wait_for(&mut events, |e| match &e.kind {
        SessionEventKind::Closed(_) if e.session == id => Some(()),
        _ => None,
    })
    .await;
    let ended = tokio::time::timeout(STEP, worker)
        .await
        .expect("the worker ends when the session does")
        .unwrap()
        .unwrap();
    assert_eq!(
        ended,
        Ended::End {
            source: "voice".into()
        }
    );
    drop(stop);
    setup.server.stop().await;
    let _ = std::fs::remove_dir_all(&setup.dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_worker_on_the_channel_the_job_says_the_screen_could_not_be_asked() {
    let Some(url) =
        redis_url("with_no_worker_on_the_channel_the_job_says_the_screen_could_not_be_asked")
    else {
        return;
    };
    let mut bus = RemoteBusConfig::new(url);
    bus.channel_prefix = format!("hark-test:serve-none:{}:", std::process::id());
    bus.job_timeout = Duration::from_secs(2);
    let setup = serve(
        "none",
        vec![
            screen_call("call_1", json!({"action": "list"})),
            Turn::text_reply(&["I cannot see the screen."]),
        ],
        bus,
    )
    .await;
    let mut events = setup.server.sessions.subscribe();
    let mut ws = connect(&setup.server).await;
    handshake(&mut ws, "r1").await;
    let id = wait_ready(&mut events).await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "what is on screen?"})),
    )
    .await;
    messages_until(&mut ws, "bot-llm-stopped").await;
    let channel = format!("hark-test:serve-none:{}:{id}", std::process::id());
    assert_eq!(
        tool_result(&setup.llm.bodies()[1], "call_1"),
        json!({"error": hark_server::messages::remote_worker_unreachable(
            "ui",
            "screen",
            &channel,
            "no worker named ui announced itself within 2 s"
        )})
    );
    setup.server.stop().await;
    let _ = std::fs::remove_dir_all(&setup.dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_redis_is_away_reads_that_redis_cannot_be_reached() {
    let socket = std::env::temp_dir().join(format!("hark-no-redis-{}.sock", std::process::id()));
    let url = format!("unix://{}", socket.display());
    let mut bus = RemoteBusConfig::new(url.clone());
    bus.channel_prefix = "hark-test:away:".into();
    let setup = serve(
        "away",
        vec![
            screen_call("call_1", json!({"action": "list"})),
            Turn::text_reply(&["I cannot see the screen."]),
        ],
        bus,
    )
    .await;
    let mut events = setup.server.sessions.subscribe();
    let mut ws = connect(&setup.server).await;
    handshake(&mut ws, "r1").await;
    let id = wait_ready(&mut events).await;
    send_json(
        &mut ws,
        &envelope("send-text", "t1", json!({"content": "what is on screen?"})),
    )
    .await;
    // By the 30 s job timeout at the latest; Redis away is said after 2 s.
    messages_until(&mut ws, "bot-llm-stopped").await;
    assert_eq!(
        tool_result(&setup.llm.bodies()[1], "call_1"),
        json!({"error": hark_server::messages::remote_worker_unreachable(
            "ui",
            "screen",
            &format!("hark-test:away:{id}"),
            &format!("Redis at {url} cannot be reached"),
        )})
    );
    setup.server.stop().await;
    let _ = std::fs::remove_dir_all(&setup.dir);
}
