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
//!   same text naming Redis, long before the tool's timeout;
//! - every session shares one Redis connection (a pattern subscription on the prefix, one
//!   publisher: two clients on Redis for three sessions); a worker's `BusEndMessage` or
//!   `BusCancelMessage` on a session's channel ends that session (closed with 1000 "The call
//!   ended", as Pipecat's runner ends on them) and no other.
//!
//! The Redis tests need `HARK_TEST_REDIS_URL` (scripts/test.sh starts a server and sets it);
//! without it each prints why it skipped, except under `CI=true`, where it fails.

mod common;

use std::collections::{HashMap, HashSet};
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

/// The close frame the server sends next (data messages before it are skipped).
async fn close_frame(ws: &mut Ws) -> (u16, String) {
    use futures::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("in time")
            .expect("open")
            .expect("ok");
        if let Message::Close(frame) = msg {
            let frame = frame.expect("a close frame with a code");
            return (u16::from(frame.code), frame.reason.to_string());
        }
    }
}

/// The clients of the Redis server at `url` (its `CLIENT LIST`), less the connection asking.
async fn redis_clients(url: &str) -> Vec<String> {
    let mut conn = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let list: String = redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut conn)
        .await
        .unwrap();
    list.lines()
        .filter(|l| !l.contains("cmd=client|list"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_shares_one_redis_connection_and_a_workers_end_or_cancel_ends_its_session() {
    // A Redis server of its own, so its client list is this test's alone.
    let Some(redis) = hark_bus::test_support::OwnRedis::start(
        "every_session_shares_one_redis_connection_and_a_workers_end_or_cancel_ends_its_session",
    ) else {
        return;
    };
    let url = redis.url();
    let mut bus = RemoteBusConfig::new(url.clone());
    bus.channel_prefix = "hark-test:shared:".into();
    let setup = serve("shared", Vec::new(), bus).await;
    let mut events = setup.server.sessions.subscribe();
    let mut sessions = Vec::new();
    for n in 0..3 {
        let mut ws = connect(&setup.server).await;
        handshake(&mut ws, &format!("r{n}")).await;
        let id = wait_ready(&mut events).await;
        sessions.push((ws, id));
    }

    // One pattern subscription and one publishing connection for the three sessions.
    let deadline = tokio::time::Instant::now() + STEP;
    let clients = loop {
        let clients = redis_clients(&url).await;
        if clients.iter().any(|c| c.contains("psub=1")) {
            break clients;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no pattern subscription: {clients:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(clients.len(), 2, "{clients:#?}");
    assert!(
        clients.iter().all(|c| c.contains(" sub=0 ")),
        "no session subscribes a channel of its own: {clients:#?}"
    );

    // A worker on the first session's channel ends the call (BusEndMessage), one on the
    // second's cancels it (BusCancelMessage): each ends its own session only, as Pipecat's
    // runner ends on them; the third goes on.
    let (worker, mut worker_events) =
        hark_bus::RedisBus::start_pattern(RedisBusConfig::new(url.clone(), "hark-test:shared:*"))
            .unwrap();
    worker.add_own_name("ui");
    assert!(matches!(
        tokio::time::timeout(STEP, worker_events.recv()).await,
        Ok(Some(hark_bus::redis_bus::ChannelEvent::Connected))
    ));
    let shutdown = |reason: &str| hark_bus::wire::Shutdown {
        source: "ui".into(),
        target: None,
        reason: Some(reason.into()),
    };
    let channel = |id: hark_server::SessionId| format!("hark-test:shared:{id}");
    worker
        .publish_on(
            &channel(sessions[0].1),
            &hark_bus::WireMessage::End(shutdown("call over")),
        )
        .await
        .unwrap();
    worker
        .publish_on(
            &channel(sessions[1].1),
            &hark_bus::WireMessage::Cancel(shutdown("cancelled")),
        )
        .await
        .unwrap();
    for (ws, _) in sessions.iter_mut().take(2) {
        assert_eq!(close_frame(ws).await, (1000, "The call ended".to_owned()));
    }
    // The two sessions close in either order: each Closed event is read once, in one wait.
    let ending = [sessions[0].1, sessions[1].1];
    let mut causes = HashMap::new();
    while causes.len() < ending.len() {
        let (id, cause) = wait_for(&mut events, |e| match &e.kind {
            SessionEventKind::Closed(c) if ending.contains(&e.session) => {
                Some((e.session, c.clone()))
            }
            _ => None,
        })
        .await;
        causes.insert(id, cause);
    }
    for id in ending {
        assert_eq!(
            causes[&id],
            hark_server::CloseCause::CallEnded,
            "session {id}"
        );
    }
    assert_alive(&mut sessions[2].0, "still-here").await;
    // The sessions that ended said so on their channels; the shared connection stays.
    let mut ended = HashSet::new();
    while ended.len() < 2 {
        match tokio::time::timeout(STEP, worker_events.recv()).await {
            Ok(Some(hark_bus::redis_bus::ChannelEvent::Message { channel, message })) => {
                if matches!(*message, hark_bus::WireMessage::End(ref e) if e.source == "voice") {
                    ended.insert(channel);
                }
            }
            other => panic!("the ended sessions' BusEndMessage, got {other:?}"),
        }
    }
    assert_eq!(
        ended,
        HashSet::from([channel(sessions[0].1), channel(sessions[1].1)])
    );
    assert_eq!(
        redis_clients(&url).await.len(),
        2 + 2,
        "the hub's two and the worker's two"
    );
    worker.close();
    setup.server.stop().await;
    let _ = std::fs::remove_dir_all(&setup.dir);
}
