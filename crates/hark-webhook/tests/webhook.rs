//! Behaviour of webhook tools against real axum servers on loopback.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap as AxumHeaders, StatusCode, Uri};
use axum::routing::any;
use common::{serve, test_client};
use hark_tools::{
    CallHooks, CallInfo, CallState, CallStatus, CallType, Dialect, InMemorySpeech, LiveCall,
    Output, ToolContext, ToolExecutor, ToolRegistry,
};
use hark_webhook::{
    BodyShape, Method, TokenSource, Transcript, WebhookAuth, WebhookOptions, WebhookSigning,
    webhook_tool,
};
use hmac::{Hmac, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    uri: String,
    headers: AxumHeaders,
    body: Vec<u8>,
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    fn all(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }
}

async fn record(
    State(log): State<Log>,
    method: axum::http::Method,
    uri: Uri,
    headers: AxumHeaders,
    body: Bytes,
) -> Seen {
    let seen = Seen {
        method: method.to_string(),
        uri: uri.to_string(),
        headers,
        body: body.to_vec(),
    };
    log.0.lock().unwrap().push(seen.clone());
    seen
}

/// A server whose routes answer the way the tests need; every request is logged.
async fn server() -> (u16, Log) {
    let log = Log::default();
    let app = Router::new()
        .route(
            "/echo",
            any(|s: State<Log>, m: axum::http::Method, u: Uri, h: AxumHeaders, b: Bytes| async move {
                let seen = record(s, m, u, h, b).await;
                axum::Json(json!({"status": "shipped", "bytes": seen.body.len()}))
            }),
        )
        .route(
            "/fail",
            any(|s: State<Log>, m: axum::http::Method, u: Uri, h: AxumHeaders, b: Bytes| async move {
                record(s, m, u, h, b).await;
                (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(json!({"error": "Failed to add order"})))
            }),
        )
        .route("/empty", any(|| async { StatusCode::OK }))
        .route("/text", any(|| async { "hello, not json" }))
        .route(
            "/slow-headers",
            any(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                StatusCode::OK
            }),
        )
        .route(
            "/trickle",
            any(|| async {
                // One byte every 50 ms for 10 s: headers come at once, the body never ends in time.
                let stream = futures::stream::unfold(0u32, |i| async move {
                    if i >= 200 {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Some((Ok::<_, std::io::Error>(Bytes::from_static(b" ")), i + 1))
                });
                Body::from_stream(stream)
            }),
        )
        .route("/len-over-cap", any(|| async { vec![b'x'; 100 * 1024] }))
        .with_state(log.clone());
    (serve(app).await, log)
}

