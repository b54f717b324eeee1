// The git layer on real repositories: the safety settings every command gets (identity, no hooks,
// no global or system configuration, no prompts, the token only through a scoped credential
// helper and never in a log), and the named operations' answers (conflicts, leases, renames,
// errors).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorError } from '../../core/errors.ts';
import { GitRepo } from '../../lib/git.ts';
import { gitConfig, gitEnvironment } from '../../lib/git-safety.ts';
import { serveGit } from '../helpers/git-http.ts';
import { createRemotes, git, removeDir, tempDir, writeFiles, type Remotes } from '../helpers/repos.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PATH_ONLY = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

let remotes: Remotes;
let scratch: string;
beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-git-layer-');
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});

/** A clone of owner/name on `branch`, through the layer. */
async function checkout(repo: string, branch = 'main', env: Record<string, string> = PATH_ONLY): Promise<GitRepo> {
  const g = new GitRepo(join(scratch, repo.replace('/', '__')), { env });
  await g.clone(remotes.bare(repo));
  await g.checkout(branch, `origin/${branch}`);
  return g;
}

/** A hook that leaves a file behind when git runs it. */
function plantHook(hooksDir: string, name: string, marker: string): void {
  mkdirSync(hooksDir, { recursive: true });
  writeFileSync(join(hooksDir, name), `#!/bin/sh\necho ran > ${marker}\n`);
  chmodSync(join(hooksDir, name), 0o755);
}

