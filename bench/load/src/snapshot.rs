//! The snapshots each session sends: a shop page shaped like the demo shop (banner, navigation,
//! search, filters, product cards with an "Add … to cart" button each, a cart, a footer), with
//! exactly the asked number of nodes.
//!
//! Refs change between snapshots: generation `g` (of [`GENERATIONS`], cycled) numbers its nodes
//! `e{g·256 + i + 1}` for node index `i` (< 256). A ref therefore names both the snapshot
//! generation it came from and the element, so a command built on a stale snapshot, or on the
//! wrong element, shows ([`decode_ref`]). The frames are encoded once (pipecat.Frame protobuf
//! around the RTVI JSON) and shared by every session: the generator's own cost per snapshot is
//! a send.

use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Bytes;

/// How many snapshot generations exist; a session cycles through them (one every 300 ms by
/// default, so a ref repeats after 19 s, far beyond the turn timeout).
pub const GENERATIONS: u32 = 64;

/// Node indexes per generation in the ref numbering (the node count is at most this).
pub const REF_SPAN: u32 = 256;

/// Fewest nodes of a page (banner, navigation, filters, one product, footer).
pub const MIN_NODES: u32 = 30;

/// Product names of the generated shop: the click targets are their "Add … to cart" buttons.
pub const PRODUCTS: [&str; 24] = [
    "Aeropress Go",
    "Hario V60 Dripper",
    "Chemex Six Cup",
    "Kalita Wave 185",
    "Moka Pot Three Cup",
    "French Press Classic",
    "Gooseneck Kettle",
    "Burr Grinder Mini",
    "Hand Grinder Pro",
    "Digital Scale Slim",
    "Milk Frother Wand",
    "Cold Brew Jar",
    "Paper Filters Pack",
    "Espresso Tamper",
    "Knock Box Small",
    "Travel Mug Steel",
    "Matcha Whisk Set",
    "Teapot Cast Iron",
    "Sencha Green Tea",
    "Earl Grey Loose Leaf",
    "Rooibos Vanilla",
    "Oolong High Mountain",
    "Ceramic Cup Pair",
    "Cleaning Tablets",
];

/// The accessible name of the "Add … to cart" button of `product`.
pub fn add_button_name(product: &str) -> String {
    format!("Add {product} to cart")
}

/// One generation of the page: its encoded frame and its click targets.
#[derive(Debug, Clone)]
pub struct Page {
    /// The whole `ui-snapshot` WebSocket message (a binary pipecat.Frame).
    pub frame: Bytes,
    /// `(button name, ref)` of every "Add … to cart" button, in [`PRODUCTS`] order.
    pub targets: Vec<(String, String)>,
    /// Nodes in the tree (the root included).
    pub nodes: usize,
    /// Size of the RTVI JSON text, in bytes.
    pub json_bytes: usize,
}

/// Reads a ref made by this module: `(generation, node index)`, or `None` for a ref of another
/// shape.
pub fn decode_ref(r: &str) -> Option<(u32, u32)> {
    let n: u32 = r.strip_prefix('e')?.parse().ok()?;
    let n = n.checked_sub(1)?;
    let g = n / REF_SPAN;
    (g < GENERATIONS).then_some((g, n % REF_SPAN))
}

/// Numbers the nodes of one generation.
struct Builder {
    gen_: u32,
    next: u32,
}

impl Builder {
    fn node(&mut self, role: &str, name: Option<&str>) -> Value {
        let r = format!("e{}", self.gen_ * REF_SPAN + self.next + 1);
        self.next += 1;
        let mut v = json!({"ref": r, "role": role});
        if let Some(name) = name {
            v["name"] = json!(name);
        }
        v
    }
}

