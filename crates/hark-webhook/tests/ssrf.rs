//! SSRF attempts, tried as an attacker would: every spelling of a loopback, private or metadata
//! address, by URL and by redirect, is refused before a byte reaches it.
//!
//! Proof of "no byte sent": a loopback listener ([`common::Recorder`]) records every connection;
//! after all attempts it must have seen none but our own sentinel. A positive control shows the
//! same listener does see a connection when the network is allowed.

mod common;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::any;
use common::{Recorder, serve, test_client};
use hark_tools::{ToolContext, ToolExecutor};
use hark_webhook::{GuardRefusal, SendError, WebhookClient, WebhookRequest, webhook_tool};
use reqwest::header::HeaderMap;
use serde_json::Map;

/// Direct URLs; `{P}` is the recorder's port. Each is refused when the tool is built, and again
/// by the client at send time (for the ones that parse).
const DIRECT: &[&str] = &[
    "https://127.0.0.1:{P}/",
    "https://2130706433:{P}/",
    "https://0177.0.0.1:{P}/",
    "https://0x7f.1:{P}/",
    "https://0x7f000001:{P}/",
    "https://0x7F.0.0.1:{P}/",
    "https://0x7f.0x0.0x0.0x1:{P}/",
    "https://017700000001:{P}/",
    "https://0177.1:{P}/",
    "https://127.000.000.001:{P}/",
    "https://127.1:{P}/",
    "https://127.0.1:{P}/",
    "https://127.127.127.127:{P}/",
    "https://127.0.0.1.:{P}/",
    "https://0x7f.1.:{P}/",
    "https://%31%32%37.0.0.1:{P}/",
    "https://127.0.0.1%2e:{P}/",
    "https://１２７.０.０.１:{P}/",
    "https://①②⑦.0.0.1:{P}/",
    "HTTPS://127.0.0.1:{P}/",
    "https://0:{P}/",
    "https://0.0.0.0:{P}/",
    "https://0.0.0.0.:{P}/",
    "https://[::1]:{P}/",
    "https://[0:0:0:0:0:0:0:1]:{P}/",
    "https://[0000::1]:{P}/",
    "https://[::]:{P}/",
    "https://[::ffff:127.0.0.1]:{P}/",
    "https://[::ffff:7f00:1]:{P}/",
    "https://[::FFFF:127.0.0.1]:{P}/",
    "https://[::127.0.0.1]:{P}/",
    "https://[::ffff:0:127.0.0.1]:{P}/",
    "https://[64:ff9b::127.0.0.1]:{P}/",
    "https://[2002:7f00:1::]:{P}/",
    "https://[fe80::1%25eth0]:{P}/",
    "https://[::1%25lo]:{P}/",
    "https://[fe80::1]:{P}/",
    "https://localhost:{P}/",
    "https://LOCALHOST:{P}/",
    "https://localhost.:{P}/",
    "https://sub.localhost:{P}/",
    "https://mapped.test:{P}/",
    "https://rebind.test:{P}/",
    "https://zero.test:{P}/",
    "https://v6zero.test:{P}/",
    "https://internal.test/",
    "https://cgnat.test/",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://2852039166/latest/meta-data/",
    "https://0xa9fea9fe/latest/meta-data/",
    "https://0251.0376.0251.0376/latest/meta-data/",
    "https://169.254.43518/latest/meta-data/",
    "https://[::ffff:169.254.169.254]/latest/meta-data/",
    "https://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "https://[fd00:ec2::254]/latest/meta-data/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://100.100.100.200/latest/meta-data/",
    "https://10.0.0.1/",
    "https://172.16.0.1/",
    "https://192.168.0.1/",
    "https://100.64.0.1/",
    "https://192.0.2.1/",
    "https://198.18.0.1/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[ff02::1]/",
    "https://[2001:db8::1]/",
    "https://[2001::1]/",
    "https://127.0.0.1:{P}@public.test/",
    "https://user:pass@127.0.0.1:{P}/",
];

