// What commits made in a repository are made of, read from its object database through the git
// layer (git.ts, whose settings every command here runs with): the commits a branch would send,
// the paths each changes against a parent (with their modes and objects), the sizes of those
// objects and their bytes. What an API that makes commits itself needs, to make the same ones.
import type { GitRun } from './git.ts';

/** A commit as it is stored: its tree, its parents in order, and its message exactly. */
export interface StoredCommit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
}

/** A path that differs between two trees: what it is in the second (mode and object; `000000` and no object when it is gone). */
export interface PathChange {
  path: string;
  mode: string;
  /** The object of the path in the second tree; undefined when the path is not there (a deletion). */
  sha: string | undefined;
  /** Its mode in the first tree (what a deletion removes). */
  oldMode: string;
  /** Its object in the first tree; undefined when the path is new. */
  oldSha: string | undefined;
}

const ZERO = /^0+$/;
/** Paths per `ls-tree` (a command line has room for them). */
const PATHS_PER_LISTING = 500;

export class GitObjects {
  constructor(private readonly run: GitRun) {}

  /**
   * The commits reachable from `head` and from none of `known`, parents before children (what a
   * push of `head` sends, replace refs and grafts ignored as by every command of the layer).
   */
  async commitsToSend(head: string, known: readonly string[]): Promise<StoredCommit[]> {
    const out = await this.run(['rev-list', '--topo-order', '--reverse', head, '--not', ...known.filter(Boolean), '--']);
    const commits: StoredCommit[] = [];
    for (const sha of out.stdout.split('\n').filter(Boolean)) commits.push(await this.commit(sha));
    return commits;
  }

  /** A commit's tree, parents and message, as stored (`cat-file commit`: the message byte for byte). */
  async commit(sha: string): Promise<StoredCommit> {
    const text = (await this.run(['cat-file', 'commit', sha])).stdout;
    const split = text.indexOf('\n\n');
    const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
    const tree = headers.find((h) => h.startsWith('tree '))?.slice(5) ?? '';
    const parents = headers.filter((h) => h.startsWith('parent ')).map((h) => h.slice(7));
    return { sha, tree, parents, message: split < 0 ? '' : text.slice(split + 2) };
  }

  /** Every path (files, links, submodules: no folders) that differs between two commits, renames unpaired. */
  async changes(from: string, to: string): Promise<PathChange[]> {
    const fields = (await this.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to])).stdout.split('\0');
    const changes: PathChange[] = [];
    // `:oldmode newmode oldsha newsha status` NUL `path` NUL, for each path.
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [oldMode, mode, oldSha, sha] = fields[i]!.replace(/^:/, '').split(' ');
      const path = fields[i + 1]!;
      if (!oldMode || !mode || !oldSha || !sha) continue;
      changes.push({ path, mode, sha: ZERO.test(sha) ? undefined : sha, oldMode, oldSha: ZERO.test(oldSha) ? undefined : oldSha });
    }
    return changes;
  }

  /** The size in bytes of each blob at `paths` in `commit` (a submodule's entry has none). */
  async sizes(commit: string, paths: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    for (let i = 0; i < paths.length; i += PATHS_PER_LISTING) {
      const chunk = paths.slice(i, i + PATHS_PER_LISTING);
      // Literal pathspecs: a path with `*` or `:` in it names that path alone.
      const out = await this.run(['--literal-pathspecs', 'ls-tree', '-r', '-l', '-z', '--full-tree', commit, '--', ...chunk]);
      for (const entry of out.stdout.split('\0').filter(Boolean)) {
        const tab = entry.indexOf('\t');
        const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
        if (Number.isFinite(size)) sizes.set(entry.slice(tab + 1), size);
      }
    }
    return sizes;
  }

  /** A blob's bytes exactly. */
  async blob(sha: string): Promise<Buffer> {
    const out = await this.run(['cat-file', 'blob', sha], { reach: 'contents', bytes: true });
    return out.bytes ?? Buffer.alloc(0);
  }

  /** A commit's tree. */
  async treeOf(commit: string): Promise<string> {
    return (await this.run(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`])).stdout.trim();
  }
}
