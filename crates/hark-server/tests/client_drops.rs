//! The client drops mid work (the first rows of the faults table in `docs/RELIABILITY.md`): a real
//! server on loopback (`hark_server` in-process) with a voice agent and a UI worker per session,
//! `hark_llm::testing::ScriptedServer` as the provider, a loopback HTTP server for webhooks, and
//! tokio-tungstenite clients that drop mid `respond` job, mid job group and mid tool call (a slow
//! local tool, a slow webhook) — with a close frame and without one (the TCP connection just
//! closes).
//!
//! After each drop: the session ends (`CloseCause::ClientGone`), its agent and turn tasks end
//! (the [`BackgroundDrain`] tracks no call: the agent, its turns and its background work are
//! gone), the tool ran to completion or was cancelled exactly once per its interruption rule,
//! the sinks saw exactly one `tool.started` and one end event per call, a `continue` tool's
//! webhook and a background webhook still arrive and finish, the job group is torn down, and a
//! new client works normally. A memory guard: 200 connect–turn–drop cycles leave the RSS
//! within a generous bound of where it started.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use common::hooks::{Answer, HookServer, rss_kib};
use common::*;
use futures::StreamExt;
use futures::future::BoxFuture;
use hark_agent::agent::BackgroundDrain;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{OpenAiCompatible, Provider};
use hark_server::{
    CloseCause, ServerConfig, SessionEventKind, SessionId, UiHandlerFactory, UiSessionConfig,
    VoiceAgentConfig,
};
use hark_tools::{Interruption, ToolError, ToolEvent, ToolRegistry, ToolSpec, ToolStage};
use hark_ui::job_group::JobGroupParams;
use hark_ui::{JobGroups, JobHandler, JobReply, JobRequest, JobUpdates, UiWorker};
use serde_json::json;
use tokio::sync::{broadcast, watch};

/// Counts of a tool or peer that never finishes on its own.
#[derive(Debug)]
struct Held {
    started: watch::Sender<usize>,
    finished: AtomicUsize,
    dropped: watch::Sender<usize>,
}

impl Held {
    fn new() -> Arc<Self> {
        Arc::new(Held {
            started: watch::channel(0).0,
            finished: AtomicUsize::new(0),
            dropped: watch::channel(0).0,
        })
    }

    async fn wait(counter: &watch::Sender<usize>, what: &str, n: usize) {
        let mut rx = counter.subscribe();
        tokio::time::timeout(STEP, rx.wait_for(|c| *c >= n))
            .await
            .unwrap_or_else(|_| panic!("{what} reached {n} in time"))
            .unwrap();
    }
}

/// Counts the held future's drop (it never completes on its own).
struct DropCount(Arc<Held>);
impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.dropped.send_modify(|n| *n += 1);
    }
}

