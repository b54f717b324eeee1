import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { renderPage } from '../storefront.js';
import { createStorefrontServer } from '../server.js';

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

test('the page lists every product, escaped', () => {
  const html = renderPage([
    { id: 'a', name: 'Mug <large>' },
    { id: 'b', name: 'Filter' },
  ]);
  assert.match(html, /<li>Mug &#60;large&#62;/);
  assert.match(html, /<li>Filter/);
});

test('GET / shows the products the catalog serves', async (t) => {
  const catalog = createServer((req, res) => {
    assert.equal(req.url, '/products');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ id: 'x', name: 'From the catalog' }]));
  });
  const storefront = createStorefrontServer({ catalogUrl: await listen(catalog) });
  const url = await listen(storefront);
  t.after(() => {
    storefront.close();
    catalog.close();
  });
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /<li>From the catalog/);
});

test('GET / says so when the catalog is unavailable', async (t) => {
  const storefront = createStorefrontServer({ catalogUrl: undefined });
  const url = await listen(storefront);
  t.after(() => storefront.close());
  const res = await fetch(url);
  assert.equal(res.status, 502);
  assert.match(await res.text(), /catalog is unavailable: CATALOG_URL is not set/);
});
