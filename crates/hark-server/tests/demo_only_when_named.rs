//! The demo shop stays out of a user's own agent file: `hark serve --agent FILE` and `hark check
//! FILE` start the demo's order service and build with the demo's host only when the file uses
//! the demo (a `[tools] local` tool or `${HARK_DEMO_ORDERS_URL}`); `--demo` and the demo's agent
//! files keep both.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HARK: &str = env!("CARGO_BIN_EXE_hark");

/// The log line the demo's order service writes when it starts.
const ORDERS_LINE: &str = "the demo's order service is listening";

const USER_FILE: &str = r#"
name = "desk"
system_prompt = "You answer for the front desk."

[tools]
builtin = ["end_call"]
goodbye = "Goodbye!"
"#;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn user_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hark-demo-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("desk.toml");
    std::fs::write(&path, USER_FILE).unwrap();
    path
}

/// `hark check FILE` with info logs: stdout and stderr.
fn check(file: &str) -> (String, String) {
    let out = Command::new(HARK)
        .args(["check", file])
        .current_dir(root())
        .env_remove("OPENAI_API_KEY")
        .env("RUST_LOG", "info")
        .output()
        .expect("run hark check");
    assert!(out.status.success(), "hark check {file}: {}", out.status);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `hark serve` with `args` on a free port: its log lines up to the one naming the agent's mode
/// (logged once the server listens), then the child is stopped.
fn serve_start_log(args: &[&str]) -> Vec<String> {
    let mut child = Command::new(HARK)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .current_dir(root())
        .env_remove("OPENAI_API_KEY")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hark");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            let _ = child.kill();
            panic!("hark serve {args:?} did not log its mode: {lines:#?}");
        };
        let done = line.contains("offline screen mode") || line.contains("voice agent");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_builds_a_users_file_without_the_demo() {
    let path = user_file();
    let served = hark_server::serve::agent_sessions(Some(&path))
        .await
        .expect("the file builds");
    assert!(served.shop.is_none(), "no demo shop for a user's file");
    assert_eq!(served.agent, "desk");

    let demo = hark_server::serve::agent_sessions(None)
        .await
        .expect("the demo's file builds");
    assert!(demo.shop.is_some(), "--demo runs the demo shop");
}

#[test]
fn hark_serve_agent_does_not_start_the_order_service_for_a_users_file() {
    let path = user_file();
    let log = serve_start_log(&["--agent", path.to_str().unwrap()]);
    assert!(
        !log.iter().any(|l| l.contains(ORDERS_LINE)),
        "the order service started for a user's file: {log:#?}"
    );
    let log = serve_start_log(&["--agent", "examples/shop.toml"]);
    assert!(
        log.iter().any(|l| l.contains(ORDERS_LINE)),
        "the demo's own file starts it: {log:#?}"
    );
    let log = serve_start_log(&["--demo", "--web-dir", "/nonexistent-hark-page"]);
    assert!(
        log.iter().any(|l| l.contains(ORDERS_LINE)),
        "--demo starts it: {log:#?}"
    );
}

#[test]
fn hark_check_builds_a_users_file_without_the_demos_host() {
    let path = user_file();
    let shown = path.display().to_string();
    let (out, err) = check(&shown);
    assert_eq!(
        out,
        format!("{shown}: ok, 1 tool, LLM none, UI worker on (local classifier)\n")
    );
    assert!(!err.contains(ORDERS_LINE), "{err}");

    let (_, err) = check("examples/shop.toml");
    assert!(err.contains(ORDERS_LINE), "the demo's file uses it: {err}");
    let (_, err) = check("examples/booking.toml");
    assert!(
        err.contains(ORDERS_LINE),
        "the booking file names book_table: {err}"
    );
}

/// A user's file that names a local tool the `hark` binary does not provide still reads the
/// binary's catalogue (the demo's) in its problem, as before.
#[test]
fn a_misspelt_local_tool_still_lists_the_catalogue() {
    let dir = std::env::temp_dir().join(format!("hark-demo-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.toml");
    std::fs::write(
        &path,
        "system_prompt = \"Hi.\"\n\n[tools]\nlocal = [\"serch_products\"]\n",
    )
    .unwrap();
    let out = Command::new(HARK)
        .args(["check", path.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.contains("Its local tools are: add_to_cart, book_table, cart_total, place_order, search_products."),
        "{out}"
    );
}
