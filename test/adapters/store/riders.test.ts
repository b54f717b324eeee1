// Records that ride on the store's next transaction (app/store/riders.ts): in the file only once a
// transaction carried them (a commit, a create, marking done, a write, or their own within a
// second, or closing), never lost by a transaction that failed, and never able to make the
// transaction they ride on fail.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRun } from '../../../core/run/reducer.ts';
import type { Run } from '../../../core/run/types.ts';
import { openSqliteStore, type SqliteRunStore } from '../../../adapters/store/sqlite.ts';
import { RIDE_AT_MOST_MS } from '../../../adapters/store/riders.ts';
import { planOf } from '../../helpers/plans.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([{ id: 'implement', kind: 'code' }]);
const runOf = (id: string): Run => createRun({ id, plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b' }, options: {}, at: AT });

let dir: string;
let store: SqliteRunStore;
/** A second connection to the same file: what another process (or this one after a crash) would read. */
let file: Database.Database;
const inFile = (note: string) => file.prepare('SELECT count(*) FROM notes WHERE note = ?').pluck().get(note) === 1;
/** Queues a note to ride on the store's next transaction. */
const ride = (note: string, written?: () => void) => store.ride({ write: () => store.database.prepare('INSERT INTO notes (note) VALUES (?)').run(note), ...(written ? { written } : {}) });

beforeEach(() => {
  dir = tempDir('conveyor-riders-');
  const path = join(dir, 'state.db');
  store = openSqliteStore(path);
  store.database.exec('CREATE TABLE notes (note TEXT PRIMARY KEY)');
  file = new Database(path, { readonly: true });
});
afterEach(() => {
  vi.useRealTimers();
  file.close();
  if (store.database.open) store.close();
  removeDir(dir);
});

describe('records that ride on the next write', () => {
  it('are in the file after the next transaction of any kind, and not before', () => {
    ride('a');
    expect(inFile('a')).toBe(false);
    store.create(runOf('r1'), []);
    expect(inFile('a')).toBe(true);
    ride('b');
    store.commit(store.get('r1')!, []);
    expect(inFile('b')).toBe(true);
    ride('c');
    store.markEffectsDone([{ runId: 'r1', key: 'none' }]);
    expect(inFile('c')).toBe(true);
    ride('d');
    store.write(() => undefined);
    expect(inFile('d')).toBe(true);
  });

  it('are written on their own when no transaction comes within a second', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    ride('a');
    vi.advanceTimersByTime(RIDE_AT_MOST_MS - 1);
    expect(inFile('a')).toBe(false);
    vi.advanceTimersByTime(1);
    expect(inFile('a')).toBe(true);
  });

  it('are written when the store is closed', () => {
    ride('a');
    store.close();
    expect(inFile('a')).toBe(true);
  });

  it('wait for the next transaction when the one they rode on failed', () => {
    store.create(runOf('r1'), []);
    const written = vi.fn();
    ride('a', written);
    // A second run with the same id: the create fails and rolls back, rider included.
    expect(() => store.create(runOf('r1'), [])).toThrow(/already exists/);
    expect(inFile('a')).toBe(false);
    expect(written).not.toHaveBeenCalled();
    store.create(runOf('r2'), []);
    expect(inFile('a')).toBe(true);
    expect(written).toHaveBeenCalledTimes(1);
  });

  it('drop a rider that fails, and the transaction it rode on still commits', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const written = vi.fn();
      store.ride({ write: () => store.database.prepare('INSERT INTO no_such_table VALUES (1)').run(), written });
      ride('a');
      store.create(runOf('r1'), []);
      expect(file.prepare("SELECT count(*) FROM runs WHERE id = 'r1'").pluck().get()).toBe(1);
      expect(inFile('a')).toBe(true);
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

  it('fail the transaction they ride on when SQLite itself rolled it back (a full disk), and wait for the next one', () => {
    let fail = true;
    store.ride({
      write: () => {
        store.database.prepare('INSERT INTO notes (note) VALUES (?)').run('x');
        if (!fail) return;
        fail = false;
        // What SQLite does on SQLITE_FULL or SQLITE_IOERR: the transaction is rolled back, and the statement throws.
        store.database.exec('ROLLBACK');
        throw new Error('database or disk is full');
      },
    });
    ride('a');
    expect(() => store.create(runOf('r1'), [])).toThrow('database or disk is full');
    // Not written: nor the run (its statements did not commit on their own), nor any rider.
    expect(file.prepare("SELECT count(*) FROM runs WHERE id = 'r1'").pluck().get()).toBe(0);
    expect(inFile('a')).toBe(false);
    expect(inFile('x')).toBe(false);
    store.create(runOf('r2'), []);
    expect(inFile('x')).toBe(true);
    expect(inFile('a')).toBe(true);
  });

  it('run before the statements of the transaction that carries them', () => {
    const order: string[] = [];
    store.ride({ write: () => order.push('rider'), written: () => order.push('written') });
    store.write(() => order.push('own'));
    expect(order).toEqual(['rider', 'own', 'written']);
  });
});
