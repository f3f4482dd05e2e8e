// The shop half of the demo page: products, search, cart and checkout. Plain DOM, no framework.

/** The catalogue shown on the page (prices in euros). */
export const PRODUCTS = [
  { id: "espresso-cup", name: "Espresso cup", price: 9.5 },
  { id: "french-press", name: "French press", price: 34 },
  { id: "coffee-grinder", name: "Coffee grinder", price: 59 },
  { id: "pour-over-kettle", name: "Pour-over kettle", price: 45 },
  { id: "paper-filters", name: "Paper filters", price: 6 },
  { id: "travel-mug", name: "Travel mug", price: 19 },
  { id: "milk-frother", name: "Milk frother", price: 28 },
  { id: "tea-infuser", name: "Tea infuser", price: 8 },
  { id: "blue-mug", name: "Blue mug", price: 22 },
];

const euros = new Intl.NumberFormat("en-IE", { style: "currency", currency: "EUR" });

/**
 * Wires the shop up. `onEvent(name, payload)` is told about what the user did
 * (`add_to_cart`, `search`, `order_placed`); payloads carry no personal data.
 */
export function setupShop({ onEvent = () => {} } = {}) {
  const list = document.getElementById("product-list");
  const search = document.getElementById("search");
  const noResults = document.getElementById("no-results");
  const cartLink = document.getElementById("cart-link");
  const summary = document.getElementById("cart-summary");
  const form = document.getElementById("checkout-form");
  const result = document.getElementById("order-result");
  const cart = new Map(); // product id -> quantity

  for (const product of PRODUCTS) {
    const row = document.createElement("li");
    row.id = `product-${product.id}`;
    row.dataset.name = product.name.toLowerCase();
    const name = document.createElement("span");
    name.className = "name";
    name.id = `product-${product.id}-name`;
    name.textContent = product.name;
    const price = document.createElement("span");
    price.className = "price";
    price.id = `product-${product.id}-price`;
    price.textContent = euros.format(product.price);
    // The row is named by its product and price ("Espresso cup €9.50"), so a snapshot names it.
    row.setAttribute("aria-labelledby", `${name.id} ${price.id}`);
    const add = document.createElement("button");
    add.type = "button";
    add.textContent = "Add to cart";
    add.addEventListener("click", () => {
      cart.set(product.id, (cart.get(product.id) ?? 0) + 1);
      renderCart();
      onEvent("add_to_cart", { product: product.name });
    });
    row.append(name, price, add);
    list.append(row);
  }

  function count() {
    let n = 0;
    for (const quantity of cart.values()) n += quantity;
    return n;
  }

  function renderCart() {
    cartLink.textContent = `Cart (${count()})`;
    if (cart.size === 0) {
      summary.textContent = "Your cart is empty.";
      return;
    }
    let total = 0;
    const parts = [];
    for (const [id, quantity] of cart) {
      const product = PRODUCTS.find((p) => p.id === id);
      total += product.price * quantity;
      parts.push(`${quantity} × ${product.name}`);
    }
    summary.textContent = `In your cart: ${parts.join(", ")}. Total ${euros.format(total)}.`;
  }

  function filter() {
    const query = search.value.trim().toLowerCase();
    let shown = 0;
    for (const row of list.children) {
      const match = row.dataset.name.includes(query);
      row.hidden = !match;
      if (match) shown += 1;
    }
    noResults.hidden = shown > 0;
  }
  search.addEventListener("input", filter);
  search.addEventListener("change", () => onEvent("search", { query: search.value }));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = form.elements.name.value.trim();
    const email = form.elements.email.value.trim();
    const missing = [];
    if (count() === 0) missing.push("add something to the cart");
    if (!name) missing.push("fill in Name");
    if (!email || !form.elements.email.checkValidity()) missing.push("fill in a valid Email");
    if (missing.length > 0) {
      result.textContent = `Cannot place the order yet: ${missing.join(", ")}.`;
      return;
    }
    const country = form.elements.country.value;
    const giftWrap = form.elements.gift_wrap.checked;
    result.textContent =
      `Thank you, ${name}! ${count()} item(s) will ship to ${country}` + (giftWrap ? ", gift wrapped." : ".");
    onEvent("order_placed", { items: count(), country, gift_wrap: giftWrap });
    cart.clear();
    renderCart();
  });

  renderCart();
  filter();
}
