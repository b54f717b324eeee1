// HTTP face of the storefront: GET / renders the products it reads from the catalog (CATALOG_URL).
import { createServer } from 'node:http';
import { renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { escapeHtml, fetchProducts, renderPage } from './storefront.js';

export function createStorefrontServer({ catalogUrl }) {
  return createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' || path !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`no route for ${req.method} ${path}\n`);
      return;
    }
    try {
      const page = renderPage(await fetchProducts(catalogUrl));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html>\n<h1>Storefront</h1>\n<p>The catalog is unavailable: ${escapeHtml(e.message)}</p>\n`);
    }
  });
}

/** Listens on 127.0.0.1:PORT (0 = a free port); reports the port on stdout and in PORT_FILE. */
export function start(env = process.env) {
  const server = createStorefrontServer({ catalogUrl: env.CATALOG_URL });
  server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address();
    console.log(`storefront listening on http://127.0.0.1:${port} (catalog: ${env.CATALOG_URL ?? 'not set'})`);
    // Written whole then renamed, so a reader never sees a half-written port.
    if (env.PORT_FILE) {
      writeFileSync(`${env.PORT_FILE}.tmp`, String(port));
      renameSync(`${env.PORT_FILE}.tmp`, env.PORT_FILE);
    }
  });
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) start();