async fn hold_forever(held: Arc<Held>) {
    held.started.send_modify(|n| *n += 1);
    let _guard = DropCount(held.clone());
    std::future::pending::<()>().await;
    held.finished.fetch_add(1, Ordering::SeqCst);
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // read by the schema only
struct HoldArgs {
    /// What to wait for.
    what: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct HoldDone {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // read by the schema only
struct OrderArgs {
    /// The order id.
    order: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // read by the schema only
struct NoteArgs {
    /// A number.
    n: u32,
}

/// A peer worker whose jobs never answer (until the group is torn down).
#[derive(Debug)]
struct Stuck(Arc<Held>);
impl JobHandler for Stuck {
    fn handle(&self, _job: JobRequest, _u: JobUpdates) -> BoxFuture<'_, JobReply> {
        let held = self.0.clone();
        Box::pin(async move {
            hold_forever(held).await;
            JobReply::StreamEnded
        })
    }
}

type Events = Arc<Mutex<Vec<ToolEvent>>>;

/// The server, its provider, its webhook receiver and what the test watches.
struct Rig {
    llm: ScriptedServer,
    hooks: HookServer,
    server: TestServer,
    factory: Arc<UiHandlerFactory>,
    drain: BackgroundDrain,
    events: Events,
    /// The local tool `hold_local` (interruption `cancel`).
    tool: Arc<Held>,
    /// The peer worker `stuck`.
    peer: Arc<Held>,
}

async fn rig(turns: Vec<Turn>) -> Rig {
    let llm = ScriptedServer::start(turns).await.unwrap();
    let hooks = HookServer::start(|path, _| match path {
        "/slow" | "/bg" => Answer::AfterRelease,
        _ => Answer::Now,
    })
    .await;
    let provider: Arc<dyn Provider> = Arc::new(OpenAiCompatible::new(llm.base_url(), None));
    let tool = Held::new();
    let peer = Held::new();
    let held = tool.clone();
    let hold_local = ToolSpec::local(
        "hold_local",
        "Waits for the back office.",
        move |_: HoldArgs| {
            let held = held.clone();
            async move {
                hold_forever(held).await;
                Ok::<_, ToolError>(HoldDone { ok: true })
            }
        },
    )
    .unwrap()
    .interruption(Interruption::Cancel);
    let slow_hook =
        hark_webhook::webhook_tool("lookup_order", "Look up an order.", hooks.url("/slow"))
            .input::<OrderArgs>()
            .output_done()
            .allow_private_network(true)
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap()
            .interruption(Interruption::Continue);
    let bg_hook = hark_webhook::webhook_tool("notify_crm", "Note the call.", hooks.url("/bg"))
        .input::<NoteArgs>()
        .wait_for_response(false)
        .output_accepted()
        .allow_private_network(true)
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let registry = ToolRegistry::new(vec![hold_local, slow_hook, bg_hook]).unwrap();
    let events: Events = Arc::default();
    let seen = events.clone();
    registry.listen(Arc::new(move |e: &ToolEvent| {
        seen.lock().unwrap().push(e.clone());
        Ok(())
    }));
    let drain = BackgroundDrain::new();
    let agent = VoiceAgentConfig::new(provider.clone(), "m", "You help.", Arc::new(registry))
        .background_drain(drain.clone());

    // A UI event `start_group` makes the app run a job group to the `stuck` peer, as an app's
    // event handler would; it finds its session's job groups through the factory.
    let factory_slot: Arc<OnceLock<Weak<UiHandlerFactory>>> = Arc::default();
    let slot = factory_slot.clone();
    let config = UiSessionConfig::new()
        .voice_agent(agent)
        .respond(provider, "m")
        .peer_worker("stuck", Arc::new(Stuck(peer.clone())))
        .on_event("start_group", move |worker: Arc<UiWorker>, _event| {
            let groups = slot
                .get()
                .and_then(Weak::upgrade)
                .and_then(|f| groups_of(&f, &worker));
            async move {
                if let Some(groups) = groups {
                    let params = JobGroupParams::new("check_stock", json!({})).cancellable(true);
                    let _ = groups.run(&["stuck"], params).await;
                }
            }
        });
    let factory = Arc::new(UiHandlerFactory::new(config).unwrap());
    factory_slot.set(Arc::downgrade(&factory)).unwrap();
    let server = TestServer::start_with(
        ServerConfig::with_addr("127.0.0.1:0".parse().unwrap()),
        Some(factory.clone()),
    );
    Rig {
        llm,
        hooks,
        server,
        factory,
        drain,
        events,
        tool,
        peer,
    }
}

/// The job groups of the session whose worker is `worker` (no `UiSession` clone is kept).
fn groups_of(factory: &UiHandlerFactory, worker: &Arc<UiWorker>) -> Option<Arc<JobGroups>> {
    factory
        .session_ids()
        .into_iter()
        .filter_map(|id| factory.session(id))
        .find(|s| Arc::ptr_eq(s.worker(), worker))
        .map(|s| s.job_groups().clone())
}

/// Opens a session and does the handshake; returns the socket and the session id.
async fn open(
    rig: &Rig,
    events: &mut broadcast::Receiver<hark_server::SessionEvent>,
) -> (Ws, SessionId) {
    let mut ws = connect(&rig.server).await;
    handshake(&mut ws, "r1").await;
    let id = wait_ready(events).await;
    (ws, id)
}

async fn say(ws: &mut Ws, text: &str) {
    send_json(ws, &envelope("send-text", "t1", json!({"content": text}))).await;
}

/// Drops the client: with a close frame (and the close handshake), or by closing the TCP
/// connection with none.
async fn drop_client(mut ws: Ws, close_frame: bool) {
    if close_frame {
        ws.close(None).await.expect("send the close frame");
        // Read to the end of the closing handshake.
        let _ = tokio::time::timeout(STEP, async { while ws.next().await.is_some() {} }).await;
    } else {
        drop(ws);
    }
}

/// Waits for the session's `Closed` event and returns its cause.
async fn closed(
    events: &mut broadcast::Receiver<hark_server::SessionEvent>,
    id: SessionId,
) -> CloseCause {
    wait_for(events, |e| match &e.kind {
        SessionEventKind::Closed(c) if e.session == id => Some(c.clone()),
        _ => None,
    })
    .await
}

/// Polls `done` (every 20 ms, guarded by [`STEP`]): for states with no event to await.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    tokio::time::timeout(STEP, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} in time"));
}

/// The sink events of `tool`, as stage names (with the error text of a failure).
fn stages(events: &Events, tool: &str) -> Vec<String> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.tool == tool)
        .map(|e| match &e.error {
            Some(err) => format!("{}:{err}", e.stage.as_str()),
            None => e.stage.as_str().to_string(),
        })
        .collect()
}

