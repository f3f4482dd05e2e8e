//! Shared test helpers: loopback servers, a connection recorder, and the test network guard.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use futures::future::BoxFuture;
use hark_webhook::{NetworkGuard, Resolver, WebhookClient};
use tokio::net::TcpListener;

pub const LOOPBACK: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

/// A resolver with fixed answers; unknown names do not resolve.
#[derive(Debug, Default, Clone)]
pub struct TestResolver {
    pub names: HashMap<String, Vec<IpAddr>>,
}

impl TestResolver {
    /// The names the tests use: `public.test` (the "public" test host, loopback underneath) and
    /// names an attacker would use to reach loopback or the metadata service.
    pub fn standard() -> Self {
        let mut names = HashMap::new();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        names.insert("public.test".into(), vec![LOOPBACK]);
        names.insert("other.test".into(), vec![LOOPBACK]);
        names.insert("localhost".into(), vec![LOOPBACK, ip("::1")]);
        names.insert("sub.localhost".into(), vec![LOOPBACK]);
        names.insert(
            "metadata.google.internal".into(),
            vec![ip("169.254.169.254")],
        );
        names.insert("rebind.test".into(), vec![LOOPBACK, ip("10.0.0.1")]);
        names.insert("mapped.test".into(), vec![ip("::ffff:127.0.0.1")]);
        names.insert(
            "internal.test".into(),
            vec![ip("192.168.1.10"), ip("fd00::1")],
        );
        names.insert("cgnat.test".into(), vec![ip("100.64.0.1")]);
        names.insert("zero.test".into(), vec![ip("0.0.0.0")]);
        names.insert("v6zero.test".into(), vec![ip("::")]);
        Self { names }
    }
}

impl Resolver for TestResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            self.names
                .get(host)
                .cloned()
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "unknown test name"))
        })
    }
}

/// The production guard with the test resolver, `public.test` allowed at loopback, plain http.
pub fn test_guard() -> NetworkGuard {
    NetworkGuard::new()
        .with_resolver(Arc::new(TestResolver::standard()))
        .treat_as_public("public.test", LOOPBACK)
        .treat_as_public("other.test", LOOPBACK)
        .allow_plain_http()
}

pub fn test_client() -> WebhookClient {
    WebhookClient::new(test_guard()).unwrap()
}

/// Serves `app` on 127.0.0.1 and returns the port.
pub async fn serve(app: Router) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// A listener that counts every connection it gets and closes it at once. Proves that no byte
/// reached it: [`Recorder::connections_before_sentinel`] makes one connection itself, waits for
/// it to be counted, and returns how many came before it (accept is first in, first out).
#[derive(Debug, Clone)]
pub struct Recorder {
    pub port: u16,
    peers: Arc<std::sync::Mutex<Vec<SocketAddr>>>,
    v6: bool,
}

impl Recorder {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let peers = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = peers.clone();
        tokio::spawn(async move {
            loop {
                if let Ok((stream, peer)) = listener.accept().await {
                    seen.lock().unwrap().push(peer);
                    drop(stream);
                }
            }
        });
        // Also listen on [::1] at the same port when possible, so IPv6 spellings would be seen.
        let mut has_v6 = false;
        if let Ok(v6) = TcpListener::bind(SocketAddr::new("::1".parse().unwrap(), port)).await {
            has_v6 = true;
            let seen = peers.clone();
            tokio::spawn(async move {
                loop {
                    if let Ok((stream, peer)) = v6.accept().await {
                        seen.lock().unwrap().push(peer);
                        drop(stream);
                    }
                }
            });
        }
        Self {
            port,
            peers,
            v6: has_v6,
        }
    }

    /// Connections seen other than sentinel connections of our own (one per listener). Accept
    /// is first in, first out, so once a sentinel is seen every earlier connection is counted.
    pub async fn connections_before_sentinel(&self) -> usize {
        let mut sentinels = vec![
            tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .unwrap(),
        ];
        if self.v6 {
            sentinels.push(
                tokio::net::TcpStream::connect(("::1", self.port))
                    .await
                    .unwrap(),
            );
        }
        let mine: Vec<SocketAddr> = sentinels.iter().map(|s| s.local_addr().unwrap()).collect();
        for _ in 0..2500 {
            if mine.iter().all(|m| self.peers.lock().unwrap().contains(m)) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        self.peers
            .lock()
            .unwrap()
            .iter()
            .filter(|p| !mine.contains(p))
            .count()
    }
}
