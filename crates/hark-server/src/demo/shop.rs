//! The demo shop's local tools: `search_products`, `add_to_cart`, `cart_total` and
//! `place_order`. The cart lives in the call's State (`cart`, saved by the agent file's assign
//! rows), so the tools keep nothing between calls themselves; placed orders go to the
//! [`OrderBook`] the order service serves.

use hark_tools::{ToolContext, ToolError, ToolReply, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalogue::{self, Product, euros};
use super::orders::OrderBook;

/// `search_products`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Search {
    /// Words of the product's name, like "mug" or "coffee grinder"; empty lists every product.
    query: String,
}

/// The products found.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Found {
    /// The products whose name holds every word of the query.
    products: Vec<Product>,
    /// How many.
    count: usize,
}

/// One line of the cart (the State value `cart` holds a list of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CartLine {
    /// The product's id.
    pub product_id: String,
    /// The product's name.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// The price of one, in euros.
    pub price: f64,
}

/// `add_to_cart`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Add {
    /// The product's name or id, like "travel mug".
    product: String,
    /// How many to add (default 1).
    #[schemars(range(min = 1, max = 10))]
    quantity: Option<u32>,
}

/// The cart after a change, or as it is.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Cart {
    /// Every line of the cart.
    cart: Vec<CartLine>,
    /// How many items in all.
    items: u32,
    /// The total, like "€43.00".
    total: String,
    /// What was just added, like "2 × Travel mug" (empty for `cart_total`).
    added: String,
}

/// No arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Nothing {}

/// `place_order`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct PlaceOrder {
    /// The customer's name, as they say it.
    customer_name: String,
    /// The customer's email address, spelled out by the customer.
    email: String,
    /// True only after the customer said yes to the order read back to them.
    confirmed: bool,
}

/// The order: read back for confirmation, or placed.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct OrderResult {
    /// `needs_confirmation` until the customer says yes, then `placed`.
    status: OrderStatus,
    /// The order's id once placed, like "HK-1001".
    order_id: Option<String>,
    /// What is ordered, like "2 × Travel mug and 1 × Tea infuser".
    summary: String,
    /// The total, like "€46.00".
    total: String,
    /// The cart after this call: empty once the order is placed.
    cart: Vec<CartLine>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum OrderStatus {
    NeedsConfirmation,
    Placed,
}

/// The cart in the call's State (`cart`), or empty.
fn cart_of(context: &ToolContext) -> Vec<CartLine> {
    context
        .state
        .get("cart")
        .filter(|v| !v.is_null())
        .and_then(|v| serde_json::from_value::<Vec<CartLine>>(v.clone()).ok())
        .unwrap_or_default()
}

fn totals(cart: &[CartLine]) -> (u32, f64) {
    let items = cart.iter().map(|l| l.quantity).sum();
    let total = cart.iter().map(|l| l.price * f64::from(l.quantity)).sum();
    (items, total)
}

