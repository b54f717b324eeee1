// Where `conveyor serve` keeps its runs (CONVEYOR_DATABASE_URL): a SQLite file by default or by
// name, or a PostgreSQL database (several replicas); an unknown scheme is refused, saying what to
// give instead. The run store and the app's links share one database.
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { databaseOf, DEFAULT_DATABASE, openAppStore } from '../../app/stores.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';

describe('CONVEYOR_DATABASE_URL', () => {
  it('names a SQLite file: unset, a path, sqlite:PATH, file:PATH, or in memory', () => {
    const sqlite = (path: string) => ({ kind: 'sqlite', path });
    expect(databaseOf(undefined)).toEqual(sqlite(resolve(DEFAULT_DATABASE)));
    expect(databaseOf('  ')).toEqual(sqlite(resolve(DEFAULT_DATABASE)));
    expect(databaseOf('data/app.db')).toEqual(sqlite(resolve('data/app.db')));
    expect(databaseOf('sqlite:/var/lib/conveyor/app.db')).toEqual(sqlite('/var/lib/conveyor/app.db'));
    expect(databaseOf('sqlite:///var/lib/conveyor/app.db')).toEqual(sqlite('/var/lib/conveyor/app.db'));
    expect(databaseOf('file:rel/app.db')).toEqual(sqlite(resolve('rel/app.db')));
    expect(databaseOf('sqlite::memory:')).toEqual(sqlite(':memory:'));
  });

  it('names a PostgreSQL database: postgres:// or postgresql://', () => {
    for (const url of ['postgres://db/conveyor', 'postgresql://u:p@db:5432/conveyor?sslmode=require', 'POSTGRES://db/conveyor'])
      expect(databaseOf(url)).toEqual({ kind: 'postgres', url });
  });

  it('refuses a URL of another kind, naming it (its password hidden) and the forms it takes', () => {
    expect(() => databaseOf('mysql://db/conveyor')).toThrow(UsageError);
    expect(() => databaseOf('mysql://db/conveyor')).toThrow(
      'CONVEYOR_DATABASE_URL: "mysql://db/conveyor" is not a database Conveyor knows; give a SQLite file path, sqlite:PATH or file:PATH (one replica), or postgres://USER:PASSWORD@HOST:PORT/DATABASE (any number of replicas)',
    );
    expect(() => databaseOf('mysql://me:hunter2@db/conveyor')).toThrow('CONVEYOR_DATABASE_URL: "mysql://me:***@db/conveyor" is not a database');
  });
});

describe('the app store', () => {
  it('keeps runs and the GitHub records in one file', async () => {
    const dir = tempDir('conveyor-stores-');
    try {
      const path = join(dir, 'app.db');
      const store = await openAppStore({ CONVEYOR_DATABASE_URL: `sqlite:${path}` });
      await store.links.saveComment('acme-web-7', { id: 3, url: 'https://github.com/acme/web/issues/7#issuecomment-3' });
      await store.recordDelivery('d-1');
      await store.close();
      const plain = new Database(path, { readonly: true });
      const tables = plain.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(plain.prepare('SELECT id FROM github_comments WHERE run_id = ?').pluck().get('acme-web-7')).toBe(3);
      plain.close();
      expect(tables).toEqual(expect.arrayContaining(['runs', 'deliveries', 'effects', 'leases', 'github_attempts', 'github_comments']));
    } finally {
      removeDir(dir);
    }
  });

  it('can be in memory', async () => {
    const store = await openAppStore({ CONVEYOR_DATABASE_URL: 'sqlite::memory:' });
    await store.links.saveComment('acme-web-7', { id: 3, url: 'u' });
    expect(await store.links.comment('acme-web-7')).toEqual({ id: 3, url: 'u' });
    await store.close();
  });
});

describe('the app store on PostgreSQL', () => {
  let server: PostgresServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps runs and the GitHub records in one database that every replica opens', async () => {
    server = await startPostgres();
    const url = await server.createDatabase('app');
    const first = await openAppStore({ CONVEYOR_DATABASE_URL: url });
    const second = await openAppStore({ CONVEYOR_DATABASE_URL: url.replace(/^postgres:/, 'postgresql:') });
    try {
      await first.links.saveComment('acme-web-7', { id: 3, url: 'https://github.com/acme/web/issues/7#issuecomment-3' });
      await first.recordDelivery('d-1');
      expect(await second.deliveryHandled('d-1')).toBe(true);
      expect(await second.links.comment('acme-web-7')).toEqual({ id: 3, url: 'https://github.com/acme/web/issues/7#issuecomment-3' });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
