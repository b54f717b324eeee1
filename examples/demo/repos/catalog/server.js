// HTTP face of the catalog: GET /products answers the product list as JSON.
import { createServer } from 'node:http';
import { renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { listProducts } from './products.js';

export function createCatalogServer() {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/products') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(listProducts()));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `no route for ${req.method} ${path}` }));
  });
}

/** Listens on 127.0.0.1:PORT (0 = a free port); reports the port on stdout and in PORT_FILE. */
export function start(env = process.env) {
  const server = createCatalogServer();
  server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address();
    console.log(`catalog listening on http://127.0.0.1:${port}`);
    // Written whole then renamed, so a reader never sees a half-written port.
    if (env.PORT_FILE) {
      writeFileSync(`${env.PORT_FILE}.tmp`, String(port));
      renameSync(`${env.PORT_FILE}.tmp`, env.PORT_FILE);
    }
  });
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) start();
