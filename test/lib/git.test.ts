// The git layer on real repositories: the safety settings every command gets (identity, no hooks,
// no global or system configuration, no prompts, the token only through a scoped credential
// helper and never in a log), and the named operations' answers (conflicts, leases, renames,
// errors).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorError } from '../../core/errors.ts';
import { GitRepo } from '../../lib/git.ts';
import { gitConfig, gitEnvironment } from '../../lib/git-safety.ts';
import { serveGit } from '../helpers/git-http.ts';
import { createRemotes, git, removeDir, tempDir, writeFiles, type Remotes } from '../helpers/repos.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PATH_ONLY = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** Runs `fn` with these variables set in this process (as a user command could have set them for whatever it started), then puts them back. */
async function withProcessEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

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

/** A clone of owner/name on `branch`, through the layer; `separate`: its git folder outside the checkout, as the workspace makes them. */
async function checkout(repo: string, branch = 'main', how: { separate?: boolean } = {}): Promise<GitRepo> {
  const folder = repo.replace('/', '__');
  const g = new GitRepo(join(scratch, folder), how.separate ? { gitDir: join(scratch, 'git', folder) } : {});
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
        env: gitEnvironment(token),
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    expect(fill('github.com')).toContain(`password=${token}`);
    expect(() => fill('evil.example.com')).toThrow();
  });

  it('is in no command that does not talk to the server, and never in a setting', () => {
    expect(gitConfig(undefined).join('\n')).not.toMatch(/credential/);
    expect(gitEnvironment(undefined)).not.toHaveProperty('CONVEYOR_GIT_TOKEN');
  });
});

describe('the environment of every git command', () => {
  it("is fixed: nothing of this process's environment since it started, no global or system configuration, no prompts, replace refs and grafts ignored", async () => {
    const planted = {
      HOME: '/home/someone',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: '/tmp/evil',
      GIT_CONFIG_PARAMETERS: "'core.sshCommand'='evil'",
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_ASKPASS: '/usr/bin/ksshaskpass',
      EDITOR: 'vim',
      GIT_SSH_COMMAND: 'ssh -i key',
      GIT_EXTERNAL_DIFF: 'difftool',
      CONVEYOR_GIT_TOKEN: 'ghs_stale',
      PATH: '/planted/bin:/usr/bin',
    };
    const env = await withProcessEnv(planted, async () => gitEnvironment('ghs_env_token'));
    for (const name of Object.keys(planted)) if (name !== 'HOME' && name !== 'PATH' && name !== 'CONVEYOR_GIT_TOKEN') expect(env).not.toHaveProperty(name);
    expect(env).toMatchObject({
      GIT_TERMINAL_PROMPT: '0',
      GCM_INTERACTIVE: 'never',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_GRAFT_FILE: '/dev/null',
      LC_ALL: 'C',
      CONVEYOR_GIT_TOKEN: 'ghs_env_token',
    });
    expect(env.HOME).not.toBe('/home/someone');
    expect(env.PATH).not.toContain('/planted');
  });

  it('ignores a ~/.gitconfig, injected settings and programs named in the environment, whatever this process has since', async () => {
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
    const planted = {
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
    const web = await checkout('acme/web');
    const head = await withProcessEnv(planted, async () => {
      writeFiles(web.dir, { 'b.txt': 'b\n' });
      const { committed, head } = await web.commitAll('Add b\n');
      expect(committed).toBe(true);
      expect(await web.push({ to: `${remotes.url}/acme/web.git`, ref: 'HEAD', branch: 'main', lease: remotes.head('acme/web', 'main') })).toEqual({
        pushed: true,
      });
      return head;
    });
    expect(git(web.dir, 'log', '-1', '--format=%an <%ae>|%G?', head)).toBe('Conveyor <conveyor@users.noreply.github.com>|N');
    expect(existsSync(marker)).toBe(false);
    expect(remotes.head('acme/web', 'main')).toBe(head);
  });

  it('runs the git found on PATH when Conveyor started, never one planted earlier on PATH since', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web');
    // As a gate's `npm ci` could on a runner whose PATH starts with a folder the user may write (~/.local/bin).
    const planted = join(scratch, 'planted-bin');
    const marker = join(scratch, 'planted-git-ran');
    mkdirSync(planted);
    writeFileSync(join(planted, 'git'), `#!/bin/sh\necho "$@" > ${marker}\nexit 0\n`);
    chmodSync(join(planted, 'git'), 0o755);
    const head = await withProcessEnv({ PATH: `${planted}:${process.env.PATH ?? ''}` }, async () => {
      writeFiles(web.dir, { 'b.txt': 'b\n' });
      // A repository opened after the plant, as every step opens its checkouts after its commands ran.
      return (await new GitRepo(web.dir).commitAll('Add b\n')).head;
    });
    expect(existsSync(marker)).toBe(false);
    expect(git(web.dir, 'log', '-1', '--format=%s', head)).toBe('Add b');
  });
});

