//! The demo's order service: a small HTTP service on loopback that keeps the orders the shop's
//! `place_order` tool places and answers the `order_status` webhook of `examples/shop.toml`.
//!
//! - `POST /orders/status` with `{"order_id": "HK-1001"}` → 200 `{"order_id": "HK-1001",
//!   "status": "received", "items": 2, "total": 43.0, "arrives": "2026-12-03"}`, or 404
//!   `{"error": "No order HK-9 was placed. Check the id with the caller."}`.
//! - `GET /health` → 200 `{"ok": true}`.
//!
//! It listens on `127.0.0.1` on a free port; the agent file reaches it through
//! `${HARK_DEMO_ORDERS_URL}`, and only that exact address is allowed to its webhook.

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// One placed order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Order {
    /// `HK-1001`, `HK-1002`, … in the order they were placed.
    pub order_id: String,
    /// The customer's name.
    pub customer_name: String,
    /// How many items.
    pub items: u32,
    /// The total in euros.
    pub total: f64,
    /// The day it arrives, `YYYY-MM-DD` (three days after it was placed, UTC).
    pub arrives: String,
}

/// The orders of this process, shared by the shop's tools and the order service. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct OrderBook {
    orders: Arc<Mutex<Vec<Order>>>,
}

impl OrderBook {
    /// An empty book.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Order>> {
        self.orders.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Places an order and returns it with its new id.
    pub fn place(&self, customer_name: &str, items: u32, total: f64) -> Order {
        let arrives = jiff::Timestamp::now()
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .date()
            .checked_add(jiff::Span::new().days(3))
            .map(|d| d.to_string())
            .unwrap_or_default();
        let mut orders = self.lock();
        let order = Order {
            order_id: format!("HK-{}", 1001 + orders.len()),
            customer_name: customer_name.to_string(),
            items,
            total,
            arrives,
        };
        orders.push(order.clone());
        order
    }

    /// The order with this id (any letter case).
    pub fn get(&self, order_id: &str) -> Option<Order> {
        let wanted = order_id.trim().to_uppercase();
        self.lock().iter().find(|o| o.order_id == wanted).cloned()
    }

    /// How many orders were placed.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no order was placed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The running order service: its address, and the task that serves it (stopped when this is
/// dropped).
#[derive(Debug)]
pub struct OrderService {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl OrderService {
    /// Where it listens (`127.0.0.1:<port>`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its base URL, `http://127.0.0.1:<port>`: the value of `${HARK_DEMO_ORDERS_URL}`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for OrderService {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Deserialize)]
struct StatusQuery {
    order_id: String,
}

async fn status(
    State(book): State<OrderBook>,
    body: Result<Json<StatusQuery>, axum::extract::rejection::JsonRejection>,
) -> (StatusCode, Json<Value>) {
    let Ok(Json(query)) = body else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "Send {\"order_id\": \"HK-1001\"}."})),
        );
    };
    match book.get(&query.order_id) {
        Some(order) => (
            StatusCode::OK,
            Json(json!({
                "order_id": order.order_id,
                "status": "received",
                "items": order.items,
                "total": order.total,
                "arrives": order.arrives,
            })),
        ),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({
                "error": format!("No order {} was placed. Check the id with the caller.", query.order_id.trim())
            })),
        ),
    }
}

/// Starts the order service for `book` on `127.0.0.1`, on a free port. Must run inside a tokio
/// runtime; the service stops when the returned value is dropped.
///
/// # Errors
/// The listener could not be bound.
pub async fn start(book: OrderBook) -> io::Result<OrderService> {
    let app = Router::new()
        .route("/orders/status", post(status))
        .route("/health", get(|| async { Json(json!({"ok": true})) }))
        .with_state(book);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            tracing::warn!("the demo order service stopped: {error}");
        }
    });
    tracing::debug!("demo order service: http://{addr}");
    Ok(OrderService { addr, task })
}
