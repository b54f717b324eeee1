#!/usr/bin/env node
// The demo's end-to-end gate: runs after the deploy, against the previews it stood up (Conveyor
// gives a step after a deploy $CONVEYOR_ENV_<SERVICE>_URL for each ready environment). It reads
// the products from the catalog's preview and checks that the storefront's preview shows each one
// with the catalog's price in dollars and cents ("Espresso cup — $12.50"). A preview that still
// runs older code (one deployed before a repair) fails it, naming what the page shows instead.
const catalogUrl = process.env.CONVEYOR_ENV_CATALOG_URL;
const storefrontUrl = process.env.CONVEYOR_ENV_STOREFRONT_URL ?? process.env.CONVEYOR_ENV_URL;

function fail(message) {
  console.error(`e2e: ${message}`);
  process.exit(1);
}

if (!catalogUrl || !storefrontUrl) {
  fail(
    `needs the previews of the catalog and the storefront (CONVEYOR_ENV_CATALOG_URL, CONVEYOR_ENV_STOREFRONT_URL), got: ${process.env.CONVEYOR_ENV_URLS || 'none'}; run it in a gate after the deploy step`,
  );
}

async function get(url) {
  try {
    const res = await fetch(url, { signal: globalThis.AbortSignal.timeout(10_000) });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    fail(`GET ${url} failed: ${e.cause?.message ?? e.message}`);
  }
}

const served = await get(`${catalogUrl.replace(/\/+$/, '')}/products`);
if (served.status !== 200) fail(`the catalog's preview answered ${served.status} to GET /products`);
const products = JSON.parse(served.text);
const page = await get(storefrontUrl);
if (page.status !== 200) fail(`the storefront's preview answered ${page.status}: ${page.text.slice(0, 200)}`);

const wrong = [];
for (const p of products) {
  if (typeof p.price !== 'number') {
    wrong.push(`the catalog serves no price for ${p.name}`);
    continue;
  }
  const want = `${p.name} — $${p.price.toFixed(2)}`;
  if (page.text.includes(`<li>${want}</li>`)) continue;
  const shown =
    page.text
      .split('\n')
      .find((l) => l.includes(p.name))
      ?.trim() ?? '(not on the page)';
  wrong.push(`the storefront shows ${shown}, not <li>${want}</li>`);
}
if (wrong.length) {
  for (const w of wrong) console.error(`not ok - ${w}`);
  fail(`${wrong.length} of ${products.length} products do not show the catalog's price (${storefrontUrl})`);
}
console.log(`ok - the storefront's preview shows the catalog's ${products.length} prices (${storefrontUrl}, catalog ${catalogUrl})`);
