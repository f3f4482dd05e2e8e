//! The demo shop's products, read from the demo page's own catalogue (`web/src/shop.js`,
//! `PRODUCTS`, built into the binary), so the voice agent's tools and the page always sell the
//! same things at the same prices.

use std::sync::LazyLock;

use serde::Serialize;

/// One product of the demo shop.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Product {
    /// The page's id, like `travel-mug`.
    pub id: String,
    /// The name on the page, like `Travel mug`.
    pub name: String,
    /// The price in euros.
    pub price: f64,
}

/// The page's `shop.js`, whose `PRODUCTS` rows read `{ id: "…", name: "…", price: 9.5 },`.
const SHOP_JS: &str = include_str!("../../../../web/src/shop.js");

/// The `PRODUCTS` rows of `shop.js` (the lines holding `id:`).
fn product_rows(js: &str) -> Vec<&str> {
    let Some(start) = js.find("export const PRODUCTS = [") else {
        return Vec::new();
    };
    let end = js[start..].find("];").map_or(js.len(), |e| start + e);
    js[start..end]
        .lines()
        .filter(|l| l.contains("id:"))
        .collect()
}

/// The text between `key: "` and the next `"` of a row.
fn quoted<'a>(row: &'a str, key: &str) -> Option<&'a str> {
    let rest = &row[row.find(&format!("{key}: \""))? + key.len() + 3..];
    Some(&rest[..rest.find('"')?])
}

/// One `PRODUCTS` row, or `None` when it is not in the usual shape.
fn parse_row(row: &str) -> Option<Product> {
    let price = row.split("price:").nth(1)?;
    let price = price
        .trim()
        .trim_end_matches(',')
        .trim_end_matches('}')
        .trim();
    Some(Product {
        id: quoted(row, "id")?.to_string(),
        name: quoted(row, "name")?.to_string(),
        price: price.parse().ok()?,
    })
}

static PRODUCTS: LazyLock<Vec<Product>> = LazyLock::new(|| {
    product_rows(SHOP_JS)
        .into_iter()
        .filter_map(parse_row)
        .collect()
});

/// The shop's products, in the page's order.
pub fn products() -> &'static [Product] {
    &PRODUCTS
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches('s').to_string())
        .collect()
}

/// The products whose name or id holds every word of `query` (case and plural `s` ignored);
/// every product for an empty query.
pub fn search(query: &str) -> Vec<Product> {
    let wanted = words(query);
    products()
        .iter()
        .filter(|p| {
            let have = words(&format!("{} {}", p.name, p.id));
            wanted.iter().all(|w| have.contains(w))
        })
        .cloned()
        .collect()
}

/// The one product `name` means: its id or name exactly (any case), else the only product whose
/// name holds every word of it. `None` when none or several match.
pub fn find(name: &str) -> Option<Product> {
    let lower = name.trim().to_lowercase();
    if let Some(p) = products()
        .iter()
        .find(|p| p.id == lower || p.name.to_lowercase() == lower)
    {
        return Some(p.clone());
    }
    match search(name).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// `€34.50`: a price as the page writes it, rounded to cents. An amount that rounds to zero
/// (an empty cart's `-0.0`, or `-0.001`) is written `€0.00`, never `€-0.00`.
pub fn euros(amount: f64) -> String {
    let cents = (amount * 100.0).round();
    // `-0.0 + 0.0` is `+0.0`: this drops the sign of a negative zero.
    let amount = cents / 100.0 + 0.0;
    format!("€{amount:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_and_find() {
        assert_eq!(find("Travel Mug").unwrap().id, "travel-mug");
        assert_eq!(find("grinder").unwrap().id, "coffee-grinder");
        assert_eq!(find("tea-infuser").unwrap().price, 8.0);
        assert_eq!(find("nothing"), None);
        assert!(search("travel mugs").iter().any(|p| p.id == "travel-mug"));
        assert_eq!(search("").len(), products().len());
        assert_eq!(euros(9.5), "€9.50");
    }

    /// No amount is ever written as a negative zero (an empty cart's total is `-0.0`).
    #[test]
    fn euros_never_writes_negative_zero() {
        assert_eq!(euros(-0.0), "€0.00");
        assert_eq!(euros(-0.001), "€0.00");
        assert_eq!(euros(-0.004), "€0.00");
        assert_eq!(euros(0.0), "€0.00");
        assert_eq!(euros(-1.5), "€-1.50");
        assert_eq!(euros(43.0), "€43.00");
        let empty: Vec<f64> = Vec::new();
        assert_eq!(euros(empty.iter().sum()), "€0.00");
    }

    /// Every row of the page's `PRODUCTS` is read, none skipped.
    #[test]
    fn reads_every_product_of_the_demo_page() {
        let rows = product_rows(SHOP_JS);
        assert!(rows.len() >= 8, "{rows:?}");
        assert_eq!(products().len(), rows.len(), "{rows:?}");
        assert_eq!(
            products()[0],
            Product {
                id: "espresso-cup".into(),
                name: "Espresso cup".into(),
                price: 9.5
            }
        );
        assert_eq!(
            parse_row(r#"  { id: "french-press", name: "French press", price: 34 },"#)
                .unwrap()
                .price,
            34.0
        );
        assert_eq!(parse_row("{ id: 7 }"), None);
    }
}
