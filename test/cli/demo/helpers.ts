// Shared by the demo tests: a built demo, clones of its repositories laid out as a Conveyor
// workspace, and child-process runners for the demo's scripts.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemo, type Demo } from '../../../cli/demo-org.ts';
import { git, tempDir } from '../../helpers/repos.ts';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; the output is kept whole for the assertions. */
export function run(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Ran {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `node --test` in a checkout, as the repository's `npm test` runs it. */
export function nodeTest(dir: string): Ran & { pass: number; fail: number } {
  const r = run(process.execPath, ['--test'], dir);
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? NaN);
  return { ...r, pass: count('pass'), fail: count('fail') };
}

export async function builtDemo(): Promise<Demo & { root: string }> {
  const root = tempDir('conveyor-demo-test-');
  return { ...(await buildDemo(join(root, 'demo'))), root };
}

export interface Workspace {
  dir: string;
  catalog: string;
  storefront: string;
  /** CONVEYOR_REPOS as Conveyor gives it; `absolute` switches the dirs from relative to absolute. */
  repos(absolute?: boolean): string;
}

/** Clones both demo repositories side by side under a new workspace, on a work branch. */
export function cloneWorkspace(demo: Demo, root: string, name: string): Workspace {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const repo of demo.repos) {
    const folder = repo.split('/')[1]!;
    git(dir, 'clone', '--quiet', join(demo.remotes, `${repo}.git`), folder);
    git(join(dir, folder), 'checkout', '--quiet', '-b', 'conveyor/storefront-1');
  }
  return {
    dir,
    catalog: join(dir, 'catalog'),
    storefront: join(dir, 'storefront'),
    repos: (absolute = false) =>
      JSON.stringify([
        { repo: 'demo/storefront', dir: absolute ? join(dir, 'storefront') : 'storefront', role: 'primary', service: 'storefront' },
        { repo: 'demo/catalog', dir: absolute ? join(dir, 'catalog') : 'catalog', role: 'sibling', service: 'catalog' },
      ]),
  };
}

/** Commits what an agent left, as Conveyor's code step does. */
export function commitAll(dir: string, message: string): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', message);
}

export function status(dir: string): string {
  return git(dir, 'status', '--porcelain');
}
