//! The demo shop behind `hark serve --demo`: the agent file `examples/shop.toml`, its local
//! tools (search products, add to cart, cart total, place an order with a confirmation) and the
//! small order service its `order_status` webhook calls on loopback. Beside
//! it, a restaurant's table booking by voice with a read-back: the flow of
//! `examples/booking.toml` ([`booking_file`]) and its local tool `book_table` ([`tables`]);
//! `hark serve --agent examples/booking.toml` runs it.
//!
//! [`start`] starts the order service and returns a [`DemoShop`]: the [`Host`] to build the
//! agent file with (the local tools, `${HARK_DEMO_ORDERS_URL}` set to the service's URL, and
//! exactly the service's address allowed to webhooks), and the service itself, which stops when
//! the `DemoShop` is dropped.
//!
//! The product reaches the demo only through `hark serve --demo` and through agent files that
//! name it ([`named_by`]: a `[tools] local` tool, the `hark` binary's local tools being the
//! demo's, or `${HARK_DEMO_ORDERS_URL}`); for every other file [`for_file`] starts nothing and
//! the file is built with an empty [`Host`].
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let shop = hark_server::demo::start().await?;
//! let agent = hark_server::demo::agent_file()?.build(&shop.host)?;
//! assert!(agent.registry.contains("place_order"));
//! assert!(agent.registry.contains("order_status"));
//! # Ok(()) }
//! ```

pub mod catalogue;
pub mod orders;
pub mod shop;
pub mod tables;

use hark_agent::agent_file::{AgentFile, FileProblems, Host};
use tracing::info;

pub use orders::{OrderBook, OrderService};
pub use tables::TableBook;

/// The placeholder the demo agent file's webhook URL reads: the order service's base URL.
pub const ORDERS_URL_VAR: &str = "HARK_DEMO_ORDERS_URL";

/// The text of `examples/shop.toml`, built into the binary.
pub const AGENT_FILE: &str = include_str!("../../../../examples/shop.toml");

/// The text of `examples/booking.toml` (the table booking flow), built into the binary.
pub const BOOKING_FILE: &str = include_str!("../../../../examples/booking.toml");

/// `examples/booking.toml`, parsed.
///
/// # Errors
/// Only if the file in the repository does not parse (a test keeps it clean).
pub fn booking_file() -> Result<AgentFile, FileProblems> {
    BOOKING_FILE.parse()
}

/// `examples/shop.toml`, parsed.
///
/// # Errors
/// Only if the file in the repository does not parse (a test keeps it clean).
pub fn agent_file() -> Result<AgentFile, FileProblems> {
    AGENT_FILE.parse()
}

/// `examples/shop.toml` with a voice: espeak-ng speaks its lines, and the microphone is heard
/// through the OpenAI-compatible STT at `stt_url` (Whisper `tiny.en` from
/// `scripts/stt-server.py`, told the shop's words).
///
/// # Errors
/// As [`agent_file`]; also when `stt_url` is not a usable `base_url` (the problem names it).
pub fn agent_file_with_voice(stt_url: &str) -> Result<AgentFile, FileProblems> {
    let voice = format!(
        "\n[tts]\nprovider = \"espeak-ng\"\n\n[stt]\nprovider = \"openai-compatible\"\n\
         base_url = {}\nmodel = \"tiny.en\"\nprompt = {}\n",
        toml_string(stt_url),
        toml_string(STT_PROMPT),
    );
    format!("{AGENT_FILE}{voice}").parse()
}

/// The words the demo's STT is told to expect: the shop's products, as nouns. Not a command
/// ("Add to cart: …"): Whisper echoes such a prompt on noise (white noise and a hum came back as
/// "Add to cart. Add to cart. …"), and offline that would click.
pub const STT_PROMPT: &str = "Hark Coffee Gear: blue mug, red mug, travel mug, coffee grinder, \
     espresso cup, French press, milk frother, paper filters, pour-over kettle, tea infuser; the \
     cart, the checkout, an order.";

