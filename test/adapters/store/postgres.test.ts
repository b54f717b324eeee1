// The PostgreSQL store: the shared store contract on a real server this file starts, then what only
// a database server has: migrations run by several processes at once, a database that is not
// Conveyor's, an older Conveyor's or a newer one's, a schema of its own, and a server that goes
// away or refuses the login, each named with what to do and never with the password.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, SCHEMA_VERSION } from '../../../adapters/store/postgres.ts';
import { StoreError } from '../../../engine/ports/store.ts';
import { PG_PASSWORD, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { report, runOf, storeContract } from './contract.ts';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

let databases = 0;
let current = '';
storeContract('postgres', {
  async open() {
    current = `contract_${++databases}`;
    return openPostgresStore(await server.createDatabase(current));
  },
  async another() {
    return openPostgresStore(server.url(current));
  },
  async cleanup() {
    await server.dropDatabase(current);
  },
});

/** Runs SQL on a database directly, as an operator would with psql. */
async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const CHILD = join(import.meta.dirname, '../../fixtures/store/postgres-open-child.ts');

describe('postgres store: migrations', () => {
  it('four processes opening one new database at once migrate it once, and all of them use it', async () => {
    const url = await server.createDatabase('migrate_together');
    const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', CHILD, url], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = children.map((c) => createInterface({ input: c.stdout! })[Symbol.asyncIterator]());
    for (const l of lines) expect((await l.next()).value).toBe('ready');
    for (const c of children) c.stdin!.write('go\n');
    for (const l of lines) expect((await l.next()).value).toBe('ok');
    expect(await sql(url, 'SELECT name FROM conveyor_migrations ORDER BY name')).toEqual([{ name: '0001' }, { name: '0002' }]);
    expect(SCHEMA_VERSION).toBe(2);
    expect(await sql(url, "SELECT count(*)::int AS n FROM deliveries WHERE id LIKE 'delivery-%'")).toEqual([{ n: 4 }]);
    // Opening it again changes nothing, and what was stored stays.
    const store = await openPostgresStore(url);
    try {
      await store.create(runOf('r1'), [report('k')]);
    } finally {
      await store.close();
    }
    const again = await openPostgresStore(url);
    try {
      expect((await again.get('r1'))?.version).toBe(1);
      expect(await again.deliveryHandled(`delivery-${children[0]!.pid}`)).toBe(true);
    } finally {
      await again.close();
    }
    expect(await sql(url, 'SELECT name FROM conveyor_migrations ORDER BY name')).toEqual([{ name: '0001' }, { name: '0002' }]);
  });

  it('a database migrated by a newer Conveyor is refused with the versions, and left as it was', async () => {
    const url = await server.createDatabase('newer');
    await (await openPostgresStore(url)).close();
    await sql(url, `INSERT INTO conveyor_migrations (name, timestamp) VALUES ('0003', now()::text)`);
    const error = await openPostgresStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'newer-schema' });
    expect((error as Error).message).toBe(
      `The PostgreSQL database "newer" on 127.0.0.1:${server.port} (user conveyor) has schema version ${SCHEMA_VERSION + 1}, but this Conveyor knows versions up to ${SCHEMA_VERSION}: a newer Conveyor migrated it. Upgrade this replica to the same Conveyor as the others.`,
    );
    expect(await sql(url, 'SELECT name FROM conveyor_migrations ORDER BY name')).toEqual([{ name: '0001' }, { name: '0002' }, { name: '0003' }]);
  });

  it("another application's tables of other names, a schema_version among them, are left alone beside Conveyor's", async () => {
    const url = await server.createDatabase('shared');
    await sql(url, "CREATE TABLE schema_version (name text); INSERT INTO schema_version VALUES ('theirs'); CREATE TABLE users (id integer)");
    const store = await openPostgresStore(url);
    try {
      await store.create(runOf('r1'), []);
      expect((await store.get('r1'))?.version).toBe(1);
    } finally {
      await store.close();
    }
    expect(await sql(url, 'SELECT name FROM schema_version')).toEqual([{ name: 'theirs' }]);
  });

  it("an older Conveyor's database (its schema_version table) is refused, naming what to do, and left as it was", async () => {
    const url = await server.createDatabase('older');
    await sql(
      url,
      "CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (1); CREATE TABLE runs (id text); INSERT INTO runs VALUES ('web-7')",
    );
    await expect(openPostgresStore(url)).rejects.toMatchObject({
      code: 'older-schema',
      message: `The PostgreSQL database "older" on 127.0.0.1:${server.port} (user conveyor) is an older Conveyor's (schema version 1), which this Conveyor does not read. Give this Conveyor a new database (or schema), or drop the old tables to start afresh; or keep using the older Conveyor for it.`,
    });
    expect(
      (await sql<{ name: string }>(url, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).map(
        (r) => r.name,
      ),
    ).toEqual(['runs', 'schema_version']);
    expect(await sql(url, 'SELECT id FROM runs')).toEqual([{ id: 'web-7' }]);
  });

  it("a schema of its own (the URL's search_path) holds Conveyor's tables beside another application's of the same names; one that does not exist is named", async () => {
    const url = await server.createDatabase('own_schema');
    // Not named as its user (conveyor): PostgreSQL's default search_path starts with the user's schema.
    await sql(url, 'CREATE TABLE runs (id integer); CREATE SCHEMA app');
    const inSchema = (schema: string) => `${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const store = await openPostgresStore(inSchema('app'));
    try {
      await store.create(runOf('r1'), [report('k')]);
      expect((await store.get('r1'))?.version).toBe(1);
    } finally {
      await store.close();
    }
    // Opened again: its migrations are found in its schema, not looked for in another.
    const again = await openPostgresStore(inSchema('app'));
    await again.close();
    expect(await sql(url, 'SELECT name FROM app.conveyor_migrations ORDER BY name')).toEqual([{ name: '0001' }, { name: '0002' }]);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM app.runs')).toEqual([{ n: 1 }]);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM public.runs')).toEqual([{ n: 0 }]);
    // A second Conveyor in the public schema sees the first's migrations nowhere, and public's runs as not its own.
    await expect(openPostgresStore(url)).rejects.toMatchObject({
      code: 'not-a-store',
      message: expect.stringContaining("is not Conveyor's: it has tables runs"),
    });
    await expect(openPostgresStore(inSchema('nowhere'))).rejects.toMatchObject({
      code: 'not-a-store',
      message: expect.stringContaining("has no schema to make Conveyor's tables in"),
    });
  });

  it("another application's tables of the same names are refused, and left as they were", async () => {
    const url = await server.createDatabase('foreign');
    await sql(url, 'CREATE TABLE runs (id integer); CREATE TABLE users (id integer)');
    await expect(openPostgresStore(url)).rejects.toMatchObject({
      code: 'not-a-store',
      message: `The PostgreSQL database "foreign" on 127.0.0.1:${server.port} (user conveyor) is not Conveyor's: it has tables runs and no conveyor_migrations. Give Conveyor a database of its own (CREATE DATABASE conveyor), or a schema of its own through the URL's options (?options=-c%20search_path%3Dconveyor).`,
    });
    expect(
      (await sql<{ name: string }>(url, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).map(
        (r) => r.name,
      ),
    ).toEqual(['runs', 'users']);
  });
});

describe('postgres store: a server that is not there', () => {
  it('a server that goes away makes every call `unavailable`, naming the database and host but not the password; it works again once the server is back', async () => {
    const url = await server.createDatabase('outage');
    const store = await openPostgresStore(url);
    try {
      await store.create(runOf('r1'), []);
      server.down();
      const where = `database "outage" on 127.0.0.1:${server.port} (user conveyor)`;
      for (const call of [() => store.get('r1'), () => store.commit({ ...runOf('r1'), version: 1 }, [report('k')]), () => store.recordDelivery('d')]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toMatchObject({ code: 'unavailable' });
        expect((error as Error).message).toContain(`The PostgreSQL ${where}`);
        expect((error as Error).message).toMatch(/check that the server is running/);
        expect((error as Error).message).not.toContain(PG_PASSWORD);
      }
      // Opening a store while it is down says the same.
      const opening = await openPostgresStore(url).catch((e: unknown) => e);
      expect(opening).toMatchObject({ code: 'unavailable', message: expect.stringContaining(`The PostgreSQL ${where} cannot be reached`) });
      expect((opening as Error).message).not.toContain(PG_PASSWORD);
      server.up();
      // The pool makes new connections: nothing was half-written while it was away.
      expect(await store.get('r1')).toMatchObject({ version: 1 });
      expect(await store.pendingEffects('r1')).toEqual([]);
    } finally {
      server.up();
      await store.close();
    }
  });

  it('a wrong password, an unknown database and a URL that is not one are named with what to fix, never with the password', async () => {
    const wrong = server.url('postgres').replace(PG_PASSWORD, 'not-the-password');
    const refused = await openPostgresStore(wrong).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('refused the login: check the user and password in CONVEYOR_DATABASE_URL'),
    });
    expect((refused as Error).message).not.toContain('not-the-password');
    const missing = await openPostgresStore(server.url('no_such_db')).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'unavailable', message: expect.stringContaining('database "no_such_db" on 127.0.0.1') });
    expect((missing as Error).message).toContain('does not exist: create it (CREATE DATABASE)');
    expect((missing as Error).message).not.toContain(PG_PASSWORD);
    const bad = await openPostgresStore(`postgres://conveyor:${PG_PASSWORD}@[bad/db`).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'not-a-store', message: expect.stringContaining('postgres://conveyor:***@[bad/db is not a URL') });
    expect((bad as Error).message).not.toContain(PG_PASSWORD);
  });

  it('a closed store says so', async () => {
    const store = await openPostgresStore(await server.createDatabase('closed'));
    await store.close();
    await store.close();
    await expect(store.get('r1')).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('was closed') });
  });
});
