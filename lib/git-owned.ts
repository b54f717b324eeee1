// A checkout's git folder as Conveyor owns it. The folder lives outside the workspace (the checkout
// holds only a `.git` file naming it) and every sandbox mounts it read-only, so no command can
// change it; where no sandbox can be made, this is what still holds: before each of Conveyor's own
// git commands the folder is put back as Conveyor's last command left it (its configuration, its
// shallow list), and whatever would make git read another configuration, object store or history
// is removed (a worktree configuration, a common-dir pointer, grafts, replace refs, alternates,
// attributes). What git itself writes while Conveyor runs it is Conveyor's, recorded after each
// command.
import { lstat, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConveyorError } from '../core/errors.ts';

/** Files and folders under the git folder that make git read something else, and that Conveyor never writes. */
const FOREIGN = [
  'config.worktree',
  'commondir',
  'info/grafts',
  'info/attributes',
  'objects/info/alternates',
  'objects/info/http-alternates',
  'refs/replace',
  'worktrees',
];

/** What `.git` in a checkout holds: the path of its git folder. */
export function gitFileText(gitDir: string): string {
  return `gitdir: ${gitDir}\n`;
}

async function readOwn(path: string): Promise<string | null> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isFile() ? readFile(path, 'utf8') : null;
}

/** Writes `text` at `path`, replacing whatever is there (a link is removed, never followed). */
async function replace(path: string, text: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
  await writeFile(path, text, { flag: 'wx' });
}

export class OwnedGitDir {
  private config: string | null | undefined;
  private shallow: string | null | undefined;

  constructor(
    readonly gitDir: string,
    readonly workTree: string,
  ) {}

  /** Refuses a git folder or checkout folder that is no longer a real folder (a command replaced it with a link). */
  private async checkFolders(): Promise<void> {
    for (const [what, path] of [
      ['git folder', this.gitDir],
      ['checkout folder', this.workTree],
    ] as const) {
      const info = await lstat(path).catch(() => undefined);
      if (info && (!info.isDirectory() || info.isSymbolicLink())) {
        throw new ConveyorError('bad-input', `the ${what} ${path} is no longer a folder (a command replaced it); Conveyor runs no git there`);
      }
    }
  }

  /** Before a command: the git folder as Conveyor left it. */
  async reclaim(): Promise<void> {
    await this.checkFolders();
    if (!(await lstat(this.gitDir).catch(() => undefined))) return; // not cloned yet
    await Promise.all(FOREIGN.map((p) => rm(join(this.gitDir, p), { recursive: true, force: true })));
    for (const [name, known] of [
      ['config', this.config],
      ['shallow', this.shallow],
    ] as const) {
      if (known === undefined) continue;
      const path = join(this.gitDir, name);
      const now = await lstat(path).catch(() => undefined);
      if (known === null) {
        if (now) await rm(path, { recursive: true, force: true });
        continue;
      }
      if (now?.isFile() && !now.isSymbolicLink() && (await readFile(path, 'utf8')) === known) continue;
      await replace(path, known);
    }
    // The checkout's pointer to its git folder, for the commands that run there next (an agent's own `git status`).
    const pointer = join(this.workTree, '.git');
    const info = await lstat(pointer).catch(() => undefined);
    if (info && !(info.isFile() && (await readFile(pointer, 'utf8')) === gitFileText(this.gitDir))) await replace(pointer, gitFileText(this.gitDir));
  }

  /** After a command: what git wrote is what the next command starts from. */
  async record(): Promise<void> {
    if (!(await lstat(this.gitDir).catch(() => undefined))) return;
    this.config = await readOwn(join(this.gitDir, 'config'));
    this.shallow = await readOwn(join(this.gitDir, 'shallow'));
  }
}