/// Redirect targets, served as `Location` by a "public" server at `public.test`.
const REDIRECTS: &[&str] = &[
    "http://127.0.0.1:{P}/",
    "http://localhost:{P}/",
    "http://LOCALHOST.:{P}/",
    "http://2130706433:{P}/",
    "http://0x7f.1:{P}/",
    "http://0177.0.0.1:{P}/",
    "http://127.1:{P}/",
    "http://0:{P}/",
    "http://%31%32%37.0.0.1:{P}/",
    "http://[::1]:{P}/",
    "http://[::ffff:127.0.0.1]:{P}/",
    "http://[::127.0.0.1]:{P}/",
    "//127.0.0.1:{P}/scheme-relative",
    "http://mapped.test:{P}/",
    "http://rebind.test:{P}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://10.0.0.1/",
    "ftp://127.0.0.1:{P}/",
    "file:///etc/passwd",
];

fn fill(template: &str, port: u16) -> String {
    template.replace("{P}", &port.to_string())
}

fn get(url: url::Url) -> WebhookRequest {
    WebhookRequest {
        method: reqwest::Method::GET,
        url,
        headers: HeaderMap::new(),
        body: None,
        same_origin_redirects: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_direct_spelling_is_refused_before_a_byte_is_sent() {
    let recorder = Recorder::start().await;
    let client = test_client();
    let mut leaks = Vec::new();
    for template in DIRECT {
        let url = fill(template, recorder.port);
        // 1. At build: a literal in a refused range, user info or an unreadable URL fails; a
        //    name passes (it is checked when it resolves).
        let built = webhook_tool("probe", "Probe.", url.clone())
            .output_done()
            .client(client.clone())
            .build_executor();
        match built {
            Err(error) => {
                let text = error.to_string();
                assert!(
                    text.contains("is ")
                        || text.contains("cannot be read")
                        || text.contains("user info"),
                    "{url}: unexpected build error {text}"
                );
            }
            Ok(executor) => {
                // 2. At call time: the name resolves only to refused addresses.
                let result = executor.run(Map::new(), &ToolContext::default()).await;
                match result {
                    Err(e) if e.event_text() == "address refused" => {}
                    other => leaks.push(format!("{url}: executor gave {other:?}")),
                }
            }
        }
        // 3. The client alone (what a redirect or a later caller meets) refuses it too.
        if let Ok(parsed) = url::Url::parse(&url) {
            match client
                .send(get(parsed), std::time::Duration::from_secs(5))
                .await
            {
                Err(SendError::Refused(_)) => {}
                other => leaks.push(format!("{url}: client gave {other:?}")),
            }
        }
    }
    assert!(leaks.is_empty(), "leaks:\n{}", leaks.join("\n"));
    assert_eq!(
        recorder.connections_before_sentinel().await,
        0,
        "a connection reached loopback"
    );
}

async fn redirect_to(
    State(targets): State<Arc<Vec<String>>>,
    Path(i): Path<usize>,
) -> impl IntoResponse {
    (StatusCode::FOUND, [(header::LOCATION, targets[i].clone())])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_redirect_to_a_private_address_is_refused_before_a_byte_is_sent() {
    let recorder = Recorder::start().await;
    let targets: Vec<String> = REDIRECTS.iter().map(|t| fill(t, recorder.port)).collect();
    let app = Router::new()
        .route("/go/{i}", any(redirect_to))
        .with_state(Arc::new(targets.clone()));
    let port = serve(app).await;
    let client = test_client();
    let mut leaks = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        let executor = webhook_tool(
            "probe",
            "Probe.",
            format!("http://public.test:{port}/go/{i}"),
        )
        .output_done()
        .client(client.clone())
        .build_executor()
        .unwrap();
        match executor.run(Map::new(), &ToolContext::default()).await {
            Err(e) if e.event_text() == "address refused" => {}
            // reqwest never follows a non-http(s) Location (the policy is not even asked): the
            // 302 itself comes back as an error answer, and nothing was fetched.
            Err(e) if target.starts_with("file:") && e.event_text() == "HTTP 302" => {}
            other => leaks.push(format!("redirect to {target}: {other:?}")),
        }
    }
    assert!(leaks.is_empty(), "leaks:\n{}", leaks.join("\n"));
    assert_eq!(
        recorder.connections_before_sentinel().await,
        0,
        "a redirect reached loopback"
    );
}

#[test]
fn at_least_sixty_attempts() {
    assert!(
        DIRECT.len() + REDIRECTS.len() >= 60,
        "{}",
        DIRECT.len() + REDIRECTS.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorder_sees_a_connection_when_the_network_is_allowed() {
    // Positive control: without it, "no connection" could mean a broken recorder.
    let recorder = Recorder::start().await;
    let executor = webhook_tool(
        "probe",
        "Probe.",
        format!("http://127.0.0.1:{}/", recorder.port),
    )
    .output_done()
    .allow_private_network(true)
    .build_executor()
    .unwrap();
    let result = executor.run(Map::new(), &ToolContext::default()).await;
    assert_eq!(result.unwrap_err().event_text(), "unreachable");
    assert_eq!(recorder.connections_before_sentinel().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_public_host_is_followed() {
    // Control for the redirect test: the same server and guard follow an allowed hop.
    let app = Router::new()
        .route(
            "/go",
            any(|| async { (StatusCode::FOUND, [(header::LOCATION, "/ok")]) }),
        )
        .route(
            "/ok",
            any(|| async { axum::Json(serde_json::json!({"ok": true, "hop": 1})) }),
        );
    let port = serve(app).await;
    let executor = webhook_tool("probe", "Probe.", format!("http://public.test:{port}/go"))
        .output_done()
        .client(test_client())
        .build_executor()
        .unwrap();
    let value = executor
        .run(Map::new(), &ToolContext::default())
        .await
        .unwrap();
    assert_eq!(value["hop"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hop_limit_stops_a_redirect_chain() {
    // /chain/n redirects to /chain/n-1 until 0, which answers.
    async fn chain(Path(n): Path<u32>) -> axum::response::Response {
        if n == 0 {
            axum::Json(serde_json::json!({"ok": true})).into_response()
        } else {
            (
                StatusCode::FOUND,
                [(header::LOCATION, format!("/chain/{}", n - 1))],
            )
                .into_response()
        }
    }
    let port = serve(Router::new().route("/chain/{n}", any(chain))).await;
    let client = test_client();
    let run = |hops: u32| {
        let executor = webhook_tool(
            "probe",
            "Probe.",
            format!("http://public.test:{port}/chain/{hops}"),
        )
        .output_done()
        .client(client.clone())
        .build_executor()
        .unwrap();
        async move { executor.run(Map::new(), &ToolContext::default()).await }
    };
    assert!(
        run(5).await.is_ok(),
        "five redirects are within the default limit"
    );
    let error = run(6).await.unwrap_err();
    assert_eq!(error.event_text(), "too many redirects");
    assert_eq!(
        error.model_text(),
        "probe failed: the webhook redirected more than 5 times. Do not claim success."
    );
    // The client with a custom limit.
    let strict = WebhookClient::new(common::test_guard().with_max_redirects(0)).unwrap();
    let url = url::Url::parse(&format!("http://public.test:{port}/chain/1")).unwrap();
    assert_eq!(
        strict
            .send(get(url), std::time::Duration::from_secs(5))
            .await,
        Err(SendError::Refused(GuardRefusal::TooManyRedirects(0)))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_production_guard_refuses_plain_http_and_loopback_names() {
    // NetworkGuard::new() without the test seam: http is refused, and the system resolver's
    // answer for localhost is filtered.
    let recorder = Recorder::start().await;
    let client = WebhookClient::new(hark_webhook::NetworkGuard::new()).unwrap();
    let http = url::Url::parse(&format!("http://localhost:{}/", recorder.port)).unwrap();
    assert_eq!(
        client
            .send(get(http), std::time::Duration::from_secs(5))
            .await,
        Err(SendError::Refused(GuardRefusal::Scheme("http".into())))
    );
    let https = url::Url::parse(&format!("https://localhost:{}/", recorder.port)).unwrap();
    assert!(matches!(
        client
            .send(get(https), std::time::Duration::from_secs(5))
            .await,
        Err(SendError::Refused(GuardRefusal::Address(_)))
    ));
    assert_eq!(recorder.connections_before_sentinel().await, 0);
}
