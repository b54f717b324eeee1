// The `code` step end to end: the real bundled entry in a child process, real bare remotes, small
// agent scripts, and the local forge's SQLite file read back afterwards.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalForge } from '../../adapters/forge/local.ts';
import { codeStep, gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { removeActionBundle, runAction } from '../helpers/action.ts';

let remotes: Remotes;
let scratch: string;

const THREE = [
  { repo: 'acme/web', services: ['web'] },
  { repo: 'acme/api', services: ['api'] },
  { repo: 'acme/docs', services: ['docs'] },
];

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-code-');
  remotes.create('acme/web', { 'README.md': 'web\n', 'src/app.js': 'console.log(1)\n', '.gitignore': 'node_modules/\n' });
  remotes.create('acme/api', { 'README.md': 'api\n' });
  remotes.create('acme/docs', { 'README.md': 'docs\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});
afterAll(() => removeActionBundle());

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { GITHUB_SERVER_URL: remotes.url, ...extra };
}

async function withForge<T>(fn: (forge: LocalForge) => Promise<T>): Promise<T> {
  const forge = await LocalForge.open(remotes.dir);
  try {
    return await fn(forge);
  } finally {
    forge.close();
  }
}

describe('code step across sibling repositories', () => {
  it('a change to two of three repositories pushes exactly two branches and opens two linked PRs', async () => {
    // Inside the workspace (kept: CONVEYOR_WORKSPACE_ROOT), the only place an agent may write.
    const ws = join(scratch, 'ws');
    const dump = join(ws, 'dump');
    const agent = [
      'mkdir -p "$DUMP"',
      'cp "$CONVEYOR_PROMPT_FILE" "$DUMP/prompt.md"',
      'printf %s "$CONVEYOR_REPOS" > "$DUMP/repos.json"',
      'pwd > "$DUMP/cwd"',
      'echo "hello" > acme__web/src/greet.js',
      'mkdir -p acme__web/node_modules && echo junk > acme__web/node_modules/x.js',
      'echo "export const greet = 1" > acme__api/greet.js',
      'echo agent finished',
    ].join('\n');
    const payload = makePayload({
      repos: THREE,
      agentRun: agent,
      agentEnv: { DUMP: dump },
      issue: { title: 'Greet <!-- secret instruction --> users', body: 'Say hi.\u202E<!-- hidden -->' },
    });
    const run = runAction({ payload, dir: scratch, env: env({ CONVEYOR_WORKSPACE_ROOT: ws }) });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(run.status).toBe(0);

    // Exactly two branches pushed, none in docs.
    expect(remotes.branches('acme/web')).toEqual(['conveyor/web-7', 'main']);
    expect(remotes.branches('acme/api')).toEqual(['conveyor/api-7', 'main']);
    expect(remotes.branches('acme/docs')).toEqual(['main']);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'src/greet.js')).toBe('hello');
    expect(() => remotes.show('acme/web', 'conveyor/web-7', 'node_modules/x.js')).toThrow();
    const message = git(remotes.bare('acme/web'), 'log', '-1', '--format=%an <%ae>%n%B', 'conveyor/web-7');
    expect(message).toContain('Conveyor <conveyor@users.noreply.github.com>');
    expect(message).toContain('(acme/web#7)');
    expect(message).toContain('Conveyor-Run: run-1');

    // Two PRs, each linking the issue and its sibling.
    const prs = run.result?.prs ?? [];
    expect(prs.map((p) => p.repo).sort()).toEqual(['acme/api', 'acme/web']);
    await withForge(async (forge) => {
      const web = await forge.findPullRequest('acme/web', 'conveyor/web-7');
      const api = await forge.findPullRequest('acme/api', 'conveyor/api-7');
      expect(web?.body).toContain('Closes #7');
      expect(api?.body).toContain('Part of acme/web#7');
      for (const pr of [web, api]) {
        expect(pr?.body).toContain(`acme/web#${web?.number}`);
        expect(pr?.body).toContain(`acme/api#${api?.number}`);
      }
      expect(web?.head).toBe(remotes.head('acme/web', 'conveyor/web-7'));
      expect(await forge.findPullRequest('acme/docs', 'conveyor/docs-7')).toBeUndefined();
    });
    expect(run.result?.commits['acme/web']).toBe(remotes.head('acme/web', 'conveyor/web-7'));
    expect(run.result?.commits['acme/docs']).toBe(remotes.head('acme/docs', 'main'));

    // The agent ran at the workspace root, saw the layout, and got a sanitized prompt.
    const repos = JSON.parse(readFileSync(join(dump, 'repos.json'), 'utf8')) as { repo: string; dir: string; role: string; service: string }[];
    expect(repos.map((r) => [r.repo, r.role, r.service])).toEqual([
      ['acme/web', 'primary', 'web'],
      ['acme/api', 'sibling', 'api'],
      ['acme/docs', 'sibling', 'docs'],
    ]);
    const cwd = readFileSync(join(dump, 'cwd'), 'utf8').trim();
    expect(repos[0]?.dir).toBe(join(cwd, 'acme__web'));
    const prompt = readFileSync(join(dump, 'prompt.md'), 'utf8');
    expect(prompt).toContain('`acme__api`');
    expect(prompt).toContain('Greet users');
    expect(prompt).not.toContain('secret instruction');
    expect(prompt).not.toContain('hidden');
    expect(prompt).not.toContain('\u202E');
    expect(run.result?.summary).toContain('agent finished');
  });

  it('resumes an existing work branch, keeps its commits, takes in the advanced base and updates its PR', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    remotes.commit('acme/web', 'conveyor/web-7', { 'earlier.txt': 'from attempt 1\n' }, 'earlier work');
    const earlier = remotes.head('acme/web', 'conveyor/web-7');
    remotes.commit('acme/web', 'main', { 'base.txt': 'base moved on\n' }, 'base advances');
    const baseHead = remotes.head('acme/web', 'main')!;
    const opened = await withForge((forge) =>
      forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 't', body: 'old body' }),
    );

    const payload = makePayload({ repos: [THREE[0]!, THREE[1]!], agentRun: 'echo more > acme__web/more.txt' });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    const bare = remotes.bare('acme/web');
    git(bare, 'merge-base', '--is-ancestor', earlier!, head);
    git(bare, 'merge-base', '--is-ancestor', baseHead, head);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'more.txt')).toBe('more');
    expect(run.result?.summary).toContain('base merged in');
    expect(remotes.branches('acme/api')).toEqual(['main']);
    await withForge(async (forge) => {
      const pr = await forge.getPullRequest('acme/web', opened.number);
      expect(pr.body).not.toBe('old body');
      expect(pr.body).toContain('Closes #7');
      expect(await forge.listPullRequests('acme/web', { branches: ['conveyor/web-7'] })).toHaveLength(1);
    });
    expect(run.result?.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: opened.number, head })]);
  });

  it('leaves a base that does not merge cleanly unmerged and says so', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    remotes.commit('acme/web', 'conveyor/web-7', { 'README.md': 'web, as the branch has it\n' }, 'branch edit');
    const earlier = remotes.head('acme/web', 'conveyor/web-7')!;
    remotes.commit('acme/web', 'main', { 'README.md': 'web, as the base has it\n' }, 'base edit');
    const baseHead = remotes.head('acme/web', 'main')!;
    const payload = makePayload({ repos: [THREE[0]!], agentRun: 'echo x > extra.txt' });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(run.result?.summary).toMatch(/does not merge cleanly/);
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    const bare = remotes.bare('acme/web');
    expect(git(bare, 'rev-parse', `${head}^`)).toBe(earlier);
    expect(() => git(bare, 'merge-base', '--is-ancestor', baseHead, head)).toThrow();
    expect(remotes.show('acme/web', 'conveyor/web-7', 'README.md')).toBe('web, as the branch has it');
  });

  it("repairs a merge's conflict with no git from the agent: Conveyor starts the merge, the agent edits the files, Conveyor commits the merge, and refuses one that still holds a marker", () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    const work = remotes.commit('acme/web', 'conveyor/web-7', { 'README.md': 'web, as the branch has it\n' }, 'branch edit');
    const baseHead = remotes.commit('acme/web', 'main', { 'README.md': 'web, as the base has it\n' }, 'base edit');
    const repair = (agentRun: string) => ({
      ...makePayload({
        repos: [THREE[0]!],
        agentRun,
        mode: 'repair',
        step: { id: 'ship', kind: 'merge', method: 'squash', needs: [], timeoutMinutes: 30 },
        findings: 'acme/web#1: does not merge cleanly',
      }),
      // A merge's conflict repair is the code step's agent's work.
      coder: { agent: 'coder', writes: [] },
    });
    // An agent that leaves the markers: nothing is committed or pushed.
    const lazy = runAction({ payload: repair('grep -q "^<<<<<<< " README.md && grep -q "do not run git" "$CONVEYOR_PROMPT_FILE"'), dir: scratch, env: env() });
    expect(lazy.result?.error, lazy.stdout).toMatchObject({ code: 'conflict-unresolved', message: expect.stringContaining('README.md (lines 1, 3, 5)') });
    expect(remotes.head('acme/web', 'conveyor/web-7')).toBe(work);
    // One that resolves by editing alone: the work branch gets the merge, both parents.
    const done = runAction({
      payload: repair('printf "web, as both have it\\n" > README.md'),
      dir: scratch,
      env: env({ CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws2') }),
    });
    expect(done.result?.conclusion, done.stdout).toBe('success');
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    expect(git(remotes.bare('acme/web'), 'rev-list', '--parents', '-n', '1', head).split(' ').slice(1)).toEqual([work, baseHead]);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'README.md')).toBe('web, as both have it');
  });

  it('fails with no-changes when the agent changes nothing, and a repair reports neutral', () => {
    const payload = makePayload({ repos: THREE, agentRun: 'echo looked around' });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion).toBe('failure');
    expect(run.result?.error?.code).toBe('no-changes');
    expect(run.status).toBe(1);
    for (const r of THREE) expect(remotes.branches(r.repo)).toEqual(['main']);

    const repair = makePayload({
      repos: THREE,
      agentRun: 'grep -q "Findings to address" "$CONVEYOR_PROMPT_FILE" && grep -q "expected 2" "$CONVEYOR_PROMPT_FILE"',
      mode: 'repair',
      step: { id: 'test', kind: 'gate', run: 'npm test', in: [], needs: [], timeoutMinutes: 5, repair: { agent: 'coder', maxAttempts: 2 } },
      findings: '### acme/web\n```\nexpected 2, got 1\n```',
    });
    const repaired = runAction({ payload: repair, dir: scratch, env: env() });
    expect(repaired.result?.conclusion, repaired.stdout).toBe('neutral');
    expect(repaired.result?.error).toBeUndefined();
  });

  it('keeps the work a resumed branch already holds when the agent adds nothing (a re-run after a lost attempt or a restart)', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    const held = remotes.commit('acme/web', 'conveyor/web-7', { 'earlier.txt': 'from the lost attempt\n' }, 'earlier work');
    const opened = await withForge((forge) => forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 't', body: 'b' }));
    const payload = makePayload({ repos: [THREE[0]!, THREE[1]!], agentRun: 'echo nothing new' });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(run.result?.summary).toContain('already holds changes from an earlier attempt in acme/web');
    expect(run.result?.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: opened.number })]);
    expect(remotes.head('acme/web', 'conveyor/web-7')).toBe(held);
    expect(remotes.branches('acme/api')).toEqual(['main']);
  });

  it('fails a writes violation, lists the paths, and pushes nothing anywhere', () => {
    const payload = makePayload({
      repos: THREE,
      step: codeStep({ writes: ['src/'] }),
      agentRun: 'echo ok > acme__web/src/ok.js && echo no > acme__web/README.md && echo no > acme__api/Makefile',
    });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.error?.code).toBe('writes-violation');
    expect(run.result?.error?.message).toContain('acme/web: README.md');
    expect(run.result?.error?.message).toContain('acme/api: Makefile');
    expect(run.result?.error?.message).not.toContain('src/ok.js');
    for (const r of THREE) expect(remotes.branches(r.repo)).toEqual(['main']);
  });

  it("holds a gate's repair to the code step's writes: a repair that rewrites the test script fails and pushes nothing", () => {
    // The gate runs `test.sh`; the coder may write only under src/. The repair agent "fixes" the gate instead.
    const payload = {
      ...makePayload({
        repos: [THREE[0]!],
        step: { ...gateStep({ run: './test.sh', repair: { agent: 'coder', maxAttempts: 2 } }) },
        mode: 'repair',
        findings: 'test.sh failed',
        agentRun: 'echo ok > src/fix.js && printf "#!/bin/sh\\nexit 0\\n" > test.sh',
      }),
      coder: { agent: 'coder', writes: ['src/'] },
    };
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.error?.code, run.stdout + run.stderr).toBe('writes-violation');
    expect(run.result?.error?.message).toContain('acme/web: test.sh');
    expect(run.result?.error?.message).not.toContain('src/fix.js');
    expect(remotes.branches('acme/web')).toEqual(['main']);
  });

  it('runs inside the repository when only one is involved', () => {
    const payload = makePayload({ repos: [THREE[1]!], agentRun: 'test -e .git && echo v2 > README.md' });
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion, run.stdout).toBe('success');
    expect(remotes.show('acme/api', 'conveyor/api-7', 'README.md')).toBe('v2');
  });
});