/// Every call of every tool has exactly one `tool.started` and one end event.
fn one_end_per_start(events: &Events) {
    let mut per_tool: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for e in events.lock().unwrap().iter() {
        let slot = per_tool.entry(e.tool.clone()).or_default();
        match e.stage {
            ToolStage::Started => slot.0 += 1,
            ToolStage::Succeeded | ToolStage::Failed => slot.1 += 1,
            _ => {}
        }
    }
    for (tool, (started, ended)) in per_tool {
        assert_eq!(started, ended, "{tool}: {started} started, {ended} ended");
    }
}

/// The session's work is gone: not in the server's nor the factory's registry, and its agent,
/// turns and background work have ended.
async fn session_gone(rig: &Rig, id: SessionId) {
    eventually("the session's agent, turns and background work end", || {
        rig.drain.calls() == 0
            && !rig.server.sessions.ids().contains(&id)
            && !rig.factory.session_ids().contains(&id)
    })
    .await;
}

/// A new client afterwards: a text turn is answered normally.
async fn new_client_works(rig: &Rig, events: &mut broadcast::Receiver<hark_server::SessionEvent>) {
    let (mut ws, _) = open(rig, events).await;
    say(&mut ws, "are you there?").await;
    let mut said = Vec::new();
    loop {
        let m = recv_json(&mut ws).await;
        if m["type"] == "bot-tts-text" {
            said.push(m["data"]["text"].as_str().unwrap().to_string());
        }
        if m["type"] == "bot-llm-stopped" {
            break;
        }
    }
    assert_eq!(said, ["Still here."]);
    assert_alive(&mut ws, "p1").await;
    drop_client(ws, true).await;
}

