//! A session id (`call.session_id`, the `id=` of every session log line) is
//! not a per-process counter: a server started again, or another one, gives new ids, so a
//! webhook keyed on it never sees one twice. Ids stay short in logs.

mod common;

use common::{STEP, TestServer, connect, handshake, wait_ready};

/// Starts a server, opens `n` sessions, stops it; returns the ids in the order they opened.
async fn ids_of_one_run(n: usize) -> Vec<String> {
    let server = TestServer::local();
    let mut events = server.sessions.subscribe();
    let mut ids = Vec::new();
    let mut sockets = Vec::new();
    for i in 0..n {
        let mut ws = connect(&server).await;
        handshake(&mut ws, &format!("h{i}")).await;
        let id = tokio::time::timeout(STEP, wait_ready(&mut events))
            .await
            .expect("ready in time");
        ids.push(id.to_string());
        sockets.push(ws);
    }
    assert_eq!(
        server
            .sessions
            .ids()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ids,
        "Sessions::ids lists the open sessions oldest first"
    );
    drop(sockets);
    server.stop().await;
    ids
}

#[tokio::test]
async fn a_restarted_server_gives_new_session_ids() {
    let first = ids_of_one_run(3).await;
    let second = ids_of_one_run(3).await;
    for id in first.iter().chain(&second) {
        assert!(
            id.len() <= 14
                && id.starts_with('s')
                && id[1..]
                    .chars()
                    .all(|c| "0123456789abcdefghjkmnpqrstvwxyz".contains(c)),
            "{id}: s + at most 13 lowercase Crockford base32 digits"
        );
    }
    let mut all: Vec<&String> = first.iter().chain(&second).collect();
    all.sort();
    all.dedup();
    assert_eq!(
        all.len(),
        6,
        "no id repeats within a run or after a restart: {first:?} then {second:?}"
    );
}