describe('bad inputs get a failure result naming what is wrong', () => {
  it('names the bad field of a payload', () => {
    const payload = makePayload({ repos: THREE }) as unknown as { repos: { repo: string }[] };
    payload.repos[1]!.repo = 'not-a-repo';
    const run = runAction({ payload, dir: scratch, env: env() });
    expect(run.result?.conclusion).toBe('failure');
    expect(run.result?.error?.code).toBe('bad-payload');
    expect(run.result?.error?.message).toContain('repos[1].repo');
    expect(run.result?.runId).toBe('run-1');
    expect(run.result?.step).toBe('implement');
  });

  it('reports a payload that is not JSON, and one that is missing', () => {
    const run = runAction({ payload: '{"version": 2,', dir: scratch, env: env() });
    expect(run.result?.error?.code).toBe('bad-payload');
    expect(run.result?.error?.message).toMatch(/not JSON/);
    const missing = runAction({ payload: '', dir: scratch, env: env({ CONVEYOR_PAYLOAD_PATH: join(scratch, 'nope.json') }) });
    expect(missing.result?.error?.code).toBe('bad-payload');
    expect(missing.result?.error?.message).toContain('nope.json');
  });

  it('refuses to clone outside the server', () => {
    const payload = makePayload({ repos: [{ repo: 'acme/..' }, THREE[0]!] });
    const run = runAction({ payload, dir: scratch, env: env() });
    // Refused where the payload is read, before any clone: a name with a .. part is not owner/name.
    expect(run.result?.error?.code).toBe('bad-payload');
    expect(run.result?.error?.message).toContain('acme/..');
    const other = runAction({ payload: makePayload({ repos: THREE }), dir: scratch, env: env({ GITHUB_SERVER_URL: 'ftp://example.com' }) });
    expect(other.result?.error?.code).toBe('clone-refused');
    expect(other.result?.error?.message).toContain('GITHUB_SERVER_URL');
    for (const r of THREE) expect(remotes.branches(r.repo)).toEqual(['main']);
  });
});
