// Grounding rows from the demo shop (web/dist), snapshotted with client-js's own walker in
// several states, with hand-written descriptions and their targets as CSS selectors.
//
// Usage: node demo_rows.mjs <snap-bundle.js> <http://host:port/index.html> <out.jsonl>
//   The page must be served over HTTP (its module script does not run from file://).
//
// A description's target is a list of CSS selectors (any of them is right) or [] for "none"
// (nothing on screen fits). Each selector must match exactly one element, and that element must
// be a named element of the snapshot (an option of `which_element`), else the script fails.
import { chromium } from 'playwright-core';
import fs from 'node:fs';

const [bundle, url, outFile] = process.argv.slice(2);
if (!bundle || !url || !outFile) {
  console.error('usage: node demo_rows.mjs <snap-bundle.js> <url> <out.jsonl>');
  process.exit(2);
}
const bundleSrc = fs.readFileSync(bundle, 'utf8');

const PRODUCTS = [
  // id, synonyms a shopper might use
  ['espresso-cup', ['the espresso cup', 'the little coffee cup', 'the espresso mug']],
  ['french-press', ['the French press', 'the cafetière', 'the plunger coffee maker']],
  ['coffee-grinder', ['the coffee grinder', 'the bean grinder', 'the coffee mill']],
  ['pour-over-kettle', ['the pour-over kettle', 'the gooseneck kettle', 'the pour over kettle']],
  ['paper-filters', ['the paper filters', 'the coffee filters', 'the filter papers']],
  ['travel-mug', ['the travel mug', 'the thermos', 'the to-go cup']],
  ['milk-frother', ['the milk frother', 'the milk foamer', 'the frother']],
  ['tea-infuser', ['the tea infuser', 'the tea strainer', 'the tea ball']],
];
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'];
const NUMBERED = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th'];
const add = (id) => `#product-${id} button`;
const CART = '#cart-link';

/** Descriptions that hold on every state where the form and chat are shown. */
const common = [
  ['the email field', ['#email']],
  ['the e-mail address box', ['#email']],
  ['where do I type my email', ['#email']],
  ['the name field', ['#name']],
  ['the box for my name', ['#name']],
  ['the country dropdown', ['#country']],
  ['the country picker', ['#country']],
  ['the gift wrap checkbox', ['#gift-wrap']],
  ['wrap it as a gift', ['#gift-wrap']],
  ['the checkbox', ['#gift-wrap']],
  ['place the order', ['#place-order']],
  ['complete my purchase', ['#place-order']],
  ['the buy button', ['#place-order']],
  ['submit the order', ['#place-order']],
  ['the chat box', ['#message']],
  ['the message field', ['#message']],
  ['send my message', ['#send']],
  ['the send button', ['#send']],
  ['the products link', ['nav a[href="#products"]']],
  ['go to the product list', ['nav a[href="#products"]', '#products-heading', '#products']],
  ['the shop navigation', ['header nav']],
  ['the checkout heading', ['#checkout-heading']],
  ['the conversation panel', ['#conversation']],
  ['Germany in the country list', ['#country option:nth-child(2)']],
  ['pick the United Kingdom', ['#country option:nth-child(6)']],
  ['choose Spain as the country', ['#country option:nth-child(5)']],
  ['ship to the US', ['#country option:nth-child(7)']],
  ['the last country option', ['#country option:nth-child(7)']],
  // Nothing on screen fits.
  ['the sign in button', []],
  ['log me out', []],
  ['the newsletter checkbox', []],
  ['the coupon code field', []],
  ['the phone number field', []],
  ['the wishlist', []],
  ['next page of results', []],
  ['the dark mode toggle', []],
  ['the delete account button', []],
  ['the shipping address field', []],
  ['pick Canada as the country', []],
  ['the password field', []],
  ['the help center link', []],
];

function productRows(visible) {
  const rows = [];
  visible.forEach((id, i) => {
    const [first, second, third] = PRODUCTS.find((p) => p[0] === id)[1];
    rows.push([`add ${first} to the cart`, [add(id)]]);
    rows.push([`put ${second} in my basket`, [add(id)]]);
    rows.push([`I'll take ${third}`, [add(id)]]);
    rows.push([`the ${NUMBERED[i]} add to cart button`, [add(id)]]);
    rows.push([`add the ${ORDINALS[i]} product`, [add(id)]]);
  });
  const last = visible[visible.length - 1];
  rows.push(['the last add to cart button', [add(last)]]);
  rows.push(['add the bottom item in the list', [add(last)]]);
  rows.push([`the ${NUMBERED[visible.length]} add to cart button`, []]);
  for (const [id, names] of PRODUCTS) {
    if (!visible.includes(id)) rows.push([`add ${names[0]} to the cart`, []]);
  }
  rows.push(['add the teapot to my cart', []]);
  rows.push(['add the red shoes', []]);
  return rows;
}

