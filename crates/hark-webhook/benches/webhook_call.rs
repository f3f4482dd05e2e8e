//! A webhook call against a loopback server, next to a bare reqwest call in the same run.
//!
//! Goal: the guard and the checks add under 100 µs per call.
//! Run: `cargo bench -p hark-webhook --bench webhook_call`.

// criterion_group! generates an undocumented pub fn.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;

use axum::{Json, Router, routing::post};
use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;
use hark_tools::{ToolContext, ToolExecutor, ToolRegistry};
use hark_webhook::{NetworkGuard, Resolver, WebhookClient, addr, webhook_tool};
use serde_json::{Value, json};

#[derive(Debug)]
struct Loopback;
impl Resolver for Loopback {
    fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
        Box::pin(async { Ok(vec![IpAddr::from([127, 0, 0, 1])]) })
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Query {
    order_id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Order {
    status: String,
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let port = rt.block_on(async {
        let app = Router::new().route(
            "/orders",
            post(|Json(_): Json<Value>| async { Json(json!({"status": "shipped"})) }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        port
    });

    // Bare reqwest: same features, no guard, no checks.
    let bare = reqwest::Client::builder().no_proxy().build().unwrap();
    let bare_url = format!("http://127.0.0.1:{port}/orders");
    let body = serde_json::to_vec(&json!({"order_id": "A-12"})).unwrap();

    // The webhook: full guard (resolver + address filter, test allow-list for public.test).
    let loopback = IpAddr::from([127, 0, 0, 1]);
    let guard = NetworkGuard::new()
        .with_resolver(Arc::new(Loopback))
        .treat_as_public("public.test", loopback)
        .allow_plain_http();
    let client = WebhookClient::new(guard).unwrap();
    let executor = webhook_tool(
        "lookup_order",
        "Look up an order.",
        format!("http://public.test:{port}/orders"),
    )
    .input::<Query>()
    .output::<Order>()
    .client(client.clone())
    .build_executor()
    .unwrap();
    let tool = webhook_tool(
        "lookup_order",
        "Look up an order.",
        format!("http://public.test:{port}/orders"),
    )
    .input::<Query>()
    .output::<Order>()
    .client(client)
    .build()
    .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let context = ToolContext::default();
    let args = json!({"order_id": "A-12"}).as_object().unwrap().clone();

    let mut group = c.benchmark_group("loopback_call");
    group.bench_function("bare_reqwest", |b| {
        b.to_async(&rt).iter(|| async {
            let resp = bare
                .post(&bare_url)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            let bytes = resp.bytes().await.unwrap();
            black_box(serde_json::from_slice::<Value>(&bytes).unwrap())
        })
    });
    group.bench_function("webhook_executor", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(executor.run(args.clone(), &context).await.unwrap()) })
    });
    group.bench_function("webhook_via_registry", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(
                registry
                    .call("lookup_order", r#"{"order_id": "A-12"}"#, &context)
                    .await,
            )
        })
    });
    group.finish();

    let mut group = c.benchmark_group("guard_checks");
    let url = url::Url::parse("https://crm.example.com:8443/hooks/booking?x=1").unwrap();
    let strict = NetworkGuard::new();
    group.bench_function("check_url_name", |b| {
        b.iter(|| black_box(strict.check_url(black_box(&url))))
    });
    let literal = url::Url::parse("https://[::ffff:127.0.0.1]/").unwrap();
    group.bench_function("check_url_literal", |b| {
        b.iter(|| black_box(strict.check_url(black_box(&literal))))
    });
    let ip: IpAddr = "2606:4700:4700::1111".parse().unwrap();
    group.bench_function("check_ip_v6", |b| {
        b.iter(|| black_box(addr::check_ip(black_box(ip))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
