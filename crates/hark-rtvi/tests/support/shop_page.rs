//! The load generator's shop page (bench/load/src/snapshot.rs `page`), rebuilt here so this
//! crate's tests and benches decode the same `ui-snapshot` that `hark-load` sends: a banner,
//! navigation, filters, product cards and footer links, with exactly the asked number of nodes,
//! refs `e{g·256 + i + 1}`. Shared by `benches/snapshot_decode.rs` and the tests through
//! `#[path]`.

use serde_json::{Value, json};

/// Product names of the load generator's shop page.
const PRODUCTS: [&str; 24] = [
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

/// Numbers the nodes of one generation (`e{g·256 + i + 1}`), as the load generator does.
struct Builder {
    gen_: u32,
    next: u32,
}

impl Builder {
    fn node(&mut self, role: &str, name: Option<&str>) -> Value {
        let r = format!("e{}", self.gen_ * 256 + self.next + 1);
        self.next += 1;
        let mut v = json!({"ref": r, "role": role});
        if let Some(name) = name {
            v["name"] = json!(name);
        }
        v
    }
}

/// The `ui-snapshot` message text of generation `gen_` of the shop page with `nodes` nodes
/// (30..=255), byte for byte what bench/load/src/snapshot.rs `page` wraps in its frame.
pub fn page(gen_: u32, nodes: u32) -> String {
    let nodes = nodes.clamp(30, 255);
    let mut b = Builder { gen_, next: 0 };
    let mut root = b.node("generic", None);
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
    let mut targets = 0u32;
    let mut list = b.node("list", Some("Products"));
    let mut cards = Vec::new();
    for (i, product) in PRODUCTS.iter().enumerate() {
        if b.next + targets + 5 > nodes - 1 {
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
        let button = b.node("button", Some(&format!("Add {product} to cart")));
        targets += 1;
        let details = b.node("link", Some(&format!("Details of {product}")));
        item["children"] = json!([h, text, button, details]);
        cards.push(item);
    }
    list["children"] = json!(cards);
    main_kids.push(list);
    main["children"] = json!(main_kids);

    let mut footer = b.node("contentinfo", None);
    let mut footer_kids = Vec::new();
    let mut k = 0;
    while b.next + targets < nodes {
        footer_kids.push(b.node("link", Some(&format!("Footer link {k}"))));
        k += 1;
    }
    footer["children"] = json!(footer_kids);
    root["children"] = json!([banner, main, footer]);
    json!({"label": "rtvi-ai", "type": "ui-snapshot", "id": format!("snap-{gen_}"),
        "data": {"tree": {"root": root, "captured_at": 1_767_225_600_000_i64 + i64::from(gen_) * 300}}})
    .to_string()
}