const ALL = PRODUCTS.map((p) => p[0]);
const STATES = [
  {
    page: 'demo/home',
    setup: async () => {},
    descriptions: [
      ...productRows(ALL),
      ...common,
      ['the basket', [CART]],
      ['open my cart', [CART]],
      ['my trolley', [CART]],
      ['the search box', ['#search']],
      ['filter the products', ['#search']],
      ['the main heading', ['header h1']],
      ['reconnect to the assistant', ['#reconnect']],
      ['try connecting again', ['#reconnect']],
      ['the connection status', []],
    ],
  },
  {
    page: 'demo/cart',
    setup: async (page) => {
      await page.click(add('french-press'));
      await page.click(add('travel-mug'));
      await page.click(add('travel-mug'));
    },
    descriptions: [
      ...productRows(ALL).filter((_, i) => i % 2 === 0),
      ...common.filter((_, i) => i % 2 === 1),
      ['the basket with three items', [CART]],
      ['the cart link', [CART]],
      ['view basket', [CART]],
      ['what is in my cart', ['#cart-summary', CART]],
      ['the cart summary', ['#cart-summary']],
      ['another travel mug please', [add('travel-mug')]],
      ['one more French press', [add('french-press')]],
      ['remove the travel mug', []],
      ['empty the cart', []],
    ],
  },
  {
    page: 'demo/search',
    setup: async (page) => {
      await page.fill('#search', 'p');
    },
    // "p" keeps: espresso cup, french press, pour-over kettle, paper filters.
    descriptions: [
      ...productRows(['espresso-cup', 'french-press', 'pour-over-kettle', 'paper-filters']),
      ...common.filter((_, i) => i % 3 === 0),
      ['the search field', ['#search']],
      ['clear the search', ['#search']],
      ['the shopping cart', [CART]],
      ['the cart', [CART]],
    ],
  },
  {
    page: 'demo/checkout',
    setup: async (page) => {
      await page.click(add('coffee-grinder'));
      await page.fill('#name', 'Ana Lima');
      await page.fill('#email', 'ana@example.com');
      await page.selectOption('#country', 'Portugal');
      await page.check('#gift-wrap');
    },
    descriptions: [
      ...common,
      ['the field that says ana@example.com', ['#email']],
      ['the box with Ana Lima in it', ['#name']],
      ['untick gift wrapping', ['#gift-wrap']],
      ['the ticked checkbox', ['#gift-wrap']],
      ['the selected country', ['#country option:nth-child(4)', '#country']],
      ['change Portugal to France', ['#country option:nth-child(1)', '#country']],
      ['order now', ['#place-order']],
      ['add another grinder', [add('coffee-grinder')]],
      ['the unchecked checkbox', []],
      ['the empty email field', []],
    ],
  },
  {
    page: 'demo/ordered',
    setup: async (page) => {
      await page.click(add('milk-frother'));
      await page.click(add('tea-infuser'));
      await page.fill('#name', 'Sam Okafor');
      await page.fill('#email', 'sam@example.org');
      await page.click('#place-order');
    },
    descriptions: [
      ...productRows(ALL).filter((_, i) => i % 3 === 1),
      ['the empty cart', [CART, '#cart-summary']],
      ['the basket', [CART]],
      ['place another order', ['#place-order']],
      ['the email box', ['#email']],
      ['the name field with Sam in it', ['#name']],
      ['the gift option', ['#gift-wrap']],
      ['the chat input', ['#message']],
      ['the order confirmation', []],
      ['track my order', []],
      ['download the invoice', []],
      ['cancel the order', []],
    ],
  },
  {
    page: 'demo/error',
    setup: async (page) => {
      await page.click('#place-order');
    },
    descriptions: [
      ['the email field', ['#email']],
      ['the field I still need to fill in for my name', ['#name']],
      ['try placing the order again', ['#place-order']],
      ['the basket', [CART]],
      ['add the cheapest product', [add('paper-filters')]],
      ['add the most expensive item', [add('coffee-grinder')]],
      ['add the kettle', [add('pour-over-kettle')]],
      ['the country menu', ['#country']],
      ['the first add to cart button', [add('espresso-cup')]],
      ['the 5th add to cart button', [add('paper-filters')]],
      ['the last product', [add('tea-infuser')]],
      ['dismiss the error', []],
      ['the retry link', []],
      ['the close button on the error', []],
      ['the captcha', []],
    ],
  },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = fs.openSync(outFile, 'w');
let rows = 0;
let failed = 0;
for (const [i, state] of STATES.entries()) {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await ctx.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: 15000 });
  await page.waitForSelector('#product-list li');
  await state.setup(page);
  await page.waitForTimeout(100);
  // Blur whatever the setup focused, so the tree's focus is the same as a fresh page's.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.addScriptTag({ content: bundleSrc });
  const snapshot = await page.evaluate((capturedAt) => {
    const s = window.HarkSnap.snapshotDocument();
    s.captured_at = capturedAt;
    return s;
  }, 1767229200000 + i * 1000);
  const named = new Set();
  const queue = [snapshot.root];
  while (queue.length > 0 && named.size < 255) {
    const node = queue.shift();
    if (node.ref && node.name) named.add(node.ref);
    for (const child of node.children || []) queue.push(child);
  }
  for (const [description, selectors] of state.descriptions) {
    const resolved = await page.evaluate((selectors) => selectors.map((sel) => {
      const found = document.querySelectorAll(sel);
      if (found.length !== 1) return { sel, error: `${found.length} matches` };
      const ref = window.HarkSnap.findRefForElement(found[0]);
      return ref ? { sel, ref } : { sel, error: 'no ref (not in the tree)' };
    }), selectors);
    const refs = [];
    for (const r of resolved) {
      if (r.error) console.error(`${state.page}: ${JSON.stringify(description)}: ${r.sel}: ${r.error}`);
      else if (!named.has(r.ref)) console.error(`${state.page}: ${JSON.stringify(description)}: ${r.sel} (${r.ref}) is not a named element`);
      else if (!refs.includes(r.ref)) refs.push(r.ref);
    }
    if (selectors.length > 0 && refs.length === 0) {
      failed++;
      continue;
    }
    fs.writeSync(out, JSON.stringify({ page: state.page, snapshot, description, refs }) + '\n');
    rows++;
  }
  await ctx.close();
}
await browser.close();
fs.closeSync(out);
console.error(`demo_rows: ${rows} rows${failed ? `, ${failed} dropped (target not an option)` : ''}`);
