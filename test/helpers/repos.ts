// Real git repositories for tests: bare "remotes" in a temp folder laid out as <owner>/<name>.git,
// exactly as the embedded mode and GITHUB_SERVER_URL=file://... expect them. Every commit made
// here carries its own identity, because CI has no global git identity.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const TEST_IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export function tempDir(prefix = 'conveyor-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs git synchronously with the test identity; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, ...TEST_IDENTITY, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

export interface Remotes {
  /** Folder holding <owner>/<name>.git bare repositories. */
  dir: string;
  /** file:// URL of that folder: what GITHUB_SERVER_URL is in the embedded mode. */
  url: string;
  bare(repo: string): string;
  /** Creates owner/name with one commit of `files` on `branch`. */
  create(repo: string, files: Record<string, string>, branch?: string): void;
  /** Commits `files` onto `branch` of owner/name (through a scratch clone); returns the new head. */
  commit(repo: string, branch: string, files: Record<string, string>, message?: string): string;
  /** Head commit of a branch, or undefined when it does not exist. */
  head(repo: string, branch: string): string | undefined;
  /** Content of a file at a branch. */
  show(repo: string, branch: string, path: string): string;
  branches(repo: string): string[];
  cleanup(): void;
}

export function createRemotes(root = tempDir('conveyor-remotes-')): Remotes {
  const bare = (repo: string) => join(root, `${repo}.git`);
  const remotes: Remotes = {
    dir: root,
    url: `file://${root}`,
    bare,
    create(repo, files, branch = 'main') {
      mkdirSync(dirname(bare(repo)), { recursive: true });
      git(root, 'init', '--quiet', '--bare', `--initial-branch=${branch}`, bare(repo));
      remotes.commit(repo, branch, files, 'initial commit');
    },
    commit(repo, branch, files, message = 'change') {
      const work = tempDir('conveyor-scratch-');
      try {
        git(work, 'init', '--quiet', `--initial-branch=${branch}`);
        git(work, 'remote', 'add', 'origin', bare(repo));
        if (remotes.head(repo, branch)) {
          git(work, 'fetch', '--quiet', 'origin', branch);
          git(work, 'checkout', '--quiet', '-B', branch, 'FETCH_HEAD');
        }
        writeFiles(work, files);
        git(work, 'add', '-A');
        git(work, 'commit', '--quiet', '-m', message);
        git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
        return git(work, 'rev-parse', 'HEAD');
      } finally {
        removeDir(work);
      }
    },
    head(repo, branch) {
      try {
        return git(bare(repo), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`) || undefined;
      } catch {
        return undefined;
      }
    },
    show(repo, branch, path) {
      return git(bare(repo), 'show', `${branch}:${path}`);
    },
    branches(repo) {
      const out = git(bare(repo), 'for-each-ref', '--format=%(refname:short)', 'refs/heads/');
      return out ? out.split('\n').sort() : [];
    },
    cleanup() {
      removeDir(root);
    },
  };
  return remotes;
}
