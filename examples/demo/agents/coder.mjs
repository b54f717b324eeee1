#!/usr/bin/env node
// The demo's scripted coding agent. It makes the demo issue's real cross-repository change: the
// catalog (provider) serves a `price` with each product, the storefront (consumer) shows it, and
// each gets a test. Its first attempt formats the price wrongly ($12.5 instead of $12.50), so the
// storefront's new test fails and Conveyor's repair loop shows; any later run that finds that bug
// in the checkout fixes it, as a real agent reading the failing lines would. It never commits:
// Conveyor commits what it leaves.
//
// Environment (Conveyor's agent contract): CONVEYOR_REPOS (JSON list of {repo, dir, role,
// service}; dir absolute or relative to CONVEYOR_WORKSPACE), CONVEYOR_ATTEMPT, CONVEYOR_STEP,
// CONVEYOR_PROMPT_FILE. CONVEYOR_DEMO_CODER=flawless skips the bug; =stubborn never fixes it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const PRICES = { cup: 12.5, kettle: 48, grinder: 129.99 };
const BUGGY_FORMAT = 'return `$${price}`;';
const RIGHT_FORMAT = 'return `$${Number(price).toFixed(2)}`;';
const PLAIN_ITEM = 'return `<li>${escapeHtml(product.name)}</li>`;';
const PRICED_ITEM = 'return `<li>${escapeHtml(product.name)} — ${formatPrice(product.price)}</li>`;';

function fail(message) {
  console.error(`coder: ${message}`);
  process.exit(1);
}

function findCheckouts() {
  const raw = process.env.CONVEYOR_REPOS;
  if (!raw) fail('CONVEYOR_REPOS is not set; it must be the JSON list of {repo, dir, role, service} that Conveyor gives agents');
  let list;
  try {
    list = JSON.parse(raw);
  } catch (e) {
    fail(`CONVEYOR_REPOS is not JSON (${e.message})`);
  }
  if (!Array.isArray(list)) fail('CONVEYOR_REPOS must be a JSON list of {repo, dir, role, service}');
  const workspace = process.env.CONVEYOR_WORKSPACE || process.cwd();
  const pick = (service) => {
    const entry = list.find(
      (e) =>
        e &&
        (e.service === service ||
          (Array.isArray(e.services) && e.services.includes(service)) ||
          (typeof e.repo === 'string' && e.repo.split('/')[1] === service)),
    );
    if (!entry) fail(`CONVEYOR_REPOS has no "${service}" repository (it lists: ${list.map((e) => e?.repo).join(', ') || 'nothing'})`);
    if (typeof entry.dir !== 'string' || !entry.dir) fail(`CONVEYOR_REPOS entry for ${entry.repo} has no "dir"`);
    const dir = isAbsolute(entry.dir) ? entry.dir : resolve(workspace, entry.dir);
    if (!existsSync(join(dir, 'package.json'))) fail(`${entry.repo}: no checkout with a package.json at ${dir}`);
    return { repo: entry.repo ?? service, dir };
  };
  return { catalog: pick('catalog'), storefront: pick('storefront') };
}

/** Rewrites one file through `change`; writes and reports only when the text really changed. */
function edit(checkout, file, change) {
  const path = join(checkout.dir, file);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : null;
  const after = change(before);
  if (after === before) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, after);
  console.log(`  ${before === null ? 'A' : 'M'} ${checkout.repo}: ${file}`);
  return true;
}

function changeCatalog(catalog) {
  edit(catalog, 'products.js', (text) => {
    if (text === null) fail(`${catalog.repo}: products.js is missing`);
    if (/\bprice:/.test(text)) return text;
    let count = 0;
    const priced = text.replace(/\{ id: '([a-z-]+)', name: '([^']*)' \}/g, (_, id, name) => {
      if (!(id in PRICES)) fail(`${catalog.repo}: products.js has a product "${id}" this agent has no price for`);
      count++;
      return `{ id: '${id}', name: '${name}', price: ${PRICES[id]} }`;
    });
    if (count === 0) fail(`${catalog.repo}: products.js has no product entries of the form { id: '...', name: '...' }`);
    return priced.replace('// The products this service provides.', '// The products this service provides, with prices in dollars.');
  });
  edit(catalog, 'test/price.test.js', (text) => text ?? CATALOG_TEST);
}