/// Builds generation `gen` of the page with `nodes` nodes (clamped to [`MIN_NODES`]..=255).
pub fn page(gen_: u32, nodes: u32) -> Page {
    let nodes = nodes.clamp(MIN_NODES, REF_SPAN - 1);
    let mut b = Builder { gen_, next: 0 };
    let mut root = b.node("generic", None);
    // Banner: logo, navigation, search.
    let mut banner = b.node("banner", None);
    let mut banner_kids = vec![b.node("link", Some("Hark Coffee Gear"))];
    let mut nav = b.node("navigation", Some("Main"));
    let cart = format!("Cart ({})", gen_ % 7);
    let nav_kids: Vec<Value> = ["Home", "Grinders", "Kettles", "Brewers", "Tea", &cart]
        .iter()
        .map(|n| b.node("link", Some(n)))
        .collect();
    nav["children"] = json!(nav_kids);
    banner_kids.push(nav);
    let mut search = b.node("textbox", Some("Search products"));
    search["value"] = json!("");
    banner_kids.push(search);
    banner_kids.push(b.node("button", Some("Search")));
    banner["children"] = json!(banner_kids);

    // Main: heading, filters, product cards.
    let mut main = b.node("main", None);
    let mut main_kids = vec![{
        let mut h = b.node("heading", Some("All products"));
        h["level"] = json!(1);
        h
    }];
    let mut filters = b.node("group", Some("Filters"));
    let filter_kids: Vec<Value> = ["In stock", "On sale", "Coffee", "Tea", "Under 20 euros"]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut c = b.node("checkbox", Some(n));
            if (i as u32 + gen_).is_multiple_of(3) {
                c["state"] = json!(["checked"]);
            }
            c
        })
        .collect();
    filters["children"] = json!(filter_kids);
    main_kids.push(filters);
    let mut targets = Vec::new();
    let mut list = b.node("list", Some("Products"));
    let mut cards = Vec::new();
    // Room left for the footer's contentinfo node.
    for (i, product) in PRODUCTS.iter().enumerate() {
        if b.next + targets.len() as u32 + 5 > nodes - 1 {
            break;
        }
        let mut item = b.node("listitem", None);
        let mut h = b.node("heading", Some(product));
        h["level"] = json!(2);
        let price = format!(
            "{}.{:02} euros",
            8 + (i * 7) % 90,
            (i * 37 + gen_ as usize) % 100
        );
        let text = json!({"ref": "", "role": "text", "name": price});
        let button_name = add_button_name(product);
        let button = b.node("button", Some(&button_name));
        targets.push((button_name, button["ref"].as_str().unwrap_or("").to_owned()));
        let details = b.node("link", Some(&format!("Details of {product}")));
        item["children"] = json!([h, text, button, details]);
        cards.push(item);
    }
    list["children"] = json!(cards);
    main_kids.push(list);
    main["children"] = json!(main_kids);

    // Footer: links until the node count is reached (text nodes count as nodes).
    let mut footer = b.node("contentinfo", None);
    let text_nodes = targets.len() as u32;
    let mut footer_kids = Vec::new();
    let mut k = 0;
    while b.next + text_nodes < nodes {
        footer_kids.push(b.node("link", Some(&format!("Footer link {k}"))));
        k += 1;
    }
    footer["children"] = json!(footer_kids);
    root["children"] = json!([banner, main, footer]);

    let count = b.next as usize + text_nodes as usize;
    let message = json!({"label": "rtvi-ai", "type": "ui-snapshot", "id": format!("snap-{gen_}"),
        "data": {"tree": {"root": root, "captured_at": 1_767_225_600_000_i64 + i64::from(gen_) * 300}}});
    let text = message.to_string();
    Page {
        frame: hark_rtvi::frame::encode_message_json(&text).into(),
        targets,
        nodes: count,
        json_bytes: text.len(),
    }
}

/// Every generation of the page, built once.
pub fn pages(nodes: u32) -> Vec<Page> {
    (0..GENERATIONS).map(|g| page(g, nodes)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_exactly_the_asked_nodes_and_decodes_as_a_snapshot() {
        for nodes in [MIN_NODES, 200, 255] {
            let p = page(5, nodes);
            assert_eq!(p.nodes, nodes as usize);
            assert!(!p.targets.is_empty());
            let frame = hark_rtvi::frame::decode_frame(&p.frame).unwrap();
            let json = frame.message_json().unwrap();
            let parsed = hark_rtvi::message::parse_client_message(json)
                .unwrap()
                .message;
            let hark_rtvi::message::ClientMessage::UiSnapshot(s) = parsed else {
                panic!("a ui-snapshot");
            };
            assert_eq!(s.root.count(), nodes as usize);
        }
    }

    #[test]
    fn refs_name_their_generation_and_element() {
        let a = page(3, 200);
        let b = page(4, 200);
        assert_eq!(a.targets.len(), PRODUCTS.len());
        let (name_a, ref_a) = &a.targets[2];
        let (name_b, ref_b) = &b.targets[2];
        assert_eq!(name_a, name_b);
        assert_ne!(ref_a, ref_b);
        let (ga, ia) = decode_ref(ref_a).unwrap();
        let (gb, ib) = decode_ref(ref_b).unwrap();
        assert_eq!((ga, gb), (3, 4));
        assert_eq!(ia, ib);
        assert_eq!(decode_ref("x1"), None);
        assert_eq!(decode_ref("e0"), None);
        assert_eq!(
            decode_ref(&format!("e{}", GENERATIONS * REF_SPAN + 1)),
            None
        );
    }
}