/// `text` as a TOML basic string (a JSON string is one: the same quotes and escapes).
fn toml_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The demo shop, running.
#[derive(Debug)]
pub struct DemoShop {
    /// What the agent file is built with: the shop's local tools, `${HARK_DEMO_ORDERS_URL}` and
    /// the order service's address allowed (that address only).
    pub host: Host,
    /// The orders placed.
    pub book: OrderBook,
    /// The restaurant's booked tables (`book_table`).
    pub tables: TableBook,
    /// The order service (stops when dropped).
    pub orders: OrderService,
}

/// The [`Host`] of the demo shop for an order service at `orders` placing into `book`, with
/// the restaurant's `book_table` booking into `tables`.
pub fn host(book: &OrderBook, tables: &TableBook, orders: std::net::SocketAddr) -> Host {
    Host::new()
        .with_local_tools(shop::tools(book.clone()))
        .with_local_tool(tables::book_table(tables.clone()))
        .with_value(ORDERS_URL_VAR, format!("http://{orders}"))
        .allow_address(orders)
}

/// Starts the order service on loopback and returns the running shop. Must run inside a tokio
/// runtime.
///
/// # Errors
/// The order service's listener could not be bound.
pub async fn start() -> std::io::Result<DemoShop> {
    start_with(TableBook::new()).await
}

/// [`start`] with the restaurant's bookings in `tables` (a [`TableBook::with_today`] in tests).
///
/// # Errors
/// The order service's listener could not be bound.
pub async fn start_with(tables: TableBook) -> std::io::Result<DemoShop> {
    let book = OrderBook::new();
    let orders = orders::start(book.clone()).await?;
    info!(url = %orders.url(), "the demo's order service is listening");
    Ok(DemoShop {
        host: host(&book, &tables, orders.addr()),
        book,
        tables,
        orders,
    })
}

/// True when `file` uses the demo: it names a local tool (the `hark` binary's local tools are the
/// demo shop's, so a misspelt one is still looked up in its catalogue) or reads
/// `${HARK_DEMO_ORDERS_URL}` in a webhook's URL or header, or in `[llm] base_url`.
pub fn named_by(file: &AgentFile) -> bool {
    let format = file.format();
    let placeholder = format!("${{{ORDERS_URL_VAR}}}");
    let reads = |text: &str| text.contains(&placeholder);
    !format.tools.local.is_empty()
        || format.webhook.iter().any(|hook| {
            reads(hook.url.get_ref()) || hook.headers.values().any(|v| reads(v.get_ref()))
        })
        || format
            .llm
            .as_ref()
            .and_then(|llm| llm.base_url.as_ref())
            .is_some_and(|url| reads(url.get_ref()))
}

/// The demo shop `file` needs, started ([`named_by`]); `None` for a file that does not use the
/// demo: nothing is started, and the file is built with an empty [`Host`].
///
/// # Errors
/// The order service's listener could not be bound.
pub async fn for_file(file: &AgentFile) -> std::io::Result<Option<DemoShop>> {
    if named_by(file) {
        start().await.map(Some)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> AgentFile {
        text.parse().expect("the file parses")
    }

    #[test]
    fn the_demos_files_name_the_demo_and_a_users_file_does_not() {
        assert!(named_by(&agent_file().unwrap()));
        assert!(named_by(&booking_file().unwrap()));
        assert!(!named_by(&parse("system_prompt = \"Hi.\"\n")));
        assert!(named_by(&parse(
            "system_prompt = \"Hi.\"\n\n[[webhook]]\nname = \"s\"\ndescription = \"d\"\nurl = \"${HARK_DEMO_ORDERS_URL}/x\"\n"
        )));
        assert!(!named_by(&parse(
            "system_prompt = \"Hi.\"\n\n[[webhook]]\nname = \"s\"\ndescription = \"d\"\nurl = \"https://example.com/x\"\n"
        )));
    }
}
