// Where `conveyor serve` keeps its runs (CONVEYOR_DATABASE_URL): a SQLite file by default or by
// name; a PostgreSQL URL or an unknown scheme is refused, saying what to give instead.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../core/errors.ts';
import { DEFAULT_DATABASE, sqlitePathOf } from '../../../app/github/stores.ts';

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
