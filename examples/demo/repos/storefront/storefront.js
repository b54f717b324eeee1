// The storefront page: products come from the catalog service, which owns them.

/** Reads the product list from the catalog at `catalogUrl` (its base URL). */
export async function fetchProducts(catalogUrl) {
  if (!catalogUrl) throw new Error("CATALOG_URL is not set: it must be the catalog service's base URL");
  const res = await fetch(`${catalogUrl.replace(/\/+$/, '')}/products`);
  if (!res.ok) throw new Error(`the catalog answered ${res.status} to GET /products`);
  return res.json();
}

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderProduct(product) {
  return `<li>${escapeHtml(product.name)}</li>`;
}

export function renderPage(products) {
  return ['<!doctype html>', '<title>Storefront</title>', '<h1>Storefront</h1>', '<ul>', ...products.map(renderProduct), '</ul>', ''].join('\n');
}