describe('the token reaches git through a scoped credential helper only', () => {
  it('answers the server with the token, and no other host', () => {
    const token = 'ghs_helper_token_456';
    const args = gitConfig('https://github.com').flatMap((c) => ['-c', c]);
    expect(args.join(' ')).not.toContain(token);
    const fill = (host: string) =>
      execFileSync('git', [...args, 'credential', 'fill'], {
        input: `protocol=https\nhost=${host}\n\n`,
        env: gitEnvironment(PATH_ONLY, token),
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    expect(fill('github.com')).toContain(`password=${token}`);
    expect(() => fill('evil.example.com')).toThrow();
  });

  it('is in no command that does not talk to the server, and never in a setting', () => {
    expect(gitConfig(undefined).join('\n')).not.toMatch(/credential/);
    expect(gitEnvironment(PATH_ONLY, undefined)).not.toHaveProperty('CONVEYOR_GIT_TOKEN');
    // An inherited one is dropped too: only the layer decides which command gets it.
    expect(gitEnvironment({ ...PATH_ONLY, CONVEYOR_GIT_TOKEN: 'ghs_stale' }, undefined)).not.toHaveProperty('CONVEYOR_GIT_TOKEN');
  });
});

describe('the environment of every git command', () => {
  it('ignores global and system configuration, never prompts, and drops what would redirect git or run a program', () => {
    const env = gitEnvironment(
      {
        ...PATH_ONLY,
        HOME: '/home/someone',
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.hooksPath',
        GIT_CONFIG_VALUE_0: '/tmp/evil',
        GIT_CONFIG_PARAMETERS: "'core.sshCommand'='evil'",
        GIT_DIR: '/elsewhere/.git',
        GIT_WORK_TREE: '/elsewhere',
        GIT_ASKPASS: '/usr/bin/ksshaskpass',
        SSH_ASKPASS: '/usr/bin/ssh-askpass',
        EDITOR: 'vim',
        GIT_PAGER: 'less',
        GIT_SSH_COMMAND: 'ssh -i key',
        GIT_EXTERNAL_DIFF: 'difftool',
        GIT_TEMPLATE_DIR: '/tmp/templates',
      },
      'ghs_env_token',
    );
    expect(env).toEqual({
      ...PATH_ONLY,
      HOME: '/home/someone',
      GIT_TERMINAL_PROMPT: '0',
      GCM_INTERACTIVE: 'never',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      LC_ALL: 'C',
      CONVEYOR_GIT_TOKEN: 'ghs_env_token',
    });
  });

  it('runs with those variables inherited (dropped, not refused by simple-git), ignoring a ~/.gitconfig and injected settings', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const home = join(scratch, 'home');
    const hooks = join(scratch, 'planted-hooks');
    const marker = join(scratch, 'hook-ran');
    plantHook(hooks, 'pre-commit', marker);
    mkdirSync(home);
    // Each of these would change or stop the commit if git read it.
    writeFileSync(
      join(home, '.gitconfig'),
      `[user]\n\tname = Someone Else\n[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = /bin/false\n[url "file:///nowhere/"]\n\tinsteadOf = ${remotes.url}/\n`,
    );
    const env = {
      ...PATH_ONLY,
      HOME: home,
      EDITOR: 'false',
      GIT_EDITOR: 'false',
      PAGER: 'false',
      GIT_ASKPASS: '/bin/false',
      GIT_SSH_COMMAND: 'false',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: hooks,
    };
    const web = await checkout('acme/web', 'main', env);
    writeFiles(web.dir, { 'b.txt': 'b\n' });
    const { committed, head } = await web.commitAll('Add b\n');
    expect(committed).toBe(true);
    expect(git(web.dir, 'log', '-1', '--format=%an <%ae>|%G?', head)).toBe('Conveyor <conveyor@users.noreply.github.com>|N');
    expect(existsSync(marker)).toBe(false);
    expect(await web.push({ to: `${remotes.url}/acme/web.git`, ref: 'HEAD', branch: 'main', lease: remotes.head('acme/web', 'main') })).toEqual({
      pushed: true,
    });
    expect(remotes.head('acme/web', 'main')).toBe(head);
  });
});

describe('hooks', () => {
  it('have no folder anyone could plant one in: an agent runs as the same user as the step', async () => {
    const hooksPath = gitConfig(undefined)
      .find((c) => c.startsWith('core.hooksPath='))!
      .slice('core.hooksPath='.length);
    expect(() => plantHook(hooksPath, 'post-commit', join(scratch, 'hook-ran'))).toThrow();
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web');
    writeFiles(web.dir, { 'b.txt': 'b\n' });
    await web.commitAll('Add b\n');
    expect(existsSync(join(scratch, 'hook-ran'))).toBe(false);
  });

  it('never run, whatever the repository plants', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web');
    const marker = join(scratch, 'hook-ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'post-checkout', 'pre-push', 'post-merge'])
      plantHook(join(web.dir, '.git', 'hooks'), hook, marker);
    git(web.dir, 'config', 'core.hooksPath', join(web.dir, '.git', 'hooks'));
    writeFiles(web.dir, { 'b.txt': 'b\n' });
    await web.commitAll('Add b\n');
    await web.createBranch('feature', 'HEAD');
    await web.push({ to: remotes.bare('acme/web'), ref: 'HEAD', branch: 'feature', lease: '' });
    expect(remotes.branches('acme/web')).toContain('feature');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('named operations', () => {
  it('commits a message verbatim through a file, whatever it holds', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web');
    const message = '--amend "quoted" $(echo no) `nor this`\n\nBody line\n\nConveyor-Run: run-1\n';
    writeFiles(web.dir, { 'a.txt': 'changed\n', 'new/c.txt': 'c\n' });
    const { committed, head } = await web.commitAll(message);
    expect(committed).toBe(true);
    expect(git(web.dir, 'log', '-1', '--format=%B', head)).toBe(message.trim());
    expect(git(web.dir, 'status', '--porcelain')).toBe('');
    // Nothing left to commit: no empty commit, the same head.
    expect(await web.commitAll('again\n')).toEqual({ committed: false, head });
  });

  it('lists both paths of a rename, and says whether two commits differ', async () => {
    remotes.create('acme/web', { 'old/name.txt': 'same content\n', 'keep.txt': 'k\n' });
    const web = await checkout('acme/web');
    const before = await web.currentCommit();
    mkdirSync(join(web.dir, 'new'));
    git(web.dir, 'mv', 'old/name.txt', 'new/name.txt');
    const { head } = await web.commitAll('Rename\n');
    expect((await web.diffNames(before, head)).sort()).toEqual(['new/name.txt', 'old/name.txt']);
    expect(await web.differs(before, head)).toBe(true);
    expect(await web.differs(head, `${head}^{tree}`)).toBe(false);
    expect(await web.countCommits(`${before}..${head}`)).toBe(1);
    expect(await web.isAncestor(before, head)).toBe(true);
    expect(await web.isAncestor(head, before)).toBe(false);
  });

  it('merges cleanly, or reports the conflicting paths and leaves the checkout as it was', async () => {
    remotes.create('acme/web', { 'shared.txt': 'one\n', 'other.txt': 'o\n' });
    git(remotes.bare('acme/web'), 'branch', 'work', 'main');
    remotes.commit('acme/web', 'work', { 'shared.txt': 'work side\n' });
    remotes.commit('acme/web', 'main', { 'shared.txt': 'base side\n' });
    const web = await checkout('acme/web', 'work');
    const head = await web.currentCommit();
    const outcome = await web.merge('origin/main');
    expect(outcome).toMatchObject({ merged: false, conflicts: ['shared.txt'] });
    expect(outcome.merged ? '' : outcome.output).toMatch(/CONFLICT/);
    expect(await web.currentCommit()).toBe(head);
    expect(git(web.dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(web.dir, 'shared.txt'), 'utf8')).toBe('work side\n');

    remotes.commit('acme/web', 'main', { 'other.txt': 'moved\n', 'shared.txt': 'work side\n' });
    await web.fetch(['+refs/heads/main:refs/remotes/origin/main']);
    expect(await web.merge('origin/main', { message: 'Merge main\n\nConveyor-Run: run-2\n', noFastForward: true })).toEqual({ merged: true });
    expect(git(web.dir, 'log', '-1', '--format=%P')).toContain(head);
    expect(await web.lastMessage()).toBe('Merge main\n\nConveyor-Run: run-2\n\n');
  });

  it('pushes with a lease: rejected, never overwriting, when the branch moved since', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web');
    const lease = (await web.branchHead('main'))!;
    const theirs = remotes.commit('acme/web', 'main', { 'theirs.txt': 'x\n' });
    writeFiles(web.dir, { 'mine.txt': 'y\n' });
    await web.commitAll('Mine\n');
    const rejected = await web.push({ to: remotes.bare('acme/web'), ref: 'HEAD', branch: 'main', lease });
    expect(rejected).toMatchObject({ pushed: false, output: expect.stringMatching(/stale info|rejected/) });
    expect(remotes.head('acme/web', 'main')).toBe(theirs);
    // '' means the branch must not exist yet.
    expect(await web.push({ to: remotes.bare('acme/web'), ref: 'HEAD', branch: 'main', lease: '' })).toMatchObject({ pushed: false });
    expect(await web.push({ to: remotes.bare('acme/web'), ref: 'HEAD', branch: 'fresh', lease: '' })).toEqual({ pushed: true });
    expect(await new GitRepo(remotes.bare('acme/web')).branchHead('fresh')).toBe(await web.currentCommit());
    expect(await new GitRepo(remotes.bare('acme/web')).branchHead('missing')).toBeUndefined();
  });

  it("fails with the code the caller names, saying the command, the folder and git's words, scrubbed", async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const secret = 'ghs_scrubbed_secret_1';
    const dir = join(scratch, 'clone');
    const g = new GitRepo(dir, { env: PATH_ONLY, scrub: (t) => t.split(secret).join('***'), code: 'clone-failed' });
    const error = await g.clone(join(remotes.dir, `${secret}.git`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConveyorError);
    expect(error).toMatchObject({ code: 'clone-failed' });
    const message = (error as Error).message;
    expect(message).toContain('git clone --no-tags');
    expect(message).toContain(`in ${dir}`);
    expect(message).toMatch(/does not exist|not appear to be a git repository/);
    expect(message).toContain('***.git');
    expect(message).not.toContain(secret);
    await expect(g.failingAs('merge-failed').revParse('no-such-branch')).rejects.toMatchObject({
      code: 'merge-failed',
      message: expect.stringContaining('git rev-parse'),
    });
  });

  it('reads the origin remote, and nothing where there is none', async () => {
    const dir = join(scratch, 'plain');
    mkdirSync(dir);
    expect(await new GitRepo(dir).remoteUrl()).toBeUndefined();
    const g = new GitRepo(dir);
    await g.init();
    expect(await g.remoteUrl()).toBeUndefined();
    await g.setRemoteUrl('origin', 'https://github.com/acme/app.git');
    expect(await g.remoteUrl()).toBe('https://github.com/acme/app.git');
  });
});

describe("simple-git's debug log", () => {
  it('stays off under DEBUG=*: it would print the environment of an authenticated command, token included', async () => {
    const token = 'ghs_debug_token_0123456789';
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const http = await serveGit(remotes.dir, { token });
    try {
      const probe = join(ROOT, 'test/fixtures/git/debug-probe.ts');
      const child = spawn(process.execPath, ['--import', 'tsx', probe, scratch, `${http.url}/acme/web.git`, token], {
        cwd: ROOT,
        env: { ...PATH_ONLY, HOME: scratch, DEBUG: '*' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(code, stderr).toBe(0);
      // The command ran with the token (the server demands it) and the probe's own debug line shows...
      expect(JSON.parse(stdout)).toEqual({ main: remotes.head('acme/web', 'main') });
      expect(stderr).toContain('the probe logs through debug');
      // ...but simple-git logged nothing, so neither the token nor its environment is in the output.
      expect(stderr).not.toContain('simple-git');
      expect(stderr).not.toContain(token);
    } finally {
      await http.close();
    }
  });
});
