// Records that ride on the store's next transaction (app/store/riders.ts): seen at once by the
// handle that made them, in the file only once a transaction carried them (a commit, a create,
// marking done, or their own within a second), never lost by a transaction that failed, and never
// able to make the transaction they ride on fail.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRun } from '../../../core/run/reducer.ts';
import type { Run } from '../../../core/run/types.ts';
import { openSqliteStore, type SqliteRunStore } from '../../../app/store/sqlite.ts';
import { RIDE_AT_MOST_MS } from '../../../app/store/riders.ts';
import { planOf } from '../../helpers/plans.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([{ id: 'implement', kind: 'code' }]);
const runOf = (id: string): Run => createRun({ id, plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b' }, options: {}, at: AT });

let dir: string;
let path: string;
let store: SqliteRunStore;
/** A second connection to the same file: what another process (or this one after a crash) would read. */
let file: Database.Database;
const inFile = (id: string) => file.prepare('SELECT count(*) FROM deliveries WHERE id = ?').pluck().get(id) === 1;

beforeEach(() => {
  dir = tempDir('conveyor-riders-');
  path = join(dir, 'state.db');
  store = openSqliteStore(path);
  file = new Database(path, { readonly: true });
});
afterEach(() => {
  vi.useRealTimers();
  file.close();
  if (store.database.open) store.close();
  removeDir(dir);
});

describe('records that ride on the next write', () => {
  it('a delivery id recorded later is seen at once by its handle, and is in the file after the next transaction', () => {
    expect(store.seenDelivery('d-1', { later: true })).toBe(false);
    expect(store.seenDelivery('d-1', { later: true })).toBe(true);
    expect(store.seenDelivery('d-1')).toBe(true);
    expect(inFile('d-1')).toBe(false);
    store.create(runOf('r1'), []);
    expect(inFile('d-1')).toBe(true);
    expect(store.seenDelivery('d-1', { later: true })).toBe(true);
  });

  it('an id already in the file is seen, whichever way it was recorded', () => {
    expect(store.seenDelivery('d-1')).toBe(false);
    expect(store.seenDelivery('d-1', { later: true })).toBe(true);
    const other = openSqliteStore(path);
    try {
      expect(other.seenDelivery('d-1', { later: true })).toBe(true);
      expect(other.seenDelivery('d-2', { later: true })).toBe(false);
    } finally {
      other.close();
    }
    // Closing the other handle wrote what it held.
    expect(inFile('d-2')).toBe(true);
  });

  it('writes them on their own when no transaction comes within a second', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    store.seenDelivery('d-1', { later: true });
    vi.advanceTimersByTime(RIDE_AT_MOST_MS - 1);
    expect(inFile('d-1')).toBe(false);
    vi.advanceTimersByTime(1);
    expect(inFile('d-1')).toBe(true);
  });

  it('writes them when the store is closed', () => {
    store.seenDelivery('d-1', { later: true });
    store.close();
    expect(inFile('d-1')).toBe(true);
  });

  it('keeps them for the next transaction when the one they rode on failed', () => {
    store.create(runOf('r1'), []);
    const written = vi.fn();
    store.ride({ write: () => store.database.prepare("INSERT INTO deliveries (id, seen_at) VALUES ('rider', 'x')").run(), written });
    // A second run with the same id: the create fails and rolls back, rider included.
    expect(() => store.create(runOf('r1'), [])).toThrow(/already exists/);
    expect(inFile('rider')).toBe(false);
    expect(written).not.toHaveBeenCalled();
    store.create(runOf('r2'), []);
    expect(inFile('rider')).toBe(true);
    expect(written).toHaveBeenCalledTimes(1);
  });

  it('drops a rider that fails, and the transaction it rode on still commits', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const written = vi.fn();
      store.ride({ write: () => store.database.prepare('INSERT INTO no_such_table VALUES (1)').run(), written });
      store.seenDelivery('d-1', { later: true });
      store.create(runOf('r1'), []);
      expect(file.prepare("SELECT count(*) FROM runs WHERE id = 'r1'").pluck().get()).toBe(1);
      expect(inFile('d-1')).toBe(true);
      // It never says it was written.
      expect(written).not.toHaveBeenCalled();
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(/deferred record could not be written and was dropped: no such table: no_such_table/);
      // Dropped: the next transaction does not try it again.
      stderr.mockClear();
      store.create(runOf('r2'), []);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
  });

  it('runs riders before the statements of the transaction that carries them', () => {
    const order: string[] = [];
    store.ride({ write: () => order.push('rider'), written: () => order.push('written') });
    store.write(() => order.push('own'));
    expect(order).toEqual(['rider', 'own', 'written']);
  });
});
