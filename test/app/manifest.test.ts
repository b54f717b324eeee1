// app.yml, the GitHub App manifest (Probot's convention), against what the app does: its events are
// exactly those the app's handlers are registered for (read from the registrations themselves, on
// a real Probot), its permissions are those the events need, those a step's token is minted with,
// and the list docs/github-app.md gives for registering the app by hand — the three agree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConveyorApp } from '../../app/app.ts';
import { APP_MANIFEST, readManifest } from '../../app/manifest.ts';
import { createAppMetrics } from '../../app/metrics.ts';
import { permissionsFor } from '../../app/token-broker.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { STEP_KINDS } from '../../core/config/schema.ts';
import { ROOT } from '../helpers/cli.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { privateKey } from './harness.ts';

/** GitHub sends these to every app, subscribed or not; a manifest cannot list them. */
const ALWAYS_SENT = new Set(['installation', 'installation_repositories']);

/** The permission (and level) each webhook event needs before GitHub delivers it. */
const EVENT_PERMISSION: Record<string, [string, 'read' | 'write']> = {
  issues: ['issues', 'read'],
  issue_comment: ['issues', 'read'],
  pull_request: ['pull_requests', 'read'],
  pull_request_review: ['pull_requests', 'read'],
  check_run: ['checks', 'read'],
  check_suite: ['checks', 'read'],
  status: ['statuses', 'read'],
  workflow_run: ['actions', 'read'],
};
const LEVEL = { read: 1, write: 2 } as const;

const dir = tempDir('conveyor-manifest-');
let store: Awaited<ReturnType<typeof openSqliteStore>>;
beforeAll(async () => {
  store = await openSqliteStore(join(dir, 'app.db'));
});
afterAll(async () => {
  await store.close();
  removeDir(dir);
});

/** The events and actions the app's handlers are registered for (`issues.labeled`), as `conveyor serve` registers them (counted for /metrics). */
function registeredHandlers(): string[] {
  const probot = new Probot({ appId: 1, privateKey, secret: 'test' });
  const handled = new Set<string>();
  const on = probot.on;
  probot.on = ((name: string | string[], handler: never) => {
    for (const e of [name].flat()) handled.add(e);
    return on(name as never, handler);
  }) as typeof probot.on;
  new ConveyorApp(probot, { store, links: store.links, appId: 1, sweepEveryMs: false, metrics: createAppMetrics({ processMetrics: false }) }).close();
  return [...handled].sort();
}

/** The events the app's handlers are registered for (`issues.labeled` → `issues`). */
function registeredEvents(): string[] {
  return [...new Set(registeredHandlers().map((e) => e.split('.')[0]!))].sort();
}

/** Section 1 of docs/github-app.md: the permissions (`Pull requests: **Read and write**` → pull_requests: write) and events it lists. */
function documented(): { permissions: Record<string, string>; optional: string[]; events: string[]; pullRequestActions: string[] } {
  const text = readFileSync(join(ROOT, 'docs/github-app.md'), 'utf8');
  const section = /^## 1\. Create the GitHub App\n([\s\S]*?)^## /m.exec(text)![1]!;
  const key = (name: string) => name.trim().toLowerCase().replace(/\s+/g, '_');
  const permissions: Record<string, string> = {};
  const optional: string[] = [];
  for (const m of section.matchAll(/(?:^\s*- |permissions\*\*: )([A-Z][a-z]+(?: [a-z]+)*): (\*\*)?(Read and write|Read)\2?([^\n]*)/gm)) {
    if (/only if/.test(m[4]!)) optional.push(key(m[1]!));
    else permissions[key(m[1]!)] = m[3] === 'Read' ? 'read' : 'write';
  }
  const subscribed = /\*\*Subscribe to events\*\*: ([\s\S]*?)\.\n/.exec(section)![1]!;
  const events = subscribed
    .replace(/\([^)]*\)/g, '')
    .split(',')
    .map(key)
    .filter(Boolean);
  // `Pull request (`synchronize`, `closed`, ...)`: the actions the app acts on, in backticks.
  const pullRequest = /Pull request \(([^)]*)\)/.exec(subscribed)![1]!;
  const pullRequestActions = [...pullRequest.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
  return { permissions, optional, events: events.sort(), pullRequestActions: pullRequestActions.sort() };
}

describe('app.yml, the GitHub App manifest', () => {
  const manifest = readManifest();

  it("subscribes to exactly the events the app's handlers take", () => {
    const registered = registeredEvents();
    // The read covers what it should: a handler of each kind is seen.
    expect(registered).toEqual(expect.arrayContaining(['issues', 'check_run', 'installation']));
    expect([...manifest.default_events].sort()).toEqual(registered.filter((e) => !ALWAYS_SENT.has(e)));
  });

  it('asks for every permission its events need and every one a step token is minted with, and no other', () => {
    const granted = manifest.default_permissions;
    const needed: Record<string, 'read' | 'write'> = { metadata: 'read' };
    const need = (permission: string, level: 'read' | 'write') => {
      if (!needed[permission] || LEVEL[level] > LEVEL[needed[permission]]) needed[permission] = level;
    };
    for (const event of manifest.default_events) need(...EVENT_PERMISSION[event]!);
    for (const kind of STEP_KINDS) for (const [permission, level] of Object.entries(permissionsFor(kind))) need(permission, level!);
    for (const [permission, level] of Object.entries(needed))
      expect(LEVEL[granted[permission] as 'read' | 'write'], permission).toBeGreaterThanOrEqual(LEVEL[level]);
    // Beyond those: what the app writes itself (comments on issues, merges) and reads (team members for `@org/team` approvers, commit statuses for `ci`).
    expect(granted).toEqual({
      actions: 'write',
      checks: 'write',
      contents: 'write',
      deployments: 'write',
      issues: 'write',
      pull_requests: 'write',
      statuses: 'read',
      metadata: 'read',
      members: 'read',
    });
  });

  it('agrees with the list docs/github-app.md gives for registering the app by hand', () => {
    const docs = documented();
    expect(docs.permissions).toEqual(manifest.default_permissions);
    expect(docs.events).toEqual([...manifest.default_events].sort());
    // And names each pull request action the app acts on.
    const handled = registeredHandlers().filter((e) => e.startsWith('pull_request.'));
    expect(handled).toContain('pull_request.synchronize');
    expect(docs.pullRequestActions).toEqual(handled.map((e) => e.slice('pull_request.'.length)).sort());
    // What the docs call optional is not asked for by default.
    expect(docs.optional).toEqual(['workflows']);
    expect(manifest.default_permissions).not.toHaveProperty('workflows');
  });

  it('is private by default and carries no text Probot cannot put in its setup page', () => {
    expect(manifest.public).toBe(false);
    // Probot writes the manifest into a single-quoted HTML attribute: an apostrophe would end it.
    expect(JSON.stringify(manifest)).not.toContain("'");
    expect(readFileSync(APP_MANIFEST, 'utf8')).toMatch(/^default_events:/m);
  });
});
