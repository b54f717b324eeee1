// Protected paths end to end in the embedded mode: an agent that edits a workflow file (and a
// dependency manifest) cannot get it merged without a person approving the heads that hold it.
// The real `conveyor` command, the action in child processes, the local forge over bare repositories.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, pipelineConfig, STANDARD_STEPS, type AgentScript, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';
import { LOCAL_FORGE_DB } from '../../../adapters/forge/local.ts';

interface StatusJson {
  status: string;
  steps: Record<string, { status: string; reason?: string; result?: { error?: { code: string; message: string } } }>;
  prs: Array<{ repo: string; number: number; head?: string }>;
  protectedPaths?: Array<{ repo: string; head: string; paths: string[] }>;
}

async function status(fleet: Fleet, runId: string): Promise<StatusJson> {
  const r = await cli(['status', runId, '--json', '--state', fleet.state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

/** The agent edits CI and a manifest in the consumer, and an ordinary file in the provider. */
const EDITS_CI: AgentScript = {
  attempts: {
    '1': {
      'acme/api': { 'api-{issue}.txt': 'endpoint\n' },
      'acme/web': { 'web-{issue}.txt': 'call site\n', '.github/workflows/ci.yml': 'on: push\njobs: {}\n', 'package.json': '{"name":"web"}\n' },
    },
  },
};

const NO_APPROVAL = `      - { id: implement, kind: code, agent: coder }
      - { id: ship, kind: merge, method: squash }`;

const initial = (fleet: Fleet, repo: string) => git(fleet.remotes.bare(repo), 'rev-list', '--max-parents=0', 'main');

function prBody(fleet: Fleet, repo: string): string {
  const db = new Database(join(fleet.remotes.dir, LOCAL_FORGE_DB), { readonly: true });
  try {
    return (db.prepare('SELECT body FROM pull_requests WHERE repo = ?').get(repo) as { body: string }).body;
  } finally {
    db.close();
  }
}

describe('protected paths (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('stops a pipeline without an approval step before the merge as protected-paths, naming the files; nothing merges', async () => {
    fleet.setScript(EDITS_CI);
    fleet.writeConfig(pipelineConfig(NO_APPROVAL));
    const r = await cli(fleet.runArgs('--title', 'Touch CI', '--issue', '21'));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const s = await status(fleet, 'web-21');
    expect(s.status).toBe('waiting');
    expect(s.steps.ship!.status).toBe('failed');
    const error = s.steps.ship!.result?.error;
    expect(error?.code).toBe('protected-paths');
    expect(error?.message).toContain('has no approval step');
    expect(error?.message).toContain('`.github/workflows/ci.yml`');
    expect(error?.message).toContain('`package.json`');
    // The provider's change holds nothing protected, and still did not merge: nothing merges unless all can.
    expect(error?.message).not.toContain('acme/api#');
    expect(r.stdout).toContain('protected');
    for (const repo of ['acme/api', 'acme/web']) expect(fleet.remotes.head(repo, 'main')).toBe(initial(fleet, repo));

    // What the run recorded is what the pushed head holds.
    const web = s.prs.find((p) => p.repo === 'acme/web')!;
    expect(s.protectedPaths?.find((p) => p.repo === 'acme/web')).toEqual({
      repo: 'acme/web',
      head: web.head,
      paths: ['.github/workflows/ci.yml', 'package.json'],
    });
    expect(s.protectedPaths?.find((p) => p.repo === 'acme/api')?.paths).toEqual([]);
    // The PR body names them for whoever looks at it.
    expect(prBody(fleet, 'acme/web')).toContain('### Protected paths');
    expect(prBody(fleet, 'acme/web')).toContain('- `.github/workflows/ci.yml`');
    expect(prBody(fleet, 'acme/api')).not.toContain('Protected paths');
  });

  it('merges the same change with `protect: []`', async () => {
    fleet.setScript(EDITS_CI);
    fleet.writeConfig(pipelineConfig(NO_APPROVAL).replace('    involves: [api]\n', '    involves: [api]\n    protect: []\n'));
    const r = await cli(fleet.runArgs('--title', 'Touch CI', '--issue', '22'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fleet.remotes.show('acme/web', 'main', '.github/workflows/ci.yml')).toBe('on: push\njobs: {}');
  });

  it('with an approval step, merges once a person approved the heads that hold them', async () => {
    fleet.setScript(EDITS_CI);
    fleet.writeConfig(pipelineConfig(STANDARD_STEPS.replace(`run: 'test "$(cat value.txt)" = good'`, 'run: "true"')));
    const waiting = await cli(fleet.runArgs('--title', 'Touch CI', '--issue', '23'));
    expect(waiting.code, waiting.stdout + waiting.stderr).toBe(3);
    expect(fleet.remotes.head('acme/web', 'main')).toBe(initial(fleet, 'acme/web'));
    const approved = await cli(['approve', 'web-23', '--as', 'alice', '--state', fleet.state]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(fleet.remotes.show('acme/web', 'main', '.github/workflows/ci.yml')).toBe('on: push\njobs: {}');
    expect(git(fleet.remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'main')).toMatch(/^Approved-by: alice$/m);
  });
});