describe("a checkout's git folder, outside the checkout", () => {
  const script = (name: string) => {
    const marker = join(scratch, `${name}-ran`);
    const path = join(scratch, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\necho ran >> ${marker}\ncat >/dev/null 2>&1 || true\n`);
    chmodSync(path, 0o755);
    return { path, ran: () => existsSync(marker) };
  };

  it('holds the repository; the checkout only names it, and is refused once it is a link', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web', 'main', { separate: true });
    expect(web.gitDir).toBe(join(scratch, 'git', 'acme__web'));
    expect(readFileSync(join(web.dir, '.git'), 'utf8')).toBe(`gitdir: ${web.gitDir}\n`);
    expect(existsSync(join(web.gitDir, 'objects'))).toBe(true);
    // A command that swaps the checkout folder for a link (to have Conveyor commit what it points at) gets nothing run there.
    renameSync(web.dir, `${web.dir}.moved`);
    symlinkSync('/etc', web.dir);
    await expect(web.commitAll('x\n')).rejects.toMatchObject({ code: 'bad-input', message: expect.stringContaining('no longer a folder') });
  });

  it('is put back as Conveyor left it before each command: a planted fsmonitor, filter, proxy, sshCommand, include, worktree configuration or common dir never runs or counts', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
    const web = await checkout('acme/web', 'main', { separate: true });
    const before = readFileSync(join(web.gitDir, 'config'), 'utf8');
    const fsmonitor = script('fsmonitor');
    const filter = script('filter');
    const included = join(scratch, 'included.config');
    writeFileSync(included, `[core]\n\tfsmonitor = ${fsmonitor.path}\n`);
    // What a command that could write the git folder (no sandbox) would plant, in every place git reads.
    writeFileSync(
      join(web.gitDir, 'config'),
      `${before}[core]\n\tfsmonitor = ${fsmonitor.path}\n\tsshCommand = ${fsmonitor.path}\n[filter "evil"]\n\tclean = ${filter.path}\n\tsmudge = ${filter.path}\n[http]\n\tproxy = http://127.0.0.1:9\n[include]\n\tpath = ${included}\n[extensions]\n\tworktreeConfig = true\n`,
    );
    writeFileSync(join(web.gitDir, 'config.worktree'), `[core]\n\tfsmonitor = ${fsmonitor.path}\n`);
    writeFiles(web.dir, { 'a.txt': 'changed\n', 'b.txt': 'b\n' });
    const { committed, head } = await web.commitAll('Change\n');
    expect(committed).toBe(true);
    expect(fsmonitor.ran()).toBe(false);
    expect(filter.ran()).toBe(false);
    expect(readFileSync(join(web.gitDir, 'config'), 'utf8')).toBe(before);
    expect(existsSync(join(web.gitDir, 'config.worktree'))).toBe(false);
    // The commit holds the files as they are, unfiltered.
    expect(git(web.dir, 'show', `${head}:a.txt`)).toBe('changed');
    // A common dir pointer would make git read another folder's configuration and objects.
    const other = join(scratch, 'other-git');
    git(scratch, 'init', '--quiet', '--bare', other);
    writeFileSync(join(web.gitDir, 'commondir'), `${other}\n`);
    expect(await web.currentCommit()).toBe(head);
    expect(existsSync(join(web.gitDir, 'commondir'))).toBe(false);
  });

  it('reads history as the objects are: replace refs, grafts and alternates a command planted change nothing', async () => {
    remotes.create('acme/web', { 'src/a.ts': 'a\n', 'README.md': 'r\n' });
    const web = await checkout('acme/web', 'main', { separate: true });
    const base = await web.currentCommit();
    writeFiles(web.dir, { 'README.md': 'rewritten outside src/\n', 'src/a.ts': 'b\n' });
    const { head } = await web.commitAll('Change both\n');
    // A commit that changes only src/, and a replace ref that makes `head` look like it.
    const decoy = git(web.dir, 'commit-tree', '-p', base, '-m', 'decoy', git(web.dir, 'write-tree'));
    git(web.dir, 'read-tree', head);
    git(web.dir, 'replace', head, decoy);
    writeFileSync(join(web.gitDir, 'info', 'grafts'), `${head}\n`);
    mkdirSync(join(web.gitDir, 'objects', 'info'), { recursive: true });
    writeFileSync(join(web.gitDir, 'objects', 'info', 'alternates'), `${join(scratch, 'nowhere')}\n`);
    expect(await web.pushedPaths(head, [base])).toEqual(['README.md', 'src/a.ts']);
    expect(existsSync(join(web.gitDir, 'refs', 'replace'))).toBe(false);
    expect(existsSync(join(web.gitDir, 'info', 'grafts'))).toBe(false);
  });

  it("refuses to commit a repository a command left inside the checkout: adding it would run its configuration's filters", async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const web = await checkout('acme/web', 'main', { separate: true });
    const filter = script('nested-filter');
    const fsmonitor = script('nested-fsmonitor');
    const nested = join(web.dir, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '--quiet');
    writeFiles(nested, { 'f.txt': 'x\n', '.gitattributes': '*.txt filter=evil\n' });
    git(nested, 'add', '.');
    git(nested, 'commit', '--quiet', '-m', 'nested');
    git(nested, 'config', 'filter.evil.clean', filter.path);
    git(nested, 'config', 'core.fsmonitor', fsmonitor.path);
    writeFiles(nested, { 'f.txt': 'changed\n' });
    writeFiles(web.dir, { 'b.txt': 'b\n' });
    expect(await web.nestedRepositories()).toEqual(['vendor/lib']);
    await expect(web.commitAll('Add\n')).rejects.toMatchObject({ code: 'nested-repository', message: expect.stringContaining('vendor/lib') });
    expect(filter.ran()).toBe(false);
    expect(fsmonitor.ran()).toBe(false);
    expect(git(web.dir, 'status', '--porcelain')).toContain('?? b.txt');
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
    const g = new GitRepo(dir, { scrub: (t) => t.split(secret).join('***'), code: 'clone-failed' });
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