function changeStorefront(storefront, { withBug, fixBug }) {
  edit(storefront, 'storefront.js', (text) => {
    if (text === null) fail(`${storefront.repo}: storefront.js is missing`);
    if (text.includes(BUGGY_FORMAT)) {
      if (!fixBug) return text;
      console.log(`  fixing the price format in ${storefront.repo} (two decimals)`);
      // A function, not a string: `$$` in a replacement string would collapse to `$`.
      return text.replace(BUGGY_FORMAT, () => RIGHT_FORMAT);
    }
    if (text.includes('formatPrice')) return text;
    if (!text.includes(PLAIN_ITEM)) fail(`${storefront.repo}: storefront.js no longer renders items as this agent expects`);
    const format = withBug ? BUGGY_FORMAT : RIGHT_FORMAT;
    return (
      text.replace(PLAIN_ITEM, () => PRICED_ITEM) + `\n/** Dollars and cents: 12.5 becomes "$12.50". */\nexport function formatPrice(price) {\n  ${format}\n}\n`
    );
  });
  edit(storefront, 'test/price.test.js', (text) => text ?? STOREFRONT_TEST);
}

const CATALOG_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listProducts } from '../products.js';
import { createCatalogServer } from '../server.js';

test('every product has a positive price in dollars and cents', () => {
  for (const p of listProducts()) {
    assert.equal(typeof p.price, 'number', \`\${p.id} has no price\`);
    assert.ok(p.price > 0, \`\${p.id} costs \${p.price}\`);
    assert.ok(Math.abs(p.price * 100 - Math.round(p.price * 100)) < 1e-9, \`\${p.id}: \${p.price} is not whole cents\`);
  }
});

test('GET /products serves every price', async (t) => {
  const server = createCatalogServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const res = await fetch(\`http://127.0.0.1:\${server.address().port}/products\`);
  const served = await res.json();
  assert.deepEqual(served.map((p) => p.price), listProducts().map((p) => p.price));
});
`;

const STOREFRONT_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderPage } from '../storefront.js';

test('each product shows its price in dollars and cents', () => {
  const html = renderPage([
    { id: 'cup', name: 'Espresso cup', price: 12.5 },
    { id: 'kettle', name: 'Pour-over kettle', price: 48 },
  ]);
  assert.match(html, /<li>Espresso cup — \\$12\\.50<\\/li>/);
  assert.match(html, /<li>Pour-over kettle — \\$48\\.00<\\/li>/);
});
`;

const attempt = Number.parseInt(process.env.CONVEYOR_ATTEMPT ?? '1', 10) || 1;
const style = process.env.CONVEYOR_DEMO_CODER ?? 'normal';
if (!['normal', 'flawless', 'stubborn'].includes(style)) fail(`CONVEYOR_DEMO_CODER must be normal, flawless or stubborn, not "${style}"`);
const promptFile = process.env.CONVEYOR_PROMPT_FILE;
const prompt = promptFile && existsSync(promptFile) ? readFileSync(promptFile, 'utf8') : '';
const failing = prompt.split('\n').filter((l) => /not ok|AssertionError|fail/i.test(l) && /\S/.test(l));

console.log(`coder: ${process.env.CONVEYOR_STEP ?? 'code'} attempt ${attempt}${attempt > 1 ? ' (repair)' : ''}`);
if (attempt > 1 && failing.length) {
  console.log(`  the prompt reports ${failing.length} failing line(s), e.g. ${failing[0].trim().slice(0, 120)}`);
}
const checkouts = findCheckouts();
changeCatalog(checkouts.catalog);
changeStorefront(checkouts.storefront, {
  withBug: attempt === 1 && style !== 'flawless',
  fixBug: style !== 'stubborn',
});
console.log('coder: done (left uncommitted for Conveyor)');
