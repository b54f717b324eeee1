// GitHub's Git data API (blobs, trees, commits, refs) answered on a real bare repository, as GitHub
// answers it: a blob from base64 or text, a tree as `base_tree` with entries applied (by id, with
// inline content, or removed with `sha: null`), a commit by the token's account (GitHub's bot
// identity, marked verified as GitHub marks the commits it signs), a new ref only where none
// exists, and a ref moved without `force` only as a fast-forward ("Update is not a fast forward").
// The nock replies of action tests and the fake GitHub's routes both use it, so what a test sees
// on the bare repository afterwards is what GitHub would hold.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './repos.ts';

type Body = Record<string, unknown>;
export type Answer = [status: number, body: Body];

const BOT = { GIT_AUTHOR_NAME: 'conveyor[bot]', GIT_AUTHOR_EMAIL: '1+conveyor[bot]@users.noreply.github.com' };

export class GitDataOnBare {
  /** Every request body each route got, in order: what a test asserts on. */
  readonly bodies: { blobs: Body[]; trees: Body[]; commits: Body[]; refs: Body[] } = { blobs: [], trees: [], commits: [], refs: [] };

  constructor(readonly bare: string) {}

  private git(args: string[], options: { input?: Buffer | string; env?: Record<string, string> } = {}): string {
    return execFileSync('git', args, {
      cwd: this.bare,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...BOT, GIT_COMMITTER_NAME: 'GitHub', GIT_COMMITTER_EMAIL: 'noreply@github.com', ...options.env },
      ...(options.input !== undefined ? { input: options.input } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
      .toString()
      .trim();
  }

  private write(content: Buffer): string {
    return this.git(['hash-object', '-w', '--stdin'], { input: content });
  }

  head(branch: string): string | undefined {
    try {
      return this.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]) || undefined;
    } catch {
      return undefined;
    }
  }

  private typeOf(sha: string): string | undefined {
    try {
      return this.git(['cat-file', '-t', sha]);
    } catch {
      return undefined;
    }
  }

  blob(body: Body): Answer {
    this.bodies.blobs.push(body);
    const content = Buffer.from(String(body.content), body.encoding === 'base64' ? 'base64' : 'utf8');
    return [201, { sha: this.write(content), url: 'blob' }];
  }

  tree(body: Body): Answer {
    this.bodies.trees.push(body);
    const scratch = tempDir('conveyor-git-data-');
    try {
      const env = { GIT_INDEX_FILE: join(scratch, 'index') };
      if (body.base_tree) this.git(['read-tree', String(body.base_tree)], { env });
      const lines: string[] = [];
      for (const e of body.tree as Array<{ path: string; mode: string; sha?: string | null; content?: string }>) {
        if (e.content !== undefined) lines.push(`${e.mode} ${this.write(Buffer.from(e.content, 'utf8'))}\t${e.path}`);
        else if (e.sha === null) lines.push(`0 ${'0'.repeat(40)}\t${e.path}`);
        else {
          if (e.mode !== '160000' && this.typeOf(String(e.sha)) !== 'blob') return [422, { message: `tree.sha ${e.sha} is not a valid blob` }];
          lines.push(`${e.mode} ${e.sha}\t${e.path}`);
        }
      }
      this.git(['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
      return [201, { sha: this.git(['write-tree'], { env }), truncated: false, tree: [] }];
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  commit(body: Body): Answer {
    this.bodies.commits.push(body);
    const parents = (body.parents as string[]).flatMap((p) => ['-p', p]);
    const sha = this.git(['commit-tree', String(body.tree), ...parents], { input: String(body.message) });
    return [201, { sha, verification: { verified: true, reason: 'valid', signature: '-----BEGIN PGP SIGNATURE-----', payload: 'tree' } }];
  }

  createRef(body: Body): Answer {
    this.bodies.refs.push(body);
    const ref = String(body.ref);
    if (this.head(ref.replace(/^refs\/heads\//, ''))) return [422, { message: 'Reference already exists' }];
    this.git(['update-ref', ref, String(body.sha)]);
    return [201, { ref, object: { sha: body.sha, type: 'commit' } }];
  }

  /** PATCH of `refs/<ref>` (`ref` as in the route: `heads/<branch>`). */
  updateRef(ref: string, body: Body): Answer {
    this.bodies.refs.push({ ...body, ref });
    const branch = ref.replace(/^heads\//, '');
    const current = this.head(branch);
    if (!current) return [422, { message: 'Reference does not exist' }];
    const sha = String(body.sha);
    if (!body.force) {
      try {
        this.git(['merge-base', '--is-ancestor', current, sha]);
      } catch {
        return [422, { message: 'Update is not a fast forward' }];
      }
    }
    this.git(['update-ref', `refs/heads/${branch}`, sha]);
    return [200, { ref: `refs/${ref}`, object: { sha, type: 'commit' } }];
  }
}
