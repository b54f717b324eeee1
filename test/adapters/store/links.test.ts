// The GitHub link tables on a real SQLite file: one read gives exactly one run's attempts, lookups
// by check run and workflow run find the attempt whichever write recorded the id, and a file made
// by the first version (full indexes on the ids) opens and keeps its records.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLinkStore, type AttemptLink, type LinkStore } from '../../../adapters/store/links.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const link = (runId: string, step: string, extra: Partial<AttemptLink> = {}): AttemptLink => ({
  externalId: `${runId}:${step}:1:0`,
  runId,
  repo: 'acme/web',
  state: 'creating-check',
  head: 'a'.repeat(40),
  at: AT,
  ...extra,
});

describe('link store', () => {
  let dir: string;
  let links: LinkStore;
  beforeEach(() => {
    dir = tempDir('conveyor-links-');
    links = openLinkStore(join(dir, 'app.db'));
  });
  afterEach(() => {
    links.close();
    removeDir(dir);
  });

  it("reads every attempt of one run, and none of a run whose id it prefixes or sorts beside", () => {
    // `acme-web-10` and `acme-web-1-2` start with `acme-web-1`; `acme-web-1` itself has two steps.
    for (const [runId, step] of [['acme-web-1', 'implement'], ['acme-web-1', 'test'], ['acme-web-10', 'implement'], ['acme-web-1-2', 'implement'], ['acme-web-0', 'implement']] as const) {
      links.saveAttempt(link(runId, step));
    }
    links.saveAttempt({ ...link('acme-web-1', 'test'), externalId: 'acme-web-1:test:2:1' });
    expect(links.attemptsOfRun('acme-web-1').map((l) => l.externalId).sort()).toEqual(['acme-web-1:implement:1:0', 'acme-web-1:test:1:0', 'acme-web-1:test:2:1']);
    expect(links.attemptsOfRun('acme-web-10').map((l) => l.externalId)).toEqual(['acme-web-10:implement:1:0']);
    expect(links.attemptsOfRun('acme-web-2')).toEqual([]);
  });

  it("keeps a run's attempts once read, with every later save of this handle in them, as the file has them", () => {
    const first = link('acme-web-1', 'test');
    links.saveAttempt(first);
    expect(links.attemptsOfRun('acme-web-1')).toEqual([first]);
    const moved: AttemptLink = { ...first, state: 'dispatched', checkRunId: 11 };
    const earlier = link('acme-web-1', 'implement');
    links.saveAttempt(moved, first);
    links.saveAttempt(earlier, null, { later: true });
    expect(links.attemptsOfRun('acme-web-1')).toEqual([earlier, moved]);
    const reopened = openLinkStore(join(dir, 'app.db'));
    try {
      expect(reopened.attemptsOfRun('acme-web-1')).toEqual([earlier, moved]);
    } finally {
      reopened.close();
    }
  });

  it('finds an attempt by its check run and workflow run through each state of its dispatch', () => {
    const first = link('r', 'implement');
    links.saveAttempt(first);
    expect(links.attempt(first.externalId)).toEqual(first);
    expect(links.attemptByCheckRun(11)).toBeUndefined();

    const dispatching: AttemptLink = { ...first, state: 'dispatching', checkRunId: 11, checkRunUrl: 'https://github.com/acme/web/runs/11' };
    links.saveAttempt(dispatching);
    expect(links.attemptByCheckRun(11)).toEqual(dispatching);

    // Only the body changes: the check run index still answers, with the new body.
    const dispatched: AttemptLink = { ...dispatching, state: 'dispatched', at: '2025-01-01T00:00:01.000Z' };
    links.saveAttempt(dispatched);
    expect(links.attemptByCheckRun(11)).toEqual(dispatched);
    expect(links.attemptByWorkflowRun(21)).toBeUndefined();

    const withRun: AttemptLink = { ...dispatched, workflowRunId: 21, workflowRunUrl: 'https://github.com/acme/web/actions/runs/21' };
    links.saveAttempt(withRun);
    expect(links.attemptByWorkflowRun(21)).toEqual(withRun);
    expect(links.attemptByCheckRun(11)).toEqual(withRun);
    expect(links.attemptsOfRun('r')).toEqual([withRun]);
  });

  it('writes right whatever the caller believed was there before (the one-statement hint)', () => {
    const first = link('r', 'implement');
    links.saveAttempt(first, null);
    expect(links.attempt(first.externalId)).toEqual(first);
    // Believed new, but a record exists (another try wrote it): the newer one wins, ids included.
    const taken: AttemptLink = { ...first, state: 'dispatching', checkRunId: 11 };
    links.saveAttempt(taken, null);
    expect(links.attemptByCheckRun(11)).toEqual(taken);
    // Believed to hold these ids already, but the record's differ: the update misses, the upsert writes them.
    const moved: AttemptLink = { ...taken, checkRunId: 12, workflowRunId: 21 };
    links.saveAttempt(moved, moved);
    expect(links.attemptByCheckRun(11)).toBeUndefined();
    expect(links.attemptByCheckRun(12)).toEqual(moved);
    expect(links.attemptByWorkflowRun(21)).toEqual(moved);
    // Believed to exist, but it does not: written all the same.
    const other = link('r', 'test', { checkRunId: 13 });
    links.saveAttempt(other, other);
    expect(links.attemptByCheckRun(13)).toEqual(other);
    // Only the body changes.
    const done: AttemptLink = { ...moved, state: 'dispatched' };
    links.saveAttempt(done, moved);
    expect(links.attemptsOfRun('r').sort((a, b) => a.externalId.localeCompare(b.externalId))).toEqual([done, other]);
  });

  it('opens a file made with the first indexes and keeps its records', () => {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    db.exec(`
      CREATE TABLE github_attempts (external_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, check_run_id INTEGER, workflow_run_id INTEGER, body TEXT NOT NULL) WITHOUT ROWID;
      CREATE INDEX github_attempts_check ON github_attempts (check_run_id);
      CREATE INDEX github_attempts_workflow ON github_attempts (workflow_run_id);
    `);
    const old = link('r', 'implement', { state: 'dispatched', checkRunId: 5, workflowRunId: 6 });
    db.prepare('INSERT INTO github_attempts VALUES (?, ?, ?, ?, ?)').run(old.externalId, old.runId, 5, 6, JSON.stringify(old));
    db.close();

    const reopened = openLinkStore(path);
    try {
      expect(reopened.attemptByCheckRun(5)).toEqual(old);
      expect(reopened.attemptByWorkflowRun(6)).toEqual(old);
    } finally {
      reopened.close();
    }
    const check = new Database(path, { readonly: true });
    const indexes = check.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'github_attempts' AND sql IS NOT NULL ORDER BY name").pluck().all();
    check.close();
    expect(indexes).toEqual(['github_attempts_check_run', 'github_attempts_workflow_run']);
  });
});
