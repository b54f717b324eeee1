// Where `conveyor serve` keeps its runs (CONVEYOR_DATABASE_URL): a SQLite file by default or by
// name; a PostgreSQL URL or an unknown scheme is refused, saying what to give instead. The run
// store and the app's links share its one connection.
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { DEFAULT_DATABASE, openAppStore, sqlitePathOf } from '../../app/stores.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

describe('CONVEYOR_DATABASE_URL', () => {
  it('names a SQLite file: unset, a path, sqlite:PATH, file:PATH, or in memory', () => {
    expect(sqlitePathOf(undefined)).toBe(resolve(DEFAULT_DATABASE));
    expect(sqlitePathOf('  ')).toBe(resolve(DEFAULT_DATABASE));
    expect(sqlitePathOf('data/app.db')).toBe(resolve('data/app.db'));
    expect(sqlitePathOf('sqlite:/var/lib/conveyor/app.db')).toBe('/var/lib/conveyor/app.db');
    expect(sqlitePathOf('sqlite:///var/lib/conveyor/app.db')).toBe('/var/lib/conveyor/app.db');
    expect(sqlitePathOf('file:rel/app.db')).toBe(resolve('rel/app.db'));
    expect(sqlitePathOf('sqlite::memory:')).toBe(':memory:');
  });

  it('refuses PostgreSQL, which this version does not support, saying what to use', () => {
    for (const url of ['postgres://db/conveyor', 'postgresql://u:p@db:5432/conveyor']) {
      expect(() => sqlitePathOf(url)).toThrow(UsageError);
      expect(() => sqlitePathOf(url)).toThrow(/CONVEYOR_DATABASE_URL is a PostgreSQL URL, which is not supported.*sqlite:\/var\/lib\/conveyor\/app\.db/);
    }
  });

  it('refuses a URL of another kind, naming it and the forms it takes', () => {
    expect(() => sqlitePathOf('mysql://db/conveyor')).toThrow(UsageError);
    expect(() => sqlitePathOf('mysql://db/conveyor')).toThrow('CONVEYOR_DATABASE_URL "mysql://db/conveyor" is not a database Conveyor knows; give a SQLite file path, sqlite:PATH or file:PATH');
  });
});

describe('the app store', () => {
  it('keeps runs and the GitHub records in one file', async () => {
    const dir = tempDir('conveyor-stores-');
    try {
      const path = join(dir, 'app.db');
      const store = openAppStore({ CONVEYOR_DATABASE_URL: `sqlite:${path}` });
      await store.links.saveComment('acme-web-7', { id: 3, url: 'https://github.com/acme/web/issues/7#issuecomment-3' });
      expect(await store.seenDelivery('d-1')).toBe(false);
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
    const store = openAppStore({ CONVEYOR_DATABASE_URL: 'sqlite::memory:' });
    await store.links.saveComment('acme-web-7', { id: 3, url: 'u' });
    expect(await store.links.comment('acme-web-7')).toEqual({ id: 3, url: 'u' });
    await store.close();
  });
});