fn ctx() -> ToolContext {
    ToolContext::default()
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct OrderQuery {
    /// The order id the caller reads out.
    order_id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Order {
    status: String,
}

// ------------------------------------------------- a failed webhook never reads as a success

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t5_a_500_answer_reads_status_and_excerpt_and_never_succeeds() {
    let (port, log) = server().await;
    let tool = webhook_tool(
        "add_order",
        "Add an order.",
        format!("http://public.test:{port}/fail"),
    )
    .input::<OrderQuery>()
    .output::<Order>()
    .client(test_client())
    .build()
    .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let outcome = registry
        .call("add_order", r#"{"order_id": "A-12"}"#, &ctx())
        .await;
    assert_eq!(outcome.status, CallStatus::Failed);
    assert!(!outcome.succeeded());
    assert_eq!(
        outcome.model_result,
        json!({"error": "add_order failed: the webhook answered HTTP 500: error: Failed to add order. Do not claim success."})
    );
    // The events carry the status only, never the text the service sent.
    let error = outcome.error.unwrap();
    assert_eq!(error.event_text(), "HTTP 500");
    assert!(!error.event_text().contains("Failed to add order"));
    assert_eq!(log.all().len(), 1);
}

// ------------------------------------------------------------------------- bodies and GET

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_sends_the_arguments_and_returns_the_answer() {
    let (port, log) = server().await;
    let executor = webhook_tool(
        "lookup",
        "Look up.",
        format!("http://public.test:{port}/echo"),
    )
    .input::<OrderQuery>()
    .output::<Order>()
    .header("X-Tenant", "acme")
    .client(test_client())
    .build_executor()
    .unwrap();
    let value = executor
        .run(args(json!({"order_id": "A-12"})), &ctx())
        .await
        .unwrap();
    assert_eq!(value, json!({"status": "shipped", "bytes": 19}));
    let seen = &log.all()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.body, br#"{"order_id":"A-12"}"#.to_vec());
    assert_eq!(seen.headers["content-type"], "application/json");
    assert_eq!(seen.headers["x-tenant"], "acme");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_envelope_carries_the_call() {
    let (port, log) = server().await;
    let sent_at: jiff::Timestamp = "2026-10-15T09:30:00Z".parse().unwrap();
    let executor = webhook_tool(
        "notify_crm",
        "Tell the CRM.",
        format!("http://public.test:{port}/echo"),
    )
    .input::<OrderQuery>()
    .output_done()
    .body(BodyShape::Envelope)
    .method(Method::Put)
    .clock(Arc::new(move || sent_at))
    .client(test_client())
    .build_executor()
    .unwrap();
    let context = ToolContext {
        call: CallInfo {
            session_id: "s-42".into(),
            remote_number: Some("+14155550123".into()),
            carrier_call_id: Some("CA-9".into()),
            participant: None,
            call_type: CallType::Inbound,
            end_reason: None,
        },
        ..ToolContext::default()
    };
    executor
        .run(args(json!({"order_id": "A-12"})), &context)
        .await
        .unwrap();
    let seen = &log.all()[0];
    assert_eq!(seen.method, "PUT");
    let body: Value = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(
        body,
        json!({
            "tool": "notify_crm",
            "arguments": {"order_id": "A-12"},
            "call": {"session_id": "s-42", "remote_number": "+14155550123", "carrier_call_id": "CA-9", "call_type": "inbound"},
            "sent_at": "2026-10-15T09:30:00.000Z"
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_sends_the_arguments_as_query_values() {
    let (port, log) = server().await;
    let executor = webhook_tool("lookup", "Look up.", format!("http://public.test:{port}/echo?v=2"))
        .method(Method::Get)
        .parameters(json!({"type": "object", "properties": {"order_id": {"type": "string"}, "n": {"type": "integer"}}}))
        .output_json(Output::json("Any", json!({})))
        .client(test_client())
        .build_executor()
        .unwrap();
    executor
        .run(args(json!({"order_id": "A 12&x", "n": 3})), &ctx())
        .await
        .unwrap();
    let seen = &log.all()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.uri, "/echo?v=2&order_id=A+12%26x&n=3");
    assert!(seen.body.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_argument_that_clashes_with_a_query_value_is_refused_naming_it() {
    let (port, log) = server().await;
    let executor = webhook_tool(
        "lookup",
        "Look up.",
        format!("http://public.test:{port}/echo?v=2"),
    )
    .method(Method::Get)
    .parameters(json!({"type": "object", "additionalProperties": true}))
    .output_done()
    .client(test_client())
    .build_executor()
    .unwrap();
    let error = executor
        .run(args(json!({"v": "3"})), &ctx())
        .await
        .unwrap_err();
    assert!(error.is_refusal());
    assert_eq!(
        error.model_text(),
        "v clashes with a query value of the URL of lookup. Call lookup again without v."
    );
    assert!(log.all().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_answer_is_done_and_text_is_refused() {
    let (port, _) = server().await;
    let run = |path: &str| {
        let executor = webhook_tool("ping", "Ping.", format!("http://public.test:{port}/{path}"))
            .output_done()
            .client(test_client())
            .build_executor()
            .unwrap();
        async move { executor.run(Map::new(), &ctx()).await }
    };
    assert_eq!(run("empty").await.unwrap(), json!({"ok": true}));
    let error = run("text").await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "ping failed: the webhook answered HTTP 200 with a body that is not JSON. Do not claim success."
    );
    assert_eq!(error.event_text(), "HTTP 200");
}

// ------------------------------------------------------------------------- time and size

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_hit_the_one_deadline() {
    let (port, _) = server().await;
    let executor = webhook_tool(
        "slow",
        "Slow.",
        format!("http://public.test:{port}/slow-headers"),
    )
    .output_done()
    .timeout(Duration::from_millis(300))
    .client(test_client())
    .build_executor()
    .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "slow failed: the webhook did not answer within 0.3 seconds. Do not claim success."
    );
    assert_eq!(error.event_text(), "timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_trickles_past_the_deadline_fails() {
    // Headers arrive at once; the deadline still covers the body.
    let (port, _) = server().await;
    let executor = webhook_tool(
        "trickle",
        "Trickle.",
        format!("http://public.test:{port}/trickle"),
    )
    .output_done()
    .timeout(Duration::from_millis(400))
    .client(test_client())
    .build_executor()
    .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(error.event_text(), "timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mb_answer_is_stopped_at_the_cap() {
    let produced = Arc::new(AtomicUsize::new(0));
    let counter = produced.clone();
    let app = Router::new().route(
        "/big",
        any(move || {
            let counter = counter.clone();
            async move {
                // 50 MB in 64 KiB chunks, no Content-Length: only the stream cap can stop it.
                let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
                let stream = futures::stream::iter(0..800).map(move |_| {
                    counter.fetch_add(chunk.len(), Ordering::SeqCst);
                    Ok::<_, std::io::Error>(chunk.clone())
                });
                Body::from_stream(stream)
            }
        }),
    );
    use futures::StreamExt;
    let port = serve(app).await;
    let executor = webhook_tool("big", "Big.", format!("http://public.test:{port}/big"))
        .output_done()
        .client(test_client())
        .build_executor()
        .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "big failed: the webhook's answer is larger than the 64 KiB it may be. Do not claim success."
    );
    assert_eq!(error.event_text(), "answer too large");
    // Reading stopped: the server could not push the whole 50 MB (socket buffers hold a few MB).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let sent = produced.load(Ordering::SeqCst);
    assert!(
        sent < 50 * 1024 * 1024,
        "the server produced all {sent} bytes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_content_length_over_the_cap_fails_before_reading() {
    let (port, _) = server().await;
    let executor = webhook_tool(
        "big",
        "Big.",
        format!("http://public.test:{port}/len-over-cap"),
    )
    .output_done()
    .client(test_client())
    .build_executor()
    .unwrap();
    assert_eq!(
        executor
            .run(Map::new(), &ctx())
            .await
            .unwrap_err()
            .event_text(),
        "answer too large"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_over_the_cap_is_never_sent() {
    let (port, log) = server().await;
    let executor = webhook_tool("send", "Send.", format!("http://public.test:{port}/echo"))
        .parameters(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
        .output_done()
        .client(test_client())
        .build_executor()
        .unwrap();
    let text = "x".repeat(64 * 1024);
    let error = executor
        .run(args(json!({"text": text})), &ctx())
        .await
        .unwrap_err();
    assert_eq!(
        error.model_text(),
        "send failed: the request is 65547 bytes, larger than the 64 KiB a webhook may send. Send shorter values. Do not claim success."
    );
    assert_eq!(error.event_text(), "request too large");
    assert!(log.all().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_closed_early_fails_as_unreachable() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            // Promise 100 bytes, send 4, close.
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"a\"")
                .await;
            drop(stream);
        }
    });
    let executor = webhook_tool("early", "Early.", format!("http://public.test:{port}/"))
        .output_done()
        .client(test_client())
        .build_executor()
        .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "early failed: the webhook could not be reached or closed the connection early. Do not claim success."
    );
    assert_eq!(error.event_text(), "unreachable");
}

// ------------------------------------------------------------------------------------ auth

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_key_and_bearer_send_the_credential() {
    let (port, log) = server().await;
    // CARGO_PKG_NAME is set by cargo for the test process (edition 2024 forbids set_var here).
    let key = std::env::var("CARGO_PKG_NAME").unwrap();
    let api = webhook_tool("a", "A.", format!("http://public.test:{port}/echo"))
        .output_done()
        .auth(WebhookAuth::api_key("CARGO_PKG_NAME", "X-API-Key"))
        .client(test_client())
        .build_executor()
        .unwrap();
    api.run(Map::new(), &ctx()).await.unwrap();
    let bearer = webhook_tool("b", "B.", format!("http://public.test:{port}/echo"))
        .output_done()
        .auth(WebhookAuth::bearer(TokenSource::function(
            "vault:crm",
            || async { Ok::<_, std::io::Error>("tok-123".to_string()) },
        )))
        .client(test_client())
        .build_executor()
        .unwrap();
    bearer.run(Map::new(), &ctx()).await.unwrap();
    let seen = log.all();
    assert_eq!(seen[0].headers["x-api-key"], key.as_str());
    assert_eq!(seen[1].headers["authorization"], "Bearer tok-123");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_variable_or_failing_source_cannot_authenticate() {
    let (port, log) = server().await;
    let missing = webhook_tool(
        "orders",
        "Orders.",
        format!("http://public.test:{port}/echo"),
    )
    .output_done()
    .auth(WebhookAuth::bearer("HARK_WEBHOOK_TEST_UNSET_TOKEN"))
    .client(test_client())
    .build_executor()
    .unwrap();
    let error = missing.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "orders could not authenticate: the environment variable HARK_WEBHOOK_TEST_UNSET_TOKEN is not set. Do not claim success."
    );
    assert_eq!(error.event_text(), "could not authenticate");

    let failing = webhook_tool(
        "orders",
        "Orders.",
        format!("http://public.test:{port}/echo"),
    )
    .output_done()
    .auth(WebhookAuth::api_key(
        TokenSource::function("vault:orders", || async {
            Err::<String, _>("token sk-live-999 expired")
        }),
        "X-Key",
    ))
    .client(test_client())
    .build_executor()
    .unwrap();
    let error = failing.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "orders could not authenticate: the token source vault:orders failed. Do not claim success."
    );
    assert!(!format!("{error:?}").contains("sk-live-999"));
    assert!(log.all().is_empty(), "nothing is sent without a credential");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_request_carries_a_verifiable_signature() {
    let (port, log) = server().await;
    let now: jiff::Timestamp = "2026-10-15T09:30:00Z".parse().unwrap();
    let executor = webhook_tool(
        "notify",
        "Notify.",
        format!("http://public.test:{port}/echo"),
    )
    .input::<OrderQuery>()
    .output_done()
    .signing(WebhookSigning::hmac_sha256(TokenSource::function(
        "signing-secret",
        || async { Ok::<_, std::io::Error>("whsec_test".to_string()) },
    )))
    .clock(Arc::new(move || now))
    .client(test_client())
    .build_executor()
    .unwrap();
    executor
        .run(args(json!({"order_id": "A-12"})), &ctx())
        .await
        .unwrap();
    let seen = &log.all()[0];
    let header = seen.headers["x-hark-signature"]
        .to_str()
        .unwrap()
        .to_string();
    // Verify as a receiver would, with the hmac crate directly.
    let t = now.as_second();
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(b"whsec_test").unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&seen.body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(header, format!("t={t},v1={hex}"));
}

// ------------------------------------------------------------------------------ background

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_background_requests_all_arrive_after_the_drain() {
    let arrived = Arc::new(AtomicUsize::new(0));
    let counter = arrived.clone();
    let app = Router::new().route(
        "/slow",
        any(move || {
            let counter = counter.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                counter.fetch_add(1, Ordering::SeqCst);
                StatusCode::NO_CONTENT
            }
        }),
    );
    let port = serve(app).await;
    let executor = webhook_tool(
        "notify_crm",
        "Tell the CRM.",
        format!("http://public.test:{port}/slow"),
    )
    .input::<OrderQuery>()
    .output_accepted()
    .wait_for_response(false)
    .timeout(Duration::from_secs(60))
    .client(test_client())
    .build_executor()
    .unwrap();
    let hooks = CallHooks::new();
    let context = ToolContext {
        hooks: hooks.clone(),
        ..ToolContext::default()
    };
    for i in 0..1000 {
        let value = executor
            .run(args(json!({"order_id": format!("A-{i}")})), &context)
            .await
            .unwrap();
        assert_eq!(value, json!({"ok": true, "accepted": true}));
    }
    let report = hooks.drain(Duration::from_secs(120)).await;
    assert_eq!(report.unfinished, 0);
    assert_eq!(arrived.load(Ordering::SeqCst), 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_webhook_without_its_variable_fails_at_once() {
    let (port, log) = server().await;
    let executor = webhook_tool(
        "notify",
        "Notify.",
        format!("http://public.test:{port}/echo"),
    )
    .wait_for_response(false)
    .auth(WebhookAuth::api_key("HARK_WEBHOOK_TEST_UNSET_KEY", "X-Key"))
    .client(test_client())
    .build_executor()
    .unwrap();
    let hooks = CallHooks::new();
    let context = ToolContext {
        hooks: hooks.clone(),
        ..ToolContext::default()
    };
    let error = executor.run(Map::new(), &context).await.unwrap_err();
    assert!(error.model_text().contains("could not authenticate"));
    assert_eq!(hooks.background_len(), 0);
    assert!(log.all().is_empty());
}

// ------------------------------------------------------------------------------ build checks

fn problems(builder: hark_webhook::WebhookToolBuilder) -> Vec<String> {
    builder.build().unwrap_err().problems
}

/// Names that are loopback by definition (RFC 6761: `localhost`, `*.localhost`, `localhost.`)
/// are refused at build time with the same text as `127.0.0.1`; http reports both faults.
#[test]
fn loopback_names_are_refused_at_build_like_loopback_addresses() {
    let base = |url: &str| webhook_tool("t", "T.", url).output_done();
    let fix = "Webhooks refuse private, loopback and link-local addresses; turn on allow_private_network only for your own internal service.";
    assert_eq!(
        problems(base("https://127.0.0.1/x")),
        vec![format!("t: the URL host 127.0.0.1 is loopback. {fix}")]
    );
    for (url, host) in [
        ("https://localhost:8443/orders/status", "localhost"),
        ("https://LOCALHOST/x", "localhost"),
        ("https://localhost./x", "localhost."),
        ("https://api.localhost/x", "api.localhost"),
    ] {
        assert_eq!(
            problems(base(url)),
            vec![format!("t: the URL host {host} is loopback. {fix}")],
            "{url}"
        );
    }
    let http = problems(base("http://localhost:8080/orders"));
    assert_eq!(http.len(), 2, "{http:?}");
    assert!(http[0].contains("scheme is http"), "{http:?}");
    assert_eq!(
        http[1],
        format!("t: the URL host localhost is loopback. {fix}")
    );
    // Not loopback by name: left to the resolver at call time.
    assert!(base("https://localhost.example.com/x").build().is_ok());
    assert!(
        base("https://localhost/x")
            .allow_private_network(true)
            .build()
            .is_ok()
    );
}

#[test]
fn the_url_is_checked_at_build() {
    let base = |url: &str| webhook_tool("t", "T.", url).output_done();
    assert_eq!(
        problems(base("http://crm.example.com/x")),
        vec![
            "t: the URL scheme is http. The scheme must be https, or http with allow_private_network."
        ]
    );
    assert!(
        base("http://localhost:8000/x")
            .allow_private_network(true)
            .build()
            .is_ok()
    );
    assert!(problems(base("ftp://crm.example.com/"))[0].contains("scheme is ftp"));
    assert!(problems(base("https://u:p@crm.example.com/"))[0].contains("user info"));
    assert!(problems(base("https://crm.example.com/#frag"))[0].contains("fragment"));
    assert!(
        problems(base("https://crm.example.com:0/"))[0].contains("port 0 is outside 1 to 65535")
    );
    assert!(problems(base("https://crm.example.com:70000/"))[0].contains("cannot be read"));
    // WHATWG parsing gives every http(s) URL a host; a URL of another scheme may lack one.
    let no_host = problems(base("data:text/plain,hi"));
    assert_eq!(no_host.len(), 2, "{no_host:?}");
    assert!(no_host[1].contains("has no host"));
    assert!(problems(base("not a url"))[0].contains("cannot be read"));
    assert!(problems(base("https://10.1.2.3/"))[0].contains("10.1.2.3 is private (10.0.0.0/8)"));
    assert!(base("https://crm.example.com/hooks").build().is_ok());
}

#[test]
fn a_get_tool_naming_a_query_value_fails_at_build() {
    let found = problems(
        webhook_tool(
            "lookup",
            "L.",
            "https://crm.example.com/o?order_id=1&customer_id=2",
        )
        .method(Method::Get)
        .input::<OrderQuery>()
        .output_done()
        .locked("customer_id", "{{customer.id}}"),
    );
    assert_eq!(
        found,
        vec![
            "lookup: its input names order_id, which is also a query value of the URL. Rename the argument or drop the value from the URL.",
            "lookup: its locked names customer_id, which is also a query value of the URL. Rename the argument or drop the value from the URL.",
        ]
    );
    // POST sends arguments in the body: no clash.
    assert!(
        webhook_tool("lookup", "L.", "https://crm.example.com/o?order_id=1")
            .input::<OrderQuery>()
            .output_done()
            .build()
            .is_ok()
    );
}

#[test]
fn a_fixed_authorization_header_with_auth_fails_in_any_case() {
    for header in [
        "Authorization",
        "authorization",
        "AUTHORIZATION",
        "aUtHoRiZaTiOn",
    ] {
        let found = problems(
            webhook_tool("t", "T.", "https://crm.example.com/")
                .output_done()
                .auth(WebhookAuth::bearer("TOKEN"))
                .header(header, "Bearer fixed"),
        );
        assert_eq!(
            found,
            vec![format!(
                "t: a fixed {header} header cannot be used with auth: auth sends the credential. Remove the header."
            )]
        );
    }
    // Without auth a fixed Authorization header is allowed.
    assert!(
        webhook_tool("t", "T.", "https://crm.example.com/")
            .output_done()
            .header("Authorization", "Bearer fixed")
            .build()
            .is_ok()
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let found = problems(
        webhook_tool("t", "T.", "http://u@crm.example.com/#x")
            .output_json(Output::of::<Order>())
            .wait_for_response(false)
            .header("Host", "evil")
            .header("bad header", "x")
            .timeout(Duration::ZERO),
    );
    assert_eq!(found.len(), 7, "{found:#?}");
}

#[test]
fn outputs_and_options() {
    assert!(
        problems(webhook_tool("t", "T.", "https://crm.example.com/"))[0]
            .contains("name its output")
    );
    let options = WebhookOptions {
        timeout: Some(Duration::from_secs(5)),
        wait_for_response: Some(false),
        ..WebhookOptions::default()
    };
    let executor = webhook_tool("notify", "N.", "https://crm.example.com/")
        .options(&options)
        .build_executor()
        .unwrap();
    assert_eq!(executor.timeout(), Duration::from_secs(5));
    assert!(!executor.waits_for_response());
    assert_eq!(hark_webhook::DEFAULT_TIMEOUT, Duration::from_secs(10));
    assert_eq!(hark_webhook::BODY_CAP, 65536);
}

// ------------------------------------------------------------------ redirects and credentials

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_never_follows_a_redirect_to_another_host() {
    // reqwest strips Authorization on a cross-host redirect but not X-API-Key: Hark refuses the
    // hop for any request with auth or fixed headers.
    let (target_port, target_log) = server().await;
    let location = format!("http://other.test:{target_port}/echo");
    let app = Router::new()
        .route(
            "/go",
            any(move || {
                let location = location.clone();
                async move {
                    (
                        StatusCode::FOUND,
                        [(axum::http::header::LOCATION, location)],
                    )
                }
            }),
        )
        .route(
            "/same",
            any(|| async { (StatusCode::FOUND, [(axum::http::header::LOCATION, "/ok")]) }),
        )
        .route(
            "/ok",
            any(|| async { axum::Json(json!({"ok": true, "same": true})) }),
        );
    let port = serve(app).await;
    let with_key = |path: &str| {
        webhook_tool("crm", "CRM.", format!("http://public.test:{port}/{path}"))
            .output_done()
            .auth(WebhookAuth::api_key("CARGO_PKG_NAME", "X-API-Key"))
            .client(test_client())
            .build_executor()
            .unwrap()
    };
    let error = with_key("go").run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(error.event_text(), "cross-origin redirect refused");
    assert_eq!(
        error.model_text(),
        "crm failed: the webhook address is not allowed (a redirect to another host (other.test) is not followed for a request with credentials). Do not claim success."
    );
    assert!(
        target_log.all().is_empty(),
        "the key reached the other host"
    );
    // Same origin is followed with the key.
    assert_eq!(
        with_key("same").run(Map::new(), &ctx()).await.unwrap()["same"],
        true
    );
    // Without credentials the cross-origin hop is followed.
    let plain = webhook_tool("crm", "CRM.", format!("http://public.test:{port}/go"))
        .output_done()
        .client(test_client())
        .build_executor()
        .unwrap();
    plain.run(Map::new(), &ctx()).await.unwrap();
    assert_eq!(target_log.all().len(), 1);
    assert!(!target_log.all()[0].headers.contains_key("x-api-key"));
}

#[derive(Debug)]
struct SlowResolver;

impl hark_webhook::Resolver for SlowResolver {
    fn lookup<'a>(
        &'a self,
        _host: &'a str,
    ) -> futures::future::BoxFuture<'a, std::io::Result<Vec<std::net::IpAddr>>> {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(vec![common::LOOPBACK])
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_covers_dns() {
    let guard = hark_webhook::NetworkGuard::new()
        .with_resolver(Arc::new(SlowResolver))
        .allow_plain_http();
    let executor = webhook_tool("dns", "DNS.", "http://slow.test/")
        .output_done()
        .timeout(Duration::from_millis(300))
        .client(hark_webhook::WebhookClient::new(guard).unwrap())
        .build_executor()
        .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(error.event_text(), "timeout");
}

#[derive(Debug)]
struct NoSuchHost;

impl hark_webhook::Resolver for NoSuchHost {
    fn lookup<'a>(
        &'a self,
        _host: &'a str,
    ) -> futures::future::BoxFuture<'a, std::io::Result<Vec<std::net::IpAddr>>> {
        Box::pin(async {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such host",
            ))
        })
    }
}

/// A host name that does not resolve reads as a service not found, not as a refusal (a new
/// user read "the webhook address is not allowed" for a typo in the host).
#[tokio::test]
async fn a_host_that_does_not_resolve_is_not_found_not_refused() {
    let guard = hark_webhook::NetworkGuard::new()
        .with_resolver(Arc::new(NoSuchHost))
        .allow_plain_http();
    let executor = webhook_tool("crm", "CRM.", "http://crm.invalid/")
        .output_done()
        .client(hark_webhook::WebhookClient::new(guard).unwrap())
        .build_executor()
        .unwrap();
    let error = executor.run(Map::new(), &ctx()).await.unwrap_err();
    assert_eq!(
        error.model_text(),
        "crm failed: the webhook's host crm.invalid could not be found (its name did not resolve). Do not claim success."
    );
    assert_eq!(error.event_text(), "host not found");
}

// ------------------------------------------------------------------------- locked arguments

/// The customer record in the call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Debug)]
struct Customer {
    /// The customer's id in the CRM.
    id: String,
}

/// The call's State for the locked-argument tests.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default, Debug)]
struct CallValues {
    /// The customer record
    customer: Option<Customer>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct CustomerQuery {
    /// What the caller asks.
    question: String,
    /// The customer's id (locked: the model never chooses it).
    customer_id: String,
}

fn call_info() -> CallInfo {
    CallInfo {
        session_id: "s-42".into(),
        remote_number: Some("+14155550123".into()),
        carrier_call_id: None,
        participant: None,
        call_type: CallType::Inbound,
        end_reason: None,
    }
}

fn live_call(values: CallValues) -> LiveCall {
    let state = CallState::new(call_info(), "en-US", None)
        .with_values(&values)
        .unwrap();
    LiveCall::new(state, Arc::new(InMemorySpeech::new())).unwrap()
}

/// The property names of the OpenAI definition of the registry's only tool.
fn model_property_names(registry: &ToolRegistry) -> Vec<String> {
    let definitions = registry.definitions(Dialect::OpenAi);
    assert!(definitions.refused.is_empty(), "{definitions:?}");
    definitions.tools[0].parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn lookup_customer(port: u16) -> hark_tools::ToolSpec {
    webhook_tool(
        "lookup_customer",
        "Look up the customer.",
        format!("http://public.test:{port}/echo"),
    )
    .input::<CustomerQuery>()
    .output_json(Output::json("Any", json!({})))
    .locked("customer_id", "{{customer.id}}")
    .client(test_client())
    .build()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_argument_is_hidden_and_the_servers_value_comes_from_the_state() {
    let (port, log) = server().await;
    let tool = lookup_customer(port);
    assert_eq!(
        tool.model_parameters()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["question"],
        "the model never sees a locked argument"
    );
    assert_eq!(tool.model_parameters()["required"], json!(["question"]));
    let registry = ToolRegistry::builder(vec![tool])
        .state::<CallValues>()
        .build()
        .unwrap();
    assert_eq!(model_property_names(&registry), vec!["question"]);
    let live = live_call(CallValues {
        customer: Some(Customer { id: "C-7".into() }),
    });
    let result = registry
        .call_live(
            "lookup_customer",
            r#"{"question": "balance", "customer_id": "forged"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert!(result.outcome.succeeded(), "{:?}", result.outcome);
    let seen = log.all();
    assert_eq!(seen.len(), 1);
    let body: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(
        body,
        json!({"question": "balance", "customer_id": "C-7"}),
        "the value the model sent is replaced by the State's"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unset_locked_value_is_refused_with_the_hint_and_nothing_is_sent() {
    let (port, log) = server().await;
    let registry = ToolRegistry::builder(vec![lookup_customer(port)])
        .state::<CallValues>()
        .build()
        .unwrap();
    let live = live_call(CallValues::default());
    let result = registry
        .call_live(
            "lookup_customer",
            r#"{"question": "balance", "customer_id": "forged"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert_eq!(result.outcome.status, CallStatus::Refused);
    assert_eq!(
        result.outcome.model_result,
        json!({"refused": "customer.id not set yet. Get it from the caller (The customer record), then call this tool again."})
    );
    assert!(log.all().is_empty(), "the server received a request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_transcript_sends_the_last_messages_and_call_values_fill_from_the_call() {
    let (port, log) = server().await;
    // Neither name is an input of the tool: both are added for the webhook, hidden from the model.
    let tool = webhook_tool(
        "end_report",
        "Report the call.",
        format!("http://public.test:{port}/echo"),
    )
    .output_done()
    .locked("transcript", Transcript { max_messages: 2 })
    .locked("call", "{{call.session_id}}")
    .client(test_client())
    .build()
    .unwrap();
    assert_eq!(tool.model_parameters()["properties"], json!({}));
    let registry = ToolRegistry::builder(vec![tool])
        .state::<CallValues>()
        .build()
        .unwrap();
    let live = live_call(CallValues::default());
    live.state.push_message("user", "one");
    live.state.push_message("assistant", "two");
    live.state.push_message("user", "three");
    let result = registry
        .call_live(
            "end_report",
            r#"{"call": "forged"}"#,
            &live,
            &live.generation(),
        )
        .await
        .unwrap();
    assert!(result.outcome.succeeded(), "{:?}", result.outcome);
    let body: Value = serde_json::from_slice(&log.all()[0].body).unwrap();
    assert_eq!(
        body,
        json!({
            "transcript": [{"role": "assistant", "text": "two"}, {"role": "user", "text": "three"}],
            "call": "s-42"
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plain_call_path_fills_call_values_too() {
    let (port, log) = server().await;
    let tool = webhook_tool(
        "notify",
        "Notify.",
        format!("http://public.test:{port}/echo"),
    )
    .input::<OrderQuery>()
    .output_done()
    .locked("session", "{{call.session_id}}")
    .client(test_client())
    .build()
    .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let context = ToolContext {
        call: call_info(),
        ..ToolContext::default()
    };
    let outcome = registry
        .call("notify", r#"{"order_id": "A-12"}"#, &context)
        .await;
    assert!(outcome.succeeded(), "{outcome:?}");
    let body: Value = serde_json::from_slice(&log.all()[0].body).unwrap();
    assert_eq!(body, json!({"order_id": "A-12", "session": "s-42"}));
}

#[test]
fn old_at_spellings_fail_at_build_naming_the_new_one_with_every_other_problem() {
    let found = problems(
        webhook_tool("lookup", "L.", "http://crm.example.com/")
            .input::<OrderQuery>()
            .output_done()
            .locked("id", "{{@call_id}}")
            .locked("phone", "{{@phone_number}}"),
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(
        found[0],
        "lookup: the URL scheme is http. The scheme must be https, or http with allow_private_network."
    );
    assert!(
        found[1].contains("{{@call_id}} is now {{call.carrier_call_id}} or {{call.session_id}}"),
        "{}",
        found[1]
    );
    assert!(
        found[2].contains("{{@phone_number}} is {{call.remote_number}}"),
        "{}",
        found[2]
    );
    // A valid tool with an old spelling fails too.
    let found = problems(
        webhook_tool("lookup", "L.", "https://crm.example.com/")
            .output_done()
            .locked("transcript", "{{@transcript}}"),
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("is Transcript { max_messages }"),
        "{}",
        found[0]
    );
}

#[test]
fn a_transcript_on_a_text_input_and_a_state_typo_fail_at_build() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Note {
        /// The note.
        transcript: String,
    }
    let found = problems(
        webhook_tool("n", "N.", "https://crm.example.com/")
            .input::<Note>()
            .output_done()
            .locked("transcript", Transcript { max_messages: 5 }),
    );
    assert_eq!(
        found,
        vec![
            "n: transcript is locked to Transcript, a list of messages, but the parameter is not an array. Type it as a list (Vec<TranscriptMessage>) or leave it without a type."
        ]
    );
    let tool = webhook_tool("n", "N.", "https://crm.example.com/")
        .output_done()
        .locked("customer_id", "{{customer.idd}}")
        .build()
        .unwrap();
    let error = ToolRegistry::builder(vec![tool])
        .state::<CallValues>()
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems,
        vec!["n: {{customer.idd}} is not in the State: customer has no field idd. Use one of: id."]
    );
}
