import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listProducts } from '../products.js';
import { createCatalogServer } from '../server.js';

test('every product has an id and a name', () => {
  const products = listProducts();
  assert.ok(products.length > 0);
  for (const p of products) {
    assert.match(p.id, /^[a-z-]+$/);
    assert.equal(typeof p.name, 'string');
  }
});

test('GET /products answers the product list as JSON', async (t) => {
  const server = createCatalogServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const res = await fetch(`http://127.0.0.1:${server.address().port}/products`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), listProducts());
  const missing = await fetch(`http://127.0.0.1:${server.address().port}/nothing`);
  assert.equal(missing.status, 404);
  await missing.text();
});
