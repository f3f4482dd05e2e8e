//! `/favicon.ico`: every browser opening the demo page asks for it; the
//! server answers 204 No Content (no icon, no 404 in the browser's console or the log) unless
//! the web directory has its own `favicon.ico`, which is served as it is. Real HTTP requests to a
//! real server on loopback.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use hark_server::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A `GET path` with `Connection: close`; the whole answer, head and body.
async fn get(server: &TestServer, path: &str) -> String {
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(STEP, tcp.read_to_end(&mut out))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8(out).expect("a text answer")
}

/// The status code of an HTTP/1.1 answer.
fn status(answer: &str) -> u16 {
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer:?}"))
}

/// The body of an HTTP/1.1 answer (after the blank line).
fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// A fresh web directory holding `index.html` (and `favicon.ico` when given).
fn web_dir(tag: &str, favicon: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hark-favicon-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>demo</title>").unwrap();
    if let Some(icon) = favicon {
        std::fs::write(dir.join("favicon.ico"), icon).unwrap();
    }
    dir
}

fn serving(dir: Option<&Path>) -> TestServer {
    TestServer::start(ServerConfig {
        web_dir: dir.map(Path::to_path_buf),
        ..ServerConfig::with_addr("127.0.0.1:0".parse().unwrap())
    })
}

#[tokio::test]
async fn the_demo_page_s_favicon_request_gets_204_and_other_missing_files_still_404() {
    let dir = web_dir("none", None);
    let server = serving(Some(&dir));
    let page = get(&server, "/").await;
    assert_eq!(status(&page), 200, "{page}");
    assert!(body(&page).contains("<title>demo</title>"), "{page}");

    let icon = get(&server, "/favicon.ico").await;
    assert_eq!(status(&icon), 204, "{icon}");
    assert_eq!(body(&icon), "", "{icon}");
    assert!(
        icon.to_ascii_lowercase()
            .contains("cache-control: public, max-age=86400"),
        "{icon}"
    );

    // Only the favicon is answered this way: another missing file is still a 404.
    assert_eq!(status(&get(&server, "/missing.png").await), 404);
    assert_eq!(status(&get(&server, "/favicon.ico.bak").await), 404);
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_favicon_in_the_web_directory_is_served_as_it_is() {
    let dir = web_dir("own", Some("ICON-BYTES"));
    let server = serving(Some(&dir));
    let icon = get(&server, "/favicon.ico").await;
    assert_eq!(status(&icon), 200, "{icon}");
    assert_eq!(body(&icon), "ICON-BYTES", "{icon}");
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn without_a_web_directory_the_favicon_request_gets_204_too() {
    let server = serving(None);
    assert_eq!(status(&get(&server, "/").await), 200);
    let icon = get(&server, "/favicon.ico").await;
    assert_eq!(status(&icon), 204, "{icon}");
    assert_eq!(body(&icon), "", "{icon}");
    server.stop().await;
}