fn summary(cart: &[CartLine]) -> String {
    let parts: Vec<String> = cart
        .iter()
        .map(|l| format!("{} × {}", l.quantity, l.name))
        .collect();
    match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn unknown_product(name: &str) -> ToolError {
    let matches = catalogue::search(name);
    if matches.len() > 1 {
        let names: Vec<&str> = matches.iter().map(|p| p.name.as_str()).collect();
        ToolError::new(format!(
            "\"{name}\" could be {}. Ask the customer which one.",
            names.join(" or ")
        ))
    } else {
        let names: Vec<&str> = catalogue::products()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        ToolError::new(format!(
            "The shop has no product called \"{name}\". It sells: {}.",
            names.join(", ")
        ))
    }
}

fn build(result: Result<ToolSpec, hark_tools::BuildError>) -> ToolSpec {
    // The tools' schemas are fixed in this file and checked by its tests.
    result.unwrap_or_else(|error| panic!("a demo shop tool does not build: {error}"))
}

/// `search_products`: the products whose name holds every word of the query.
pub fn search_products() -> ToolSpec {
    build(ToolSpec::local(
        "search_products",
        "Search the shop's products by name. Each has an id, a name and a price in euros.",
        |search: Search| async move {
            let products = catalogue::search(&search.query);
            Ok::<_, ToolError>(Found {
                count: products.len(),
                products,
            })
        },
    ))
}

/// `add_to_cart`: adds a product to the cart in the State (the agent file saves `cart`).
pub fn add_to_cart() -> ToolSpec {
    build(ToolSpec::local_with_context(
        "add_to_cart",
        "Add a product to the customer's cart.",
        |add: Add, context: ToolContext| async move {
            let Some(product) = catalogue::find(&add.product) else {
                return Err(unknown_product(&add.product));
            };
            let quantity = add.quantity.unwrap_or(1);
            let mut cart = cart_of(&context);
            match cart.iter_mut().find(|l| l.product_id == product.id) {
                Some(line) => line.quantity += quantity,
                None => cart.push(CartLine {
                    product_id: product.id.clone(),
                    name: product.name.clone(),
                    quantity,
                    price: product.price,
                }),
            }
            let (items, total) = totals(&cart);
            Ok::<_, ToolError>(Cart {
                added: format!("{quantity} × {}", product.name),
                cart,
                items,
                total: euros(total),
            })
        },
    ))
}

/// `cart_total`: what is in the cart and its total.
pub fn cart_total() -> ToolSpec {
    build(ToolSpec::local_with_context(
        "cart_total",
        "What is in the customer's cart, how many items and the total.",
        |_: Nothing, context: ToolContext| async move {
            let cart = cart_of(&context);
            let (items, total) = totals(&cart);
            Ok::<_, ToolError>(Cart {
                cart,
                items,
                total: euros(total),
                added: String::new(),
            })
        },
    ))
}

/// `place_order`: reads the order back (`confirmed: false`), then places it in `book`
/// (`confirmed: true`); the cart is empty afterwards.
pub fn place_order(book: OrderBook) -> ToolSpec {
    let tool = ToolSpec::local_with_context(
        "place_order",
        "Place the customer's order. Call it first with confirmed false: the order is read \
         back to the customer. Call it again with confirmed true only after they say yes.",
        move |order: PlaceOrder, context: ToolContext| {
            let book = book.clone();
            async move {
                let cart = cart_of(&context);
                if cart.is_empty() {
                    return Err(ToolError::new(
                        "The cart is empty. Ask what the customer wants, and add it with add_to_cart first.",
                    ));
                }
                let email = order.email.trim();
                let valid = email
                    .split_once('@')
                    .is_some_and(|(user, domain)| !user.is_empty() && domain.contains('.'));
                if !valid {
                    return Err(ToolError::new(
                        "email is not an email address. Ask the customer to spell it, then call place_order again.",
                    ));
                }
                let (items, total) = totals(&cart);
                if !order.confirmed {
                    return Ok(OrderResult {
                        status: OrderStatus::NeedsConfirmation,
                        order_id: None,
                        summary: summary(&cart),
                        total: euros(total),
                        cart,
                    });
                }
                let placed = book.place(order.customer_name.trim(), items, total);
                Ok(OrderResult {
                    status: OrderStatus::Placed,
                    order_id: Some(placed.order_id),
                    summary: summary(&cart),
                    total: euros(total),
                    cart: Vec::new(),
                })
            }
        },
    )
    .map(|tool| {
        tool.replies([
            ToolReply::say([
                "That's {{result.summary}}, {{result.total}} in all. Shall I place the order?",
            ])
            .when("status", [Value::from("needs_confirmation")]),
            ToolReply::say([
                "Your order {{result.order_id}} is placed: {{result.summary}}, {{result.total}}.",
            ])
            .when("status", [Value::from("placed")]),
        ])
        .interruption(hark_tools::Interruption::Continue)
    });
    build(tool)
}

/// Every local tool of the demo shop, placing orders in `book`.
pub fn tools(book: OrderBook) -> Vec<ToolSpec> {
    vec![
        search_products(),
        add_to_cart(),
        cart_total(),
        place_order(book),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty cart's sum is `-0.0` in Rust; its total is still written `€0.00`.
    #[test]
    fn an_empty_cart_totals_zero_never_negative_zero() {
        let (items, total) = totals(&[]);
        assert_eq!(items, 0);
        assert_eq!(euros(total), "€0.00");
    }
}