async fn mid_local_tool_call(close_frame: bool) {
    let rig = rig(vec![
        Turn::tool_call("c1", "hold_local", json!({"what": "stock"})),
        Turn::text_reply(&["Still here."]),
    ])
    .await;
    let mut events = rig.server.sessions.subscribe();
    let (mut ws, id) = open(&rig, &mut events).await;
    say(&mut ws, "check the stock").await;
    Held::wait(&rig.tool.started, "hold_local started", 1).await;

    drop_client(ws, close_frame).await;
    assert_eq!(closed(&mut events, id).await, CloseCause::ClientGone);
    // `cancel`: the tool is cancelled, exactly once, and never finishes.
    Held::wait(&rig.tool.dropped, "hold_local cancelled", 1).await;
    session_gone(&rig, id).await;
    eventually("the cancelled call's one end event", || {
        stages(&rig.events, "hold_local").len() == 2
    })
    .await;
    assert_eq!(
        stages(&rig.events, "hold_local"),
        ["tool.started", "tool.failed:cancelled"]
    );
    assert_eq!(*rig.tool.started.borrow(), 1);
    assert_eq!(*rig.tool.dropped.borrow(), 1);
    assert_eq!(rig.tool.finished.load(Ordering::SeqCst), 0);

    new_client_works(&rig, &mut events).await;
    assert_eq!(rig.llm.requests().len(), 2, "no model turn after the drop");
    one_end_per_start(&rig.events);
    rig.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_drop_without_close_frame_mid_local_tool_cancels_it_once() {
    mid_local_tool_call(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_close_frame_mid_local_tool_cancels_it_once() {
    mid_local_tool_call(true).await;
}

async fn mid_webhook_call(close_frame: bool) {
    let both = Turn::stream()
        .tool_call_start(0, "c1", "notify_crm")
        .tool_call_args(0, r#"{"n": 1}"#)
        .tool_call_start(1, "c2", "lookup_order")
        .tool_call_args(1, r#"{"order": "A1"}"#)
        .finish("tool_calls")
        .done();
    let rig = rig(vec![both, Turn::text_reply(&["Still here."])]).await;
    let mut events = rig.server.sessions.subscribe();
    let (mut ws, id) = open(&rig, &mut events).await;
    say(&mut ws, "where is my order?").await;
    rig.hooks
        .wait_for("both webhooks in flight", |h| {
            h.arrived("/slow") == 1 && h.arrived("/bg") == 1
        })
        .await;

    drop_client(ws, close_frame).await;
    assert_eq!(closed(&mut events, id).await, CloseCause::ClientGone);
    // The calls are still in flight after the session ended; now their answers come.
    assert_eq!(rig.hooks.answered("/slow") + rig.hooks.answered("/bg"), 0);
    rig.hooks.release();
    rig.hooks
        .wait_for("both webhooks answered", |h| {
            h.answered("/slow") == 1 && h.answered("/bg") == 1
        })
        .await;
    // `continue`: the webhook call finished and its one result reached the sinks.
    eventually("lookup_order's one end event", || {
        stages(&rig.events, "lookup_order").len() == 2
    })
    .await;
    assert_eq!(
        stages(&rig.events, "lookup_order"),
        ["tool.started", "tool.succeeded"]
    );
    assert_eq!(
        stages(&rig.events, "notify_crm"),
        ["tool.started", "tool.succeeded"]
    );
    session_gone(&rig, id).await;
    assert_eq!(rig.drain.running(), 0);

    new_client_works(&rig, &mut events).await;
    assert_eq!(rig.hooks.arrived("/slow"), 1, "nothing sent twice");
    assert_eq!(rig.hooks.arrived("/bg"), 1, "nothing sent twice");
    assert_eq!(rig.llm.requests().len(), 2, "no model turn after the drop");
    one_end_per_start(&rig.events);
    rig.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_drop_without_close_frame_mid_webhook_lets_it_finish_once() {
    mid_webhook_call(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_close_frame_mid_webhook_lets_it_finish_once() {
    mid_webhook_call(true).await;
}

/// The user talked over a `continue` webhook call (a new text interrupted its turn), the next
/// turn ended, and the client drops while that webhook is still running: its one result still
/// reaches the sinks when it finishes, and no turn starts for it in the dead session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_drop_while_an_interrupted_continue_call_runs_keeps_its_one_result() {
    let rig = rig(vec![
        Turn::tool_call("c1", "lookup_order", json!({"order": "A1"})),
        Turn::text_reply(&["Okay, what else?"]),
        Turn::text_reply(&["Still here."]),
    ])
    .await;
    let mut events = rig.server.sessions.subscribe();
    let (mut ws, id) = open(&rig, &mut events).await;
    say(&mut ws, "where is my order?").await;
    rig.hooks
        .wait_for("the webhook in flight", |h| h.arrived("/slow") == 1)
        .await;
    // The user talks over it: the call keeps running (`continue`), the next turn answers.
    say(&mut ws, "never mind").await;
    loop {
        let m = recv_json(&mut ws).await;
        if m["type"] == "bot-tts-text" && m["data"]["text"] == "Okay, what else?" {
            break;
        }
    }
    drop_client(ws, false).await;
    assert_eq!(closed(&mut events, id).await, CloseCause::ClientGone);
    assert_eq!(stages(&rig.events, "lookup_order"), ["tool.started"]);
    rig.hooks.release();
    eventually("lookup_order's one end event", || {
        stages(&rig.events, "lookup_order").len() == 2
    })
    .await;
    assert_eq!(
        stages(&rig.events, "lookup_order"),
        ["tool.started", "tool.succeeded"]
    );
    session_gone(&rig, id).await;
    new_client_works(&rig, &mut events).await;
    assert_eq!(
        rig.llm.requests().len(),
        3,
        "no model turn in the dead session"
    );
    one_end_per_start(&rig.events);
    rig.server.stop().await;
}

/// Mid `respond` job: the voice model asked the screen (`ask_screen`, a `continue` tool); the
/// UI worker's respond job is waiting for its LLM when the client drops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_drop_mid_respond_job_ends_the_job_and_frees_the_worker() {
    let rig = rig(vec![
        Turn::tool_call("c1", "ask_screen", json!({"query": "what is in the cart?"})),
        // The respond job's LLM: slow to answer, so the drop comes first.
        Turn::text_reply(&["Two mugs."]).delayed(Duration::from_secs(3)),
        // The next session: the same question, answered.
        Turn::tool_call("c2", "ask_screen", json!({"query": "what is in the cart?"})),
        Turn::text_reply(&["One mug."]),
        Turn::text_reply(&["You have one mug."]),
    ])
    .await;
    let mut events = rig.server.sessions.subscribe();
    let (mut ws, id) = open(&rig, &mut events).await;
    say(&mut ws, "what is in my cart?").await;
    eventually("the respond job's LLM request", || {
        rig.llm.requests().len() == 2
    })
    .await;
    drop_client(ws, false).await;
    assert_eq!(closed(&mut events, id).await, CloseCause::ClientGone);

    // The respond job runs to its answer (`continue`), then everything of the session ends.
    eventually("ask_screen's one end event", || {
        stages(&rig.events, "ask_screen").len() == 2
    })
    .await;
    assert_eq!(
        stages(&rig.events, "ask_screen"),
        ["tool.started", "tool.succeeded"]
    );
    session_gone(&rig, id).await;

    // A new session asks the screen again: its respond job is served.
    let (mut ws, _) = open(&rig, &mut events).await;
    say(&mut ws, "and now?").await;
    let said = loop {
        let m = recv_json(&mut ws).await;
        if m["type"] == "bot-tts-text" {
            break m["data"]["text"].as_str().unwrap().to_string();
        }
    };
    assert_eq!(said, "You have one mug.");
    assert_eq!(rig.llm.requests().len(), 5);
    drop_client(ws, true).await;
    one_end_per_start(&rig.events);
    rig.server.stop().await;
}

/// Mid job group: the app's handler of a UI event runs a job group to a peer that never
/// answers; the client drops; the group is torn down and the peer's job ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_drop_mid_job_group_tears_the_group_down() {
    let rig = rig(vec![Turn::text_reply(&["Still here."])]).await;
    for close_frame in [false, true] {
        let mut events = rig.server.sessions.subscribe();
        let (mut ws, id) = open(&rig, &mut events).await;
        let groups = rig
            .factory
            .session(id)
            .map(|s| s.job_groups().clone())
            .expect("running");
        send_json(
            &mut ws,
            &envelope(
                "ui-event",
                "e1",
                json!({"event": "start_group", "payload": {}}),
            ),
        )
        .await;
        let started = loop {
            let m = recv_json(&mut ws).await;
            if m["type"] == "ui-job-group" {
                break m;
            }
        };
        assert_eq!(started["data"]["kind"], "group_started", "{started}");
        let n = if close_frame { 2 } else { 1 };
        Held::wait(&rig.peer.started, "the peer's job started", n).await;
        assert_eq!(groups.running().len(), 1);

        drop_client(ws, close_frame).await;
        assert_eq!(closed(&mut events, id).await, CloseCause::ClientGone);
        Held::wait(&rig.peer.dropped, "the peer's job torn down", n).await;
        eventually("the group ends", || groups.running().is_empty()).await;
        session_gone(&rig, id).await;
        assert_eq!(rig.peer.finished.load(Ordering::SeqCst), 0);
    }
    let mut events = rig.server.sessions.subscribe();
    new_client_works(&rig, &mut events).await;
    rig.server.stop().await;
}

/// One connect, handshake, text turn, drop.
async fn cycle(rig: &Rig, events: &mut broadcast::Receiver<hark_server::SessionEvent>, i: usize) {
    rig.llm.push(Turn::text_reply(&["Hello there."]));
    let (mut ws, id) = open(rig, events).await;
    say(&mut ws, "hello").await;
    loop {
        let m = recv_json(&mut ws).await;
        if m["type"] == "bot-llm-stopped" {
            break;
        }
    }
    drop_client(ws, i.is_multiple_of(2)).await;
    assert_eq!(closed(events, id).await, CloseCause::ClientGone);
}

/// Memory guard: 200 cycles of connect, handshake, one text turn, drop (every other one with
/// a close frame). The RSS after is within 20 MiB of the RSS after a warm-up (a leak of even
/// 100 KiB per session would break it). Prints the figures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_drop_cycles_return_memory_to_baseline() {
    const WARMUP: usize = 20;
    const CYCLES: usize = 200;
    let rig = rig(Vec::new()).await;
    let mut events = rig.server.sessions.subscribe();
    for i in 0..WARMUP {
        cycle(&rig, &mut events, i).await;
    }
    eventually("warm-up sessions gone", || rig.drain.calls() == 0).await;
    let before = rss_kib();
    let tasks_before = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    for i in 0..CYCLES {
        cycle(&rig, &mut events, i).await;
    }
    eventually("every session gone", || {
        rig.drain.calls() == 0 && rig.server.sessions.ids().is_empty()
    })
    .await;
    let after = rss_kib();
    let tasks_after = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    eprintln!(
        "figure: {CYCLES} connect-turn-drop cycles: RSS {before} KiB before, {after} KiB after \
         ({:+} KiB); alive tokio tasks {tasks_before} before, {tasks_after} after",
        after as i64 - before as i64
    );
    assert!(
        after < before + 20 * 1024,
        "RSS grew from {before} KiB to {after} KiB over {CYCLES} sessions"
    );
    one_end_per_start(&rig.events);
    rig.server.stop().await;
}
